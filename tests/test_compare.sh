#!/bin/bash
# test_compare.sh — `fusionbench compare` as CI meets it, on the synthetic result files in
# tests/results/compare/ (written by make_fixtures.py; each says there what it holds):
# the verdicts and exit codes, the device check, two-variant mode, files without samples,
# the filters, and the shapes of the md, json and bench-json reports.
#
# usage: test_compare.sh PATH/TO/fusionbench   (run from tests/)
# Ends with "compare: N passed, M failed"; exits 1 when M > 0.

FB=${1:?usage: test_compare.sh PATH/TO/fusionbench}
[[ "$FB" == */* ]] && FB="$(cd "$(dirname "$FB")" && pwd)/$(basename "$FB")"
cd "$(dirname "$0")" || exit 1
export NO_COLOR=1

passed=0
failed=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
R=results/compare

. "$(dirname "$0")/cli_lib.sh"

# has NAME TEXT: stdout holds TEXT
has() { [[ "$out" == *"$2"* ]] && ok || bad "$1: stdout lacks '$2'; got:"$'\n'"$out"; }
lacks() { [[ "$out" != *"$2"* ]] && ok || bad "$1: stdout holds '$2'"; }
# count_lines NAME REGEX WANT: lines of stdout matching REGEX
count_lines() {
    local n
    n=$(grep -cE "$2" <<<"$out")
    [ "$n" = "$3" ] && ok || bad "$1: $n lines match '$2', want $3; stdout:"$'\n'"$out"
}

# json_check NAME PYTHON: stdout parsed as JSON into `d`, then PYTHON's asserts
json_check() {
    if python3 -c "import json, sys
d = json.loads(sys.stdin.read())
$2" <<<"$out" 2>"$TMP/py"; then ok; else bad "$1: $(cat "$TMP/py")"; fi
}

# ---- the fixtures are valid result files (fb_result_read's validation, through compare)
for f in base same slower noisy fail partial h200 old oom rows_a rows_b fixed_base fixed_slower; do
    run compare "$R/$f.json" "$R/$f.json" --format json
    expect "$f.json is valid" "$([ $f = fail ] && echo 1 || echo 0)"
done
grep -q '"samples_us"' "$R/base.json" && ok || bad "base.json holds no samples_us"
grep -q '"samples_us"' "$R/old.json" && bad "old.json holds samples_us" || ok

# ---- identical runs: SAME everywhere, exit 0
run compare "$R/base.json" "$R/base.json"
expect "identical" 0
count_lines "identical: all SAME" '^SAME ' 4
has "identical" "4 compared: 0 SLOWER, 0 NOISY, 0 FASTER, 4 SAME"
has "identical" "ok: nothing SLOWER"
[ -z "$err" ] && ok || bad "identical: stderr: $err"

# another run of the same code: SAME, exit 0
run compare "$R/base.json" "$R/same.json"
expect "same code" 0
count_lines "same code: all SAME" '^SAME ' 4

[ -z "$err" ] && ok || bad "same code: stderr: $err"
# ... timed with another flush, or with throttled cells: said on stderr, the verdicts unchanged
python3 -c 'import json,sys
d = json.load(open(sys.argv[1])); d["settings"]["flush"] = "clean"
cell = d["cases"][0]["dtypes"][0]["cells"][0]
cell["clocks"] = {"before": {"sm_clock_mhz": 1980}, "after": {"sm_clock_mhz": 1600}}
json.dump(d, open(sys.argv[2], "w"))' "$R/same.json" "$TMP/same-clean.json"
run compare "$R/base.json" "$TMP/same-clean.json"
expect "another flush" 0 "warning: BASE $R/base.json was timed with --flush write, NEW $TMP/same-clean.json with --flush clean: the differences include the flushes'"
expect "a throttled cell" 0 "warning: 1 cell of $TMP/same-clean.json was throttled (the SM clock fell more than 10%, or a variant's samples stepped more than 5%): its times are not comparable"
count_lines "another flush: all SAME" '^SAME ' 4
# ... timed with another timer: said, the verdicts unchanged
python3 -c 'import json,sys
d = json.load(open(sys.argv[1])); d["settings"]["timer"] = "cupti"
json.dump(d, open(sys.argv[2], "w"))' "$R/same.json" "$TMP/same-cupti.json"
run compare "$R/base.json" "$TMP/same-cupti.json"
expect "another timer" 0 "warning: BASE $R/base.json was timed with --timer events, NEW $TMP/same-cupti.json with --timer cupti: the differences include the timers'"
count_lines "another timer: all SAME" '^SAME ' 4
# ... measured at a power cap (NVML's clock-limit reasons) or with a stepped measurement: said, the verdicts unchanged
python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
cells = d["cases"][0]["dtypes"][0]["cells"]
v = next(iter(cells[0]["variants"].values()))
v["sm_clock_mhz"] = {"min": 1860, "max": 1965, "mean": 1930, "n": 12, "limited_by": ["sw_power_cap"]}
v = next(iter(cells[1]["variants"].values()))
v["step_pct"] = 12.5
json.dump(d, open(sys.argv[2], "w"))' "$R/same.json" "$TMP/same-capped.json"
run compare "$R/base.json" "$TMP/same-capped.json"
expect "a power-capped measurement" 0 "note: 1 of "
expect "a power-capped measurement, named" 0 "measurements of $TMP/same-capped.json ran while a power or thermal limit held the GPU's clock (sm_clock_mhz.limited_by)"
expect "a stepped measurement" 0 "warning: 1 cell of $TMP/same-capped.json was throttled (the SM clock fell more than 10%, or a variant's samples stepped more than 5%)"
count_lines "power-capped: all SAME" '^SAME ' 4
# ... measured with --tf32 on one side only: said, the verdicts unchanged
python3 -c 'import json,sys
d = json.load(open(sys.argv[1])); d["settings"]["tf32"] = True
json.dump(d, open(sys.argv[2], "w"))' "$R/same.json" "$TMP/same-tf32.json"
run compare "$R/base.json" "$TMP/same-tf32.json"
expect "tf32 on one side" 0 "warning: $TMP/same-tf32.json was measured with --tf32, $R/base.json without"
count_lines "tf32 on one side: all SAME" '^SAME ' 4

# ---- NEW +10% with tight samples: SLOWER first, exit 1, one line on stderr
run compare "$R/base.json" "$R/slower.json"
expect "slower" 1 "regression: 2 SLOWER beyond 5%"
count_lines "slower: SLOWER rows" '^SLOWER +softmax +float32 .* softmax\.fused ' 2
count_lines "slower: eager SAME" '^SAME +softmax +float32 .* eager ' 2
first=$(grep -E '^(SLOWER|SAME|NOISY|FASTER|FAIL) ' <<<"$out" | head -1)
[[ "$first" == SLOWER* ]] && ok || bad "slower: regressions are not first: $first"
has "slower" "REGRESSION: 2 SLOWER"
[ "$(wc -l <"$TMP/err")" = 1 ] && ok || bad "slower: stderr is not one line: $err"
# ... and the mirror: BASE against SLOWER is FASTER, exit 0
run compare "$R/slower.json" "$R/base.json"
expect "faster" 0
count_lines "faster" '^FASTER .* softmax\.fused ' 2
# a threshold above the change: SAME, exit 0
run compare "$R/base.json" "$R/slower.json" --threshold 15
expect "threshold 15" 0
count_lines "threshold 15" '^SAME ' 4
run compare "$R/base.json" "$R/slower.json" --threshold=-1
expect "threshold negative" 2 "--threshold"

# ---- a shift inside the noise: NOISY, never SLOWER, exit 0
run compare "$R/base.json" "$R/noisy.json"
expect "noisy" 0
count_lines "noisy: NOISY rows" '^NOISY .* softmax\.fused ' 2
lacks "noisy" "SLOWER  "

# ---- a check failed in NEW: a failure whatever the time, exit 1
run compare "$R/base.json" "$R/fail.json"
expect "fail" 1 "1 check failure in NEW"
count_lines "fail: FAIL row" '^FAIL +softmax +float32 +dim0=128 dim1=256 +softmax\.fused .*check failed in NEW' 1

# ---- devices: refused in one line (exit 2), accepted when allowed
run compare "$R/base.json" "$R/h200.json"
expect "device mismatch" 2 "NVIDIA H100 80GB HBM3 (cc 9.0), NEW results/compare/h200.json on NVIDIA H200 (cc 9.0)"
[ "$(wc -l <"$TMP/err")" = 1 ] && ok || bad "device mismatch: not one line: $err"
[ -z "$out" ] && ok || bad "device mismatch: printed a report: $out"
[[ "$err" == *"--allow-device-mismatch"* ]] && ok || bad "device mismatch: does not name the option: $err"
run compare "$R/base.json" "$R/h200.json" --allow-device-mismatch
expect "device mismatch allowed" 0
has "device mismatch allowed" "the devices differ (NVIDIA H100 80GB HBM3 vs NVIDIA H200)"

# ---- cells in only one file: listed, not a failure
run compare "$R/base.json" "$R/partial.json"
expect "partial" 0
has "partial" "only in BASE: softmax float32 dim0=1024 dim1=4096 (the whole cell)"
has "partial" "only in NEW: softmax float16 (the whole dtype)"
count_lines "partial: compared" '^SAME ' 2

# ---- a variant out of memory in NEW: listed as not compared, not a failure
run compare "$R/base.json" "$R/oom.json"
expect "oom" 0
count_lines "oom" '^UNTIMED +softmax +float32 +dim0=1024 dim1=4096 +softmax\.fused .*not compared: BASE ok, NEW oom' 1
has "oom" "1 not compared (untimed)"

# ---- a one-axis grid: the point is the row alone, no col anywhere
run compare "$R/rows_a.json" "$R/rows_b.json"
expect "one axis" 1 "2 SLOWER"
count_lines "one axis" '^SLOWER +softmax +float32 +dim0=(128|1024) +softmax\.fused ' 2
run compare "$R/rows_a.json" "$R/rows_b.json" --format json
json_check "one axis json" '
assert all(c["cols"] is None and c["col"] is None and c["row"] in (128, 1024) for c in d["comparisons"])
'
run compare "$R/rows_a.json" "$R/rows_b.json" --format bench-json
json_check "one axis bench-json" '
assert sorted(e["name"] for e in d) == ["softmax/float32/dim0=1024/eager", "softmax/float32/dim0=1024/softmax.fused",
                                        "softmax/float32/dim0=128/eager", "softmax/float32/dim0=128/softmax.fused"]
'

# ---- old files (no samples): the p20/p80 rule, and the report says so
run compare "$R/old.json" "$R/same.json"
expect "old" 0
count_lines "old: rule named" '^SAME .*no samples: p20/p80 rule' 4
has "old" "had no timing samples on a side"
run compare "$R/old.json" "$R/slower.json"
expect "old vs slower" 1
count_lines "old vs slower" '^SLOWER .* softmax\.fused .*no samples' 2

# ---- two variants of one run: B against A (A is the base)
run compare "$R/base.json" --variants eager,softmax.fused
expect "variants fused vs eager" 0
count_lines "variants fused vs eager" '^FASTER +softmax +float32 ' 2
has "variants" "A = eager (the base), B = softmax.fused"
run compare "$R/base.json" --variants softmax.fused,eager
expect "variants eager vs fused" 1 "regression: 2 SLOWER"
count_lines "variants eager vs fused" '^SLOWER +softmax ' 2
run compare "$R/fail.json" --variants eager,softmax.fused
expect "variants: B failed" 1 "1 check failure in B"
run compare "$R/base.json" --variants eager,softmax.fusd
expect "variants: unknown" 2 "no variant 'softmax.fusd' in results/compare/base.json (did you mean 'softmax.fused'?)"
run compare "$R/base.json" --variants eager
expect "variants: one" 2 "exactly two"
run compare "$R/base.json" --variants eager,eager
expect "variants: twice" 2
run compare "$R/base.json"
expect "one file, no variants" 2 "--variants A,B"

# ---- filters
run compare "$R/base.json" "$R/slower.json" --variants eager
expect "filter variants" 0
count_lines "filter variants" '^SAME .* eager' 2
lacks "filter variants" "softmax.fused"
run compare "$R/base.json" "$R/slower.json" --case sofmax
expect "filter unknown case" 2 "no case 'sofmax' in BASE or NEW (did you mean 'softmax'?)"
run compare "$R/base.json" "$R/slower.json" --dtype float64
expect "filter absent dtype" 2 "no float64 results"
run compare "$R/base.json" "$R/partial.json" --dtype f16
expect "filter dtype alias: nothing to compare" 2 "nothing to compare"
has "filter dtype alias" "only in NEW: softmax float16 (the whole dtype)"

# ---- usage and bad files
run compare
expect "no files" 2 "give BASE.json NEW.json"
run compare a.json b.json c.json
expect "three files" 2
run compare "$R/base.json" "$R/same.json" --format xml
expect "bad format" 2 "--format"
run compare "$R/base.json" "$R/bad.json"
expect "malformed" 3 "results/compare/bad.json: cases: expected an array, got an object"
run compare "$R/base.json" "$R/no_such.json"
expect "missing file" 3 "results/compare/no_such.json: no such file"
printf '{"fusionbench": ' >"$TMP/trunc.json"
run compare "$R/base.json" "$TMP/trunc.json"
expect "truncated" 3
run compare --help
expect "help" 0
has "help" "usage: fusionbench compare BASE.json NEW.json"

# ---- -o FILE: the report in the file, nothing on stdout; an unwritable path is exit 4
run compare "$R/base.json" "$R/slower.json" -o "$TMP/report.txt"
expect "-o" 1
[ -z "$out" ] && ok || bad "-o: printed on stdout"
grep -q '^SLOWER ' "$TMP/report.txt" && ok || bad "-o: the file lacks the report"
ls "$TMP"/report.txt.tmp.* >/dev/null 2>&1 && bad "-o: left a temporary file" || ok
run compare "$R/base.json" "$R/same.json" --out "$TMP/no/such/dir/r.md"
expect "-o unwritable" 4 "cannot write"

# ---- md: a pull-request comment
run compare "$R/base.json" "$R/slower.json" --format md
expect "md" 1
[[ "$(head -1 <<<"$out")" == "### fusionbench compare: REGRESSION (2 SLOWER, 0 check failures)" ]] && ok ||
    bad "md: title: $(head -1 <<<"$out")"
has "md" "**Regressions**"
has "md" "| SLOWER | softmax | float32 | dim0=128 dim1=256 | softmax.fused |"
has "md" "| SAME | 2 |"
has "md" "<details><summary>All 4 comparisons</summary>"
has "md" "</details>"
reg=$(grep -n '^\*\*Regressions' <<<"$out" | cut -d: -f1)
cnt=$(grep -n '^| verdict | count |' <<<"$out" | cut -d: -f1)
det=$(grep -n '^<details>' <<<"$out" | cut -d: -f1)
[ -n "$reg" ] && [ -n "$cnt" ] && [ -n "$det" ] && [ "$reg" -lt "$cnt" ] && [ "$cnt" -lt "$det" ] && ok ||
    bad "md: not regressions, counts, then the table ($reg, $cnt, $det)"
run compare "$R/base.json" "$R/same.json" --format md
expect "md ok" 0
has "md ok" "### fusionbench compare: no regression"
has "md ok" "**Regressions**: none."

# ---- json: every comparison and a summary
run compare "$R/base.json" "$R/slower.json" --format json
expect "json" 1
json_check "json" '
assert d["mode"] == "files"
s = d["summary"]
assert s["SLOWER"] == 2 and s["SAME"] == 2 and s["FAIL"] == 0 and s["regression"] is True, s
assert len(d["comparisons"]) == 4
c = d["comparisons"][0]
assert c["verdict"] == "SLOWER" and c["new_variant"] == "softmax.fused" and c["method"] == "bootstrap", c
assert 1.05 < c["lo"] < c["ratio"] < c["hi"] < 1.15, c
assert c["n_base"] == 40 and c["n_new"] == 40
assert c["rows"] == "dim0" and c["cols"] == "dim1" and c["dtype"] == "float32"
assert d["base"]["device"] == "NVIDIA H100 80GB HBM3" and d["statistic"]["threshold"] == 0.05
'
run compare "$R/base.json" "$R/partial.json" --format json
json_check "json only" '
o = sorted((x["in"], x["dtype"], x.get("row"), x.get("col")) for x in d["only"])
assert o == [("BASE", "float32", 1024, 4096), ("NEW", "float16", None, None)], o
assert d["summary"]["only_in_base"] == 1 and d["summary"]["only_in_new"] == 1
'
run compare "$R/base.json" --variants eager,softmax.fused --format json
json_check "json variants" '
assert d["mode"] == "variants" and d["variant_a"] == "eager" and d["variant_b"] == "softmax.fused"
assert all(c["verdict"] == "FASTER" and c["base_variant"] == "eager" for c in d["comparisons"])
'
# the bootstrap is seeded: the same report twice
run compare "$R/base.json" "$R/noisy.json" --format json
first_json=$out
run compare "$R/base.json" "$R/noisy.json" --format json
[ "$out" = "$first_json" ] && ok || bad "json: two runs differ"

# ---- bench-json: github-action-benchmark's customSmallerIsBetter list
run compare "$R/base.json" "$R/slower.json" --format bench-json
expect "bench-json" 1
json_check "bench-json" '
assert isinstance(d, list) and len(d) == 4, d
for e in d:
    assert set(e) >= {"name", "unit", "value"}, e
    assert isinstance(e["name"], str) and e["unit"] == "us" and isinstance(e["value"], (int, float)) and e["value"] > 0
    assert isinstance(e.get("range", ""), str) and isinstance(e.get("extra", ""), str)
names = [e["name"] for e in d]
assert len(set(names)) == 4
e = [e for e in d if e["name"] == "softmax/float32/dim0=128,dim1=256/softmax.fused"][0]
assert abs(e["value"] - 8.794) < 0.01 and "SLOWER" in e["extra"], e
'
# a failed measurement has no value to chart
run compare "$R/base.json" "$R/fail.json" --format bench-json
json_check "bench-json fail" '
assert len(d) == 3 and not any(e["name"].endswith("dim0=128,dim1=256/softmax.fused") for e in d)
'

# ---- a case with fixed size symbols (K in {1024, 4096}: one M x N grid per K): cells
# match by K as well as by M and N, so the regression at K=4096 is not mixed with K=1024
F=$R/fixed_base.json
run compare "$F" "$F"
expect "fixed: identical" 0
has "fixed: the fixed column" "fixed"
count_lines "fixed: every item is SAME" "^SAME " 14
count_lines "fixed: K=1024 items" "^SAME +mm +float32 +K=1024 " 8
count_lines "fixed: K=4096 items" "^SAME +mm +float32 +K=4096 " 6
run compare "$F" "$R/fixed_slower.json"
expect "fixed: slower at K=4096" 1 "SLOWER"
count_lines "fixed: one SLOWER" "^SLOWER +mm " 1
count_lines "fixed: the SLOWER is at K=4096 M=128 N=64" "^SLOWER +mm +float32 +K=4096 +M=128 N=64 +mm\.fused " 1
count_lines "fixed: K=1024 M=128 N=64 mm.fused is SAME" "^SAME +mm +float32 +K=1024 +M=128 N=64 +mm\.fused " 1
has "fixed: only in NEW names its K" "only in NEW: mm float32 K=4096 M=256 N=128 (the whole cell)"
lacks "fixed: no only-in at K=1024" "K=1024 M=256 N=128 (the whole cell)"
run compare "$F" "$R/fixed_slower.json" --format json
json_check "fixed: json" '
slow = [c for c in d["comparisons"] if c["verdict"] == "SLOWER"]
assert len(slow) == 1 and slow[0]["fixed"] == "K=4096" and (slow[0]["row"], slow[0]["col"]) == (128, 64), slow
assert all("fixed" in c for c in d["comparisons"])
assert d["only"] == [{"in": "NEW", "case": "mm", "dtype": "float32", "row": 256, "col": 128, "fixed": "K=4096", "variant": None}], d["only"]
'
run compare "$F" "$R/fixed_slower.json" --format bench-json
json_check "fixed: bench-json one series per K" '
names = [e["name"] for e in d]
assert len(set(names)) == len(names) == 16, names
assert "mm/float32/M=128,N=64,K=4096/mm.fused" in names and "mm/float32/M=128,N=64,K=1024/mm.fused" in names
'
run compare "$F" "$R/fixed_slower.json" --format md
expect "fixed: md" 1
has "fixed: md regression row names K" "| SLOWER | mm | float32 | K=4096 | M=128 N=64 | mm.fused |"
# two variants of one run: each grid on its own
run compare "$F" --variants eager,mm.fused
count_lines "fixed: variants, K=4096's own ratio" "^FASTER +mm +float32 +K=4096 +M=128 N=64 +64\.00 +40\.00 +0\.625 " 1
count_lines "fixed: variants, K=1024's own ratio" "^FASTER +mm +float32 +K=1024 +M=128 N=64 +16\.00 +5\.00 +0\.312 " 1
# reports without such a case keep their columns
run compare "$R/base.json" "$R/slower.json"
lacks "no fixed column" "fixed"

# ---- --paired: the pairs' ratios t_variant / t_floor, not the times (make_fixtures.py's paired_*)
for f in paired_base paired_slowcard paired_costlier; do
    run compare "$R/$f.json" "$R/$f.json" --format json
    expect "$f.json is valid" 0
done
# the card 12% slower everywhere: every time SLOWER, the pairs' ratios SAME
run compare "$R/paired_base.json" "$R/paired_slowcard.json"
expect "slow card, by time" 1
count_lines "slow card, by time: all SLOWER" '^SLOWER +softmax ' 4
run compare "$R/paired_base.json" "$R/paired_slowcard.json" --paired
expect "slow card, paired" 0
count_lines "slow card, paired: the fused variant SAME" '^SAME +softmax +float32 .* softmax\.fused ' 2
count_lines "slow card, paired: eager not timed in pairs" '^UNTIMED .*not timed in pairs on both sides' 2
has "slow card, paired: the legend says what is held" "paired: each variant's pairs' ratio t_variant / t_floor"
has "slow card, paired: the columns are ratios" "BASE t/floor  NEW t/floor"
# the fusion no longer free: its pairs' ratios 7% higher
run compare "$R/paired_base.json" "$R/paired_costlier.json" --paired
expect "costlier fusion, paired" 1
count_lines "costlier fusion, paired: SLOWER" '^SLOWER +softmax .* softmax\.fused +1\.01[0-9]+ +1\.08[0-9]+ +1\.07' 2
run compare "$R/paired_base.json" "$R/paired_slowcard.json" --paired --format json
json_check "paired json" '
assert d["measure"] == "paired_ratio", d["measure"]
c = [x for x in d["comparisons"] if x["kind"] == "compared"]
assert len(c) == 2 and all(x["method"] == "bootstrap" and "base_paired_ratio" in x and "base_median_us" not in x for x in c), c
'
run compare "$R/base.json" "$R/slower.json" --format json
json_check "times json says its measure" 'assert d["measure"] == "time"'
# files without pairs: nothing compared is not a pass
run compare "$R/base.json" "$R/same.json" --paired
expect "paired, no pairs" 2 "nothing to compare in pairs: no variant was timed in pairs on both sides"
run compare "$R/paired_base.json" "$R/paired_slowcard.json" --paired --format bench-json
expect "paired bench-json" 2 "--format bench-json charts NEW's times; --paired compares ratios: give one"

echo "compare: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
