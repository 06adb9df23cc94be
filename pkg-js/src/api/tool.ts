// `webmcp(fn, options)`: wrap a function as a governed tool of a client, and register it with
// the page's registry and the browser.
import type { ClientState } from '../client/client.js';
import { fingerprintFields } from '../util/canonical.js';
import { ConfigurationError, RegistrationError, WardenError } from '../util/errors.js';
import { compileHookSet, mergeHooks } from '../client/hookset.js';
import type { AnyToolOptions, PatternNote } from '../types/internal.js';
import type { ToolRecord } from '../client/client.js';
import { addToRegistry, dropBrowserRegistration, removeFromRegistry } from '../client/registry.js';
import { loadFailure, pipelineOrThrow, resyncRegistrations, runCall, syncRegistrations, type PipelineChunk } from './pipeline-loader.js';
import { exportJsonSchema, isStandardSchema, type StandardSchemaLike } from '../util/schema-export.js';
import { core, liveGeneration, ready } from '../boundary/core.js';
import { hasJudge, judgementMissing, patternsProblem } from '../boundary/patterns.js';
import { loadingValidator, loadValidator } from '../validator/validator-loader.js';
import { decode, encode } from '../boundary/wire.js';
import type { CheckPatternAnswer } from '../boundary/answers.js';
import type { CallOptions, CallOutcome, JsonSchema, RegistrationStatus, ToolContract, WebMCPTool } from '../types/types.js';
import { TOOL_NAME_RULE } from '../util/names.js';
import { isPlainObject, typeName } from '../util/js-values.js';

const KNOWN_OPTIONS = new Set(['name', 'title', 'description', 'inputSchema', 'schema', 'outputSchema', 'annotations', 'hooks', 'server', 'shape', 'structured', 'scope', 'enabled', 'exposedTo', 'browserSchema', 'unsafePatterns']);
const BRAND = Symbol.for('webmcp-warden.tool');
/** The signal a tool called directly with one argument gets (the pipeline has its own, perform.ts). */
const NEVER_ABORTED = new AbortController().signal;

/**
 * Calls `listener` after each change of the tool's `status`; answers the unsubscribe function
 * (the React layer mirrors `status` through this).
 */
export function onStatusChange(record: ToolRecord, listener: () => void): () => void {
  const own = () => listener();
  record.statusListeners.add(own);
  return () => void record.statusListeners.delete(own);
}

/** snake_case of a function name: how a tool without `name` is named (as simple-webmcp did). */
export function toSnakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
}

/** Whether `value` is a tool made by `webmcp`. */
export function isWebMCPTool(value: unknown): value is WebMCPTool {
  return typeof value === 'function' && (value as unknown as Record<symbol, unknown>)[BRAND] !== undefined;
}

/** The record behind a tool made by `webmcp`. */
export function recordOf(tool: WebMCPTool): ToolRecord {
  return (tool as unknown as Record<symbol, ToolRecord>)[BRAND] as ToolRecord;
}

/**
 * Frees what a tool holds in its client's core (its tool handle and the hook sets no other tool
 * shares) once the tool object is unreachable: ownership of a tool is implicit (a page drops its
 * reference), so a `FinalizationRegistry` is the way to notice. A registered tool is held by the
 * registry, so it is never collected while an agent can call it.
 */
const finalizer =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry<{ w: ClientState; coreTool: number; sets: number[] }>(({ w, coreTool, sets }) => releaseTool(w, coreTool, sets))
    : undefined;

/** Counts `delta` more live tools using each of `sets` (`ClientState.setUsers`); answers the sets no tool uses any more. */
function useSets(w: ClientState, sets: number[], delta: number): number[] {
  const users = w.setUsers;
  const freed: number[] = [];
  for (const set of sets) {
    const count = (users.get(set) ?? 0) + delta;
    if (count <= 0) {
      users.delete(set);
      freed.push(set);
    } else users.set(set, count);
  }
  return freed;
}

function releaseTool(w: ClientState, coreTool: number, sets: number[]): void {
  try {
    w.dropTool(coreTool);
    for (const set of useSets(w, sets, -1)) w.dropHookSet(set);
  } catch {
    // A disposed client or a replaced core: nothing is left to free.
  }
}

