#!/bin/bash
# test_cli.sh — the command line as a user meets it, without a GPU: every malformed
# case file in tests/cases/ against its .expected (stderr line + exit code), file
# errors, list/validate/--help/--version and usage errors.
#
# usage: test_cli.sh PATH/TO/fusionbench     (run from tests/: messages carry the
# paths as given, so the .expected files hold paths relative to tests/)
# Ends with "cli: N passed, M failed"; exits 1 when M > 0.

FB=${1:?usage: test_cli.sh PATH/TO/fusionbench}
# absolute before moving to tests/, so a relative binary path still works
[[ "$FB" == */* ]] && FB="$(cd "$(dirname "$FB")" && pwd)/$(basename "$FB")"
cd "$(dirname "$0")" || exit 1
export NO_COLOR=1
unset FUSIONBENCH_CASES

passed=0
failed=0
TMP=$(mktemp -d)
trap 'chmod -R u+rwx "$TMP" 2>/dev/null; rm -rf "$TMP"' EXIT

ok() { passed=$((passed + 1)); }
bad() {
    failed=$((failed + 1))
    echo "FAIL: $*" >&2
}

# run ARGS...: sets $out, $err, $rc
run() {
    "$FB" "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    out=$(cat "$TMP/out")
    err=$(cat "$TMP/err")
}

# expect NAME WANT_RC [STDERR_SUBSTRING]
expect() {
    local name=$1 want_rc=$2 want_err=${3-}
    if [ "$rc" != "$want_rc" ]; then
        bad "$name: exit $rc, want $want_rc (stderr: $err)"
    elif [ -n "$want_err" ] && [[ "$err" != *"$want_err"* ]]; then
        bad "$name: stderr lacks '$want_err'; got: $err"
    else
        ok
    fi
}

# ---- every malformed case file: exact stderr line, exit code, nothing on stdout
n_cases=0
for json in cases/bad_*.json; do
    want_file=${json%.json}.expected
    n_cases=$((n_cases + 1))
    if [ ! -f "$want_file" ]; then
        bad "$json: no $want_file"
        continue
    fi
    run validate "$json"
    got=$(printf '%s\nexit %s' "$err" "$rc")
    want=$(cat "$want_file")
    if [ "$got" != "$want" ]; then
        bad "$json:"$'\n'"  got:  ${got//$'\n'/ | }"$'\n'"  want: ${want//$'\n'/ | }"
    elif [ -n "$out" ]; then
        bad "$json: printed on stdout: $out"
    else
        ok
    fi
done
[ "$n_cases" -ge 22 ] && ok || bad "only $n_cases malformed case files (want at least 22)"

# ---- syntax errors point at the token: line and column
run validate cases/bad_syntax_trailing_comma.json
expect "syntax line:col" 3 "cases/bad_syntax_trailing_comma.json:10:35: "

# ---- file errors, each its own message
run validate cases/no_such_case.json
expect "missing file" 3 "cases/no_such_case.json: no such file"
[ "$err" = "cases/no_such_case.json: no such file" ] && ok || bad "missing file: extra stderr: $err"

run validate ./cases
expect "directory" 3 "./cases: is a directory, not a case file"

cp ../cases/softmax.json "$TMP/locked.json"
chmod 000 "$TMP/locked.json"
if [ "$(id -u)" = 0 ]; then
    echo "cli: skipping the unreadable-file check (root reads anything)"
else
    run validate "$TMP/locked.json"
    expect "unreadable" 3 "$TMP/locked.json: cannot read: Permission denied"
fi

# ---- good files
run validate ../cases/softmax.json
expect "validate softmax.json" 0
[ "$out" = "ok   ../cases/softmax.json (5 ops, 1 fused variant, 10 x 10 grid)" ] && ok ||
    bad "validate softmax.json: stdout: $out"

run validate softmax
expect "validate by name" 0

run validate
expect "validate bundled cases" 0
[[ "$out" == *"softmax.json (5 ops"* ]] && ok || bad "validate bundled: stdout: $out"

run validate sofmax
expect "unknown case name" 3 "unknown case 'sofmax' (did you mean 'softmax'?)"

# several files: each reported, one summary line, the failure wins
run validate ../cases/softmax.json cases/bad_unknown_op.json cases/bad_empty.json
expect "validate several" 3 "fusionbench validate: 2 of 3 case files invalid"
[ "$(grep -c . "$TMP/err")" = 3 ] && ok || bad "validate several: want 3 stderr lines, got: $err"
[[ "$out" == "ok   ../cases/softmax.json"* ]] && ok || bad "validate several: stdout: $out"

# the environment points validate and list at another directory
mkdir -p "$TMP/cases"
cp cases/bad_unknown_op.json "$TMP/cases/broken.json"
FUSIONBENCH_CASES="$TMP/cases" run validate
expect "FUSIONBENCH_CASES" 3 "$TMP/cases/broken.json: program[2].op: unknown op 'exx'"

run validate --help
expect "validate --help" 0
[[ "$out" == "usage: fusionbench validate"* ]] && ok || bad "validate --help: stdout: $out"

run validate --bogus
expect "validate --bogus" 2 "unknown option '--bogus'"

# ---- list
run list
expect "list" 0
[[ "$out" == *"softmax: "* && "$out" == *"softmax.fused"* && "$out" == *"dim0: 128"* ]] && ok ||
    bad "list: stdout lacks the softmax case: $out"

run list --json
expect "list --json" 0
if command -v python3 >/dev/null; then
    if printf '%s' "$out" | python3 -m json.tool >/dev/null 2>&1; then ok; else bad "list --json: not JSON: $out"; fi
    printf '%s' "$out" | python3 -c '
import json, sys
cases = {c["name"]: c for c in json.load(sys.stdin)}
s = cases["softmax"]
assert s["dtypes"] == ["float32", "float16", "bfloat16"], s["dtypes"]
assert [a["symbol"] for a in s["grid"]] == ["dim0", "dim1"]
assert s["grid"][0]["values"][0] == 128 and s["grid"][1]["values"][-1] == 65536
assert s["fused"][0]["name"] == "softmax.fused" and s["fused"][0]["about"]
assert s["ops"] == ["amax", "sub", "exp", "sum", "div"]
' && ok || bad "list --json: contents"
else
    echo "cli: python3 not found; list --json checked for exit status only"
fi

run list softmax
expect "list NAME" 0

run list --bogus
expect "list --bogus" 2 "unknown option '--bogus'"

FUSIONBENCH_CASES="$TMP/cases" run list
expect "list with a broken case" 3 "$TMP/cases/broken.json: program[2].op"

# ---- top level
run --help
expect "--help" 0
[[ "$out" == "usage: fusionbench"* ]] && ok || bad "--help: stdout: $out"

run --version
expect "--version" 0
[[ "$out" == "fusionbench "[0-9]* ]] && ok || bad "--version: stdout: $out"

run valdate
expect "unknown subcommand" 2 "(did you mean 'validate'?)"

run
expect "no subcommand" 2 "usage: fusionbench"

# ---- run: arguments are checked before the GPU is touched
run run
expect "run without a case" 2 "which case? give --case NAME or --all"
run run --case sofmax
expect "run unknown case" 3 "unknown case 'sofmax' (did you mean 'softmax'?)"
run run --case softmax --dim2 5
expect "run unknown axis" 2 "unknown option '--dim2' (did you mean '--dim0'?)"
run run --case softmax --dim1 61,x
expect "run bad list" 2 "--dim1: expected a positive integer, got 'x'"
run run --case softmax --dim1 0
expect "run zero size" 2 "--dim1: expected a positive integer, got '0'"
run run --case softmax --variants softmax.fsed
expect "run unknown variant" 2 "no variant 'softmax.fsed' (did you mean 'softmax.fused'?)"
run run --case softmax --dtype bf61
expect "run unknown dtype" 2 "--dtype: unknown dtype 'bf61'"
run run --case softmax --dtype float64
expect "run unlisted dtype" 2 "--dtype: case 'softmax' does not list float64"
run run --case softmax --timer cupti
expect "run cupti" 2 "--timer cupti: not available in this build"
run run --case softmax --rep -1
expect "run negative rep" 2 "--rep: expected a number >= 0.001, got '-1'"
run run --case softmax --dim0 4294967296 --dim1 4294967296
expect "run overflowing grid" 2 "byte count overflows 64 bits"
run run --help
expect "run --help" 0

# ---- run: two case files with one internal name would share cells: refused, both named
cp ../cases/softmax.json "$TMP/softmax_copy.json"
run run --case softmax --case "$TMP/softmax_copy.json"
expect "run same case name twice" 2 "both define the case 'softmax'"
[[ "$err" == *"/cases/softmax.json and $TMP/softmax_copy.json both"* ]] && ok ||
    bad "run same case name twice: both paths not named: $err"
run run --case softmax --case softmax
expect "run same case twice" 2 "case 'softmax' is given twice"
if ! command -v nvidia-smi >/dev/null 2>&1; then
    # no GPU here: the three GPU commands say so in one line and exit 77 (meson's skip)
    for c in run selftest env; do
        if [ "$c" = run ]; then run run --case softmax --quick; else run "$c"; fi
        expect "$c without a GPU" 77 "no usable GPU"
        [ "$(printf '%s\n' "$err" | grep -c .)" -eq 1 ] && ok || bad "$c without a GPU: more than one line: $err"
    done
fi

echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
