cd "$(dirname "$0")/.." && . dev/device_call.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/gemm_add_dev.xz > /tmp/g && chmod +x /tmp/g
F=own_plain_c2_s3,own_plain_c1_s3,
for G in 132 128 120 112 96; do step grid$G env GEMM_GRID=$G timeout 100 /tmp/g 8192 8192 8192 bf16 8 $F; done
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section LaunchStats --section Occupancy"
step ncu-lt timeout 150 ncu -k regex:'nvjet|xmma|cutlass|gemm_bf16' --launch-count 1 $S /tmp/g 8192 8192 8192 bf16 0 none
step ncu-c2 timeout 150 ncu -k regex:gemm_tma --launch-count 1 $S /tmp/g 8192 8192 8192 bf16 0 own_plain_c2_s3,
step ncu-c1 timeout 150 ncu -k regex:gemm_tma --launch-count 1 $S /tmp/g 8192 8192 8192 bf16 0 own_plain_c1_s3,
