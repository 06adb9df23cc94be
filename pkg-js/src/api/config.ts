// Configuration of a client: `configureWebMCP` (the default client) and `warden.configure`.
// Everything is checked before anything changes, so a `ConfigurationError` leaves the
// configuration as it was.
import type { ClientState } from '../client/client.js';
import { Bounds } from '../boundary/codes.js';
import { ConfigurationError } from '../util/errors.js';
import { encodePolicy, type Approver, type Policy, type ToolFilterFn } from '../client/governance.js';
import { limitsHook } from '../client/limits-hook.js';
import { useGrantStore, type GrantStore } from '../client/grants.js';
import { encode } from '../boundary/wire.js';
import { compileHookSet, mergeHooks } from '../client/hookset.js';
import type { TelemetryHandler } from '../client/telemetry.js';
import type { WebMCPHooks } from '../types/types.js';
import { isPlainObject, typeName } from '../util/js-values.js';

/** Options of {@link configureWebMCP}. */
export interface WebMCPConfig {
  /** Global hooks, concatenated onto the existing ones unless `replace: true` (a hook already among them is kept once). */
  hooks?: WebMCPHooks;
  /** Replace the global hooks instead of adding to them. */
  replace?: boolean;
  /** Default hook deadline in milliseconds (5000; at most 2^31 − 1, the longest delay a timer holds). */
  hookTimeout?: number;
  /** The server id of tools that name none (`"page"`). */
  serverId?: string;
  /**
   * The page's policy: `{ deny, ask, allow, default, pin, allowNewTools, limits }`. `null` removes
   * it. A policy with `limits` needs `withLimits()` from `webmcp-warden/limits`.
   */
  policy?: Policy | null;
  /** The approver that settles asks. `null` removes it. */
  onAsk?: Approver | null;
  /** The approver's deadline in milliseconds (60 000; at most 2^31 − 1, the longest delay a timer holds). */
  askTimeout?: number;
  /** How long `{ allow: 'always' }` lasts, in milliseconds (one day). */
  grantTtl?: number;
  /** Where grants are kept (in memory by default; `localStorageGrantStore()` is shipped). */
  grantStore?: GrantStore;
  /**
   * Pin exactly these `{ name: fingerprint }` definitions (a tool outside the map is new), or
   * `'first_listing'`: the baseline is sealed at the first listing or agent call, and a tool
   * first seen after it is new. Default: each tool is baselined when first seen.
   */
  approvedFingerprints?: Record<string, string> | 'first_listing' | null;
  /**
   * How hook returns are judged: `'lenient'` (default; simple-webmcp's meaning: a value without
   * a key the event acts on has no effect) or `'strict'` (ConduitMCP's: anything outside the
   * returns table is a bad return).
   */
  hookReturns?: 'lenient' | 'strict';
  /** Which tools agents see: `{ include?, exclude? }` matcher lists, or `(tool, ctx) => boolean`. */
  tools?: { include?: unknown[]; exclude?: unknown[] } | ToolFilterFn | null;
  /** The byte cap of a result shaped for a model, a whole number ≥ 0 (102 400). */
  maxResultBytesForLlm?: number;
  /** A telemetry handler. */
  telemetry?: TelemetryHandler | null;
  /**
   * Put arguments (as the tool received them) and results in `tool_call.stop` events, as JSON,
   * each at most 16 384 characters (a longer one becomes a notice).
   */
  capturePayloads?: boolean;
  /**
   * What captured payloads go through first: `redact(value, where)` gets a copy of the
   * arguments (`where: 'arguments'`) or the result (`'result'`) and answers what to record
   * (`undefined`: nothing). Synchronous; a throw records a notice. `null` removes it.
   */
  redact?: ((value: unknown, where: 'arguments' | 'result') => unknown) | null;
  /**
   * Refuse a tool call whose arguments have a `__proto__` key anywhere (`validation` /
   * `invalid_arguments`, keyword `proto_key`), for tools whose code merges arguments into objects
   * (`Object.assign`, a deep merge), where such a key would set a prototype. Default `false`: it
   * is an ordinary own key, validated and passed on.
   */
  rejectProtoKeys?: boolean;
  /** The clock grants and the core read, in ms since the epoch (default `Date.now`); for tests. */
  clock?: () => number;
  /** Largest JSON of arguments the validator and the policy accept, in UTF-8 bytes (default 1 MiB). */
  maxArgumentBytes?: number;
  /** Deepest nesting of arrays and objects in arguments they accept (`{}` is 1; default 64, at most 100). */
  maxArgumentDepth?: number;
  /**
   * Let patterns that neither the page's `RegExp` nor the linear-time engine can be trusted with
   * (a back-reference or look-around in a pattern that can take exponential or polynomial time)
   * run anyway, on the page's engine, for strings short enough to stay fast; longer strings are
   * not tested (the pattern fails closed). Default `false`: such a pattern is refused
   * (`ConfigurationError('unsafe_pattern')`). Applies to every pattern compiled after it (policy,
   * matchers, JSON Schemas): give it in the same call as the policy, or before.
   * (docs/behaviour.md, "Patterns").
   */
  unsafePatterns?: boolean;
  /**
   * Console diagnostics of every fail-closed event (a hook that threw, timed out or returned
   * outside its contract, a failed approver or predicate, an output that failed its schema, what
   * shaping removed, a refused registration): once per cause, with the hook or rule and the fix.
   * Default: on in development builds (`process.env.NODE_ENV !== 'production'` or Vite's
   * `import.meta.env.DEV`), off in production builds.
   */
  debug?: boolean;
  /**
   * Development mode for hot reload: a tool whose definition changed takes the new definition as
   * its baseline instead of meeting the pin (an explicit `approvedFingerprints` map still pins).
   * Default: on in development builds of a page (a `document`), off in production and on servers.
   * Never turn it on in production: a changed definition is what the pin is there to catch.
   */
  hotReload?: boolean;
}

