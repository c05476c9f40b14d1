cd "$(dirname "$0")/.." && . dev/device_call.sh
# Stop 48, call 1: rmsnorm_backward's pipelined kernel summing dw itself behind a grid barrier
# (3875b46; fb48r = HEAD + dev/rmsbwd_dw_kernel_knob.patch: FB_DEV_RMSBWD_DW_KERNEL=1 restores the
# dw kernel), checks then A/B in alternating rounds; then stop 47's next-call2 (fb48c: cuDNN
# candidates per graph, N = 8, 1, 2).
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb48r.xz > /tmp/fb && chmod +x /tmp/fb
xz -dc .devbin/fb48c.xz > /tmp/fbc && chmod +x /tmp/fbc
step version /tmp/fb version
step st-rbwd timeout 200 /tmp/fb selftest --case rmsnorm_backward --no-metrics --no-timer
step memcheck timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/fb run --case rmsnorm_backward --dtype all --T 1,37,512 --N 8192,16384 --variants rmsnorm_backward.fused,rmsnorm_backward.pipelined --rep 2 --warmup 1 --out $R/memcheck.json
step racecheck timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 /tmp/fb run --case rmsnorm_backward --dtype bfloat16,float32 --T 37 --N 8192,16384 --variants rmsnorm_backward.fused --rep 1 --warmup 0 --out $R/racecheck.json
AX="--case rmsnorm_backward --dtype all --T 512,2048 --N 2048,4096,8192,16384 --variants rmsnorm_backward.fused --show sol"
for round in 1 2; do
  if [ $round = 1 ]; then
    step rb-new-1 timeout 90 /tmp/fb run $AX --out $R/rb-new-1.json
    step rb-old-1 env FB_DEV_RMSBWD_DW_KERNEL=1 timeout 90 /tmp/fb run $AX --out $R/rb-old-1.json
  else
    step rb-old-2 env FB_DEV_RMSBWD_DW_KERNEL=1 timeout 90 /tmp/fb run $AX --out $R/rb-old-2.json
    step rb-new-2 timeout 90 /tmp/fb run $AX --out $R/rb-new-2.json
  fi
done
MX="--case matmul_add --dtype bfloat16 --K 1024 --M 2048,8192,16384 --N 2048,8192,16384 --variants matmul_add.fused"
for n in 8 1 2; do
  step mm-n$n env FB_DEV_MM_CUDNN_CANDIDATES=$n timeout 130 /tmp/fbc run $MX --out $R/mm-n$n.json
done
