cd "$(dirname "$0")/.." && . dev/device_call.sh
# Stop 47, call 6: energy a GEMM (dev/gemm_add_dev.cu GEMM_ENERGY=n: n back-to-back runs a side,
# NVML's board energy counter). Question: at ncu's locked clock the own plain GEMM takes cuBLASLt's
# time at 8192 x 8192 x 1024 (call 3), at free clocks 1.07-1.10x (calls 2, 4, 5), and neither more
# stages (call 2) nor fewer DRAM bytes (calls 4-5) moved it. If the own kernel spends more energy a
# GEMM, the board's power cap gives it a lower clock: then the gap is energy, not cycles.
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/gemm_add_dev.xz > /tmp/g && chmod +x /tmp/g
F=own_plain_c1,own_plain_c2,own_add_c1,own_add_c2,
for r in 1 2; do
  step e$r-8k env GEMM_D_ASYNC=3 GEMM_ENERGY=3000 timeout 90 /tmp/g 8192 8192 1024 bf16 8 $F
  step e$r-16k2k env GEMM_D_ASYNC=3 GEMM_ENERGY=6000 timeout 90 /tmp/g 16384 2048 1024 bf16 8 $F
  step e$r-8k8k env GEMM_ENERGY=400 timeout 90 /tmp/g 8192 8192 8192 bf16 4 own_plain_c1,own_plain_c2,
done
step e-f16 env GEMM_D_ASYNC=3 GEMM_ENERGY=3000 timeout 90 /tmp/g 8192 8192 1024 f16 8 $F