/**
 * Wraps `fn` as a WebMCP tool of client `w`. Options are checked at once: an invalid name,
 * option or hook throws `ConfigurationError` here, not at the first call. Given a tool made by
 * `webmcp`, re-wraps it: options merge and hook arrays concatenate.
 */
export function createTool(w: ClientState, fn: (...args: any[]) => unknown, options?: AnyToolOptions): WebMCPTool {
  if (isWebMCPTool(fn)) {
    if (options === undefined) return fn;
    const previous = recordOf(fn);
    checkOptions(options);
    const merged: AnyToolOptions = { ...previous.options, ...options, hooks: mergeHooks(previous.options.hooks, options.hooks) };
    return makeTool(previous.clientState, previous.fn, merged, previous.hookSets, options.hooks);
  }
  if (typeof fn !== 'function') throw new ConfigurationError('invalid_tool', `webmcp expects a function, not ${typeName(fn)}`);
  const opts = options ?? {};
  checkOptions(opts);
  return makeTool(w, fn, opts, [], opts.hooks);
}

/** Refuses a tool's options: `ConfigurationError('invalid_options', 'webmcp: <why>')`. */
function refuse(why: string): never {
  throw new ConfigurationError('invalid_options', `webmcp: ${why}`);
}

function checkOptions(options: AnyToolOptions): void {
  if (!isPlainObject(options)) throw new ConfigurationError('invalid_options', `webmcp options must be an object, not ${typeName(options)}`);
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(key)) throw new ConfigurationError('unknown_option', `webmcp: unknown option "${key}"`);
  }
  const { name, title, description, inputSchema, outputSchema, annotations, server, shape, structured, scope, enabled } = options;
  const { schema } = options;
  if (name !== undefined && !(typeof name === 'string' && TOOL_NAME_RULE.test(name))) {
    throw new ConfigurationError('invalid_name', `webmcp: tool name ${JSON.stringify(name)} is invalid: use 1–128 characters of A-Z a-z 0-9 _ . -`);
  }
  for (const [key, value] of [['title', title], ['description', description]] as const) {
    if (value !== undefined && typeof value !== 'string') refuse(`${key} must be a string`);
  }
  for (const [key, value] of [['inputSchema', inputSchema], ['outputSchema', outputSchema], ['annotations', annotations]] as const) {
    if (value !== undefined && !isPlainObject(value)) refuse(`${typeof name === 'string' ? `tool "${name}": ` : ''}${key} must be a plain object, not ${typeName(value)}`);
  }
  if (schema !== undefined && !isStandardSchema(schema) && !isPlainObject(schema)) {
    refuse(`schema must be a Standard Schema (zod, valibot, …) or a JSON Schema object, not ${typeName(schema)}`);
  }
  // With a Standard Schema, `inputSchema` may say what the browser shows; two JSON Schemas for
  // one input are a mistake.
  if (schema !== undefined && inputSchema !== undefined && !isStandardSchema(schema)) refuse('give either schema or inputSchema as the JSON Schema, not both');
  if (server !== undefined && !(typeof server === 'string' && server.length > 0)) refuse('server must be a non-empty string');
  if (shape !== undefined && shape !== 'llm' && shape !== false) refuse("shape must be 'llm' or false");
  if (structured !== undefined && typeof structured !== 'boolean') refuse('structured must be a boolean');
  if (scope !== undefined && scope !== 'global' && scope !== 'scoped' && scope !== 'manual') refuse("scope must be 'global', 'scoped' or 'manual'");
  if (enabled !== undefined && typeof enabled !== 'boolean') refuse('enabled must be a boolean');
  if (options.unsafePatterns !== undefined && typeof options.unsafePatterns !== 'boolean') refuse('unsafePatterns must be a boolean');
  const { exposedTo, browserSchema } = options;
  if (exposedTo !== undefined && !(Array.isArray(exposedTo) && exposedTo.every((origin) => typeof origin === 'string'))) refuse('exposedTo must be an array of origins');
  if (browserSchema !== undefined && browserSchema !== 'as-given' && browserSchema !== 'compatible') refuse("browserSchema must be 'as-given' or 'compatible'");
  // A tool's own hooks never see a resource read or a prompt get.
  const gate = isPlainObject(options.hooks) ? Object.keys(options.hooks).find((key) => key === 'resourceRead' || key === 'promptGet') : undefined;
  if (gate !== undefined) {
    throw new ConfigurationError('invalid_hooks', `webmcp: a tool's own hooks have no ${gate} hooks (they would never run); give them to configureWebMCP, a provider, or the resource or prompt`, 'hooks');
  }
}

