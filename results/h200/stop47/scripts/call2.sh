cd "$(dirname "$0")/.." && . dev/device_call.sh
# Stop 47, call 2: the own GEMM's KSTEP = 32 forms (six stages of 24 KB) with call 1's bug fixed
# (the second consumer warpgroup's A rows). Prediction (stop 46 Next): more bytes in flight a
# k-step, the K = 1024 main loop's data waits shrink, plain at K = 1024 from 1.09-1.13x toward 1.03x.
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/gemm_add_dev.xz > /tmp/g && chmod +x /tmp/g
xz -dc .devbin/gemm_trace.xz > /tmp/gt && chmod +x /tmp/gt
step g-odd timeout 30 /tmp/g 1000 1032 1000 bf16 0
step g-tiny timeout 30 /tmp/g 300 264 72 bf16 0
step g-memcheck timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/g 300 264 72 bf16 0
step g-racecheck env GEMM_D_ASYNC=3 timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 /tmp/g 300 264 72 bf16 0 own_add_c1_k32,own_plain_c1_k32,
step trace timeout 40 /tmp/gt 8192 8192 1024 bf16 0 own_plain_c1,own_plain_c1_k32,own_add_c1,own_add_c1_k32,
step g-8k env GEMM_D_ASYNC=3 timeout 60 /tmp/g 8192 8192 1024 bf16 32
step g-16k2k env GEMM_D_ASYNC=3 timeout 60 /tmp/g 16384 2048 1024 bf16 32
step g-2k env GEMM_D_ASYNC=3 timeout 60 /tmp/g 2048 2048 1024 bf16 64
step g-2k8k env GEMM_D_ASYNC=3 timeout 60 /tmp/g 2048 8192 1024 bf16 32
step g-8k8k timeout 60 /tmp/g 8192 8192 8192 bf16 16 own_plain_c1,own_plain_c2,own_plain_c1_k32,own_plain_c2_k32,
step g-f16 env GEMM_D_ASYNC=3 timeout 60 /tmp/g 8192 8192 1024 f16 32
