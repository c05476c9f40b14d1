cd "$(dirname "$0")/.." && . dev/device_call.sh
# Stop 49, call 1. fb49a = cf819eb: rmsnorm_backward.prefetch over a cluster of two CTAs (PairExchange)
# for float64 rows of 4097..8192 units. Checks on odd and full rows, memcheck, racecheck; then
# .prefetch against .fused (the pipelined kernel's cluster of 4 there) and .pipelined, two rounds;
# float32 rows of 2049..4096 units (the C = 1 kernel, touched) as a regression check; the half types'
# rows of 8192 (1024 units) on the C = 1 kernel against .fused.
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb49a.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
step check-c2 timeout 120 /tmp/fb run --case rmsnorm_backward --dtype float64,float32 --T 1,37,300 --N 8194,12290,16384,16388,24576 --variants rmsnorm_backward.prefetch --rep 1 --warmup 0 --out $R/check-c2.json
step memcheck timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/fb run --case rmsnorm_backward --dtype float64,float32 --T 1,37 --N 8194,12290,16384,16388 --variants rmsnorm_backward.prefetch --rep 1 --warmup 0 --out $R/memcheck.json
step racecheck timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 /tmp/fb run --case rmsnorm_backward --dtype float64 --T 37 --N 12290,16384 --variants rmsnorm_backward.prefetch --rep 1 --warmup 0 --out $R/racecheck.json
A64="--case rmsnorm_backward --dtype float64 --T 128,512,2048 --N 8192,16384 --variants rmsnorm_backward.fused,rmsnorm_backward.prefetch,rmsnorm_backward.pipelined --show sol"
A32="--case rmsnorm_backward --dtype float32 --T 512,2048 --N 8192,16384 --variants rmsnorm_backward.fused,rmsnorm_backward.prefetch --show sol"
AH="--case rmsnorm_backward --dtype float16,bfloat16 --T 512,2048 --N 4096,8192 --variants rmsnorm_backward.fused,rmsnorm_backward.prefetch --show sol"
step f64-1 timeout 90 /tmp/fb run $A64 --out $R/f64-1.json
step reg-1 timeout 90 /tmp/fb run $A32 --out $R/reg-1.json
step half-1 timeout 90 /tmp/fb run $AH --out $R/half-1.json
step f64-2 timeout 90 /tmp/fb run $A64 --out $R/f64-2.json
step reg-2 timeout 90 /tmp/fb run $A32 --out $R/reg-2.json
step half-2 timeout 90 /tmp/fb run $AH --out $R/half-2.json
