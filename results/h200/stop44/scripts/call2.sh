cd "$(dirname "$0")/.." && . dev/device_call.sh
# fb44b = b1764df: conv.tuned, cuDNN engines tuned in rounds, tune_rounds.c shared with cuBLASLt
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb44b.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
# 1. the new variant and the tuned graphs on selftest's shapes and the odd convolutions; the
#    matmul epilogues through the shared tuner
step selftest /tmp/fb selftest --case conv,conv_relu,conv_add,conv_bn,matmul_bias,matmul_add --no-metrics --no-timer
for c in conv_relu_odd conv_add_odd conv_bn_odd; do
  step st-$c /tmp/fb selftest --case tests/cases/$c.json --no-metrics --no-timer
done
# 2. memcheck of a tuned, paired conv cell (the tuner's candidates run on the cell's buffers)
step memcheck compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/fb run --case conv_add,conv_relu --dtype float16 --N 1,8 --C 64 --H 14 --rep 2 --warmup 1 --out $R/memcheck.json
# 3. the conv fusions against conv.tuned, in pairs (stop 43: conv_add 1.037 / 1.098 against eager's conv)
step conv-bf16 /tmp/fb run --case conv,conv_relu,conv_add,conv_bn --dtype bfloat16 --max-time 2 --out $R/conv-bf16.json
# 4. the shared tuner on the matmul side: the four large cells, as call 1
AX="--dtype bfloat16 --M 2048,8192 --N 8192,16384 --K 1024"
step pair /tmp/fb run --case matmul_bias,matmul_add $AX --out $R/pair.json
step conv-f16 /tmp/fb run --case conv,conv_relu,conv_add,conv_bn --dtype float16 --max-time 2 --out $R/conv-f16.json
