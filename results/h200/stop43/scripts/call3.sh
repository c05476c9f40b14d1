cd "$(dirname "$0")/.." && . dev/device_call.sh
# fb43c = e798695 (cuBLASLt tuning in rounds)
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb43c.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
step selftest /tmp/fb selftest --case matmul,matmul_bias,matmul_add,matmul_relu,matmul_add_relu
AX="--dtype bfloat16 --M 2048,8192 --N 8192,16384 --K 1024"
step pair-r1 /tmp/fb run --case matmul_relu,matmul_bias,matmul_add_relu,matmul_add $AX --out $R/pair-r1.json
step pair-r2 /tmp/fb run --case matmul_add,matmul_add_relu,matmul_bias,matmul_relu $AX --out $R/pair-r2.json
step pair-r3 /tmp/fb run --case matmul_bias,matmul_relu,matmul_add,matmul_add_relu $AX --out $R/pair-r3.json
step grid-bf16 /tmp/fb run --case matmul_add,matmul_bias,matmul_relu,matmul_add_relu --dtype bfloat16 --max-time 2 --out $R/grid-bf16.json
