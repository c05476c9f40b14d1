cd "$(dirname "$0")/.." && . dev/device_call.sh
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb41g.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
step st-rms /tmp/fb selftest --case rmsnorm
step memcheck-rms compute-sanitizer --tool memcheck /tmp/fb run --case rmsnorm --dtype float16,bfloat16 --T 1,37,512 --N 33,61,63 --variants rmsnorm.fused --warmup 0 --rep 1 --out $R/memcheck-rms.json
for rnd in r1 r2; do
  step n61-$rnd /tmp/fb run --case rmsnorm --dtype all --T 128,512,2048 --N 61 --variants rmsnorm.row_engine,rmsnorm.fused,rmsnorm.static_persistent,rmsnorm.multi_wave_reload,rmsnorm.multi_wave_cached --baseline rmsnorm.fused --timer cupti --flush write --out $R/n61-$rnd.json
done
