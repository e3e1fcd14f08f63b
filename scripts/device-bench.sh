#!/usr/bin/env bash
# Every GPU figure docs/vulkan.md reports, measured in one run on the machine with the GPU
# and written to one JSON file (default: device-bench.json beside scripts/; the first
# argument names another). Each step has a time limit and all of them together at most
# BUDGET_S seconds (default 540: the device tool allows 600 a command); a step that fails,
# overruns or finds the budget spent is recorded as {"error": ...}. Parts of the file:
#   devices       lsrl devices: name, driver, subgroup size, shaderFloat64
#   vulkan        lsrl bench vulkan: copy bandwidth, the scan's three schedules at
#                 B·T·C = 4·4096·1024 and the calibrated choice, the UA heat-map job on the
#                 fp32 CPU runner (every core) and on Vulkan (wall, kernel and host time)
#   precision     lsrl bench precision --vulkan: compiled tok2tok (L = 3, five variants, as
#                 built and fitted) exactly, in float64 and fp32 on the CPU, and in fp32 and
#                 fp64 on the device: wrong answers of 200 and each device run's time
#   tok2tok_batch PROMPTS tok2tok prompts (L = 3, 4 entries) as one .npy through lsrl run on
#                 the fp32 CPU runner and on Vulkan (the model compiled with --precision
#                 fp32): wall seconds of each, a 1-prompt Vulkan run for the start-up, and
#                 whether the two outputs agree
#   eval_*        lsrl model eval over SAMPLES samples on the CPU (float64, every core) and
#                 on Vulkan (fp32 batches; --profile when this lsrl has it) for the five
#                 shipped checkpoints (examples/models)
# Env: LSRL (a built lsrl; default build/device/app/cli/lsrl, built here when missing:
# release, no GUI / Python / tests, so only the CLI's dependencies are needed),
# LSRL_VULKAN_DEVICE (which device), SAMPLES (default 10000), PROMPTS (default 1000000),
# BUDGET_S (default 540), PARTS (the parts to run: names or globs, e.g. "devices eval_*";
# default all), PYTHON (for the JSON assembly and the numpy comparison; default
# python3 when there is one; empty: without Python, as on a machine that lacks it).
# scripts/device-bundle.sh packs this script with a built lsrl for a machine without tools.
set -euo pipefail
export LC_ALL=C  # decimal points in EPOCHREALTIME and awk, byte order in globs
# An OUT given is relative to the caller's directory, not to the one cd'd to below.
out=$(realpath -m -- "${1:-$(dirname "${BASH_SOURCE[0]}")/../device-bench.json}")
cd "$(dirname "${BASH_SOURCE[0]}")/.."
samples=${SAMPLES:-10000}
prompts=${PROMPTS:-1000000}
budget=${BUDGET_S:-540}
read -ra patterns <<<"${PARTS:-*}"
python=${PYTHON-$(command -v python3 || true)}
lsrl=${LSRL:-build/device/app/cli/lsrl}
if [[ ! -x $lsrl ]]; then
  echo "building $lsrl (release, CLI only)" >&2
  cmake -S . -B build/device -G Ninja -DCMAKE_BUILD_TYPE=Release -DLSRL_WITH_GUI=OFF \
    -DLSRL_WITH_PYTHON=OFF -DLSRL_WITH_TESTS=OFF -DLSRL_WITH_BENCH=OFF -DLSRL_WITH_VULKAN=ON >&2
  ninja -C build/device lsrl >&2
fi
parts=$(mktemp -d)
trap 'rm -rf "$parts"' EXIT
started=$SECONDS
deadline=$((SECONDS + budget))

# Whether part $1 is among PARTS (a second try on a lent machine runs only what failed).
wanted() {
  local p
  for p in "${patterns[@]}"; do
    # shellcheck disable=SC2053 # p is a glob
    [[ $1 == $p ]] && return 0
  done
  return 1
}

