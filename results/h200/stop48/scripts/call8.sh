cd "$(dirname "$0")/.." && . dev/device_call.sh
# Stop 48, call 8. fb48w = HEAD + dev/rmsbwd_prefetch_wsm_knob.patch (FB_DEV_PREFETCH_WSM=1: the
# prefetched kernel's WSM form on rows of > 2048 units). Checks of that form, then .prefetch with
# and without it beside .fused, two rounds in alternating order.
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb48w.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
step st-wsm env FB_DEV_PREFETCH_WSM=1 timeout 150 /tmp/fb selftest --case rmsnorm_backward --no-metrics --no-timer
step memcheck-wsm env FB_DEV_PREFETCH_WSM=1 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/fb run --case rmsnorm_backward --dtype float32,float64 --T 1,37,512 --N 8200,12288,16384 --variants rmsnorm_backward.prefetch --rep 1 --warmup 0 --out $R/memcheck-wsm.json
step racecheck-wsm env FB_DEV_PREFETCH_WSM=1 timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 /tmp/fb run --case rmsnorm_backward --dtype float32,float64 --T 37 --N 12288,16384 --variants rmsnorm_backward.prefetch --rep 1 --warmup 0 --out $R/racecheck-wsm.json
AX="--case rmsnorm_backward --dtype float32,float64 --T 512,2048 --N 8192,12288,16384 --variants rmsnorm_backward.fused,rmsnorm_backward.prefetch --show sol"
step rb-base-1 timeout 90 /tmp/fb run $AX --out $R/rb-base-1.json
step rb-wsm-1 env FB_DEV_PREFETCH_WSM=1 timeout 90 /tmp/fb run $AX --out $R/rb-wsm-1.json
step rb-wsm-2 env FB_DEV_PREFETCH_WSM=1 timeout 90 /tmp/fb run $AX --out $R/rb-wsm-2.json
step rb-base-2 timeout 90 /tmp/fb run $AX --out $R/rb-base-2.json
