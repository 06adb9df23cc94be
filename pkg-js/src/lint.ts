// `lintPolicy(policy)`: every problem of a policy without applying it, decided by the lint
// module (lint-module.ts), which only this function reaches: a page that never lints downloads
// none of it.
import { lintBytes } from './lint-module.js';
import { decode, encode } from './wire.js';
import type { LintPolicyAnswer } from './answers.js';
import type { PolicyDiagnostic } from './policy-types.js';

/**
 * Checks a policy without applying it: rules that can never fire (shadowed by an earlier or
 * higher-precedence rule), limits that can never refuse a call, invalid patterns and limits,
 * unknown keys. Never throws: what cannot be read (a getter or a proxy that throws) is reported
 * like any other wrong value. Functions are numbered for this lint only and never called.
 */
export function lintPolicy(policy: unknown): PolicyDiagnostic[] {
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
