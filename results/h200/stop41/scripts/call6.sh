cd "$(dirname "$0")/.." && . dev/device_call.sh
export FUSIONBENCH_CASES=$PWD/cases
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb41e.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
run_arms() {  # W, arms...
  local W=$1; shift
  export FB_DEV_PLAN_W=$W
  for rnd in r1 r2; do
    local list="$*"; [ $rnd = r2 ] && list=$(echo "$*" | tr ' ' '\n' | tac | tr '\n' ' ')
    for dt in float32 bfloat16; do
      for c in $list; do
        if [ $c = base ]; then unset FB_DEV_GROUP; else export FB_DEV_GROUP=${c//_/,}; fi
        step e$W-$dt-$c-$rnd /tmp/fb run --case rmsnorm --dtype $dt --T 128,512,2048 --N $W --variants rmsnorm.row_engine,rmsnorm.fused --baseline rmsnorm.fused --timer cupti --flush write --out $R/e$W-$dt-$c-$rnd.json
      done
    done
  done
  unset FB_DEV_GROUP FB_DEV_PLAN_W
}
run_arms 130 base 32_8_32_1_0 64_8_32_1_0 128_8_32_1_0 256_8_32_1_0
run_arms 61 base 32_4_16_1_0 64_4_16_1_0 128_4_16_1_0 64_2_32_1_0
