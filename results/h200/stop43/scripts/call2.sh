cd "$(dirname "$0")/.." && . dev/device_call.sh
# fb43b = a9d5a19 (paired timing, floors allocated before supports(); eager floors for conv)
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb43b.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
step memcheck compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/fb run --case matmul_relu,matmul_add --dtype float32 --M 128,130 --N 61,512 --K 1024 --rep 2 --warmup 1 --out $R/memcheck.json
step memcheck-conv compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/fb run --case conv_relu --dtype float16 --N 1 --C 64 --H 14 --rep 2 --warmup 1 --out $R/memcheck-conv.json
AX="--dtype bfloat16 --M 2048,8192 --N 8192,16384 --K 1024"
step pair-r1 /tmp/fb run --case matmul_relu,matmul_bias,matmul_add_relu,matmul_add $AX --out $R/pair-r1.json
step pair-r2 /tmp/fb run --case matmul_add,matmul_add_relu,matmul_bias,matmul_relu $AX --out $R/pair-r2.json
step pair-odd /tmp/fb run --case matmul_bias --dtype float32,float16 --M 130,2048 --N 61,8192 --K 1024 --out $R/pair-odd.json
# issue 10's matmul grid in bfloat16, paired (stop 42 call 8 ran it unpaired, --max-time 2)
step grid-bf16 /tmp/fb run --case matmul_add,matmul_bias,matmul_relu,matmul_add_relu --dtype bfloat16 --max-time 2 --out $R/grid-bf16.json
step conv-bf16 /tmp/fb run --case conv_relu,conv_add,conv_bn --dtype bfloat16 --max-time 2 --out $R/conv-bf16.json
step grid-f16 /tmp/fb run --case matmul_add,matmul_bias,matmul_relu,matmul_add_relu --dtype float16 --max-time 2 --out $R/grid-f16.json
