cd "$(dirname "$0")/.." && . dev/device_call.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/gemm_add_dev.xz > /tmp/g && chmod +x /tmp/g
step g-odd timeout 60 /tmp/g 1000 1032 1000 bf16 0
step g-tiny timeout 60 /tmp/g 300 264 72 bf16 0
step g-8k8k timeout 150 /tmp/g 8192 8192 8192 bf16 24
step g-8k timeout 150 /tmp/g 8192 8192 1024 bf16 48
step memcheck timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/g 300 264 72 bf16 0
step ncu-s3 timeout 150 ncu -k regex:gemm_tma --launch-count 1 --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --section SourceCounters /tmp/g 8192 8192 8192 bf16 0 own_plain_c1_s3,
