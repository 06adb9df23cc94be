// The state of a client: one core engine and everything that goes with it (settings, the handle
// tables the engine's actions refer to, the in-page registry, grants, telemetry), and what the
// layers above keep per client (the grant book, the registration sync, the console notes
// written, the React providers' scopes). A client is one object: `Client` (`api/api.ts`)
// extends this class with the public methods of `WardenClient`, so nothing about a client is
// kept in a table keyed by it. The package's functions (`webmcp`, `configureWebMCP`, …) work
// on a default client made on first use; a page (or a server rendering per request) may make
// its own with `createWarden()` and hand it to `<WebMCPProvider client>`.
//
// The client is also what makes a wasm trap survivable: it keeps, for each live thing it gave
// the core, exactly what it sent (the replay log), so when the core instance is replaced it
// replays them into a fresh engine with the same handles.
import { core, coreGeneration, liveGeneration } from '../boundary/core.js';
import { configurationError } from '../util/errors.js';
import { Handles } from '../boundary/handles.js';
import { decode, encode } from '../boundary/wire.js';
import { TelemetryBus } from './telemetry.js';
import type { ActivityStore } from './activity-store.js';
import type { AskBook } from './asks.js';
import { memoryGrantStore, type Grant, type GrantStore } from './grant-stores.js';
import { Predicates } from './predicates.js';
import type { Approver, ToolFilterFn } from '../types/policy-types.js';
import type { LimitsModule } from './limits-hook.js';
import type { AnyHook } from '../util/perform.js';
import type { AnyToolOptions, ProviderScopes, Redactor, RegisteredTool, RegistrationStatus } from '../types/internal.js';
import type { PromptDefinition, ResourceDefinition, WebMCPHooks } from '../types/types.js';
import type { Accepted, AddGlobalAnswer, ConfigureAnswer, DefineHookSetAnswer, DefineSubjectAnswer, LoadGrantsAnswer, Refused, StoredGrantsAnswer } from '../boundary/answers.js';

/** One hook function the engine refers to by handle. */
export interface HookRecord {
  /** The function. */
  run: AnyHook;
  /** Its own deadline (ms), if it has one. */
  timeout: number | undefined;
  /** Its event's number in the core (`EVENTS`). */
  event: number;
  /** The hook set it belongs to. */
  set: number;
}

/** What a client's resources and prompts add to its registration syncs and teardown ({@link ClientState.subjects}). */
export interface SubjectHooks {
  /** Brings their registrations in line with `runtime`. */
  sync(w: ClientState, runtime: unknown): Promise<void>;
  /** Unregisters every one of them (`reset()`, `dispose()`). */
  unregisterAll(w: ClientState): void;
}

/** Settings every call reads. */
export interface Settings {
  hookTimeout: number;
  serverId: string;
  maxResultBytesForLlm: number;
  capturePayloads: boolean;
  /** Refuse arguments with a `__proto__` key anywhere (`rejectProtoKeys`). */
  rejectProtoKeys: boolean;
  /** What captured payloads go through before they are recorded (`redact`). */
  redact: Redactor | undefined;
  strictReturns: boolean;
  maxArgumentBytes: number;
  maxArgumentDepth: number;
  askTimeout: number;
  approver: Approver | undefined;
  filter: ToolFilterFn | undefined;
  hasPolicy: boolean;
  grantStore: GrantStore;
  grantTtl: number;
  clock: () => number;
  /** `approvedFingerprints` as given, for predicates and the approver (`ctx`). */
  approvedFingerprints: Record<string, string> | 'first_listing' | undefined;
  /** The page opted in to patterns neither engine can be trusted with (`unsafePatterns`). */
  unsafePatterns: boolean;
  /** The policy as given (an approval's summary reads which arguments its rule names). */
  policy: unknown;
  /** Console diagnostics of fail-closed events (`debug`; development builds by default). */
  debug: boolean;
  /** Development mode: changed definitions become the baseline (`hotReload`; development pages by default). */
  hotReload: boolean;
}

/**
 * Whether the page runs a development build: `process.env.NODE_ENV` is not `'production'` or
 * Vite's `import.meta.env.DEV` is true. Both reads are written exactly as bundlers replace them
 * (a browser bundle has no `process`: a `typeof process` check would hide the bundler's value)
 * and caught, so a page without `process` reads no error.
 */
