cd "$(dirname "$0")/.." && . dev/device_call.sh
# Stop 48, call 2. fb48s = HEAD (ad3408b: matmul_add.cudnn plans one engine config a graph) +
# dev/rmsbwd_skip_dw_knob.patch (FB_DEV_RMSBWD_SKIP_DW=1: the row kernel alone, dw wrong).
# A: HEAD's matmul_add checked and its K = 1024 bfloat16 grid timed (prepare time over the grid).
# B: what the dw kernel costs rmsnorm_backward's timed call (knob off / on, alternating rounds),
#    and both kernels' durations under Nsight Compute at free clocks, caches flushed.
# C: stop 47's next-call1 (the own GEMM's SM clock per CTA: CLOCK lines of the trace build).
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb48s.xz > /tmp/fb && chmod +x /tmp/fb
xz -dc .devbin/gemm_trace.xz > /tmp/gt && chmod +x /tmp/gt
xz -dc .devbin/gemm_add_dev.xz > /tmp/g && chmod +x /tmp/g
step version /tmp/fb version
step selftest timeout 150 /tmp/fb selftest --case matmul_add --no-metrics --no-timer
AX="--case rmsnorm_backward --dtype float16,bfloat16,float32 --T 512,2048 --N 8192,16384 --variants rmsnorm_backward.fused --show sol"
step rb-dw-1 timeout 60 /tmp/fb run $AX --out $R/rb-dw-1.json
step rb-nodw-1 env FB_DEV_RMSBWD_SKIP_DW=1 timeout 60 /tmp/fb run $AX --out $R/rb-nodw-1.json
step rb-nodw-2 env FB_DEV_RMSBWD_SKIP_DW=1 timeout 60 /tmp/fb run $AX --out $R/rb-nodw-2.json
step rb-dw-2 timeout 60 /tmp/fb run $AX --out $R/rb-dw-2.json
M="--metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__grid_size,launch__block_size,sm__cycles_elapsed.avg.per_second"
for c in "float16 512 8192" "float32 512 16384" "bfloat16 2048 8192"; do
  set -- $c
  step ncu-$1-$2-$3 timeout 60 ncu --clock-control none --cache-control all --kernel-name regex:rmsnorm_ --launch-skip 4 --launch-count 4 $M /tmp/fb run --case rmsnorm_backward --dtype $1 --T $2 --N $3 --variants rmsnorm_backward.fused --warmup 2 --rep 2 --out $R/ncu-$1-$2-$3.json
done
step mm-k1024 timeout 150 /tmp/fb run --case matmul_add --dtype bfloat16 --K 1024 --variants matmul_add.fused --out $R/mm-k1024.json
F=own_plain_c1,own_plain_c1_k32,own_plain_c2,own_add_c1,
for r in 1 2; do
  step clock$r-8k env GEMM_D_ASYNC=3 timeout 40 /tmp/gt 8192 8192 1024 bf16 0 $F
  step clock$r-16k2k env GEMM_D_ASYNC=3 timeout 40 /tmp/gt 16384 2048 1024 bf16 0 $F
  step clock$r-8k8k timeout 60 /tmp/gt 8192 8192 8192 bf16 0 own_plain_c1,
done
step g-8k env GEMM_D_ASYNC=3 timeout 60 /tmp/g 8192 8192 1024 bf16 24 $F
