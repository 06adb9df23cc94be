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

step "cargo test (native)"
cargo test
# The decoder of every embedded module: a crate of its own (unlzma/), in the target dir
# build.mjs uses.
UNLZMA_TARGET="${CARGO_TARGET_DIR:-$PWD/target}/unlzma"
cargo test --manifest-path unlzma/Cargo.toml --target-dir "$UNLZMA_TARGET"

step "cargo clippy --all-targets -- -D warnings"
cargo clippy --all-targets -- -D warnings
cargo clippy --manifest-path unlzma/Cargo.toml --target-dir "$UNLZMA_TARGET" --all-targets -- -D warnings

step "cargo clippy for wasm32 (the boundary modules only compile there)"
cargo clippy --target wasm32-unknown-unknown --lib --no-default-features -- -D warnings
cargo clippy --target wasm32-unknown-unknown --lib --no-default-features --features shape-module -- -D warnings
cargo clippy --target wasm32-unknown-unknown --lib --no-default-features --features uri-module -- -D warnings
cargo clippy --target wasm32-unknown-unknown --lib --no-default-features --features lint-module -- -D warnings
cargo clippy --target wasm32-unknown-unknown --lib --no-default-features --features limits-module -- -D warnings
cargo clippy --target wasm32-unknown-unknown --lib --no-default-features --features validator-module -- -D warnings
cargo clippy --target wasm32-unknown-unknown --lib --no-default-features --features suite-export -- -D warnings
cargo clippy --target wasm32-unknown-unknown --lib --no-default-features --features patterns-module -- -D warnings
cargo clippy --target wasm32-unknown-unknown --lib --no-default-features --features linear-module -- -D warnings
cargo clippy --manifest-path unlzma/Cargo.toml --target-dir "$UNLZMA_TARGET" --target wasm32-unknown-unknown --lib -- -D warnings

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
