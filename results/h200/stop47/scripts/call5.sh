cd "$(dirname "$0")/.." && . dev/device_call.sh
# Stop 47, call 5: call 4 again with the hinted cp.async carrying no source size (call 4's form
# raised an illegal instruction). Call 4's ncu: evict_first took the plain GEMM's DRAM from 16.4%
# to 14.3% of peak (cuBLASLt 13.8%), L2 hits 91.5 -> 93.9%, 244.1 -> 240.2 us (cuBLASLt 246.1);
# the own add without hints: DRAM 30.9% (~390 MB against 288 MB of ideal bytes), L2 hits 72%,
# 264.4 us. Prediction: with hints the add's DRAM falls toward 288 MB, and at free clocks the
# plain and add forms gain what the extra DRAM bytes cost.
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/gemm_add_dev.xz > /tmp/g && chmod +x /tmp/g
F=own_plain_c1,own_plain_c2,own_add_c1,own_add_c2,
step ev-odd3 env GEMM_EVICT_FIRST=1 GEMM_D_ASYNC=3 timeout 30 /tmp/g 1000 1032 1000 bf16 0 $F
step ev-tiny3 env GEMM_EVICT_FIRST=1 GEMM_D_ASYNC=3 timeout 30 /tmp/g 300 264 72 bf16 0 $F
step ev-memcheck env GEMM_EVICT_FIRST=1 GEMM_D_ASYNC=3 timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/g 300 264 72 bf16 0 $F
S="--section SpeedOfLight --section MemoryWorkloadAnalysis"
step ncu-add-c1-ev3 env GEMM_EVICT_FIRST=1 GEMM_D_ASYNC=3 timeout 100 ncu -k regex:gemm_tma --launch-count 1 $S /tmp/g 8192 8192 1024 bf16 0 own_add_c1,
step ncu-add-c1-ev0 env GEMM_EVICT_FIRST=1 GEMM_D_ASYNC=0 timeout 100 ncu -k regex:gemm_tma --launch-count 1 $S /tmp/g 8192 8192 1024 bf16 0 own_add_c1,
for r in 1 2; do
  for cfg in "0 3" "1 3" "1 0"; do
    set -- $cfg
    for shape in "8192 8192" "16384 2048" "2048 8192" "2048 2048" "16384 16384"; do
      step "t${r}-ev$1-a$2-${shape// /x}" env GEMM_EVICT_FIRST=$1 GEMM_D_ASYNC=$2 timeout 60 /tmp/g $shape 1024 bf16 24 $F
    done
  done
done
step f16-ev0 env GEMM_EVICT_FIRST=0 GEMM_D_ASYNC=3 timeout 60 /tmp/g 8192 8192 1024 f16 24 $F
step f16-ev1 env GEMM_EVICT_FIRST=1 GEMM_D_ASYNC=3 timeout 60 /tmp/g 8192 8192 1024 f16 24 $F
step k8k-ev0 timeout 60 /tmp/g 8192 8192 8192 bf16 8 own_plain_c1,own_add_c1,
step k8k-ev1 env GEMM_EVICT_FIRST=1 timeout 60 /tmp/g 8192 8192 8192 bf16 8 own_plain_c1,own_add_c1,
