// The entry's doors into the pipeline chunk (`pipeline.ts`): each loads the chunk on first use
// and then calls into it directly, so a call made once it is loaded costs no extra turn. They
// keep the pipeline's contracts when the chunk cannot be downloaded (offline, a deploy that
// removed it): a call fails closed as data (`internal_error`); a registration or a listing
// rejects with a `WardenError` saying why; the next use tries again.
import type { ClientState } from '../client/client.js';
import { liveGeneration, ready } from '../boundary/core.js';
import { WardenError } from '../util/errors.js';
import type { Compiled, PipelineTool, RegisteredTool, SubjectCall } from '../types/internal.js';
import { failedOutcome } from '../client/outcomes.js';
import { patternsSettled } from '../boundary/patterns.js';
import type { ShapedResult } from '../shape/shaping.js';
import type { CallOptions, CallOutcome, CallToolResult, JsonSchema, JsonValidated, Limits, ListingOptions, ToolContract } from '../types/types.js';

/**
 * What the pipeline chunk offers (`pipeline/pipeline.ts`), as its `import()` answers it: the
 * door knows the chunk only through that import.
 */
export type PipelineChunk = Awaited<typeof import('../pipeline/pipeline.js')>['pipeline'];

// The page's pipeline chunk once loaded, and its load in progress: one chunk for every client.
let pipeline: PipelineChunk | undefined;
let loading: Promise<PipelineChunk> | undefined;

/** The loaded chunk, or `undefined` before it loaded. */
export function loadedPipeline(): PipelineChunk | undefined {
  return pipeline;
}

/**
 * The loaded chunk, for code the chunk itself calls back (a resource read's normalizing and
 * shaping run inside its call); throws when it is not loaded, a bug of this package.
 */
export function inPipeline(): PipelineChunk {
  if (pipeline === undefined) throw new Error('webmcp-warden: the pipeline chunk is not loaded yet');
  return pipeline;
}

