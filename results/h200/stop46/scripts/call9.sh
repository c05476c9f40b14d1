cd "$(dirname "$0")/.." && . dev/device_call.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/gemm_add_dev.xz > /tmp/g && chmod +x /tmp/g
xz -dc .devbin/gemm_trace.xz > /tmp/gt && chmod +x /tmp/gt
F=own_add_c1,own_add_c2,
for m in 0 1 2; do
step trace-d$m env GEMM_D_PREFETCH=$m timeout 60 /tmp/gt 8192 8192 1024 bf16 0 $F
step g-8k-d$m env GEMM_D_PREFETCH=$m timeout 150 /tmp/g 8192 8192 1024 bf16 32 $F
step g-16k2k-d$m env GEMM_D_PREFETCH=$m timeout 150 /tmp/g 16384 2048 1024 bf16 32 $F
done
step g-odd-d2 env GEMM_D_PREFETCH=2 timeout 60 /tmp/g 1000 1032 1000 bf16 0
step memcheck-d2 env GEMM_D_PREFETCH=2 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/g 300 264 72 bf16 0
