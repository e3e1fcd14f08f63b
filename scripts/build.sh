#!/usr/bin/env bash
# Configures and builds one flavour of the project (Ninja, all cores):
#   release  build/release  gcc, Release, warnings as errors
#   asan     build/asan     clang-14, RelWithDebInfo, ASan + UBSan, with the libFuzzer
#                           targets (tests/fuzz) built in the same tree
#   fuzz     build/asan     as asan, but builds only the fuzzers (target lsrl_fuzzers)
# Extra arguments after the flavour go to cmake's configure step (-DFOO=BAR).
# Env: JOBS (default: nproc), LSRL_COMPONENTS (the optional-component switches below).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Optional components; flip them here (or in the env). The Python module is built against
# Debian's /usr/bin/python3 (it has numpy), and left out of the sanitizer build.
LSRL_COMPONENTS=${LSRL_COMPONENTS:-"-DLSRL_WITH_GUI=ON -DLSRL_WITH_VULKAN=ON -DLSRL_WITH_PYTHON=ON -DPython_EXECUTABLE=/usr/bin/python3"}
JOBS=${JOBS:-$(nproc)}

flavour=${1:-release}
shift || true
target=()
gui_off=()
case "$flavour" in
  release)
    dir=build/release
    compilers=(CC=gcc CXX=g++)
    options=(-DCMAKE_BUILD_TYPE=Release -DLSRL_WERROR=ON)
    ;;
  asan | fuzz)
    dir=build/asan
    compilers=(CC=clang-14 CXX=clang++-14)
    # The sanitizer build covers core, CLI and layout; the GUI is tested in release
    # (LeakSanitizer flags leaks inside Qt's platform and D-Bus libraries).
    # Line tables are all a sanitizer report needs (file:line in every frame); full
    # debug info only costs compile time here.
    options=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -gline-tables-only -DNDEBUG"
             -DLSRL_SANITIZE=ON -DLSRL_FUZZ=ON -DLSRL_WITH_BENCH=OFF)
    gui_off=(-DLSRL_WITH_GUI=OFF)
    [[ $flavour == fuzz ]] && target=(--target lsrl_fuzzers)
    ;;
  *)
    echo "usage: scripts/build.sh [release|asan|fuzz] [cmake -D options...]" >&2
    exit 2
    ;;
esac

# shellcheck disable=SC2206  # LSRL_COMPONENTS is a space-separated list of -D flags
components=($LSRL_COMPONENTS)
echo "build: configuring $dir ($flavour)"
env "${compilers[@]}" cmake -S . -B "$dir" -G Ninja "${options[@]}" "${components[@]}" "${gui_off[@]}" "$@"
echo "build: building $dir with $JOBS jobs"
cmake --build "$dir" -j "$JOBS" "${target[@]}"
