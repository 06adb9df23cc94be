// `webmcpResource(read, options)` and `webmcpPrompt(get, options)`: MCP-B's resources and
// prompts, governed as tools are (docs/resources-and-prompts.md). A resource or prompt is a
// subject of the core's call machine beside the tools: its own gate hooks (`resourceRead`,
// `promptGet`) in every hook set, the policy's `resources` / `prompts` section, shaping of what
// the model reads, telemetry. It registers with the runtime when the runtime has resources and
// prompts (MCP-B), is `'unsupported'` elsewhere, and is readable in-page in every browser.
import type { SubjectHooks, ClientState } from '../client/client.js';
import { fingerprintFields } from '../util/canonical.js';
import { Subject } from '../boundary/codes.js';
import { ConfigurationError, RegistrationError, WardenError } from '../util/errors.js';
import { compileHookSet } from '../client/hookset.js';
import type { SubjectRecord } from '../client/client.js';
import { getWith, readOne, resourceKey } from './subject-call.js';
import { toWireResult } from '../util/mcp.js';
import { TOOL_NAME_RULE } from '../util/names.js';
import { compileSchema, syncRegistrations } from '../api/pipeline-loader.js';
import { core } from '../boundary/core.js';
import { hasJudge, judgementMissing, patternsProblem } from '../boundary/patterns.js';
import { decode, encode } from '../boundary/wire.js';
import type { CheckPatternAnswer } from '../boundary/answers.js';
import { isPlainObject, typeName } from '../util/js-values.js';
import type {
  CallOptions,
  JsonSchema,
  PromptDefinition,
  PromptGet,
  RegistrationStatus,
  ResourceDefinition,
  ResourceRead,
  SubjectOutcome,
  WebMCPPrompt,
  WebMCPPromptOptions,
  WebMCPResource,
  WebMCPResourceOptions,
} from '../types/types.js';

const RESOURCE_OPTIONS = new Set(['uri', 'name', 'title', 'description', 'mimeType', 'hooks', 'server', 'shape']);
const PROMPT_OPTIONS = new Set(['name', 'title', 'description', 'argsSchema', 'hooks', 'server', 'shape']);

/**
 * Frees what a resource or prompt holds in its client's core once it is unreachable (as tools
 * do: ownership is implicit). A registered one is held by the client's registry.
 */
const finalizer =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry<{ w: ClientState; coreTool: number; sets: number[] }>(({ w, coreTool, sets }) => {
        try {
          w.dropTool(coreTool);
          for (const set of sets) w.dropHookSet(set);
        } catch {
          // A disposed client or a replaced core: nothing is left to free.
        }
      })
    : undefined;

function checkOptions(what: 'webmcpResource' | 'webmcpPrompt', options: unknown, known: Set<string>): asserts options is Record<string, unknown> {
  if (!isPlainObject(options)) throw new ConfigurationError('invalid_options', `${what} options must be an object, not ${typeName(options)}`);
  for (const key of Object.keys(options)) {
    if (!known.has(key)) throw new ConfigurationError('unknown_option', `${what}: unknown option "${key}"`);
  }
  for (const key of ['title', 'description', 'mimeType'] as const) {
    if (options[key] !== undefined && typeof options[key] !== 'string') throw new ConfigurationError('invalid_options', `${what}: ${key} must be a string`, key);
  }
  const { server, shape } = options;
  if (server !== undefined && !(typeof server === 'string' && server.length > 0)) throw new ConfigurationError('invalid_options', `${what}: server must be a non-empty string`, 'server');
  if (shape !== undefined && shape !== 'llm' && shape !== false) throw new ConfigurationError('invalid_options', `${what}: shape must be 'llm' or false`, 'shape');
}

/** A resource's or prompt's own hooks: its gate event only (the others would never run). */
function gateHooks(what: string, hooks: unknown, gate: 'resourceRead' | 'promptGet'): unknown {
  if (hooks === undefined || hooks === null) return undefined;
  if (isPlainObject(hooks)) {
    const other = Object.keys(hooks).find((key) => key !== gate);
    if (other !== undefined) {
      throw new ConfigurationError('invalid_hooks', `${what} hooks: a ${gate === 'resourceRead' ? 'resource' : 'prompt'} has ${gate} hooks only, not "${other}" (give global or provider hooks ${gate} entries to gate every one)`, 'hooks');
    }
  }
  return hooks;
}

