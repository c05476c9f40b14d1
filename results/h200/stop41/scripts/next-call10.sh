cd "$(dirname "$0")/.." && . dev/device_call.sh
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb41p.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
for rnd in r1 r2; do
  list="256 64 32"; [ $rnd = r2 ] && list="32 64 256"
  for f in $list; do
    FB_DEV_PEEL_FLOOR=$f step p-$f-$rnd /tmp/fb run --case rmsnorm --dtype float32,bfloat16 --T 128,512,2048 --N 130,1027 --variants rmsnorm.row_engine,rmsnorm.fused --baseline rmsnorm.fused --timer cupti --flush write --out $R/p-$f-$rnd.json
  done
done
step st-rms-ln /tmp/fb selftest --case rmsnorm,layernorm,softmax_backward
step memcheck-rms compute-sanitizer --tool memcheck /tmp/fb run --case rmsnorm --dtype float32,bfloat16 --T 1,37,512 --N 130,1027 --variants rmsnorm.row_engine,rmsnorm.fused --warmup 0 --rep 1 --out $R/memcheck-rms.json
