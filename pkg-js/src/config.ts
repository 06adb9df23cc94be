// Global configuration: `configureWebMCP`, the global hooks, and the settings the pipeline reads.
import { getCore } from './core.js';
import { ConfigurationError, configurationError } from './errors.js';
import { encodePolicy, governance, retainPredicates, type Approver, type Policy, type ToolFilterFn } from './governance.js';
import { grantSettings, resetGrants, useGrantStore, type GrantStore } from './grants.js';
import { compileHookSet, isPlainObject, typeName } from './hookset.js';
import { toolFilterChanged } from './registry.js';
import { resetTelemetry, setConfiguredTelemetry, type TelemetryHandler } from './telemetry.js';
import type { WebMCPHooks } from './types.js';
import { limits, MAX_ARGUMENT_DEPTH } from './validation.js';
import { decode, encode } from './wire.js';

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
  /** The page's policy (SPEC §5): `{ deny, ask, allow, default, pin, allowNewTools }`. `null` removes it. */
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
   * `'first_listing'`: the baseline is every tool seen up to the first listing or agent call,
   * and a tool first seen after that is new. Default (`null`): each tool's baseline is its
   * definition at first sight.
   */
  approvedFingerprints?: Record<string, string> | 'first_listing' | null;
  /** Which tools agents see: `{ include?, exclude? }` matcher lists, or `(tool, ctx) => boolean`. */
  tools?: { include?: unknown[]; exclude?: unknown[] } | ToolFilterFn | null;
  /** The byte cap of a result shaped for a model, a whole number ≥ 0 (102 400). */
  maxResultBytesForLlm?: number;
  /** A telemetry handler (SPEC §9). */
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

/** Settings the pipeline reads on every call. */
export const settings = {
  hookTimeout: 5000,
  serverId: 'page',
  maxResultBytesForLlm: 102_400,
  capturePayloads: false,
};

/**
 * Bumped on every configuration change: cached plans made under an older version are stale.
 * The TS layer is the only writer of the core's configuration, so it knows when that happens.
 */
export let configVersion = 0;

/** Marks every cached plan stale. */
export function configurationChanged(): void {
  configVersion++;
}

/** The encoded governance settings last applied in the core, to put back after a failure. */
const NULL_SETTING = encode(null);
const inCore = { policy: NULL_SETTING, approved: NULL_SETTING, filter: NULL_SETTING };
/** The predicate handles the policy in force uses. */
let policyHandles: ReadonlySet<number> = new Set();

const HOOK_EVENTS = ['before', 'after', 'error', 'denied', 'toolsListed'] as const;
let globalHooks: WebMCPHooks = {};

const KNOWN_OPTIONS = new Set([
  'hooks', 'replace', 'hookTimeout', 'serverId', 'policy', 'onAsk', 'askTimeout', 'grantTtl', 'grantStore', 'approvedFingerprints',
  'tools', 'maxResultBytesForLlm', 'telemetry', 'capturePayloads', 'clock', 'maxArgumentBytes', 'maxArgumentDepth',
]);

function positive(name: string, value: unknown): void {
  if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value > 0)) {
    throw new ConfigurationError('invalid_config', `configureWebMCP: ${name} must be a positive number, not ${String(value)}`, name);
  }
}

function functionOrNull(name: string, value: unknown): void {
  if (value !== undefined && value !== null && typeof value !== 'function') {
    throw new ConfigurationError('invalid_config', `configureWebMCP: ${name} must be a function, not ${typeName(value)}`, name);
  }
}

/** Applies a setting in the core, throwing its problem as a ConfigurationError. */
function applyInCore(result: Uint8Array): void {
  const answer = decode(result) as { ok: boolean; error?: { code: string; message: string; path?: string } };
  if (!answer.ok && answer.error) throw configurationError(answer.error);
}

/**
 * Configures the page: global hooks, settings. Everything is checked before anything changes, so
 * a `ConfigurationError` leaves the configuration as it was.
 */
