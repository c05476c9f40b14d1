#!/bin/bash
# test_export.sh — `fusionbench export` from the command line: usage and file
# errors with their exit codes, -o (written whole or not at all), and the
# outputs read back by the tools they are for: the csv by pandas (or, without
# pandas, Python's csv module) with no cleaning, the json by Python's json, the
# svg by an XML parser; the published H100 softmax result exported to csv has
# one row per grid point x (eager, fused, sol copy). The byte-for-byte goldens
# are test_export.c's; the browser test is test_export_html.py.
#
# usage: test_export.sh PATH/TO/fusionbench   (run from anywhere; works in tests/)
# Ends with "export-cli: N passed, M failed"; exits 1 when M > 0.

FB=${1:?usage: test_export.sh PATH/TO/fusionbench}
[[ "$FB" == */* ]] && FB="$(cd "$(dirname "$FB")" && pwd)/$(basename "$FB")"
cd "$(dirname "$0")" || exit 1
export NO_COLOR=1

passed=0
failed=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
SMALL=results/export/small.json
SOFTMAX=../results/h100/softmax-f5148a1.json

. "$(dirname "$0")/cli_lib.sh"

# ---- usage and input errors
run export --help
expect "export --help" 0
[[ "$out" == *"usage: fusionbench export RESULT.json --format csv|md|svg|html|json"* ]] && ok || bad "--help: no usage line"
run --help
[[ "$out" == *"export "* ]] && ok || bad "fusionbench --help does not list export"
run export
expect "no file" 2 "fusionbench export: which result file?"
run export "$SMALL"
expect "no --format" 2 "--format is required: one of csv, md, svg, html, json"
run export "$SMALL" --format xlsx
expect "bad --format" 2 "xlsx"
run export "$SMALL" --format csv --show fast
expect "bad --show" 2 "fast"
# kernels is run's grid only (the md and html exports list what was launched instead)
run export "$SMALL" --format md --show kernels
expect "--show kernels is not an export view" 2 "--show: unknown value 'kernels' (expected speedup, sol, time, gbps, dram, inst or paired)"
run export "$SMALL" "$SMALL" --format csv
expect "two files" 2 "one result file at a time"
run export no/such.json --format csv
expect "missing file" 3 "fusionbench export: no/such.json: no such file"
run export cases/bad_empty.json --format csv
expect "not a result file" 3 "cases/bad_empty.json"
run export "$SMALL" --format md --case toyy
expect "unknown case" 2 "no case 'toyy' in the result (have: toy, line)"
[ -z "$out" ] && ok || bad "unknown case: something on stdout"
run export "$SMALL" --format svg --dtype float64
expect "unknown dtype" 2 "no dtype 'float64' in the result (have: float32, bfloat16)"
run export "$SMALL" --format html --variant toy.fuse
expect "unknown variant" 2 "no variant 'toy.fuse'"

# ---- the benchmark table (md --table): the printer's goldens (test_export.c), from the command line
RMS=results/export/rmsnorm.json
run export "$RMS" --format md --table
expect "md --table" 0
cmp -s "$TMP/out" golden/export/rmsnorm-table.md && ok || bad "md --table differs from golden/export/rmsnorm-table.md"
run export "$RMS" --format md --table --speedup-vs rmsnorm.fused --case rmsnorm --dtype f32
expect "md --table --speedup-vs" 0
cmp -s "$TMP/out" golden/export/rmsnorm-table-vs-fused.md && ok || bad "--speedup-vs rmsnorm.fused differs from its golden"
run export "$RMS" --format=md --table --speedup-vs=sol --case rmsnorm_backward -o "$TMP/vs-sol.md"
expect "md --table -o" 0
cmp -s "$TMP/vs-sol.md" golden/export/rmsnorm-table-vs-sol.md && ok || bad "--speedup-vs sol -o differs from its golden"
run export "$RMS" --format md --table --speedup-vs eagr
expect "--speedup-vs unknown" 2 "--speedup-vs: 'eagr' is not among the result's variants of case 'rmsnorm' (did you mean 'eager'?); choose one of: eager, rmsnorm.fused, rmsnorm.alt, sol"
[ -z "$out" ] && ok || bad "--speedup-vs unknown: something on stdout"
run export "$RMS" --format md --table --speedup-vs rmsnorm.alt
expect "--speedup-vs of one case only" 2 "of case 'rmsnorm_backward'"
run export "$RMS" --format md --speedup-vs eager
expect "--speedup-vs without --table" 2 "--speedup-vs picks the table's speedup reference: add --table"
run export "$RMS" --format csv --table
expect "--table with csv" 2 "--table is a form of the markdown export: use it with --format md (got --format csv)"
run export "$RMS" --format md --table --show time
expect "--table with --show" 2 "leave out --show"
run export "$RMS" --format md --table --variant eager
expect "--table with --variant" 2 "leave out --variant"
run export "$RMS" --format md --table --speedup-vs
expect "--speedup-vs without a value" 2 "--speedup-vs needs a value"
run export --help
[[ "$out" == *"--table"* && "$out" == *"--speedup-vs X"* ]] && ok || bad "export --help lacks --table or --speedup-vs"

# ---- -o: the same bytes as stdout, written whole; nothing left behind on failure
for fmt in csv md svg html json; do
    run export "$SMALL" --format "$fmt"
    cp "$TMP/out" "$TMP/stdout.$fmt"
    expect "stdout $fmt" 0
    run export "$SMALL" --format "$fmt" -o "$TMP/small.$fmt"
    expect "-o $fmt" 0
    [ -z "$out" ] && ok || bad "-o $fmt: something on stdout"
    cmp -s "$TMP/stdout.$fmt" "$TMP/small.$fmt" && ok || bad "-o $fmt differs from stdout"
done
run export "$SMALL" --format=md --out="$TMP/eq.md"
cmp -s "$TMP/stdout.md" "$TMP/eq.md" && ok || bad "--out=FILE differs from stdout"
run export "$SMALL" --format csv -o "$TMP/no/such/dir/x.csv"
expect "-o into a missing directory" 4 "cannot write"
run export "$SMALL" --format csv -o "$TMP"
expect "-o a directory" 4 "cannot write"
[ -z "$(ls "$TMP" | grep '\.tmp\.')" ] && ok || bad "a temporary file was left: $(ls "$TMP")"
if [ -c /dev/full ] && [ -w /dev/full ]; then
    # through a link, so that a regression (a rename over the target) replaces the link, not the device
    ln -s /dev/full "$TMP/full"
    run export "$SMALL" --format html -o "$TMP/full"
    expect "-o a full device" 4 "cannot write"
    [ -L "$TMP/full" ] && [ -c /dev/full ] && ok || bad "-o a device replaced it with a file"
    rm -f "$TMP/full"
    "$FB" export "$SMALL" --format csv >/dev/full 2>"$TMP/err"
    rc=$?
    [ "$rc" = 4 ] && grep -q "cannot write" "$TMP/err" && ok || bad "stdout on /dev/full: exit $rc ($(cat "$TMP/err"))"
fi
# a link is written through, not replaced (the same path as /dev/stdout, without touching /dev)
echo old >"$TMP/target.md"
ln -s "$TMP/target.md" "$TMP/link.md"
run export "$SMALL" --format md -o "$TMP/link.md"
expect "-o a link" 0
[ -L "$TMP/link.md" ] && cmp -s "$TMP/stdout.md" "$TMP/target.md" && ok || bad "-o a link: the link was replaced"

# ---- the published H100 softmax run: 10 x 10 points x (eager, softmax.fused, sol) rows
run export "$SOFTMAX" --format csv -o "$TMP/softmax.csv"
expect "softmax csv" 0
rows=$(($(wc -l <"$TMP/softmax.csv") - 1))
[ "$rows" = 300 ] && ok || bad "softmax csv: $rows rows, want 300"
run export "$SOFTMAX" --format json -o "$TMP/softmax.json"
expect "softmax json" 0

# ---- read back by the tools they are for
PY=${FB_TEST_PYTHON:-python3}
if ! command -v "$PY" >/dev/null; then
    echo "export-cli: no python3: the csv/json/svg read-back is skipped" >&2
else
    "$PY" - "$TMP" <<'EOF'
import csv, json, math, sys, xml.etree.ElementTree as ET
tmp = sys.argv[1]
fails = []
def check(cond, what):
    if not cond: fails.append(what)

NUMERIC = ["row", "median_us", "min_us", "p20_us", "p80_us", "max_us", "mean_us", "stdev_us", "n", "speedup",
           "sol_pct", "gbps", "tflops", "ideal_bytes", "flops", "kernels", "kernels_launched", "span_us",
           "footprint_bytes", "peak_bytes",
           "max_abs", "max_rel", "rows_checked", "rows_total", "dram_read_bytes", "dram_write_bytes", "inst_executed",
           "sm_clock_before_mhz", "sm_clock_after_mhz", "mem_clock_before_mhz", "mem_clock_after_mhz", "temp_before_c",
           "temp_after_c", "power_before_w", "power_after_w", "step_pct", "sm_clock_min_mhz", "sm_clock_mean_mhz"]
NCOLS = 59  # export.h's FB_N_FIELDS
try:
    import pandas as pd
except ImportError:
    pd = None
    print("export-cli: pandas is not installed: the csv is read with the csv module instead", file=sys.stderr)

for name, rows in (("small", 25 + 3 + 6), ("softmax", 300)):  # toy float32, bfloat16, line
    path = f"{tmp}/{name}.csv"
    if pd is not None:
        df = pd.read_csv(path)
        check(len(df) == rows, f"{name}.csv: pandas read {len(df)} rows, want {rows}")
        check(len(df.columns) == NCOLS, f"{name}.csv: {len(df.columns)} columns")
        for col in NUMERIC:
            check(pd.api.types.is_numeric_dtype(df[col]), f"{name}.csv: column {col} is {df[col].dtype}, not numeric")
        check(df["median_us"].notna().sum() > 0, f"{name}.csv: no median")
        if name == "small":
            check(set(df["device"]) == {'Test GPU <rev "A"> & co'}, f"small.csv: device read back as {set(df['device'])}")
            check('toy.<i>odd</i>&"name"' in set(df["variant"]), "small.csv: the odd variant name did not survive")
            check(df["check_passed"].dropna().isin([True, False]).all(), "small.csv: check_passed is not boolean")
            r = df[(df.variant == "toy.fused") & (df.row == 128) & (df.col == 64)].iloc[0]
            check(abs(r.speedup - 3.2) < 1e-9 and r.sol_pct == 80 and r.n == 4, f"small.csv: the 128x64 row reads {dict(r)}")
            check(df[df.case == "line"]["col"].isna().all(), "small.csv: a one-axis case has a col")
        else:
            check(set(df["variant"]) == {"eager", "softmax.fused", "sol"}, f"softmax.csv: variants {set(df['variant'])}")
            fused = df[df.variant == "softmax.fused"]
            check(len(fused) == 100 and (fused.speedup > 2.5).all(), "softmax.csv: fused speedups")
    with open(path, newline="") as f:
        recs = list(csv.reader(f))
    check(len(recs) == rows + 1, f"{name}.csv: csv module read {len(recs) - 1} rows")
    check(all(len(r) == NCOLS for r in recs), f"{name}.csv: a row without {NCOLS} fields")
    for r in recs[1:]:
        for i in (recs[0].index(c) for c in NUMERIC):
            if r[i]:
                try: float(r[i])
                except ValueError: fails.append(f"{name}.csv: {recs[0][i]} = {r[i]!r} is not a number")
    js = json.load(open(f"{tmp}/{name}.json"))
    check(len(js) == rows, f"{name}.json: {len(js)} records, want {rows}")
    check(all(list(j) == recs[0] + ["samples_us"] for j in js), f"{name}.json: keys differ from the csv's columns")
    with_samples = [j for j in js if j["samples_us"] is not None]
    check(len(with_samples) == (3 if name == "small" else 0), f"{name}.json: {len(with_samples)} records with samples")
    check(all(len(j["samples_us"]) == j["n"] for j in with_samples), f"{name}.json: samples_us and n disagree")
    check(all((j["median_us"] is None) == (r[recs[0].index("median_us")] == "") for j, r in zip(js, recs[1:])),
          f"{name}.json: absent medians differ from the csv's")

svg = ET.parse(f"{tmp}/small.svg").getroot()
panels = [g for g in svg.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "panel"]
check(len(panels) == 4, f"small.svg: {len(panels)} panels, want 4")
check(svg.get("width") == "900", "small.svg: not 900 wide")
texts = "".join(t.text or "" for t in svg.iter("{http://www.w3.org/2000/svg}text"))
for word in ("FAIL", "BFAIL", "OOM", "UNCHK", "ERR", "320.0%", 'toy.<i>odd</i>&"name"'):
    check(word in texts, f"small.svg: no text {word!r}")
for f in fails:
    print("FAIL:", f, file=sys.stderr)
sys.exit(1 if fails else 0)
EOF
    [ $? = 0 ] && ok || bad "read-back of the csv, json and svg (above)"
fi

echo "export-cli: $passed passed, $failed failed"
[ "$failed" = 0 ]