/** Wraps `read` as a governed resource of client `w`; options are checked at once. */
export function createResource(w: ClientState, read: ResourceRead, options: WebMCPResourceOptions): WebMCPResource {
  if (typeof read !== 'function') throw new ConfigurationError('invalid_resource', `webmcpResource expects a read function, not ${typeName(read)}`);
  checkOptions('webmcpResource', options, RESOURCE_OPTIONS);
  const { uri, name } = options;
  if (typeof uri !== 'string' || uri.length === 0) throw new ConfigurationError('invalid_uri', 'webmcpResource: uri must be a non-empty string (a URI, or a URI template such as "user://{id}/profile")', 'uri');
  if (typeof name !== 'string' || name.length === 0) throw new ConfigurationError('missing_name', `webmcpResource: resource "${uri}" needs a name`, 'name');
  // A URI's key is its canonical form, the form reads are looked up in (`resourceKey`); a
  // template is kept as written, once the URI module has checked it.
  let key: string;
  let template: boolean;
  try {
    ({ key, template } = resourceKey(uri));
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new ConfigurationError('invalid_uri', `webmcpResource: uri${why.startsWith('"') ? ' ' : ': '}${why}`, 'uri');
  }
  const definition: ResourceDefinition = { uri: key, name };
  for (const field of ['title', 'description', 'mimeType'] as const) if (options[field] !== undefined) definition[field] = options[field];
  const label = `resource "${uri}" hooks`;
  const hooks = gateHooks(`webmcpResource: resource "${uri}"`, options.hooks, 'resourceRead');
  // The fingerprint (what a grant is for) covers what agents are shown.
  const canonical = { name: key, title: name, description: options.description, annotations: options.mimeType === undefined ? undefined : { mimeType: options.mimeType } };
  const record = makeRecord(w, 'resource', read, key, definition, template, canonical, hooks, label, options);
  const resource = {} as WebMCPResource;
  Object.defineProperties(resource, {
    definition: { get: () => ({ ...definition }), enumerable: true },
    status: { get: () => record.status, enumerable: true },
    error: { get: () => record.error, enumerable: true },
    register: { value: (opts?: { signal?: AbortSignal }) => register(record, opts) },
    unregister: { value: () => unregister(record) },
    read: {
      value: (target?: string, opts?: CallOptions) => {
        // A template is read at one of its instances, never at itself.
        if (target === undefined && template) {
          const message = `resource "${name}" is a URI template (${uri}): read one of its URIs`;
          return Promise.resolve({ ok: false, error: { kind: 'validation', reason: 'invalid_uri', message }, text: 'Error: ' + message });
        }
        return readOne(w, record, target ?? key, opts);
      },
    },
  });
  bind(record, resource);
  return resource;
}

/** Wraps `get` as a governed prompt of client `w`; options are checked at once. */
export function createPrompt(w: ClientState, get: PromptGet, options: WebMCPPromptOptions): WebMCPPrompt {
  if (typeof get !== 'function') throw new ConfigurationError('invalid_prompt', `webmcpPrompt expects a get function, not ${typeName(get)}`);
  checkOptions('webmcpPrompt', options, PROMPT_OPTIONS);
  const { name, argsSchema } = options;
  if (!(typeof name === 'string' && TOOL_NAME_RULE.test(name))) {
    throw new ConfigurationError('invalid_name', `webmcpPrompt: prompt name ${JSON.stringify(name)} is invalid: use 1–128 characters of A-Z a-z 0-9 _ . -`, 'name');
  }
  if (argsSchema !== undefined && !isPlainObject(argsSchema)) throw new ConfigurationError('invalid_options', `webmcpPrompt: prompt "${name}": argsSchema must be a plain object, not ${typeName(argsSchema)}`, 'argsSchema');
  const definition: PromptDefinition = { name };
  for (const key of ['title', 'description', 'argsSchema'] as const) if (options[key] !== undefined) (definition as unknown as Record<string, unknown>)[key] = options[key];
  const label = `prompt "${name}" hooks`;
  const hooks = gateHooks(`webmcpPrompt: prompt "${name}"`, options.hooks, 'promptGet');
  const canonical = { name, title: options.title, description: options.description, inputSchema: argsSchema };
  const record = makeRecord(w, 'prompt', get, name, definition, false, canonical, hooks, label, options);
  const prompt = {} as WebMCPPrompt;
  Object.defineProperties(prompt, {
    definition: { get: () => JSON.parse(JSON.stringify(definition)) as PromptDefinition, enumerable: true },
    status: { get: () => record.status, enumerable: true },
    error: { get: () => record.error, enumerable: true },
    register: { value: (opts?: { signal?: AbortSignal }) => register(record, opts) },
    unregister: { value: () => unregister(record) },
    get: { value: (args?: Record<string, string>, opts?: CallOptions) => getWith(w, record, args, opts) },
  });
  bind(record, prompt);
  return prompt;
}

