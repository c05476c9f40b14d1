cd "$(dirname "$0")/.." && . dev/device_call.sh
# layernorm.persist (K_PERSIST: persistent clusters, weight and bias in shared memory, moments in
# one cluster exchange), first run. fb45p = HEAD + the persist kernel + dev/persist_knob.patch.
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb45p.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
step selftest /tmp/fb selftest --case layernorm --no-metrics --no-timer
LR=tests/cases/layernorm_long_rows.json
step long-f32 /tmp/fb run --case $LR --dtype float32 --rep 5 --warmup 2 --out $R/long-f32.json
step long-bf16 /tmp/fb run --case $LR --dtype bfloat16 --rep 5 --warmup 2 --out $R/long-bf16.json
step memcheck compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/fb run --case $LR --dtype float32 --dim0 3 --dim1 8196,65528 --variants layernorm.persist --rep 1 --warmup 1 --out $R/memcheck.json
step racecheck compute-sanitizer --tool racecheck --error-exitcode 9 /tmp/fb run --case $LR --dtype float32 --dim0 3 --dim1 8196,65528 --variants layernorm.persist --rep 1 --warmup 1 --out $R/racecheck.json
AX0="--case layernorm --dtype float32 --dim0 128,256,512,1024,2048,8192,32768 --variants layernorm.fused,layernorm.persist --baseline layernorm.fused --show sol"
AX="$AX0 --dim1 32768,65536"
step sweep-256 /tmp/fb run $AX --out $R/sweep-256.json
step sweep-512 env FB_DEV_PERSIST=512,0 /tmp/fb run $AX --out $R/sweep-512.json
step sweep-512c8 env FB_DEV_PERSIST=512,8 /tmp/fb run $AX --out $R/sweep-512c8.json
step sweep-128c8 env FB_DEV_PERSIST=128,8 /tmp/fb run $AX0 --dim1 32768 --out $R/sweep-128c8.json
step sweep-256r /tmp/fb run $AX --out $R/sweep-256r.json
