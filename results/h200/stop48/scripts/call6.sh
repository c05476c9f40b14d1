cd "$(dirname "$0")/.." && . dev/device_call.sh
# Stop 48, call 6. fb48p = HEAD (rmsnorm_backward.prefetch registered; .fused unchanged): checks,
# then prefetch against fused (the pipelined kernel: a cluster of two for rows of > 2048 units).
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb48p.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
step st-rbwd timeout 150 /tmp/fb selftest --case rmsnorm_backward --no-metrics --no-timer
step memcheck timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/fb run --case rmsnorm_backward --dtype all --T 1,37,512 --N 1024,4100,8192,16384 --variants rmsnorm_backward.prefetch --rep 1 --warmup 0 --out $R/memcheck.json
step racecheck timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 /tmp/fb run --case rmsnorm_backward --dtype float32,float64 --T 37 --N 8192,16384 --variants rmsnorm_backward.prefetch --rep 1 --warmup 0 --out $R/racecheck.json
AX="--case rmsnorm_backward --dtype all --T 512,2048 --N 8192,12288,16384 --show sol"
step rb-1 timeout 90 /tmp/fb run $AX --variants rmsnorm_backward.fused,rmsnorm_backward.prefetch --out $R/rb-1.json
step rb-2 timeout 90 /tmp/fb run $AX --variants rmsnorm_backward.prefetch,rmsnorm_backward.fused --out $R/rb-2.json
