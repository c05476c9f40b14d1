#!/usr/bin/env bash
# test.sh — the whole test suite, as CI runs it (.ci/run):
#   1. build/ (via setup.sh) and its tests: the CPU tests always, the GPU suite
#      (fusionbench selftest) where a GPU is present (skipped otherwise);
#   2. build-asan/: the same sources under AddressSanitizer + UndefinedBehaviorSanitizer,
#      and the CPU tests again under it, leaks included;
#   3. a bounded fuzz run against build-asan (tests/fuzz/, a few thousand executions).
# Every stage runs even when an earlier one failed; the exit status is non-zero if any did.
# usage: bash scripts/test.sh [--no-sanitize]     (--no-sanitize: stage 1 only)
set -uo pipefail
cd "$(dirname "$0")/.."
sanitize=1
case "${1-}" in
    "") ;;
    --no-sanitize) sanitize=0 ;;
    *) echo "usage: bash scripts/test.sh [--no-sanitize]" >&2; exit 2 ;;
esac

# suite LABEL BUILD_DIR MESON_TEST_ARGS...: runs meson test, prints "LABEL: N passed, ..."
suite() {
    local label=$1 dir=$2
    shift 2
    meson test -C "$dir" --print-errorlogs "$@" 2>&1 | tee "$dir/test-summary.log"
    local rc=${PIPESTATUS[0]}
    local ok fail skip
    ok=$(grep -E '^Ok:' "$dir/test-summary.log" | awk '{print $2}')
    fail=$(grep -E '^(Fail|Timeout):' "$dir/test-summary.log" | awk '{s += $2} END {print s + 0}')
    skip=$(grep -E '^Skipped:' "$dir/test-summary.log" | awk '{print $2}')
    summary+=("$label: ${ok:-0} passed, ${fail:-0} failed, ${skip:-0} skipped")
    return "$rc"
}

summary=()
status=0
if bash scripts/setup.sh; then
    suite "tests" build || status=1
else
    summary+=("tests: build failed"); status=1
fi

if [ "$sanitize" = 1 ]; then
    # halt on the first UB report; report leaks (LeakSanitizer) at exit
    export ASAN_OPTIONS="detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
    export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
    if bash scripts/setup.sh build-asan -Db_sanitize=address,undefined; then
        suite "sanitizer tests (ASan+UBSan, leaks)" build-asan --suite cpu || status=1
        suite "fuzz (build-asan)" build-asan --suite fuzz --verbose || status=1
    else
        summary+=("sanitizer build failed"); status=1
    fi
fi
printf '%s\n' "${summary[@]}"
exit $status
