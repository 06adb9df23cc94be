// Provider scopes: each <WebMCPProvider> is a scope in its client's core, chained to the scope of
// the nearest enclosing provider of the same client, and holding the provider's hooks compiled
// once per structure (see wrappers.ts). Calls made under a mount name the mount's scope; the core
// runs global → scoped (outer to inner) → tool hooks from it.
//
// Everything here is per client, and kept on the client (`ClientState.providerScopes`): the core
// scope ids, the map from a scope id to its provider's approver, and the fallback scope. Nothing
// is shared between two clients, so two server requests rendering with their own clients never
// see each other's scopes.
import type { ClientState } from '../client/client.js';
import type { Approver } from '../client/governance.js';
import type { ApproverNode, ProviderScopes } from '../types/internal.js';
import { compileHookSet } from '../client/hookset.js';
import { structureOf, wrapHooks, type HookSource } from './wrappers.js';

/** A compiled structure of a provider's hooks. */
interface Compiled {
  structure: string;
  /** The core hook set (`undefined`: no hooks). */
  set: number | undefined;
  source: HookSource;
}

/** What a provider holds in its client's core; released when the provider's handle is collected. */
interface ScopeState {
  readonly w: ClientState;
  readonly label: string;
  /** The committed structure. */
  live: Compiled | undefined;
  /** A structure rendered but not committed yet. */
  staged: Compiled | undefined;
  /** The core scope last added for this provider, and what it was built from. */
  built: { id: number; epoch: number; parent: number; set: number | undefined } | undefined;
  readonly node: ApproverNode;
  /** Whether a render of the provider was committed (before that, rendered values apply). */
  committed: boolean;
}

/**
 * The provider scopes of client `w` (kept on the client, where calls read their approvers:
 * `approverFor` in `client/governance.ts`), emptied after `reset()` dropped every scope in its core.
 */
function scopesOf(w: ClientState): ProviderScopes {
  const scopes = (w.providerScopes ??= { nodes: new Map(), epoch: w.resets, failed: undefined });
  if (scopes.epoch !== w.resets) {
    scopes.nodes.clear();
    scopes.epoch = w.resets;
  }
  return scopes;
}

/**
 * One `<WebMCPProvider>` instance bound to one client. A provider whose client or parent changes
 * gets a new handle (the old one is released when collected).
 */
export class ScopeHandle {
  /** What the provider holds in the core (also what the finalizer releases). */
  private readonly state: ScopeState;

  /**
   * @param w The client whose core holds the scope.
   * @param parent The nearest enclosing provider of the same client, or `null`.
   */
  constructor(
    readonly w: ClientState,
    readonly parent: ScopeHandle | null,
  ) {
    this.state = {
      w,
      label: 'WebMCPProvider hooks',
      live: undefined,
      staged: undefined,
      built: undefined,
      node: { parent: parent?.state.node ?? null, approver: undefined },
      committed: false,
    };
    scopesOf(w);
    scopeFinalizer?.register(this, this.state);
  }

  /**
   * Checks `hooks` as rendered: compiles a new structure (a ConfigurationError names the event
   * and entry) and checks its ids against the global hooks and the outer providers'. Until the
   * first commit (and on a server, where nothing commits), the rendered approver and hooks are
   * the ones calls use, so a server render can already govern calls.
   */
  stage(hooks: unknown, approver: Approver | undefined): void {
    const state = this.state;
    if (!state.committed) state.node.approver = approver;
    const structure = structureOf(hooks);
    if (state.live?.structure === structure) {
      retire(state.w, state.staged);
      state.staged = undefined;
      return;
    }
    if (state.staged?.structure === structure) return;
    retire(state.w, state.staged);
    state.staged = undefined;
    const source: HookSource = { hooks };
    const w = state.w;
    const set = structure === '' ? undefined : compileHookSet(w, wrapHooks(hooks, source), state.label);
    const compiled: Compiled = { structure, set, source };
    if (set !== undefined) {
      // A trial scope checks the ids against the global hooks and the outer providers' now,
      // while the error can still name this provider's render.
      const trial = w.handles.take();
      try {
        w.defineScope(trial, this.parent?.scope() ?? 0, set, state.label);
      } catch (err) {
        w.handles.give(trial);
        retire(w, compiled);
        throw err;
      }
      w.dropScope(trial);
    }
    state.staged = compiled;
  }

  /** Makes the rendered hooks and approver the ones calls use (called at commit). */
  commit(hooks: unknown, approver: Approver | undefined): void {
    this.stage(hooks, approver);
    const state = this.state;
    state.committed = true;
    if (state.staged !== undefined) {
      retire(state.w, state.live);
      state.live = state.staged;
      state.staged = undefined;
    }
    if (state.live !== undefined) state.live.source.hooks = hooks;
    state.node.approver = approver;
  }

  /**
   * The core scope of this provider's chain, added again when its committed hooks, its parent's
   * scope or the core (after `reset()`) changed.
   */
  scope(): number {
    const state = this.state;
    const w = state.w;
    const parent = this.parent?.scope() ?? 0;
    const set = (state.live ?? state.staged)?.set;
    const built = state.built;
    if (built !== undefined && built.epoch === w.resets && built.parent === parent && built.set === set) return built.id;
    dropBuilt(state);
    const id = w.handles.take();
    try {
      w.defineScope(id, parent, set, state.label);
    } catch {
      // Only ids the global hooks took since the provider mounted can fail here: fail closed.
      w.handles.give(id);
      return failedScope(w);
    }
    state.built = { id, epoch: w.resets, parent, set };
    scopesOf(w).nodes.set(id, state.node);
    return id;
  }
}

/** The core scope calls under `handle` run in (0: no provider). */
export function resolveScope(handle: ScopeHandle | null): number {
  return handle === null ? 0 : handle.scope();
}

function retire(w: ClientState, compiled: Compiled | undefined): void {
  if (compiled?.set === undefined) return;
  try {
    w.dropHookSet(compiled.set);
  } catch {
    // The client was disposed: its core, and the set with it, is gone.
  }
}

function dropBuilt(state: ScopeState): void {
  const built = state.built;
  state.built = undefined;
  const w = state.w;
  if (built === undefined || built.epoch !== w.resets) return;
  const nodes = scopesOf(w).nodes;
  if (nodes.get(built.id) === state.node) nodes.delete(built.id);
  try {
    w.dropScope(built.id);
  } catch {
    // The client was disposed.
  }
}

const PROVIDER_FAILED = 'the hooks of this tool\'s WebMCPProvider could not be applied (a hook id is used twice)';

/**
 * A scope whose before-hook denies every call, one per client: used when a provider's scope
 * cannot be added any more (a global hook took one of its ids after it mounted). Calls fail
 * closed rather than run without the provider's hooks.
 */
function failedScope(w: ClientState): number {
  const scopes = scopesOf(w);
  if (scopes.failed === undefined || scopes.failed.epoch !== w.resets) {
    const set = compileHookSet(w, { before: [() => ({ action: 'deny', message: PROVIDER_FAILED })] }, 'WebMCPProvider') as number;
    const scope = w.handles.take();
    w.defineScope(scope, 0, set, 'WebMCPProvider');
    scopes.failed = { set, scope, epoch: w.resets };
  }
  return scopes.failed.scope;
}

/**
 * Frees a provider's core resources once its handle is unreachable. Not on unmount: StrictMode
 * and `<Activity>` unmount and mount the same instance again, which must keep its scope.
 */
const scopeFinalizer =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry<ScopeState>((state) => {
        retire(state.w, state.live);
        retire(state.w, state.staged);
        dropBuilt(state);
      })
    : undefined;
