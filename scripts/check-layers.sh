#!/usr/bin/env bash
# The include rules the compiler cannot enforce (docs/architecture.md):
#  - no `#include "../…"` in core/, app/ or tests/: a relative include resolves beside the
#    including file, past the include roots that keep each layer to the layers below it;
#  - app/studio's folder levels: a folder includes only folders on lower levels.
# Lists every include that breaks a rule and exits 1 if there is one.
# usage: check-layers.sh [ROOT]   (ROOT: a source tree, by default this repository)
set -euo pipefail
root=${1:-"$(dirname "${BASH_SOURCE[0]}")/.."}
cd "$root"

bad=0
report() {
  echo "$1"
  bad=1
}

# Relative includes that climb out of the including file's folder.
for top in core app tests; do
  [[ -d $top ]] || continue
  while IFS= read -r hit; do
    report "$hit"
  done < <(grep -rnE --include='*.h' --include='*.hpp' --include='*.cpp' --include='*.cxx' \
             '^[[:space:]]*#[[:space:]]*include[[:space:]]*"\.\./' "$top" || true)
done

declare -A level=([common]=0 [document]=0 [plots]=1 [editor]=2 [zoo]=2
                  [panels]=3 [player]=3 [stepper]=3 [live]=3 [window]=4)
for folder in "${!level[@]}"; do
  [[ -d app/studio/$folder ]] || continue
  while IFS= read -r hit; do
    used=$(sed -E 's|.*#include "app/studio/([a-z_]+)/.*|\1|' <<<"$hit")
    [[ $used == "$folder" ]] && continue
    if [[ -z ${level[$used]+x} || ${level[$used]} -ge ${level[$folder]} ]]; then
      report "$hit"
    fi
  done < <(grep -rn '#include "app/studio/' "app/studio/$folder" || true)
done
if ((bad)); then
  echo "check-layers: includes that climb out of their folder (\"../\") or reach a studio" \
       "folder not below their own (see docs/architecture.md)" >&2
fi
exit $bad
