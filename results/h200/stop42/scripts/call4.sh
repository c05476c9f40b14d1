cd "$(dirname "$0")/.." && . dev/device_call.sh
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb42h.xz > /tmp/fb && chmod +x /tmp/fb
xz -dc .devbin/lt_sweep.xz > /tmp/lt_sweep && chmod +x /tmp/lt_sweep
step version /tmp/fb version
# the epilogue cells stop 40 found 7-13% over the plain GEMM, where the sweep tool (call 3) times the
# same configurations within 1%: fusionbench again, both orders of the cases, events then cupti
A="matmul,matmul_relu,matmul_bias,matmul_add_relu"; B="matmul_add_relu,matmul_bias,matmul_relu,matmul"
AX="--dtype bfloat16 --M 2048,8192 --N 8192,16384 --K 1024"
step ev-r1 /tmp/fb run --case $A $AX --out $R/ev-r1.json
step ev-r2 /tmp/fb run --case $B $AX --out $R/ev-r2.json
step cu-r1 /tmp/fb run --case $A $AX --timer cupti --out $R/cu-r1.json
step cu-r2 /tmp/fb run --case $B $AX --timer cupti --out $R/cu-r2.json
