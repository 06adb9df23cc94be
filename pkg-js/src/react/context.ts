// What a component learns from the providers above it: the client (the TanStack Query way: a
// provider takes a client object, everything under it uses that client), the nearest provider's
// scope, and the nearest approval queue. Without any provider, the default client.
import { createContext, useContext, useEffect, useLayoutEffect, type Context } from 'react';
import { defaultClientState, getDefaultWarden, type WardenClient } from '../api/api.js';
import type { ClientState } from '../client/client.js';
import type { WebMCPHooks } from '../types/types.js';
import type { ApprovalQueue } from './approvals.js';
import type { ScopeHandle } from './scope.js';

/** What `<WebMCPProvider>` tells the components under it. */
export interface ScopeContextValue {
  /** The nearest provider (of this client), or `null`. */
  handle: ScopeHandle | null;
  /** The nearest approval queue (of this client), or `null`. */
  queue: ApprovalQueue | null;
  /** The client as the page holds it; `undefined`: the default client. */
  client: WardenClient | undefined;
  /**
   * The internal client behind `client`; `undefined` outside every provider, resolved to the
   * default client only when something needs it (so a page that always passes its own client
   * never makes the default one).
   */
  w: ClientState | undefined;
}

/** The context every provider fills; its default is "no provider, the default client". */
export const ScopeContext: Context<ScopeContextValue> = createContext<ScopeContextValue>({ handle: null, queue: null, client: undefined, w: undefined });

/** The hooks object of "no scoped hooks" (one object, so consumers see no change). */
export const EMPTY_HOOKS: WebMCPHooks = Object.freeze({}) as WebMCPHooks;

/**
 * The hooks of the enclosing providers, merged outer to inner (`[...parent, ...own]`). Read it
 * with {@link useWebMCPHooksContext}; add hooks with `WebMCPProvider` (a value given to this
 * context's own Provider is not applied to calls).
 */
export const WebMCPHooksContext: Context<WebMCPHooks> = createContext<WebMCPHooks>(EMPTY_HOOKS);

/** The merged hooks of the enclosing providers of the same client. */
export function useWebMCPHooksContext(): WebMCPHooks {
  return useContext(WebMCPHooksContext);
}

/** The internal client of a context value (the default client when there is no provider). */
export function clientStateOf(value: ScopeContextValue): ClientState {
  return value.w ?? defaultClientState();
}

/**
 * The client the components here use: the `client` of the nearest `<WebMCPProvider>` that has
 * one, else the default client (the one `webmcp()` and `configureWebMCP()` use). Use it to call
 * `invokeTool`, `listTools`, `configure`, … of the same client the tools under it belong to.
 */
export function useWardenClient(): WardenClient {
  return useContext(ScopeContext).client ?? getDefaultWarden();
}

/**
 * `useLayoutEffect` in a browser, `useEffect` elsewhere: commit work must happen before the
 * browser paints (and before children's effects read it), and React warns about layout effects
 * on a server, where neither runs.
 */
export const useIsomorphicLayoutEffect: typeof useLayoutEffect = typeof document !== 'undefined' ? useLayoutEffect : useEffect;