/**
 * Function names as minifiers write them: one or two characters, a `$`, or three characters with
 * a digit or an inner capital (`I3e`, `aBc`). A name derived from one would differ between
 * development and production (`vite build` turned `function getCart() {}` into `hc`, `esbuild
 * --minify` into `dq`, and into `I3e` in a bundle of 4,000 functions), silently, and agents and
 * policies naming the tool would see another tool.
 */
const MINIFIED_NAME = /^[\w$]{1,2}$|\$|^(?=[\w]{3}$)(?:.*\d|.[\w]?[A-Z])/;

/** Derived names already warned about as possibly minified (one warning per name). */
const warnedShortNames = new Set<string>();

/**
 * The name of a tool given without `name`: snake_case of the function's `displayName` or `name`
 * (simple-webmcp's rule, which its users rely on). A function with no name (an arrow function,
 * or an inline function expression a production build stripped) or with a name that looks
 * minified is refused with a message saying what to write, so a production build fails at
 * start-up instead of renaming the tool. A three-letter lowercase name (`add`) could be an
 * author's or a minifier's: it is kept, with one console warning saying to give `name`, so a
 * rename is never silent.
 */
function derivedName(fn: (...args: any[]) => unknown): string {
  const own = (fn as { displayName?: unknown }).displayName;
  const source = typeof own === 'string' && own.length > 0 ? own : typeof fn.name === 'string' ? fn.name : '';
  const snake = toSnakeCase(source);
  if (source.length > 0 && !MINIFIED_NAME.test(source) && TOOL_NAME_RULE.test(snake)) {
    if (source.length === 3 && !warnedShortNames.has(source)) {
      warnedShortNames.add(source);
      console.warn(
        `webmcp-warden: the tool "${snake}" is named after its function "${source}", and minifiers give functions names this short in large bundles. Give the tool a name, such as webmcp(fn, { name: "${snake}", description: "…" }), or keep function names (esbuild keepNames, terser keep_fnames).`,
      );
    }
    return snake;
  }
  const why = source.length === 0 ? 'the function has no name' : `the function's name "${source}" looks like a minifier's`;
  return missingName(why);
}

/** The refusal of a tool whose name cannot be derived, saying what to write. */
function missingName(why: string): never {
  throw new ConfigurationError(
    'missing_name',
    `webmcp: give the tool a name, such as webmcp(fn, { name: "my_tool", description: "…" }): ${why}, and production builds rename functions.`,
    'name',
  );
}

