cd "$(dirname "$0")/.." && . dev/device_call.sh
# NOT RUN (stop 42 had too little device time left): fb42k2 = HEAD + results/h200/stop42/next-pipe-knob-2cta.patch, built with scripts/setup.sh
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb42k2.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
# rmsnorm_backward.pipelined, half types' rows of 8192: two 512-thread CTAs an SM (100 KB each) against one
run_cfg() { local n=$1; shift; env "$@" /tmp/fb run --case rmsnorm_backward --dtype float16,bfloat16 --T 512,2048 --N 8192 --variants rmsnorm_backward.pipelined --out $R/k-$n.json; }
for rnd in r1 r2; do
  cfgs="base t512 t512m100"; [ $rnd = r2 ] && cfgs="t512m100 t512 base"
  for c in $cfgs; do
    case $c in base) e="X=1";; t512) e="FB_DEV_PIPE_T=512";; t512m100) e="FB_DEV_PIPE_T=512 FB_DEV_PIPE_SMEM=100";; esac
    step $c-$rnd run_cfg $c-$rnd $e
  done
done
FB_DEV_PIPE_T=512 FB_DEV_PIPE_SMEM=100 step st-2cta /tmp/fb selftest --case rmsnorm_backward
