cd "$(dirname "$0")/.." && . dev/device_call.sh
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb46own.xz > /tmp/fb && chmod +x /tmp/fb
xz -dc .devbin/gemm_add_dev.xz > /tmp/g && chmod +x /tmp/g
xz -dc .devbin/gemm_trace.xz > /tmp/gt && chmod +x /tmp/gt
# the D loader warps' fix (call 11's bug: warp 0's idle lanes took the loaders' branch)
step g-odd-a3 env GEMM_D_ASYNC=3 timeout 30 /tmp/g 1000 1032 1000 bf16 0
step g-tiny-a3 env GEMM_D_ASYNC=3 timeout 30 /tmp/g 300 264 72 bf16 0
step memcheck-a3 env GEMM_D_ASYNC=3 timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/g 300 264 72 bf16 0
step trace-a3 env GEMM_D_ASYNC=3 timeout 30 /tmp/gt 8192 8192 1024 bf16 0 own_add_c1,own_add_c2,
step g-8k-a3 env GEMM_D_ASYNC=3 timeout 60 /tmp/g 8192 8192 1024 bf16 32 own_add_c1,own_add_c2,
step g-16k2k-a3 env GEMM_D_ASYNC=3 timeout 60 /tmp/g 16384 2048 1024 bf16 32 own_add_c1,own_add_c2,
# matmul_add.own in fusionbench (30b4c41)
step version /tmp/fb version
step selftest timeout 200 /tmp/fb selftest --case matmul_add --dtype bfloat16,float16 --no-metrics --no-timer
step st-odd timeout 100 /tmp/fb selftest --case tests/cases/matmul_add_odd.json --dtype bfloat16,float16 --no-metrics --no-timer
step memcheck timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/fb run --case matmul_add --dtype bfloat16 --variants matmul_add.own --M 128,1000 --N 256,1032 --K 1024 --rep 2 --warmup 1 --out $R/memcheck.json
step mm-own timeout 200 /tmp/fb run --case matmul_add --dtype bfloat16 --K 1024 --M 2048,8192,16384 --N 2048,8192,16384 --variants matmul_add.fused,matmul_add.own --out $R/mm-own.json
