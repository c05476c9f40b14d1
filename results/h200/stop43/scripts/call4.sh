cd "$(dirname "$0")/.." && . dev/device_call.sh
# fb43c = e798695 (cuBLASLt tuning in rounds), as call 3
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb43c.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
step grid-f16 /tmp/fb run --case matmul_add,matmul_bias,matmul_relu,matmul_add_relu --dtype float16 --max-time 2 --out $R/grid-f16.json
step conv-f16 /tmp/fb run --case conv_relu,conv_add,conv_bn --dtype float16 --max-time 2 --out $R/conv-f16.json
step grid-f32 /tmp/fb run --case matmul_add,matmul_bias,matmul_relu,matmul_add_relu --dtype float32 --quick --max-time 2 --out $R/grid-f32.json
