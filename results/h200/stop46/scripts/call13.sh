cd "$(dirname "$0")/.." && . dev/device_call.sh
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb46f.xz > /tmp/fb && chmod +x /tmp/fb
xz -dc .devbin/gemm_add_dev.xz > /tmp/g && chmod +x /tmp/g
# matmul_add.fused racing cuBLASLt against matmul_add.own (849f0a1 amended)
step version /tmp/fb version
step selftest timeout 150 /tmp/fb selftest --case matmul_add --dtype bfloat16,float16 --no-metrics --no-timer
step mm-bf16 timeout 60 /tmp/fb run --case matmul_add --dtype bfloat16 --K 1024 --M 2048,8192,16384 --N 2048,8192,16384 --variants matmul_add.fused,matmul_add.own --out $R/mm-bf16.json
step mm-f16 timeout 60 /tmp/fb run --case matmul_add --dtype float16 --K 1024 --M 2048,8192,16384 --N 2048,8192,16384 --variants matmul_add.fused,matmul_add.own --out $R/mm-f16.json
step memcheck timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/fb run --case matmul_add --dtype bfloat16 --M 128,1000 --N 256,1032 --K 1024 --rep 2 --warmup 1 --out $R/memcheck.json
step racecheck-a3 env GEMM_D_ASYNC=3 timeout 80 compute-sanitizer --tool racecheck --error-exitcode 9 /tmp/g 300 264 72 bf16 0 own_add_c1,own_plain_c1,
