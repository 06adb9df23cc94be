#!/usr/bin/env bash
# Fails (with the fix) when the wasm-bindgen CLI differs from the wasm-bindgen crate in Cargo.lock
# (the workspace's one lockfile):
# the two must be identical or the generated bindings do not match the module.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -d "$HOME/.cargo/bin" ]; then export PATH="$HOME/.cargo/bin:$PATH"; fi
crate=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/[^0-9.]/,""); print; exit}' Cargo.lock 2>/dev/null || true)
if [ -z "$crate" ]; then
  echo "check-versions: no wasm-bindgen package in Cargo.lock (run: cargo generate-lockfile)" >&2
  exit 1
fi
cli=""
if command -v wasm-bindgen >/dev/null 2>&1; then cli=$(wasm-bindgen --version | awk '{print $2}'); fi
if [ "$crate" != "$cli" ]; then
  echo "check-versions: wasm-bindgen crate $crate != CLI ${cli:-missing}; fix: cargo install wasm-bindgen-cli --version =$crate" >&2
  exit 1
fi
echo "check-versions: wasm-bindgen $crate (crate) == $cli (CLI)"