export function configureWebMCP(options: WebMCPConfig): void {
  if (!isPlainObject(options)) throw new ConfigurationError('invalid_config', `configureWebMCP expects an options object, not ${typeName(options)}`);
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(key)) throw new ConfigurationError('unknown_option', `configureWebMCP: unknown option "${key}"`);
  }
  const { hooks, replace = false, hookTimeout, serverId } = options;
  positive('hookTimeout', hookTimeout);
  positive('askTimeout', options.askTimeout);
  positive('grantTtl', options.grantTtl);
  const cap = options.maxResultBytesForLlm;
  if (cap !== undefined && !(typeof cap === 'number' && Number.isSafeInteger(cap) && cap >= 0)) {
    // 0 is a cap too: a shaped result then keeps nothing but the truncation notice.
    throw new ConfigurationError('invalid_config', `configureWebMCP: maxResultBytesForLlm must be a whole number of bytes (0 or more), not ${String(cap)}`, 'maxResultBytesForLlm');
  }
  positive('maxArgumentBytes', options.maxArgumentBytes);
  positive('maxArgumentDepth', options.maxArgumentDepth);
  for (const key of ['maxArgumentBytes', 'maxArgumentDepth'] as const) {
    // Counts (bytes, levels), handed to the validator module as u32: whole numbers only.
    if (options[key] !== undefined && !Number.isInteger(options[key])) {
      throw new ConfigurationError('invalid_config', `configureWebMCP: ${key} must be a positive integer, not ${String(options[key])}`, key);
    }
  }
  if (options.maxArgumentDepth !== undefined && options.maxArgumentDepth > MAX_ARGUMENT_DEPTH) {
    throw new ConfigurationError(
      'invalid_config',
      `configureWebMCP: maxArgumentDepth must be at most ${MAX_ARGUMENT_DEPTH} (the core's JSON parser reads at most 127 levels, arguments included in what it is sent), not ${options.maxArgumentDepth}`,
      'maxArgumentDepth',
    );
  }
  functionOrNull('onAsk', options.onAsk);
  functionOrNull('telemetry', options.telemetry);
  if (options.clock !== undefined && typeof options.clock !== 'function') throw new ConfigurationError('invalid_config', 'configureWebMCP: clock must be a function', 'clock');
  if (serverId !== undefined && !(typeof serverId === 'string' && serverId.length > 0)) {
    throw new ConfigurationError('invalid_config', 'configureWebMCP: serverId must be a non-empty string');
  }
  if (typeof replace !== 'boolean') throw new ConfigurationError('invalid_config', 'configureWebMCP: replace must be a boolean');
  if (options.capturePayloads !== undefined && typeof options.capturePayloads !== 'boolean') {
    throw new ConfigurationError('invalid_config', 'configureWebMCP: capturePayloads must be a boolean', 'capturePayloads');
  }
  const store = options.grantStore;
  if (store !== undefined && !(store !== null && typeof store === 'object' && typeof store.load === 'function' && typeof store.save === 'function')) {
    throw new ConfigurationError('invalid_config', 'configureWebMCP: grantStore must have load() and save(grants)', 'grantStore');
  }
  const core = getCore();
  // Settings the core checks go first, each applied once its own check passed; if a later one
  // (or the hooks) fails, the earlier ones are put back, so a problem leaves the configuration
  // as it was.
  const previous = { ...inCore };
  const restore = () => {
    if (inCore.policy !== previous.policy) core.setPolicy(previous.policy);
    if (inCore.approved !== previous.approved) core.setApprovedFingerprints(previous.approved);
    if (inCore.filter !== previous.filter) core.setToolFilter(previous.filter);
    Object.assign(inCore, previous);
  };
  let set: number | undefined;
  let newPolicyHandles: ReadonlySet<number> | undefined;
  // Predicate functions the new policy encoded but that will not be in force are released.
  const fail = (err: unknown): unknown => {
    restore();
    retainPredicates(policyHandles);
    return err;
  };
  try {
    if (options.policy !== undefined) {
      const encoded = encodePolicy(options.policy);
      newPolicyHandles = encoded.handles;
      applyInCore(core.setPolicy(encoded.bytes));
      inCore.policy = encoded.bytes;
    }
    if (options.approvedFingerprints !== undefined) {
      const bytes = encode(options.approvedFingerprints);
      applyInCore(core.setApprovedFingerprints(bytes));
      inCore.approved = bytes;
    }
    if (options.tools !== undefined) {
      const bytes = typeof options.tools === 'function' ? NULL_SETTING : encode(options.tools);
      applyInCore(core.setToolFilter(bytes));
      inCore.filter = bytes;
    }
    set = compileHookSet(hooks, 'hooks');
  } catch (err) {
    throw fail(err);
  }
  if (set !== undefined) {
    const answer = JSON.parse(core.addGlobal(set, replace, 'hooks')) as { ok: boolean; error?: { code: string; message: string; path?: string } };
    if (!answer.ok && answer.error) {
      core.dropHookSet(set);
      throw fail(configurationError(answer.error));
    }
    globalHooks = replace ? copyHooks(hooks) : mergeHooks(globalHooks, hooks);
  } else if (replace) {
    core.clearGlobal();
    globalHooks = {};
  }
  if (options.tools !== undefined) governance.filter = typeof options.tools === 'function' ? options.tools : undefined;
  if (options.policy !== undefined) governance.hasPolicy = options.policy !== null;
  if (newPolicyHandles !== undefined) {
    policyHandles = newPolicyHandles;
    retainPredicates(policyHandles);
  }
  if (options.approvedFingerprints !== undefined) governance.sealPending = options.approvedFingerprints === 'first_listing';
  if (options.onAsk !== undefined) governance.approver = options.onAsk ?? undefined;
  if (options.askTimeout !== undefined) governance.askTimeout = options.askTimeout;
  if (options.grantTtl !== undefined) grantSettings.ttl = options.grantTtl;
  if (store !== undefined) useGrantStore(store);
  if (options.clock !== undefined) grantSettings.clock = options.clock;
  if (options.maxResultBytesForLlm !== undefined) settings.maxResultBytesForLlm = options.maxResultBytesForLlm;
  if (options.capturePayloads !== undefined) settings.capturePayloads = options.capturePayloads;
  if (options.telemetry !== undefined) setConfiguredTelemetry(options.telemetry ?? undefined);
  if (options.maxArgumentBytes !== undefined) limits.maxBytes = options.maxArgumentBytes;
  if (options.maxArgumentDepth !== undefined) limits.maxDepth = options.maxArgumentDepth;
  if (hookTimeout !== undefined) settings.hookTimeout = hookTimeout;
  if (serverId !== undefined) {
    settings.serverId = serverId;
    core.setServerId(serverId);
  }
  configurationChanged();
  // Which tools the filter hides depends on it and on server ids: the browser must follow.
  if (options.tools !== undefined || serverId !== undefined) toolFilterChanged();
}

