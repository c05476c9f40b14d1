cd "$(dirname "$0")/.." && . dev/device_call.sh
# Stop 48, call 5: the final tree (fb48f = 2b2a6e5, no patches): rmsnorm_backward checked, and its
# cells of 4TN >= 16M (issue 9's >= 80% of SOL) in all four dtypes, two rounds.
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb48f.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
step st-rbwd timeout 120 /tmp/fb selftest --case rmsnorm_backward,rmsnorm --no-metrics --no-timer
AX="--case rmsnorm_backward --dtype all --T 512,2048 --N 2048,4096,8192,16384 --variants rmsnorm_backward.fused --show sol"
step rb-final-1 timeout 90 /tmp/fb run $AX --out $R/rb-final-1.json
step rb-final-2 timeout 90 /tmp/fb run $AX --out $R/rb-final-2.json
