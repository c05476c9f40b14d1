cd "$(dirname "$0")/.." && . dev/device_call.sh
# NOT RUN (written after stop 47's device time was spent): the SM clock the own GEMM's tiles run at
# in the cold, timed setting. The trace build now stamps each tile's start in %globaltimer ns too
# (CLOCK lines: cycles over ns across each CTA's traced tiles). Stop 47: at ncu's locked 1.27 GHz the
# own plain GEMM takes cuBLASLt's time at 8192^2 x 1024 (244 against 246 us, ~19.2k cycles a tile),
# at free clocks 1.07-1.10x. If CLOCK reads ~1.9 GHz and the tiles take more cycles than 19.2k, the
# kernel is latency-bound at high clocks (what cuBLASLt's kernel hides better); if it reads ~1.5
# GHz with ~19.2k-cycle tiles, both kernels run power-capped and the gap is elsewhere (the grid's
# tail, the launch).
# Binaries: dev/gemm_add_dev.cu's trace build (its top comment, plus -DFB_GEMM_TRACE) into
# .devbin/gemm_trace.xz, and the plain build into .devbin/gemm_add_dev.xz.
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/gemm_trace.xz > /tmp/gt && chmod +x /tmp/gt
xz -dc .devbin/gemm_add_dev.xz > /tmp/g && chmod +x /tmp/g
F=own_plain_c1,own_plain_c1_k32,own_plain_c2,own_add_c1,
for r in 1 2; do
  step clock$r-8k env GEMM_D_ASYNC=3 timeout 40 /tmp/gt 8192 8192 1024 bf16 0 $F
  step clock$r-16k2k env GEMM_D_ASYNC=3 timeout 40 /tmp/gt 16384 2048 1024 bf16 0 $F
  step clock$r-8k8k timeout 60 /tmp/gt 8192 8192 8192 bf16 0 own_plain_c1,
done
S="--section SpeedOfLight"
step ncu-c1 timeout 60 ncu -k regex:gemm_tma --launch-count 1 $S /tmp/gt 8192 8192 1024 bf16 0 own_plain_c1,
step g-8k env GEMM_D_ASYNC=3 timeout 60 /tmp/g 8192 8192 1024 bf16 24 $F
