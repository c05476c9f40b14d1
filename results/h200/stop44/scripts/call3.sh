cd "$(dirname "$0")/.." && . dev/device_call.sh
# fb44c = the commit after b1764df: mode B's other engines join the cuDNN candidates
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb44c.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
step selftest /tmp/fb selftest --case conv,conv_relu,conv_add,conv_bn --no-metrics --no-timer
step memcheck compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/fb run --case conv_add --dtype bfloat16 --N 1 --C 64,128 --H 14 --rep 2 --warmup 1 --out $R/memcheck.json
# conv_add against conv.tuned with mode B's engines among the candidates (call 2: 1.024 / 1.058)
step add-bf16 /tmp/fb run --case conv_add --dtype bfloat16 --max-time 2 --out $R/add-bf16.json
step f32 /tmp/fb run --case conv_relu,conv_add,conv_bn --dtype float32 --N 1,8,32 --C 64,256 --max-time 2 --out $R/f32.json
step add-f16 /tmp/fb run --case conv_add --dtype float16 --max-time 2 --out $R/add-f16.json
