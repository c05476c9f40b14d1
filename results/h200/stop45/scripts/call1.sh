cd "$(dirname "$0")/.." && . dev/device_call.sh
# The first call of stop 45 (it was stop 44's next-call7.sh), on a binary of HEAD (fb45 = 94251ee, built
# with scripts/setup.sh; stripped, xz -9 into .devbin/).
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb45.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
# 1. 5d127db (eager conv2d's workspace grown after prepare) has not run on a GPU
step selftest /tmp/fb selftest --case conv,conv_relu,conv_add,conv_bn --no-metrics --no-timer
step st-odd /tmp/fb selftest --case tests/cases/conv_odd.json --no-metrics --no-timer
step memcheck compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/fb run --case conv --dtype float32 --N 1,8 --C 64 --H 14 --rep 2 --warmup 1 --out $R/memcheck.json
# 2. paired timing under --timer cupti (not run on a GPU): selftest's timer checks (a paired spin
#    against half its cycles under cupti), then the small GEMMs' epilogue cells both ways: under
#    cupti the event pair's 2.5-4 us is on neither side (stop 43: the misses over 3% were 7-29 us GEMMs)
step st-timer /tmp/fb selftest --case copy --no-metrics
AX="--dtype bfloat16 --M 128,512,2048 --N 2048,8192 --K 1024"
step pair-events /tmp/fb run --case matmul_bias,matmul_relu $AX --out $R/pair-events.json
step pair-cupti /tmp/fb run --case matmul_bias,matmul_relu $AX --timer cupti --out $R/pair-cupti.json
# 3. eager against conv.tuned, float32 (stop 44 call 6: 2.6-3.6x at N 32, 64 x C 256 x H 56)
step f32 /tmp/fb run --case conv --dtype float32 --N 8,32,64 --C 64,256 --out $R/f32.json
