// Configuration of a client: `configureWebMCP` (the default client) and `warden.configure`.
// Everything is checked before anything changes, so a `ConfigurationError` leaves the
// configuration as it was.
import type { Warden } from './client.js';
import { ConfigurationError } from './errors.js';
import { encodePolicy, type Approver, type Policy, type ToolFilterFn } from './governance.js';
import { limitsHook } from './limits-hook.js';
import { useGrantStore, type GrantStore } from './grants.js';
import { encode } from './wire.js';
import { compileHookSet, mergeHooks } from './hookset.js';
import { resyncRegistrations } from './pipeline-loader.js';
import type { TelemetryHandler } from './telemetry.js';
import type { WebMCPHooks } from './types.js';
import { isPlainObject, typeName } from './values.js';

/** Options of {@link configureWebMCP}. */
export interface WebMCPConfig {
  /** Global hooks, concatenated onto the existing ones unless `replace: true`. */
  hooks?: WebMCPHooks;
  /** Replace the global hooks instead of adding to them. */
  replace?: boolean;
  /** Default hook deadline in milliseconds (5000). */
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
  /** The approver's deadline in milliseconds (60 000). */
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
  /** Put arguments and results in `tool_call.stop` events. */
  capturePayloads?: boolean;
  /** The clock grants and the core read, in ms since the epoch (default `Date.now`); for tests. */
  clock?: () => number;
  /** Largest JSON of arguments the validator and the policy accept, in UTF-8 bytes (default 1 MiB). */
  maxArgumentBytes?: number;
  /** Deepest nesting of arrays and objects in arguments they accept (`{}` is 1; default 64, at most 100). */
  maxArgumentDepth?: number;
}

const KNOWN_OPTIONS = new Set([
  'hooks', 'replace', 'hookTimeout', 'serverId', 'policy', 'onAsk', 'askTimeout', 'grantTtl', 'grantStore', 'approvedFingerprints',
  'tools', 'maxResultBytesForLlm', 'telemetry', 'capturePayloads', 'clock', 'maxArgumentBytes', 'maxArgumentDepth', 'hookReturns',
]);

/**
 * The deepest `maxArgumentDepth`: arguments nest inside the facts the core reads, and the wire
 * format the core and the validator read nests at most 160 levels; 100 leaves a margin.
 */
export const MAX_ARGUMENT_DEPTH = 100;

/** Settings copied as given (once checked) into the client's `Settings`, which use the same names. */
const PLAIN_SETTINGS = ['askTimeout', 'grantTtl', 'clock', 'maxResultBytesForLlm', 'capturePayloads', 'maxArgumentBytes', 'maxArgumentDepth', 'hookTimeout'] as const;

/** Refuses option `key`: `configureWebMCP: <key> <why>`, at `path` (the option itself unless said). */
function refuse(key: string, why: string, path: string | undefined = key): never {
  throw new ConfigurationError('invalid_config', `configureWebMCP: ${key} ${why}`, path);
}

/**
 * Configures client `w`: global hooks and settings. Everything is checked before anything
 * changes, so a `ConfigurationError` leaves the configuration as it was.
 */
export function configure(w: Warden, options: WebMCPConfig): void {
  // A disposed client refuses configuration (this throws `ConfigurationError('disposed')`).
  w.assertLive();
  if (!isPlainObject(options)) throw new ConfigurationError('invalid_config', `configureWebMCP expects an options object, not ${typeName(options)}`);
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(key)) throw new ConfigurationError('unknown_option', `configureWebMCP: unknown option "${key}"`);
  }
  const { hooks, replace = false, serverId } = options;
  const positive = (key: 'hookTimeout' | 'askTimeout' | 'grantTtl' | 'maxArgumentBytes' | 'maxArgumentDepth') => {
    const value = options[key];
    if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value > 0)) refuse(key, `must be a positive number, not ${String(value)}`);
  };
  positive('hookTimeout');
  positive('askTimeout');
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
  for (const key of ['onAsk', 'telemetry'] as const) {
    const value = options[key];
    if (value !== undefined && value !== null && typeof value !== 'function') refuse(key, `must be a function, not ${typeName(value)}`);
  }
  if (options.clock !== undefined && typeof options.clock !== 'function') refuse('clock', 'must be a function');
  if (serverId !== undefined && !(typeof serverId === 'string' && serverId.length > 0)) refuse('serverId', 'must be a non-empty string', undefined);
  if (typeof replace !== 'boolean') refuse('replace', 'must be a boolean', undefined);
  if (options.capturePayloads !== undefined && typeof options.capturePayloads !== 'boolean') refuse('capturePayloads', 'must be a boolean');
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
    if (w.limitsSpec !== previous.limits) w.setLimits(previous.limits, limitsHook.engine);
    // Predicate functions the new policy encoded but that will not be in force are released.
    w.predicates.retain(w.predicates.inForce);
  };
  let set: number | undefined;
  let policyHandles: ReadonlySet<number> | undefined;
  try {
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
      if (limits !== undefined && limitsHook.engine === undefined) {
        throw new ConfigurationError('limits_unavailable', "configureWebMCP: a policy's limits are counted by webmcp-warden/limits: wrap the policy in withLimits() from it", 'limits');
      }
      w.setLimits(limits === undefined ? undefined : encode(limits, { fn: (f) => w.predicates.handleOf(f as never, () => w.counts().calls) }), limitsHook.engine);
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
    restore();
    throw err;
  }
  if (set !== undefined) w.globalHooks = replace ? mergeHooks(hooks, undefined) : mergeHooks(w.globalHooks, hooks);
  else if (replace) w.globalHooks = {};
  const s = w.settings;
  if (options.tools !== undefined) s.filter = typeof options.tools === 'function' ? options.tools : undefined;
  if (options.policy !== undefined) s.hasPolicy = options.policy !== null;
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
  if (options.hookReturns !== undefined) w.setStrictReturns(options.hookReturns === 'strict');
  if (serverId !== undefined) w.setServerId(serverId);
  // What the browser lists follows the filter, the server id and the toolsListed hooks.
  if (options.tools !== undefined || serverId !== undefined || hooks !== undefined || replace) resyncRegistrations(w);
}
