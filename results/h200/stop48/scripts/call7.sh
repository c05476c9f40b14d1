cd "$(dirname "$0")/.." && . dev/device_call.sh
# Stop 48, call 7: the final tree (fb48q = HEAD: rmsnorm_backward.fused takes the prefetched
# kernel where prefetch_wins says): checks, memcheck of .fused on the rows it now runs there, and the
# backward's cells of 4TN >= 16M (issue 9's >= 80% of SOL) in all four dtypes plus N = 12288, two rounds.
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb48q.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
step st-rbwd timeout 150 /tmp/fb selftest --case rmsnorm_backward,rmsnorm --no-metrics --no-timer
step memcheck timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/fb run --case rmsnorm_backward --dtype float32,float64 --T 512,700 --N 8192,12288 --variants rmsnorm_backward.fused --rep 1 --warmup 0 --out $R/memcheck.json
AX="--case rmsnorm_backward --dtype all --T 512,2048 --N 2048,4096,8192,12288,16384 --variants rmsnorm_backward.fused --show sol"
# the half types' prefetch at two units a thread (not .fused's pick there), one round beside .fused
step rb-half timeout 60 /tmp/fb run --case rmsnorm_backward --dtype float16,bfloat16 --T 512,2048 --N 8192,16384 --variants rmsnorm_backward.fused,rmsnorm_backward.prefetch --show sol --out $R/rb-half.json
step rb-final-1 timeout 120 /tmp/fb run $AX --out $R/rb-final-1.json
step rb-final-2 timeout 120 /tmp/fb run $AX --out $R/rb-final-2.json
