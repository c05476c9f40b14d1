cd "$(dirname "$0")/.." && . dev/device_call.sh
# conv_add.fused with two graphs (conv -> + D, conv -> + D -> + 0) in one tuning race.
# fb45d = that commit's tree.
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb45d.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
step selftest /tmp/fb selftest --case conv,conv_relu,conv_add,conv_bn --no-metrics --no-timer
step st-odd /tmp/fb selftest --case tests/cases/conv_add_odd.json,tests/cases/conv_odd.json --no-metrics --no-timer
step memcheck compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/fb run --case conv_add --dtype bfloat16 --N 1,8 --C 64 --H 14 --rep 2 --warmup 1 --out $R/memcheck.json
step f32 /tmp/fb run --case conv_add --dtype float32 --N 1,8 --C 64,256 --H 14 --out $R/f32.json
step bf16 /tmp/fb run --case conv_add --dtype bfloat16 --out $R/bf16.json
step f16 /tmp/fb run --case conv_add --dtype float16 --out $R/f16.json
