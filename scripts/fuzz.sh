#!/usr/bin/env bash
# Runs every libFuzzer target built in build/asan (scripts/build.sh asan|fuzz) for a
# bounded time and fails on any finding (crash, sanitizer report, uncaught
# exception, timeout, out-of-memory).
#   FUZZ_SECONDS  total time, split evenly across the targets (default 60)
#   FUZZ_DIR      build tree holding tests/fuzz/fuzz_* (default build/asan)
# Each target starts from a copy of tests/fuzz/corpus/<target>/ in a temporary folder
# (the repository is never modified) and uses tests/fuzz/<target>.dict if present.
# Findings are copied to $FUZZ_DIR/fuzz-findings/<target>/; add a reproducer to the
# seed corpus once fixed so ctest keeps checking it. Logs: $FUZZ_DIR/fuzz-logs/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_DIR=${FUZZ_DIR:-build/asan}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
if [[ -z ${ASAN_SYMBOLIZER_PATH:-} && -x /usr/lib/llvm-14/bin/llvm-symbolizer ]]; then
  export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-14/bin/llvm-symbolizer
fi

targets=()
for bin in "$FUZZ_DIR"/tests/fuzz/fuzz_*; do
  [[ -f $bin && -x $bin ]] && targets+=("$(basename "$bin")")
done
if ((${#targets[@]} == 0)); then
  echo "fuzz: error: no fuzz targets in $FUZZ_DIR/tests/fuzz (run scripts/build.sh asan)" >&2
  exit 1
fi

per_target=$((FUZZ_SECONDS / ${#targets[@]}))
((per_target >= 1)) || per_target=1
work=$(mktemp -d "${TMPDIR:-/tmp}/lsrl-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$FUZZ_DIR/fuzz-logs"

failed=()
for t in "${targets[@]}"; do
  corpus=$work/$t/corpus
  artifacts=$work/$t/findings
  mkdir -p "$corpus" "$artifacts"
  if [[ -d tests/fuzz/corpus/$t ]]; then
    cp -R "tests/fuzz/corpus/$t/." "$corpus/"
  fi
  args=(-max_total_time="$per_target" -timeout=20 -rss_limit_mb=2048
        -print_final_stats=1 -artifact_prefix="$artifacts/")
  [[ -f tests/fuzz/$t.dict ]] && args+=(-dict="tests/fuzz/$t.dict")
  log=$FUZZ_DIR/fuzz-logs/$t.log
  echo "fuzz: $t for ${per_target} s (seeds: $(find "$corpus" -type f | wc -l))"
  rc=0
  # The outer timeout only guards against a fuzzer that ignores -max_total_time.
  timeout --kill-after=10 $((per_target + 120)) \
    "$FUZZ_DIR/tests/fuzz/$t" "${args[@]}" "$corpus" </dev/null >"$log" 2>&1 || rc=$?
  findings=$(find "$artifacts" -type f | wc -l)
  if ((rc != 0 || findings > 0)); then
    failed+=("$t")
    echo "fuzz: $t FAILED (exit $rc, $findings finding(s)); last lines of $log:"
    tail -n 60 "$log" | sed 's/^/    /'
    if ((findings > 0)); then
      mkdir -p "$FUZZ_DIR/fuzz-findings/$t"
      cp "$artifacts"/* "$FUZZ_DIR/fuzz-findings/$t/"
      for f in "$FUZZ_DIR/fuzz-findings/$t"/*; do
        echo "fuzz: reproduce with: $FUZZ_DIR/tests/fuzz/$t $f"
      done
    fi
  else
    stats=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}' || true)
    echo "fuzz: $t ok (${stats:-?} runs, corpus $(find "$corpus" -type f | wc -l) files)"
  fi
done

if ((${#failed[@]} > 0)); then
  echo "fuzz: ${#failed[@]} of ${#targets[@]} target(s) failed: ${failed[*]}"
  exit 1
fi
echo "fuzz: all ${#targets[@]} target(s) ran ${per_target} s each without findings"
