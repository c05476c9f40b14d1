cd "$(dirname "$0")/.." && . dev/device_call.sh
# row_smem's stores with the parameters DEPTH units ahead (store_params_ahead) and a register part
# of 4 units (the rest of the row in shared memory), by dev knob: FB_DEV_AHEAD=D, FB_DEV_SMEM_UPT=4.
# fb45b = HEAD + that + the knobs. Unset: the kernel as committed.
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb45b.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
LR=tests/cases/layernorm_long_rows.json
step st-42 env FB_DEV_SMEM_UPT=4 FB_DEV_AHEAD=2 /tmp/fb selftest --case layernorm --no-metrics --no-timer
step long-42 env FB_DEV_SMEM_UPT=4 FB_DEV_AHEAD=2 /tmp/fb run --case $LR --dtype float32 --rep 5 --warmup 2 --out $R/long-42.json
step long-44 env FB_DEV_SMEM_UPT=4 FB_DEV_AHEAD=4 /tmp/fb run --case $LR --dtype float32 --rep 5 --warmup 2 --out $R/long-44.json
step long-82 env FB_DEV_AHEAD=2 /tmp/fb run --case $LR --dtype float32 --rep 5 --warmup 2 --out $R/long-82.json
step memcheck-42 env FB_DEV_SMEM_UPT=4 FB_DEV_AHEAD=2 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/fb run --case $LR --dtype float32 --dim0 3 --dim1 8196,65528 --variants layernorm.fused,layernorm.row_smem --rep 1 --warmup 1 --out $R/memcheck-42.json
AX="--case layernorm --dtype float32 --dim1 65536 --dim0 128,256,512,1024,2048,8192,32768 --variants layernorm.fused --show sol"
for round in 1 2; do
  step r$round-80 /tmp/fb run $AX --out $R/r$round-80.json
  step r$round-42 env FB_DEV_SMEM_UPT=4 FB_DEV_AHEAD=2 /tmp/fb run $AX --out $R/r$round-42.json
  step r$round-41 env FB_DEV_SMEM_UPT=4 FB_DEV_AHEAD=1 /tmp/fb run $AX --out $R/r$round-41.json
  step r$round-44 env FB_DEV_SMEM_UPT=4 FB_DEV_AHEAD=4 /tmp/fb run $AX --out $R/r$round-44.json
  step r$round-40 env FB_DEV_SMEM_UPT=4 /tmp/fb run $AX --out $R/r$round-40.json
  step r$round-82 env FB_DEV_AHEAD=2 /tmp/fb run $AX --out $R/r$round-82.json
  step r$round-81 env FB_DEV_AHEAD=1 /tmp/fb run $AX --out $R/r$round-81.json
done
