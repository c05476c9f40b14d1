cd "$(dirname "$0")/.." && . dev/device_call.sh
# NOT RUN (written after stop 47's device time was spent): the three-way race's prepare cost.
# fb48c = HEAD + dev/mm_cudnn_candidates_knob.patch (`bash dev/devbin.sh fb48c dev/mm_cudnn_candidates_knob.patch`).
# Stop 47: matmul_add.fused spends 5-12 s of host time a half-type cell in prepare
# (wall_ms.prepare), cuDNN compiling up to 2 x 12 plans on the first prepare; the race gained ~2%
# geomean (1.187 -> 1.163 bfloat16). Prediction: the prepare falls roughly with the plans built
# (N = 1: 2 plans, ~1 s?), and the fused geomean with N = 1 or 2 stays within 1% of N = 8's
# (call 1 kept cuDNN's candidates 2 and 6 on 3 of 9 cells). tables: wall_ms.prepare and the paired
# geomeans per N.
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb48c.xz > /tmp/fb && chmod +x /tmp/fb
AX="--case matmul_add --dtype bfloat16 --K 1024 --M 2048,8192,16384 --N 2048,8192,16384 --variants matmul_add.fused"
for n in 8 1 2; do
  step mm-n$n env FB_DEV_MM_CUDNN_CANDIDATES=$n timeout 150 /tmp/fb run $AX --out $R/mm-n$n.json
done
step mm-n8b env FB_DEV_MM_CUDNN_CANDIDATES=8 timeout 150 /tmp/fb run $AX --out $R/mm-n8b.json
