'use client';
// webmcp-warden/react: <WebMCPProvider>, useWebMCP, useApprovals (SPEC §12).
//
// A thin adapter over the framework-agnostic tool records (`tool.ts`) and the core's provider
// scopes (`Core.addScope`): React only decides *when* (mount, commit, unmount); the core keeps
// each provider's hooks as a scope, and calls made under a mount name that mount's scope.
//
// - Provider hooks are compiled once per *structure* (entries, matchers, ids, timeouts), with
//   each function reached through a wrapper that reads the latest committed hooks; so inline
//   `hooks={{ before: [(ctx) => …] }}` literals cost nothing per render.
// - A tool made by `useWebMCP(fn, options)` is created once per mount (again when the JSON of its
//   definition changes); its function and hook functions are read through refs at call time.
// - Registration is counted per tool: the first live mount registers, the last one to leave
//   unregisters (by aborting the signal it registered with, which is StrictMode-safe: see
//   `register()` in tool.ts). The browser's single registration, `invokeTool` and
//   `listTools` run under the first live mount's provider scope; `result.tool.invoke` runs under
//   the scope of its own mount.
// - Core resources of providers and of tools made here are released when their objects are
//   garbage-collected (FinalizationRegistry), not on unmount, because StrictMode and
//   <Activity> remount the same instances.
import {
  createContext,
  createElement,
  useCallback,
  useContext,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
  type Context,
  type ReactElement,
  type ReactNode,
} from 'react';
import { defaultWarden } from './api.js';
import { ConfigurationError } from './errors.js';
import { scopeApprovers, type Approver, type AskAnswer, type Decision, type PolicyCall } from './governance.js';
import { compileHookSet, isPlainObject, mergeHooks, typeName } from './hookset.js';
import type { ToolRecord } from './internal.js';
import { runCall } from './call.js';
import { getModelContext } from './runtime.js';
import { createTool, isWebMCPTool, onStatusChange, recordOf } from './tool.js';
import { isStandardSchema } from './validation.js';
import { encode } from './wire.js';
import type { CallOptions, CallOutcome, RegistrationStatus, WebMCPHooks, WebMCPOptions, WebMCPTool } from './types.js';

// ---------------------------------------------------------------------------------------------
// Hooks reached through wrappers

/** Where wrapped hook functions read the latest committed hooks. */
interface HookSource {
  hooks: unknown;
}

