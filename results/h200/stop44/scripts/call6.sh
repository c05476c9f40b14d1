cd "$(dirname "$0")/.." && . dev/device_call.sh
# fb44e: every conv variant (conv.tuned included) asks IEEE float32's larger workspace
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
xz -dc .devbin/fb44e.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
step selftest /tmp/fb selftest --case conv,conv_relu,conv_add,conv_bn --dtype float32 --no-metrics --no-timer
step f32 /tmp/fb run --case conv,conv_relu,conv_add,conv_bn --dtype float32 --N 8,32,64 --C 64,256 --max-time 2 --out $R/f32.json
