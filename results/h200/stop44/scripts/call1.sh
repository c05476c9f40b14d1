cd "$(dirname "$0")/.." && . dev/device_call.sh
# NOT RUN (stop 43's device time was spent): the first call of the next stop, on a binary of HEAD
# (fb44 = the stop's HEAD, built with scripts/setup.sh; stripped, xz -9 into .devbin/).
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb44.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
# 1. aefe65f's timer refactor (hold_stream, release_and_wait) has not run on a GPU: the timer's
#    self-checks are in selftest
step selftest /tmp/fb selftest --no-metrics
# 2. paired timing, fused variants only (53d5f64): the four large cells, as stop 43's calls 2-3
AX="--dtype bfloat16 --M 2048,8192 --N 8192,16384 --K 1024"
step pair /tmp/fb run --case matmul_relu,matmul_bias,matmul_add_relu,matmul_add $AX --out $R/pair.json
# 3. the small GEMMs' epilogue cost (0.3-1.1 us at 7-29 us, stop 43 section 3): the plain and the
#    bias kernels of one cell under Nsight Compute, to see where the time goes (tail, epilogue loads)
for v in matmul_bias.fused; do
  step ncu-bias ncu --launch-skip 20 --launch-count 4 --section SpeedOfLight --section LaunchStats --section WarpStateStats \
    /tmp/fb run --case matmul_bias --dtype bfloat16 --M 128 --N 8192 --K 1024 --variants $v --warmup 1 --rep 1 --no-pair --out $R/ncu-bias.json
done
step ncu-plain ncu --launch-skip 20 --launch-count 4 --section SpeedOfLight --section LaunchStats --section WarpStateStats \
  /tmp/fb run --case matmul --dtype bfloat16 --M 128 --N 8192 --K 1024 --variants matmul.tuned --warmup 1 --rep 1 --out $R/ncu-plain.json
