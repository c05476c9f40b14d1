cd "$(dirname "$0")/.." && . dev/device_call.sh
# Stop 49, call 8 (on call 7's warm machine): call 7's A/B with more cells and four alternating rounds.
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
xz -dc .devbin/fb49e.xz > /tmp/fbe && chmod +x /tmp/fbe
xz -dc .devbin/fb49f.xz > /tmp/fbf && chmod +x /tmp/fbf
O="--show sol"
ab() {
  step sb-$1-$2 timeout 60 /tmp/fb$1 run --case softmax_backward --dim0 256,512,1024,2048,4096,16384 --dim1 32768 --variants softmax_backward.fused $O --out $R/sb-$1-$2.json
  step sc-$1-$2 timeout 60 /tmp/fb$1 run --case softmax_backward --dim0 128,512,2048,8192 --dim1 16384,65536 --variants softmax_backward.cluster $O --out $R/sc-$1-$2.json
  step ds-$1-$2 timeout 60 /tmp/fb$1 run --case double_softmax,norm_chain --dim0 256,512,1024 --dim1 65536 $O --out $R/ds-$1-$2.json
}
for i in 1 2; do ab e $i; ab f $i; done