function makeTool(w: ClientState, fn: (...args: any[]) => unknown, options: AnyToolOptions, inheritedSets: number[], newHooks: unknown): WebMCPTool {
  const name = options.name ?? derivedName(fn);
  const label = `tool "${name}" hooks`;
  const standard = isStandardSchema(options.schema) ? (options.schema as StandardSchemaLike) : undefined;
  const jsonInput = standard ? undefined : ((options.schema as JsonSchema | undefined) ?? options.inputSchema);
  // With a Standard Schema, the browser is shown `inputSchema` when given, else the schema's
  // own JSON Schema; when it has none, `register()` says so (src/schema-export.ts says why).
  let shown: JsonSchema | undefined = jsonInput ?? (standard ? options.inputSchema : undefined);
  let schemaProblem: string | undefined;
  if (shown === undefined && standard !== undefined) {
    const exported = exportJsonSchema(standard);
    if ('schema' in exported) shown = exported.schema;
    else schemaProblem = exported.problem;
  }
  const contract: ToolContract = {
    name,
    description: options.description ?? '',
    inputSchema: shown ?? { type: 'object', properties: {} },
  };
  if (options.title !== undefined) contract.title = options.title;
  if (options.outputSchema !== undefined) contract.outputSchema = options.outputSchema;
  if (options.annotations !== undefined) contract.annotations = options.annotations;

  const newSet = compileHookSet(w, newHooks, label);
  const hookSets = newSet === undefined ? [...inheritedSets] : [...inheritedSets, newSet];
  const coreTool = w.handles.take();
  try {
    w.defineTool(coreTool, encodeDefinition(contract), name, options.server, new Uint32Array(hookSets), label);
  } catch (err) {
    w.handles.give(coreTool);
    if (newSet !== undefined) w.dropHookSet(newSet);
    throw err;
  }
  useSets(w, hookSets, 1);

  // The direct call bypasses the pipeline, but the function may read its context (`fn(input,
  // { signal })`, as the agent path calls it): without one, it gets a signal that never aborts.
  const tool = function (this: unknown, ...args: unknown[]): unknown {
    if (args[1] === undefined) return fn.call(this, args[0], { signal: NEVER_ABORTED }, ...args.slice(2));
    return fn.apply(this, args);
  } as unknown as WebMCPTool;
  let status: RegistrationStatus = 'unregistered';
  let fingerprint: string | undefined;
  const record: ToolRecord = {
    clientState: w,
    coreTool,
    fn: fn as ToolRecord['fn'],
    publicTool: tool,
    schemaProblem,
    contract,
    server: options.server,
    validation: { input: jsonInput, standard, output: options.outputSchema, unsafePatterns: options.unsafePatterns === true },
    shape: options.shape ?? 'llm',
    structured: options.structured,
    // Read when asked: a tool without hooks is hashed when the client's engine is made
    // (client.ts, `defineTool`), and it never changes.
    get fingerprint() {
      fingerprint ??= w.fingerprintOf(coreTool);
      return fingerprint;
    },
    options,
    hookSets,
    // The registration state, written as in subject.ts's record: accessors in the literal itself
    // (a spread or a shared helper would call the getters or give each record another shape).
    get status() {
      return status;
    },
    set status(next: RegistrationStatus) {
      if (next === status) return;
      status = next;
      for (const listener of [...record.statusListeners]) listener();
    },
    error: null,
    attempt: undefined,
    browser: undefined,
    get scope() {
      return record.scopeOf?.() ?? 0;
    },
    scopeOf: undefined,
    statusListeners: new Set(),
  };
  Object.defineProperties(tool, {
    [BRAND]: { value: record },
    name: { value: fn.name, configurable: true },
    length: { value: fn.length, configurable: true },
    toolName: { value: name, enumerable: true },
    definition: { get: () => copyContract(contract), enumerable: true },
    fingerprint: { get: () => record.fingerprint, enumerable: true },
    status: { get: () => record.status, enumerable: true },
    error: { get: () => record.error, enumerable: true },
    register: { value: (opts?: { signal?: AbortSignal }) => register(record, opts) },
    unregister: { value: () => unregister(record) },
    invoke: { value: (input?: unknown, opts?: CallOptions): Promise<CallOutcome> => runCall(w, record, input, opts, record.scope) },
  });
  finalizer?.register(tool, { w, coreTool, sets: hookSets });
  if (options.scope === 'global' && options.enabled !== false && (globalThis as { document?: unknown }).document !== undefined) {
    // Registration errors land in `status` / `error`; a global tool has no caller to reject.
    queueMicrotask(() => void register(record).catch(() => undefined));
  }
  return tool;
}

/**
 * The definition as the core reads it: the name, the annotations (for policy predicates) and
 * the canonical text of each fingerprinted field (the core hashes them; `src/digest.rs`).
 */
function encodeDefinition(contract: ToolContract): Uint8Array {
  let canonical: Record<string, string>;
  try {
    canonical = fingerprintFields(contract as unknown as Record<string, unknown>);
  } catch (err) {
    // Our own reasons are quoted; what a getter or a `toJSON` threw never is.
    const why = err instanceof WardenError ? err.message.replace(/^canonicalJson: /, '') : 'reading it threw';
    throw new ConfigurationError('invalid_definition', `tool "${contract.name}": the definition has no JSON form (${why})`);
  }
  return encode({ name: contract.name, annotations: contract.annotations, canonical });
}

