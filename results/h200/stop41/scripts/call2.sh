cd "$(dirname "$0")/.." && . dev/device_call.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/lt_sweep.xz > /tmp/lt_sweep && chmod +x /tmp/lt_sweep
step sweep-8192x8192x1024 /tmp/lt_sweep 8192 8192 1024 bf16 45
step sweep-2048x2048x1024 /tmp/lt_sweep 2048 2048 1024 bf16 30
step sweep-128x8192x1024 /tmp/lt_sweep 128 8192 1024 bf16 30
grep RESULT $R/sweep-*.txt
