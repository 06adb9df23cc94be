// Global configuration: `configureWebMCP`, the global hooks, and the settings the pipeline reads.
import { getCore } from './core.js';
import { ConfigurationError, configurationError } from './errors.js';
import { compileHookSet, isPlainObject, typeName } from './hookset.js';
import type { WebMCPHooks } from './types.js';

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
}

/** Settings the pipeline reads on every call. */
export const settings = {
  hookTimeout: 5000,
  serverId: 'page',
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

const HOOK_EVENTS = ['before', 'after', 'error', 'denied', 'toolsListed'] as const;
let globalHooks: WebMCPHooks = {};

const KNOWN_OPTIONS = new Set(['hooks', 'replace', 'hookTimeout', 'serverId']);
/** Options SPEC §8 names that later parts of the pipeline will read; refused until they exist. */
const NOT_YET = new Set(['policy', 'onAsk', 'askTimeout', 'grantTtl', 'grantStore', 'approvedFingerprints', 'tools', 'maxResultBytesForLlm', 'telemetry', 'capturePayloads']);

/**
 * Configures the page: global hooks, settings. Everything is checked before anything changes, so
 * a `ConfigurationError` leaves the configuration as it was.
 */
export function configureWebMCP(options: WebMCPConfig): void {
  if (!isPlainObject(options)) throw new ConfigurationError('invalid_config', `configureWebMCP expects an options object, not ${typeName(options)}`);
  for (const key of Object.keys(options)) {
    if (NOT_YET.has(key)) throw new ConfigurationError('unsupported_option', `configureWebMCP: "${key}" is not supported by this version of webmcp-warden yet`);
    if (!KNOWN_OPTIONS.has(key)) throw new ConfigurationError('unknown_option', `configureWebMCP: unknown option "${key}"`);
  }
  const { hooks, replace = false, hookTimeout, serverId } = options;
  if (hookTimeout !== undefined && !(typeof hookTimeout === 'number' && Number.isFinite(hookTimeout) && hookTimeout > 0)) {
    throw new ConfigurationError('invalid_config', `configureWebMCP: hookTimeout must be a positive number of milliseconds, not ${String(hookTimeout)}`);
  }
  if (serverId !== undefined && !(typeof serverId === 'string' && serverId.length > 0)) {
    throw new ConfigurationError('invalid_config', 'configureWebMCP: serverId must be a non-empty string');
  }
  if (typeof replace !== 'boolean') throw new ConfigurationError('invalid_config', 'configureWebMCP: replace must be a boolean');
  const core = getCore();
  const set = compileHookSet(hooks, 'hooks');
  if (set !== undefined) {
    const answer = JSON.parse(core.addGlobal(set, replace, 'hooks')) as { ok: boolean; error?: { code: string; message: string; path?: string } };
    if (!answer.ok && answer.error) {
      core.dropHookSet(set);
      throw configurationError(answer.error);
    }
    globalHooks = replace ? copyHooks(hooks) : mergeHooks(globalHooks, hooks);
  } else if (replace) {
    core.clearGlobal();
    globalHooks = {};
  }
  if (hookTimeout !== undefined) settings.hookTimeout = hookTimeout;
  if (serverId !== undefined) {
    settings.serverId = serverId;
    core.setServerId(serverId);
  }
  configurationChanged();
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

/** Everything back to defaults (for tests): global hooks, settings, scopes. Tools stay defined. */
export function resetWebMCP(): void {
  getCore().reset();
  globalHooks = {};
  settings.hookTimeout = 5000;
  settings.serverId = 'page';
  configurationChanged();
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