/** The structure of a hooks object (everything the core compiles except function identity). */
function structureOf(hooks: unknown): string {
  if (hooks === undefined || hooks === null) return '';
  return Array.from(encode(hooks, { fn: () => 0 }), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * The same hooks with every function replaced by a wrapper calling the function at the same
 * place in `source.hooks`; invalid entries are kept as they are so errors name them.
 */
function wrapHooks(hooks: unknown, source: HookSource): unknown {
  if (!isPlainObject(hooks)) return hooks;
  const out: Record<string, unknown> = {};
  for (const event of Object.keys(hooks)) {
    const entries: unknown = hooks[event];
    out[event] = Array.isArray(entries) ? entries.map((entry, index) => wrapEntry(entry, event, index, source)) : entries;
  }
  return out;
}

function wrapEntry(entry: unknown, event: string, index: number, source: HookSource): unknown {
  const run = function (this: unknown, ...args: unknown[]): unknown {
    const current = (source.hooks as Record<string, unknown[] | undefined>)[event]?.[index];
    const fn = typeof current === 'function' ? current : (current as { run: (...a: unknown[]) => unknown }).run;
    return fn.apply(this, args);
  };
  if (typeof entry === 'function') return run;
  if (isPlainObject(entry) && typeof entry.run === 'function') return { ...entry, run };
  return entry;
}

// ---------------------------------------------------------------------------------------------
// Provider scopes

/** A compiled structure of a provider's hooks. */
interface Compiled {
  structure: string;
  set: number | undefined;
  source: HookSource;
}

/** The chain link the approver lookup walks (holds nothing that keeps a provider alive). */
interface ApproverNode {
  parent: ApproverNode | null;
  approver: Approver | undefined;
}

/** What a provider holds in the core; released when the provider's handle is collected. */
interface ScopeState {
  label: string;
  /** The committed structure. */
  live: Compiled | undefined;
  /** A structure rendered but not committed yet. */
  staged: Compiled | undefined;
  /** The core scope last added for this provider, and what it was built from. */
  built: { id: number; epoch: number; parent: number; set: number | undefined } | undefined;
  node: ApproverNode;
  /** Whether a render of the provider was committed (before that, rendered values apply). */
  committed: boolean;
}

/** One <WebMCPProvider> instance. */
class ScopeHandle {
  readonly state: ScopeState;

  constructor(readonly parent: ScopeHandle | null) {
    this.state = {
      label: 'WebMCPProvider hooks',
      live: undefined,
      staged: undefined,
      built: undefined,
      node: { parent: parent?.state.node ?? null, approver: undefined },
      committed: false,
    };
    scopeApprovers.set(defaultWarden(), scopeApprover);
    scopeFinalizer?.register(this, this.state);
  }

  /**
   * Checks `hooks` as rendered: compiles a new structure (a ConfigurationError names the
   * event and entry) and checks its ids against the global hooks and the outer providers'.
   * Until the first commit (and on a server, where nothing commits), the rendered approver and
   * hooks are the ones calls use.
   */
  stage(hooks: unknown, approver: Approver | undefined): void {
    const state = this.state;
    if (!state.committed) state.node.approver = approver;
    const structure = structureOf(hooks);
    if (state.live?.structure === structure) {
      retire(state.staged);
      state.staged = undefined;
      return;
    }
    if (state.staged?.structure === structure) return;
    retire(state.staged);
    state.staged = undefined;
    const source: HookSource = { hooks };
    const w = defaultWarden();
    const set = structure === '' ? undefined : compileHookSet(w, wrapHooks(hooks, source), state.label);
    const compiled: Compiled = { structure, set, source };
    if (set !== undefined) {
      // A trial scope checks the ids against the global hooks and the outer providers'.
      const trial = w.handles.take();
      try {
        w.defineScope(trial, resolveScope(this.parent), set, state.label);
      } catch (err) {
        w.handles.give(trial);
        retire(compiled);
        throw err;
      }
      w.dropScope(trial);
    }
    state.staged = compiled;
  }

  /** Makes the rendered hooks and approver the ones calls use. */
  commit(hooks: unknown, approver: Approver | undefined): void {
    this.stage(hooks, approver);
    const state = this.state;
    state.committed = true;
    if (state.staged !== undefined) {
      retire(state.live);
      state.live = state.staged;
      state.staged = undefined;
    }
    if (state.live !== undefined) state.live.source.hooks = hooks;
    state.node.approver = approver;
  }
}

function retire(compiled: Compiled | undefined): void {
  if (compiled?.set === undefined) return;
  try {
    defaultWarden().dropHookSet(compiled.set);
  } catch {
    // the client is gone
  }
}

const scopeNodes = new Map<number, ApproverNode>();
let scopeNodesEpoch = 0;

/** The core scope ids of live providers, emptied when `resetWebMCP()` dropped every scope. */
function nodes(): Map<number, ApproverNode> {
  const resets = defaultWarden().resets;
  if (scopeNodesEpoch !== resets) {
    scopeNodes.clear();
    scopeNodesEpoch = resets;
  }
  return scopeNodes;
}

/** `governance.scopeApprover`: the nearest provider of `scope` with an approver. */
function scopeApprover(scope: number): Approver | undefined {
  for (let node = nodes().get(scope); node; node = node.parent ?? undefined) {
    if (node.approver) return node.approver;
  }
  return undefined;
}

/**
 * The core scope of a provider chain (0 for none), added again when the provider's committed
 * hooks, its parent's scope or the core (after `resetWebMCP()`) changed.
 */
function resolveScope(handle: ScopeHandle | null): number {
  if (handle === null) return 0;
  const parent = resolveScope(handle.parent);
  const state = handle.state;
  const set = (state.live ?? state.staged)?.set;
  const built = state.built;
  const w = defaultWarden();
  if (built !== undefined && built.epoch === w.resets && built.parent === parent && built.set === set) return built.id;
  dropBuilt(state);
  const id = w.handles.take();
  try {
    w.defineScope(id, parent, set, state.label);
  } catch {
    // Only ids the global hooks took since the provider mounted can fail here: fail closed.
    w.handles.give(id);
    return failedScope();
  }
  state.built = { id, epoch: w.resets, parent, set };
  nodes().set(id, state.node);
  return id;
}

function dropBuilt(state: ScopeState): void {
  const built = state.built;
  state.built = undefined;
  const w = defaultWarden();
  if (built === undefined || built.epoch !== w.resets) return;
  const map = nodes();
  if (map.get(built.id) === state.node) map.delete(built.id);
  try {
    w.dropScope(built.id);
  } catch {
    // the client is gone
  }
}

const PROVIDER_FAILED = 'the hooks of this tool\'s WebMCPProvider could not be applied (a hook id is used twice)';
let failed: { set: number; scope: number; epoch: number } | undefined;

/** A scope whose before-hook denies every call: used when a provider's scope cannot be added. */
function failedScope(): number {
  const w = defaultWarden();
  if (failed === undefined || failed.epoch !== w.resets) {
    const set = compileHookSet(w, { before: [() => ({ action: 'deny', message: PROVIDER_FAILED })] }, 'WebMCPProvider') as number;
    const scope = w.handles.take();
    w.defineScope(scope, 0, set, 'WebMCPProvider');
    failed = { set, scope, epoch: w.resets };
  }
  return failed.scope;
}

const scopeFinalizer =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry<ScopeState>((state) => {
        retire(state.live);
        retire(state.staged);
        dropBuilt(state);
      })
    : undefined;

// ---------------------------------------------------------------------------------------------
// Approvals

/** A pending ask of a tool mounted under `<WebMCPProvider approver>` (SPEC §5, §12). */
export interface Ask {
  /** Unique per ask (the call's invocation id). */
  id: string;
  /** What the approver sees of the call: the exact final arguments, digest, fingerprint, … */
  call: PolicyCall;
  /** The decision that asked. */
  decision: Decision | undefined;
  /** Allows this call (`'once'`), or records a grant (`'always'`). */
  approve(mode: 'once' | 'always'): void;
  /** Denies the call (`reason: 'ask_denied'`), or tells the agent loop to stop (`halt`: `'ask_halt'`). */
  deny(reason: string, options?: { halt?: boolean }): void;
}

const NO_ASKS: { pending: Ask[] } = Object.freeze({ pending: Object.freeze([]) as unknown as Ask[] });

/** The asks a provider with `approver` holds until its UI settles them. */
class ApprovalQueue {
  private snapshot = NO_ASKS;
  private readonly listeners = new Set<() => void>();

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  };

  readonly getSnapshot = (): { pending: Ask[] } => this.snapshot;

  /** The approver of the provider: each ask waits in `pending` until approved or denied. */
  readonly approver: Approver = (call, ctx) =>
    new Promise<AskAnswer>((resolve) => {
      let open = true;
      const settle = (answer: AskAnswer | undefined) => {
        if (!open) return;
        open = false;
        clearTimeout(timer);
        ctx.signal.removeEventListener('abort', onAbort);
        this.update(this.snapshot.pending.filter((other) => other !== ask));
        // After an abort or the ask deadline the pipeline has moved on; nothing to answer.
        if (answer !== undefined) resolve(answer);
      };
      const onAbort = () => settle(undefined);
      const ask: Ask = Object.freeze({
        id: call.invocationId,
        call,
        decision: call.decision,
        approve: (mode: 'once' | 'always') => settle({ allow: mode } as AskAnswer),
        deny: (reason: string, options?: { halt?: boolean }) => settle((options?.halt === true ? { deny: reason, halt: true } : { deny: reason }) as AskAnswer),
      });
      const timer = setTimeout(() => settle(undefined), defaultWarden().settings.askTimeout);
      (timer as { unref?: () => void }).unref?.();
      if (ctx.signal.aborted) {
        settle(undefined);
        return;
      }
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      this.update([...this.snapshot.pending, ask]);
    });

  /** Denies every pending ask (the provider unmounted: nobody is left to answer). */
  denyAll(reason: string): void {
    for (const ask of this.snapshot.pending) ask.deny(reason);
  }

  private update(pending: Ask[]): void {
    this.snapshot = pending.length === 0 ? NO_ASKS : { pending };
    for (const listener of [...this.listeners]) listener();
  }
}

// ---------------------------------------------------------------------------------------------
// Contexts and the provider

interface ScopeContextValue {
  handle: ScopeHandle | null;
  queue: ApprovalQueue | null;
}

const ScopeContext = createContext<ScopeContextValue>({ handle: null, queue: null });
const EMPTY_HOOKS: WebMCPHooks = Object.freeze({}) as WebMCPHooks;

/**
 * The hooks of the enclosing providers, merged outer to inner (`[...parent, ...own]`). Read it
 * with {@link useWebMCPHooksContext}; add hooks with {@link WebMCPProvider} (a value given to
 * this context's own Provider is not applied to calls).
 */
export const WebMCPHooksContext: Context<WebMCPHooks> = createContext<WebMCPHooks>(EMPTY_HOOKS);

/** The merged hooks of the enclosing providers. */
export function useWebMCPHooksContext(): WebMCPHooks {
  return useContext(WebMCPHooksContext);
}

/** Props of {@link WebMCPProvider}. */
export interface WebMCPProviderProps {
  /** Scoped hooks of the tools mounted inside (global → scoped → tool). */
  hooks?: WebMCPHooks;
  /** `true`: asks of tools mounted inside settle through {@link useApprovals}; a function: that approver. */
  approver?: boolean | Approver;
  children?: ReactNode;
}

const useIsomorphicLayoutEffect = typeof document !== 'undefined' ? useLayoutEffect : useEffect;

/**
 * Scopes hooks (and, with `approver`, approvals) to the tools mounted inside. Nested providers
 * add to their parent's hooks. Invalid hooks throw `ConfigurationError` when it renders.
 */
export function WebMCPProvider(props: WebMCPProviderProps): ReactElement {
  const { hooks, approver, children } = props;
  if (approver !== undefined && typeof approver !== 'boolean' && typeof approver !== 'function') {
    throw new ConfigurationError('invalid_options', `WebMCPProvider: approver must be a boolean or a function, not ${typeName(approver)}`, 'approver');
  }
  const outer = useContext(ScopeContext);
  const parentHooks = useContext(WebMCPHooksContext);
  const [handle] = useState(() => new ScopeHandle(outer.handle));
  const [queue] = useState(() => new ApprovalQueue());
  const ownApprover = approver === true ? queue.approver : typeof approver === 'function' ? approver : undefined;
  handle.stage(hooks, ownApprover);
  useIsomorphicLayoutEffect(() => {
    handle.commit(hooks, ownApprover);
  });
  useEffect(() => () => queue.denyAll('the approval UI was closed'), [queue]);
  const merged = useStableMerge(parentHooks, hooks);
  const nearestQueue = approver === true ? queue : outer.queue;
  const value = useMemo<ScopeContextValue>(() => ({ handle, queue: nearestQueue }), [handle, nearestQueue]);
  return createElement(ScopeContext.Provider, { value }, createElement(WebMCPHooksContext.Provider, { value: merged }, children));
}

/** `mergeHooks(parent, own)`, the same object while every entry is the same. */
function useStableMerge(parent: WebMCPHooks, own: WebMCPHooks | undefined): WebMCPHooks {
  const cache = useRef<WebMCPHooks | undefined>(undefined);
  const next = own === undefined || own === null ? parent : mergeHooks(parent, own);
  if (cache.current !== undefined && sameHooks(cache.current, next)) return cache.current;
  cache.current = next;
  return next;
}

function sameHooks(a: WebMCPHooks, b: WebMCPHooks): boolean {
  if (a === b) return true;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    const x = (a as Record<string, unknown[] | undefined>)[key] ?? [];
    const y = (b as Record<string, unknown[] | undefined>)[key] ?? [];
    if (x.length !== y.length || x.some((entry, i) => entry !== y[i])) return false;
  }
  return true;
}

