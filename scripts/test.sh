#!/usr/bin/env bash
# The project's test command (README): installs what is missing, checks formatting,
# builds and tests the gcc release build, builds and tests the clang-14 ASan+UBSan
# build, then fuzzes each libFuzzer target for a bounded time. Every stage runs even
# if an earlier independent one failed; the exit code is non-zero if any failed.
#   FUZZ_SECONDS     total fuzzing time across targets (default 60; 0 skips fuzzing)
#   CTEST_TIMEOUT    per-test timeout in seconds (default 600)
#   LSRL_SKIP_ASAN=1 only the format check and the release build and tests
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

export FUZZ_SECONDS=${FUZZ_SECONDS:-60}
# The Vulkan tests run on Mesa's lavapipe here: they must not pass by skipping.
export LSRL_REQUIRE_VULKAN=${LSRL_REQUIRE_VULKAN:-1}
# Scan-schedule calibrations (core/gpu/scan_calibration.h) the CLI tests make stay in
# the build tree, not in the user's cache.
export LSRL_CACHE_DIR=${LSRL_CACHE_DIR:-$PWD/build/test-cache}
CTEST_TIMEOUT=${CTEST_TIMEOUT:-600}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Leaks inside Graphviz's own libraries (scripts/lsan.supp says why) are not ours.
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/scripts/lsan.supp:print_suppressions=0}
if [[ -z ${ASAN_SYMBOLIZER_PATH:-} && -x /usr/lib/llvm-14/bin/llvm-symbolizer ]]; then
  export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-14/bin/llvm-symbolizer
fi

summary=()        # one line per stage
failed_stages=0
tests_passed=0    # ctest tests + fuzz targets, over every stage
tests_failed=0
start_all=$SECONDS

# run_stage NAME COMMAND... : runs the command, prints and records its time and result.
run_stage() {
  local name=$1
  shift
  echo
  echo "=== [stage] $name: $*"
  local t0=$SECONDS rc=0 failed_before=$tests_failed
  "$@" || rc=$?
  local dt=$((SECONDS - t0)) result=ok
  if ((rc != 0)); then
    result="FAILED (exit $rc)"
    failed_stages=$((failed_stages + 1))
    # A failed stage that reported no failing test (format, a build) counts as one.
    ((tests_failed > failed_before)) || tests_failed=$((tests_failed + 1))
  fi
  echo "[stage] $name: $dt s, $result"
  summary+=("$(printf '  %-14s %5d s  %s' "$name" "$dt" "$result")")
  return $rc
}

skip_stage() {
  echo
  echo "[stage] $1: skipped ($2)"
  summary+=("$(printf '  %-14s %5s    %s' "$1" "-" "skipped: $2")")
}

# ctest_in DIR : ctest with output on failure; adds its counts to the totals.
ctest_in() {
  local dir=$1 rc=0 log
  log=$dir/ctest.log
  (cd "$dir" && ctest --output-on-failure -j2 --no-tests=error --timeout "$CTEST_TIMEOUT") \
    2>&1 | tee "$log" || rc=$?
  local line
  line=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -n 1)
  if [[ $line =~ ([0-9]+)\ tests?\ failed\ out\ of\ ([0-9]+) ]]; then
    tests_failed=$((tests_failed + BASH_REMATCH[1]))
    tests_passed=$((tests_passed + BASH_REMATCH[2] - BASH_REMATCH[1]))
  fi
  return $rc
}

fuzz_all() {
  local rc=0 log=build/asan/fuzz.log
  bash scripts/fuzz.sh 2>&1 | tee "$log" || rc=$?
  tests_passed=$((tests_passed + $(grep -cE '^fuzz: fuzz_[a-z_0-9]+ ok ' "$log")))
  tests_failed=$((tests_failed + $(grep -cE '^fuzz: fuzz_[a-z_0-9]+ FAILED ' "$log")))
  return $rc
}

if ! run_stage setup bash scripts/setup.sh; then
  echo "test: setup failed; nothing else can run" >&2
  exit 1
fi

run_stage format bash scripts/format.sh

if run_stage release-build bash scripts/build.sh release; then
  run_stage release-test ctest_in build/release
else
  skip_stage release-test "release build failed"
fi

if [[ ${LSRL_SKIP_ASAN:-0} == 1 ]]; then
  skip_stage asan-build "LSRL_SKIP_ASAN=1"
elif run_stage asan-build bash scripts/build.sh asan; then
  run_stage asan-test ctest_in build/asan
  if ((FUZZ_SECONDS > 0)); then
    run_stage fuzz fuzz_all
  else
    skip_stage fuzz "FUZZ_SECONDS=0"
  fi
else
  skip_stage asan-test "asan build failed"
  skip_stage fuzz "asan build failed"
fi

echo
echo "=== summary ($((SECONDS - start_all)) s in all)"
printf '%s\n' "${summary[@]}"
if ((failed_stages > 0)); then
  echo "test: $failed_stages stage(s) FAILED"
else
  echo "test: every stage passed"
fi
# Plain closing line: ctest tests of both builds plus fuzz targets (a failed stage
# that ran no test, such as a build, counts as one failure).
echo "tests: $tests_passed passed, $tests_failed failed"
((failed_stages == 0))