export function development(): boolean {
  try {
    if (process.env.NODE_ENV !== 'production') return true;
  } catch {
    // no process.env: not Node, and no bundler defined it
  }
  try {
    // Written exactly so Vite replaces it with a literal; where nothing defines it, it throws.
    return (import.meta as unknown as { env: { DEV?: unknown } }).env.DEV === true;
  } catch {
    return false;
  }
}

declare const process: { env: { NODE_ENV?: string } };

/** The server id of tools that name none (the core's default too: `src/engine.rs`). */
const DEFAULT_SERVER_ID = 'page';

function defaultSettings(): Settings {
  return {
    hookTimeout: 5000,
    serverId: DEFAULT_SERVER_ID,
    maxResultBytesForLlm: 102_400,
    capturePayloads: false,
    rejectProtoKeys: false,
    redact: undefined,
    strictReturns: false,
    maxArgumentBytes: 1024 * 1024,
    maxArgumentDepth: 64,
    askTimeout: 60_000,
    approver: undefined,
    filter: undefined,
    hasPolicy: false,
    grantStore: memoryGrantStore(),
    grantTtl: 86_400_000,
    clock: () => Date.now(),
    approvedFingerprints: undefined,
    unsafePatterns: false,
    policy: undefined,
    debug: development(),
    // Hot reload re-defines a page's tools as their code is edited: only pages (a document) do it.
    hotReload: typeof document !== 'undefined' && development(),
  };
}

/** The wire encoding of `null`: a governance setting that is not set. */
const NULL_SETTING = encode(null);

/** What the client sent the core for one tool, to send again after a trap. */
interface ToolEntry {
  definition: Uint8Array | undefined;
  name: string;
  server: string | undefined;
  sets: Uint32Array;
  label: string;
  /** A resource or a prompt (`Subject` of codes.ts); absent for tools. */
  subject?: number;
  /** Its fingerprint, as the core answered it; absent until an engine has defined it. */
  fingerprint?: string;
  /** Taken out of the engine by `unregister()` (`detachTool`); defined again at its next use. */
  detached?: boolean;
}

/** The fingerprint in a `defineTool` answer; none when the core refused (a replay goes on). */
function fingerprintIn(answer: Uint8Array): string | undefined {
  const decoded = decode(answer) as DefineSubjectAnswer;
  return decoded.ok ? decoded.fingerprint : undefined;
}

/** Frees the engine of a client that was collected without `dispose()`. */
const clientFinalizer =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry<{ engine: number; generation: number }>(({ engine, generation }) => {
        try {
          if (generation === liveGeneration()) core.engineDrop(engine);
        } catch {
          // the instance is gone: nothing to free
        }
      })
    : undefined;

/**
 * The answer of a `configure` step (`A`, from answers.ts), `{ ok: true, … }`; a refusal
 * (`{ ok: false, error }`) is thrown as `ConfigurationError`.
 */
export function answered<A extends ConfigureAnswer = ConfigureAnswer>(bytes: Uint8Array): Accepted<A> {
  const answer = decode(bytes) as A | Refused;
  if (!answer.ok) throw configurationError(answer.error ?? { code: 'internal', message: 'the core refused without saying why' });
  return answer as Accepted<A>;
}

/** How a read of the grant store ended (`client/grants.ts`). */
export type GrantLoad = { ok: true } | { ok: false; error: unknown };

/** Where a client's grant book stands against its store (`client/grants.ts` keeps it). */
export interface GrantBook {
  /** The store was read into the core. */
  loaded: boolean;
  /** The read in progress, shared by everyone who needs it meanwhile. */
  loading: Promise<GrantLoad> | undefined;
  /** Bumped when the store changes, so a read of the previous store is dropped. */
  generation: number;
  /** Saves run one at a time, each writing the book as it is when it starts. */
  saving: Promise<unknown>;
}

/**
 * The state of one client: its core engine, handles, settings, registry, grants and telemetry,
 * and what the layers above keep per client. `Client` (`api/api.ts`) extends it with the public
 * methods; {@link createWarden} makes one, and the package's top-level functions use a default one.
 */