/**
 * The pending asks of the nearest `<WebMCPProvider approver>` (which must exist: a
 * ConfigurationError otherwise). Each ask is settled once by `approve` or `deny`, and leaves
 * the list when settled, aborted, or past the `askTimeout`.
 */
export function useApprovals(): { pending: Ask[] } {
  const { queue } = useContext(ScopeContext);
  if (queue === null) throw new ConfigurationError('no_approver', 'useApprovals() must be used inside <WebMCPProvider approver>');
  return useSyncExternalStore(queue.subscribe, queue.getSnapshot, getNoAsks);
}

function getNoAsks(): { pending: Ask[] } {
  return NO_ASKS;
}

// ---------------------------------------------------------------------------------------------
// useWebMCP

/** What {@link useWebMCP} reports. */
export interface UseWebMCPResult {
  /** The page has a WebMCP runtime (`document.modelContext`). */
  supported: boolean;
  /** The tool is registered with the browser. */
  registered: boolean;
  /** The tool's registration status (`tool.status`, kept in sync). */
  status: RegistrationStatus;
  /** The registration error, when `status` is `'error'`. */
  error: Error | null;
}

/** The mounts of a tool, first one first; the first live mount's scope is the tool's. */
interface Live {
  mounts: { handle: ScopeHandle | null }[];
  controller: AbortController | undefined;
}

