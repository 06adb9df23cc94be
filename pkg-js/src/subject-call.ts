// One governed read of a resource or get of a prompt: the call machine of tools (call.ts) with the
// subject's gate hooks, its own answer (`ReadResourceResult` / `GetPromptResult`), and shaping
// through the same core code as tool results (the answer's parts become content blocks, are
// shaped, and are put back).
import { clientOption, type ClientOption } from './api.js';
import type { Warden } from './client.js';
import { inPipeline, noticeRuntime, runSubjectCall } from './pipeline-loader.js';
import type { SubjectCall } from './internal.js';
import { deepFrozenCopy } from './frozen.js';
import { Subject } from './codes.js';
import type { SubjectRecord } from './client.js';
import type { CallOptions, CallOutcome, ContentBlock, GetPromptResult, PromptDefinition, PromptMessage, ReadResourceResult, ResourceContents, ResourceDefinition, ResourceRead, SubjectOutcome } from './types.js';

/** The longest URI read (the core's `pattern::INPUT_LIMIT`). */
export const MAX_URI_LENGTH = 65_536;

/** A failure before anything runs, as data. */
function refused(kind: 'not_found' | 'validation', reason: string, message: string): SubjectOutcome<never> {
  return { ok: false, error: { kind, reason, message }, text: 'Error: ' + message };
}

