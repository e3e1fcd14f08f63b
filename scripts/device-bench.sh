#!/usr/bin/env bash
# Every GPU figure docs/vulkan.md reports, measured in one run on the machine with the GPU
# and written to one JSON file (default: device-bench.json; the first argument names
# another). The runs take at most 8 minutes on an H100 (the build, when one is needed,
# comes before and is not counted):
#   devices      lsrl devices: name, driver, subgroup size, shaderFloat64
#   vulkan       lsrl bench vulkan: copy bandwidth, the scan's three schedules at
#                B·T·C = 4·4096·1024 and the calibrated choice, the UA heat-map job on the
#                fp32 CPU runner (every core) and on Vulkan (wall, kernel and host time)
#   precision    lsrl bench precision --vulkan: compiled tok2tok (L = 3, five variants, as
#                built and fitted) exactly, in float64 and fp32 on the CPU, and in fp32 and
#                fp64 on the device: wrong answers of 200 and each device run's time
#   eval_*       lsrl model eval over 10,000 samples on the CPU (float64, every core) and
#                on Vulkan (fp32 batches) for the shipped minGRU and minLSTM checkpoints
# Env: LSRL (a built lsrl; default build/device/app/cli/lsrl, built here when missing:
# release, no GUI / Python / tests, so only the CLI's dependencies are needed),
# LSRL_VULKAN_DEVICE (which device), SAMPLES (default 10000).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=${1:-device-bench.json}
samples=${SAMPLES:-10000}
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

# Runs `lsrl ARGS...` under a time limit, echoes its table to stderr and keeps its last
# line (the JSON figures) as part NAME; a failure is recorded as {"error": ...}.
step() {
  local name=$1 limit=$2
  shift 2
  echo "== $name: lsrl $*" >&2
  if timeout "$limit" "$lsrl" "$@" >"$parts/$name.out" 2>"$parts/$name.err"; then
    cat "$parts/$name.out" >&2
    tail -n 1 "$parts/$name.out" >"$parts/$name.json"
  else
    local rc=$?
    cat "$parts/$name.out" "$parts/$name.err" >&2
    python3 -c 'import json,sys; print(json.dumps({"error": sys.argv[1], "exit": int(sys.argv[2])}))' \
      "$(tail -n 3 "$parts/$name.err" | tr '\n' ' ')" "$rc" >"$parts/$name.json"
  fi
}

step devices 60 devices
step vulkan 240 bench vulkan
step precision 180 bench precision --programs tok2tok --lengths 3 --vulkan
for model in mingru minlstm; do
  weights=(--weights "examples/models/$model.safetensors")
  step "eval_${model}_cpu" 60 model eval "$model" "${weights[@]}" --samples "$samples" --backend cpu
  step "eval_${model}_vulkan" 60 model eval "$model" "${weights[@]}" --samples "$samples" \
    --backend vulkan
done

python3 - "$parts" "$out" "$((SECONDS - started))" <<'PY'
import json, os, sys, datetime
parts, out, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3])
doc = {"script": "scripts/device-bench.sh",
       "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
       "runs_s": seconds}
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
print(f"wrote {out} ({seconds} s of runs)")
PY