/** The current global hooks (a copy). */
export function getGlobalHooks(): WebMCPHooks {
  return copyHooks(globalHooks);
}

/** Removes every global hook (for tests). */
export function resetGlobalHooks(): void {
  getCore().clearGlobal();
  globalHooks = {};
  configurationChanged();
}

/** Bumped by `resetWebMCP()`: scope ids the core gave out before it are gone (React providers re-add theirs). */
export let resetCount = 0;

/** Everything back to defaults (for tests): global hooks, settings, scopes. Tools stay defined. */
export function resetWebMCP(): void {
  getCore().reset();
  resetCount++;
  inCore.policy = inCore.approved = inCore.filter = NULL_SETTING;
  policyHandles = new Set();
  retainPredicates(policyHandles);
  globalHooks = {};
  settings.hookTimeout = 5000;
  settings.serverId = 'page';
  settings.maxResultBytesForLlm = 102_400;
  settings.capturePayloads = false;
  governance.hasPolicy = false;
  governance.approver = undefined;
  governance.askTimeout = 60_000;
  governance.filter = undefined;
  governance.sealPending = false;
  resetGrants();
  limits.maxBytes = 1024 * 1024;
  limits.maxDepth = 64;
  resetTelemetry();
  configurationChanged();
  toolFilterChanged();
}

/** Concatenates two hook sets per event (simple-webmcp's `mergeHooks`). */
export function mergeHooks(a: WebMCPHooks | undefined, b: WebMCPHooks | undefined): WebMCPHooks {
  const out: Record<string, unknown[]> = {};
  for (const event of HOOK_EVENTS) {
    const merged = [...((a?.[event] as unknown[]) ?? []), ...((b?.[event] as unknown[]) ?? [])];
    if (merged.length) out[event] = merged;
  }
  return out as WebMCPHooks;
}

function copyHooks(hooks: WebMCPHooks | undefined): WebMCPHooks {
  return mergeHooks(hooks, undefined);
}

/**
 * Orders hooks as simple-webmcp does: `before` global → scoped → tool; `after`, `error` and
 * `denied` tool → scoped → global. (The engine also orders by matcher level; see the README.)
 */
export function mergeHooksOrdered(parts: { globalHooks?: WebMCPHooks; scopedHooks?: WebMCPHooks; toolHooks?: WebMCPHooks }): WebMCPHooks {
  const { globalHooks: g, scopedHooks: s, toolHooks: t } = parts;
  const forward = (event: (typeof HOOK_EVENTS)[number]) => [...((g?.[event] as unknown[]) ?? []), ...((s?.[event] as unknown[]) ?? []), ...((t?.[event] as unknown[]) ?? [])];
  const reverse = (event: (typeof HOOK_EVENTS)[number]) => [...((t?.[event] as unknown[]) ?? []), ...((s?.[event] as unknown[]) ?? []), ...((g?.[event] as unknown[]) ?? [])];
  return {
    before: forward('before'),
    after: reverse('after'),
    error: reverse('error'),
    denied: reverse('denied'),
    toolsListed: forward('toolsListed'),
  } as WebMCPHooks;
}
