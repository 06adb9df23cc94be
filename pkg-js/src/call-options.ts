// The options of a call (`tool.invoke`, `invokeTool`, the browser's `execute`, a resource read, a
// prompt get, a dry run) and of a listing, read once. They come from whoever calls, an in-page
// agent included, so they are read defensively: own keys only, each read exactly once (a getter
// or a proxy that throws, or a revoked proxy, is a misuse like any other), `taint` with a bound
// on how many entries are read (an endless iterable cannot hang the page), and every problem
// answered as a sentence the caller turns into data (`invalid_options`), never thrown.
import { Bounds } from './from-entry.js';
import type { ReadCallOptions } from './internal.js';
import type { CallOptions, ListingOptions } from './types.js';

export type { ReadCallOptions };

/** The most `taint` entries read; a longer list is refused (an endless iterable ends here). */
export const MAX_TAINT_ENTRIES = 1024;

const CALL_KEYS = ['principal', 'taint', 'shape', 'signal', 'timeout', 'assigns'] as const;
const LISTING_KEYS = ['principal', 'assigns', 'signal', 'shape'] as const;

/**
 * The caller's call options read once, or a sentence saying what is wrong with them. `null` and
 * `undefined` mean none.
 */
export function readCallOptions(options: CallOptions | null | undefined | unknown): ReadCallOptions | string {
  const read = readOwn(options, CALL_KEYS, 'call');
  if (typeof read === 'string') return read;
  const { principal, signal, shape, assigns, timeout, taint } = read;
  if (principal !== undefined && typeof principal !== 'string') return 'call option principal must be a string';
  const signalProblem = signal === undefined ? undefined : checkSignal(signal, 'call');
  if (signalProblem !== undefined) return signalProblem;
  if (shape !== undefined && shape !== 'llm' && shape !== false) return "call option shape must be 'llm' or false";
  if (assigns !== undefined && (assigns === null || typeof assigns !== 'object')) return 'call option assigns must be an object';
  if (timeout !== undefined && !(typeof timeout === 'number' && timeout > 0 && timeout <= Bounds.MaxTimerMs)) {
    // NaN, Infinity and anything a timer cannot hold (it would fire at once) included.
    return `call option timeout must be a positive number of milliseconds, at most ${Bounds.MaxTimerMs} (the longest delay a timer holds), not ${describe(timeout)}`;
  }
  const servers = readTaint(taint);
  if (typeof servers === 'string') return servers;
  return {
    principal: principal as string | undefined,
    taint: servers,
    shape: shape as ReadCallOptions['shape'],
    signal: signal as AbortSignal | undefined,
    timeout: timeout as number | undefined,
    assigns: assigns as Record<string, unknown> | undefined,
  };
}

/** A listing's options (`listTools`) read once, or a sentence saying what is wrong with them. */
export function readListingOptions(options: ListingOptions | null | undefined | unknown): ListingOptions | string {
  const read = readOwn(options, LISTING_KEYS, 'listing');
  if (typeof read === 'string') return read;
  const { principal, signal, shape, assigns } = read;
  if (principal !== undefined && typeof principal !== 'string') return 'listing option principal must be a string';
  const signalProblem = signal === undefined ? undefined : checkSignal(signal, 'listing');
  if (signalProblem !== undefined) return signalProblem;
  if (shape !== undefined && shape !== 'llm' && shape !== false) return "listing option shape must be 'llm' or false";
  if (assigns !== undefined && (assigns === null || typeof assigns !== 'object')) return 'listing option assigns must be an object';
  const listing: ListingOptions = {};
  if (principal !== undefined) listing.principal = principal as string;
  if (signal !== undefined) listing.signal = signal as AbortSignal;
  if (shape !== undefined) listing.shape = shape as 'llm' | false;
  if (assigns !== undefined) listing.assigns = assigns as Record<string, unknown>;
  return listing;
}

/** The options' own known keys, each read once; unknown keys and unreadable objects refused. */
function readOwn<K extends string>(options: unknown, known: readonly K[], what: 'call' | 'listing'): Partial<Record<K, unknown>> | string {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object') return `${what} options must be an object, not ${typeof options}`;
  const read: Partial<Record<K, unknown>> = {};
  try {
    for (const key of Object.keys(options)) {
      if (!(known as readonly string[]).includes(key)) return `unknown ${what} option "${key.slice(0, 100)}" (expected ${known.join(', ')})`;
      read[key as K] = (options as Record<string, unknown>)[key];
    }
  } catch {
    // What the getter or proxy threw is not quoted: it may quote anything.
    return `${what} options cannot be read: a getter or proxy threw`;
  }
  return read;
}

/**
 * Why `signal` is not an `AbortSignal` the call can rely on, if it is not: one of the platform's
 * own (its prototype, the platform's `aborted` getter accepts it) with nothing of its own that
 * would answer for the platform's members. A proxy that throws on the way is refused too.
 */
function checkSignal(signal: unknown, what: 'call' | 'listing'): string | undefined {
  const problem = `${what} option signal must be an AbortSignal`;
  try {
    if (signal === null || typeof signal !== 'object' || Object.getPrototypeOf(signal) !== AbortSignal.prototype) return problem;
    if (Object.getOwnPropertyNames(signal).length > 0) return problem;
    abortedGetter?.call(signal);
    return undefined;
  } catch {
    return problem;
  }
}

const abortedGetter = Object.getOwnPropertyDescriptor(AbortSignal.prototype, 'aborted')?.get;

/**
 * `taint` as a Set of server ids: a string is one id; an array or another iterable of strings is
 * read up to {@link MAX_TAINT_ENTRIES} entries (more is refused, so an endless iterable ends).
 */
function readTaint(taint: unknown): Set<string> | string {
  if (taint === undefined || taint === null) return new Set();
  if (typeof taint === 'string') return new Set([taint]);
  const problem = 'call option taint must be an array or Set of server ids (strings)';
  const servers = new Set<string>();
  try {
    if (typeof taint !== 'object' || typeof (taint as { [Symbol.iterator]?: unknown })[Symbol.iterator] !== 'function') return problem;
    let count = 0;
    for (const item of taint as Iterable<unknown>) {
      if (++count > MAX_TAINT_ENTRIES) return `call option taint has more than ${MAX_TAINT_ENTRIES} entries`;
      if (typeof item !== 'string') return problem;
      servers.add(item);
    }
  } catch {
    return `${problem}; reading it threw`;
  }
  return servers;
}

/** A number as a message quotes it (never a value's own `toString`). */
function describe(value: unknown): string {
  return typeof value === 'number' ? String(value) : typeof value;
}
