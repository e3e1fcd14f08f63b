#!/usr/bin/env bash
# The README's first command: installs what is missing, builds the release tree and
# runs the CLI on a bundled example, printing its output. (Until the Qt explorer
# exists, this is what "launch the explorer on an example" means.)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# The bundled example: a graph file and a token-input file under examples/.
EXAMPLE_GRAPH=${EXAMPLE_GRAPH:-examples/tok2tok_L3_direct.json}
EXAMPLE_INPUT=${EXAMPLE_INPUT:-examples/tok2tok_input.json}
# Used only while the example files above do not exist yet.
FALLBACK_PROGRAM=more_ones

bash scripts/setup.sh
bash scripts/build.sh release
lsrl=build/release/app/cli/lsrl

echo
if [[ -f $EXAMPLE_GRAPH && -f $EXAMPLE_INPUT ]]; then
  echo "\$ lsrl info $EXAMPLE_GRAPH"
  "$lsrl" info "$EXAMPLE_GRAPH"
  echo "\$ lsrl run $EXAMPLE_GRAPH --input $EXAMPLE_INPUT"
  "$lsrl" run "$EXAMPLE_GRAPH" --input "$EXAMPLE_INPUT"
else
  echo "run: $EXAMPLE_GRAPH or $EXAMPLE_INPUT is missing; building '$FALLBACK_PROGRAM' instead"
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/lsrl-run.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  echo "\$ lsrl program $FALLBACK_PROGRAM -o $tmp/$FALLBACK_PROGRAM.json"
  "$lsrl" program "$FALLBACK_PROGRAM" -o "$tmp/$FALLBACK_PROGRAM.json"
  echo "\$ lsrl info $tmp/$FALLBACK_PROGRAM.json"
  "$lsrl" info "$tmp/$FALLBACK_PROGRAM.json"
  echo "\$ lsrl check $tmp/$FALLBACK_PROGRAM.json"
  "$lsrl" check "$tmp/$FALLBACK_PROGRAM.json"
fi
