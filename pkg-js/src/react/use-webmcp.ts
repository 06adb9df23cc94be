// useWebMCP: a tool registered with the browser while the component is mounted, its registration
// status, and its execution state.
import { useCallback, useContext, useEffect, useMemo, useRef, useSyncExternalStore } from 'react';
import { activityOf } from './activity.js';
import type { ClientState } from '../client/client.js';
import { ConfigurationError } from '../util/errors.js';

import { getModelContext } from '../runtime/runtime.js';
import { createTool, isWebMCPTool, onStatusChange, recordOf } from '../api/tool.js';
import type { AnyToolOptions } from '../types/internal.js';
import type {
  JsonSchema,
  RegistrationStatus,
  StandardSchemaV1,
  ToolArgs,
  ToolCallContext,
  ToolFunction,
  ToolHooks,
  ToolInput,
  ToolOptions,
  ToolResult,
  WebMCPHooks,
  WebMCPTool,
} from '../types/types.js';
import { isStandardSchema } from '../util/schema-export.js';
import { executionStateOf, useToolActivity, type ExecutionState } from './activity.js';
import { ScopeContext, useIsomorphicLayoutEffect, clientStateOf } from './context.js';
import { adoptTool, joinMount, mountView } from './mounts.js';
import type { ScopeHandle } from './scope.js';
import { structureOf, wrapHooks, type HookSource } from './wrappers.js';
import { isPlainObject, typeName } from '../util/js-values.js';

/** What {@link useWebMCP} reports: registration, and the execution state of the tool's calls. */
export interface UseWebMCPResult extends ExecutionState {
  /** The page has a WebMCP runtime (`document.modelContext`). */
  supported: boolean;
  /** The tool is registered with the browser. */
  registered: boolean;
  /** The tool's registration status (`tool.status`, kept in sync). */
  status: RegistrationStatus;
  /**
   * The **registration** error, when `status` is `'error'`; the last call's error is
   * `lastError` (see `docs/behaviour.md`, "React").
   */
  error: Error | null;
}

/** The tool a mount made from a function, and what made it. */
interface ToolSlot {
  /** The definition's key (see {@link definitionKey}). */
  key: string;
  /** The client it was made in. */
  w: ClientState;
  tool: WebMCPTool;
  /** Where its hook wrappers read the latest committed hooks. */
  source: HookSource;
}

/** The JSON of what defines a tool made from options; a change makes a new tool. */
function definitionKey(fn: (...args: any[]) => any, options: AnyToolOptions): string {
  const { hooks, schema, ...plain } = options;
  try {
    return JSON.stringify([fn.name, plain, isStandardSchema(schema) ? '$standard' : (schema ?? null), structureOf(hooks)]);
  } catch {
    // Options JSON cannot say (a cycle, a BigInt): keep the first tool.
    return '$unkeyable';
  }
}

/** Makes the tool of a `useWebMCP(fn, options)` mount in client `w`, calling `latest.current`. */
function createMountTool(w: ClientState, fn: (...args: any[]) => any, options: AnyToolOptions, key: string, latest: { current: (...args: any[]) => any }, handle: ScopeHandle | null): ToolSlot {
  if (options.scope === 'global') {
    throw new ConfigurationError('invalid_options', "useWebMCP(fn, options): scope 'global' registers at creation, not on mount; create the tool with webmcp() outside the component", 'scope');
  }
  const source: HookSource = { hooks: options.hooks };
  // The tool calls the latest committed function, so an inline function re-created on every
  // render neither makes a new tool nor re-registers.
  const proxy = function (this: unknown, ...args: unknown[]): unknown {
    return latest.current.apply(this, args);
  };
  Object.defineProperties(proxy, { name: { value: fn.name }, length: { value: fn.length } });
  const tool = createTool(w, proxy, options.hooks === undefined ? options : { ...options, hooks: wrapHooks(options.hooks, source) as WebMCPHooks });
  adoptTool(tool, handle);
  return { key, w, tool, source };
}

function subscribeNothing(): () => void {
  return () => undefined;
}
const isSupported = (): boolean => getModelContext() !== undefined;
const notSupported = (): boolean => false;
const unregisteredStatus = (): RegistrationStatus => 'unregistered';

/**
 * `useWebMCP(tool, { enabled })` registers a tool made by `webmcp()` while the component is
 * mounted; `result.tool.invoke` runs under this mount's provider hooks. The tool must belong to
 * the client the component uses (the nearest `<WebMCPProvider client>`, else the default one):
 * `ConfigurationError('client_mismatch')` otherwise.
 *
 * `useWebMCP(fn, options)` wraps `fn` as a tool of the component's client once per mount (the
 * options are `webmcp()`'s, typed the same way), registers it while mounted. Inline option
 * literals and inline functions cause no re-registration: each call uses the latest committed
 * `fn` and hook functions. A change of the definition (name, description, schemas, annotations,
 * …, or the hooks' structure) makes a new tool, registered in place of the old one.
 *
 * Both report the registration status and the execution state, and are StrictMode-safe:
 * mount → unmount → mount leaves exactly one registration. One signature serves both, so an
 * unannotated function's input is never silently `any`.
 */
