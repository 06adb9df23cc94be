// The Rust core: loaded synchronously on first use from bytes shipped in the package, and the
// only module that imports its generated glue. Every other module reaches the core through the
// functions exported here.
//
// Nothing is compiled at import time and there is no top-level await, so importing the package
// costs nothing and works where there is no `document` (SSR, Node). The first use compiles the
// module (a few ms) so `webmcp()` and `configureWebMCP()` can validate and throw at once.
//
// A wasm trap (an out-of-memory, a bug) would otherwise brick the package for the page's life:
// wasm-bindgen leaves the trapped instance's state half-changed. So every crossing goes through
// the instance's trap guard (`trap-guard.ts`): a trap marks the instance dead and throws
// `CoreTrapped`; the next use instantiates a fresh one from the already compiled module, and
// each client replays its configuration into it (see `client.ts`).
// Where the compiled module comes from (the bytes shipped in the package, or the `.wasm` file
// `/slim`'s `init()` loaded) is core-source.ts's; it is imported first, for the bytes' sake.
import { coreSource, coreSourceAsync } from './core-source.js';
import * as glue from '../../wasm/warden_core.js';
import { coreReplaced } from '../../wasm/pattern-host.js';
import { wasmBytes, wasmBytesAsync } from './wasm-bytes.js';
import { installPatternLoaders } from './patterns.js';
import { Configure, Control, Read } from './codes.js';
import { Writer, decode, encode } from './wire.js';
import { WardenError } from '../util/errors.js';
import { TrapGuard } from './trap-guard.js';
import type { HookIdAnswer } from './answers.js';

/** Thrown when the core trapped during a crossing; the call that saw it ends as `internal_error`. */
export class CoreTrapped extends Error {
  constructor(cause: unknown) {
    super('webmcp-warden: the core module trapped; it is restarted on next use', { cause });
    this.name = 'CoreTrapped';
  }
}

// The page's core module: compiled once, its live instance's generation and memory (every
// client has an engine in the one instance).
let compiled: WebAssembly.Module | undefined;
let generation = 0;
let memory: WebAssembly.Memory | undefined;

/** Makes an instance of the core: compiling it first on first use, a new generation each time. */
function startCore(): void {
  try {
    // Decoded and compiled here, on the main thread, unless `ready()` did it off the thread
    // first (where the bytes come from: core-source.ts).
    if (compiled === undefined) {
      const source = coreSource();
      compiled = source instanceof WebAssembly.Module ? source : new WebAssembly.Module(wasmBytes(source.file, source.lzmaBase64) as BufferSource);
    }
    // The core's patterns are judged by modules the page loads when it first has one
    // (patterns.ts); a new instance's pattern slots start empty.
    installPatternLoaders();
    if (generation > 0) coreReplaced();
    memory = glue.initSync({ module: compiled }).memory;
  } catch (err) {
    throw loadFailed(err);
  }
  generation++;
}

/** The core's instance: a crossing that traps throws `CoreTrapped`. */
const instance = new TrapGuard(startCore, (err) => new CoreTrapped(err));

/**
 * The current instance's generation, loading the core on first use. A client whose engine was
 * made in an older generation must replay its configuration before using it.
 */
export function coreGeneration(): number {
  instance.open();
  return generation;
}

/**
 * What a failed load of the core is thrown as: a `WardenError('internal_error')` saying why (a
 * page whose CSP refuses wasm, a module that does not compile), never the platform's bare
 * `CompileError`. For the page's developer: a call that meets it answers only the generic text.
 */
function loadFailed(err: unknown): WardenError {
  if (err instanceof WardenError) return err;
  return new WardenError('internal_error', `webmcp-warden: the core module could not be loaded (${err instanceof Error ? err.message : String(err)})`, { cause: err });
}

/** The live instance's generation without loading anything; `-1` when no instance is live. */
export function liveGeneration(): number {
  return instance.live ? generation : -1;
}

/**
 * The size of the live instance's linear memory in bytes. Wasm memory only grows, so tests read
 * it before and after a large result to show what shaping keeps.
 */
export function coreMemoryBytes(): number {
  coreGeneration();
  return memory === undefined ? 0 : memory.buffer.byteLength;
}

/** The page's compilation in progress (`ready()`, `register()`), shared by every client. */
let compiling: Promise<void> | undefined;

/**
 * Resolves when the core is loaded. Optional: every API loads the core when it needs it, on the
 * main thread (decoding and compiling it is one long task there: bench/RESULTS.md). Called early
 * (`ready()` next to the app's first import, before the first `webmcp()`), it decodes the bytes
 * in slices with the page's other tasks in between and compiles them with `WebAssembly.compile`
 * (off the main thread); the first `webmcp()` then only instantiates. `register()` takes this
 * path too when nothing loaded the core yet.
 */
