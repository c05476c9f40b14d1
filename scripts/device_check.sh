#!/usr/bin/env bash
# device_check.sh — what a GPU session runs in one go (build here, carry build/):
# the GPU suite, env beside torch's copy,
# the softmax grid twice with events and once with graphs (repeatability and timer
# agreement), an out-of-memory grid, a killed-then-resumed run, and
# compute-sanitizer over the GPU suite.
# Usage: bash scripts/device_check.sh OUTDIR
set -uo pipefail
out="${1:?usage: device_check.sh OUTDIR}"
fb=./build/fusionbench
mkdir -p "$out"
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

$fb selftest > "$out/selftest.txt" 2>&1; echo "selftest rc=$?"; grep -v '^ok' "$out/selftest.txt" | tail -6
$fb env | tee "$out/env.txt"
python3 scripts/torch_peer.py copy --bytes 2147483648 | tee -a "$out/env.txt"

s=$(date +%s%N)
$fb run --case softmax --out "$out/softmax.json" > "$out/grid.txt" 2> "$out/run.log"
echo "run rc=$? wall $(ms $s) ms"; cat "$out/grid.txt"; tail -2 "$out/run.log"
$fb run --case softmax --show sol --resume "$out/softmax.json" 2>/dev/null | tee "$out/grid-sol.txt"
s=$(date +%s%N)
$fb run --case softmax --out "$out/softmax-rerun.json" > /dev/null 2>&1; echo "rerun rc=$? wall $(ms $s) ms"
s=$(date +%s%N)
$fb run --case softmax --timer graph --out "$out/softmax-graph.json" > /dev/null 2>&1; echo "graph run rc=$? wall $(ms $s) ms"
echo "== repeatability (median >= 50 us, limit 3%)"
python3 scripts/spread.py "$out/softmax.json" "$out/softmax-rerun.json" --min-us 50 --limit 3
echo "== events vs graph (ideal bytes >= 64 MB, limit 5%)"
python3 scripts/spread.py "$out/softmax.json" "$out/softmax-graph.json" --min-bytes 64e6 --limit 5 --include-sol
echo "== the half-type grids"
$fb run --case softmax --dtype bfloat16 --out "$out/softmax-bfloat16.json" 2>&1 | tail -14
echo "== odd widths at 65536 rows"
$fb run --case softmax --dim0 65536 --dim1 61,130,1027 --show sol --out "$out/odd.json" 2>&1 | tail -5
echo "== out of memory"
$fb run --case softmax --dim0 65536,131072,262144 --dim1 65536 --out "$out/oom.json" 2>&1 | tail -8
echo "== killed after 8 s, then resumed"
timeout -s INT 8 $fb run --case softmax --dtype float16 --out "$out/resume.json" > /dev/null 2>&1; echo "killed rc=$?"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('cells in file after kill:', len(d['cases'][0]['dtypes'][0]['cells']))" "$out/resume.json"
$fb run --case softmax --dtype float16 --resume "$out/resume.json" > /dev/null 2>"$out/resume.log"; echo "resume rc=$?"; tail -1 "$out/resume.log"
echo "== compute-sanitizer memcheck over the GPU suite"
timeout 240 compute-sanitizer --tool memcheck --print-limit 5 $fb selftest --no-timer > "$out/sanitizer.txt" 2>&1
echo "sanitizer rc=$? $(grep -E 'ERROR SUMMARY|selftest:' "$out/sanitizer.txt" | tr '\n' ' ')"
# the device returns at most 8 files: everything in one archive
tar -C "$out" -czf "$out/../device-check.tgz" . && mv "$out/../device-check.tgz" "$out/device-check.tgz"
