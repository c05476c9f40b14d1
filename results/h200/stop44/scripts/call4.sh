cd "$(dirname "$0")/.." && . dev/device_call.sh
# issue 6's ten-minute budget for `run --all --dtype float32` (stop 34: 479.7 s, before
# this stop's tuning in rounds; --all leaves paired timing out unless --pair). Its own call: up to
# 600 s. The result file is split one file a case by results/tarballs.py afterwards.
export FUSIONBENCH_CASES=$PWD/cases FUSIONBENCH=/tmp/fb
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > $R/gpus.txt 2>&1
xz -dc .devbin/fb44c.xz > /tmp/fb && chmod +x /tmp/fb
( while sleep 60; do snap; done ) &
step all /tmp/fb run --all --dtype float32 --out $R/all-float32.json