export function ready(): Promise<void> {
  if (instance.live) return Promise.resolve();
  compiling ??= compileOffThread()
    .then(() => {
      coreGeneration();
    })
    .catch((err: unknown) => {
      // A later ready() (or the next use) tries again.
      compiling = undefined;
      throw loadFailed(err);
    });
  return compiling;
}

/** The compiled module, made without blocking the main thread where the platform allows. */
async function compileOffThread(): Promise<void> {
  if (compiled !== undefined) return;
  const source = await coreSourceAsync();
  const module = source instanceof WebAssembly.Module ? source : await WebAssembly.compile((await wasmBytesAsync(source.file, source.lzmaBase64)) as BufferSource);
  // A synchronous first use may have compiled it meanwhile; either module is the same code.
  compiled ??= module;
}

/** Runs one crossing; a trap marks the instance dead and becomes `CoreTrapped`. */
const guard = <T>(crossing: () => T): T => instance.run(crossing);

/**
 * A configuration step through the core's one `configure` export (`wasm/core/configure.rs`):
 * the step's arguments as a wire array, then its payload as the caller encoded it. One export
 * for every step, because each export costs argument glue on both sides of the boundary.
 */
function configure(e: number, step: number, args: readonly unknown[], payload?: Uint8Array): Uint8Array {
  const request = new Writer();
  request.append(encode(args));
  if (payload !== undefined) request.append(payload);
  return guard(() => glue.configure(e, step, request.done()));
}

/** A scalar step through the core's one `control` export (`wire::Control`). */
const control = (e: number, step: number, arg = 0) => guard(() => glue.control(e, step, arg));

/** A hook id through the core's `read` export: a string, or `undefined` when there is none. */
const hookId = (e: number, what: number, id: number) => (decode(guard(() => glue.read(e, what, id))) as HookIdAnswer) ?? undefined;

