#!/usr/bin/env bash
# test.sh — build (via setup.sh) and run the whole test suite: CPU tests always,
# the GPU suite (fusionbench selftest) where a GPU is present (skipped otherwise).
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 1
meson test -C build --print-errorlogs 2>&1 | tee build/test-summary.log
rc=${PIPESTATUS[0]}
ok=$(grep -E '^Ok:' build/test-summary.log | awk '{print $2}')
fail=$(grep -E '^Fail:' build/test-summary.log | awk '{print $2}')
skip=$(grep -E '^Skipped:' build/test-summary.log | awk '{print $2}')
echo "${ok:-0} passed, ${fail:-0} failed, ${skip:-0} skipped"
exit $rc
