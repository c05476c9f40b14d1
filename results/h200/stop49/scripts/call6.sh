cd "$(dirname "$0")/.." && . dev/device_call.sh
# Stop 49, call 6. fb49e = the final tree (rmsnorm_dw_kernel on common.cuh's pack<A, V>): selftest of the
# RMSNorm family, memcheck of every backward variant, the backward's cells of 4TN >= 16M in two rounds.
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb49e.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
step st-rbwd timeout 120 /tmp/fb selftest --case rmsnorm_backward,rmsnorm,tests/cases/rmsnorm_backward_rows16384.json,tests/cases/rmsnorm_backward_rows8.json,tests/cases/rmsnorm_backward_rows1024.json --no-metrics --no-timer
step memcheck timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/fb run --case rmsnorm_backward --dtype float32,float64,bfloat16 --T 1,37 --N 61,1027,8192,16384 --variants rmsnorm_backward.fused,rmsnorm_backward.persistent,rmsnorm_backward.pipelined,rmsnorm_backward.prefetch --rep 1 --warmup 0 --out $R/memcheck.json
AX="--case rmsnorm_backward --dtype all --T 512,2048 --N 2048,4096,8192,16384 --variants rmsnorm_backward.fused --show sol"
step rb-final-1 timeout 100 /tmp/fb run $AX --out $R/rb-final-1.json
step rb-final-2 timeout 100 /tmp/fb run $AX --out $R/rb-final-2.json
