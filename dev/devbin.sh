#!/usr/bin/env bash
# devbin.sh NAME [PATCH ...] — a device call's binary: HEAD, plus the dev patches named, built in a
# throwaway git worktree with scripts/setup.sh, stripped and xz -9'd into .devbin/NAME.xz (what a
# call script unpacks: `xz -dc .devbin/NAME.xz > /tmp/fb`). Every FB_DEV_* knob a patch adds is
# looked for in the binary (`strings`): a build that lost its knob fails here, not on the device
# (stop 36's call 3 timed a binary without its knob).
#
#   bash dev/devbin.sh fb46                               HEAD as committed
#   bash dev/devbin.sh fb46w dev/param_window_knob.patch  HEAD + a knob
#
# Why a worktree: the working tree stays as it is (uncommitted work included), and the build is
# scripts/setup.sh's from scratch, never `ninja` alone (a .cuh change does not rebuild the .cu
# objects that include it). One binary of ~4.7 MB fits a call beside the tree (dev/device_call.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: bash dev/devbin.sh NAME [PATCH ...]" >&2; exit 2; }
name=$1
shift
for p in "$@"; do [ -f "$p" ] || { echo "devbin: no patch $p" >&2; exit 2; }; done
root=$PWD
wt=$(mktemp -d /tmp/devbin-"$name".XXXXXX)
cleanup() { git -C "$root" worktree remove --force "$wt" >/dev/null 2>&1 || rm -rf "$wt"; }
trap cleanup EXIT
git worktree add -q --detach "$wt" HEAD
for p in "$@"; do git -C "$wt" apply "$root/$p"; done
(cd "$wt" && bash scripts/setup.sh build > "$wt/devbin-build.log" 2>&1) || {
    tail -20 "$wt/devbin-build.log" >&2
    echo "devbin: the build failed" >&2
    exit 1
}
bin="$wt/build/fusionbench"
for knob in $(cat "$@" /dev/null | grep -o 'FB_DEV_[A-Z0-9_]*' | sort -u); do
    # grep reads all of strings' output (-q would close the pipe early: SIGPIPE under pipefail)
    strings "$bin" | grep -F "$knob" > /dev/null || { echo "devbin: $knob is not in the binary" >&2; exit 1; }
done
mkdir -p .devbin
strip -o "$wt/fb.stripped" "$bin"
xz -T4 -9 -c "$wt/fb.stripped" > ".devbin/$name.xz"
echo "devbin: .devbin/$name.xz ($(du -h ".devbin/$name.xz" | cut -f1)) from $(git rev-parse --short HEAD)${*:+ + $*}"
