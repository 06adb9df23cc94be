// What splitting the core would weigh, measured rather than guessed: the figures behind
// docs/behaviour.md ("Sizes") and bench/RESULTS.md. Not part of `npm run bench`. (Its `js` mode,
// which stubbed the call path's modules out of the one-tool page's entry, measured what the
// pipeline chunk now is: `npm run size` measures the real thing.)
//
//   node bench/split-sizes.mjs core   the core module built with only some of its exports (a copy
//                                     of the workspace in a temporary directory, whose other exports lose
//                                     their #[wasm_bindgen]; the linker drops what those reached),
//                                     then wasm-opt -O1 as the build does: raw, gzip -9, LZMA (xz,
//                                     the validator chunk's settings)
//
// Needs cargo with the wasm32 target, the wasm-bindgen CLI and xz (scripts/setup.sh installs
// them).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = fileURLToPath(new URL('..', import.meta.url));
// Output is kept (a failure's error carries it): cargo's dead-code warnings are expected here,
// since the exports left out are what used the code they warn about.
const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { cwd: root, stdio: 'pipe', maxBuffer: 64 << 20, ...opts });
const gzip = (bytes) => gzipSync(bytes, { level: 9 }).length;
const lzma = (bytes) => run('xz', ['--format=raw', '--lzma1=preset=9e,lc=3,lp=0,pb=0', '--stdout'], { input: bytes }).length;

// ---- the core, by exports ---------------------------------------------------------------------

/** The core module's files whose exports are chosen from (wasm/core/). */
const BOUNDARY = ['wasm/core/lib.rs', 'wasm/core/configure.rs', 'wasm/core/governance.rs'];
/** What `webmcp()`, `configureWebMCP()` and `lintPolicy()` need at once. */
const CONFIG = ['engine_new', 'control', 'engine_reset', 'engine_counts', 'clear_global', 'set_server_id', 'configure', 'sha256_hex'];
/** What calls, listings, grants and dry runs need once configured. */
const CALL = ['engine_new', 'begin', 'begin_at', 'step', 'step_with', 'policy_facts', 'end', 'read', 'begin_listing', 'listing_step', 'listing_given', 'forget_grant', 'explain_unknown'];

/** Builds the core from `crate` keeping only `keep` (function names), with shaping's exports when `withShaping`; answers its sizes. */
function coreWith(crate, target, keep, withShaping) {
  for (const file of BOUNDARY) {
    const source = readFileSync(path.join(root, file), 'utf8');
    const kept = source.replace(/#\[wasm_bindgen[^\]]*\]\n(pub fn ([a-z_0-9]+))/g, (all, decl, name) => (keep.includes(name) ? all : decl));
    writeFileSync(path.join(crate, file), kept);
  }
  // Shaping's exports linked into the core module (the shaping crate as a dependency); its own
  // trap export would clash with the core's: the core's goes when shaping is in.
  const manifest = readFileSync(path.join(root, 'wasm/core/Cargo.toml'), 'utf8');
  writeFileSync(path.join(crate, 'wasm/core/Cargo.toml'), withShaping ? manifest.replace('[dependencies]\n', '[dependencies]\nwarden_shape.workspace = true\n') : manifest);
  if (withShaping) {
    const core = readFileSync(path.join(crate, 'wasm/core/lib.rs'), 'utf8');
    writeFileSync(path.join(crate, 'wasm/core/lib.rs'), core.replace(/#\[wasm_bindgen\(js_name = __testTrap\)\]\n/, '') + '\nuse warden_shape as _;\n');
  }
  run('cargo', ['build', '--quiet', '--release', '--target', 'wasm32-unknown-unknown', '--lib', '-p', 'warden_core'], {
    cwd: crate,
    env: { ...process.env, CARGO_PROFILE_RELEASE_OPT_LEVEL: 'z', CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS: 'false', CARGO_TARGET_DIR: target },
  });
  const out = path.join(target, 'bindgen');
  run('wasm-bindgen', ['--target', 'web', '--out-dir', out, '--out-name', 'core', '--remove-name-section', '--remove-producers-section', path.join(target, 'wasm32-unknown-unknown', 'release', 'warden_core.wasm')]);
  const wasm = path.join(out, 'core_bg.wasm');
  const features = ['--enable-bulk-memory', '--enable-reference-types', '--enable-nontrapping-float-to-int', '--enable-sign-ext', '--enable-mutable-globals', '--enable-multivalue', '--enable-simd'];
  run(path.join(root, 'node_modules', '.bin', 'wasm-opt'), ['-O1', '--strip-target-features', ...features, wasm, '-o', wasm]);
  const bytes = readFileSync(wasm);
  return { raw: bytes.length, gzip: gzip(bytes), lzma: lzma(bytes), glue: readFileSync(path.join(out, 'core.js')).length };
}

function measureCore() {
  const crate = mkdtempSync(path.join(os.tmpdir(), 'warden-split-'));
  const target = path.join(os.tmpdir(), 'warden-split-target');
  try {
    for (const item of ['Cargo.toml', 'Cargo.lock', 'src', 'vendor', 'wasm', 'unlzma']) cpSync(path.join(root, item), path.join(crate, item), { recursive: true });
    const rows = [
      ['every export (the core as built)', [...CONFIG, ...CALL, 'test_trap'], false],
      ['the configuration exports only', CONFIG, false],
      ['the call exports only', CALL, false],
      ['the call exports and shaping', CALL, true],
    ];
    console.log('| the core built with | raw | gzip | LZMA | glue (raw JS) |\n|---|---:|---:|---:|---:|');
    for (const [label, keep, withShaping] of rows) {
      const s = coreWith(crate, target, keep, withShaping);
      console.log(`| ${label} | ${s.raw} | ${s.gzip} | ${s.lzma} | ${s.glue} |`);
    }
  } finally {
    rmSync(crate, { recursive: true, force: true });
  }
}

const what = process.argv[2];
if (what === 'core') measureCore();
else {
  console.error('usage: node bench/split-sizes.mjs core');
  process.exit(2);
}
