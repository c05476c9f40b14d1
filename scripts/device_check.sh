#!/usr/bin/env bash
# device_check.sh — what a GPU session runs in one go (build here, carry build/):
# the GPU suite, env beside torch's copy, and the softmax grid with both timers.
# Usage: bash scripts/device_check.sh OUTDIR [extra run args]
set -uo pipefail
out="${1:?usage: device_check.sh OUTDIR}"; shift
fb=./build/fusionbench
mkdir -p "$out"
$fb selftest > "$out/selftest.txt" 2>&1; echo "selftest rc=$?"; grep -v '^ok' "$out/selftest.txt" | tail -8
$fb env | tee "$out/env.txt"
python3 scripts/torch_peer.py copy --bytes 2147483648 | tee -a "$out/env.txt"
s=$(date +%s%N)
$fb run --case softmax --out "$out/softmax.json" "$@" > "$out/grid.txt" 2> "$out/run.log"; echo "run rc=$? wall $(( ($(date +%s%N) - s) / 1000000 )) ms"
cat "$out/grid.txt"; tail -3 "$out/run.log"
$fb run --case softmax --show sol --resume "$out/softmax.json" 2>/dev/null
s=$(date +%s%N)
$fb run --case softmax --timer graph --out "$out/softmax-graph.json" "$@" > /dev/null 2> "$out/run-graph.log"; echo "graph run rc=$? wall $(( ($(date +%s%N) - s) / 1000000 )) ms"
python3 scripts/spread.py "$out/softmax.json" "$out/softmax-graph.json" --min-bytes 64e6 --limit 5 --include-sol
