cd "$(dirname "$0")/.." && . dev/device_call.sh
# row_smem's output loop with every unit's parameters loaded before the previous unit's store
# (AHEAD), against the order before (FB_DEV_NO_AHEAD=1, dev/params_ahead_knob.patch), in
# alternating rounds. fb45a = HEAD + that change + the knob.
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb45a.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
step selftest /tmp/fb selftest --case layernorm,rmsnorm --no-metrics --no-timer
LR=tests/cases/layernorm_long_rows.json
step long-f32 /tmp/fb run --case $LR --dtype float32 --rep 5 --warmup 2 --out $R/long-f32.json
step long-bf16 /tmp/fb run --case $LR --dtype bfloat16 --rep 5 --warmup 2 --out $R/long-bf16.json
step memcheck compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/fb run --case $LR --dtype float32,bfloat16 --dim0 3 --dim1 8200,65528 --variants layernorm.fused,layernorm.row_smem --rep 1 --warmup 1 --out $R/memcheck.json
F32="--case layernorm --dtype float32 --dim1 16384,32768,65536 --dim0 128,256,512,1024,2048,8192,32768 --variants layernorm.fused,layernorm.row_smem --baseline layernorm.fused --show sol"
BF="--case layernorm --dtype bfloat16 --dim1 16384,32768,65536 --dim0 128,512,2048,8192,32768 --variants layernorm.fused,layernorm.row_smem --baseline layernorm.fused --show sol"
RMS="--case rmsnorm --dtype float32 --N 16384 --variants rmsnorm.fused,rmsnorm.row_engine --baseline rmsnorm.fused --show sol"
for round in 1 2; do
  step f32-ahead-$round /tmp/fb run $F32 --out $R/f32-ahead-$round.json
  step f32-before-$round env FB_DEV_NO_AHEAD=1 /tmp/fb run $F32 --out $R/f32-before-$round.json
done
step bf16-ahead /tmp/fb run $BF --out $R/bf16-ahead.json
step bf16-before env FB_DEV_NO_AHEAD=1 /tmp/fb run $BF --out $R/bf16-before.json
step rms-ahead /tmp/fb run $RMS --out $R/rms-ahead.json
step rms-before env FB_DEV_NO_AHEAD=1 /tmp/fb run $RMS --out $R/rms-before.json
