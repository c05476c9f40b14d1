cd "$(dirname "$0")/.." && . dev/device_call.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/gemm_add_dev.xz > /tmp/g && chmod +x /tmp/g
xz -dc .devbin/gemm_trace.xz > /tmp/gt && chmod +x /tmp/gt
step g-odd-a3 env GEMM_D_ASYNC=3 timeout 60 /tmp/g 1000 1032 1000 bf16 0
step g-tiny-a3 env GEMM_D_ASYNC=3 timeout 60 /tmp/g 300 264 72 bf16 0
step memcheck-a3 env GEMM_D_ASYNC=3 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/g 300 264 72 bf16 0
step racecheck-a3 env GEMM_D_ASYNC=3 timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 /tmp/g 300 264 72 bf16 0
step trace-a3 env GEMM_D_ASYNC=3 timeout 60 /tmp/gt 8192 8192 1024 bf16 0 own_add_c1,own_add_c2,
step trace-a2 env GEMM_D_ASYNC=2 timeout 60 /tmp/gt 8192 8192 1024 bf16 0 own_add_c1,
for a in 3 2; do
step g-8k-a$a env GEMM_D_ASYNC=$a timeout 150 /tmp/g 8192 8192 1024 bf16 32
step g-16k2k-a$a env GEMM_D_ASYNC=$a timeout 150 /tmp/g 16384 2048 1024 bf16 32 own_add_c1,own_add_c2,
done
step g-2k16k-a3 env GEMM_D_ASYNC=3 timeout 150 /tmp/g 2048 16384 1024 bf16 32 own_add_c1,own_add_c2,
step g-16k-a3 env GEMM_D_ASYNC=3 timeout 150 /tmp/g 16384 16384 1024 bf16 16 own_add_c1,own_add_c2,
