cd "$(dirname "$0")/.." && . dev/device_call.sh
export FUSIONBENCH_CASES=$PWD/cases
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb41t.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
export FB_DEV_PLAN_W=130
cfgs="base 64_32 32_32 16_32 8_32"
rcfgs="8_32 16_32 32_32 64_32 base"
for rnd in r1 r2; do
  list=$cfgs; [ $rnd = r2 ] && list=$rcfgs
  for dt in float32 bfloat16; do
    for c in $list; do
      if [ $c = base ]; then unset FB_DEV_TILE; else export FB_DEV_TILE=${c//_/,}; fi
      step t-$dt-$c-$rnd /tmp/fb run --case rmsnorm --dtype $dt --T 128,512,2048 --N 130 --variants rmsnorm.row_engine,rmsnorm.fused --baseline rmsnorm.fused --timer cupti --flush write --out $R/t-$dt-$c-$rnd.json
    done
  done
done
unset FB_DEV_TILE FB_DEV_PLAN_W
# layernorm 4096 x 2048 float32: ours and torch.compile's kernel under Nsight Compute, Triton's source
step ncu-fb ncu --kernel-name regex:row_ --launch-skip 3 --launch-count 1 --set full /tmp/fb run --case layernorm --dtype float32 --dim0 4096 --dim1 2048 --variants layernorm.fused --out $R/ncu-fb.json
step code-tc env TORCH_LOGS=output_code python3 dev/rowcase_inductor_probe.py --case layernorm --rows 4096 --W 2048 --iters 3
step ncu-tc ncu --kernel-name regex:triton --launch-skip 5 --launch-count 1 --set full python3 dev/rowcase_inductor_probe.py --case layernorm --rows 4096 --W 2048
