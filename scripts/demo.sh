#!/usr/bin/env bash
# Builds everything, then serves the demo site (www/) on http://127.0.0.1:5173/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export WARDEN_SETUP_DONE=1
bash scripts/build.sh
PORT="${PORT:-5173}"
echo "[demo] serving www/ at http://127.0.0.1:${PORT}/ (Ctrl-C stops it)"
cd www
exec ../node_modules/.bin/vite preview --host 127.0.0.1 --port "$PORT" --strictPort