/** What makes a record the one behind `object` (React mirrors its status; `recordOfSubject`). */
const RECORDS = new WeakMap<object, SubjectRecord>();

/** The record behind a resource or prompt made by this package, if `value` is one. */
export function recordOfSubject(value: unknown): SubjectRecord | undefined {
  return value !== null && typeof value === 'object' ? RECORDS.get(value) : undefined;
}

function bind(record: SubjectRecord, object: object): void {
  (record as { publicTool: unknown }).publicTool = object;
  RECORDS.set(object, record);
  finalizer?.register(object, { w: record.clientState, coreTool: record.coreTool, sets: record.hookSets });
}

function makeRecord(
  w: ClientState,
  kind: 'resource' | 'prompt',
  fn: (...args: any[]) => unknown,
  key: string,
  definition: ResourceDefinition | PromptDefinition,
  template: boolean,
  canonical: Record<string, unknown>,
  hooks: unknown,
  label: string,
  options: { server?: string; shape?: 'llm' | false },
): SubjectRecord {
  // From now on the client's syncs register its resources and prompts, and reset() and dispose() unregister them.
  w.subjects = SUBJECT_HOOKS;
  let encoded: Uint8Array;
  try {
    const fields = Object.fromEntries(Object.entries(canonical).filter(([, value]) => value !== undefined));
    encoded = encode({ name: key, canonical: fingerprintFields(fields) });
  } catch (err) {
    const why = err instanceof WardenError ? err.message.replace(/^canonicalJson: /, '') : 'reading it threw';
    throw new ConfigurationError('invalid_definition', `${kind} "${key}": the definition has no JSON form (${why})`);
  }
  const set = compileHookSet(w, hooks, label);
  const hookSets = set === undefined ? [] : [set];
  const coreTool = w.handles.take();
  try {
    w.defineSubject(coreTool, kind === 'resource' ? Subject.Resource : Subject.Prompt, encoded, key, options.server, new Uint32Array(hookSets), label);
  } catch (err) {
    w.handles.give(coreTool);
    if (set !== undefined) w.dropHookSet(set);
    throw err;
  }
  let status: RegistrationStatus = 'unregistered';
  const argsSchema = kind === 'prompt' ? ((definition as PromptDefinition).argsSchema as JsonSchema | undefined) : undefined;
  const record: SubjectRecord = {
    clientState: w,
    kind,
    key,
    definition,
    template,
    coreTool,
    fn: fn as SubjectRecord['fn'],
    publicTool: undefined as never,
    // What telemetry and the approver name: the resource's or prompt's name.
    contract: { name: definition.name, description: definition.description ?? '', inputSchema: argsSchema ?? {} },
    server: options.server,
    validation: { input: argsSchema },
    shape: options.shape ?? 'llm',
    structured: undefined,
    hookSets,
    // The registration state, written as in tool.ts's record: accessors in the literal itself
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
    registration: undefined,
    get scope() {
      return record.scopeOf?.() ?? 0;
    },
    scopeOf: undefined,
    statusListeners: new Set(),
  };
  return record;
}

const noop = () => {};

/**
 * Registers with the client's registry and the runtime. Safe under StrictMode's mount → unmount
 * → mount, as a tool's `register()` is: a second call answers the live registration's
 * unregister function; `unregister()` makes older ones inert.
 */
