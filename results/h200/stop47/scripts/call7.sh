cd "$(dirname "$0")/.." && . dev/device_call.sh
# Stop 47, call 7: fb47k (177871c): matmul_add.own races eight forms (the six-stage KSTEP = 32 forms
# added). Checks, memcheck, and the K = 1024 grids as call 1 (matmul_add.fused now races the own
# GEMM's pick among eight against cuBLASLt and cuDNN). Prediction: own's geomean 1.187 -> ~1.175
# (bfloat16), fused 1.163 -> ~1.16.
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb47k.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
step selftest timeout 150 /tmp/fb selftest --case matmul_add --no-metrics --no-timer
step memcheck timeout 80 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/fb run --case matmul_add --dtype bfloat16 --M 128,1000 --N 256,1032 --K 1024 --rep 2 --warmup 1 --variants matmul_add.own --out $R/memcheck.json
V=matmul_add.fused,matmul_add.own
step mm-bf16 timeout 110 /tmp/fb run --case matmul_add --dtype bfloat16 --K 1024 --M 2048,8192,16384 --N 2048,8192,16384 --variants $V --out $R/mm-bf16.json
step mm-f16 timeout 110 /tmp/fb run --case matmul_add --dtype float16 --K 1024 --M 2048,8192,16384 --N 2048,8192,16384 --variants $V --out $R/mm-f16.json
step st-odd timeout 60 /tmp/fb selftest --case tests/cases/matmul_add_odd.json --no-metrics --no-timer
