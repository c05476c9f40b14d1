cd "$(dirname "$0")/.." && . dev/device_call.sh
# Stop 49, call 9. fb49g = 76e3675 (the row engine's cluster reductions on ClusterSlots) + dev/wide_row_clusters_knob.patch:
# selftest of every row-engine case in float16 (call 7 ran float32 and bfloat16), racecheck of a cluster plan;
# then where clusters might now win: layernorm W = 65536 (no wide-cluster trait: row_smem) and double_softmax /
# norm_chain W = 65536 beyond 1024 rows and at 128, default plan against the clusters forced by the knobs.
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb49g.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
step st-f16 timeout 60 /tmp/fb selftest --case softmax_backward,double_softmax,norm_chain,layernorm,rmsnorm,softmax --dtype float16 --no-metrics --no-timer
step racecheck timeout 45 compute-sanitizer --tool racecheck --error-exitcode 9 /tmp/fb run --case softmax_backward --dim0 3 --dim1 16384,65536 --variants softmax_backward.cluster --rep 1 --warmup 0 --out $R/racecheck.json
W="env FB_DEV_WIDE_CLUSTERS=1 FB_DEV_WIDE_MIN_ROWS=128 FB_DEV_WIDE_MAX_ROWS=65536"
for i in 1 2; do
  step ln-base-$i timeout 40 /tmp/fb run --case layernorm --dim0 128,256,512,1024,2048,8192 --dim1 65536 --variants layernorm.fused --show sol --out $R/ln-base-$i.json
  step ln-wide-$i $W timeout 40 /tmp/fb run --case layernorm --dim0 128,256,512,1024,2048,8192 --dim1 65536 --variants layernorm.fused --show sol --out $R/ln-wide-$i.json
  for c in double_softmax norm_chain; do
    step $c-base-$i timeout 40 /tmp/fb run --case $c --dim0 128,2048,8192 --dim1 65536 --variants $c.fused --show sol --out $R/$c-base-$i.json
    step $c-wide-$i $W timeout 40 /tmp/fb run --case $c --dim0 128,2048,8192 --dim1 65536 --variants $c.fused --show sol --out $R/$c-wide-$i.json
  done
done
