cd "$(dirname "$0")/.." && . dev/device_call.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/lt_sweep2.xz > /tmp/lt_sweep && chmod +x /tmp/lt_sweep
# each side's heuristic candidates (budget 0), then the two fastest timed in turn under sustained load
for shp in "8192 8192 1024" "8192 16384 1024" "2048 16384 1024" "16384 2048 1024" "512 2048 1024"; do
  for e in relu bias relu_bias add; do
    set -- $shp
    step p-$1x$2x$3-$e /tmp/lt_sweep $1 $2 $3 bf16 0 $e
  done
done
grep -h "RESULT\|PAIRED" $R/*.txt
