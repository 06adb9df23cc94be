#!/usr/bin/env bash
# Builds the package (Rust -> wasm -> wasm-bindgen -> embedded core + tsc, via pkg-js/build.mjs)
# and the demo site (www/, Vite).
# WARDEN_SETUP_DONE=1 skips scripts/setup.sh (scripts/test.sh sets it after running setup itself).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -d "$HOME/.cargo/bin" ]; then export PATH="$HOME/.cargo/bin:$PATH"; fi
if [ "${WARDEN_SETUP_DONE:-0}" != "1" ]; then
  bash scripts/setup.sh
fi
bash scripts/check-versions.sh
echo "[build] node pkg-js/build.mjs"
node pkg-js/build.mjs
echo "[build] npm run build -w www"
npm run build -w www
echo "[build] done"
