cd "$(dirname "$0")/.." && . dev/device_call.sh
# Stop 49, call 5. fb49d = 63d1c04 + dev/rmsbwd_pipe_shape_knob.patch: the pipelined kernel's shape forced
# (FB_DEV_PIPE_G1: a group the row's width, one unit a thread, one row a step; FB_DEV_PIPE_OOP=0/1: steps
# out of phase or not; FB_DEV_PIPE_S: at most S stages) on the half types' cells under or near 80%;
# racecheck of .fused on float32 rows over the prefetched cluster of two (call 4's timed out).
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb49d.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
step racecheck timeout 100 compute-sanitizer --tool racecheck --error-exitcode 9 /tmp/fb run --case rmsnorm_backward --dtype float32 --T 1 --N 24576 --variants rmsnorm_backward.fused --rep 1 --warmup 0 --out $R/racecheck.json
step st-g1 env FB_DEV_PIPE_G1=1 timeout 60 /tmp/fb run --case rmsnorm_backward --dtype float16,bfloat16 --T 1,37 --N 2048,8192 --variants rmsnorm_backward.pipelined --rep 1 --warmup 0 --out $R/st-g1.json
AX="--case rmsnorm_backward --dtype float16,bfloat16 --T 512,2048 --N 2048,8192 --variants rmsnorm_backward.fused --show sol"
for i in 1 2; do
  step base-$i timeout 60 /tmp/fb run $AX --out $R/base-$i.json
  step g1-$i env FB_DEV_PIPE_G1=1 timeout 60 /tmp/fb run $AX --out $R/g1-$i.json
  step oop0-$i env FB_DEV_PIPE_OOP=0 timeout 60 /tmp/fb run $AX --out $R/oop0-$i.json
  step g1oop0-$i env FB_DEV_PIPE_G1=1 FB_DEV_PIPE_OOP=0 timeout 60 /tmp/fb run $AX --out $R/g1oop0-$i.json
  step s2-$i env FB_DEV_PIPE_S=2 timeout 60 /tmp/fb run $AX --out $R/s2-$i.json
done
