// `webmcp(fn, options)`: wrap a function as a governed tool, and register it with the browser.
import { getCore } from './core.js';
import { mergeHooks } from './config.js';
import { fingerprintFields } from './canonical.js';
import { ConfigurationError, RegistrationError, WardenError, configurationError } from './errors.js';
import { compileHookSet, isPlainObject, typeName } from './hookset.js';
import { runCall, type PipelineTool } from './pipeline.js';
import { compileSchema, isStandardSchema, jsonSchemaOf, type StandardSchemaLike } from './validation.js';
import { addToRegistry, isVisible, registeredRecords, removeFromRegistry, setFilterListener, unknownToolOutcome } from './registry.js';
import { getModelContext } from './runtime.js';
import type { CallOptions, CallOutcome, JsonSchema, RegistrationStatus, ToolContract, WebMCPOptions, WebMCPTool } from './types.js';
import { encode } from './wire.js';

const NAME_RULE = /^[A-Za-z0-9_.-]{1,128}$/;
const KNOWN_OPTIONS = new Set(['name', 'title', 'description', 'inputSchema', 'schema', 'outputSchema', 'annotations', 'hooks', 'server', 'shape', 'scope', 'enabled']);
const BRAND = Symbol.for('webmcp-warden.tool');

/** Everything the package keeps about one tool. */
export interface ToolRecord extends PipelineTool {
  readonly options: WebMCPOptions;
  /** Lowercase hex SHA-256 of the definition's canonical JSON (SPEC §5). */
  readonly fingerprint: string;
  /** The core's hook sets of this tool, oldest first (re-wrapping appends). */
  readonly hookSets: number[];
  status: RegistrationStatus;
  error: Error | null;
  /** The registration in progress or live; a newer one makes older ones stale. */
  attempt: Attempt | undefined;
  /** The provider scope calls run under (0: none): `scopeOf()` when set (React mounts), else 0. */
  readonly scope: number;
  /** Where `scope` comes from, set by `webmcp-warden/react` while the tool is mounted. */
  scopeOf: (() => number) | undefined;
  /** Called after every change of `status` (see {@link onStatusChange}). */
  readonly statusListeners: Set<() => void>;
}

interface Attempt {
  controller: AbortController | undefined;
  unregister: () => void;
}

/**
 * Calls `listener` after each change of the tool's `status`; answers the unsubscribe function
 * (the React layer mirrors `status` through this).
 */
export function onStatusChange(record: ToolRecord, listener: () => void): () => void {
  const own = () => listener();
  record.statusListeners.add(own);
  return () => void record.statusListeners.delete(own);
}

/** snake_case of a function name, as simple-webmcp derives tool names. */
export function toSnakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
}

/** Whether `value` is a tool made by {@link webmcp}. */
export function isWebMCPTool(value: unknown): value is WebMCPTool {
  return typeof value === 'function' && (value as unknown as Record<symbol, unknown>)[BRAND] !== undefined;
}

/** The record behind a tool made by {@link webmcp}. */
export function recordOf(tool: WebMCPTool): ToolRecord {
  return (tool as unknown as Record<symbol, ToolRecord>)[BRAND] as ToolRecord;
}

/**
 * Wraps `fn` as a WebMCP tool governed by webmcp-warden. Options are checked at once: an
 * invalid name, option or hook throws `ConfigurationError` here, not at the first call.
 * Given a tool made by `webmcp`, re-wraps it: options merge and hook arrays concatenate.
 */
export function webmcp<F extends (...args: any[]) => any>(fn: F | WebMCPTool<F>, options?: WebMCPOptions): WebMCPTool<F> {
  if (isWebMCPTool(fn)) {
    if (options === undefined) return fn as WebMCPTool<F>;
    const previous = recordOf(fn);
    checkOptions(options);
    const merged: WebMCPOptions = { ...previous.options, ...options, hooks: mergeHooks(previous.options.hooks, options.hooks) };
    return createTool(previous.fn as unknown as F, merged, previous.hookSets, options.hooks);
  }
  if (typeof fn !== 'function') throw new ConfigurationError('invalid_tool', `webmcp expects a function, not ${typeName(fn)}`);
  const opts = options ?? {};
  checkOptions(opts);
  return createTool(fn, opts, [], opts.hooks);
}

