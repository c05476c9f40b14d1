cd "$(dirname "$0")/.." && . dev/device_call.sh
# Stop 47, call 3: why the own GEMM's plain form is 1.09-1.10x cuBLASLt at K = 1024 (call 2: stages
# of 32 did not move it, so not bytes in flight). Hypothesis: the one-CTA form reads 48 KB of
# operands from L2 a 4.19 MFLOP k-step, 0.0117 B/FLOP: at 687 TFLOP/s that is 8.0 TB/s, the H200's
# measured L2 read rate (8.2 TB/s, stop 42): L2-bound. cuBLASLt's 320 x 128 tiles in a 1 x 2 cluster
# read ~0.007 B/FLOP. The cluster form (B multicast, 0.0078 B/FLOP) should then be faster, and is
# slower: ncu of the three at 8192 x 8192 x 1024 (L2 throughput, tensor pipe, stalls), and traces.
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/gemm_add_dev.xz > /tmp/g && chmod +x /tmp/g
xz -dc .devbin/gemm_trace.xz > /tmp/gt && chmod +x /tmp/gt
step trace-c2 timeout 40 /tmp/gt 8192 8192 1024 bf16 0 own_plain_c1,own_plain_c2,own_add_c2,own_plain_c2_k32,
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section WarpStateStats --section LaunchStats"
step ncu-lt timeout 100 ncu -k regex:'nvjet|xmma|cutlass|gemm_bf16' --launch-count 1 $S /tmp/g 8192 8192 1024 bf16 0 none
step ncu-c1 timeout 100 ncu -k regex:gemm_tma --launch-count 1 $S /tmp/g 8192 8192 1024 bf16 0 own_plain_c1,
step ncu-c2 timeout 100 ncu -k regex:gemm_tma --launch-count 1 $S /tmp/g 8192 8192 1024 bf16 0 own_plain_c2,
step ncu-c1-8k timeout 100 ncu -k regex:gemm_tma --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis /tmp/g 8192 8192 8192 bf16 0 own_plain_c1,
