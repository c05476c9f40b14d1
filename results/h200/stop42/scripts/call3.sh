cd "$(dirname "$0")/.." && . dev/device_call.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/lt_sweep.xz > /tmp/lt_sweep && chmod +x /tmp/lt_sweep
# budget 0: each side's heuristic candidates only, then the plain side's under the epilogue's descriptor
for shp in "8192 8192 1024" "8192 16384 1024" "2048 16384 1024" "16384 2048 1024" "8192 2048 1024" "128 2048 8192" "512 2048 1024"; do
  for e in relu bias relu_bias; do
    set -- $shp
    step h-$1x$2x$3-$e /tmp/lt_sweep $1 $2 $3 bf16 0 $e
  done
done
# every configuration of the relu side at one cell
step sweep-8192x8192x1024-relu /tmp/lt_sweep 8192 8192 1024 bf16 25 relu
grep -h "RESULT\|CROSS" $R/*.txt
