// Provider and per-mount hooks reached through wrappers.
//
// The core compiles a hooks object once (entries, matchers, ids, timeouts: its *structure*) and
// keeps handles to its functions. A component re-renders with new inline function literals every
// time, so compiling per render would churn the core and re-register tools. Instead the core
// gets wrappers that look up the function at the same place in the latest committed hooks, and a
// new compilation happens only when the structure changes.

import { encode } from '../boundary/wire.js';
import { isPlainObject } from '../util/js-values.js';

/** Where wrapped hook functions read the latest committed hooks (set at commit). */
export interface HookSource {
  /** The hooks object last committed, in the shape it was compiled from. */
  hooks: unknown;
}

/**
 * The structure of a hooks object: everything the core compiles except the identity of the
 * functions, as a string two equal structures share (`''` for no hooks).
 */
export function structureOf(hooks: unknown): string {
  if (hooks === undefined || hooks === null) return '';
  // The wire encoding is what the core reads, so equal encodings compile to equal hook sets;
  // every function encodes as the same handle, which leaves their identity out.
  return Array.from(encode(hooks, { fn: () => 0 }), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * The same hooks with every function replaced by a wrapper calling the function at the same
 * place in `source.hooks`. Invalid entries are kept as they are, so the core's error names them.
 */
export function wrapHooks(hooks: unknown, source: HookSource): unknown {
  if (!isPlainObject(hooks)) return hooks;
  const out: Record<string, unknown> = {};
  for (const event of Object.keys(hooks)) {
    const entries: unknown = hooks[event];
    out[event] = Array.isArray(entries) ? entries.map((entry, index) => wrapEntry(entry, event, index, source)) : entries;
  }
  return out;
}

function wrapEntry(entry: unknown, event: string, index: number, source: HookSource): unknown {
  // Safe to index blindly: a wrapper exists only while the committed hooks have this structure
  // (a structure change compiles new wrappers), so the entry is there and has the same form.
  const run = function (this: unknown, ...args: unknown[]): unknown {
    const current = (source.hooks as Record<string, unknown[] | undefined>)[event]?.[index];
    const fn = typeof current === 'function' ? current : (current as { run: (...a: unknown[]) => unknown }).run;
    return fn.apply(this, args);
  };
  if (typeof entry === 'function') return run;
  if (isPlainObject(entry) && typeof entry.run === 'function') return { ...entry, run };
  return entry;
}
