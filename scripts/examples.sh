#!/usr/bin/env bash
# Regenerates the example graphs in examples/ (with their stored dot layouts) from the
# program builders: more_ones, vec2vec n=2 m=1 and tok2tok L=3 in every conditional
# variant. tests/layout/examples_test.cpp fails when a file here is stale.
#   scripts/examples.sh            uses build/release/app/cli/lsrl (built if missing)
# Env: LSRL (path of the lsrl binary to use).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

lsrl=${LSRL:-build/release/app/cli/lsrl}
if [[ ! -x $lsrl ]]; then
  bash scripts/build.sh release
fi

variants=(direct optimized step_optimized multiplicative multiplicative_optimized)

"$lsrl" program more_ones -o examples/more_ones.json --layout
for variant in "${variants[@]}"; do
  "$lsrl" program vec2vec --set n=2 --set m=1 --set conditional="$variant" \
    -o "examples/vec2vec_n2_m1_${variant}.json" --layout
  "$lsrl" program tok2tok --set L=3 --set conditional="$variant" \
    -o "examples/tok2tok_L3_${variant}.json" --layout
done