export class ClientState {
  /** Settings every call reads. */
  readonly settings: Settings = defaultSettings();
  /** Handles given to the core (hook sets, hooks, tools, scopes). */
  readonly handles = new Handles();
  /** Hook functions by handle. */
  readonly hooks = new Map<number, HookRecord>();
  /** The handles of each hook set's functions (`hookset.ts` files them), to forget a set's without a walk of every hook. */
  readonly setHooks = new Map<number, number[]>();
  /** Policy function predicates by handle. */
  readonly predicates = new Predicates();
  /** An `approvedFingerprints: 'first_listing'` baseline was sealed. */
  sealed = false;
  /** Telemetry subscribers. */
  readonly telemetry = new TelemetryBus();
  /**
   * Calls in progress and each tool's last outcome (the React layer's execution state), made by
   * `activityOf` when the React layer first asks: a page without it never loads `activity-store.ts`.
   */
  activity: ActivityStore | undefined = undefined;
  /** The in-page registry: tools `invokeTool` and `listTools` see, by name. */
  readonly registry = new Map<string, RegisteredTool>();
  /** Registered resources (`readResource` sees them), by URI or URI template. */
  readonly resources = new Map<string, SubjectRecord>();
  /** Registered prompts (`getPrompt` sees them), by name. */
  readonly prompts = new Map<string, SubjectRecord>();
  /**
   * What resources and prompts add to registration syncs, `reset()` and `dispose()`: set by
   * `subject.ts` when the client's first one is made, so a page that makes none never loads
   * their code.
   */
  subjects: SubjectHooks | undefined = undefined;
  /** The global hooks as given (`getGlobalHooks()`). */
  globalHooks: WebMCPHooks = {};
  /** Bumped by `reset()`: what the client gave out before is gone (React providers re-add theirs). */
  resets = 0;
  /** Why the client's agents are suspended (`suspendAgents(reason)`); `undefined` while they may act. */
  suspended: string | undefined = undefined;
  /**
   * The asks waiting for an answer, made by `asksOf` when something shows them (the React
   * layer's `useApprovals()`, the devtools): a page without either never loads `asks.ts`.
   */
  asks: AskBook | undefined = undefined;
  /** The limits module, while the policy has limits (`webmcp-warden/limits`); calls are checked against them. */
  limits: LimitsModule | undefined = undefined;
  /** The policy's `limits` as the limits module was given them (wire-encoded), while it has some. */
  limitsSpec: Uint8Array | undefined = undefined;
  /** A grant for exactly some arguments may be in the book: policy steps send the arguments' digest. */
  exactGrants = false;

  // ---- what the layers above keep per client (each field is kept by the module it names) -----

  /** Where the grant book stands against the grant store (`grants.ts`). */
  readonly grantBook: GrantBook = { loaded: false, loading: undefined, generation: 0, saving: Promise.resolve() };
  /** How many live tools share each hook set (`api/tool.ts`; re-wrapping shares the older sets). */
  readonly setUsers = new Map<number, number>();
  /** The React providers' scopes and their approvers (`react/scope.ts`), once a provider mounted. */
  providerScopes: ProviderScopes | undefined = undefined;
  /** The registration sync running and the one queued behind it (`pipeline/registration.ts`). */
  registrationSync: { running: Promise<void>; queued: Promise<void> | undefined } | undefined = undefined;
  /** The runtime the registrations were last synced with (`pipeline/registration.ts`). */
  syncedRuntime: unknown = undefined;
  /** Whether a poll for a runtime that starts late is pending (`pipeline/registration.ts`). */
  pollingForRuntime = false;
  /** The keys of the console notes written for this client, each once (`pipeline/diagnostics.ts`). */
  notesWritten: Set<string> | undefined = undefined;
  /** Whether the console was told that `configure` was given a global hook again (once per client, `api/config.ts`). */
  warnedRepeatedHooks = false;

