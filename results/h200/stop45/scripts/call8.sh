cd "$(dirname "$0")/.." && . dev/device_call.sh
# matmul_add.cudnn (out = A.B + D as one cuDNN graph, two graph shapes raced) beside
# matmul_add.fused (cuBLASLt, beta = 1), both paired with matmul.tuned. fb45e = that tree.
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb45e.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
V="--variants matmul_add.fused,matmul_add.cudnn"
step odd /tmp/fb run --case matmul_add --dtype bfloat16 --M 1,130 --N 8,136 --K 64,72 $V --rep 2 --warmup 1 --no-pair --out $R/odd.json
step memcheck compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/fb run --case matmul_add --dtype bfloat16 --M 128 --N 256 --K 64 $V --rep 1 --warmup 1 --no-pair --out $R/memcheck.json
step bf16 /tmp/fb run --case matmul_add --dtype bfloat16 --K 1024 --M 128,2048,8192 --N 2048,8192,16384 $V --out $R/bf16.json
step f16 /tmp/fb run --case matmul_add --dtype float16 --K 1024 --M 2048,8192 --N 8192,16384 $V --out $R/f16.json
step f32 /tmp/fb run --case matmul_add --dtype float32 --K 1024 --M 2048 --N 2048 $V --out $R/f32.json