/** Loads the pipeline chunk once; a failed load rejects, and the next use tries again. */
export function loadPipeline(): Promise<PipelineChunk> {
  if (pipeline !== undefined) return Promise.resolve(pipeline);
  loading ??= import('../pipeline/pipeline.js').then(({ pipeline: chunk }) => (pipeline = chunk));
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

/**
 * {@link loadPipeline}, for a call or a listing: they need the core too, so when nothing has
 * loaded it yet it loads beside the chunk, as `ready()` does (off the main thread), rather than
 * on the main thread at the call's first step. A core that cannot load that way is left to that
 * first step to report.
 */
function loadForCall(): Promise<PipelineChunk> {
  if (liveGeneration() >= 0) return loadPipeline();
  return Promise.all([loadPipeline(), ready().catch(() => undefined)]).then(([chunk]) => chunk);
}

/**
 * What a failed load is thrown as, for the page's developer (`register()`, `listTools()`,
 * `explain()`, `validateJson`, `shapeForModel`): a `WardenError('internal_error')` saying what did
 * not load and why, never the platform's bare error (a `TypeError` of `import()`, a
 * `CompileError`). A call answers only the generic text instead ({@link INTERNAL_ERROR}).
 */
export function loadFailure(what: string, err: unknown): WardenError {
  if (err instanceof WardenError) return err;
  return new WardenError('internal_error', `internal error in webmcp-warden: ${what} did not load (${err instanceof Error ? err.message : String(err)})`, { cause: err });
}

/**
 * What a call answers when something it needs did not load: the generic text only. The loader's
 * message (a chunk's URL, the platform's words) is the page's, not the agent's.
 */
export const INTERNAL_ERROR = 'internal error in webmcp-warden';

/**
 * {@link loadPipeline}, rejecting with `WardenError('internal_error')` when the chunk does not
 * load; `forCall`: with the core beside it (see `loadForCall`).
 */
export function pipelineOrThrow(forCall = false): Promise<PipelineChunk> {
  return pipeline !== undefined
    ? Promise.resolve(pipeline)
    : (forCall ? loadForCall() : loadPipeline()).catch((err: unknown) => {
        throw loadFailure('the pipeline chunk', err);
      });
}

/**
 * {@link loadForCall}, after the pattern modules in flight have loaded: a call, a listing or a dry
 * run can test the page's patterns, and a pattern whose judgement (or linear engine) is still
 * loading could not be tested (docs/behaviour.md, "Patterns"). A load that fails leaves those
 * patterns failing closed.
 */
function loadForPatterns(): Promise<PipelineChunk> {
  const waiting = patternsSettled();
  return waiting === undefined ? loadForCall() : Promise.all([loadForCall(), waiting]).then(([chunk]) => chunk);
}

/**
 * Starts compiling the shaping module for a first call beside the core and the pipeline chunk,
 * rather than once the call has begun. Only for a tool that shapes by default and has no JSON
 * Schema (the call loads the validator module for one, which shapes too); a call that sets its
 * own `shape` starts nothing here (its options are read once, by the call). A hint: the call
 * asks for the module again and reports what does not load. (While a validator is still
 * loading for another tool, the call may shape with it instead, and this compile is spent.)
 */
function prefetchShaping(tool: PipelineTool, options: CallOptions | null | undefined): void {
  if (tool.shape !== 'llm') return;
  try {
    if (options !== null && typeof options === 'object' && Object.prototype.hasOwnProperty.call(options, 'shape')) return;
  } catch {
    return;
  }
  if (tool.validation.input !== undefined || tool.validation.output !== undefined) return;
  import('../shape/shape-module.js').then((chunk) => chunk.start()).catch(() => undefined);
}

/** Runs one governed call (`call.ts`); a chunk that does not load fails the call closed, as data. */
export function runCall(w: ClientState, tool: PipelineTool, input: unknown, options?: CallOptions | null, scope = 0): Promise<CallOutcome> {
  if (pipeline !== undefined && patternsSettled() === undefined) return pipeline.runCall(w, tool, input, options, scope);
  if (pipeline === undefined) prefetchShaping(tool, options);
  return loadForPatterns().then(
    (chunk) => chunk.runCall(w, tool, input, options, scope),
    () => failedOutcome('tool', 'internal_error', INTERNAL_ERROR),
  );
}

/** Runs one governed read or get (`call.ts`); fails closed like {@link runCall}. */
export function runSubjectCall(w: ClientState, subject: PipelineTool, about: SubjectCall, input: unknown, options: CallOptions | null | undefined, scope: number): Promise<CallOutcome> {
  if (pipeline !== undefined && patternsSettled() === undefined) return pipeline.runSubjectCall(w, subject, about, input, options, scope);
  return loadForPatterns().then(
    (chunk) => chunk.runSubjectCall(w, subject, about, input, options, scope),
    () => failedOutcome('tool', 'internal_error', INTERNAL_ERROR),
  );
}

/** The registered tools as an agent sees them (`listing.ts`). */
export async function listContracts(w: ClientState, tools: RegisteredTool[], options?: ListingOptions): Promise<ToolContract[]> {
  const chunk = await pipelineOrThrow(true);
  await patternsSettled();
  return chunk.listContracts(w, tools, options);
}

/** Brings the browser's registrations in line with the page (`registration.ts`). */
export async function syncRegistrations(w: ClientState): Promise<void> {
  await (await pipelineOrThrow()).syncRegistrations(w);
}

/**
 * Syncs the browser's registrations after a change of settings or tools, without waiting.
 * Before the chunk loaded nothing was registered (registering loads it), so there is nothing to
 * bring in line.
 */
export function resyncRegistrations(w: ClientState): void {
  if (pipeline !== undefined) void pipeline.syncRegistrations(w).catch(() => undefined);
}

/** Re-registers with a runtime that arrived or changed (`registration.ts`); nothing before anything was registered. */
export function noticeRuntime(w: ClientState): void {
  pipeline?.noticeRuntime(w);
}

/** Compiles a JSON Schema in the validator module (`validation.ts`): its handle and notes, or why it is invalid. */
export async function compileSchema(schema: JsonSchema, allowUnsafe = false): Promise<Compiled> {
  return validatorLoaded((await pipelineOrThrow()).compileSchema(schema, allowUnsafe));
}

/** `work`, which loads the validator module: a module that does not load rejects as a `WardenError`. */
function validatorLoaded<T>(work: Promise<T>): Promise<T> {
  return work.catch((err: unknown) => {
    throw loadFailure('the JSON Schema validator module', err);
  });
}

/**
 * Validates a value against a JSON Schema outside any call (a page checking data itself):
 * `{ valid: true }`, `{ valid: false, diagnostics }`, or `{ valid: false, invalidSchema }`.
 * JSON cannot carry every JS value: a cycle, a BigInt or a value over the limits is a diagnostic.
 * Loads the pipeline and the validator module on first use, hence a promise; the value is
 * checked as it is when this is called, not as it is once they are loaded.
 *
 * @param schema - A JSON Schema (drafts 2020-12 and 7).
 * @param value - Any value; it is checked as the JSON it would become.
 * @param limits - The most UTF-8 bytes and the deepest nesting allowed (default 1 MiB, 64 levels).
 */
export async function validateJson(schema: JsonSchema, value: unknown, limits?: Limits): Promise<JsonValidated> {
  if (pipeline !== undefined) return validatorLoaded(pipeline.validateJson(schema, value, limits));
  // The walk that writes the JSON loads with the pipeline: until then, the JSON text the value
  // makes now stands for it (the same text, hence the same verdict). A value JSON.stringify
  // refuses (a cycle, a BigInt) is walked once loaded, for its diagnostic.
  let now = value;
  try {
    const text = JSON.stringify(value);
    if (typeof text === 'string') now = JSON.parse(text);
  } catch {
    // Kept as is: the walk says why it has no JSON form.
  }
  return validatorLoaded((await pipelineOrThrow()).validateJson(schema, now, limits));
}

/**
 * Shapes a result for a model outside a call, as a call with `shape: 'llm'` does: loads the
 * shaping module on first use, hence a promise. Rejects only when the module cannot be loaded.
 *
 * @param result - A tool result (`{ content, structuredContent?, isError? }`).
 * @param serverId - The server id written in the result's `provenance`.
 * @param maxBytes - The most UTF-8 bytes of the result a model may read.
 */
export async function shapeForModel(result: CallToolResult, serverId: string, maxBytes: number): Promise<ShapedResult> {
  const shaping = await (await pipelineOrThrow()).loadShaper().catch((err: unknown) => {
    throw loadFailure('the shaping module', err);
  });
  return shaping.shapeForModel(result, serverId, maxBytes);
}
