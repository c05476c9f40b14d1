cd "$(dirname "$0")/.." && . dev/device_call.sh
# NOT RUN (written after stop 46's device time was spent): the own GEMM with stages of 32 along K,
# six in the same shared memory (kernels/gemm_tma.cuh's KSTEP = 32: A 64-byte swizzled), against
# the committed 3 x 64. A consumer warpgroup holds two stages (the one its MMAs read, the one they
# issue next), so 3 x 48 KB leaves one or two in flight and 6 x 24 KB four or five: ~1.5x the bytes
# in flight at the same shared memory. Prediction: the K = 1024 main loop's data waits (call 7's
# traces: half of it) shrink, and plain at K = 1024 moves from 1.09-1.13x toward 1.03x.
# Binaries: dev/gemm_add_dev.cu as its top comment says, into .devbin/gemm_add_dev.xz, and the
# same with -DFB_GEMM_TRACE into .devbin/gemm_trace.xz.
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/gemm_add_dev.xz > /tmp/g && chmod +x /tmp/g
xz -dc .devbin/gemm_trace.xz > /tmp/gt && chmod +x /tmp/gt
step g-odd timeout 60 /tmp/g 1000 1032 1000 bf16 0
step g-tiny timeout 60 /tmp/g 300 264 72 bf16 0
step memcheck timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/g 300 264 72 bf16 0
step racecheck env GEMM_D_ASYNC=3 timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 /tmp/g 300 264 72 bf16 0 own_add_c1_k32,own_plain_c1_k32,
step trace timeout 60 /tmp/gt 8192 8192 1024 bf16 0 own_plain_c1,own_plain_c1_k32,own_add_c1,own_add_c1_k32,
step g-8k env GEMM_D_ASYNC=3 timeout 150 /tmp/g 8192 8192 1024 bf16 32
step g-16k2k env GEMM_D_ASYNC=3 timeout 150 /tmp/g 16384 2048 1024 bf16 32
step g-2k env GEMM_D_ASYNC=3 timeout 150 /tmp/g 2048 2048 1024 bf16 64
step g-8k8k timeout 150 /tmp/g 8192 8192 8192 bf16 16 own_plain_c1,own_plain_c2,own_plain_c1_k32,own_plain_c2_k32,
