cd "$(dirname "$0")/.." && . dev/device_call.sh
# Stop 47, call 1: stop 46's next-call1.sh (HEAD + dev/matmul_add_race_cudnn.patch: validate, land),
# its next-call2.sh (the own GEMM's KSTEP = 32 forms through the dev tool) and stop 45's
# next-call2.sh (layernorm's parameter window, rowcopy_wide), in one call (one machine start).
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb47r.xz > /tmp/fb && chmod +x /tmp/fb
xz -dc .devbin/fb46w.xz > /tmp/fbw && chmod +x /tmp/fbw
xz -dc .devbin/gemm_add_dev.xz > /tmp/g && chmod +x /tmp/g
xz -dc .devbin/gemm_trace.xz > /tmp/gt && chmod +x /tmp/gt
xz -dc .devbin/rowcopy_wide.xz > /tmp/rowcopy_wide && chmod +x /tmp/rowcopy_wide
# --- A: the cudnn race patch and stop 46's review commits
step version /tmp/fb version
step selftest timeout 200 /tmp/fb selftest --case matmul_add --no-metrics --no-timer
step st-odd timeout 60 /tmp/fb selftest --case tests/cases/matmul_add_odd.json --no-metrics --no-timer
step st-conv timeout 150 /tmp/fb selftest --case conv,conv_add,conv_relu,conv_bn --dtype bfloat16,float32 --no-metrics --no-timer
step memcheck timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/fb run --case matmul_add --dtype bfloat16 --M 128,1000 --N 256,1032 --K 1024 --rep 2 --warmup 1 --out $R/memcheck.json
V=matmul_add.fused,matmul_add.own,matmul_add.cudnn
step mm-bf16 timeout 100 /tmp/fb run --case matmul_add --dtype bfloat16 --K 1024 --M 2048,8192,16384 --N 2048,8192,16384 --variants $V --out $R/mm-bf16.json
# --- B: KSTEP = 32 (six stages) against 3 x 64
step g-odd timeout 30 /tmp/g 1000 1032 1000 bf16 0
step g-tiny timeout 30 /tmp/g 300 264 72 bf16 0
step g-memcheck timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/g 300 264 72 bf16 0
step g-racecheck env GEMM_D_ASYNC=3 timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 /tmp/g 300 264 72 bf16 0 own_add_c1_k32,own_plain_c1_k32,
step trace timeout 40 /tmp/gt 8192 8192 1024 bf16 0 own_plain_c1,own_plain_c1_k32,own_add_c1,own_add_c1_k32,
step g-8k env GEMM_D_ASYNC=3 timeout 60 /tmp/g 8192 8192 1024 bf16 32
step g-16k2k env GEMM_D_ASYNC=3 timeout 60 /tmp/g 16384 2048 1024 bf16 32
step g-2k env GEMM_D_ASYNC=3 timeout 60 /tmp/g 2048 2048 1024 bf16 64
step g-8k8k timeout 60 /tmp/g 8192 8192 8192 bf16 16 own_plain_c1,own_plain_c2,own_plain_c1_k32,own_plain_c2_k32,
# --- C: layernorm W = 65536, the parameter window (fails its check by design) and rowcopy_wide
step rowcopy timeout 60 /tmp/rowcopy_wide
AX="--dtype float32 --dim1 65536 --dim0 128,512,2048,8192,32768 --show sol"
for round in 1 2; do
  step ln-$round timeout 30 /tmp/fbw run --case layernorm $AX --variants layernorm.fused --out $R/ln-$round.json
  step ln-window-$round env FB_DEV_PARAM_WINDOW=4096 timeout 30 /tmp/fbw run --case layernorm $AX --variants layernorm.fused --out $R/ln-window-$round.json
  step nc-$round timeout 30 /tmp/fbw run --case norm_chain $AX --variants norm_chain.fused --out $R/nc-$round.json
done
# --- A, the other dtypes' grids last
step mm-f16 timeout 100 /tmp/fb run --case matmul_add --dtype float16 --K 1024 --M 2048,8192,16384 --N 2048,8192,16384 --variants $V --out $R/mm-f16.json
step mm-f32 timeout 60 /tmp/fb run --case matmul_add --dtype float32 --K 1024 --M 2048,8192 --N 2048,8192 --variants matmul_add.fused,matmul_add.cudnn --out $R/mm-f32.json