const lives = new WeakMap<ToolRecord, Live>();
/** The provider a tool made by `useWebMCP(fn)` was created under. */
const owners = new WeakMap<ToolRecord, ScopeHandle | null>();

function scopeOfRecord(record: ToolRecord): number {
  const first = lives.get(record)?.mounts[0];
  if (first !== undefined) return resolveScope(first.handle);
  return resolveScope(owners.get(record) ?? null);
}

function attachScope(record: ToolRecord): void {
  if (record.scopeOf === undefined) record.scopeOf = () => scopeOfRecord(record);
}

/** Adds a mount of `tool`; registers when it is the first. Answers the leave function. */
function joinMount(tool: WebMCPTool, handle: ScopeHandle | null): () => void {
  const record = recordOf(tool);
  attachScope(record);
  let live = lives.get(record);
  if (live === undefined) lives.set(record, (live = { mounts: [], controller: undefined }));
  const mount = { handle };
  live.mounts.push(mount);
  const scope = record.options.scope;
  // 'global' tools register themselves; 'manual' ones only by an explicit register().
  if (live.controller === undefined && (scope === undefined || scope === 'scoped')) {
    const controller = new AbortController();
    live.controller = controller;
    // A failure lands in the tool's status and error, which the hook mirrors.
    tool.register({ signal: controller.signal }).catch(() => undefined);
  }
  const current = live;
  return () => {
    const index = current.mounts.indexOf(mount);
    if (index >= 0) current.mounts.splice(index, 1);
    if (current.mounts.length === 0 && current.controller !== undefined) {
      const controller = current.controller;
      current.controller = undefined;
      // Unregisters only the registration this controller made (never someone else's).
      controller.abort();
    }
  };
}

