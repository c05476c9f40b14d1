cd "$(dirname "$0")/.." && . dev/device_call.sh
# Stop 49, call 3. Why call 2's binary ran the prefetched kernel's cluster of two 12% slower than call 1's
# (float64 [4, 512, 16384] 244 against 218 us, samples 221-259 against 214-224), in both of its dw modes:
# the binary or the machine? fb49a = cf819eb (call 1's; no flags) and fb49b = f425c5b + the grid-wait knob
# (call 2's), alternating rounds on one machine; then fb49b's two dw modes on the half types once more.
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,uuid,serial,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb49a.xz > /tmp/fba && chmod +x /tmp/fba
xz -dc .devbin/fb49b.xz > /tmp/fbb && chmod +x /tmp/fbb
step version-a /tmp/fba version
step version-b /tmp/fbb version
AC="--case rmsnorm_backward --dtype float64 --T 512,2048 --N 16384 --variants rmsnorm_backward.prefetch --show sol"
AF="--case rmsnorm_backward --dtype float32 --T 512,2048 --N 16384,32768 --variants rmsnorm_backward.prefetch --show sol"
for i in 1 2; do
  step a64-$i timeout 90 /tmp/fba run $AC --out $R/a64-$i.json
  step b64-$i env FB_DEV_DW_GRID_WAIT=1 timeout 90 /tmp/fbb run $AC --out $R/b64-$i.json
  step a32-$i timeout 90 /tmp/fba run $AF --out $R/a32-$i.json
  step b32-$i env FB_DEV_DW_GRID_WAIT=1 timeout 90 /tmp/fbb run $AF --out $R/b32-$i.json
done
AH="--case rmsnorm_backward --dtype float16,bfloat16 --T 512,2048 --N 2048,8192 --variants rmsnorm_backward.fused --show sol"
for i in 1 2; do
  step hflags-$i timeout 90 /tmp/fbb run $AH --out $R/hflags-$i.json
  step hgrid-$i env FB_DEV_DW_GRID_WAIT=1 timeout 90 /tmp/fbb run $AH --out $R/hgrid-$i.json
  step hold-$i timeout 90 /tmp/fba run $AH --out $R/hold-$i.json
done
