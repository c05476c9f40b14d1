cd "$(dirname "$0")/.." && . dev/device_call.sh
# conv_add's graph in other shapes (dev knob FB_DEV_CONV_ADD_FORM): which engines cuDNN offers
# each, and the pairs against conv.tuned. fb45c = HEAD + dev/conv_add_form_knob.patch.
#   0 conv -> + D (as committed)          1 conv -> + D -> + 0 (a zero bias [K])
#   2 conv -> + 0 -> + D                  3 conv -> + D -> identity
#   4 conv -> + D -> + 0 -> identity (the legacy ConvBiasActivation's shape)
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb45c.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
AX="--case conv_add --dtype bfloat16 --H 56 --N 8,32,64 --C 128,256,512 --variants conv_add.fused"
for f in 1 2 3 4 0; do
  step form$f env FB_DEV_CONV_ADD_FORM=$f /tmp/fb run $AX --out $R/form$f.json
done
