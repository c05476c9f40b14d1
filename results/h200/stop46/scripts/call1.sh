cd "$(dirname "$0")/.." && . dev/device_call.sh
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb46.xz > /tmp/fb && chmod +x /tmp/fb
xz -dc .devbin/gemm_add_dev.xz > /tmp/g && chmod +x /tmp/g
# 1. the own TMA GEMM (kernels/gemm_tma.cuh): checks on odd and small shapes, then timed
step g-odd timeout 60 /tmp/g 1000 1032 1000 bf16 0
step g-small timeout 60 /tmp/g 256 512 128 bf16 0
step g-8k timeout 120 /tmp/g 8192 8192 1024 bf16 48
step g-16k timeout 120 /tmp/g 16384 16384 1024 bf16 32
step g-2k16k timeout 120 /tmp/g 2048 16384 1024 bf16 48
step g-16k2k timeout 120 /tmp/g 16384 2048 1024 bf16 48
step g-8k8k timeout 120 /tmp/g 8192 8192 8192 bf16 16
step g-f16 timeout 120 /tmp/g 8192 8192 1024 f16 32
# 2. stop 45's unrun commits a9108e2, 075c8a1 (next-call1.sh)
step version /tmp/fb version
step selftest /tmp/fb selftest --case conv_add,matmul_add --no-metrics --no-timer
step st-odd /tmp/fb selftest --case tests/cases/conv_add_odd.json --no-metrics --no-timer
step memcheck compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/fb run --case conv_add --dtype bfloat16 --N 1,8 --C 64 --H 14 --rep 2 --warmup 1 --out $R/memcheck.json
step conv-add /tmp/fb run --case conv_add --dtype bfloat16 --out $R/conv-add.json
step mm-cudnn /tmp/fb run --case matmul_add --dtype bfloat16 --K 1024 --M 2048,8192 --N 2048,8192 --variants matmul_add.fused,matmul_add.cudnn --out $R/mm-cudnn.json
