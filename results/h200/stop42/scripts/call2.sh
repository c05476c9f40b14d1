cd "$(dirname "$0")/.." && . dev/device_call.sh
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb42k.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
# rmsnorm_backward.pipelined's launch shape forced by dev knobs (FB_DEV_PIPE_C least cluster size,
# _T most threads, _SMEM KB budget, _S most stages); events, clean flush; two rounds
run_cfg() {  # name, env...
  local n=$1; shift
  env "$@" /tmp/fb run --case rmsnorm_backward --dtype all --T 512,2048 --N 8192,16384 --variants rmsnorm_backward.pipelined --out $R/k-$n.json
}
for rnd in r1 r2; do
  cfgs="base c2 c4 c8 t512 t512m100 s6 t256m50"; [ $rnd = r2 ] && cfgs="t256m50 s6 t512m100 t512 c8 c4 c2 base"
  for c in $cfgs; do
    case $c in
      base) e="X=1";; c2) e="FB_DEV_PIPE_C=2";; c4) e="FB_DEV_PIPE_C=4";; c8) e="FB_DEV_PIPE_C=8";;
      t512) e="FB_DEV_PIPE_T=512";; t512m100) e="FB_DEV_PIPE_T=512 FB_DEV_PIPE_SMEM=100";;
      s6) e="FB_DEV_PIPE_S=6";; t256m50) e="FB_DEV_PIPE_T=256 FB_DEV_PIPE_SMEM=50";;
    esac
    step $c-$rnd run_cfg $c-$rnd $e
  done
done