const KNOWN_OPTIONS = new Set([
  'hooks', 'replace', 'hookTimeout', 'serverId', 'policy', 'onAsk', 'askTimeout', 'grantTtl', 'grantStore', 'approvedFingerprints',
  'tools', 'maxResultBytesForLlm', 'telemetry', 'capturePayloads', 'redact', 'rejectProtoKeys', 'clock', 'maxArgumentBytes', 'maxArgumentDepth', 'hookReturns', 'unsafePatterns', 'debug', 'hotReload',
]);

/**
 * The deepest `maxArgumentDepth`: arguments nest inside the facts the core reads, and the wire
 * format the core and the validator read nests at most 160 levels; 100 leaves a margin.
 */
export const MAX_ARGUMENT_DEPTH = 100;

/** Settings copied as given (once checked) into the client's `Settings`, which use the same names. */
const PLAIN_SETTINGS = ['askTimeout', 'grantTtl', 'clock', 'maxResultBytesForLlm', 'capturePayloads', 'rejectProtoKeys', 'maxArgumentBytes', 'maxArgumentDepth', 'hookTimeout'] as const;

/** Refuses option `key`: `configureWebMCP: <key> <why>`, at `path` (the option itself unless said). */
function refuse(key: string, why: string, path: string | undefined = key): never {
  throw new ConfigurationError('invalid_config', `configureWebMCP: ${key} ${why}`, path);
}

/**
 * `hooks` without the entries (functions or hook objects, by identity) the client's global hooks
 * already hold for the same event; the object itself when there are none. One console warning
 * per client says what was skipped and what to do. Hooks that cannot be read are left as they
 * are, for the core's check to refuse.
 */
function withoutRepeats(w: ClientState, hooks: WebMCPHooks | undefined): WebMCPHooks | undefined {
  if (!isPlainObject(hooks)) return hooks;
  const kept: Record<string, unknown> = {};
  let repeated = false;
  let fresh = false;
  try {
    for (const key of Object.keys(hooks)) {
      const entries: unknown = (hooks as Record<string, unknown>)[key];
      const held = (w.globalHooks as Record<string, unknown[] | undefined>)[key] ?? [];
      const left = Array.isArray(entries) ? entries.filter((entry) => !held.includes(entry) || !(repeated = true)) : entries;
      fresh ||= !Array.isArray(left) || left.length > 0;
      kept[key] = left;
    }
  } catch {
    return hooks;
  }
  if (repeated && !w.warnedRepeatedHooks) {
    w.warnedRepeatedHooks = true;
    console.warn('webmcp-warden: configureWebMCP({ hooks }) was given hooks already among the global hooks; each is kept once (replace: true sets them instead).');
  }
  // Nothing new at all: no hook set is made (an empty one per call would pile up in the plan).
  return fresh ? (kept as WebMCPHooks) : undefined;
}

