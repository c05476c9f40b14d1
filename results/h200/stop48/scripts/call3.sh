cd "$(dirname "$0")/.." && . dev/device_call.sh
# Stop 48, call 3. fb48d = 7282402 (rmsnorm_backward's dw kernel: 16-byte loads, 32 x V columns a
# CTA, eight partial rows' loads before their adds) + dev/rmsbwd_skip_dw_knob.patch; fb48s = the
# dw kernel before it (ad3408b + the same knob). A: checks of fb48d (selftest: dw's determinism;
# memcheck over odd, 16-byte and float64 widths). B: t_old / t_new in alternating rounds, and the
# row kernel alone (knob) in the same call. C: Nsight Compute's SM frequency (free clocks, caches
# flushed) for cuBLASLt's plain GEMM and the own plain GEMM at 8192^2 x 1024 and 8192^3.
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb48d.xz > /tmp/fb && chmod +x /tmp/fb
xz -dc .devbin/fb48s.xz > /tmp/fbs && chmod +x /tmp/fbs
xz -dc .devbin/gemm_add_dev.xz > /tmp/g && chmod +x /tmp/g
step version /tmp/fb version
step st-rbwd timeout 120 /tmp/fb selftest --case rmsnorm_backward --no-metrics --no-timer
step memcheck timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/fb run --case rmsnorm_backward --dtype all --T 1,37,512 --N 61,1027,4096,8192,16384 --variants rmsnorm_backward.fused,rmsnorm_backward.persistent --rep 1 --warmup 0 --out $R/memcheck.json
AX="--case rmsnorm_backward --dtype all --T 512,2048 --N 8192,16384 --variants rmsnorm_backward.fused --show sol"
step rb-old-1 timeout 60 /tmp/fbs run $AX --out $R/rb-old-1.json
step rb-new-1 timeout 60 /tmp/fb run $AX --out $R/rb-new-1.json
step rb-nodw-1 env FB_DEV_RMSBWD_SKIP_DW=1 timeout 60 /tmp/fb run $AX --out $R/rb-nodw-1.json
step rb-new-2 timeout 60 /tmp/fb run $AX --out $R/rb-new-2.json
step rb-old-2 timeout 60 /tmp/fbs run $AX --out $R/rb-old-2.json
step rb-nodw-2 env FB_DEV_RMSBWD_SKIP_DW=1 timeout 60 /tmp/fb run $AX --out $R/rb-nodw-2.json
M="--metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max"
step ncu-clock-8k timeout 90 ncu --clock-control none --cache-control all $M /tmp/g 8192 8192 1024 bf16 0 own_plain_c1,own_add_c1,
step ncu-clock-8k8k timeout 90 ncu --clock-control none --cache-control all $M /tmp/g 8192 8192 8192 bf16 0 own_plain_c1,
