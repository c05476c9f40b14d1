cd "$(dirname "$0")/.." && . dev/device_call.sh
# Stop 49, call 7. The row engine's cluster reductions pushed by st.async into mbarrier-counted slots
# (fb49f = 9a5bb9a + dev/rowengine_cluster_slots.patch) against the cluster barrier a reduction (fb49e =
# 875fc0d, the same row engine as 9a5bb9a): selftest of the engine's cases on fb49f, then the cells
# whose plans run clusters (softmax_backward W = 32768 from 256 rows, double_softmax and norm_chain W =
# 65536 at 256..1024 rows; softmax_backward.cluster forced at W = 65536), alternating binaries.
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb49e.xz > /tmp/fbe && chmod +x /tmp/fbe
xz -dc .devbin/fb49f.xz > /tmp/fbf && chmod +x /tmp/fbf
step version-f /tmp/fbf version
step st-engine timeout 100 /tmp/fbf selftest --case softmax_backward,double_softmax,norm_chain,layernorm --dtype float32,bfloat16 --no-metrics --no-timer
O="--rep 60 --warmup 15 --show sol"
ab() {
  step sb-$1-$2 timeout 60 /tmp/fb$1 run --case softmax_backward --dim0 256,1024,4096 --dim1 32768 --variants softmax_backward.fused $O --out $R/sb-$1-$2.json
  step sc-$1-$2 timeout 60 /tmp/fb$1 run --case softmax_backward --dim0 128,512,2048 --dim1 65536 --variants softmax_backward.cluster $O --out $R/sc-$1-$2.json
  step ds-$1-$2 timeout 60 /tmp/fb$1 run --case double_softmax --dim0 256,512,1024 --dim1 65536 --variants double_softmax.fused $O --out $R/ds-$1-$2.json
  step nc-$1-$2 timeout 60 /tmp/fb$1 run --case norm_chain --dim0 256,512,1024 --dim1 65536 --variants norm_chain.fused $O --out $R/nc-$1-$2.json
}
ab e 1
ab f 1
step memcheck timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/fbf run --case softmax_backward --dim0 1,37 --dim1 32768,65536 --variants softmax_backward.fused,softmax_backward.cluster --rep 1 --warmup 0 --out $R/memcheck.json
ab f 2
ab e 2