async function register(record: SubjectRecord, opts?: { signal?: AbortSignal }): Promise<() => void> {
  if (record.attempt !== undefined) return record.attempt.unregister;
  const fail = (error: Error): never => {
    record.status = 'error';
    record.error = error;
    throw error;
  };
  // A prompt's argsSchema that is not valid JSON Schema is reported here (the validator loads lazily).
  const schema = record.validation.input;
  if (schema !== undefined) {
    const compiled = await compileSchema(schema, record.clientState.settings.unsafePatterns);
    if ('error' in compiled) {
      const what = compiled.code === 'unsafe_pattern' ? 'has a pattern refused for its running time' : 'is not valid JSON Schema';
      fail(new ConfigurationError(compiled.code, `prompt "${record.key}": argsSchema ${what}: ${compiled.error}`, 'argsSchema'));
    } else if (compiled.unjudged && !hasJudge()) {
      fail(judgementMissing());
    } else {
      for (const note of compiled.notes) console.warn(`webmcp-warden: prompt "${record.key}" argsSchema: ${note.message} (${note.code})`);
    }
  }
  // The page's other patterns (policy, matchers), compiled before the judgement had loaded.
  const problem = await patternsProblem((source, flags, allowUnsafe) => decode(core.checkPattern(source, flags, allowUnsafe)) as CheckPatternAnswer);
  if (problem !== undefined) fail(problem);
  if (opts?.signal?.aborted) return noop;
  const meanwhile = record.attempt as SubjectRecord['attempt'];
  if (meanwhile !== undefined) return meanwhile.unregister;
  const w = record.clientState;
  w.engine();
  const registry = record.kind === 'resource' ? w.resources : w.prompts;
  const holder = registry.get(record.key);
  if (holder !== undefined && holder !== record) {
    fail(new RegistrationError('duplicate_name', `Failed to register ${record.kind} "${record.key}": another ${record.kind} with this ${record.kind === 'resource' ? 'URI' : 'name'} is registered on this page`));
  }
  registry.set(record.key, record);
  const attempt = {
    unregister: () => {
      if (record.attempt === attempt) unregister(record);
    },
  };
  record.attempt = attempt;
  record.error = null;
  opts?.signal?.addEventListener('abort', attempt.unregister, { once: true });
  await syncRegistrations(w);
  if (record.attempt === attempt && record.status === 'error' && record.error) throw record.error;
  return attempt.unregister;
}

function unregister(record: SubjectRecord): void {
  record.attempt = undefined;
  const registry = record.kind === 'resource' ? record.clientState.resources : record.clientState.prompts;
  if (registry.get(record.key) === record) registry.delete(record.key);
  dropSubject(record);
  record.status = 'unregistered';
}

/** Unregisters every resource and prompt of the client (for `reset()` and `dispose()`). */
function unregisterAllSubjects(w: ClientState): void {
  for (const record of [...w.resources.values(), ...w.prompts.values()]) unregister(record);
}

/** What the client's first resource or prompt installs on it (`ClientState.subjects`). */
const SUBJECT_HOOKS: SubjectHooks = { sync: syncSubjects, unregisterAll: unregisterAllSubjects };

/** Calls `listener` after each change of a resource's or prompt's `status`; answers the unsubscribe function. */
export function onSubjectStatusChange(record: SubjectRecord, listener: () => void): () => void {
  const own = () => listener();
  record.statusListeners.add(own);
  return () => void record.statusListeners.delete(own);
}

// ---- registration with the runtime ------------------------------------------------------------
//
// Registration of resources and prompts with the runtime: MCP-B's `registerResource` /
// `registerPrompt` (the W3C WebMCP API has tools only, so elsewhere they are `'unsupported'`,
// and MCP-B's interop, `mcp-b.ts`, is never loaded).
// As for tools (registration.ts, mcp.ts), the runtime registers them as its own while the MCP
// server gets our callbacks: the request's signal reaches the read or the get, and a prompt's
// `argsSchema` is advertised but left to our validation.

/** Brings every resource's and prompt's registration in line with `runtime`. */
export async function syncSubjects(w: ClientState, runtime: unknown): Promise<void> {
  const records = [...w.resources.values(), ...w.prompts.values()];
  for (const record of records) await syncSubject(w, record, runtime);
}

/** Ends a resource's or prompt's registration with the runtime, if it has one. */
export function dropSubject(record: SubjectRecord): void {
  const registration = record.registration;
  record.registration = undefined;
  try {
    registration?.handle.unregister();
  } catch {
    // A runtime that is gone (closed) has nothing left to unregister.
  }
}

