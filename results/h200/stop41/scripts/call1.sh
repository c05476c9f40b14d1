cd "$(dirname "$0")/.." && . dev/device_call.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/lt_sweep.xz > /tmp/lt_sweep && chmod +x /tmp/lt_sweep
step sweep-8192x16384x1024 /tmp/lt_sweep 8192 16384 1024 bf16 25
step sweep-8192x8192x1024 /tmp/lt_sweep 8192 8192 1024 bf16 20
tail -3 $R/sweep-*.txt
