#!/usr/bin/env bash
# scripts/check-layers.sh must refuse a deliberate bad include of each kind it checks and
# pass a tree without one (and this repository).
# usage: check_layers_test.sh REPO
set -uo pipefail
repo=$1
check="$repo/scripts/check-layers.sh"
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
failures=0

# A small tree that keeps every rule: a studio folder including one below it, and a core
# file including its own folder's header relatively (no "../").
mkdir -p "$tree/app/studio/plots" "$tree/app/studio/window" "$tree/core/io" "$tree/core/executor"
echo '#include "app/studio/common/palette_mime.h"' >"$tree/app/studio/plots/chart.cpp"
echo '#include "app/studio/plots/chart.h"' >"$tree/app/studio/window/main_window.cpp"
echo '#include "graph_file.h"' >"$tree/core/io/graph_file.cpp"

expect() {  # expect WANTED_RC TEXT_IN_OUTPUT WHAT
  local out rc
  out=$(bash "$check" "$tree" 2>&1)
  rc=$?
  if [[ $rc != "$1" || $out != *"$2"* ]]; then
    echo "FAIL: $3: exit $rc, output:"
    echo "$out"
    failures=$((failures + 1))
  else
    echo "ok: $3"
  fi
}

expect 0 "" "a tree that keeps the rules passes"

echo '#include "app/studio/window/main_window.h"' >"$tree/app/studio/plots/upward.cpp"
expect 1 'app/studio/plots/upward.cpp:1:#include "app/studio/window/main_window.h"' \
  "a studio folder including one above it is refused"
rm "$tree/app/studio/plots/upward.cpp"

echo '  #include "../executor/plan.h"' >"$tree/core/io/climb.cpp"
expect 1 'core/io/climb.cpp:1:  #include "../executor/plan.h"' \
  "a relative include out of a core folder is refused"
rm "$tree/core/io/climb.cpp"

mkdir -p "$tree/tests/io"
echo '#include "../../app/studio/window/main_window.h"' >"$tree/tests/io/climb_test.cpp"
expect 1 'tests/io/climb_test.cpp:1:' "a relative include out of a test folder is refused"
rm "$tree/tests/io/climb_test.cpp"

expect 0 "" "the tree passes again once the bad includes are gone"

if ! out=$(bash "$check" "$repo" 2>&1); then
  echo "FAIL: this repository breaks a rule:"
  echo "$out"
  failures=$((failures + 1))
fi
exit $((failures > 0))
