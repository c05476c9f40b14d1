cd "$(dirname "$0")/.." && . dev/device_call.sh
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb42n.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
# issue 10's matmul grid (bfloat16, default grids, as stop 40's call 1) with the step marks, the
# clock each measurement ran at and NVML's clock-limit reasons
step mm /tmp/fb run --case matmul,matmul_add,matmul_bias,matmul_relu,matmul_add_relu --dtype bfloat16 --max-time 2 --out $R/mm-bf16.json
