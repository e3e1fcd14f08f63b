#!/usr/bin/env bash
# The explorer's folder levels (docs/architecture.md, "The explorer's folders"): lists
# every #include in app/studio/<folder> of a folder on the same or a higher level that
# is not the folder itself; exits 1 if there is one.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

declare -A level=([common]=0 [document]=0 [plots]=1 [editor]=2 [zoo]=2
                  [panels]=3 [player]=3 [stepper]=3 [window]=4)
bad=0
for folder in "${!level[@]}"; do
  while IFS= read -r hit; do
    used=$(sed -E 's|.*#include "app/studio/([a-z_]+)/.*|\1|' <<<"$hit")
    [[ $used == "$folder" ]] && continue
    if [[ -z ${level[$used]+x} || ${level[$used]} -ge ${level[$folder]} ]]; then
      echo "$hit"
      bad=1
    fi
  done < <(grep -rn '#include "app/studio/' "app/studio/$folder" || true)
done
if ((bad)); then
  echo "check-studio-layers: includes of a folder not below (see docs/architecture.md)" >&2
fi
exit $bad
