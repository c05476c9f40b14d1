cd "$(dirname "$0")/.." && . dev/device_call.sh
# NOT RUN (stop 45's device time was spent): the first call of the next stop, on a binary of HEAD
# (fb46 = the stop's HEAD: `bash dev/devbin.sh fb46`).
# 1. a9108e2 and 075c8a1 (the two-graph race moved into cudnn_graph.c, fb_cudnn_graph_pick; its review) have not run on a GPU
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb46.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
step selftest /tmp/fb selftest --case conv_add,matmul_add --no-metrics --no-timer
step st-odd /tmp/fb selftest --case tests/cases/conv_add_odd.json --no-metrics --no-timer
step memcheck compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/fb run --case conv_add --dtype bfloat16 --N 1,8 --C 64 --H 14 --rep 2 --warmup 1 --out $R/memcheck.json
# the pairs as call 7 read them (bfloat16 conv_add 1.002 / 1.018 at H = 14 / 56), and call 8's matmul cells
step conv-add /tmp/fb run --case conv_add --dtype bfloat16 --out $R/conv-add.json
step mm-cudnn /tmp/fb run --case matmul_add --dtype bfloat16 --K 1024 --M 2048,8192 --N 2048,8192 --variants matmul_add.fused,matmul_add.cudnn --out $R/mm-cudnn.json