/** The tool as one mount sees it: `invoke` runs under this mount's provider scope. */
function mountView<F extends (...args: any[]) => any>(tool: WebMCPTool<F>, handle: ScopeHandle | null): WebMCPTool<F> {
  const record = recordOf(tool as WebMCPTool);
  const view = function (this: unknown, ...args: Parameters<F>): ReturnType<F> {
    return tool.apply(this, args);
  };
  const descriptors = Object.getOwnPropertyDescriptors(tool) as Record<string | symbol, PropertyDescriptor>;
  delete descriptors.prototype;
  Object.defineProperties(view, {
    ...descriptors,
    invoke: { value: (input?: unknown, options?: CallOptions): Promise<CallOutcome> => runCall(record.warden, record, input, options, resolveScope(handle)) },
  });
  return view as unknown as WebMCPTool<F>;
}

interface ToolSlot {
  key: string;
  tool: WebMCPTool;
  source: HookSource;
}

/** The JSON of what defines a tool made from options; a change makes a new tool. */
function definitionKey(fn: (...args: any[]) => any, options: WebMCPOptions): string {
  const { hooks, schema, ...plain } = options;
  try {
    return JSON.stringify([fn.name, plain, isStandardSchema(schema) ? '$standard' : (schema ?? null), structureOf(hooks)]);
  } catch {
    // Options JSON cannot say (a cycle, a BigInt): keep the first tool.
    return '$unkeyable';
  }
}