/** A failed read or get as MCP answers it: a request error whose message is what the agent reads. */
function answerOrThrow(outcome: SubjectOutcome<object>): object {
  if (outcome.ok) return toWireResult(outcome.result);
  throw new Error(outcome.text);
}

async function syncSubject(w: ClientState, record: SubjectRecord, runtime: unknown): Promise<void> {
  const registry = record.kind === 'resource' ? w.resources : w.prompts;
  if (registry.get(record.key) !== record) return;
  if (record.registration !== undefined && record.registration.runtime === runtime) return;
  dropSubject(record);
  const method = record.kind === 'resource' ? 'registerResource' : 'registerPrompt';
  const target = runtime as Record<string, unknown> | undefined;
  const register = target?.[method];
  if (typeof register !== 'function') {
    record.status = 'unsupported';
    return;
  }
  // MCP-B's interop, imported as tools import it (registration.ts): always a chunk of its own,
  // never shared with the page's entry. Unregistered meanwhile: nothing to register.
  const { passthroughSchema, requestSignal, withMcpCallback } = await import('../runtime/mcp-b.js');
  if (registry.get(record.key) !== record || record.registration !== undefined) return;
  record.status = 'registering';
  // The URI MCP's server parsed; its own template variables are not used: the core reads the
  // variables from the canonical URI, as for every other read.
  const reads = (url: unknown, _params: unknown, ctx: unknown) => {
    const uri = url instanceof URL ? url.href : String(url);
    const signal = requestSignal(ctx);
    return readOne(w, record, uri, signal ? { signal } : {}).then(answerOrThrow);
  };
  const gets = (args: unknown, ctx: unknown) => {
    const signal = requestSignal(ctx);
    return getWith(w, record, args ?? {}, signal ? { signal } : {}).then(answerOrThrow);
  };
  let descriptor: Record<string, unknown>;
  let override: (args: unknown[]) => unknown[];
  let name: string;
  if (record.kind === 'resource') {
    const definition = record.definition as ResourceDefinition;
    name = definition.name;
    descriptor = { uri: definition.uri, name: definition.name, read: (url: URL, params?: unknown) => reads(url, params, undefined) };
    for (const key of ['title', 'description', 'mimeType'] as const) if (definition[key] !== undefined) descriptor[key] = definition[key];
    // McpServer.registerResource(name, uriOrTemplate, config, callback): a static resource's
    // callback is (uri, ctx), a template's (uri, variables, ctx).
    override = (args) => [args[0], args[1], args[2], typeof args[1] === 'string' ? (url: unknown, ctx: unknown) => reads(url, {}, ctx) : reads, ...args.slice(4)];
  } else {
    const definition = record.definition as PromptDefinition;
    name = definition.name;
    descriptor = { name: definition.name, get: (args: unknown) => gets(args, undefined) };
    for (const key of ['title', 'description', 'argsSchema'] as const) if (definition[key] !== undefined) descriptor[key] = definition[key];
    // McpServer.registerPrompt(name, config, callback): the schema is advertised, not enforced
    // (always one, so the arguments always reach the callback and our validation).
    const schema = passthroughSchema((definition.argsSchema as Record<string, unknown> | undefined) ?? { type: 'object', properties: {} });
    override = (args) => [args[0], { ...(args[1] as object), argsSchema: schema }, gets, ...args.slice(3)];
  }
  const registration = { runtime, handle: { unregister: () => undefined } as { unregister(): void } };
  record.registration = registration;
  try {
    const { value } = await withMcpCallback(target?.mcpServer, method, name, override, () => (register as (d: unknown) => unknown).call(runtime, descriptor));
    const handle = value as { unregister?: unknown } | undefined;
    if (handle !== undefined && handle !== null && typeof handle.unregister === 'function') registration.handle = handle as { unregister(): void };
  } catch (cause) {
    if (record.registration !== registration) return;
    record.registration = undefined;
    record.status = 'error';
    const message = cause instanceof Error ? cause.message : String(cause);
    record.error = new RegistrationError('registration_failed', `Failed to register ${record.kind} "${record.key}": ${message}`, { cause });
    return;
  }
  if (record.registration !== registration) {
    // Unregistered meanwhile: the runtime's registration goes too.
    registration.handle.unregister();
    return;
  }
  record.status = 'registered';
  record.error = null;
}
