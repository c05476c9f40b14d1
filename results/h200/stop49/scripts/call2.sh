cd "$(dirname "$0")/.." && . dev/device_call.sh
# Stop 49, call 2. fb49b = f425c5b + dev/rmsbwd_dw_grid_wait_knob.patch: the dw kernel reads each partial
# row once its CTAs' ready flags are up (default) or after the row kernel's end (FB_DEV_DW_GRID_WAIT=1,
# as before). Checks (selftest, memcheck and racecheck over every row kernel), the backward's cells of
# 4TN >= 16M both ways in alternating rounds, and float32 rows of 4097..8192 units on .fused (the
# prefetched cluster of two since 1c7e5a6) against .pipelined.
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb49b.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
step st-rbwd timeout 200 /tmp/fb selftest --case rmsnorm_backward,rmsnorm,tests/cases/rmsnorm_backward_rows16384.json,tests/cases/rmsnorm_backward_rows8.json,tests/cases/rmsnorm_backward_rows1024.json --no-metrics --no-timer
step memcheck timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/fb run --case rmsnorm_backward --dtype float32,float64,bfloat16 --T 1,37 --N 61,1027,8192,16384 --variants rmsnorm_backward.fused,rmsnorm_backward.persistent,rmsnorm_backward.pipelined,rmsnorm_backward.prefetch --rep 1 --warmup 0 --out $R/memcheck.json
step racecheck timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 /tmp/fb run --case rmsnorm_backward --dtype float32,float64 --T 37 --N 1027,16384 --variants rmsnorm_backward.fused,rmsnorm_backward.pipelined --rep 1 --warmup 0 --out $R/racecheck.json
AX="--case rmsnorm_backward --dtype all --T 512,2048 --N 2048,4096,8192,12288,16384 --variants rmsnorm_backward.fused --show sol"
step flags-1 timeout 120 /tmp/fb run $AX --out $R/flags-1.json
step grid-1 env FB_DEV_DW_GRID_WAIT=1 timeout 120 /tmp/fb run $AX --out $R/grid-1.json
step grid-2 env FB_DEV_DW_GRID_WAIT=1 timeout 120 /tmp/fb run $AX --out $R/grid-2.json
step flags-2 timeout 120 /tmp/fb run $AX --out $R/flags-2.json
A32="--case rmsnorm_backward --dtype float32 --T 128,512,2048 --N 20480,32768 --variants rmsnorm_backward.fused,rmsnorm_backward.pipelined --show sol"
step f32c2-1 timeout 90 /tmp/fb run $A32 --out $R/f32c2-1.json
step f32c2-2 timeout 90 /tmp/fb run $A32 --out $R/f32c2-2.json
