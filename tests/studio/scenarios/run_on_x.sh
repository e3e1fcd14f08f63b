#!/usr/bin/env bash
# Runs a GUI scenario test binary the way a person meets the explorer: on an X server
# (a private Xvfb, Qt's xcb platform, Mesa's software OpenGL), so that popups, native
# dialogs and the 3D views behave as on a desktop. Without xvfb-run it falls back to
# Qt's offscreen platform (and says so on stderr).
set -euo pipefail
if command -v xvfb-run >/dev/null 2>&1; then
  export QT_QPA_PLATFORM=xcb
  exec xvfb-run --auto-servernum --server-args="-screen 0 1920x1200x24" "$@"
fi
echo "run_on_x: xvfb-run not found: running offscreen" >&2
export QT_QPA_PLATFORM=offscreen
exec "$@"
