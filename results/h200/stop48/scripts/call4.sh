cd "$(dirname "$0")/.." && . dev/device_call.sh
# Stop 48, call 4. fb48o = 890a38d (the pipelined rmsnorm_backward kernel sums dw itself behind a
# grid barrier, with sum_partial_block's batched 16-byte loads) + dev/rmsbwd_own_dw_knobs.patch
# (FB_DEV_RMSBWD_DW_KERNEL=1: the dw kernel instead, as 7282402; FB_DEV_RMSBWD_NOCOOP=1: the own
# sum launched without the cooperative attribute). Checks, then three forms in alternating rounds.
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb48o.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
step st-rbwd timeout 120 /tmp/fb selftest --case rmsnorm_backward --no-metrics --no-timer
step memcheck timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/fb run --case rmsnorm_backward --dtype all --T 1,37,512 --N 1027,4096,8192,16384 --variants rmsnorm_backward.fused,rmsnorm_backward.pipelined --rep 1 --warmup 0 --out $R/memcheck.json
step racecheck timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 /tmp/fb run --case rmsnorm_backward --dtype bfloat16,float32 --T 37 --N 8192,16384 --variants rmsnorm_backward.fused --rep 1 --warmup 0 --out $R/racecheck.json
AX="--case rmsnorm_backward --dtype all --T 512,2048 --N 8192,16384 --variants rmsnorm_backward.fused --show sol"
step rb-own-1 timeout 60 /tmp/fb run $AX --out $R/rb-own-1.json
step rb-kernel-1 env FB_DEV_RMSBWD_DW_KERNEL=1 timeout 60 /tmp/fb run $AX --out $R/rb-kernel-1.json
step rb-nocoop-1 env FB_DEV_RMSBWD_NOCOOP=1 timeout 60 /tmp/fb run $AX --out $R/rb-nocoop-1.json
step rb-nocoop-2 env FB_DEV_RMSBWD_NOCOOP=1 timeout 60 /tmp/fb run $AX --out $R/rb-nocoop-2.json
step rb-kernel-2 env FB_DEV_RMSBWD_DW_KERNEL=1 timeout 60 /tmp/fb run $AX --out $R/rb-kernel-2.json
step rb-own-2 timeout 60 /tmp/fb run $AX --out $R/rb-own-2.json
