cd "$(dirname "$0")/.." && . dev/device_call.sh
# Stop 49, call 4. fb49c = 63d1c04 (the final tree's kernels: .fused on the prefetched kernel's cluster of
# two for float32/float64 rows of 4097..8192 units; the ready-flag dw reverted). Checks, sanitizers, the
# backward's cells of 4TN >= 16M (two rounds), issue 9's full seed table (both directions, four dtypes),
# and every backward variant on the half types' cells still under 80%.
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb49c.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
step st-rbwd timeout 200 /tmp/fb selftest --case rmsnorm_backward,rmsnorm,tests/cases/rmsnorm_backward_rows16384.json,tests/cases/rmsnorm_backward_rows8.json,tests/cases/rmsnorm_backward_rows1024.json --no-metrics --no-timer
step memcheck timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/fb run --case rmsnorm_backward --dtype float32,float64 --T 1,37,300 --N 8194,16384,16388,24576 --variants rmsnorm_backward.fused,rmsnorm_backward.prefetch --rep 1 --warmup 0 --out $R/memcheck.json
step racecheck timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 /tmp/fb run --case rmsnorm_backward --dtype float64,float32 --T 37 --N 16384,24576 --variants rmsnorm_backward.fused --rep 1 --warmup 0 --out $R/racecheck.json
AX="--case rmsnorm_backward --dtype all --T 128,512,2048 --N 2048,4096,8192,16384 --variants rmsnorm_backward.fused --show sol"
step rb-final-1 timeout 120 /tmp/fb run $AX --out $R/rb-final-1.json
step rb-final-2 timeout 120 /tmp/fb run $AX --out $R/rb-final-2.json
AV="--case rmsnorm_backward --dtype float16,bfloat16 --T 512,2048 --N 2048,8192,16384 --variants rmsnorm_backward.fused,rmsnorm_backward.persistent,rmsnorm_backward.pipelined,rmsnorm_backward.prefetch --show sol"
step half-all-1 timeout 120 /tmp/fb run $AV --out $R/half-all-1.json
step table timeout 300 /tmp/fb run --case rmsnorm,rmsnorm_backward --dtype all --table --out $R/table.json
