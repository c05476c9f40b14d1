cd "$(dirname "$0")/.." && . dev/device_call.sh
# Stop 47, call 8: fb47k again: the odd matmul_add shapes in full (call 7 cut them at 60 s after 40
# passed, 0 failed), and the bfloat16 grid a second time (call 1 read fused 1.163, call 7 1.182:
# how far the race's picks and the pairs move from run to run).
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb47k.xz > /tmp/fb && chmod +x /tmp/fb
step st-odd timeout 100 /tmp/fb selftest --case tests/cases/matmul_add_odd.json --no-metrics --no-timer
step mm-bf16 timeout 100 /tmp/fb run --case matmul_add --dtype bfloat16 --K 1024 --M 2048,8192,16384 --N 2048,8192,16384 --variants matmul_add.fused,matmul_add.own --out $R/mm-bf16.json
