cd "$(dirname "$0")/.." && . dev/device_call.sh
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb41t.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
# issue 9: the backward's cells of 4TN >= 16M, every dtype, the default timer and flush (stop 34's tables)
step rmsb /tmp/fb run --case rmsnorm_backward --dtype all --T 512,2048 --N 2048,4096,8192,16384 --out $R/rmsb.json
# the two kernels' durations at [4, 512, 8192]
for dt in float32 bfloat16; do
  step ncu-rmsb-$dt ncu --launch-skip 6 --launch-count 4 --section SpeedOfLight --section LaunchStats /tmp/fb run --case rmsnorm_backward --dtype $dt --T 512 --N 8192 --variants rmsnorm_backward.fused --out $R/ncu-rmsb-$dt.json
done
# issue 6: layernorm's cells around 4096 x 2048 beside torch.compile under each flush, cupti
for fl in clean write; do
  step sbs-ln-$fl python3 scripts/side_by_side.py --case layernorm --dtype float32 --dim0 2048,4096,8192 --dim1 1024,2048,4096 --flush $fl --timer cupti --rounds 2 --dir $R/sbs-ln-$fl
done
