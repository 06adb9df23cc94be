// Hook sets: convert the user's hooks into a description the core checks, and keep the
// functions the core's handles refer to.
import { getCore } from './core.js';
import { configurationError } from './errors.js';
import type { WebMCPHooks } from './types.js';

/** A hook function as the pipeline calls it. */
export type AnyHook = (...args: any[]) => unknown;

/** What the TS layer keeps per hook handle: the function and its own deadline. */
export interface HookRecord {
  run: AnyHook;
  timeout: number | undefined;
}

/** Hook functions by the handle the core gave them. */
export const hookTable: (HookRecord | undefined)[] = [];

/** The events in the order the core numbers a set's entries. */
const EVENT_ORDER = ['before', 'after', 'error', 'denied', 'toolsListed'] as const;

/**
 * Checks and compiles `hooks` in the core and stores their functions; returns the set's id,
 * or `undefined` when there are no hooks. Throws `ConfigurationError` naming the event and the
 * entry (`hooks.before[1]`) on the first invalid one.
 */
export function compileHookSet(hooks: unknown, label: string): number | undefined {
  if (hooks === undefined || hooks === null) return undefined;
  const answer = JSON.parse(getCore().compileHookSet(JSON.stringify(describeHooks(hooks)), label)) as
    | { ok: true; set: number; handles: number[] }
    | { ok: false; error: { code: string; message: string; path?: string } };
  if (!answer.ok) throw configurationError(answer.error);
  const records = EVENT_ORDER.flatMap((event) => {
    const entries = (hooks as Record<string, unknown>)[event];
    return Array.isArray(entries) ? entries.map(toRecord) : [];
  });
  answer.handles.forEach((handle, i) => {
    hookTable[handle] = records[i];
  });
  return answer.set;
}

function toRecord(entry: unknown): HookRecord {
  if (typeof entry === 'function') return { run: entry as AnyHook, timeout: undefined };
  const options = entry as { run: AnyHook; timeout?: number };
  return { run: options.run, timeout: options.timeout };
}

/** The JSON description of a hooks object the core checks (see `hooks.rs`). */
export function describeHooks(hooks: unknown): unknown {
  if (!isPlainObject(hooks)) return { $invalid: typeName(hooks) };
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(hooks)) {
    const entries = hooks[key];
    if (entries === undefined) continue;
    out[key] = Array.isArray(entries) ? entries.map(describeEntry) : { $invalid: typeName(entries) };
  }
  return out;
}

function describeEntry(entry: unknown): unknown {
  if (typeof entry === 'function') return { $fn: true };
  if (!isPlainObject(entry)) return { $invalid: typeName(entry) };
  const out: Record<string, unknown> = { $object: true, keys: Object.keys(entry), run: typeof entry.run };
  if (entry.match !== undefined) out.match = describeMatcher(entry.match);
  for (const key of ['id', 'timeout', 'onError'] as const) {
    if (entry[key] !== undefined) out[key] = jsonish(entry[key]);
  }
  return out;
}

/** The JSON form of a matcher the core compiles (see `matcher.rs`). */
export function describeMatcher(match: unknown): unknown {
  if (typeof match === 'string') return match;
  if (match instanceof RegExp) return { $regex: { source: match.source, flags: match.flags } };
  if (isPlainObject(match)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(match)) {
      const value = match[key];
      out[key] = value instanceof RegExp ? { $regex: { source: value.source, flags: value.flags } } : jsonish(value);
    }
    return out;
  }
  return { $invalid: typeName(match) };
}

/** A primitive as JSON, or `{ $invalid: <type> }` for what JSON cannot say. */
function jsonish(value: unknown): unknown {
  if (typeof value === 'string' || typeof value === 'boolean' || value === null) return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : { $invalid: String(value) };
  return { $invalid: typeName(value) };
}

/** How a value's type reads in a message: `a function`, `an array`, `null`, … */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value instanceof RegExp) return 'a RegExp';
  const type = typeof value;
  return type === 'object' || type === 'undefined' ? (type === 'object' ? 'an object' : 'undefined') : `a ${type}`;
}

/** A plain object (not an array, a function, a class instance other than Object). */
export function isPlainObject(value: unknown): value is Record<string, any> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
