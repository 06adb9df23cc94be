// The options of a call (`tool.invoke`, `invokeTool`, the browser's `execute`, a resource read, a
// prompt get, a dry run) and of a listing, read once. They come from whoever calls, an in-page
// agent included, so they are read defensively: own keys only, each read exactly once (a getter
// or a proxy that throws, or a revoked proxy, is a misuse like any other), `taint` with a bound
// on how many entries are read (an endless iterable cannot hang the page), and every problem
// answered as a sentence the caller turns into data (`invalid_options`), never thrown.
import { Bounds } from '../boundary/codes.js';
import type { ReadCallOptions } from '../types/internal.js';
import type { CallOptions, ListingOptions } from '../types/types.js';

export type { ReadCallOptions };

/** The most `taint` entries read; a longer list is refused (an endless iterable ends here). */
export const MAX_TAINT_ENTRIES = 1024;

/** Each option: whether a value is one, and what it must be (`timeout` at most what a timer holds). */
const OPTIONS: Record<string, [(value: unknown) => boolean, string]> = {
  principal: [(value) => typeof value === 'string', 'a string'],
  signal: [isSignal, 'an AbortSignal'],
  shape: [(value) => value === 'llm' || value === false, "'llm' or false"],
  assigns: [(value) => value !== null && typeof value === 'object', 'an object'],
  // NaN, Infinity and anything a timer cannot hold (it would fire at once) included.
  timeout: [(value) => typeof value === 'number' && value > 0 && value <= Bounds.MaxTimerMs, 'a positive number of milliseconds, at most 2147483647'],
  taint: [() => true, ''],
};

const CALL_KEYS = Object.keys(OPTIONS);
const LISTING_KEYS = CALL_KEYS.filter((key) => key !== 'timeout' && key !== 'taint');

/**
 * The caller's call options read once, or a sentence saying what is wrong with them. `null` and
 * `undefined` mean none.
 */
export function readCallOptions(options: CallOptions | null | undefined | unknown): ReadCallOptions | string {
  // Most calls have none: nothing to read (this runs on every call). Every call gets an object
  // of one shape, which keeps the reads of it monomorphic.
  if (options === undefined || options === null) return { principal: undefined, taint: new Set(), shape: undefined, signal: undefined, timeout: undefined, assigns: undefined };
  const read = readOptions(options, 'call');
  if (typeof read === 'string') return read;
  const taint = readTaint(read.taint);
  if (typeof taint === 'string') return taint;
  return { principal: read.principal, taint, shape: read.shape, signal: read.signal, timeout: read.timeout, assigns: read.assigns } as ReadCallOptions;
}

/** A listing's options (`listTools`: `principal`, `assigns`, `signal`, `shape`) read once, or a sentence saying what is wrong. */
export function readListingOptions(options: ListingOptions | null | undefined | unknown): ListingOptions | string {
  return readOptions(options, 'listing') as ListingOptions | string;
}

/** The options' own known keys, each read once and checked. */
function readOptions(options: unknown, what: 'call' | 'listing'): Record<string, unknown> | string {
  const known = what === 'call' ? CALL_KEYS : LISTING_KEYS;
  const read: Record<string, unknown> = {};
  if (options === undefined || options === null) return read;
  if (typeof options !== 'object') return `${what} options must be an object, not ${typeof options}`;
  try {
    for (const key of Object.keys(options)) {
      if (!known.includes(key)) return `unknown ${what} option "${key.slice(0, 100)}" (expected ${known.join(', ')})`;
      const value = (read[key] = (options as Record<string, unknown>)[key]);
      const [holds, be] = OPTIONS[key] as [(value: unknown) => boolean, string];
      if (value !== undefined && !holds(value)) return `${what} option ${key} must be ${be}, not ${value === null ? 'null' : typeof value === 'number' ? value : typeof value}`;
    }
  } catch {
    // What the getter or proxy threw is not quoted: it may quote anything.
    return `${what} options cannot be read: a getter or proxy threw`;
  }
  return read;
}

/**
 * Whether `signal` is an `AbortSignal` the call can rely on: one of the platform's own (its
 * prototype, the platform's `aborted` getter accepts it) with nothing of its own that would
 * answer for the platform's members. A proxy that throws on the way is refused too.
 */
function isSignal(signal: unknown): boolean {
  try {
    if (signal === null || typeof signal !== 'object' || Object.getPrototypeOf(signal) !== AbortSignal.prototype || Object.getOwnPropertyNames(signal).length > 0) return false;
    Object.getOwnPropertyDescriptor(AbortSignal.prototype, 'aborted')?.get?.call(signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * `taint` as a Set of server ids: a string is one id; an array or another iterable of strings is
 * read up to {@link MAX_TAINT_ENTRIES} entries (more is refused, so an endless iterable ends).
 */
function readTaint(taint: unknown): Set<string> | string {
  const servers = new Set<string>();
  if (taint === undefined || taint === null) return servers;
  if (typeof taint === 'string') return servers.add(taint);
  const problem = 'call option taint must be an array or Set of server ids (strings)';
  try {
    if (typeof taint !== 'object' || typeof (taint as { [Symbol.iterator]?: unknown })[Symbol.iterator] !== 'function') return problem;
    // Entries counted as read, not as kept: an endless run of one id ends too.
    let read = 0;
    for (const item of taint as Iterable<unknown>) {
      if (++read > MAX_TAINT_ENTRIES) return `call option taint has more than ${MAX_TAINT_ENTRIES} entries`;
      if (typeof item !== 'string') return problem;
      servers.add(item);
    }
  } catch {
    return problem;
  }
  return servers;
}