export function useWebMCP<
  I = unknown,
  const IS extends JsonSchema | undefined = undefined,
  const S extends StandardSchemaV1 | JsonSchema | undefined = undefined,
  const OS extends JsonSchema | undefined = undefined,
  R extends ToolResult<OS> = ToolResult<OS>,
  Fn = unknown,
>(
  toolOrFn: ((input: ToolInput<S, IS, I>, ctx: ToolCallContext) => R) & Fn,
  ...options: Fn extends WebMCPTool<any, any>
    ? [options?: { enabled?: boolean }]
    : [options: ToolOptions<Fn, IS, S, OS, NoInfer<ToolHooks<ToolInput<S, IS, I>, ToolArgs<S, IS, I>, R>>> & { enabled?: boolean }]
): UseWebMCPResult & { tool: Fn extends WebMCPTool<any, any> ? Fn : WebMCPTool<ToolFunction<ToolInput<S, IS, I>, R>, ToolArgs<S, IS, I>> };
export function useWebMCP(toolOrFn: (...a: any[]) => any, options?: AnyToolOptions & { enabled?: boolean }): UseWebMCPResult & { tool: WebMCPTool } {
  const context = useContext(ScopeContext);
  const { handle } = context;
  const given = isWebMCPTool(toolOrFn);
  if (!given && typeof toolOrFn !== 'function') throw new ConfigurationError('invalid_tool', `useWebMCP expects a tool or a function, not ${typeName(toolOrFn)}`);
  if (options !== undefined && !isPlainObject(options)) throw new ConfigurationError('invalid_options', `useWebMCP options must be an object, not ${typeName(options)}`);
  const { enabled = true, ...rest } = options ?? {};
  if (typeof enabled !== 'boolean') throw new ConfigurationError('invalid_options', 'useWebMCP: enabled must be a boolean', 'enabled');
  if (given && Object.keys(rest).length > 0) {
    throw new ConfigurationError('unknown_option', `useWebMCP(tool, options): only "enabled" applies to a tool made by webmcp() (got "${Object.keys(rest)[0]}"); give the others to webmcp()`);
  }
  const w = clientStateOf(context);

  const latestFn = useRef<(...args: any[]) => any>(toolOrFn);
  const slot = useRef<ToolSlot | undefined>(undefined);
  let tool: WebMCPTool;
  let source: HookSource | undefined;
  if (given) {
    tool = toolOrFn as WebMCPTool;
    // Its registration, registry and activity are its own client's; another client's scopes
    // and approvers cannot govern it.
    if (recordOf(tool).clientState !== w) {
      const here = context.client === undefined ? 'the default client (no <WebMCPProvider client> above)' : 'the client of the nearest <WebMCPProvider client>';
      throw new ConfigurationError(
        'client_mismatch',
        `useWebMCP(tool): tool "${tool.toolName}" belongs to another webmcp-warden client than ${here}; make it with that client's webmcp(), or mount it under a <WebMCPProvider client> of its own client`,
      );
    }
  } else {
    const key = definitionKey(toolOrFn, rest);
    if (slot.current === undefined || slot.current.key !== key || slot.current.w !== w) slot.current = createMountTool(w, toolOrFn, rest, key, latestFn, handle);
    tool = slot.current.tool;
    source = slot.current.source;
  }
  const hooks = rest.hooks;
  useIsomorphicLayoutEffect(() => {
    if (given) return;
    latestFn.current = toolOrFn;
    if (source !== undefined) source.hooks = hooks;
  });

  const view = useMemo(() => (given ? mountView(tool, handle) : tool), [given, tool, handle]);
  useEffect(() => (enabled ? joinMount(tool, handle) : undefined), [tool, handle, enabled]);

  const record = recordOf(tool);
  const subscribe = useCallback((listener: () => void) => onStatusChange(record, listener), [record]);
  const getStatus = useCallback(() => record.status, [record]);
  const status = useSyncExternalStore(subscribe, getStatus, unregisteredStatus);
  const supported = useSyncExternalStore(subscribeNothing, isSupported, notSupported);
  const activity = useToolActivity(activityOf(record.clientState), record.contract.name);
  const error = status === 'error' ? record.error : null;
  return useMemo(
    () => ({ supported, registered: status === 'registered', status, error, tool: view, ...executionStateOf(activity) }),
    [supported, status, error, view, activity],
  );
}