function checkOptions(options: WebMCPOptions): void {
  if (!isPlainObject(options)) throw new ConfigurationError('invalid_options', `webmcp options must be an object, not ${typeName(options)}`);
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(key)) throw new ConfigurationError('unknown_option', `webmcp: unknown option "${key}"`);
  }
  const { name, title, description, inputSchema, outputSchema, annotations, server, shape, scope, enabled } = options;
  const { schema } = options;
  if (name !== undefined && !(typeof name === 'string' && NAME_RULE.test(name))) {
    throw new ConfigurationError('invalid_name', `webmcp: tool name ${JSON.stringify(name)} is invalid: use 1–128 characters of A-Z a-z 0-9 _ . -`);
  }
  for (const [key, value] of [['title', title], ['description', description]] as const) {
    if (value !== undefined && typeof value !== 'string') throw new ConfigurationError('invalid_options', `webmcp: ${key} must be a string`);
  }
  for (const [key, value] of [['inputSchema', inputSchema], ['outputSchema', outputSchema], ['annotations', annotations]] as const) {
    if (value !== undefined && !isPlainObject(value)) {
      const tool = typeof name === 'string' ? ` tool "${name}":` : '';
      throw new ConfigurationError('invalid_options', `webmcp:${tool} ${key} must be a plain object, not ${typeName(value)}`);
    }
  }
  if (schema !== undefined && !isStandardSchema(schema) && !isPlainObject(schema)) {
    throw new ConfigurationError('invalid_options', `webmcp: schema must be a Standard Schema (zod, valibot, …) or a JSON Schema object, not ${typeName(schema)}`);
  }
  // With a Standard Schema, `inputSchema` may say what the browser shows (for a library with no
  // JSON Schema export); two JSON Schemas for one input are a mistake.
  if (schema !== undefined && inputSchema !== undefined && !isStandardSchema(schema)) {
    throw new ConfigurationError('invalid_options', 'webmcp: give either schema or inputSchema as the JSON Schema, not both');
  }
  if (server !== undefined && !(typeof server === 'string' && server.length > 0)) throw new ConfigurationError('invalid_options', 'webmcp: server must be a non-empty string');
  if (shape !== undefined && shape !== 'llm' && shape !== false) throw new ConfigurationError('invalid_options', "webmcp: shape must be 'llm' or false");
  if (scope !== undefined && scope !== 'global' && scope !== 'scoped' && scope !== 'manual') {
    throw new ConfigurationError('invalid_options', "webmcp: scope must be 'global', 'scoped' or 'manual'");
  }
  if (enabled !== undefined && typeof enabled !== 'boolean') throw new ConfigurationError('invalid_options', 'webmcp: enabled must be a boolean');
}

function createTool<F extends (...args: any[]) => any>(fn: F, options: WebMCPOptions, inheritedSets: number[], newHooks: unknown): WebMCPTool<F> {
  const name = options.name ?? toSnakeCase(fn.name);
  if (!NAME_RULE.test(name)) {
    throw new ConfigurationError(
      'invalid_name',
      fn.name ? `webmcp: cannot derive a valid tool name from function "${fn.name}"; give { name }` : 'webmcp: the function has no name; give { name }',
    );
  }
  const core = getCore();
  const label = `tool "${name}" hooks`;
  const standard = isStandardSchema(options.schema) ? (options.schema as StandardSchemaLike) : undefined;
  const jsonInput = standard ? undefined : ((options.schema as JsonSchema | undefined) ?? options.inputSchema);
  const contract: ToolContract = {
    name,
    description: options.description ?? '',
    inputSchema: jsonInput ?? (standard ? (options.inputSchema ?? jsonSchemaOf(standard)) : undefined) ?? { type: 'object', properties: {} },
  };
  if (options.title !== undefined) contract.title = options.title;
  if (options.outputSchema !== undefined) contract.outputSchema = options.outputSchema;
  if (options.annotations !== undefined) contract.annotations = options.annotations;

  const newSet = compileHookSet(newHooks, label);
  const hookSets = newSet === undefined ? [...inheritedSets] : [...inheritedSets, newSet];
  const defined = JSON.parse(core.defineTool(encodeDefinition(contract), options.server, new Uint32Array(hookSets), label)) as
    | { ok: true; tool: number; fingerprint: string }
    | { ok: false; error: { code: string; message: string; path?: string } };
  if (!defined.ok) throw configurationError(defined.error);

  const tool = function (this: unknown, ...args: Parameters<F>): ReturnType<F> {
    return fn.apply(this, args);
  } as unknown as WebMCPTool<F>;
  let status: RegistrationStatus = 'unregistered';
  const record: ToolRecord = {
    coreTool: defined.tool,
    fn: fn as unknown as ToolRecord['fn'],
    publicTool: tool as WebMCPTool,
    contract,
    server: options.server,
    validation: { input: jsonInput, standard, output: options.outputSchema },
    shape: options.shape ?? 'llm',
    fingerprint: defined.fingerprint,
    options,
    hookSets,
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
    definition: { get: () => structuredCloneSafe(contract), enumerable: true },
    fingerprint: { value: defined.fingerprint, enumerable: true },
    status: { get: () => record.status, enumerable: true },
    error: { get: () => record.error, enumerable: true },
    register: { value: (opts?: { signal?: AbortSignal }) => register(record, opts) },
    unregister: { value: () => unregister(record) },
    invoke: { value: (input?: unknown, opts?: CallOptions): Promise<CallOutcome> => runCall(record, input, opts, record.scope) },
  });
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
function structuredCloneSafe(contract: ToolContract): ToolContract {
  try {
    return JSON.parse(JSON.stringify(contract)) as ToolContract;
  } catch {
    return { ...contract };
  }
}

const noop = () => {};

setFilterListener(syncWithToolFilter);

