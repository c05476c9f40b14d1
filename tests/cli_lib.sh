# cli_lib.sh — the assertions the command-line tests share (test_cli.sh, test_export.sh,
# test_compare.sh source it). The caller sets FB (the binary), TMP (a scratch directory),
# passed=0 and failed=0.

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
