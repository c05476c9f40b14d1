cd "$(dirname "$0")/.." && . dev/device_call.sh
# NOT RUN (stop 46's device time was spent): the first call of the next stop, on a binary of HEAD
# plus dev/matmul_add_race_cudnn.patch (`bash dev/devbin.sh fb47r dev/matmul_add_race_cudnn.patch`):
# matmul_add.fused racing matmul_add.cudnn as well as matmul_add.own against cuBLASLt.
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb47r.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
step selftest timeout 300 /tmp/fb selftest --case matmul_add --no-metrics --no-timer
step st-odd timeout 100 /tmp/fb selftest --case tests/cases/matmul_add_odd.json --no-metrics --no-timer
# stop 46's review commits after its device time: the own GEMM's launch sizing (3eafb9c), fb_decline,
# fb_cudnn_graph_tune through fb_cudnn_graphs_tune (6e1d493): the conv cases prepare through it
step st-conv timeout 200 /tmp/fb selftest --case conv,conv_add,conv_relu,conv_bn --dtype bfloat16,float32 --no-metrics --no-timer
step memcheck timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/fb run --case matmul_add --dtype bfloat16 --M 128,1000 --N 256,1032 --K 1024 --rep 2 --warmup 1 --out $R/memcheck.json
# the three implementations beside the race, paired with matmul.tuned (call 13's grids, plus cuDNN)
V=matmul_add.fused,matmul_add.own,matmul_add.cudnn
step mm-bf16 timeout 120 /tmp/fb run --case matmul_add --dtype bfloat16 --K 1024 --M 2048,8192,16384 --N 2048,8192,16384 --variants $V --out $R/mm-bf16.json
step mm-f16 timeout 120 /tmp/fb run --case matmul_add --dtype float16 --K 1024 --M 2048,8192,16384 --N 2048,8192,16384 --variants $V --out $R/mm-f16.json
step mm-f32 timeout 120 /tmp/fb run --case matmul_add --dtype float32 --K 1024 --M 2048,8192 --N 2048,8192 --variants matmul_add.fused,matmul_add.cudnn --out $R/mm-f32.json
