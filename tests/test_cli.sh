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

. "$(dirname "$0")/cli_lib.sh"

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

# a matmul case (op kind matmul, K a fixed symbol)
run validate cases/matmul_bias.json
expect "validate matmul_bias.json" 0
[ "$out" = "ok   cases/matmul_bias.json (2 ops, 1 fused variant, 3 x 3 grid x 1 (K))" ] && ok ||
    bad "validate matmul_bias.json: stdout: $out"

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

# every well-formed test case file (the selftest inputs under tests/cases) validates
for json in cases/*.json; do
    case "$(basename "$json")" in bad_*) continue ;; esac
    run validate "$json"
    [ "$rc" = 0 ] && [[ "$out" == "ok   $json ("* ]] && ok || bad "validate $json: exit $rc: $err"
done

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
assert "paired" not in s and cases["matmul_relu"]["paired"] == "matmul.tuned" and cases["conv_add"]["paired"] == "conv.tuned"
' && ok || bad "list --json: contents"
else
    echo "cli: python3 not found; list --json checked for exit status only"
fi

run list softmax
expect "list NAME" 0
run list matmul_bias
expect "list NAME names its paired plain op" 0
[[ "$out" == *"paired    matmul.tuned, the first op alone"* ]] && ok || bad "list matmul_bias: no paired line: $out"

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
# a fixed symbol (case "fixed") is overridden as an axis is: --K 3 reaches the shapes
cat > "$TMP/fixed_k.json" <<'JSON'
{"name": "fixed_k", "summary": "x [M, N] + w [K]: only K = N broadcasts",
 "inputs": {"x": {"shape": ["M", "N"]}, "w": {"shape": ["K"]}},
 "program": [{"op": "add", "in": ["x", "w"], "out": "y"}], "outputs": ["y"],
 "dtypes": ["float32"], "grid": {"M": [4], "N": [8]}, "fixed": {"K": [1, 8]}}
JSON
run validate "$TMP/fixed_k.json"
[ "$rc" = 0 ] && [[ "$out" == *"1 x 1 grid x 2 (K))" ]] && ok || bad "validate fixed: rc $rc out $out err $err"
run run --case "$TMP/fixed_k.json" --K 3
expect "run --K overrides a fixed symbol" 2 "fixed_k: program[0].in: shapes [4, 8] and [3] do not broadcast"
run run --case "$TMP/fixed_k.json" --Kk 3
expect "run unknown fixed symbol" 2 "unknown option '--Kk' (did you mean '--K'?)"
# a result with fixed symbols: md/csv/json export one grid per K, compare matches by K
# (test_compare.sh), md --table is one table per K, svg and html a panel per K
run export results/export/fixed.json --format md
[ "$rc" = 0 ] && [[ "$out" == *"### mm · float32 · K=4096 · "* ]] && ok || bad "export md fixed: rc $rc err $err"
run export results/export/fixed.json --format csv
[ "$rc" = 0 ] && [[ "$out" == *",commit,fixed"* ]] && ok || bad "export csv fixed: rc $rc err $err"
run export results/export/fixed.json --format md --table
[ "$rc" = 0 ] && [[ "$out" == *"### mm · float32 · K=4096 · "*"| 256 |  64 | 128.00 |"* ]] && ok || bad "export md --table fixed: rc $rc err $err"
run export results/export/fixed.json --format svg
[ "$rc" = 0 ] && [[ "$out" == *"mm · float32 · K=4096 · mm.fused</text>"* ]] && ok || bad "export svg fixed: rc $rc err $err"
run export results/export/fixed.json --format html
[ "$rc" = 0 ] && [[ "$out" == *'data-grid="mm|float32|mm.fused|K=4096"'* ]] && ok || bad "export html fixed: rc $rc err $err"
run compare results/export/fixed.json results/export/fixed.json
expect "compare fixed" 0
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
# (rmsnorm lists every dtype: a directory of cases without float64 stands in for the bundled one)
mkdir -p "$TMP/no_f64" && cp ../cases/softmax.json ../cases/copy.json "$TMP/no_f64/"
FUSIONBENCH_CASES="$TMP/no_f64" run run --all --dtype float64
expect "run --all, a dtype no case lists" 2 "--all: no case lists --dtype float64"
# --table and --speedup-vs are checked before the GPU: a good one reaches it (exit 77 here)
run run --case rmsnorm --table
expect "run --table" 77
run run --case softmax --table --speedup-vs sol
expect "run --table --speedup-vs sol" 77
run run --case softmax --table --speedup-vs=softmax.fused
expect "run --table --speedup-vs a fused variant" 77
run run --case rmsnorm --table --speedup-vs eagr
expect "run --speedup-vs unknown" 2 "--speedup-vs: 'eagr' is not among this run's variants of case 'rmsnorm' (did you mean 'eager'?); choose one of: eager, rmsnorm.fused, rmsnorm.static_persistent, rmsnorm.multi_wave_reload, rmsnorm.multi_wave_cached, sol"
run run --case softmax --variants softmax.fused --baseline softmax.fused --table --speedup-vs eager
expect "run --speedup-vs a variant the run leaves out" 2 "'eager' is not among this run's variants of case 'softmax'; choose one of: softmax.fused, sol"
run run --all --table --speedup-vs softmax.fused
expect "run --all --speedup-vs a variant of one case" 2 "of case 'bias_dropout_add'"
run run --case rmsnorm --speedup-vs eager
expect "run --speedup-vs without --table" 2 "--speedup-vs picks the table's speedup reference: add --table"
run run --case matmul_relu --pair --no-pair
expect "run --pair with --no-pair" 2 "--pair and --no-pair contradict each other: give one"
run run --case rmsnorm --table --show time
expect "run --table with --show" 2 "leave out --show"
run run --help
[[ "$out" == *"--table"* && "$out" == *"--speedup-vs X"* ]] && ok || bad "run --help lacks --table or --speedup-vs"
run run --case softmax --flush dirty
expect "run unknown flush" 2 "--flush: unknown value 'dirty' (expected write, clean or none)"
run run --case softmax --flush
expect "run flush without a value" 2 "--flush needs a value (HOW)"
run run --help
if [[ "$out" == *"--flush HOW"*"clean (default; a read-only sweep"* ]]; then ok; else bad "run --help lacks --flush"; fi
# --timer cupti: libcupti is found at run time; where it cannot be, run stops before the
# GPU (exit 4) and says what it searched or what was wrong with $FB_CUPTI_LIB
FB_CUPTI_LIB=/nonexistent/libcupti.so.13 run run --case softmax --timer cupti
expect "run cupti, FB_CUPTI_LIB missing" 4 "--timer cupti: CUPTI: \$FB_CUPTI_LIB is /nonexistent/libcupti.so.13, which does not exist"
FB_CUPTI_LIB=../cases/softmax.json run run --case softmax --timer cupti
expect "run cupti, FB_CUPTI_LIB not a library" 4 "\$FB_CUPTI_LIB (../cases/softmax.json) cannot be used"
run run --case softmax --timer cuptii
expect "run cupti misspelt" 2 "(did you mean 'cupti'?)"
run run --case softmax --show kernel
expect "run --show kernels misspelt" 2 "(did you mean 'kernels'?)"
# the toolkit's own libcupti: accepted, so the run goes on to the GPU (77 here, or a run there)
cupti_lib=$(dirname "$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")")/lib64/libcupti.so.13
if [ -f "$cupti_lib" ]; then
    FB_CUPTI_LIB=$cupti_lib run run --case softmax --timer cupti --show kernels --quick --out "$TMP/cupti.json"
    [ "$rc" = 77 ] || [ "$rc" = 0 ] && ok || bad "run cupti with the toolkit's libcupti: exit $rc (stderr: $err)"
else
    echo "cli: no toolkit libcupti at $cupti_lib: the accepted --timer cupti check is skipped" >&2
fi
run run --case softmax --metrics dramm
expect "run --metrics unknown group" 2 "--metrics: unknown group 'dramm' (did you mean 'dram'?); groups: dram, inst, all"
run run --case softmax --metrics all,inst
expect "run --metrics all and more" 2 "--metrics: 'all' stands alone"
run run --case softmax --metrics dram --metrics dram
expect "run --metrics twice" 2 "--metrics: 'dram' given twice"
# no libcupti: refused before the GPU is opened and before any timing (exit 4), with the
# shared loader's message, and nothing written
mkdir "$TMP/m"
FB_CUPTI_LIB="$TMP/no/libcupti.so.13" run run --case softmax --quick --metrics dram --out "$TMP/m/r.json"
expect "run --metrics without libcupti" 4 "--metrics: CUPTI: \$FB_CUPTI_LIB is $TMP/no/libcupti.so.13, which does not exist"
[ -z "$(ls -A "$TMP/m")" ] && ok || bad "run --metrics without libcupti: left $(ls -A "$TMP/m")"
FB_CUPTI_LIB=/etc/hostname run run --case softmax --quick --metrics inst --out "$TMP/m/r.json"
expect "run --metrics, FB_CUPTI_LIB not a library" 4 "--metrics: CUPTI: \$FB_CUPTI_LIB (/etc/hostname) cannot be used"
# libcupti stand-ins (tests/fake_cupti.c, built by meson): too old, not a CUPTI, and one
# range-profiler entry point short
if [ -n "${FB_TEST_FAKE_CUPTI_OLD-}" ]; then
    FB_CUPTI_LIB=$FB_TEST_FAKE_CUPTI_OLD run run --case softmax --quick --metrics all --out "$TMP/m/r.json"
    expect "run --metrics, a CUPTI older than CUDA 13's" 4 "CUPTI API version 28 is older than 130000"
    FB_CUPTI_LIB=$FB_TEST_FAKE_CUPTI_PARTIAL run run --case softmax --quick --metrics dram --out "$TMP/m/r.json"
    expect "run --metrics, not a CUPTI" 4 "has no cuptiActivityFlushAll (not a CUPTI library?)"
    FB_CUPTI_LIB=$FB_TEST_FAKE_CUPTI_NOPROF run run --case softmax --quick --metrics dram --out "$TMP/m/r.json"
    expect "run --metrics, a CUPTI without the range profiler" 4 \
        "--metrics: $FB_TEST_FAKE_CUPTI_NOPROF: has no cuptiRangeProfilerCounterDataGetRangeInfo"
    [ -z "$(ls -A "$TMP/m")" ] && ok || bad "run --metrics with a refused CUPTI: left $(ls -A "$TMP/m")"
fi
run run --case softmax --rep -1
expect "run negative rep" 2 "--rep: expected a number from 0.001 to 100000, got '-1'"
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
expect "run same case twice" 2 "--case: 'softmax' given twice"
run run --case softmax --case ../cases/softmax.json
expect "run same case file by name and by path" 2 "case 'softmax' is given twice"

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
    # --all with a dtype some cases do not list: those are left out with a note, the rest go on
    run run --all --dtype bfloat16 --quick
    expect "run --all --dtype bfloat16" 77 "note: --all: case 'copy' lists none of --dtype bfloat16: left out"
    mkdir "$TMP/w"
    run run --case softmax --quick --out "$TMP/w/r.json"
    expect "out writable" 77 "no usable GPU"
    [ -z "$(ls -A "$TMP/w")" ] && ok || bad "out writable: the probe left $(ls -A "$TMP/w")"
    # a resumed run times with the file's flush: given the same or none, on to the GPU
    run run --case softmax --resume "$TMP/partial.json" --flush write
    expect "resume, the file's flush (write, from before --flush)" 77 "no usable GPU"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["settings"]["flush"]="clean"; json.dump(d, open(sys.argv[2], "w"))' \
        results/softmax_partial.json "$TMP/partial-clean.json"
    run run --case softmax --resume "$TMP/partial-clean.json"
    expect "resume a clean-flush file without --flush" 77 "no usable GPU"
    run run --case softmax --resume "$TMP/partial-clean.json" --flush clean
    expect "resume a clean-flush file with --flush clean" 77 "no usable GPU"
fi
# ... and another flush is refused before the GPU (a file records one flush for all its cells)
run run --case softmax --resume results/softmax_partial.json --flush clean
expect "resume with another flush" 2 "results/softmax_partial.json was measured with --flush write, this run would use --flush clean: a result file holds one flush"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["settings"]["flush"]="none"; json.dump(d, open(sys.argv[2], "w"))' \
    results/softmax_partial.json "$TMP/partial-none.json"
run run --case softmax --resume "$TMP/partial-none.json" --flush write
expect "resume a no-flush file with --flush write" 2 "was measured with --flush none, this run would use --flush write"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["settings"]["flush"]="a memset"; json.dump(d, open(sys.argv[2], "w"))' \
    results/softmax_partial.json "$TMP/partial-odd.json"
run run --case softmax --resume "$TMP/partial-odd.json"
expect "resume a file of an unknown flush" 2 "settings.flush is 'a memset', not a flush fusionbench knows (write, clean or none): not resumable"
# ... and --tf32 on a file measured without it is refused before the GPU (one float32 math per file)
run run --case softmax --resume results/softmax_partial.json --tf32
expect "resume with --tf32 a file without it" 2 "results/softmax_partial.json was measured without --tf32: a result file holds one float32 math"
run run --help
if [[ "$out" == *"--tf32"*"TF32 tensor cores"* ]]; then ok; else bad "run --help lacks --tf32"; fi

# =====================================================================================
# issue 5, command line: one option parser (src/opts.c) for run, list, validate,
# selftest and env; no silent truncation, overflow or acceptance. Every check here
# failed before that change. Options are checked before the GPU is touched, so these
# hold on the build machine and the GPU machine alike.
# =====================================================================================

# -- item 7: empty or repeated items in comma lists
run run --case softmax --dim0 128,,256
expect "i7 empty list item" 2 "--dim0: empty item in '128,,256'"
run run --case softmax --dim0 128,128
expect "i7 repeated list item" 2 "--dim0: '128' given twice"
run run --case softmax --dim0 64:256,128
expect "i7 value repeated by a range" 2 "--dim0: 128 given twice"
run run --case softmax --variants eager,eager
expect "i7 --variants a,a" 2 "--variants: 'eager' given twice"
run run --case softmax --variants softmax.fused --variants softmax.fused
expect "i7 --variants twice over two options" 2 "--variants: 'softmax.fused' given twice"
run run --case softmax,,softmax
expect "i7 --case x,,y" 2 "--case: empty item in 'softmax,,softmax'"
run run --case softmax --case softmax
expect "i7 --case twice" 2 "--case: 'softmax' given twice"
run run --case softmax --dtype f32,float32
expect "i7 one dtype under two names" 2 "--dtype: 'f32' and 'float32' are the same dtype (float32)"
run run --case softmax --dtype all,float32
expect "i7 --dtype all with others" 2 "--dtype: 'all' stands alone"
run run --case softmax --dim1=
expect "i7 empty axis list" 2 "--dim1: empty item in ''"

# -- item 7: non-finite or absurd numbers (bounds documented in README.md and --help)
for bad in inf -inf nan NaN infinity 1e308 1e309 " 5" "5 " 0x; do
    for opt in --warmup --rep --max-time --max-noise --settle; do
        run run --case softmax "$opt" "$bad"
        expect "i7 $opt '$bad'" 2 "$opt: expected a"
    done
done
run run --case softmax --warmup inf
expect "i7 --warmup inf message" 2 "--warmup: expected a finite number from 0 to 10000, got 'inf'"
run run --case softmax --rep 1e308
expect "i7 --rep 1e308 message" 2 "--rep: expected a number from 0.001 to 100000, got '1e308'"
run run --case softmax --max-time inf
expect "i7 --max-time inf message" 2 "--max-time: expected a finite number from 0.001 to 3600, got 'inf'"
run run --case softmax --settle -1
expect "i7 --settle -1 message" 2 "--settle: expected a number from 0 to 10000, got '-1'"
for bad in " -5" -5 +5 " 5" 4.0 0x10 0 18446744073709551617; do
    run run --case softmax --seed "$bad"
    expect "i7 --seed '$bad'" 2 "--seed: "
done
# env checks its options before looking for a device
for bad in " -5" -5 "+5" " 5" "" 5X 5Gi 0 2000G 18446744073709551616 99999999999999999999G; do
    run env --bytes "$bad"
    expect "i7 env --bytes '$bad'" 2 "--bytes: "
done
run env --bytes " -5"
expect "i7 env --bytes ' -5' message" 2 "--bytes: expected a byte count (digits with an optional K, M or G suffix"
run env --byts 5
expect "env unknown option" 2 "unknown option '--byts' (did you mean '--bytes'?)"
run env --json=yes
expect "env flag with a value" 2 "--json takes no value (got 'yes')"

# -- item 2: a:b near 2^63: no signed overflow; a one-value range is one value
run run --case softmax --dim0 4611686018427387904:4611686018427387904
expect "i2 one-value range at 2^62" 2 "softmax: inputs.x.shape: byte count overflows 64 bits"
[[ "$err" != *"more than 64 values"* ]] && ok || bad "i2 2^62:2^62 read as more than 64 values: $err"
run run --case softmax --dim0 1:9223372036854775807
expect "i2 range up to INT64_MAX" 2 "byte count overflows 64 bits"
run run --case softmax --dim0 4611686018427387904:9223372036854775807
expect "i2 range from 2^62 to INT64_MAX" 2 "byte count overflows 64 bits"
run run --case softmax --dim0 1:9223372036854775808
expect "i2 range past INT64_MAX" 2 "--dim0: 9223372036854775808 is too large (at most 9223372036854775807)"
run run --case softmax --dim0 99999999999999999999
expect "i2 value past INT64_MAX" 2 "--dim0: 99999999999999999999 is too large"
run run --case softmax --dim0 256:128
expect "i2 empty range" 2 "--dim0: empty range '256:128' (a:b needs a <= b)"
run run --case softmax --dim0 -5
expect "i2 negative size" 2 "--dim0 needs a value"

# -- item 8: an unknown option is decided against the selected cases' axes, after loading
run run --case softmax --quik
expect "i8 unknown flag" 2 "unknown option '--quik' (did you mean '--quick'?)"
run run --quik --case softmax
expect "i8 unknown flag first" 2 "unknown option '--quik' (did you mean '--quick'?)"
run run --cse softmax
expect "i8 unknown option, no case" 2 "unknown option '--cse' (did you mean '--case'?)"
run run --case softmax --foo 5
expect "i8 unknown option with a value" 2 \
    "unknown option '--foo' (grid axes of the selected cases: --dim0, --dim1); see 'fusionbench run --help'"
run run --case softmax --dim0
expect "i8 axis without a value" 2 "--dim0 needs a value (LIST"
run run --case softmax --out --rep 5
expect "i8 option as a value" 2 "--out needs a value (FILE), got the option '--rep'"
run run --case softmax --quick=1
expect "i8 flag with a value" 2 "--quick takes no value"
run run --case softmax stray
expect "i8 operand" 2 "unexpected argument 'stray'"
run run --case softmax --show tme
expect "i8 enum" 2 "--show: unknown value 'tme' (did you mean 'time'?)"
# a second case with other axes: the union decides, and each case takes its own axes
mkdir -p "$TMP/mn"
sed -e 's/"dim0"/"m"/g' -e 's/"dim1"/"n"/g' -e 's/"name": "softmax"/"name": "softmax_mn"/' \
    ../cases/softmax.json >"$TMP/mn/softmax_mn.json"
run run --case softmax --case "$TMP/mn/softmax_mn.json" --zzz 5
expect "i8 union of axes" 2 "(grid axes of the selected cases: --dim0, --dim1, --m, --n)"
run run --case softmax --case "$TMP/mn/softmax_mn.json" --m 7:6
expect "i8 an axis of the second case is parsed" 2 "--m: empty range '7:6'"

# -- item 6: long paths are not cut
long="$TMP/$(printf 'a%.0s' {1..120})/$(printf 'b%.0s' {1..120})"
mkdir -p "$long"
cp ../cases/softmax.json "$long/softmax_long.json"
cp cases/bad_unknown_op.json "$long/broken.json"
run list "$long/softmax_long.json"
expect "i6 list PATH past 63 characters" 0
[[ "$out" == *"file      $long/softmax_long.json"* ]] && ok || bad "i6 list long path: stdout: $out"
run validate "$long/softmax_long.json"
expect "i6 validate long path" 0
run selftest --case "$long/broken.json"
expect "i6 selftest --case PATH past 63 characters" 3 "$long/broken.json: program[2].op: unknown op 'exx'"
# past the 1023 characters a loaded case keeps of its path: printed whole all the same
longer="$TMP"
for i in 1 2 3 4 5; do longer="$longer/$(printf 'c%.0s' {1..250})"; done
mkdir -p "$longer"
cp ../cases/softmax.json "$longer/s.json"
run validate "$longer/s.json"
expect "i6 validate PATH past 1023 characters" 0
[ "$out" = "ok   $longer/s.json (5 ops, 1 fused variant, 10 x 10 grid)" ] && ok || bad "i6 validate 1200+ path: $out"
run list --json "$longer/s.json"
expect "i6 list --json PATH past 1023 characters" 0
[[ "$out" == *"\"path\": \"$longer/s.json\""* ]] && ok || bad "i6 list --json 1200+ path: ${out:0:200}"

# -- item 6: no cut in the number of cases (list: 256, validate: 256, run --all: 64, selftest: 64)
mkdir -p "$TMP/many"
for i in $(seq -w 0 299); do
    sed "s/\"name\": \"softmax\"/\"name\": \"c$i\"/" ../cases/softmax.json >"$TMP/many/c$i.json"
done
FUSIONBENCH_CASES="$TMP/many" run list
expect "i6 list 300 cases" 0
[ "$(printf '%s\n' "$out" | grep -c '^c[0-9]*: ')" = 300 ] && ok ||
    bad "i6 list 300 cases: listed $(printf '%s\n' "$out" | grep -c '^c[0-9]*: ')"
run validate "$TMP"/many/*.json
expect "i6 validate 300 files" 0
[ "$(printf '%s\n' "$out" | grep -c '^ok ')" = 300 ] && ok || bad "i6 validate 300 files: stdout: ${out:0:300}"
cp cases/bad_unknown_op.json "$TMP/many/c999.json" # sorts last: found only if every case is read
FUSIONBENCH_CASES="$TMP/many" run run --all
expect "i6 run --all reads past 64 cases" 3 "$TMP/many/c999.json: program[2].op: unknown op 'exx'"
FUSIONBENCH_CASES="$TMP/many" run selftest
expect "i6 selftest reads past 64 cases" 3 "$TMP/many/c999.json: program[2].op: unknown op 'exx'"
FUSIONBENCH_CASES="$TMP/many" run list --json
expect "i6 list --json reports the broken one" 3 "c999.json: program[2].op"

# -- item 7: NAME.json.json is not a case named NAME.json
mkdir -p "$TMP/jj"
cp ../cases/softmax.json "$TMP/jj/softmax.json"
cp ../cases/softmax.json "$TMP/jj/foo.json.json"
FUSIONBENCH_CASES="$TMP/jj" run list
expect "i7 list foo.json.json" 3 "$TMP/jj/foo.json.json: not a case file name: a name ending in .json would read as a path"
[[ "$out" != *"foo.json"* && "$out" == *"softmax: "* ]] && ok || bad "i7 list foo.json.json: stdout: $out"
FUSIONBENCH_CASES="$TMP/jj" run validate
expect "i7 validate foo.json.json" 3 "foo.json.json: not a case file name"
FUSIONBENCH_CASES="$TMP/jj" run run --all
expect "i7 run --all foo.json.json" 3 "foo.json.json: not a case file name"
FUSIONBENCH_CASES="$TMP/jj" run selftest
expect "i7 selftest foo.json.json" 3 "foo.json.json: not a case file name"
FUSIONBENCH_CASES="$TMP/jj" run run --case foo.json
expect "i7 foo.json stays a path" 3 "foo.json: no such file"

# a file name with a newline in the cases directory is named quoted, on one line
# (found by the fuzz driver: raw-control-char)
mkdir -p "$TMP/nl"
cp ../cases/softmax.json "$TMP/nl/"
cp ../cases/softmax.json "$TMP/nl/new
line.json"
for cmd in validate list "run --all" selftest; do
    FUSIONBENCH_CASES="$TMP/nl" run $cmd
    expect "i8 $cmd: a case file name with a newline" 3 "\$'$TMP/nl/new\\nline.json': not a case file name"
    [[ "$err" != *$'\n'line.json* ]] && ok || bad "i8 $cmd: a newline printed raw: $err"
done
# an unknown command is quoted as cleaned text too
run $'run\n'
expect "i8 unknown command with a newline" 2 "'run\\n' is not a command (did you mean 'run'?)"

# -- item 7: an empty or unreadable cases directory is an error, not an empty success
mkdir -p "$TMP/empty" "$TMP/notes"
echo "not a case" >"$TMP/notes/README.txt"
for d in "$TMP/empty" "$TMP/notes"; do
    FUSIONBENCH_CASES="$d" run run --all
    expect "i7 run --all, nothing in $d" 3 "--all: no case files (*.json) in $d: nothing to run"
    FUSIONBENCH_CASES="$d" run selftest
    expect "i7 selftest, nothing in $d" 3 "no case files (*.json) in $d: nothing to test"
    FUSIONBENCH_CASES="$d" run validate
    expect "i7 validate, nothing in $d" 3 "no case files (*.json) in $d"
    FUSIONBENCH_CASES="$d" run list
    expect "i7 list, nothing in $d" 3 "no case files (*.json) in $d"
done
FUSIONBENCH_CASES="$TMP/no/such/dir" run run --all
expect "i7 run --all, no directory" 3 "cannot open the cases directory $TMP/no/such/dir: No such file or directory"
FUSIONBENCH_CASES="$TMP/no/such/dir" run selftest
expect "i7 selftest, no directory" 3 "cannot open the cases directory $TMP/no/such/dir"
if [ "$(id -u)" != 0 ]; then
    mkdir -p "$TMP/locked_dir"
    cp ../cases/softmax.json "$TMP/locked_dir/"
    chmod 000 "$TMP/locked_dir"
    FUSIONBENCH_CASES="$TMP/locked_dir" run run --all
    expect "i7 run --all, unreadable directory" 3 "cannot open the cases directory $TMP/locked_dir: Permission denied"
    FUSIONBENCH_CASES="$TMP/locked_dir" run selftest
    expect "i7 selftest, unreadable directory" 3 "Permission denied"
fi

# -- what is right is still accepted (reaching the device: exit 77 where there is none)
if ! command -v nvidia-smi >/dev/null 2>&1; then
    run run --case softmax --dim0=128:128 --dim1 61,130 --rep=5 --warmup 0 --max-noise 100 --seed 9223372036854775807
    expect "good options reach the device" 77 "no usable GPU"
    run run --case softmax --case "$TMP/mn/softmax_mn.json" --m 128 --dim1 256 --dtype f32,bf16
    expect "each case takes its own axes" 77 "no usable GPU"
    run run --case softmax --out=--odd-name.json
    expect "--out=VALUE starting with --" 77 "no usable GPU"
    for how in write clean none; do
        run run --case softmax --flush "$how" --flush=$how
        expect "--flush $how reaches the device" 77 "no usable GPU"
    done
    run env --bytes 512MiB
    expect "env --bytes 512MiB" 77 "no usable GPU"
    run selftest --case "$long/softmax_long.json" --no-timer
    expect "selftest long path" 77 "no usable GPU"
    run selftest --case rmsnorm_backward --dtype float64,bf16 --no-timer
    expect "selftest --dtype reaches the device" 77 "no usable GPU"
fi

# -- selftest --dtype: named dtypes only, and a filter that leaves nothing to check is an error
run selftest --dtype float65
expect "selftest --dtype unknown" 2 "--dtype: unknown dtype 'float65' (did you mean 'float64'?)"
run selftest --dtype f64,float64
expect "selftest --dtype twice" 2 "'f64' and 'float64' are the same dtype (float64)"
run selftest --dtype all,float32
expect "selftest --dtype all with others" 2 "'all' stands alone"
run selftest --case softmax --dtype float64
expect "selftest --dtype no case lists it" 2 "--dtype float64: no selected case lists it"

# -- item 3: no leak on an early return (opt in: valgrind takes ~20 s per run here,
# since it reads the CUDA libraries' symbols; the sanitizer build's LeakSanitizer
# covers every CLI test by default)
if [ -n "${FB_TEST_VALGRIND-}" ] && command -v valgrind >/dev/null 2>&1; then
    for args in "run --case softmax,softmax" "run --case softmax --dim0 x" "run --case softmax --foo 1" \
        "run --case sofmax" "list --bogus" "validate cases/bad_empty.json" "selftest --case a,,b" "env --bytes x"; do
        # shellcheck disable=SC2086
        valgrind --leak-check=full "$FB" $args >/dev/null 2>"$TMP/vg"
        if grep -Eq "(definitely|indirectly) lost: [1-9]" "$TMP/vg"; then
            bad "i3 leak in '$args': $(grep -E 'lost:' "$TMP/vg")"
        else
            ok
        fi
    done
fi

# =====================================================================================
# issue 7, results that scale: the journal beside a result file (run --resume reads it,
# run refuses to overwrite one), and merge (tests/results/merge/).
# =====================================================================================
M=results/merge

# -- merge: shards of a grid, another dtype, another case, a cell measured again identically
run merge $M/shard_a.json $M/shard_b.json $M/same_cell.json -o "$TMP/all.json"
expect "merge shards" 0 "3 files -> $TMP/all.json: 2 cases, 3 grids (case x dtype), 6 cells"
cmp -s "$TMP/all.json" $M/shards.expected.json && ok || bad "merge shards: differs from $M/shards.expected.json"
[ -z "$out" ] && ok || bad "merge shards: wrote to stdout: $out"
run merge $M/shard_a.json $M/shard_b.json $M/same_cell.json -o -
expect "merge to stdout" 0 "-> stdout"
[ "$out" == "$(cat $M/shards.expected.json)" ] && ok || bad "merge -o -: stdout differs from $M/shards.expected.json"
run merge $M/shard_a.json $M/shard_b.json $M/same_cell.json --out="$TMP/all2.json"
expect "merge --out=" 0
cmp -s "$TMP/all2.json" $M/shards.expected.json && ok || bad "merge --out=: differs"
run merge $M/shard_a.json $M/shard_a.json -o "$TMP/twice.json"
expect "merge identical duplicates" 0 "2 files ->"
run merge "$TMP/all.json" -o "$TMP/again.json"
expect "merge a merged file" 0
cmp -s "$TMP/again.json" "$TMP/all.json" && ok || bad "merge of a merged file is not the same file"

# -- merge refuses, in one line naming both files (exit 2), or a bad file (exit 3)
run merge $M/shard_a.json $M/other_device.json -o "$TMP/no.json"
expect "merge other device" 2 "$M/other_device.json and $M/shard_a.json are from different devices: device.name 'NVIDIA H200' vs 'NVIDIA H100 80GB HBM3'"
[ "$(printf '%s\n' "$err" | grep -c .)" -eq 1 ] && ok || bad "merge other device: more than one line: $err"
[ ! -e "$TMP/no.json" ] && ok || bad "merge other device: wrote the output"
run merge $M/shard_b.json $M/other_cc.json -o "$TMP/no.json"
expect "merge other cc" 2 "device.cc '9.0a' vs '9.0'"
run merge $M/shard_a.json $M/shard_b.json $M/conflict.json -o "$TMP/no.json"
expect "merge conflicting cell" 2 "$M/conflict.json and $M/shard_a.json both measured softmax float32 dim0=128 dim1=128 softmax.fused, with different results (time_ms.median 0.0061 vs 0.0052)"
run merge $M/shard_a.json $M/other_program.json -o "$TMP/no.json"
expect "merge other program" 2 "hold two programs under the case name 'softmax': float32 dim0=128 dim1=128 has ideal_bytes 1"
run merge $M/shard_b.json $M/other_constant.json -o "$TMP/no.json"
expect "merge other constant" 2 "hold two programs under the case name 'rowsum': k is 128"
run merge $M/shard_a.json $M/bad_row.json -o "$TMP/no.json"
expect "merge malformed" 3 "$M/bad_row.json: cases[0].dtypes[0].cells[0].row: expected an integer, got the string '128'"
run merge $M/bad_samples.json -o "$TMP/no.json"
expect "merge bad samples" 3 "$M/bad_samples.json: cases[0].dtypes[0].cells[0].variants.eager.samples_us: 1 sample, but time_ms.n is 4"
run merge $M/shard_a.json results/bad_truncated.json -o "$TMP/no.json"
expect "merge truncated" 3 "results/bad_truncated.json:"
run merge $M/shard_a.json "$TMP/none.json" -o "$TMP/no.json"
expect "merge missing input" 3 "$TMP/none.json: no such file"
[ ! -e "$TMP/no.json" ] && ok || bad "merge refused: wrote the output"
run merge $M/shard_a.json
expect "merge without -o" 2 "where to? give -o ALL.json (or -o - for stdout)"
run merge -o "$TMP/no.json"
expect "merge without inputs" 2 "which files?"
run merge $M/shard_a.json -o "$TMP/no_dir/all.json"
expect "merge unwritable output" 4 "$TMP/no_dir/all.json: cannot write: No such file or directory"
run merge $M/shard_a.json -x
expect "merge unknown option" 2 "unknown option '-x'"
run --help
[[ "$out" == *"merge "* ]] && ok || bad "--help does not list merge"

# -- a journal a stopped run left: read with its result file, never overwritten
JHEAD='{"fusionbench_journal": 1, "head": {"fusionbench": {"schema": 1}, "started": "2026-11-22T08:00:00Z", "device": {"name": "NVIDIA H100 80GB HBM3"}}}'
JBEGIN='{"begin_case": {"name": "softmax", "rows": "dim0", "cols": "dim1", "row_values": [128], "col_values": [128, 256, 512], "variants": ["eager", "softmax.fused"], "baseline": "eager", "dtypes": []}}'
JCELL='{"case": "softmax", "dtype": "float32", "cell": {"row": 128, "col": 512, "ideal_bytes": 524288, "flops": 327680, "variants": {"eager": {"status": "ok", "time_ms": {"median": 0.02, "n": 2}, "samples_us": [20, 20.5]}}}}'
cp $M/shard_a.json "$TMP/k.json"
printf '%s\n%s\n%s\n' "$JHEAD" "$JBEGIN" "$JCELL" >"$TMP/k.json.journal"
cp "$TMP/k.json.journal" "$TMP/k.journal.orig"
run merge "$TMP/k.json" -o -
expect "merge reads the journal" 0 "$TMP/k.json: with 1 cell from its journal (a run that was stopped)"
[[ "$out" == *'"col_values": [128, 256, 512]'* ]] && [[ "$out" == *'"samples_us": [20, 20.5]'* ]] && ok ||
    bad "merge: the journal's cell is not in the output"
printf '%s' '{"case": "softmax", "dtype": "flo' >>"$TMP/k.json.journal"
run merge "$TMP/k.json" -o "$TMP/kk.json"
expect "merge, torn last journal line" 0 "warning: $TMP/k.json.journal:4: the last line is incomplete (no newline)"
cp "$TMP/k.journal.orig" "$TMP/k.json.journal"
run run --case softmax --quick --out "$TMP/k.json"
expect "run over a stopped run's journal" 2 "$TMP/k.json.journal: the journal of a run that was stopped before it finished (its cells are not in $TMP/k.json); continue that run with --resume $TMP/k.json, or move the journal away"
cp $M/shard_a.json "$TMP/k2.json"
cp "$TMP/k.journal.orig" "$TMP/k2.json.journal"
run run --case softmax --resume "$TMP/k.json" --out "$TMP/k2.json"
expect "resume into another run's journal" 2 "$TMP/k2.json.journal: the journal of a run that was stopped"
printf '%s\n%s\n%s\n%s\n' "$JHEAD" '{"case": 1, "cell": {}}' "$JBEGIN" "$JCELL" >"$TMP/k2.json.journal"
run run --case softmax --resume "$TMP/k2.json"
expect "resume, bad journal line" 3 "$TMP/k2.json.journal:2: case: expected a string, got 1"
printf '%s\n%s\n%s\n' "$JHEAD" "$JBEGIN" "${JCELL/524288/1}" >"$TMP/k2.json.journal"
run run --case softmax --resume "$TMP/k2.json"
expect "resume, another program in the journal" 2 "$TMP/k2.json: case 'softmax' float32 dim0=128 dim1=512: the file's cell has ideal_bytes 1, but"
if ! command -v nvidia-smi >/dev/null 2>&1; then
    # good input gets as far as the GPU, and nothing is written before it
    run run --case softmax --resume "$TMP/k.json"
    expect "resume with a journal" 77 "no usable GPU"
    cmp -s "$TMP/k.json" $M/shard_a.json && cmp -s "$TMP/k.json.journal" "$TMP/k.journal.orig" && ok ||
        bad "resume with a journal: a file was changed before the GPU"
    printf '%s' '{"case": "softmax", "dtype": "flo' >>"$TMP/k.json.journal"
    run run --case softmax --resume "$TMP/k.json"
    expect "resume, torn last journal line" 77 "warning: $TMP/k.json.journal:4: the last line is incomplete (no newline)"
    cp "$TMP/k.journal.orig" "$TMP/k.json.journal"
    rm "$TMP/k.json"
    run run --case softmax --resume "$TMP/k.json"
    expect "resume from the journal alone" 77 "no usable GPU"
fi

echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
