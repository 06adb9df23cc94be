// The client: `createWarden()` returns a `Client`, one object holding all of its state (the
// `ClientState` it extends, `client/client.ts`) and the public methods of `WardenClient`, bound
// to it; the top-level functions (`webmcp`, `configureWebMCP`, …) are the same methods of a
// default client made on first use. Nothing here runs at import time.
import { ClientState } from '../client/client.js';
import { configure as applyConfig, type WebMCPConfig } from './config.js';
import { clearGrants, listGrants, resetGrants, revokeGrant, type Grant } from '../client/grants.js';
import { mergeHooks } from '../client/hookset.js';
import { noticeRuntime, pipelineOrThrow, resyncRegistrations, runCall } from './pipeline-loader.js';
import { findTool, isVisible, unknownToolOutcome } from '../client/registry.js';
import { disposedOutcome } from '../client/outcomes.js';
import { sealFirstListing } from '../client/governance.js';
import type { TelemetryHandler } from '../client/telemetry.js';
import { createTool, unregisterAll } from './tool.js';
import { ConfigurationError, WardenError } from '../util/errors.js';
import type { CallOptions, CallOutcome, ListingOptions, ToolContract, ToolFactory, WebMCPHooks } from '../types/types.js';

/**
 * A webmcp-warden client: its own core engine, configuration, registry, grants and telemetry.
 * Pages normally use the default client through the top-level functions; make one with
 * {@link createWarden} to keep requests apart on a server, or tests apart, and hand it to
 * `<WebMCPProvider client>`. Resources, prompts and dry runs are not methods: `webmcpResource`,
 * `webmcpPrompt`, `readResource`, `getPrompt` and `explain` take the client as their `client`
 * option, so a page that never uses them never downloads their code.
 */
export interface WardenClient {
  /** Wraps `fn` as a governed tool of this client; infers types as the top-level `webmcp` does. */
  webmcp: ToolFactory;
  /** Configures this client (see `configureWebMCP`). */
  configure(options: WebMCPConfig): void;
  /** Calls a registered tool as an in-page agent (see `invokeTool`). */
  invokeTool(name: string, input?: unknown, options?: CallOptions): Promise<CallOutcome>;
  /** The registered tools as an agent sees them (see `listTools`). */
  listTools(options?: ListingOptions): Promise<ToolContract[]>;
  /** Subscribes to telemetry events; answers the unsubscribe function. */
  onTelemetry(handler: TelemetryHandler): () => void;
  /** The live grants. */
  listGrants(): Promise<Grant[]>;
  /** Revokes the grants matching every given field; answers how many. */
  revokeGrant(filter?: { principal?: string | null; server?: string; tool?: string }): Promise<number>;
  /** Removes every grant. */
  clearGrants(): Promise<void>;
  /** The global hooks (a copy). */
  getGlobalHooks(): WebMCPHooks;
  /** Removes every global hook. */
  resetGlobalHooks(): void;
  /**
   * Suspends this client's agents (a kill switch): until `resumeAgents()`, every call, resource
   * read and prompt get that starts is denied (`denied` / `suspended`), the agent reading
   * `Denied: <reason>`; calls already running go on. Emits `agents.suspended`.
   */
  suspendAgents(reason: string): void;
  /** Lets agents act again after `suspendAgents`. Emits `agents.resumed`. */
  resumeAgents(): void;
  /** Why the agents are suspended, or `null` while they may act. */
  suspension(): string | null;
  /** Everything back to defaults: unregisters every tool, forgets hooks, settings, grants, subscribers. */
  reset(): void;
  /**
   * Unregisters every tool and frees the client's core engine; the client cannot be used
   * afterwards (its methods throw `ConfigurationError('disposed')`).
   */
  dispose(): void;
}

/**
 * A client made by {@link createWarden}: its state (`ClientState`) and the public methods of
 * {@link WardenClient}. The methods are arrow functions, each bound to its client, so a
 * destructured method (`const { webmcp } = createWarden()`) works. Users hold it as a
 * `WardenClient`, which shows none of the state.
 */
export class Client extends ClientState implements WardenClient {
  /** Marks an object this class made (`#made in value`): a copy or a proxy of one is not a client. */
  readonly #made = true;

  /** The client `value` is, when it is one this class made; `undefined` for anything else. */
  static of(value: unknown): Client | undefined {
    return typeof value === 'object' && value !== null && #made in value ? (value as Client) : undefined;
  }