/** A deep copy of a JSON-like contract (callers may change it without touching the tool). */
function copyContract(contract: ToolContract): ToolContract {
  try {
    return JSON.parse(JSON.stringify(contract)) as ToolContract;
  } catch {
    return { ...contract };
  }
}

const noop = () => {};

/**
 * Registers with the in-page registry and the browser. Safe under React StrictMode's
 * mount → unmount → mount: a second `register()` of a registered tool answers the live
 * registration's unregister function, and an `unregister()` makes older ones inert. A second
 * `register()` of a tool whose registration failed (`status: 'error'`: a `toolsListed` hook
 * failed, the pipeline or shaping chunk did not download) tries again.
 */
async function register(record: ToolRecord, opts?: { signal?: AbortSignal }): Promise<() => void> {
  if (record.options.enabled === false) return noop;
  if (record.attempt !== undefined) {
    const attempt = record.attempt;
    if (record.status === 'error' && record.clientState.registry.get(record.contract.name) === record) {
      await syncRegistrations(record.clientState);
      if (record.attempt === attempt && record.status === 'error' && record.error) throw record.error;
    }
    return attempt.unregister;
  }
  const fail = (error: Error): never => {
    record.status = 'error';
    record.error = error;
    throw error;
  };
  if (!record.contract.description) {
    fail(new ConfigurationError('missing_description', `tool "${record.contract.name}" needs a non-empty description before register()`));
  }
  if (record.schemaProblem !== undefined) {
    fail(new ConfigurationError('missing_input_schema', `tool "${record.contract.name}": ${record.schemaProblem}`, 'inputSchema'));
  }
  // The core, when nothing has loaded it yet (a page whose tools have no hooks): loaded as
  // `ready()` does (compiled off the main thread) while the validator loads, instead of
  // synchronously at its first use below. A failure here is left to that first use to report.
  const loadingCore = liveGeneration() < 0 ? ready().catch(() => undefined) : undefined;
  // The pipeline chunk (the browser registration and the tool's calls run there), the validator
  // module and the module that shapes (the browser registration strips descriptions with it) load
  // side by side; the pipeline compiles shaping's module. A chunk that does not download fails the
  // registration here, before anything is registered, so the next register() starts over.
  const loadingPipeline = pipelineOrThrow();
  loadingPipeline.then((chunk) => chunk.loadShaper()).catch(() => undefined);
  // The module that shapes is fetched now rather than once the pipeline asks for it: the
  // validator module for a tool with a JSON Schema (it shapes too), else the shaping module.
  const schemas = [['inputSchema', record.validation.input], ['outputSchema', record.validation.output]] as const;
  if (record.validation.input !== undefined || record.validation.output !== undefined) loadValidator([record.validation.input, record.validation.output]).catch(() => undefined);
  else if (loadingValidator() === undefined) import('../shape/shape-module.js').catch(() => undefined);
  let pipeline: PipelineChunk;
  try {
    pipeline = await loadingPipeline;
  } catch (err) {
    return fail(err as Error);
  }
  // A schema that is not valid JSON Schema, or holds a pattern refused for the time it could take,
  // is reported here; the check needs the lazily loaded validator module, which is why
  // register() is async. A module that cannot load is said so. Its slow patterns are written to
  // the console, once each.
  const allowUnsafe = record.validation.unsafePatterns === true || record.clientState.settings.unsafePatterns;
  for (const [which, schema] of schemas) {
    if (schema === undefined) continue;
    let compiled: Awaited<ReturnType<PipelineChunk['compileSchema']>>;
    try {
      compiled = await pipeline.compileSchema(schema, allowUnsafe);
    } catch (err) {
      return fail(loadFailure('the JSON Schema validator module', err));
    }
    if ('error' in compiled) {
      const what = compiled.code === 'unsafe_pattern' ? 'has a pattern refused for its running time' : 'is not valid JSON Schema';
      fail(new ConfigurationError(compiled.code, `tool "${record.contract.name}": ${which} ${what}: ${compiled.error}`, which));
    } else if (compiled.unjudged && !hasJudge()) {
      // Its patterns could not be judged: they fail closed until the judgement loads.
      fail(judgementMissing());
    } else {
      warnSlowPatterns(record, which, compiled.notes);
    }
  }
  if (loadingCore !== undefined) await loadingCore;
  // The page's other patterns (policy, matchers), compiled before the judgement had loaded: a
  // refused one, or a judgement that did not load, is reported here (docs/behaviour.md, "Patterns").
  const problem = await patternsProblem((source, flags, allowUnsafe) => decode(core.checkPattern(source, flags, allowUnsafe)) as CheckPatternAnswer);
  if (problem !== undefined) fail(problem);
  if (opts?.signal?.aborted) return noop;
  // Another register() may have finished while this one awaited the schemas.
  const meanwhile = record.attempt as ToolRecord['attempt'];
  if (meanwhile !== undefined) return meanwhile.unregister;
  const w = record.clientState;
  // The core before anything is registered: one that cannot load (a CSP without
  // 'wasm-unsafe-eval') fails register() here, with nothing left behind. An unregister() may
  // have taken the tool out of the engine: it goes back now (or says why it cannot).
  try {
    w.engine();
    w.attach(record.coreTool);
  } catch (err) {
    return fail(loadFailure('the core module', err));
  }
  if (!addToRegistry(w, record)) {
    fail(new RegistrationError('duplicate_name', `Failed to register tool "${record.contract.name}": another tool with this name is registered on this page`));
  }
  const attempt = {
    unregister: () => {
      if (record.attempt === attempt) unregister(record);
    },
  };
  record.attempt = attempt;
  record.error = null;
  try {
    w.noteBaseline(record.coreTool);
    opts?.signal?.addEventListener('abort', attempt.unregister, { once: true });
    await pipeline.syncRegistrations(w);
  } catch (err) {
    if (record.attempt === attempt) withdraw(record);
    return fail(err instanceof Error ? err : new WardenError('internal_error', 'internal error in webmcp-warden'));
  }
  if (record.attempt === attempt && record.status === 'error' && record.error) {
    // A register() that rejects leaves nothing behind: not in the page's registry (where an
    // agent's call, or the next sync, would find it), not in the browser.
    const error = record.error;
    withdraw(record);
    return fail(error);
  }
  return attempt.unregister;
}

