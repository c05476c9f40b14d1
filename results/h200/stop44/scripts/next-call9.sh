cd "$(dirname "$0")/.." && . dev/device_call.sh
# NOT RUN: conv_add's cost split (kernels/NOTES.md "Stop 44" section 2). fb45k = the next stop's HEAD
# with dev/cudnn_engine_knob.patch applied (built with scripts/setup.sh, `strings | grep
# FB_DEV_CUDNN_ENGINE` checked), fb45 = HEAD.
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
xz -dc .devbin/fb45.xz > /tmp/fb && chmod +x /tmp/fb
xz -dc .devbin/fb45k.xz > /tmp/fbk && chmod +x /tmp/fbk
AX="--dtype bfloat16 --H 56 --N 8,32,64 --C 128,256,512"
# 1. conv_add.fused against conv.tuned, both on engine 4 (the add graph's engine): if the pairs
#    still read 1.05-1.17, the cost is D's read; if ~1.00, it was engine 4's main loop
step add-e4 env FB_DEV_CUDNN_ENGINE=4 /tmp/fbk run --case conv_add $AX --out $R/add-e4.json
# 2. as committed (conv.tuned free to take engine 62), the same cells
step add-free /tmp/fb run --case conv_add $AX --out $R/add-free.json
# 3. the small GEMMs' epilogue under Nsight Compute, the GEMM kernels only (call 1's step had no
#    kernel filter and profiled the timer's flush kernels)
for v in matmul_bias.fused; do
  step ncu-bias ncu -k regex:'nvjet|gemm|sm90' --launch-skip 40 --launch-count 2 --section SpeedOfLight \
    --section LaunchStats /tmp/fb run --case matmul_bias --dtype bfloat16 --M 128 --N 8192 --K 1024 --variants $v \
    --warmup 1 --rep 1 --no-pair --out $R/ncu-bias.json
done