function createMountTool(fn: (...args: any[]) => any, options: WebMCPOptions, key: string, latest: { current: (...args: any[]) => any }, handle: ScopeHandle | null): ToolSlot {
  if (options.scope === 'global') {
    throw new ConfigurationError('invalid_options', "useWebMCP(fn, options): scope 'global' registers at creation, not on mount; create the tool with webmcp() outside the component", 'scope');
  }
  const source: HookSource = { hooks: options.hooks };
  const proxy = function (this: unknown, ...args: unknown[]): unknown {
    return latest.current.apply(this, args);
  };
  Object.defineProperties(proxy, { name: { value: fn.name }, length: { value: fn.length } });
  const tool = createTool(defaultWarden(), proxy, options.hooks === undefined ? options : { ...options, hooks: wrapHooks(options.hooks, source) as WebMCPHooks });
  const record = recordOf(tool);
  owners.set(record, handle);
  attachScope(record);
  return { key, tool, source };
}

function subscribeNothing(): () => void {
  return () => undefined;
}
const isSupported = (): boolean => getModelContext() !== undefined;
const notSupported = (): boolean => false;
const unregisteredStatus = (): RegistrationStatus => 'unregistered';

/**
 * Registers `tool` with the browser while the component is mounted (SPEC §12). StrictMode-safe:
 * mount → unmount → mount leaves exactly one registration. `result.tool.invoke` runs under this
 * mount's provider hooks.
 */
export function useWebMCP<F extends (...a: any[]) => any = (...a: any[]) => any>(tool: WebMCPTool<F>, options?: { enabled?: boolean }): UseWebMCPResult & { tool: WebMCPTool<F> };
/**
 * Wraps `fn` as a tool once per mount and registers it while mounted. Inline option literals
 * and inline functions cause no re-registration: each call uses the latest committed `fn` and
 * hook functions. A change of the definition (name, description, schemas, annotations, …, or
 * the hooks' structure) makes a new tool, registered in place of the old one.
 */
export function useWebMCP<F extends (...a: any[]) => any>(fn: F, options: WebMCPOptions & { enabled?: boolean }): UseWebMCPResult & { tool: WebMCPTool<F> };
export function useWebMCP(toolOrFn: (...a: any[]) => any, options?: WebMCPOptions & { enabled?: boolean }): UseWebMCPResult & { tool: WebMCPTool } {
  const { handle } = useContext(ScopeContext);
  const given = isWebMCPTool(toolOrFn);
  if (!given && typeof toolOrFn !== 'function') throw new ConfigurationError('invalid_tool', `useWebMCP expects a tool or a function, not ${typeName(toolOrFn)}`);
  if (options !== undefined && !isPlainObject(options)) throw new ConfigurationError('invalid_options', `useWebMCP options must be an object, not ${typeName(options)}`);
  const { enabled = true, ...rest } = options ?? {};
  if (typeof enabled !== 'boolean') throw new ConfigurationError('invalid_options', 'useWebMCP: enabled must be a boolean', 'enabled');
  if (given && Object.keys(rest).length > 0) {
    throw new ConfigurationError('unknown_option', `useWebMCP(tool, options): only "enabled" applies to a tool made by webmcp() (got "${Object.keys(rest)[0]}"); give the others to webmcp()`);
  }

  const latestFn = useRef<(...args: any[]) => any>(toolOrFn);
  const slot = useRef<ToolSlot | undefined>(undefined);
  let tool: WebMCPTool;
  let source: HookSource | undefined;
  if (given) {
    tool = toolOrFn as WebMCPTool;
  } else {
    const key = definitionKey(toolOrFn, rest);
    if (slot.current === undefined || slot.current.key !== key) slot.current = createMountTool(toolOrFn, rest, key, latestFn, handle);
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
  const error = status === 'error' ? record.error : null;
  return useMemo(() => ({ supported, registered: status === 'registered', status, error, tool: view }), [supported, status, error, view]);
}
