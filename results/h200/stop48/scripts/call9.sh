cd "$(dirname "$0")/.." && . dev/device_call.sh
# Stop 48, call 9: the final tree (fb48z = 89a556d: rmsnorm_backward.fused on the prefetched kernel for
# float32/float64 rows of 2049..4096 units). Checks, sanitizers, the backward's cells of 4TN >= 16M
# and N = 12288, two rounds.
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb48z.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
step st-rbwd timeout 150 /tmp/fb selftest --case rmsnorm_backward,rmsnorm --no-metrics --no-timer
step memcheck timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/fb run --case rmsnorm_backward --dtype float32,float64 --T 1,37,512 --N 8200,12288,16384 --variants rmsnorm_backward.fused,rmsnorm_backward.prefetch --rep 1 --warmup 0 --out $R/memcheck.json
step racecheck timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 /tmp/fb run --case rmsnorm_backward --dtype float32,float64 --T 37 --N 8192,16384 --variants rmsnorm_backward.prefetch --rep 1 --warmup 0 --out $R/racecheck.json
AX="--case rmsnorm_backward --dtype all --T 512,2048 --N 2048,4096,8192,12288,16384 --variants rmsnorm_backward.fused --show sol"
step rb-final-1 timeout 120 /tmp/fb run $AX --out $R/rb-final-1.json
step rb-final-2 timeout 120 /tmp/fb run $AX --out $R/rb-final-2.json
