#!/usr/bin/env bash
# setup.sh — install what fusionbench needs (if missing), configure and build.
# Safe to run again: it installs nothing that is there and reconfigures only
# when needed. Usage: bash scripts/setup.sh [BUILD_DIR [MESON_OPTION ...]]
# (default: build), e.g. the sanitizer build scripts/test.sh makes:
#   bash scripts/setup.sh build-asan -Db_sanitize=address,undefined
set -euo pipefail
cd "$(dirname "$0")/.."
builddir="${1:-build}"
shift || true

need=()
command -v meson >/dev/null 2>&1 || need+=(meson)
command -v ninja >/dev/null 2>&1 || need+=(ninja-build)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
if ! pkg-config --exists jansson 2>/dev/null; then need+=(libjansson-dev); fi
if [ ${#need[@]} -gt 0 ]; then
    echo "setup: installing ${need[*]}" >&2
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi

# The CUDA toolkit: on PATH, or in its usual place.
if ! command -v nvcc >/dev/null 2>&1; then
    for d in /usr/local/cuda/bin /usr/local/cuda-13.0/bin /usr/local/cuda-12/bin; do
        if [ -x "$d/nvcc" ]; then export PATH="$d:$PATH"; break; fi
    done
fi
command -v nvcc >/dev/null 2>&1 || { echo "setup: nvcc not found: install the CUDA toolkit (12 or newer)" >&2; exit 1; }

# A sanitizer build needs the host compiler's libasan/libubsan (gcc's own libgcc-N-dev
# brings them; a minimal image may lack them).
if [[ " $* " == *" -Db_sanitize="* ]]; then
    probe() { echo 'int main(void){return 0;}' | cc -fsanitize=address,undefined -x c - -o /dev/null 2>/dev/null; }
    if ! probe; then
        pkg="libgcc-$(cc -dumpversion | cut -d. -f1)-dev"
        echo "setup: installing $pkg (AddressSanitizer, UndefinedBehaviorSanitizer)" >&2
        sudo=""
        [ "$(id -u)" -ne 0 ] && sudo="sudo"
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$pkg" >/dev/null
        probe || { echo "setup: cc cannot link -fsanitize=address,undefined" >&2; exit 1; }
    fi
fi

if [ -f "$builddir/build.ninja" ]; then
    meson setup --reconfigure "$builddir" "$@" >/dev/null
else
    meson setup "$builddir" "$@" >/dev/null
fi
# Meson (1.0) writes no depfile rule for nvcc, so ninja does not know which headers a .cu
# object includes: a change to kernels/*.cuh alone would leave stale kernels in the binary
# (it happened: a fixed rowengine.cuh never reached double_softmax.cu.o). When any header is
# newer than the oldest CUDA object, drop the CUDA objects so ninja recompiles them.
objdir="$builddir/libfbcore.a.p"
oldest=$(ls -tr "$objdir"/kernels_*.o 2>/dev/null | head -1 || true)
if [ -n "$oldest" ] && [ -n "$(find kernels src \( -name '*.cuh' -o -name '*.h' \) -newer "$oldest" -print -quit)" ]; then
    echo "setup: a header changed since the CUDA objects were built: recompiling the kernels" >&2
    rm -f "$objdir"/kernels_*.o
fi
ninja -C "$builddir" >/dev/null
echo "setup: built $builddir/fusionbench" >&2
