#!/usr/bin/env bash
# Packs what scripts/device-bench.sh needs into DIR (default .device-bundle, ignored by
# git), for a GPU machine with no build tools, no Vulkan SDK and perhaps no Vulkan loader:
#   bin/lsrl                   the release CLI ($LSRL, else built in build/device)
#   lib/                       every shared library lsrl needs except glibc's own, and
#                              Debian's Vulkan loader (lsrl dlopens it: ldd does not list it)
#   scripts/device-bench.sh    the bench, run with DIR as its root
#   examples/models/           the seed-model checkpoints the bench scores
#   run.sh [OUT.json]          sets up the libraries and the driver, then runs the bench
#   manifest.txt               commit, date, glibc, files
# No Vulkan driver goes in (the figures are the GPU's, not lavapipe's): run.sh uses the
# machine's, NVIDIA's at /usr/local/nvidia when the loader's own paths have none.
# The bundle must stay under 60 MiB (the device tool carries 64 MiB).
# Usage: scripts/device-bundle.sh [DIR]; then, with the device tool:
#   carry [".device-bundle"], command "bash .device-bundle/run.sh $OUT/device-bench.json"
set -euo pipefail
export LC_ALL=C
dir=$(realpath -m -- "${1:-.device-bundle}")
cd "$(dirname "${BASH_SOURCE[0]}")/.."
max_mib=60
marker=.lsrl-device-bundle

lsrl=${LSRL:-build/device/app/cli/lsrl}
if [[ -z ${LSRL:-} ]]; then
  # Always through ninja, so the bundle holds the sources as they are now.
  if [[ ! -f build/device/build.ninja ]]; then
    cmake -S . -B build/device -G Ninja -DCMAKE_BUILD_TYPE=Release -DLSRL_WITH_GUI=OFF \
      -DLSRL_WITH_PYTHON=OFF -DLSRL_WITH_TESTS=OFF -DLSRL_WITH_BENCH=OFF -DLSRL_WITH_VULKAN=ON
  fi
  ninja -C build/device lsrl
fi
[[ -x $lsrl ]] || { echo "device-bundle: $lsrl is not an executable" >&2; exit 1; }

# Only a directory this script made (or an empty one) is emptied: DIR is the user's word.
if [[ -e $dir ]]; then
  if [[ -f $dir/$marker ]]; then
    rm -rf "$dir"
  elif [[ -n $(ls -A "$dir") ]]; then
    echo "device-bundle: $dir exists and is not a bundle; not touching it" >&2
    exit 1
  fi
fi
mkdir -p "$dir"/{bin,lib,scripts,examples/models}
touch "$dir/$marker"
cp "$lsrl" "$dir/bin/lsrl"
cp scripts/device-bench.sh "$dir/scripts/"
cp examples/models/*.safetensors "$dir/examples/models/"

# The Vulkan loader: Debian's package, else this machine's copy of it.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
loader_from=
# (as root, apt's sandbox user could not write to the private temporary folder)
if (cd "$tmp" && apt-get download -o APT::Sandbox::User=root libvulkan1 >&2) &&
  dpkg-deb -x "$tmp"/libvulkan1_*.deb "$tmp/deb"; then
  loader_from=$(basename "$tmp"/libvulkan1_*.deb)
  cp -a "$tmp"/deb/usr/lib/*/libvulkan.so.1* "$dir/lib/"
else
  echo "device-bundle: apt-get download libvulkan1 failed; copying this machine's loader" >&2
  loader_from=$(realpath /usr/lib/x86_64-linux-gnu/libvulkan.so.1)
  cp -a /usr/lib/x86_64-linux-gnu/libvulkan.so.1* "$dir/lib/"
fi
[[ -e $dir/lib/libvulkan.so.1 ]] || { echo "device-bundle: no libvulkan.so.1" >&2; exit 1; }
# vk::DynamicLoader tries libvulkan.so before libvulkan.so.1: a machine's own (from a
# -dev package) would otherwise come first.
ln -sf libvulkan.so.1 "$dir/lib/libvulkan.so"

# Every library ldd lists for lsrl and the loader, by soname, except glibc's: those must
# match the dynamic linker, which is the machine's.
glibc='^(linux-vdso|linux-gate|ld-linux.*|libc|libm|libmvec|libpthread|libdl|librt|libresolv|libutil|libanl|libnsl|libBrokenLocale|libnss_.*)\.so'
while read -r soname path; do
  if [[ $path == "not found" ]]; then
    echo "device-bundle: ldd finds no $soname" >&2
    exit 1
  fi
  [[ $soname =~ $glibc ]] || cp -L "$path" "$dir/lib/$soname"
done < <(ldd "$dir/bin/lsrl" "$dir/lib/libvulkan.so.1" |
  awk '$2 == "=>" && $3 != "" { print $1, ($3 == "not" ? "not found" : $3) }' | sort -u)

