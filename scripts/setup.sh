#!/usr/bin/env bash
# Installs the Debian 12 packages listed in scripts/deps.txt that are missing.
# Quick and silent when everything is installed: apt-get runs only when needed.
# Needs root (or sudo) to install; nothing is fetched from outside Debian's archive.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

deps_file=${LSRL_DEPS_FILE:-scripts/deps.txt}
mapfile -t packages < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$deps_file")

missing=()
for pkg in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null || true)
  [[ $status == ii* ]] || missing+=("$pkg")
done

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#packages[@]} packages from $deps_file are installed"
  exit 0
fi

echo "setup: installing ${#missing[@]} missing package(s): ${missing[*]}"
if ((EUID == 0)); then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "setup: error: packages are missing and this user is not root and has no sudo." >&2
  echo "setup: as root, run: apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null
echo "setup: done"
