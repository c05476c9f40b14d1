cd "$(dirname "$0")/.." && . dev/device_call.sh
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb42c.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
# the SM clock each measurement's batches ran at (sm_clock_mhz), beside the step detector
A="matmul,matmul_relu,matmul_bias,matmul_add_relu"; B="matmul_add_relu,matmul_bias,matmul_relu,matmul"
AX="--dtype bfloat16 --M 2048,8192 --N 8192,16384 --K 1024"
step ev-r1 /tmp/fb run --case $A $AX --out $R/ev-r1.json
step ev-r2 /tmp/fb run --case $B $AX --out $R/ev-r2.json
step cu-r1 /tmp/fb run --case $A $AX --timer cupti --out $R/cu-r1.json
step gr-r1 /tmp/fb run --case matmul,matmul_relu $AX --timer graph --out $R/gr-r1.json
step mem /tmp/fb run --case softmax,layernorm --out $R/mem.json
