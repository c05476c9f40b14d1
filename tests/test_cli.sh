#!/bin/bash
# test_cli.sh — the command line as a user meets it, without a GPU: every malformed
# case file in tests/cases/ and result file in tests/results/ (given to run --resume)
# against its .expected (stderr line + exit code), file errors, list/validate/--help/
# --version, usage errors, and run's checks that come before the GPU.
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
# the eleven bundled cases of issue 6, each valid
for name in softmax pointwise_chain double_softmax softmax_backward layernorm norm_chain \
    horizontal_reduction_pointwise horizontal_reduction_reduction bias_gelu bias_dropout_add bias_dropout_add_train; do
    [[ "$out" == *"ok   "*"/$name.json ("* ]] && ok || bad "validate bundled: $name missing from: $out"
done

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
[[ "$out" == *"3 bad input file (case or result)"* ]] && ok || bad "--help: exit code 3 not described: $out"

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

# ---- run --resume: the file is validated whole before anything runs (exit 3, the
# message names the place), and a refused file is left exactly as it was
n_results=0
for json in results/bad_*.json; do
    want_file=${json%.json}.expected
    n_results=$((n_results + 1))
    if [ ! -f "$want_file" ]; then
        bad "$json: no $want_file"
        continue
    fi
    cp "$json" "$TMP/resume.json"
    run run --case softmax --resume "$json"
    got=$(printf '%s\nexit %s' "$err" "$rc")
    want=$(cat "$want_file")
    if [ "$got" != "$want" ]; then
        bad "$json:"$'\n'"  got:  ${got//$'\n'/ | }"$'\n'"  want: ${want//$'\n'/ | }"
    elif [ -n "$out" ]; then
        bad "$json: printed on stdout: $out"
    elif ! cmp -s "$json" "$TMP/resume.json"; then
        bad "$json: the refused file was changed"
    else
        ok
    fi
done
[ "$n_results" -ge 18 ] && ok || bad "only $n_results malformed result files (want at least 18)"

# file errors are bad input too (exit 3), each its own message
run run --case softmax --resume "$TMP/no_such_result.json"
expect "resume missing file" 3 "$TMP/no_such_result.json: no such file"
run run --case softmax --resume ./results
expect "resume directory" 3 "./results: is a directory, not a result file"
cp results/softmax_partial.json "$TMP/locked_result.json"
chmod 000 "$TMP/locked_result.json"
if [ "$(id -u)" != 0 ]; then
    run run --case softmax --resume "$TMP/locked_result.json"
    expect "resume unreadable" 3 "$TMP/locked_result.json: cannot read: Permission denied"
fi

# a FIFO, or /dev/stdin on a pipe nobody writes to, is refused at once, not read forever
mkfifo "$TMP/fifo"
run_t() {
    timeout 20 "$FB" "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    out=$(cat "$TMP/out")
    err=$(cat "$TMP/err")
}
run_t run --case softmax --resume "$TMP/fifo"
expect "resume FIFO" 3 "$TMP/fifo: not a regular file"
exec 3< <(exec sleep 60 2>/dev/null)
idle=$!
run_t run --case softmax --resume /dev/stdin <&3
exec 3<&-
kill "$idle" 2>/dev/null
expect "resume idle stdin" 3 "/dev/stdin: not a regular file"

# a valid file of another program under the same name is refused (exit 2), untouched
for other in results/other_softmax_axes.json results/other_softmax_bytes.json; do
    cp "$other" "$TMP/other.json"
    run run --case softmax --resume "$TMP/other.json"
    expect "resume $other" 2 "$TMP/other.json: "
    cmp -s "$other" "$TMP/other.json" && ok || bad "resume $other: the file was changed"
done
run run --case softmax --resume results/other_softmax_axes.json
expect "resume other axes" 2 "its case 'softmax' has the grid M x N, but"
run run --case softmax --resume results/other_softmax_bytes.json
expect "resume other bytes" 2 "float32 dim0=128 dim1=256: the file's cell has ideal_bytes 131072, but"

# ---- run --out: a result file that cannot be written is found before the GPU (exit 4),
# and the probe leaves nothing behind
run run --case softmax --quick --out "$TMP/no_dir/r.json"
expect "out in a missing directory" 4 "$TMP/no_dir/r.json: cannot write: No such file or directory"
mkdir "$TMP/out_dir"
run run --case softmax --quick --out "$TMP/out_dir"
expect "out is a directory" 4 "$TMP/out_dir: cannot write: is a directory"
run run --case softmax --quick --out "$TMP/fifo"
expect "out is a FIFO" 4 "$TMP/fifo: cannot write: not a regular file"
mkdir "$TMP/ro"
chmod 555 "$TMP/ro"
if [ "$(id -u)" != 0 ]; then
    run run --case softmax --quick --out "$TMP/ro/r.json"
    expect "out in a read-only directory" 4 "$TMP/ro/r.json: cannot write: Permission denied"
fi
[ -z "$(ls -A "$TMP/ro")" ] && ok || bad "out in a read-only directory: left $(ls -A "$TMP/ro")"
if ! command -v nvidia-smi >/dev/null 2>&1; then
    # no GPU here: the three GPU commands say so in one line and exit 77 (meson's skip)
    for c in run selftest env; do
        if [ "$c" = run ]; then run run --case softmax --quick; else run "$c"; fi
        expect "$c without a GPU" 77 "no usable GPU"
        [ "$(printf '%s\n' "$err" | grep -c .)" -eq 1 ] && ok || bad "$c without a GPU: more than one line: $err"
    done
    # good input gets as far as the GPU: a valid result file resumes (its case may be
    # on another grid), a writable --out passes the probe, and neither is touched
    cp results/softmax_partial.json "$TMP/partial.json"
    run run --case softmax --dtype all --dim0 256 --resume "$TMP/partial.json"
    expect "resume a valid file" 77 "no usable GPU"
    cmp -s results/softmax_partial.json "$TMP/partial.json" && ok || bad "resume a valid file: the file was changed"
    mkdir "$TMP/w"
    run run --case softmax --quick --out "$TMP/w/r.json"
    expect "out writable" 77 "no usable GPU"
    [ -z "$(ls -A "$TMP/w")" ] && ok || bad "out writable: the probe left $(ls -A "$TMP/w")"
fi

echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
