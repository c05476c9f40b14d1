cd "$(dirname "$0")/.." && . dev/device_call.sh
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb41h.xz > /tmp/fb && chmod +x /tmp/fb
step version /tmp/fb version
# rmsnorm [4, 512, 130] float32: ours and Inductor's kernel under Nsight Compute, with the SASS source page
step ncu-ours ncu --kernel-name regex:row_group --launch-skip 3 --launch-count 1 --set full --import-source no --page details /tmp/fb run --case rmsnorm --dtype float32 --T 512 --N 130 --variants rmsnorm.fused --out $R/ncu-ours.json
step ncu-triton ncu --kernel-name regex:triton --launch-skip 5 --launch-count 1 --set full --page details python3 dev/rmsnorm_inductor_probe.py --T 512 --N 130 --dtype float32
# the rest of call 7's bfloat16 side-by-side (same --dir: both tools skip what the files hold)
mkdir -p $R/sbs && tar xJf .devbin/c7sbs.tar.xz -C $R
step sbs python3 scripts/side_by_side.py --case rmsnorm --dtype bfloat16 --flush write --timer cupti --budget 150 --dir $R/sbs
