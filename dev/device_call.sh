# dev/device_call.sh — helpers for a script that runs on a lent device machine (the library's
# `run` tool): `. dev/device_call.sh` at its top, after `cd` to the repository root.
#
#   $R                 the call's work directory, outside $OUT (default /tmp/r): every step
#                      writes its files there, never loose under $OUT
#   step NAME CMD...   runs CMD with its stdout and stderr in $R/NAME.txt, appends
#                      "NAME rc=.. in .. s" to $R/steps.txt (and prints it), then refreshes
#                      $OUT/r.tar.xz, so the archive always holds every finished step; returns
#                      CMD's exit status
#   snap               refreshes $OUT/r.tar.xz by hand (after writing into $R outside a step)
#
# Why: a call cut at its time limit, or when the session's device time runs out, never runs an
# exit trap, and of loose files under $OUT only a few come back. Stop 28's call 4 lost a torch
# peer that had finished minutes before the cut (kernels/NOTES.md, "Stop 28").
#
# Room: a call carries the tracked tree (60.5 MB at stop 34, 58.9 MB after stop 35: most of it results/) plus what
# `carry` names, 64 MiB in all: one stripped, xz-compressed fusionbench (~4.5 MB) fits, two do not
# (a call with three was refused in stop 34). Compare two binaries in one call only after moving
# untracked results aside; else time the other binary in the next call.
# At stop 35 one binary (4.6 MB) left 0.6 MB of the 64 MiB, until results/h100's selftest and
# sanitizer logs of more than 100 KB went to .txt.xz (the same bytes, 3 MB less): ~3.6 MB to spare.
# After stop 36's results the tree is 60.5 MB: one binary leaves ~2 MB. At stop 37 a 62.1 MB tree
# and a 4.7 MB binary were refused; 2.1 MB of older results/h100 JSON went to .json.xz (60.8 MB):
# commit a stop's tarballs after its last call, and xz the binary with -9 (4.6 MB). Two binaries
# to compare: run them in back-to-back calls on the warm machine (stop 37 calls 1-2), or use a
# dev knob in one binary. Side-by-side grids: `nvidia-h200-x4`, a lane a GPU (four cases in about
# 300 s of one call's device time). Build a call's binary with dev/devbin.sh NAME [PATCH ...]:
# HEAD plus the dev patches in a throwaway worktree, built by scripts/setup.sh, never `ninja`
# alone (a .cuh change does not rebuild the .cu objects: stop 36's call 3 timed a binary without
# its knob), every FB_DEV_* knob of the patches checked with `strings`, .devbin/NAME.xz written.
# To time the row engine's kernels on other launch shapes: dev/row_plan_knob.patch (FB_DEV_PLAN,
# FB_DEV_PLAN_W; stop 39).
# A warm machine keeps /tmp between calls, so $R is emptied here: stop 34's call 5 found call 4's
# files in it and sent them back again.
R=${R:-/tmp/r}
rm -rf "$R"
mkdir -p "$R"
snap() {
    # write aside, then rename: a cut during tar leaves the previous archive whole; the part file
    # is the shell's own, so a background `while sleep N; do snap; done` cannot collide with a step's
    local part="$OUT/r.tar.xz.part.$BASHPID"
    tar cJf "$part" -C "$(dirname "$R")" "$(basename "$R")" && mv -f "$part" "$OUT/r.tar.xz"
}
step() {
    local name=$1 t0 rc
    shift
    t0=$(date +%s)
    "$@" > "$R/$name.txt" 2>&1
    rc=$?
    echo "$name rc=$rc in $(($(date +%s) - t0)) s" | tee -a "$R/steps.txt"
    snap
    return $rc
}