# No Vulkan driver: a bundled ICD would be found instead of, or besides, the GPU's.
if find "$dir" \( -name '*icd*.json' -o -name 'libvulkan_*' \) | grep -q .; then
  echo "device-bundle: a Vulkan driver got into $dir" >&2
  exit 1
fi

cat >"$dir/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs the bundled device-bench.sh with the bundled lsrl and libraries:
#   bash run.sh [OUT.json]   (default $OUT/device-bench.json, else ./device-bench.json)
# The bench's log goes to stdout and to OUT.log beside the JSON.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
default=device-bench.json
[[ -n ${OUT:-} ]] && default=$OUT/device-bench.json
out=$(realpath -m -- "${1:-$default}")
mkdir -p "$(dirname "$out")"
export LD_LIBRARY_PATH=$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# NVIDIA's driver libraries where container images put them (its ICD names them bare).
for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib; do
  [[ -d $d ]] && LD_LIBRARY_PATH+=:$d
done
# The loader's own ICD paths without NVIDIA's: point it at NVIDIA's JSON, if there.
nvidia=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [[ -z ${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-} && -f $nvidia ]] &&
  ! compgen -G '/usr/share/vulkan/icd.d/nvidia*.json' >/dev/null &&
  ! compgen -G '/etc/vulkan/icd.d/nvidia*.json' >/dev/null &&
  ! compgen -G '/usr/local/share/vulkan/icd.d/nvidia*.json' >/dev/null; then
  export VK_DRIVER_FILES=$nvidia
fi
export LSRL=$here/bin/lsrl
# The ICD libraries' missing dependencies, if any: the likely cause when lsrl devices
# finds no driver, named in the log of a machine lent for a few minutes.
icd_report() {
  local json lib dir given dirs
  IFS=: read -ra given <<<"${VK_DRIVER_FILES:-}"
  IFS=: read -ra dirs <<<"$LD_LIBRARY_PATH"
  for json in "${given[@]}" /usr/share/vulkan/icd.d/nvidia*.json /etc/vulkan/icd.d/nvidia*.json; do
    [[ -f $json ]] || continue
    lib=$(sed -n 's/.*"library_path": *"\([^"]*\)".*/\1/p' "$json")
    echo "run.sh: $json names ${lib:-no library}"
    [[ -n $lib ]] || continue
    if [[ $lib != /* ]]; then
      for dir in "${dirs[@]}" /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu; do
        [[ -e $dir/$lib ]] && { lib=$dir/$lib; break; }
      done
    fi
    if [[ -e $lib ]]; then
      echo "run.sh: $lib: $(ldd "$lib" 2>&1 | grep -c 'not found') dependencies not found" \
        "$(ldd "$lib" 2>&1 | awk '/not found/ { printf " %s", $1 }')"
    else
      echo "run.sh: $lib is not in LD_LIBRARY_PATH or the system's library folders"
    fi
  done
}
{
  echo "run.sh: $(sed -n 's/^commit: //p' "$here/manifest.txt"), built on" \
    "$(sed -n 's/^glibc: //p' "$here/manifest.txt"); this machine: $(getconf GNU_LIBC_VERSION)"
  echo "run.sh: VK_DRIVER_FILES=${VK_DRIVER_FILES:-} VK_ICD_FILENAMES=${VK_ICD_FILENAMES:-}"
  echo "run.sh: LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  icd_report || true  # a diagnosis only
  bash "$here/scripts/device-bench.sh" "$out" 2>&1
} | tee -p "${out%.json}.log"  # -p: the log survives a closed stdout
RUN
chmod +x "$dir/run.sh"

{
  echo "commit: $(git describe --always --dirty 2>/dev/null || echo unknown)"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%S+00:00)"
  echo "glibc: $(getconf GNU_LIBC_VERSION)"
  echo "vulkan loader: $loader_from"
  echo "files:"
  (cd "$dir" && find . -type f -o -type l | sort | sed 's/^/  /')
} >"$dir/manifest.txt"

# Ignored by git, so it can be carried: .gitignore lists .device-bundle; another DIR
# inside the tree goes to .git/info/exclude.
rel=$(realpath --relative-to=. "$dir")
if [[ $rel != ..* ]] && exclude=$(git rev-parse --git-path info/exclude 2>/dev/null) &&
  ! git check-ignore -q "$rel"; then
  mkdir -p "$(dirname "$exclude")"
  echo "/$rel/" >>"$exclude"
fi

bytes=$(du -sb "$dir" | cut -f1)
echo "device-bundle: $dir: $(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }') MiB," \
  "$(find "$dir/lib" -name '*.so*' -type f | wc -l) libraries"
if ((bytes > max_mib * 1048576)); then
  echo "device-bundle: over $max_mib MiB" >&2
  exit 1
fi
