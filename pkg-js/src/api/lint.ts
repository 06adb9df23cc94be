// `lintPolicy(policy)`: every problem of a policy without applying it, decided by the lint
// module (lint-module.ts), which only this function reaches: a page that never lints downloads
// none of it. The lint reports the patterns the page's backtracking engine cannot run on every
// string (where each runs instead) when the pattern judgement is loaded. `lintPolicy()` is
// synchronous, so the judgement is compiled here, synchronously, from a copy of its module this
// file imports statically (`warden_patterns_sync.js`): a page that imports `lintPolicy` downloads
// that copy at import, and a page that does not never does (the copy is its own file, so no
// bundler shares it with the judgement's lazily imported chunk;
// `pkg-js/test/bundle-contents.test.mjs`). Once the judgement is in (from either), the core, the
// lint module and the validator all use it (`pattern-host.js`).
import { initSync, judge, WASM_FILE, WASM_LZMA_BASE64 } from '../../wasm/warden_patterns_sync.js';
import { hasJudge, installJudge } from '../../wasm/pattern-host.js';
import { lintBytes } from './lint-module.js';
import { wasmBytes } from '../boundary/wasm-bytes.js';
import { decode, encode } from '../boundary/wire.js';
import type { LintPolicyAnswer } from '../boundary/answers.js';
import type { PolicyDiagnostic } from '../types/policy-types.js';

/**
 * Checks a policy without applying it: rules that can never fire (shadowed by an earlier or
 * higher-precedence rule), limits that can never refuse a call, invalid patterns and limits,
 * patterns refused for the time they could take (`unsafe_pattern`), and patterns that run on the
 * linear-time engine for long strings (`pattern_linear`) or only because the page opted in
 * (`pattern_unsafe`), each with its path (`deny[2].when[0].matches`), unknown keys. Never
 * throws: what cannot be read (a getter or a proxy that throws) is reported like any other wrong
 * value. Functions are numbered for this lint only and never called.
 */
export function lintPolicy(policy: unknown): PolicyDiagnostic[] {
  try {
    judgeSynchronously();
  } catch {
    // Linted without it: slow patterns go unreported, as before the judgement existed.
  }
  try {
    const local = new Map<unknown, number>();
    const bytes = encode(policy, {
      fn: (f) => {
        let handle = local.get(f);
        if (handle === undefined) local.set(f, (handle = local.size));
        return handle;
      },
    });
    const answer = decode(lintBytes(bytes)) as LintPolicyAnswer;
    if (answer.ok) return answer.diagnostics;
    return [{ code: answer.error.code, message: answer.error.message, path: '' }];
  } catch {
    return [{ code: 'invalid_policy', message: 'the policy could not be read', path: '' }];
  }
}

/**
 * Compiles the pattern judgement synchronously unless it is loaded (docs/behaviour.md,
 * "Patterns"); once in, every pattern the page compiles is judged at once.
 */
function judgeSynchronously(): void {
  if (hasJudge()) return;
  installJudge({ glue: { initSync, judge }, module: new WebAssembly.Module(wasmBytes(WASM_FILE, WASM_LZMA_BASE64) as BufferSource) });
}