  // Inference is for callers; inside, the function and options are data.
  webmcp = ((fn: any, opts: any) => createTool(this, fn, opts)) as ToolFactory;
  configure = (opts: WebMCPConfig): void => {
    if (applyConfig(this, opts)) resyncRegistrations(this);
  };
  // Calls and listings notice a runtime that arrived since the last sync (registration.ts).
  invokeTool = (name: string, input?: unknown, opts?: CallOptions): Promise<CallOutcome> => {
    noticeRuntime(this);
    return invokeTool(this, name, input, opts);
  };
  listTools = (opts?: ListingOptions): Promise<ToolContract[]> => {
    noticeRuntime(this);
    return listTools(this, opts);
  };
  onTelemetry = (handler: TelemetryHandler): (() => void) => {
    // A disposed client sends nothing; subscribing to it is a mistake worth saying.
    this.assertLive();
    return this.telemetry.subscribe(handler);
  };
  listGrants = (): Promise<Grant[]> => listGrants(this);
  revokeGrant = (filter?: { principal?: string | null; server?: string; tool?: string }): Promise<number> => revokeGrant(this, filter);
  clearGrants = (): Promise<void> => clearGrants(this);
  getGlobalHooks = (): WebMCPHooks => mergeHooks(this.globalHooks, undefined);
  suspendAgents = (reason: string): void => {
    if (typeof reason !== 'string' || reason.trim() === '') throw new ConfigurationError('invalid_options', 'suspendAgents(reason): reason must be a non-empty string', 'reason');
    this.suspend(reason);
  };
  resumeAgents = (): void => this.suspend(undefined);
  suspension = (): string | null => this.suspended ?? null;
  resetGlobalHooks = (): void => {
    for (const set of this.clearGlobal()) this.dropHookSet(set);
    this.globalHooks = {};
    resyncRegistrations(this);
  };
  reset = (): void => {
    unregisterAll(this);
    this.subjects?.unregisterAll(this);
    this.resetState();
    resetGrants(this);
  };
  dispose = (): void => {
    unregisterAll(this);
    this.subjects?.unregisterAll(this);
    this.disposeEngine();
  };
}

/** The client `client` is, as its class (`undefined` when it is not one {@link createWarden} made). */
export function internalOf(client: WardenClient): Client | undefined {
  return Client.of(client);
}

/** Makes a client; `options` are applied as by `configure`. */
export function createWarden(options?: WebMCPConfig): WardenClient {
  const client = new Client();
  if (options !== undefined && applyConfig(client, options)) resyncRegistrations(client);
  return client;
}

/** The default client, made on first use: the page's one, which the top-level functions act on. */
let defaultClient: Client | undefined;

/** The client the top-level functions use, made on first use. */
export function getDefaultWarden(): WardenClient {
  return defaultClientState();
}

/** The default client, as its class. */
export function defaultClientState(): Client {
  defaultClient ??= new Client();
  return defaultClient;
}

/** The `client` option of the top-level functions that are not methods of a client (resources, prompts, dry runs). */
export interface ClientOption {
  /** The client to act on (made by {@link createWarden}); the default client when absent. */
  client?: WardenClient;
}

/**
 * The internal client `options.client` names (the default client when there is none) and the
 * options without `client`, for the function's own checks. Options that are not an object are
 * left as they are, for those checks to refuse.
 */
export function clientOption<T>(options: T): [ClientState, T] {
  let client: WardenClient | undefined;
  let rest: Record<string, unknown>;
  try {
    if (options === null || typeof options !== 'object' || !('client' in options)) return [defaultClientState(), options];
    ({ client, ...rest } = options as T & ClientOption & Record<string, unknown>);
  } catch {
    // Options that cannot be read (a getter or proxy that throws): the function's own checks
    // read them again and refuse them as data.
    return [defaultClientState(), options];
  }
  const w = client === undefined ? defaultClientState() : internalOf(client);
  if (w === undefined) throw new ConfigurationError('invalid_options', 'client must be a client made by createWarden()', 'client');
  return [w, rest as T];
}

/**
 * Calls a registered tool through the governed pipeline, as an in-page agent host would.
 * Never throws for a call that went wrong: the outcome is data.
 */
export async function invokeTool(w: ClientState, name: string, input?: unknown, options?: CallOptions): Promise<CallOutcome> {
  // Disposed first: a disposed client's registry is empty, and "unknown tool" would mislead.
  if (w.isDisposed) return disposedOutcome();
  // A registered tool means the core loaded (register() loads it first), so asking the core who
  // is visible cannot fail to load it.
  const tool = findTool(w, name);
  if (tool === undefined) return unknownToolOutcome(name);
  return runCall(w, tool, input, options, tool.scope);
}

/**
 * The registered tools as an agent would see them, after the `toolsListed` hooks. A failing
 * `toolsListed` hook fails the listing (rejects with a `WardenError` whose code is
 * `hook_failed`) rather than answering an empty list; options that are not `ListingOptions`
 * reject with `WardenError('invalid_options')` before anything runs.
 */
export async function listTools(w: ClientState, options?: ListingOptions): Promise<ToolContract[]> {
  // A disposed client refuses (this throws `ConfigurationError('disposed')`).
  w.engine();
  const pipeline = await pipelineOrThrow(true);
  const read = pipeline.readListingOptions(options);
  if (typeof read === 'string') throw new WardenError('invalid_options', read);
  const tools = [...w.registry.values()].filter((tool) => isVisible(w, tool));
  // The first listing is a first sight: it records each tool's baseline definition, and seals
  // the baseline when the page asked for `approvedFingerprints: 'first_listing'`.
  for (const tool of tools) w.noteBaseline(tool.coreTool);
  sealFirstListing(w);
  return pipeline.listContracts(w, tools, read);
}