/**
 * Registers with the browser and the in-page registry. Safe under React StrictMode's
 * mount → unmount → mount: each attempt has its own AbortController, and an attempt that a
 * later `unregister()` or `register()` superseded never touches `status` again.
 */
async function register(record: ToolRecord, opts?: { signal?: AbortSignal }): Promise<() => void> {
  if (record.options.enabled === false) return noop;
  if (record.attempt !== undefined && (record.status === 'registered' || record.status === 'registering' || record.status === 'unsupported')) {
    return record.attempt.unregister;
  }
  if (!record.contract.description) {
    const error = new ConfigurationError('missing_description', `tool "${record.contract.name}" needs a non-empty description before register()`);
    record.status = 'error';
    record.error = error;
    throw error;
  }
  if (record.validation.input !== undefined || record.validation.output !== undefined) {
    // A schema that is not valid JSON Schema is reported here (SPEC §6); the check needs the
    // lazily loaded validator module, which is why register() is async.
    for (const [which, schema] of [['inputSchema', record.validation.input], ['outputSchema', record.validation.output]] as const) {
      if (schema === undefined) continue;
      const compiled = await compileSchema(schema);
      if ('error' in compiled) {
        const error = new ConfigurationError('invalid_schema', `tool "${record.contract.name}": ${which} is not valid JSON Schema: ${compiled.error}`);
        record.status = 'error';
        record.error = error;
        throw error;
      }
    }
  }
  if (opts?.signal?.aborted) return noop;
  getCore().recordBaseline(record.coreTool);
  if (!addToRegistry(record)) {
    const error = new RegistrationError('duplicate_name', `Failed to register tool "${record.contract.name}": another tool with this name is registered on this page`);
    record.status = 'error';
    record.error = error;
    throw error;
  }
  // A tool the filter hides is never listed (SPEC §5), so the browser must not have it either:
  // it stays in the in-page registry, where every path answers as for an unknown tool.
  const attempt: Attempt = {
    controller: undefined,
    unregister: () => {
      if (record.attempt === attempt) unregister(record);
    },
  };
  record.attempt = attempt;
  record.error = null;
  opts?.signal?.addEventListener('abort', attempt.unregister, { once: true });
  return withBrowser(record, attempt);
}

/**
 * Registers `attempt` of a tool with the browser's runtime, or records why it is not: no
 * runtime (`'unsupported'`), or hidden by the tool filter (`'unregistered'`). A registration
 * that a later `unregister()`, `register()` or filter change superseded never touches `status`.
 */
async function withBrowser(record: ToolRecord, attempt: Attempt): Promise<() => void> {
  const hidden = !isVisible(record);
  const runtime = hidden ? undefined : getModelContext();
  if (!runtime) {
    // Hidden on a page that has a runtime: truthfully not registered with the browser.
    record.status = hidden && getModelContext() ? 'unregistered' : 'unsupported';
    return attempt.unregister;
  }
  const controller = new AbortController();
  attempt.controller = controller;
  const current = () => record.attempt === attempt && attempt.controller === controller;
  record.status = 'registering';
  try {
    await runtime.registerTool({ ...record.contract, execute: (input: unknown, extra?: { signal?: AbortSignal }) => executeForBrowser(record, input, extra) }, { signal: controller.signal });
  } catch (cause) {
    if (!current()) return attempt.unregister;
    const message = cause instanceof Error ? cause.message : String(cause);
    const error = new RegistrationError('registration_failed', `Failed to register tool "${record.contract.name}": ${message}`, { cause });
    record.attempt = undefined;
    removeFromRegistry(record);
    record.status = 'error';
    record.error = error;
    throw error;
  }
  if (current()) record.status = 'registered';
  return attempt.unregister;
}

/**
 * Brings browser registrations in line with the tool filter after `configureWebMCP({ tools })`
 * changed it: a registered tool that is now hidden leaves the browser (it stays registered in
 * the page, answering as unknown), and one that is visible again goes back to the browser.
 */
export function syncWithToolFilter(): void {
  for (const record of registeredRecords() as ToolRecord[]) {
    const attempt = record.attempt;
    if (attempt === undefined) continue;
    const visible = isVisible(record);
    if (!visible && attempt.controller !== undefined) {
      const controller = attempt.controller;
      attempt.controller = undefined;
      record.status = 'unregistered';
      controller.abort();
    } else if (visible && attempt.controller === undefined && record.status === 'unregistered') {
      withBrowser(record, attempt).catch(() => undefined);
    }
  }
}

/** The `execute` registered with the browser: the whole pipeline, answering the result object. */
async function executeForBrowser(record: ToolRecord, input: unknown, extra?: { signal?: AbortSignal }) {
  if (!isVisible(record)) return unknownToolOutcome(record.contract.name).result;
  const outcome = await runCall(record, input, extra?.signal ? { signal: extra.signal } : {}, record.scope);
  return outcome.result;
}

function unregister(record: ToolRecord): void {
  const attempt = record.attempt;
  record.attempt = undefined;
  removeFromRegistry(record);
  attempt?.controller?.abort();
  record.status = 'unregistered';
}
