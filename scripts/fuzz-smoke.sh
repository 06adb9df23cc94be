#!/usr/bin/env bash
# Fuzz smoke run, part of `npm test`: builds every target of fuzz/ and runs each for a few seconds
# (FUZZ_SMOKE_SECONDS, default 5); any crash fails. Long runs and what was found: fuzz/README.md.
#
# cargo-fuzz is installed from crates.io when missing, at the version pinned here. It prefers
# the nightly toolchain (libFuzzer's usual setting); where there is none, the stable one builds
# the same targets without a sanitizer (`-s none`), which is how they run here anyway: the core
# forbids unsafe code, so AddressSanitizer has nothing to add but time.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -d "$HOME/.cargo/bin" ]; then export PATH="$HOME/.cargo/bin:$PATH"; fi

CARGO_FUZZ_VERSION=0.13.2
SECONDS_EACH="${FUZZ_SMOKE_SECONDS:-5}"
say() { printf '[fuzz-smoke] %s\n' "$*"; }

if [ "$(cargo fuzz --version 2>/dev/null | awk '{print $2}')" != "$CARGO_FUZZ_VERSION" ]; then
  say "cargo install cargo-fuzz --version =$CARGO_FUZZ_VERSION --locked"
  cargo install cargo-fuzz --version "=$CARGO_FUZZ_VERSION" --locked
fi
toolchain=stable
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then toolchain=nightly; fi

cd fuzz
started=$(date +%s)
say "cargo +$toolchain fuzz build -s none (debug assertions and overflow checks on)"
cargo "+$toolchain" fuzz build -s none
for target in $(cargo "+$toolchain" fuzz list); do
  say "$target: ${SECONDS_EACH} s"
  mkdir -p "corpus/$target"
  # -print_final_stats: the executions count; a crash exits non-zero and leaves its input in
  # fuzz/artifacts/<target>/ (replay: cargo fuzz run -s none <target> <file>).
  log="fuzz-smoke-$target.log"
  status=0
  cargo "+$toolchain" fuzz run -s none "$target" -- -max_total_time="$SECONDS_EACH" -print_final_stats=1 >"$log" 2>&1 || status=$?
  grep -E '^stat::number_of_executed_units' "$log" || true
  if [ "$status" -ne 0 ]; then
    tail -n 40 "$log"
    say "$target: crashed (exit $status); input in fuzz/artifacts/$target/"
    exit 1
  fi
done
say "done in $(( $(date +%s) - started )) s"
