cd "$(dirname "$0")/.." && . dev/device_call.sh
# Stop 47, call 4: the output's stores and D's reads with an L2 evict_first policy (GEMM_EVICT_FIRST=1).
# Call 3's ncu at 8192 x 8192 x 1024 (ncu's locked ~1.27 GHz): the own plain GEMM takes cuBLASLt's
# time there (c1 244.1, c2 241.7, cuBLASLt 246.1 us) but moves ~18% more DRAM bytes (DRAM 16.4-16.9%
# of peak against 13.8%; L2 hit rate 85-91% against 92%): operands re-read from DRAM after the
# output's 128 MB pushed them out of L2. Prediction: evict_first brings the DRAM bytes to
# cuBLASLt's (ncu), and at free clocks plain K = 1024 from 1.09x toward cuBLASLt's time.
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/gemm_add_dev.xz > /tmp/g && chmod +x /tmp/g
F=own_plain_c1,own_plain_c2,own_add_c1,own_add_c2,
step ev-odd env GEMM_EVICT_FIRST=1 GEMM_D_ASYNC=3 timeout 30 /tmp/g 1000 1032 1000 bf16 0 $F
step ev-odd0 env GEMM_EVICT_FIRST=1 timeout 30 /tmp/g 1000 1032 1000 bf16 0 $F
S="--section SpeedOfLight --section MemoryWorkloadAnalysis"
step ncu-c1-ev env GEMM_EVICT_FIRST=1 timeout 100 ncu -k regex:gemm_tma --launch-count 1 $S /tmp/g 8192 8192 1024 bf16 0 own_plain_c1,
step ncu-add-c1-ev env GEMM_EVICT_FIRST=1 GEMM_D_ASYNC=3 timeout 100 ncu -k regex:gemm_tma --launch-count 1 $S /tmp/g 8192 8192 1024 bf16 0 own_add_c1,
step ncu-add-c1 env GEMM_D_ASYNC=3 timeout 100 ncu -k regex:gemm_tma --launch-count 1 $S /tmp/g 8192 8192 1024 bf16 0 own_add_c1,
step ncu-lt-add timeout 100 ncu -k regex:'nvjet|xmma|cutlass|gemm_bf16' --launch-skip 1 --launch-count 1 $S /tmp/g 8192 8192 1024 bf16 0 none
for r in 1 2; do
  for ev in 0 1; do
    for shape in "8192 8192" "16384 2048" "2048 8192" "2048 2048" "16384 16384"; do
      step "t${r}-ev${ev}-${shape// /x}" env GEMM_EVICT_FIRST=$ev GEMM_D_ASYNC=3 timeout 60 /tmp/g $shape 1024 bf16 24 $F
    done
  done
done
