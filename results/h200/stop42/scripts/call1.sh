cd "$(dirname "$0")/.." && . dev/device_call.sh
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv > $R/gpus.txt 2>&1
grep -q H200 $R/gpus.txt || { echo "not an H200"; cat $R/gpus.txt; }
xz -dc .devbin/fb42p.xz > /tmp/fb && chmod +x /tmp/fb
xz -dc .devbin/l2rr.xz > /tmp/l2rr && chmod +x /tmp/l2rr
step version /tmp/fb version
# the H200's L2 read rate (issue 10: the floors of a GEMM of our own)
step l2rate /tmp/l2rr 20
# peeled group rows on small grids in CTAs of fewer threads: floors 256 (today), 64, 32; two rounds
for rnd in r1 r2; do
  list="256 64 32"; [ $rnd = r2 ] && list="32 64 256"
  for f in $list; do
    FB_DEV_PEEL_FLOOR=$f step p-$f-$rnd /tmp/fb run --case rmsnorm --dtype float32,bfloat16 --T 128,512,2048 --N 130,1027 --variants rmsnorm.row_engine,rmsnorm.fused --baseline rmsnorm.fused --timer cupti --flush write --out $R/p-$f-$rnd.json
  done
done
step st /tmp/fb selftest --case rmsnorm,layernorm,softmax_backward,softmax,norm_chain
step memcheck-rms compute-sanitizer --tool memcheck /tmp/fb run --case rmsnorm --dtype float32,bfloat16 --T 1,37,512 --N 130,1027 --variants rmsnorm.row_engine,rmsnorm.fused --warmup 0 --rep 1 --out $R/memcheck-rms.json
# rmsnorm_backward's cells under 80% of SOL: every variant, then both kernels of .fused under ncu
step rmsb /tmp/fb run --case rmsnorm_backward --dtype all --T 512,2048 --N 8192,16384 --out $R/rmsb.json
for c in "float16 512 8192" "float32 512 16384" "float64 512 16384"; do
  set -- $c
  step ncu-rmsb-$1-$3 ncu --kernel-name regex:rmsnorm_ --launch-skip 4 --launch-count 2 --section SpeedOfLight --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis /tmp/fb run --case rmsnorm_backward --dtype $1 --T $2 --N $3 --variants rmsnorm_backward.fused --warmup 2 --rep 2 --out $R/ncu-rmsb-$1-$3.json
done
