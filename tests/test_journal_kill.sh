#!/bin/bash
# test_journal_kill.sh — a run killed between cells loses no finished cell, and
# --resume finishes it measuring only what is missing (the journal, src/journal.h).
#
# journal_writer drives run's grid loop through the same calls cmd_run makes, on
# the CPU (no GPU here). Each round it is SIGKILLed at a random point: after a
# random number of cells it has reported as written (a reported cell's line was
# fsync'ed), or at a random moment. After every kill the document rebuilt from
# the result file and its journal must hold every cell reported so far, each as
# it was measured; no cell may be measured twice over the rounds; a last
# uninterrupted resume completes the grid and removes the journal.
#
# usage: test_journal_kill.sh PATH/TO/journal_writer   (run from tests/)
W=${1:?usage: test_journal_kill.sh PATH/TO/journal_writer}
cd "$(dirname "$0")" || exit 1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
OUT=$TMP/r.json
ROWS=6
COLS=8
CELLS=$((ROWS * COLS))
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() {
    failed=$((failed + 1))
    echo "FAIL: $*" >&2
}
seed=${FB_KILL_SEED:-$$}
RANDOM=$seed
echo "journal kill: seed $seed (FB_KILL_SEED=$seed reproduces the kill points)"

# lines of $1 not in $2
missing() { sort -u "$1" >"$TMP/a"; sort -u "$2" >"$TMP/b"; comm -23 "$TMP/a" "$TMP/b"; }

: >"$TMP/acked"
for round in 1 2 3 4 5 6; do
    resume=()
    [ "$round" -gt 1 ] && resume=(--resume)
    "$W" run "$OUT" $ROWS $COLS "${resume[@]}" --sleep-ms 10 >"$TMP/acked.$round" 2>"$TMP/err.$round" &
    pid=$!
    if [ $((round % 2)) -eq 1 ]; then
        # after K reported cells
        k=$((RANDOM % 6 + 1))
        for _ in $(seq 3000); do
            [ "$(wc -l <"$TMP/acked.$round")" -ge "$k" ] && break
            kill -0 $pid 2>/dev/null || break
            sleep 0.01
        done
        how="after $k reported cells"
    else
        # at a random moment: while starting, between cells or in the middle of one
        # (starting takes ~0.1 s, loading the CUDA libraries; 48 cells take ~0.5 s more)
        ms=$((RANDOM % 500))
        sleep "$(printf '0.%03d' "$ms")"
        how="after ${ms} ms"
    fi
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    cat "$TMP/acked.$round" >>"$TMP/acked"
    if ! "$W" check "$OUT" $ROWS $COLS >"$TMP/have" 2>"$TMP/check_err"; then
        bad "round $round (killed $how): the rebuilt document is wrong: $(cat "$TMP/check_err")"
        continue
    fi
    lost=$(missing "$TMP/acked" "$TMP/have")
    [ -z "$lost" ] && ok || bad "round $round (killed $how): cells reported written but lost: $lost"
    twice=$(sort "$TMP/acked" | uniq -d)
    [ -z "$twice" ] && ok || bad "round $round (killed $how): cells measured twice: $twice"
    echo "round $round: killed $how; $(wc -l <"$TMP/acked.$round") cells reported, $(wc -l <"$TMP/have") held"
done

# the last resume runs to the end
"$W" run "$OUT" $ROWS $COLS --resume >"$TMP/acked.last" 2>"$TMP/err.last"
rc=$?
[ $rc -eq 0 ] && ok || bad "last resume: exit $rc: $(cat "$TMP/err.last")"
cat "$TMP/acked.last" >>"$TMP/acked"
[ ! -e "$OUT.journal" ] && ok || bad "last resume: the journal is still there"
"$W" check "$OUT" $ROWS $COLS >"$TMP/have" 2>"$TMP/check_err" && ok || bad "final document: $(cat "$TMP/check_err")"
[ "$(sort -u "$TMP/have" | wc -l)" -eq $CELLS ] && [ "$(wc -l <"$TMP/have")" -eq $CELLS ] && ok ||
    bad "final document: $(wc -l <"$TMP/have") cells, want each of $CELLS once"
twice=$(sort "$TMP/acked" | uniq -d)
[ -z "$twice" ] && ok || bad "cells measured twice: $twice"
# every cell measured at most once; one in flight at each kill may be measured but not reported
n_acked=$(wc -l <"$TMP/acked")
[ "$n_acked" -le $CELLS ] && [ "$n_acked" -ge $((CELLS - 6)) ] && ok ||
    bad "$n_acked cells reported over the rounds, want $((CELLS - 6))..$CELLS"

echo "journal kill: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
