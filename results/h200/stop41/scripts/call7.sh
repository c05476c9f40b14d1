cd "$(dirname "$0")/.." && . dev/device_call.sh
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb41f.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
step st-rms-ln /tmp/fb selftest --case rmsnorm,layernorm
step memcheck-rms compute-sanitizer --tool memcheck /tmp/fb run --case rmsnorm --dtype all --T 1,37,2048 --N 33,47,61,63 --variants rmsnorm.row_engine,rmsnorm.fused --warmup 0 --rep 1 --out $R/memcheck-rms.json
step memcheck-ln compute-sanitizer --tool memcheck /tmp/fb run --case layernorm --dtype all --dim0 1,37,4099,8192 --dim1 33,61,63 --warmup 0 --rep 1 --out $R/memcheck-ln.json
for rnd in r1 r2; do
  step n61-$rnd /tmp/fb run --case rmsnorm --dtype float32,bfloat16 --T 128,512,2048 --N 61 --variants rmsnorm.row_engine,rmsnorm.fused --baseline rmsnorm.fused --timer cupti --flush write --out $R/n61-$rnd.json
done
step sbs python3 scripts/side_by_side.py --case rmsnorm --dtype float32,bfloat16 --flush write --timer cupti --budget 200 --dir $R/sbs
