// The lint module: the Rust crate's policy lint (`src/policy/lint.rs`, limits' in
// `src/policy/limits.rs`), built from `wasm/lint/`. Every problem of a policy, and
// rules and limits that can never fire, are found there; this file only runs it. A module of
// its own rather than part of the core, because a page that never lints must not download it:
// only `lintPolicy` (lint.ts) imports this file (`bundle-contents.test.mjs`).
//
// Compiled synchronously on first use, as the core is (`lintPolicy()` answers at once), from
// bytes shipped in the package; stateless, so a trapped instance is simply replaced by the next
// crossing.
import * as glue from '../../wasm/warden_lint.js';
import { WASM_FILE, WASM_LZMA_BASE64 } from '../../wasm/warden_lint_bytes.js';
import { wasmBytes } from '../boundary/wasm-bytes.js';
import { TrapGuard } from '../boundary/trap-guard.js';

/** The page's compiled lint module (lint reads no client). */
let compiled: WebAssembly.Module | undefined;

/**
 * The instance: made from the compiled module on first use, and again after a failed lint.
 * `@__PURE__`: nothing happens at import, so a page's bundler drops it (and the module's bytes)
 * from a bundled chunk when nothing lints (ARCHITECTURE.md, "Build outputs").
 */
const instance = /* @__PURE__ */ new TrapGuard(() => {
  compiled ??= new WebAssembly.Module(wasmBytes(WASM_FILE, WASM_LZMA_BASE64) as BufferSource);
  glue.initSync({ module: compiled });
});

/** The diagnostics of a wire-encoded policy (`wasm/lint/lib.rs`), as a wire-encoded answer. */
export function lintBytes(policy: Uint8Array): Uint8Array {
  try {
    return instance.run(() => glue.lintPolicy(policy));
  } catch (err) {
    // Stateless: whatever failed (a trap or not), the next lint makes a fresh instance.
    instance.drop();
    throw err;
  }
}