# $1 as a JSON string: errors are written without Python.
json_str() {
  local s=$1
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\n'/\\n}
  s=${s//$'\t'/\\t}
  printf '"%s"' "$(printf '%s' "$s" | tr -d '\000-\037')"
}

# Part NAME = {FIELDS..., "error": MESSAGE}; FIELDS are '"key": value' strings.
error_part() {
  local name=$1 message=$2
  shift 2
  local fields=("$@" "\"error\": $(json_str "$message")")
  local IFS=,
  printf '{%s}\n' "${fields[*]}" >"$parts/$name.json"
}

# The seconds a step may run: LIMIT, or what is left of BUDGET_S when that is less.
allowed() {
  local left=$((deadline - SECONDS))
  echo $((left < $1 ? (left > 0 ? left : 0) : $1))
}

now() { echo "${EPOCHREALTIME:-$(date +%s.%N)}"; }

# Why `timeout LIMIT lsrl ...` failed with status RC, its stderr in FILE.
failure() {
  local rc=$1 limit=$2 file=$3
  if ((rc == 124 || rc == 137)); then
    echo "timed out after $limit s"
  else
    echo "exit $rc: $(tail -n 3 "$file" | tr '\n' ' ')"
  fi
}

# Runs `lsrl ARGS...` under a time limit, echoes its table to stderr and keeps its last
# line (the JSON figures) as part NAME; a failure is recorded as {"error": ...}.
step() {
  local name=$1 limit
  wanted "$name" || return 0
  limit=$(allowed "$2")
  shift 2
  echo "== $name: lsrl $*" >&2
  if ((limit < 5)); then
    error_part "$name" "skipped: the budget of $budget s is spent"
    return
  fi
  if timeout -k 10 "$limit" "$lsrl" "$@" >"$parts/$name.out" 2>"$parts/$name.err"; then
    cat "$parts/$name.out" >&2
    tail -n 1 "$parts/$name.out" >"$parts/$name.json"
  else
    local rc=$?
    cat "$parts/$name.out" "$parts/$name.err" >&2
    error_part "$name" "$(failure "$rc" "$limit" "$parts/$name.err")" "\"exit\": $rc"
  fi
}

# The tok2tok batch (part tok2tok_batch). Each run is timed here, from outside lsrl, so
# the figures hold reading and writing the .npy files. Stops at the first failure,
# keeping what it measured before.
tok2tok_batch() {
  local name=tok2tok_batch dir=$parts/tok2tok fields=() help limit t0 rc
  local model=$parts/tok2tok/tok2tok.fp32.model.json
  wanted "$name" || return 0
  echo "== $name: $prompts prompts through lsrl run" >&2
  mkdir -p "$dir"
  help=$("$lsrl" prompt --help 2>&1 || true)
  if [[ $help != *--count* ]]; then
    error_part "$name" "lsrl prompt has no --count (N prompts as one .npy) in this build"
    return
  fi
  help=$("$lsrl" run --help 2>&1 || true)
  if [[ $help != *.npy* ]]; then
    error_part "$name" "lsrl run takes no .npy input in this build"
    return
  fi
  fields+=("\"prompts\": $prompts" '"L": 3' '"entries": 4')
  # NAME LIMIT ARGS...: runs lsrl, adds "NAME_s" (wall seconds) to fields.
  timed() {
    local key=$1
    limit=$(allowed "$2")
    shift 2
    echo "   $key: lsrl $*" >&2
    if ((limit < 5)); then
      error_part "$name" "$key skipped: the budget of $budget s is spent" "${fields[@]}"
      return 1
    fi
    t0=$(now)
    if timeout -k 10 "$limit" "$lsrl" "$@" >"$dir/$key.log" 2>&1; then
      fields+=("\"${key}_s\": $(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }')")
    else
      rc=$?
      cat "$dir/$key.log" >&2
      error_part "$name" "$key: $(failure "$rc" "$limit" "$dir/$key.log")" "${fields[@]}"
      return 1
    fi
  }
  # The program compiled with its constants fitted for fp32 on the prompts' domain
  # (tokens 0..9, at most 160 of them: 4 entries of L = 3 give 27), as in bench precision.
  "$lsrl" program tok2tok --set L=3 -o "$dir/tok2tok.json" >/dev/null 2>"$dir/program.log" ||
    { error_part "$name" "lsrl program: $(tail -n 3 "$dir/program.log")"; return; }
  timed compile 60 compile "$dir/tok2tok.json" --precision fp32 --box 0,9 --input-grid 1 \
    --horizon 160 -o "$model" || return 0
  timed prompt 60 prompt tok2tok -L 3 --random 4 --count "$prompts" -o "$dir/in.npy" || return 0
  timed prompt_one 30 prompt tok2tok -L 3 --random 4 --count 1 -o "$dir/one.npy" || return 0
  # B·T from the .npy header's shape, "(B, T, C)".
  local shape
  shape=$(head -c 512 "$dir/in.npy" | tr -d '\000' | grep -ao "'shape': *([0-9, ]*)" |
    grep -o '[0-9][0-9, ]*' || true)
  if [[ -n $shape ]]; then
    fields+=("\"input_shape\": [${shape%, }]")
    fields+=("\"tokens\": $(awk -F', *' '{ print $1 * $2 }' <<<"$shape")")
  fi
  timed vulkan_startup 30 run "$model" --input "$dir/one.npy" -o "$dir/one.out.npy" \
    --backend vulkan || return 0
  timed cpu32 120 run "$model" --input "$dir/in.npy" -o "$dir/cpu32.npy" --backend cpu32 ||
    return 0
  timed vulkan 120 run "$model" --input "$dir/in.npy" -o "$dir/vulkan.npy" --backend vulkan ||
    return 0
  fields+=("\"vulkan_over_cpu32\": $(printf '%s\n' "${fields[@]}" | awk -F': ' '
    $1 == "\"cpu32_s\"" { c = $2 } $1 == "\"vulkan_s\"" { v = $2 }
    END { printf "%.4g", (c > 0 ? v / c : 0) }')")
  # The outputs: with numpy, largest difference and answers (last L tokens rounded) that
  # differ; else only whether the files are equal byte for byte.
  if [[ -n $python ]] && "$python" -c 'import numpy' 2>/dev/null; then
    limit=$(allowed 60)
    local check
    if check=$(timeout -k 10 "$limit" "$python" - "$dir/cpu32.npy" "$dir/vulkan.npy" <<'PY'
import sys
import numpy as np
a, b = (np.load(p, mmap_mode="r") for p in sys.argv[1:3])
if a.shape != b.shape:
    print(f'"check": "numpy", "agree": false, "shapes": ["{a.shape}", "{b.shape}"]')
    sys.exit()
diff = float(np.max(np.abs(a.astype(np.float64) - b))) if a.size else 0.0
diff = f"{diff:.6g}" if np.isfinite(diff) else f'"{diff}"'  # NaN is no JSON number
ans = (np.rint(a[:, -3:]) != np.rint(b[:, -3:])).reshape(len(a), -1).any(axis=1)
print(f'"check": "numpy", "output_shape": {list(a.shape)}, "max_abs_diff": {diff}, '
      f'"prompts_answered_differently": {int(ans.sum())}, "agree": {str(not ans.any()).lower()}')
PY
    ); then
      fields+=("$check")
    else
      error_part "$name" "the numpy comparison failed or overran $limit s" "${fields[@]}"
      return
    fi
  elif cmp -s "$dir/cpu32.npy" "$dir/vulkan.npy"; then
    fields+=('"check": "cmp"' '"agree": true')
  else
    fields+=('"check": "cmp"' '"agree": false')
  fi
  local IFS=,
  printf '{%s}\n' "${fields[*]}" >"$parts/$name.json"
}

step devices 30 devices
step vulkan 180 bench vulkan
step precision 180 bench precision --programs tok2tok --lengths 3 --vulkan
tok2tok_batch
profile=()
help=$("$lsrl" model eval --help 2>&1 || true)
[[ $help == *--profile* ]] && profile=(--profile)
for model in mingru minlstm gateloop lattice looped; do
  weights=(--weights "examples/models/$model.safetensors")
  step "eval_${model}_cpu" 40 model eval "$model" "${weights[@]}" --samples "$samples" --backend cpu
  step "eval_${model}_vulkan" 40 model eval "$model" "${weights[@]}" --samples "$samples" \
    --backend vulkan "${profile[@]}"
done

seconds=$((SECONDS - started))
date=$(date -u +%Y-%m-%dT%H:%M:%S+00:00)
# The commit: a bundle's manifest names it; in the repository git does.
commit=$(sed -n 's/^commit: //p' manifest.txt 2>/dev/null || true)
[[ -n $commit ]] || commit=$(git describe --always --dirty 2>/dev/null || echo unknown)
if [[ -n $python ]]; then
  "$python" - "$parts" "$out" "$seconds" "$date" "$commit" <<'PY'
import json, os, sys
parts, out, seconds, date, commit = sys.argv[1:6]
doc = {"script": "scripts/device-bench.sh", "date": date, "commit": commit,
       "runs_s": int(seconds), "assembled_by": "python"}
for name in sorted(os.listdir(parts)):
    if name.endswith(".json"):
        with open(os.path.join(parts, name)) as f:
            text = f.read().strip()
        try:
            doc[name[:-5]] = json.loads(text)
        except ValueError:
            doc[name[:-5]] = {"error": "not JSON", "text": text[-500:]}
with open(out, "w") as f:
    json.dump(doc, f, indent=2)
    f.write("\n")
PY
else
  # Without Python: the parts as they are, one per line; a line that is not an object
  # becomes an error.
  {
    printf '{"script": "scripts/device-bench.sh", "date": "%s", "commit": %s, "runs_s": %d,' \
      "$date" "$(json_str "$commit")" "$seconds"
    printf '\n "assembled_by": "bash"'
    for file in "$parts"/*.json; do
      text=$(<"$file")
      [[ $text == \{*\} ]] ||
        text="{\"error\": \"not JSON\", \"text\": $(json_str "${text: -500}")}"
      printf ',\n "%s": %s' "$(basename "$file" .json)" "$text"
    done
    printf '\n}\n'
  } >"$out"
fi
echo "wrote $out ($seconds s of runs)"
