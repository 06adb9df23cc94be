#!/usr/bin/env bash
# The whole test suite; stops at the first failure. Installs what it needs first (scripts/setup.sh).
# Order: module map, native cargo test, clippy, fuzz smoke, build, package tests (node --test),
# packaging test, browser test.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -d "$HOME/.cargo/bin" ]; then export PATH="$HOME/.cargo/bin:$PATH"; fi

step() { printf '\n=== %s ===\n' "$*"; }

step "setup"
WITH_BROWSER=1 bash scripts/setup.sh
export WARDEN_SETUP_DONE=1

step "module map: no import cycles, ARCHITECTURE.md current (scripts/module-map.mjs)"
node scripts/module-map.mjs

step "cargo test --workspace (native: the core, the wasm crates, the decoder)"
cargo test --workspace

step "cargo clippy --workspace --all-targets -- -D warnings"
cargo clippy --workspace --all-targets -- -D warnings

step "cargo clippy for wasm32 (every crate that builds for it; the boundary compiles only there)"
for crate in warden_core warden_shape warden_uri warden_lint warden_limits warden_validate warden_patterns warden_linear warden_unlzma; do
  cargo clippy --target wasm32-unknown-unknown --lib -p "$crate" -- -D warnings
done
# The validator's optional parts: the pattern judgement, the test suite's export.
cargo clippy --target wasm32-unknown-unknown --lib -p warden_validate --features judge,suite-export -- -D warnings

step "fuzz smoke (every fuzz/ target for a few seconds; any crash fails)"
bash scripts/fuzz-smoke.sh

step "build"
bash scripts/build.sh

step "npm test -w pkg-js"
npm test -w pkg-js

step "packaging test (npm pack + install into an empty project)"
node --test pkg-js/test-pack/

step "browser test (Chromium, native WebMCP)"
node --test pkg-js/test-browser/
