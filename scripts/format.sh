#!/usr/bin/env bash
# clang-format-14 over the C++ sources in core/ app/ tests/ (style: .clang-format).
#   scripts/format.sh          check only; lists offending lines, exits 1 if any
#   scripts/format.sh --fix    rewrite the files in place
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

mode=${1:---check}
mapfile -d '' files < <(find core app tests -type f \( -name '*.cpp' -o -name '*.h' \) \
                          -not -path 'tests/data/*' -print0 | sort -z)
if ((${#files[@]} == 0)); then
  echo "format: no C++ files found"
  exit 0
fi
case "$mode" in
  --fix)
    clang-format-14 -i "${files[@]}"
    echo "format: formatted ${#files[@]} files"
    ;;
  --check)
    if ! out=$(clang-format-14 --dry-run --Werror "${files[@]}" 2>&1); then
      echo "$out" | head -n 80
      bad=$(echo "$out" | grep -E '^[^ ]+:[0-9]+:[0-9]+: error:' | cut -d: -f1 | sort -u)
      echo "format: $(echo "$bad" | grep -c .) of ${#files[@]} files need clang-format-14:"
      echo "$bad" | sed 's/^/    /'
      echo "format: fix with: bash scripts/format.sh --fix"
      exit 1
    fi
    echo "format: ${#files[@]} files clean"
    ;;
  *)
    echo "usage: scripts/format.sh [--check|--fix]" >&2
    exit 2
    ;;
esac