/** A call's outcome as a read's or a get's: the failure's text is what the agent reads. */
function toSubjectOutcome<R>(outcome: CallOutcome): SubjectOutcome<R> {
  if (outcome.ok) return { ok: true, result: outcome.result as unknown as R };
  const text = outcome.result.content[0]?.text;
  return { ok: false, error: outcome.error, text: typeof text === 'string' ? text : 'Error: internal error in webmcp-warden' };
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A value read as the text of a JSON-ish answer (never `[object Object]`, never a throw). */
function textOf(value: unknown): string {
  const text = inPipeline().normalizeResult(value, { structured: false }).content[0]?.text;
  return typeof text === 'string' ? text : '';
}

/** Which registered resource serves `uri`, and the template's variables: its own URI first, then templates. */
export function findResource(w: Warden, uri: string): { record: SubjectRecord; params: Record<string, string> } | undefined {
  const exact = w.resources.get(uri);
  if (exact !== undefined && exact.template === undefined) return { record: exact, params: {} };
  for (const record of w.resources.values()) {
    const params = templateParams(record, uri);
    if (params !== undefined) return { record, params };
  }
  return undefined;
}

/** The variables of `uri` as an instance of `record`'s template; `{}` for its own static URI; `undefined` when it is not one. */
export function templateParams(record: SubjectRecord, uri: string): Record<string, string> | undefined {
  if (record.template === undefined) return uri === record.key ? {} : undefined;
  const match = record.template.pattern.exec(uri);
  if (match === null) return undefined;
  // Own properties, defined: a variable named `__proto__` is a variable like any other.
  return Object.fromEntries(record.template.names.map((name, index) => [name, match[index + 1] ?? '']));
}

/**
 * A URI template's pattern (RFC 6570's simple `{name}` and reserved `{+name}` expansions, as the
 * core's URI matchers read them): literal text escaped, `{name}` one or more characters without
 * `/`, `{+name}` one or more of any. Throws a sentence for a template that is not one.
 */
export function compileTemplate(uri: string): { pattern: RegExp; names: string[] } | undefined {
  if (!uri.includes('{') && !uri.includes('}')) return undefined;
  const names: string[] = [];
  let source = '';
  for (let rest = uri; rest.length > 0; ) {
    const open = rest.indexOf('{');
    const close = rest.indexOf('}');
    if (open < 0) {
      if (close >= 0) throw new Error(`"${uri}" has a '}' without its '{'`);
      source += escape(rest);
      break;
    }
    if (close < 0) throw new Error(`"${uri}" has a '{' without its '}'`);
    if (close < open) throw new Error(`"${uri}" has a '}' without its '{'`);
    source += escape(rest.slice(0, open));
    const variable = rest.slice(open + 1, close);
    const reserved = variable.startsWith('+');
    const name = reserved ? variable.slice(1) : variable;
    if (!/^[A-Za-z0-9_.%]+$/.test(name)) throw new Error(`"${uri}" has a template variable that is empty or not a name: {${variable}}`);
    names.push(name);
    source += reserved ? '(.+)' : '([^/]+)';
    rest = rest.slice(close + 1);
  }
  return { pattern: new RegExp(`^${source}$`, 'u'), names };
}

function escape(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

// ------------------------------------------------------------------ reads

/** What a read function answered, as MCP's `ReadResourceResult`. */
function normalizeRead(value: unknown, uri: string, mimeType: string | undefined): ReadResourceResult {
  if (isObject(value) && Array.isArray(value.contents)) return value as ReadResourceResult;
  if (value === undefined || value === null) return { contents: [] };
  if (typeof value === 'string') return { contents: [{ uri, mimeType: mimeType ?? 'text/plain', text: value }] };
  return { contents: [{ uri, mimeType: 'application/json', text: textOf(value) }] };
}

/** Contents shaped as tool results are: each item an embedded resource block; notices become text items of `uri`. */
function shapeRead(result: unknown, uri: string, serverId: string, maxBytes: number) {
  const contents = isObject(result) && Array.isArray(result.contents) ? (result.contents as unknown[]) : [];
  const { shapeForModel, stripText } = inPipeline().loadedShaping();
  const shaped = shapeForModel({ content: contents.map((item) => ({ type: 'resource', resource: item })) }, serverId, maxBytes);
  const noticeUri = stripText(uri)[0];
  const out: ResourceContents[] = shaped.result.content.map((block) =>
    block.type === 'resource' && isObject(block.resource) ? (block.resource as ResourceContents) : { uri: noticeUri, mimeType: 'text/plain', text: String(block.text ?? '') },
  );
  return { result: { contents: out, provenance: shaped.result.provenance }, flags: shaped.flags, truncated: shaped.truncated };
}

/**
 * Reads `uri` of resource `record` (`params`: its template's variables) through the governed
 * pipeline. Never throws for a read that went wrong.
 */
export async function readWith(w: Warden, record: SubjectRecord, uri: string, params: Record<string, string>, options: CallOptions | null | undefined): Promise<SubjectOutcome<ReadResourceResult>> {
  // The core tests no URI longer than its pattern limit (it would fail closed); refusing it here
  // keeps an agent's megabyte URI out of the core's memory, which only grows.
  if (uri.length > MAX_URI_LENGTH) return refused('validation', 'invalid_uri', `a URI of ${uri.length} characters is longer than ${MAX_URI_LENGTH}`);
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return refused('validation', 'invalid_uri', `"${String(uri).slice(0, 200)}" is not a URI`);
  }
  const definition = record.definition as ResourceDefinition;
  const about: SubjectCall = {
    kind: Subject.Resource,
    target: uri,
    stopEvent: 'resource_read.stop',
    context: () => ({ uri, params: { ...params }, resource: deepFrozenCopy(definition) }),
    run: (_input, signal) => (record.fn as unknown as ResourceRead)(url, { ...params }, { signal }),
    normalize: (output) => normalizeRead(output, uri, definition.mimeType),
    shape: (result, serverId, maxBytes) => shapeRead(result, uri, serverId, maxBytes),
  };
  // The template's variables are what the policy's `arg` predicates read.
  return toSubjectOutcome(await runSubjectCall(w, record, about, { ...params }, options, record.scope));
}

/** Reads a registered resource of the client `options.client` names, as an in-page agent would (`readResource(uri)`). */
export async function readResource(uri: unknown, options?: CallOptions & ClientOption): Promise<SubjectOutcome<ReadResourceResult>> {
  const [w, rest] = clientOption(options);
  // Reads notice a runtime that arrived since the last sync, as tool calls do (registration.ts).
  noticeRuntime(w);
  w.engine();
  if (typeof uri !== 'string') return refused('validation', 'invalid_uri', `a resource URI is a string, not ${uri === null ? 'null' : typeof uri}`);
  const found = findResource(w, uri);
  if (found === undefined) return refused('not_found', 'unknown_resource', `Unknown resource "${uri.slice(0, 200)}"`);
  return readWith(w, found.record, uri, found.params, rest);
}

// ------------------------------------------------------------------ gets

/** What a get function answered, as MCP's `GetPromptResult`. */
function normalizeGet(value: unknown): GetPromptResult {
  if (isObject(value) && Array.isArray(value.messages)) return value as GetPromptResult;
  if (value === undefined || value === null) return { messages: [] };
  return { messages: [{ role: 'user', content: { type: 'text', text: typeof value === 'string' ? value : textOf(value) } }] };
}

/**
 * Messages shaped as tool results are: the description (when there is one) and each message's
 * content become content blocks, shaped, and are put back in place; a truncation notice becomes
 * a user message. A role other than `assistant` reads as `user` (MCP knows no other).
 */
function shapeGet(result: unknown, serverId: string, maxBytes: number) {
  const source = isObject(result) ? result : {};
  const messages = Array.isArray(source.messages) ? (source.messages as unknown[]) : [];
  const description = typeof source.description === 'string' ? source.description : undefined;
  const blocks: unknown[] = messages.map((message) => (isObject(message) ? message.content : message));
  if (description !== undefined) blocks.unshift({ type: 'text', text: description });
  const shaped = inPipeline().loadedShaping().shapeForModel({ content: blocks as ContentBlock[] }, serverId, maxBytes);
  const content = [...shaped.result.content];
  const out: GetPromptResult = { messages: [] };
  if (description !== undefined && content.length > 0) {
    const first = content.shift();
    out.description = typeof first?.text === 'string' ? first.text : '';
  }
  out.messages = content.map((block, index): PromptMessage => {
    const message = messages[index];
    const role = isObject(message) && message.role === 'assistant' ? 'assistant' : 'user';
    return { role, content: block };
  });
  out.provenance = shaped.result.provenance;
  return { result: out, flags: shaped.flags, truncated: shaped.truncated };
}

/** Gets prompt `record` with `args` through the governed pipeline. Never throws for a get that went wrong. */
export async function getWith(w: Warden, record: SubjectRecord, args: unknown, options: CallOptions | null | undefined): Promise<SubjectOutcome<GetPromptResult>> {
  const definition = record.definition as PromptDefinition;
  const about: SubjectCall = {
    kind: Subject.Prompt,
    stopEvent: 'prompt_get.stop',
    context: (input) => ({ name: definition.name, args: input, prompt: deepFrozenCopy(definition) }),
    run: (input, signal) => record.fn(input, { signal }),
    normalize: normalizeGet,
    shape: shapeGet,
  };
  return toSubjectOutcome(await runSubjectCall(w, record, about, args === undefined ? {} : args, options, record.scope));
}

/** Gets a registered prompt of the client `options.client` names, as an in-page agent would (`getPrompt(name, args)`). */
export async function getPrompt(name: unknown, args?: unknown, options?: CallOptions & ClientOption): Promise<SubjectOutcome<GetPromptResult>> {
  const [w, rest] = clientOption(options);
  noticeRuntime(w);
  w.engine();
  const record = typeof name === 'string' ? w.prompts.get(name) : undefined;
  if (record === undefined) return refused('not_found', 'unknown_prompt', `Unknown prompt "${String(name).slice(0, 200)}"`);
  return getWith(w, record, args, rest);
}
