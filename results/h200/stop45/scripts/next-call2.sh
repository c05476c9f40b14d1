cd "$(dirname "$0")/.." && . dev/device_call.sh
# NOT RUN: what the weight and bias's L2 traffic costs layernorm's row_smem at float32 W = 65536
# (kernels/NOTES.md "Stop 45" section 2 and Next). fb46w = HEAD + dev/param_window_knob.patch (`bash dev/devbin.sh fb46w dev/param_window_knob.patch`).
# Prediction: if the parameters' 512 KB of L2 reads a row are what layernorm pays over norm_chain
# (ncu: 361.8 against 322.9 us at 2048 rows), an L1-resident window brings layernorm.fused to
# norm_chain's % of SOL (86.7% at 2048 rows, 89.9% at 8192); if it stays at 79-83%, they are not.
# The window's checks fail by design (status "fail", timed anyway): a diagnostic, not a result.
# And dev/rowcopy_wide_dev.cu (built here: nvcc -gencode arch=compute_90a,code=sm_90a -O3 -std=c++17
# dev/rowcopy_wide_dev.cu -o rowcopy_wide; xz -9 into .devbin/): a copy in row_smem's shape with
# one, two, three row barriers and layernorm's parameter reads, against memcpy: the ceiling of a
# one-row-an-SM kernel at W = 65536. Prediction: hard2 near row_smem layernorm's 79-83% would make
# that shape the limit, whatever its arithmetic.
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb46w.xz > /tmp/fb && chmod +x /tmp/fb
xz -dc .devbin/rowcopy_wide.xz > /tmp/rowcopy_wide && chmod +x /tmp/rowcopy_wide
step rowcopy /tmp/rowcopy_wide
AX="--dtype float32 --dim1 65536 --dim0 128,512,2048,8192,32768 --show sol"
for round in 1 2; do
  step ln-$round /tmp/fb run --case layernorm $AX --variants layernorm.fused --out $R/ln-$round.json
  step ln-window-$round env FB_DEV_PARAM_WINDOW=4096 /tmp/fb run --case layernorm $AX --variants layernorm.fused --out $R/ln-window-$round.json
  step nc-$round /tmp/fb run --case norm_chain $AX --variants norm_chain.fused --out $R/nc-$round.json
done