/** The slow patterns already written to the console, per tool record: `<which><path>`. */
const warnedPatterns = new WeakMap<ToolRecord, Set<string>>();

/**
 * Writes one console warning per slow pattern of a tool's schema (the validator's notes: where it
 * is, what makes it slow, where it runs instead), once per tool.
 */
function warnSlowPatterns(record: ToolRecord, which: string, notes: PatternNote[]): void {
  if (notes.length === 0) return;
  let warned = warnedPatterns.get(record);
  if (warned === undefined) warnedPatterns.set(record, (warned = new Set()));
  for (const note of notes) {
    if (warned.has(which + note.path)) continue;
    warned.add(which + note.path);
    console.warn(`webmcp-warden: tool "${record.contract.name}" ${which}: ${note.message} (${note.code})`);
  }
}

/** Takes back what a failed `register()` added: the live attempt, the registry entry, the browser registration. */
function withdraw(record: ToolRecord): void {
  record.attempt = undefined;
  removeFromRegistry(record.clientState, record);
  dropBrowserRegistration(record);
}

function unregister(record: ToolRecord): void {
  const wasRegistered = record.attempt !== undefined;
  record.attempt = undefined;
  removeFromRegistry(record.clientState, record);
  dropBrowserRegistration(record);
  // What the registry held of the tool leaves the core now, not when the object is collected.
  if (wasRegistered) {
    try {
      // With the hook sets only this tool uses (a re-wrap shares the older ones).
      const users = record.clientState.setUsers;
      record.clientState.detachTool(record.coreTool, record.hookSets.filter((set) => users.get(set) === 1));
    } catch {
      // A disposed client or a trapped core: nothing to free now; the finalizer still runs.
    }
  }
  record.status = 'unregistered';
  // Other tools' listing may change without this one (a toolsListed hook sees fewer tools).
  if (wasRegistered) resyncRegistrations(record.clientState);
}

/** Unregisters every tool of the client (for `resetWebMCP()` and `dispose()`). */
export function unregisterAll(w: ClientState): void {
  for (const tool of [...w.registry.values()]) unregister(tool as ToolRecord);
}
