cd "$(dirname "$0")/.." && . dev/device_call.sh
export FUSIONBENCH_CASES=$PWD/cases
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb41k.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
export FB_DEV_PLAN_W=130
cfgs="base 256_8_32_0_0 128_8_32_0_0 64_8_32_0_0 32_8_32_0_0"
rcfgs="32_8_32_0_0 64_8_32_0_0 128_8_32_0_0 256_8_32_0_0 base"
for rnd in r1 r2; do
  list=$cfgs; [ $rnd = r2 ] && list=$rcfgs
  for dt in float32 bfloat16; do
    for c in $list; do
      if [ $c = base ]; then unset FB_DEV_GROUP; else export FB_DEV_GROUP=${c//_/,}; fi
      step g-$dt-$c-$rnd /tmp/fb run --case rmsnorm --dtype $dt --T 128,512,2048 --N 130 --variants rmsnorm.row_engine,rmsnorm.fused --baseline rmsnorm.fused --timer cupti --flush write --out $R/g-$dt-$c-$rnd.json
    done
  done
done
unset FB_DEV_GROUP
