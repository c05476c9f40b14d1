cd "$(dirname "$0")/.." && . dev/device_call.sh
# stop 44's next-call9.sh on one binary (fb45k = HEAD + dev/cudnn_engine_knob.patch; without
# FB_DEV_CUDNN_ENGINE it is HEAD), plus Nsight Compute on row_smem at W = 65536 float32:
# layernorm (79.8% of SOL at 2048 rows) beside norm_chain (86.7%), same kernel template.
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb45k.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
AX="--dtype bfloat16 --H 56 --N 8,32,64 --C 128,256,512"
# 1. conv_add.fused against conv.tuned, both on engine 4 (the add graph's engine)
step add-e4 env FB_DEV_CUDNN_ENGINE=4 /tmp/fb run --case conv_add $AX --out $R/add-e4.json
# 2. as committed (conv.tuned free to take its engine), the same cells
step add-free /tmp/fb run --case conv_add $AX --out $R/add-free.json
# 3. the small GEMM's epilogue under Nsight Compute, GEMM kernels only
NCU="ncu --section SpeedOfLight --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis --section WarpStateStats"
step ncu-bias $NCU -k regex:'nvjet|gemm|sm90' --launch-skip 40 --launch-count 2 \
    /tmp/fb run --case matmul_bias --dtype bfloat16 --M 128 --N 8192 --K 1024 --variants matmul_bias.fused \
    --warmup 1 --rep 1 --no-pair --out $R/ncu-bias.json
# 4. row_smem at W = 65536: where layernorm's points go
for c in layernorm norm_chain; do
  for rows in 2048 8192; do
    step ncu-$c-$rows $NCU -k regex:row_smem --launch-skip 3 --launch-count 1 \
        /tmp/fb run --case $c --dtype float32 --dim0 $rows --dim1 65536 --variants $c.fused \
        --warmup 1 --rep 1 --out $R/ncu-$c-$rows.json
  done
done
