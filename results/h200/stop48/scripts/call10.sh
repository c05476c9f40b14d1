cd "$(dirname "$0")/.." && . dev/device_call.sh
# Stop 48, call 10. fb48g = bf73ba9 + dev/rmsbwd_pipe_gc0_knob.patch (FB_DEV_PIPE_GC0=1: the
# pipelined kernel with run-time group width and CTA size, as before bf73ba9). Checks, then the
# backward's cells of 4TN >= 16M with and without the knob, two rounds in alternating order.
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb48g.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
step st-rbwd timeout 100 /tmp/fb selftest --case rmsnorm_backward --no-metrics --no-timer
AX="--case rmsnorm_backward --dtype all --T 512,2048 --N 2048,4096,8192,16384 --variants rmsnorm_backward.fused --show sol"
step rb-gc-1 timeout 60 /tmp/fb run $AX --out $R/rb-gc-1.json
step rb-gc0-1 env FB_DEV_PIPE_GC0=1 timeout 60 /tmp/fb run $AX --out $R/rb-gc0-1.json
step rb-gc0-2 env FB_DEV_PIPE_GC0=1 timeout 60 /tmp/fb run $AX --out $R/rb-gc0-2.json
step rb-gc-2 timeout 60 /tmp/fb run $AX --out $R/rb-gc-2.json