/** The core's exports, each crossing guarded. Engine ids come from `engineNew`. */
export const core = {
  engineNew: () => guard(() => glue.engineNew()),
  engineDrop: (e: number) => {
    control(e, Control.EngineDrop);
  },
  engineReset: (e: number): Uint32Array => guard(() => glue.engineReset(e)),
  engineCounts: (e: number): Uint32Array => guard(() => glue.engineCounts(e)),
  defineHookSet: (e: number, set: number, spec: Uint8Array, label: string): Uint8Array => configure(e, Configure.DefineHookSet, [set, label], spec),
  dropHookSet: (e: number, set: number) => {
    control(e, Control.DropHookSet, set);
  },
  addGlobal: (e: number, set: number, replace: boolean, label: string): Uint8Array => configure(e, Configure.AddGlobal, [set, replace, label]),
  clearGlobal: (e: number): Uint32Array => guard(() => glue.clearGlobal(e)),
  setServerId: (e: number, id: string) => guard(() => glue.setServerId(e, id)),
  setHookReturns: (e: number, strict: boolean) => {
    control(e, Control.SetHookReturns, strict ? 1 : 0);
  },
  defineTool: (e: number, tool: number, definition: Uint8Array, server: string | undefined, sets: Uint32Array, label: string): Uint8Array =>
    configure(e, Configure.DefineSubject, [tool, 0, server ?? null, Array.from(sets), label], definition),
  defineStandaloneTool: (e: number, tool: number, name: string, sets: Uint32Array, label: string): Uint8Array =>
    configure(e, Configure.DefineStandaloneTool, [tool, name, Array.from(sets), label]),
  defineSubject: (e: number, id: number, subject: number, definition: Uint8Array, server: string | undefined, sets: Uint32Array, label: string): Uint8Array =>
    configure(e, Configure.DefineSubject, [id, subject, server ?? null, Array.from(sets), label], definition),
  dropTool: (e: number, tool: number) => {
    control(e, Control.DropTool, tool);
  },
  defineScope: (e: number, scope: number, parent: number, set: number | undefined, label: string): Uint8Array =>
    configure(e, Configure.DefineScope, [scope, parent, set ?? null, label]),
  dropScope: (e: number, scope: number) => {
    control(e, Control.DropScope, scope);
  },
  begin: (e: number, tool: number, scope: number, flags: number, signal: number) => {
    instance.open();
    try {
      return glue.begin(e, tool, scope, flags, signal);
    } catch (err) {
      throw instance.failed(err);
    }
  },
  beginAt: (e: number, tool: number, scope: number, flags: number, target: string, signal: number) => guard(() => glue.beginAt(e, tool, scope, flags, target, signal)),
  planError: (e: number, tool: number, scope: number): Uint8Array => configure(e, Configure.PlanError, [tool, scope]),
  // The crossings every call makes (begin, step, end) are guarded inline: no closure per call.
  step: (e: number, call: number, outcome: number, facts: number, signal: number, ms: number) => {
    instance.open();
    try {
      return glue.step(e, call, outcome, facts, signal, ms);
    } catch (err) {
      throw instance.failed(err);
    }
  },
  stepWith: (e: number, call: number, outcome: number, facts: number, signal: number, ms: number, payload: Uint8Array) =>
    guard(() => glue.stepWith(e, call, outcome, facts, signal, ms, payload)),
  policyFacts: (e: number, call: number, facts: Uint8Array, signal: number) => guard(() => glue.policyFacts(e, call, facts, signal)),
  currentHookId: (e: number, call: number) => hookId(e, Read.CurrentHookId, call),
  lastHookId: (e: number, call: number) => hookId(e, Read.LastHookId, call),
  callError: (e: number, call: number): Uint8Array => guard(() => glue.read(e, Read.CallError, call)),
  callDecision: (e: number, call: number): Uint8Array => guard(() => glue.read(e, Read.CallDecision, call)),
  askFacts: (e: number, call: number): Uint8Array => guard(() => glue.read(e, Read.AskFacts, call)),
  end: (e: number, call: number): Uint8Array => guard(() => glue.end(e, call)),
  beginListing: (e: number, tools: Uint32Array, scopes: Uint32Array) => guard(() => glue.beginListing(e, tools, scopes)),
  listingStep: (e: number, listing: number, outcome: number, facts: number, ms: number, payload: Uint8Array) =>
    guard(() => glue.listingStep(e, listing, outcome, facts, ms, payload)),
  listingGiven: (e: number, listing: number): Uint32Array => guard(() => glue.listingGiven(e, listing)),
  listingHookId: (e: number, listing: number) => hookId(e, Read.ListingHookId, listing),
  endListing: (e: number, listing: number): Uint8Array => guard(() => glue.read(e, Read.EndListing, listing)),
  setPolicy: (e: number, spec: Uint8Array): Uint8Array => configure(e, Configure.SetPolicy, [], spec),
  setApprovedFingerprints: (e: number, spec: Uint8Array): Uint8Array => configure(e, Configure.SetApprovedFingerprints, [], spec),
  sealBaseline: (e: number) => {
    control(e, Control.SealBaseline);
  },
  setToolFilter: (e: number, spec: Uint8Array): Uint8Array => configure(e, Configure.SetToolFilter, [], spec),
  isVisible: (e: number, tool: number) => control(e, Control.IsVisible, tool) === 1,
  recordBaseline: (e: number, tool: number) => {
    control(e, Control.RecordBaseline, tool);
  },
  recordGrant: (e: number, call: number, principal: string | undefined, now: number, ttl: number, argsDigest: string | undefined): Uint8Array =>
    configure(e, Configure.RecordGrant, [call, principal ?? null, now, ttl, argsDigest ?? null]),
  forgetGrant: (e: number, grant: Uint8Array) => guard(() => glue.forgetGrant(e, grant)),
  loadGrants: (e: number, stored: Uint8Array): Uint8Array => configure(e, Configure.LoadGrants, [], stored),
  listGrants: (e: number, now: number): Uint8Array => configure(e, Configure.ListGrants, [now]),
  revokeGrants: (e: number, filter: Uint8Array): Uint8Array => configure(e, Configure.RevokeGrants, [], filter),
  clearGrants: (e: number) => {
    control(e, Control.ClearGrants);
  },
  storedGrants: (e: number): Uint8Array => configure(e, Configure.StoredGrants, []),
  suspend: (e: number, reason: string | null): Uint8Array => configure(e, Configure.Suspend, [reason]),
  setRebaseline: (e: number, on: boolean) => {
    control(e, Control.SetRebaseline, on ? 1 : 0);
  },
  setUnsafePatterns: (e: number, allowed: boolean) => {
    control(e, Control.SetUnsafePatterns, allowed ? 1 : 0);
  },
  checkPattern: (source: string, flags: string, allowUnsafe: boolean): Uint8Array => configure(0, Configure.CheckPattern, [source, flags, allowUnsafe]),
  sha256Hex: (text: string) => guard(() => glue.sha256Hex(text)),
  explainUnknown: (name: string): Uint8Array => guard(() => glue.explainUnknown(name)),
  /** Forces a trap (tests of the recovery only). */
  testTrap: () => guard(() => glue.__testTrap()),
};
