cd "$(dirname "$0")/.." && . dev/device_call.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/gemm_add_dev.xz > /tmp/g && chmod +x /tmp/g
xz -dc .devbin/gemm_trace.xz > /tmp/gt && chmod +x /tmp/gt
step trace-p0 timeout 60 /tmp/gt 8192 8192 1024 bf16 0
step trace-p4 env GEMM_PREFETCH=4 timeout 60 /tmp/gt 8192 8192 1024 bf16 0
step trace-8k8k timeout 60 /tmp/gt 8192 8192 8192 bf16 0 own_plain_c1,own_add_c1
step g-8k-p0 timeout 150 /tmp/g 8192 8192 1024 bf16 32
step g-8k-p4 env GEMM_PREFETCH=4 timeout 150 /tmp/g 8192 8192 1024 bf16 32
step g-8k-p8 env GEMM_PREFETCH=8 timeout 150 /tmp/g 8192 8192 1024 bf16 32
step g-16k2k-p4 env GEMM_PREFETCH=4 timeout 150 /tmp/g 16384 2048 1024 bf16 32
