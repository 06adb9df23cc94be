#!/usr/bin/env bash
# Installs everything the build and the tests need; safe to run again (idempotent).
#   - the Rust wasm32 target (and clippy),
#   - wasm-bindgen-cli at exactly the version of the wasm-bindgen crate in Cargo.lock (the
#     workspace's one lockfile; fuzz/ keeps its own, without wasm-bindgen),
#   - the npm workspaces (npm ci) when node_modules is missing or older than package-lock.json,
#   - xz (Debian's xz-utils, apt) when missing: the build compresses the validator module with it,
#   - with WITH_BROWSER=1: Debian's chromium (apt) when /usr/bin/chromium is missing.
# Everything comes from package registries (rustup, crates.io, npm, Debian apt); nothing else is downloaded.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -d "$HOME/.cargo/bin" ]; then
  case ":$PATH:" in *":$HOME/.cargo/bin:"*) ;; *) export PATH="$HOME/.cargo/bin:$PATH" ;; esac
fi

say() { printf '[setup] %s\n' "$*"; }

# --- Rust target and clippy --------------------------------------------------
if rustup target list --installed 2>/dev/null | grep -qx 'wasm32-unknown-unknown'; then
  say "rust target wasm32-unknown-unknown: present"
else
  say "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi
if cargo clippy --version >/dev/null 2>&1; then
  say "clippy: present"
else
  say "rustup component add clippy"
  rustup component add clippy
fi

# --- wasm-bindgen CLI == crate version in Cargo.lock --------------------------
if [ ! -f Cargo.lock ]; then
  say "cargo generate-lockfile (no Cargo.lock)"
  cargo generate-lockfile
fi
want=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/[^0-9.]/,""); print; exit}' Cargo.lock)
if [ -z "$want" ]; then
  echo "[setup] error: no wasm-bindgen package in Cargo.lock" >&2
  exit 1
fi
have=""
if command -v wasm-bindgen >/dev/null 2>&1; then
  have=$(wasm-bindgen --version | awk '{print $2}')
fi
if [ "$have" = "$want" ]; then
  say "wasm-bindgen CLI $have: matches Cargo.lock"
else
  say "wasm-bindgen CLI '${have:-missing}' != crate $want: cargo install wasm-bindgen-cli --version =$want (takes a few minutes)"
  # No --locked: the CLI's published lockfile pins a crate version missing from the index.
  cargo install wasm-bindgen-cli --version "=$want"
fi

# --- npm workspaces -----------------------------------------------------------
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "npm ci (node_modules missing or older than package-lock.json)"
  npm ci --no-audit --no-fund
else
  say "node_modules: up to date with package-lock.json"
fi

# Installs a Debian package with apt (through sudo when not root).
apt_install() {
  local sudo=""
  if [ "$(id -u)" != "0" ]; then sudo="sudo"; fi
  say "$sudo apt-get update && $sudo apt-get install -y $1"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update </dev/null
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y "$1" </dev/null
}

# --- xz: the build compresses the validator module with it (pkg-js/build.mjs) ----------------
if command -v xz >/dev/null 2>&1; then
  say "xz: present ($(xz --version | head -n 1))"
else
  apt_install xz-utils
fi

# --- browser (only when asked) ------------------------------------------------
if [ "${WITH_BROWSER:-0}" = "1" ]; then
  if [ -x /usr/bin/chromium ]; then
    say "chromium: present ($(/usr/bin/chromium --version 2>/dev/null || echo unknown version))"
  else
    apt_install chromium
  fi
fi
say "done"
