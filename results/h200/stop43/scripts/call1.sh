cd "$(dirname "$0")/.." && . dev/device_call.sh
# fb43a = 8db8b3c (paired timing); fb42k2 = f4e57e5 + results/h200/stop42/next-pipe-knob-2cta.patch
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb43a.xz > /tmp/fb && chmod +x /tmp/fb
xz -dc .devbin/fb42k2.xz > /tmp/fbk && chmod +x /tmp/fbk
step version /tmp/fb version
# 1. the paired timer on issue 10's large K = 1024 cells (call 9 of stop 42 measured the same pairs with the dev tool)
AX="--dtype bfloat16 --M 2048,8192 --N 8192,16384 --K 1024"
step pair-r1 /tmp/fb run --case matmul_relu,matmul_bias,matmul_add_relu,matmul_add $AX --out $R/pair-r1.json
step pair-r2 /tmp/fb run --case matmul_add,matmul_add_relu,matmul_bias,matmul_relu $AX --out $R/pair-r2.json
# 2. the probe polling every 200 us: softmax, layernorm default float32 grids (stop 42 call 6: 42 s, call 7: 48 s)
step mem /tmp/fb run --case softmax,layernorm --out $R/mem.json
# 3. memcheck of a paired run (small cells, odd sizes)
step memcheck compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/fb run --case matmul_relu,matmul_add --dtype float32 --M 128,130 --N 61,512 --K 1024 --rep 2 --warmup 1 --out $R/memcheck.json
step pair-f32 /tmp/fb run --case matmul_bias --dtype float32,float16 --M 130,2048 --N 61,8192 --K 1024 --out $R/pair-f32.json
# 4. rmsnorm_backward.pipelined, half types' rows of 8192: two 512-thread CTAs an SM (stop 42's next-call10)
run_cfg() { local n=$1; shift; env "$@" /tmp/fbk run --case rmsnorm_backward --dtype float16,bfloat16 --T 512,2048 --N 8192 --variants rmsnorm_backward.pipelined --out $R/k-$n.json; }
for rnd in r1 r2; do
  cfgs="base t512 t512m100"; [ $rnd = r2 ] && cfgs="t512m100 t512 base"
  for c in $cfgs; do
    case $c in base) e="X=1";; t512) e="FB_DEV_PIPE_T=512";; t512m100) e="FB_DEV_PIPE_T=512 FB_DEV_PIPE_SMEM=100";; esac
    step $c-$rnd run_cfg $c-$rnd $e
  done
done
FB_DEV_PIPE_T=512 FB_DEV_PIPE_SMEM=100 step st-2cta /tmp/fbk selftest --case rmsnorm_backward