/**
 * Configures client `w`: global hooks and settings. Everything is checked before anything
 * changes, so a `ConfigurationError` leaves the configuration as it was. Answers whether what the
 * browser lists may have changed (the filter, the server id, the hooks): the caller then brings
 * the registrations in line.
 */
export function configure(w: ClientState, options: WebMCPConfig): boolean {
  // A disposed client refuses configuration (this throws `ConfigurationError('disposed')`).
  w.assertLive();
  if (!isPlainObject(options)) throw new ConfigurationError('invalid_config', `configureWebMCP expects an options object, not ${typeName(options)}`);
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(key)) throw new ConfigurationError('unknown_option', `configureWebMCP: unknown option "${key}"`);
  }
  const { replace = false, serverId } = options;
  // Without `replace`, a hook already among the global hooks is not added again (a React effect
  // that configures on every render would otherwise add one more copy each time).
  const hooks = replace ? options.hooks : withoutRepeats(w, options.hooks);
  // Deadlines become timers, and a timer cannot wait longer than 2^31 − 1 ms: a longer delay
  // fires at once (every call would time out). `grantTtl` is no timer (an expiry the core
  // compares with the clock), so it takes any positive number.
  const positive = (key: 'hookTimeout' | 'askTimeout' | 'grantTtl' | 'maxArgumentBytes' | 'maxArgumentDepth', most = Number.MAX_VALUE) => {
    const value = options[key];
    if (value !== undefined && !(typeof value === 'number' && value > 0 && value <= most)) refuse(key, `must be a positive number${most < Number.MAX_VALUE ? `, at most ${most} milliseconds (the longest delay a timer holds)` : ''}, not ${String(value)}`);
  };
  positive('hookTimeout', Bounds.MaxTimerMs);
  positive('askTimeout', Bounds.MaxTimerMs);
  positive('grantTtl');
  const cap = options.maxResultBytesForLlm;
  // 0 is a cap too: a shaped result then keeps nothing but the truncation notice.
  if (cap !== undefined && !(typeof cap === 'number' && Number.isSafeInteger(cap) && cap >= 0)) refuse('maxResultBytesForLlm', `must be a whole number of bytes (0 or more), not ${String(cap)}`);
  positive('maxArgumentBytes');
  positive('maxArgumentDepth');
  for (const key of ['maxArgumentBytes', 'maxArgumentDepth'] as const) {
    // Counts (bytes, levels), handed to the validator module as u32: whole numbers only.
    if (options[key] !== undefined && !Number.isInteger(options[key])) refuse(key, `must be a positive integer, not ${String(options[key])}`);
  }
  if (options.maxArgumentDepth !== undefined && options.maxArgumentDepth > MAX_ARGUMENT_DEPTH) refuse('maxArgumentDepth', `must be at most ${MAX_ARGUMENT_DEPTH}, not ${options.maxArgumentDepth}`);
  for (const key of ['onAsk', 'telemetry', 'redact'] as const) {
    const value = options[key];
    if (value !== undefined && value !== null && typeof value !== 'function') refuse(key, `must be a function, not ${typeName(value)}`);
  }
  if (options.clock !== undefined && typeof options.clock !== 'function') refuse('clock', 'must be a function');
  if (serverId !== undefined && !(typeof serverId === 'string' && serverId.length > 0)) refuse('serverId', 'must be a non-empty string', undefined);
  if (typeof replace !== 'boolean') refuse('replace', 'must be a boolean', undefined);
  for (const key of ['capturePayloads', 'rejectProtoKeys', 'unsafePatterns', 'debug', 'hotReload'] as const) {
    if (options[key] !== undefined && typeof options[key] !== 'boolean') refuse(key, 'must be a boolean');
  }
  if (options.hookReturns !== undefined && options.hookReturns !== 'strict' && options.hookReturns !== 'lenient') refuse('hookReturns', `must be 'lenient' or 'strict', not ${typeName(options.hookReturns)}`);
  const store = options.grantStore;
  if (store !== undefined && !(store !== null && typeof store === 'object' && typeof store.load === 'function' && typeof store.save === 'function')) refuse('grantStore', 'must have load() and save(grants)');
  const approved = options.approvedFingerprints;
  // Settings the core checks go first, each applied once its own check passed; if a later one
  // (or the hooks) fails, the earlier ones are put back.
  const previous = { policy: w.governanceBytes('policy'), approved: w.governanceBytes('approved'), filter: w.governanceBytes('filter'), limits: w.limitsSpec };
  const restore = () => {
    for (const which of ['policy', 'approved', 'filter'] as const) {
      if (w.governanceBytes(which) !== previous[which]) w.setGovernance(which, previous[which]);
    }
    if (w.limitsSpec !== previous.limits) w.setLimits(previous.limits, limitsHook.module);
    // Predicate functions the new policy encoded but that will not be in force are released.
    w.predicates.retain(w.predicates.inForce);
  };
  let set: number | undefined;
  let policyHandles: ReadonlySet<number> | undefined;
  // First: the patterns compiled below read it (and it is put back if they fail).
  const unsafeBefore = w.settings.unsafePatterns;
  try {
    if (options.unsafePatterns !== undefined) w.setUnsafePatterns(options.unsafePatterns);
    if (options.policy !== undefined) {
      const encoded = encodePolicy(w, options.policy);
      policyHandles = encoded.handles;
      w.setGovernance('policy', encoded.bytes);
      // The core leaves `limits` to the limits module (webmcp-warden/limits).
      let limits: unknown;
      try {
        limits = options.policy === null ? undefined : (options.policy as { limits?: unknown }).limits;
      } catch {
        throw new ConfigurationError('invalid_policy', 'configureWebMCP: policy.limits could not be read', 'limits');
      }
      if (limits !== undefined && limitsHook.module === undefined) {
        throw new ConfigurationError('limits_unavailable', "configureWebMCP: a policy's limits are counted by webmcp-warden/limits: wrap the policy in withLimits() from it", 'limits');
      }
      w.setLimits(limits === undefined ? undefined : encode(limits, { fn: (f) => w.predicates.handleOf(f as never, () => w.counts().calls) }), limitsHook.module);
    }
    if (approved !== undefined) w.setGovernance('approved', encode(approved));
    if (options.tools !== undefined) w.setGovernance('filter', encode(typeof options.tools === 'function' ? null : options.tools));
    set = compileHookSet(w, hooks, 'hooks');
    if (set !== undefined) {
      for (const replaced of w.addGlobal(set, replace)) w.dropHookSet(replaced);
    } else if (replace) {
      for (const removed of w.clearGlobal()) w.dropHookSet(removed);
    }
  } catch (err) {
    if (set !== undefined) w.dropHookSet(set);
    if (w.settings.unsafePatterns !== unsafeBefore) w.setUnsafePatterns(unsafeBefore);
    restore();
    throw err;
  }
  if (set !== undefined) w.globalHooks = replace ? mergeHooks(hooks, undefined) : mergeHooks(w.globalHooks, hooks);
  else if (replace) w.globalHooks = {};
  const s = w.settings;
  if (options.tools !== undefined) s.filter = typeof options.tools === 'function' ? options.tools : undefined;
  if (options.policy !== undefined) {
    s.hasPolicy = options.policy !== null;
    s.policy = options.policy ?? undefined;
  }
  if (policyHandles !== undefined) {
    w.predicates.inForce = policyHandles;
    w.predicates.retain(policyHandles);
  }
  if (options.onAsk !== undefined) s.approver = options.onAsk ?? undefined;
  for (const key of PLAIN_SETTINGS) if (options[key] !== undefined) (s as unknown as Record<string, unknown>)[key] = options[key];
  if (store !== undefined) useGrantStore(w, store);
  if (approved !== undefined) {
    s.approvedFingerprints = approved ?? undefined;
    w.sealed = false;
  }
  if (options.telemetry !== undefined) w.telemetry.setConfigured(options.telemetry ?? undefined);
  if (options.redact !== undefined) s.redact = options.redact ?? undefined;
  if (options.hookReturns !== undefined) w.setStrictReturns(options.hookReturns === 'strict');
  if (options.debug !== undefined) s.debug = options.debug;
  if (options.hotReload !== undefined) w.setHotReload(options.hotReload);
  if (serverId !== undefined) w.setServerId(serverId);
  // What the browser lists follows the filter, the server id and the toolsListed hooks.
  return options.tools !== undefined || serverId !== undefined || hooks !== undefined || Boolean(replace);
}
