cd "$(dirname "$0")/.." && . dev/device_call.sh
# fb44d: conv_add / conv_bn float32 ask for the legacy call's workspace (call 4 skipped 8 cells)
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
xz -dc .devbin/fb44d.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
step selftest /tmp/fb selftest --case conv_add,conv_bn --dtype float32 --no-metrics --no-timer
step memcheck compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/fb run --case conv_add --dtype float32 --N 1 --C 64 --H 14 --rep 2 --warmup 1 --out $R/memcheck.json
step f32 /tmp/fb run --case conv_add,conv_bn --dtype float32 --H 56 --N 32,64 --C 128,256 --max-time 2 --out $R/f32.json