  #engineId = -1;
  #generation = 0;
  #disposed = false;
  /** Hook sets written in the log only, which no engine has checked yet (`defineHookSet`). */
  readonly #logOnly = new Set<number>();
  /** Tool hook sets taken out of the engine with their last tool (`detachTool`), kept in the log. */
  readonly #detachedSets = new Set<number>();
  /** Tools taken out of the engine, each defined again at its next use (`attach`). */
  readonly #detachedTools = new Set<number>();
  readonly #log = {
    sets: new Map<number, { spec: Uint8Array; label: string }>(),
    globals: [] as number[],
    tools: new Map<number, ToolEntry>(),
    scopes: new Map<number, { parent: number; set: number | undefined; label: string }>(),
    policy: NULL_SETTING,
    approved: NULL_SETTING,
    filter: NULL_SETTING,
    baselines: new Map<string, ToolEntry>(),
    grants: undefined as Uint8Array | undefined,
  };

  /** Whether the client has an engine in the live core instance (none is made by asking). */
  get hasEngine(): boolean {
    return this.#generation === liveGeneration();
  }

  /** Throws `ConfigurationError('disposed')` for a disposed client, without loading the core. */
  assertLive(): void {
    if (this.#disposed) throw configurationError({ code: 'disposed', message: 'this webmcp-warden client was disposed' });
  }

  /** The engine id in the current core instance, replaying the configuration into a new one. */
  engine(): number {
    this.assertLive();
    const generation = coreGeneration();
    if (generation !== this.#generation) {
      this.#engineId = core.engineNew();
      this.#generation = generation;
      // A client nobody holds any more (a per-request client never disposed) gives its engine
      // back when it is collected; an explicit dispose() is still the way to free it at once.
      clientFinalizer?.unregister(this);
      clientFinalizer?.register(this, { engine: this.#engineId, generation }, this);
      this.#replay();
    }
    return this.#engineId;
  }

  /** Whether `dispose()` was called. */
  get isDisposed(): boolean {
    return this.#disposed;
  }

  /** The core instance the engine lives in; a call started in another one is stale. */
  get coreInstance(): number {
    return this.#generation;
  }

  /**
   * Sends the live configuration to a fresh engine, in the order it was given. A setting still at
   * its default is not sent: a fresh engine holds every default already, and sending one would
   * make V8 compile, on the page's first `webmcp()`, the core functions that read it (setting
   * `policy: null` alone reached the policy parser; measured in bench/RESULTS.md).
   */
  #replay(): void {
    const e = this.#engineId;
    this.#logOnly.clear();
    for (const [id, { spec, label }] of this.#log.sets) if (!this.#detachedSets.has(id)) core.defineHookSet(e, id, spec, label);
    for (const id of this.#log.globals) core.addGlobal(e, id, false, 'hooks');
    if (this.settings.serverId !== DEFAULT_SERVER_ID) core.setServerId(e, this.settings.serverId);
    if (this.settings.strictReturns) core.setHookReturns(e, true);
    if (this.settings.unsafePatterns) core.setUnsafePatterns(e, true);
    if (this.settings.hotReload) core.setRebaseline(e, true);
    if (this.suspended !== undefined) core.suspend(e, this.suspended);
    if (this.#log.policy !== NULL_SETTING) core.setPolicy(e, this.#log.policy);
    if (this.#log.approved !== NULL_SETTING) core.setApprovedFingerprints(e, this.#log.approved);
    if (this.#log.filter !== NULL_SETTING) core.setToolFilter(e, this.#log.filter);
    if (this.sealed) core.sealBaseline(e);
    // Baselines first, with temporary tools: a rug pull seen before the trap is still a rug pull.
    for (const entry of this.#log.baselines.values()) {
      if (entry.definition === undefined) continue;
      const temporary = this.handles.take();
      core.defineTool(e, temporary, entry.definition, entry.server, new Uint32Array(), entry.label);
      core.recordBaseline(e, temporary);
      core.dropTool(e, temporary);
      this.handles.give(temporary);
    }
    for (const [id, entry] of this.#log.tools) {
      if (entry.detached) continue;
      if (entry.definition === undefined) core.defineStandaloneTool(e, id, entry.name, entry.sets, entry.label);
      else if (entry.subject !== undefined) core.defineSubject(e, id, entry.subject, entry.definition, entry.server, entry.sets, entry.label);
      else entry.fingerprint = fingerprintIn(core.defineTool(e, id, entry.definition, entry.server, entry.sets, entry.label));
    }
    for (const [id, scope] of this.#log.scopes) core.defineScope(e, id, scope.parent, scope.set, scope.label);
    if (this.#log.grants !== undefined) core.loadGrants(e, this.#log.grants);
  }

  // ---- what the client gives the core ------------------------------------------------------

  /**
   * Checks and stores a hook set the TS layer encoded; answers each hook's handle, event and
   * deadline. `filed`: how the core files it whatever it holds (a set of plain functions,
   * `hookset.ts`); on a client with no engine yet such a set is only written in the log, as a
   * tool without hooks is, and the core checks it when the engine is made.
   */
  defineHookSet(id: number, spec: Uint8Array, label: string, filed?: [number, number, number | null][]): [number, number, number | null][] {
    if (filed !== undefined && !this.#disposed && !this.hasEngine) {
      this.#log.sets.set(id, { spec, label });
      this.#logOnly.add(id);
      return filed;
    }
    const answer = answered<DefineHookSetAnswer>(core.defineHookSet(this.engine(), id, spec, label));
    this.#log.sets.set(id, { spec, label });
    return answer.hooks;
  }

  /** Forgets a hook set (its hook functions and handles too; from the log only, when no engine has it yet). */
  dropHookSet(id: number): void {
    if (this.#disposed || this.hasEngine) core.dropHookSet(this.engine(), id);
    this.#logOnly.delete(id);
    this.#detachedSets.delete(id);
    const logged = this.#log.sets.get(id);
    this.#log.sets.delete(id);
    this.#log.globals = this.#log.globals.filter((set) => set !== id);
    if (logged === undefined) return;
    this.#forgetHooks(id);
    this.handles.give(id);
  }

  /** Forgets the functions of hook set `set` and gives their handles back. */
  #forgetHooks(set: number): void {
    for (const handle of this.setHooks.get(set) ?? []) {
      this.hooks.delete(handle);
      this.handles.give(handle);
    }
    this.setHooks.delete(set);
  }

  /**
   * Adds a set to the global hooks (or replaces them); answers the sets it replaced. A set only
   * logged (plain functions: no ids, so no clash the core could refuse) joins the logged global
   * hooks while the client has no engine; the log holds the same list the core would.
   */
  addGlobal(id: number, replace: boolean): number[] {
    if (!this.#disposed && !this.hasEngine && this.#logOnly.has(id)) {
      const replaced = replace ? this.#log.globals : [];
      this.#log.globals = replace ? [id] : [...this.#log.globals, id];
      return replaced;
    }
    const answer = answered<AddGlobalAnswer>(core.addGlobal(this.engine(), id, replace, 'hooks'));
    if (replace) this.#log.globals = [];
    this.#log.globals.push(id);
    return answer.replaced;
  }

  /** Removes every global hook; answers the sets removed (from the log, when no engine has them yet). */
  clearGlobal(): number[] {
    if (!this.#disposed && !this.hasEngine) {
      const removed = this.#log.globals;
      this.#log.globals = [];
      return removed;
    }
    const removed = [...core.clearGlobal(this.engine())];
    this.#log.globals = [];
    return removed;
  }

  /**
   * Defines a tool. A tool with no hook sets (or only sets of plain functions, themselves only
   * logged), on a client with no engine yet, is only written in the log: the core could refuse
   * nothing about it (its definition is the TS layer's own encoding), and the engine defines it
   * with the rest of the log when it is made (the tool's first call, `register()`, or anything
   * else that needs the core). So a page's first `webmcp()` does not load the core, and
   * `register()` loads it as `ready()` does, compiling it off the main thread
   * (docs/behaviour.md, "Loading"). The fingerprint is read with `fingerprintOf`.
   */
  defineTool(id: number, definition: Uint8Array, name: string, server: string | undefined, sets: Uint32Array, label: string): void {
    const entry: ToolEntry = { definition, name, server, sets, label };
    // A re-wrapped tool shares its sets with the tool it wraps, which unregister() may have
    // taken out of the engine: they go back first.
    this.#attachSets(sets);
    // Its own hook sets could make the core refuse it (an id a global hook has); sets only
    // logged hold plain functions, which have no ids.
    if (this.#disposed || this.hasEngine || sets.some((set) => !this.#logOnly.has(set))) {
      entry.fingerprint = answered<DefineSubjectAnswer>(core.defineTool(this.engine(), id, definition, server, sets, label)).fingerprint;
    }
    this.#log.tools.set(id, entry);
  }

  /** Defines again in the engine the sets of `sets` that were taken out with their last tool. */
  #attachSets(sets: Uint32Array): void {
    if (this.#detachedSets.size === 0) return;
    for (const set of sets) {
      const logged = this.#log.sets.get(set);
      if (!this.#detachedSets.has(set) || logged === undefined) continue;
      answered(core.defineHookSet(this.engine(), set, logged.spec, logged.label));
      this.#detachedSets.delete(set);
    }
  }

  /**
   * Takes tool `id` out of the engine, with `sets`, the hook sets no other tool uses: what `unregister()`
   * makes unreachable from an agent, given back to the core at once rather than when the tool
   * object is collected (a page that makes and unregisters tools in a loop, with no macrotask
   * for finalizers in between, kept every one in the core's memory, which only grows). The tool
   * object lives on: its definition and sets stay in the log, and its next use (`register()`, a
   * call, a re-wrap) defines them again with the same handles (`attach`). With a call or a
   * listing in flight nothing is taken out (none may lose its tool midway): the finalizer frees
   * it as before.
   */
  detachTool(id: number, sets: number[]): void {
    if (this.#disposed || !this.hasEngine) return;
    const entry = this.#log.tools.get(id);
    // Only tools made by webmcp() come here (not resources, prompts or standalone tools).
    if (entry === undefined || entry.detached) return;
    const e = this.engine();
    const [, , , , , calls = 0, listings = 0] = core.engineCounts(e);
    if (calls > 0 || listings > 0) return;
    core.dropTool(e, id);
    entry.detached = true;
    this.#detachedTools.add(id);
    for (const set of sets) {
      if (!this.#log.sets.has(set)) continue;
      core.dropHookSet(e, set);
      this.#detachedSets.add(set);
    }
  }

  /**
   * Defines tool `id` again if `unregister()` took it out of the engine (`detachTool`). Costs one
   * check when nothing is detached. Throws `ConfigurationError` when the engine now refuses it (a
   * global hook added since holds one of its hooks' ids).
   */
  attach(id: number): void {
    if (this.#detachedTools.size === 0 || !this.#detachedTools.has(id)) return;
    const entry = this.#log.tools.get(id);
    if (entry === undefined || entry.definition === undefined) return;
    this.#attachSets(entry.sets);
    answered(core.defineTool(this.engine(), id, entry.definition, entry.server, entry.sets, entry.label));
    entry.detached = false;
    this.#detachedTools.delete(id);
  }

  /**
   * The fingerprint of tool `id`, making the engine (and loading the core) when the tool was
   * only logged. A client disposed before it had an engine hashes the definition in an engine of
   * its own for the moment; `''` for a tool the client no longer has.
   */
  fingerprintOf(id: number): string {
    const entry = this.#log.tools.get(id);
    if (entry === undefined || entry.definition === undefined) return '';
    if (entry.fingerprint === undefined && !this.#disposed) this.engine();
    if (entry.fingerprint === undefined) {
      const e = core.engineNew();
      entry.fingerprint = fingerprintIn(core.defineTool(e, id, entry.definition, entry.server, new Uint32Array(), entry.label));
      core.engineDrop(e);
    }
    return entry.fingerprint ?? '';
  }

  /** Defines a resource or a prompt (`subject`, codes.ts's `Subject`); answers its fingerprint. */
  defineSubject(id: number, subject: number, definition: Uint8Array, name: string, server: string | undefined, sets: Uint32Array, label: string): string {
    const answer = answered<DefineSubjectAnswer>(core.defineSubject(this.engine(), id, subject, definition, server, sets, label));
    this.#log.tools.set(id, { definition, name, server, sets, label, subject });
    return answer.fingerprint;
  }

  /** Defines a tool that runs its own hook sets only. */
  defineStandaloneTool(id: number, name: string, sets: Uint32Array, label: string): void {
    answered(core.defineStandaloneTool(this.engine(), id, name, sets, label));
    this.#log.tools.set(id, { definition: undefined, name, server: undefined, sets, label });
  }

  /** Forgets a tool (from the log only, when no engine has it yet). */
  dropTool(id: number): void {
    if (this.#disposed || this.hasEngine) core.dropTool(this.engine(), id);
    this.#detachedTools.delete(id);
    this.#log.tools.delete(id);
    this.handles.give(id);
  }

  /** Adds a provider scope. */
  defineScope(id: number, parent: number, set: number | undefined, label: string): void {
    answered(core.defineScope(this.engine(), id, parent, set, label));
    this.#log.scopes.set(id, { parent, set, label });
  }

  /** Forgets a provider scope. */
  dropScope(id: number): void {
    core.dropScope(this.engine(), id);
    this.#log.scopes.delete(id);
    this.handles.give(id);
  }

  /** Sets the default server id (the core refuses none: the engine made later is sent it). */
  setServerId(serverId: string): void {
    if (this.#disposed || this.hasEngine) core.setServerId(this.engine(), serverId);
    this.settings.serverId = serverId;
  }

  /** Sets development mode (`hotReload`; as the server id, sent to an engine made later). */
  setHotReload(on: boolean): void {
    if (this.#disposed || this.hasEngine) core.setRebaseline(this.engine(), on);
    this.settings.hotReload = on;
  }

  /**
   * Suspends the client's agents (`reason`) or resumes them (`undefined`): the core denies every
   * call, read and get that starts meanwhile. Emits `agents.suspended` / `agents.resumed`.
   */
  suspend(reason: string | undefined): void {
    answered(core.suspend(this.engine(), reason ?? null));
    const was = this.suspended;
    this.suspended = reason;
    if (reason !== undefined) this.telemetry.emit({ name: 'agents.suspended', reason });
    else if (was !== undefined) this.telemetry.emit({ name: 'agents.resumed' });
  }

  /** Sets the hook return contract (as the server id, sent to an engine made later). */
  setStrictReturns(strict: boolean): void {
    if (this.#disposed || this.hasEngine) core.setHookReturns(this.engine(), strict);
    this.settings.strictReturns = strict;
  }

  /**
   * Whether patterns the core compiles from now on may run although neither engine can be trusted
   * with them (`unsafePatterns`); the page's schemas read it at their compilation.
   */
  setUnsafePatterns(allowed: boolean): void {
    this.settings.unsafePatterns = allowed;
    if (this.#disposed || this.hasEngine) core.setUnsafePatterns(this.engine(), allowed);
  }

  /** Applies a governance setting (policy, approved fingerprints, tool filter), wire-encoded. */
  setGovernance(which: 'policy' | 'approved' | 'filter', bytes: Uint8Array): void {
    const e = this.engine();
    const result = which === 'policy' ? core.setPolicy(e, bytes) : which === 'approved' ? core.setApprovedFingerprints(e, bytes) : core.setToolFilter(e, bytes);
    answered(result);
    this.#log[which] = bytes;
  }

  /** The governance setting last applied, to put back after a failed `configure`. */
  governanceBytes(which: 'policy' | 'approved' | 'filter'): Uint8Array {
    return this.#log[which];
  }

  /**
   * Gives the limits module (`limitsModule`, webmcp-warden/limits's) this client's limits
   * (wire-encoded; `undefined`: none). Throws `ConfigurationError` for invalid ones, changing
   * nothing.
   */
  setLimits(limits: Uint8Array | undefined, limitsModule: LimitsModule | undefined = this.limits): void {
    if (limits !== undefined || this.limitsSpec !== undefined) limitsModule?.set(this, limits);
    this.limitsSpec = limits;
    this.limits = limits === undefined ? undefined : limitsModule;
  }

  /** Seals an `approvedFingerprints: 'first_listing'` baseline (the first listing or call happened). */
  sealBaseline(): void {
    core.sealBaseline(this.engine());
    this.sealed = true;
  }

  /** Records a tool's baseline definition (registration, listing, a policy step); resources and prompts have none. */
  noteBaseline(tool: number, record = true): void {
    const entry = this.#log.tools.get(tool);
    if (entry?.subject !== undefined) return;
    if (entry !== undefined && !this.#log.baselines.has(entry.name)) this.#log.baselines.set(entry.name, entry);
    if (record) core.recordBaseline(this.engine(), tool);
  }

  /** Adds what a grant store holds (wire-encoded array) to the core's book. */
  loadGrants(stored: Uint8Array): void {
    answered<LoadGrantsAnswer>(core.loadGrants(this.engine(), stored));
    this.#log.grants = encode(this.storedGrants());
  }

  /** Every grant in the core's book, as the store keeps them. */
  storedGrants(): Grant[] {
    const { grants } = answered<StoredGrantsAnswer>(core.storedGrants(this.engine()));
    this.#log.grants = encode(grants);
    return grants;
  }

  /** Empties the core's book (`clearGrants()` of the grant API also saves it). */
  emptyGrantBook(): void {
    core.clearGrants(this.engine());
    this.#log.grants = undefined;
  }

  /** How many things the core and the client hold (for leak tests). */
  counts(): { sets: number; hooks: number; tools: number; scopes: number; plans: number; calls: number; listings: number; handles: number; hookFunctions: number; predicates: number } {
    const [sets = 0, hooks = 0, tools = 0, scopes = 0, plans = 0, calls = 0, listings = 0] = core.engineCounts(this.engine());
    return { sets, hooks, tools, scopes, plans, calls, listings, handles: this.handles.live, hookFunctions: this.hooks.size, predicates: this.predicates.live };
  }

  /**
   * Everything back to defaults: no global hooks, scopes, policy, baselines, grants or
   * subscribers. Tools stay defined (their objects live on in the page), with their own hooks.
   */
  resetState(): void {
    const dropped = [...core.engineReset(this.engine())];
    for (const set of dropped) {
      this.#log.sets.delete(set);
      this.#forgetHooks(set);
      this.handles.give(set);
    }
    for (const scope of this.#log.scopes.keys()) this.handles.give(scope);
    this.predicates.inForce = new Set();
    this.predicates.retain(this.predicates.inForce);
    this.sealed = false;
    Object.assign(this.settings, defaultSettings());
    // The engine reset resumed the agents and left development mode; the default may want it.
    this.suspended = undefined;
    if (this.settings.hotReload) core.setRebaseline(this.engine(), true);
    this.telemetry.reset();
    this.activity?.reset();
    this.globalHooks = {};
    this.#log.globals = [];
    this.#log.scopes.clear();
    this.#log.policy = this.#log.approved = this.#log.filter = NULL_SETTING;
    this.#log.baselines.clear();
    this.#log.grants = undefined;
    this.setLimits(undefined);
    this.resets++;
  }

  /** Frees the engine; the client cannot be used afterwards. */
  disposeEngine(): void {
    if (this.#disposed) return;
    clientFinalizer?.unregister(this);
    if (this.#generation === liveGeneration()) core.engineDrop(this.#engineId);
    this.setLimits(undefined);
    this.#disposed = true;
  }
}

/** Everything the package keeps about one tool made by `webmcp()`. */
export interface ToolRecord extends RegisteredTool {
  /** The client the tool belongs to (its state). */
  readonly clientState: ClientState;
  /** The options it was made with. */
  readonly options: AnyToolOptions;
  /**
   * Why the browser cannot be shown the input's JSON Schema (a Standard Schema with no JSON
   * Schema export and no `inputSchema`): `register()` refuses with it.
   */
  readonly schemaProblem: string | undefined;
  /** Lowercase hex SHA-256 of the definition's canonical JSON. */
  readonly fingerprint: string;
  /** The core's hook sets of this tool, oldest first (re-wrapping appends). */
  readonly hookSets: number[];
  /** Registration status with the browser; setting it notifies `statusListeners`. */
  status: RegistrationStatus;
  /** The last registration error. */
  error: Error | null;
  /** The live `register()`: a newer one, or `unregister()`, replaces it. */
  attempt: { unregister: () => void } | undefined;
  /** The registration with the browser: its controller, the descriptor it was made with, the runtime that holds it. */
  browser: { controller: AbortController; key: string; runtime: unknown } | undefined;
  /** Where `scope` comes from, set by `webmcp-warden/react` while the tool is mounted. */
  scopeOf: (() => number) | undefined;
  /** Called after every change of `status`. */
  readonly statusListeners: Set<() => void>;
}

/** Everything the package keeps about one resource (`webmcpResource`) or prompt (`webmcpPrompt`). */
export interface SubjectRecord extends RegisteredTool {
  /** The client it belongs to (its state). */
  readonly clientState: ClientState;
  /** What it is. */
  readonly kind: 'resource' | 'prompt';
  /** Its key in the client's registry: a resource's URI (or template), a prompt's name. */
  readonly key: string;
  /** What agents are shown. */
  readonly definition: ResourceDefinition | PromptDefinition;
  /** Whether `key` is a resource's URI template (the core holds it compiled), not its canonical URI. */
  readonly template: boolean;
  /** The core's hook sets of it. */
  readonly hookSets: number[];
  /** Registration status with the runtime; setting it notifies `statusListeners`. */
  status: RegistrationStatus;
  /** The last registration error. */
  error: Error | null;
  /** The live `register()`: a newer one, or `unregister()`, replaces it. */
  attempt: { unregister: () => void } | undefined;
  /** The registration with the runtime, and the runtime that holds it. */
  registration: { runtime: unknown; handle: { unregister(): void } } | undefined;
  /** Where `scope` comes from, set by `webmcp-warden/react` while it is mounted. */
  scopeOf: (() => number) | undefined;
  /** Called after every change of `status`. */
  readonly statusListeners: Set<() => void>;
}
