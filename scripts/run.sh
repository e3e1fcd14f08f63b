#!/usr/bin/env bash
# The README's first command: installs what is missing, builds the release tree and
# opens the explorer (lsrl-studio) on the bundled tok2tok example. Without a display
# (no DISPLAY or WAYLAND_DISPLAY: a server, CI) it renders the explorer offscreen into
# build/release/tok2tok.png instead and says so.
#   EXAMPLE_GRAPH  the graph file to open (default examples/tok2tok_L3_direct.json)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

EXAMPLE_GRAPH=${EXAMPLE_GRAPH:-examples/tok2tok_L3_direct.json}

bash scripts/setup.sh
bash scripts/build.sh release
studio=build/release/app/studio/lsrl-studio

echo
if [[ -n ${DISPLAY:-} || -n ${WAYLAND_DISPLAY:-} ]]; then
  echo "\$ $studio $EXAMPLE_GRAPH"
  exec "$studio" "$EXAMPLE_GRAPH"
fi
shot=build/release/$(basename "${EXAMPLE_GRAPH%.json}").png
echo "run: no display (DISPLAY and WAYLAND_DISPLAY are unset): rendering the explorer offscreen"
echo "\$ QT_QPA_PLATFORM=offscreen $studio $EXAMPLE_GRAPH --screenshot $shot"
QT_QPA_PLATFORM=offscreen "$studio" "$EXAMPLE_GRAPH" --screenshot "$shot"
echo "run: open $shot to see it, or run $studio $EXAMPLE_GRAPH on a machine with a display"
