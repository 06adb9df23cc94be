// <WebMCPProvider> and useApprovals().
//
// A provider adds three things for the components under it: a client (optional; inherited from
// the nearest provider that has one, else the default client), a core scope with its hooks, and,
// with `approver`, an approval queue. It decides only *when* (render, commit, unmount): the scope
// and its hooks live in the client's core (scope.ts), the queue is a plain store (approvals.ts).
import { createElement, useContext, useEffect, useMemo, useRef, useState, useSyncExternalStore, type ReactElement, type ReactNode } from 'react';
import { internalOf, type WardenClient } from '../api/api.js';
import { ConfigurationError } from '../util/errors.js';
import type { Approver } from '../client/governance.js';
import { mergeHooks } from '../client/hookset.js';
import type { WebMCPHooks } from '../types/types.js';
import { ApprovalQueue, getNoAsks, type Approvals } from './approvals.js';
import { EMPTY_HOOKS, ScopeContext, WebMCPHooksContext, useIsomorphicLayoutEffect, clientStateOf, type ScopeContextValue } from './context.js';
import { ScopeHandle } from './scope.js';
import { typeName } from '../util/js-values.js';

/** Props of {@link WebMCPProvider}. */
export interface WebMCPProviderProps {
  /**
   * The client everything inside uses (tools made by `useWebMCP(fn, …)`, scopes, approvals,
   * execution state), made by `createWarden()`: per request on a server, per test, or to keep two
   * parts of a page apart. Nested providers inherit it. Default: the nearest provider's client,
   * else the default client. A provider of another client than its parent starts a tree of its
   * own: the outer providers' hooks and approver do not reach into it.
   */
  client?: WardenClient;
  /** Scoped hooks of the tools mounted inside (global → scoped → tool). */
  hooks?: WebMCPHooks;
  /** `true`: asks of tools mounted inside settle through {@link useApprovals}; a function: that approver. */
  approver?: boolean | Approver;
  /** The components the provider scopes. */
  children?: ReactNode;
}

/**
 * Scopes hooks (and, with `approver`, approvals) to the tools mounted inside, and with `client`
 * makes everything inside use that client. Nested providers add to their parent's hooks. Invalid
 * hooks throw `ConfigurationError` when it renders.
 */
export function WebMCPProvider(props: WebMCPProviderProps): ReactElement {
  const { client, hooks, approver, children } = props;
  if (approver !== undefined && typeof approver !== 'boolean' && typeof approver !== 'function') {
    throw new ConfigurationError('invalid_options', `WebMCPProvider: approver must be a boolean or a function, not ${typeName(approver)}`, 'approver');
  }
  const own = client === undefined ? undefined : internalOf(client);
  if (client !== undefined && own === undefined) {
    throw new ConfigurationError('invalid_options', `WebMCPProvider: client must be a client made by createWarden(), not ${typeName(client)}`, 'client');
  }
  const outer = useContext(ScopeContext);
  const parentHooks = useContext(WebMCPHooksContext);
  const outerWarden = outer.handle?.w ?? outer.w;
  // The default client is made only when no provider above or here names one.
  const w = own ?? outerWarden ?? clientStateOf(outer);
  // Scopes chain within one client only: another client's scope ids mean nothing in this core.
  const sameClient = outerWarden === undefined || outerWarden === w;
  const parent = sameClient ? outer.handle : null;

  const slot = useRef<ScopeHandle | null>(null);
  if (slot.current === null || slot.current.w !== w || slot.current.parent !== parent) slot.current = new ScopeHandle(w, parent);
  const handle = slot.current;
  const [queue] = useState(() => new ApprovalQueue(w));
  const ownApprover = approver === true ? queue.approver : typeof approver === 'function' ? approver : undefined;
  handle.stage(hooks, ownApprover);
  useIsomorphicLayoutEffect(() => {
    queue.w = w;
    handle.commit(hooks, ownApprover);
  });
  useEffect(() => () => queue.cancelAll('the approval UI was closed'), [queue]);
  const merged = useStableMerge(sameClient ? parentHooks : EMPTY_HOOKS, hooks);
  const nearestQueue = approver === true ? queue : sameClient ? outer.queue : null;
  const clientValue = client ?? (sameClient ? outer.client : undefined);
  const value = useMemo<ScopeContextValue>(() => ({ handle, queue: nearestQueue, client: clientValue, w }), [handle, nearestQueue, clientValue, w]);
  return createElement(ScopeContext.Provider, { value }, createElement(WebMCPHooksContext.Provider, { value: merged }, children));
}

/** `mergeHooks(parent, own)`, the same object while every entry is the same (no needless renders below). */
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
 * The pending asks of the nearest `<WebMCPProvider approver>` of this client (which must exist:
 * `ConfigurationError('no_approver')` otherwise), oldest first. Each ask carries its call, the
 * decision, a `summary` to show a person (tool, the rule's label, the arguments that decided)
 * beside the developer's `explanation`, `createdAt` and `deadline`, and is settled once by
 * `approve`, `deny` or `cancel`; it leaves the list when settled, aborted, or past its deadline
 * (its `status` then says which: `'expired'` for the deadline).
 */
export function useApprovals(): Approvals {
  const { queue } = useContext(ScopeContext);
  if (queue === null) throw new ConfigurationError('no_approver', 'useApprovals() must be used inside <WebMCPProvider approver>');
  return useSyncExternalStore(queue.subscribe, queue.getSnapshot, getNoAsks);
}
