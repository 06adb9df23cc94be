// One governed read of a resource or get of a prompt: the call machine of tools (call.ts) with the
// subject's gate hooks, its own answer (`ReadResourceResult` / `GetPromptResult`), and shaping
// through the same core code as tool results (the answer's parts become content blocks, are
// shaped, and are put back). A read's URI is resolved first, by the core: its canonical form,
// which every later stage sees, and the resource that serves it (docs/resources-and-prompts.md,
// "URIs").
import { clientOption, type ClientOption } from '../api/api.js';
import type { ClientState } from '../client/client.js';
import { inPipeline, noticeRuntime, runSubjectCall } from '../api/pipeline-loader.js';
import type { SubjectCall } from '../types/internal.js';
import { deepFrozenCopy } from '../util/frozen.js';
import { uriModule } from './uri-module.js';
import type { ResolveUriAnswer } from '../boundary/answers.js';
import { Subject } from '../boundary/codes.js';
import type { SubjectRecord } from '../client/client.js';
import type { CallOptions, CallOutcome, ContentBlock, GetPromptResult, PromptDefinition, PromptMessage, ReadResourceResult, ResourceContents, ResourceDefinition, ResourceRead, SubjectOutcome } from '../types/types.js';

/** The longest URI read, as sent and in canonical form (the core's `uri::MAX_URI_LENGTH`). */
export const MAX_URI_LENGTH = 65_536;

/** A read or get refused before anything ran. */
type Refusal = Extract<SubjectOutcome<never>, { ok: false }>;

/** A failure before anything runs, as data. */
function refused(kind: 'not_found' | 'validation', reason: string, message: string): Refusal {
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

/** A read's URI as every stage of the read sees it. */
export interface ReadTarget {
  /** The canonical URI: what hooks, policy, grants, telemetry and the approver see. */
  readonly uri: string;
  /** `new URL(uri)`, whose `href` is `uri`: what the read function gets. */
  readonly url: URL;
  /** The template's variables, read from `uri` (`{}` for a resource of one URI). */
  readonly params: Record<string, string>;
}

/**
 * The canonical form of the URI `raw` and which of `records` serves it (`record`: none when
 * none does), as the Rust crate decides (`src/uri.rs`, run by the URI module): the platform's
 * `URL` parses, the crate refuses what cannot be read one way only, normalizes escapes and
 * matches the templates, and the canonical form must read back as itself. The length is
 * checked before any parser, template or pattern sees the URI. Never throws.
 */
export function resolveRead(raw: unknown, records: readonly SubjectRecord[]): (ReadTarget & { record: SubjectRecord | undefined }) | Refusal {
  if (typeof raw !== 'string') return refused('validation', 'invalid_uri', `a resource URI is a string, not ${raw === null ? 'null' : typeof raw}`);
  if (raw.length > MAX_URI_LENGTH) return refused('validation', 'invalid_uri', `a URI of ${raw.length} characters is longer than ${MAX_URI_LENGTH}`);
  let href: string | null = null;
  try {
    href = new URL(raw).href;
  } catch {
    // Not a URI: the core says so, in the words of its other refusals.
  }
  let answer: ResolveUriAnswer;
  try {
    answer = uriModule.resolveUri(raw, href, keysOf(records));
  } catch {
    // A trapped module (replaced at the next crossing), or one that could not load: nothing was read.
    return { ok: false, error: { kind: 'tool', reason: 'internal_error', message: 'internal error in webmcp-warden' }, text: 'Error: internal error in webmcp-warden' };
  }
  if (!answer.ok) return refused('validation', 'invalid_uri', answer.error.message);
  const { uri, index } = answer;
  let url: URL | undefined;
  try {
    url = new URL(uri);
  } catch {
    url = undefined;
  }
  if (url?.href !== uri) return refused('validation', 'invalid_uri', `"${raw.slice(0, 200)}" has no canonical form (its normalized text "${uri.slice(0, 200)}" does not read back as itself)`);
  return { uri, url, params: answer.params as Record<string, string>, record: index === null ? undefined : records[index] };
}

/**
 * A read of a resource's own URI, spelled exactly as its key: that key is canonical (the crate
 * made it so when the resource was made, and read it back through `URL`), and canonical forms
 * are fixed points (the fuzz target `uri` checks it), so the crate would answer this read with
 * the same URI and no variables: it needs no crossing. Any other spelling goes to the crate.
 */
function ownUri(record: SubjectRecord | undefined, raw: unknown): (ReadTarget & { record: SubjectRecord }) | undefined {
  if (record === undefined || record.template || raw !== record.key) return undefined;
  return { uri: record.key, url: new URL(record.key), params: {}, record };
}

/**
 * The keys of the last list of all records joined (`readResource`): the page's one, as the URI
 * module holds one list at a time, whichever client's.
 */
let lastKeys: { records: readonly SubjectRecord[]; keys: string } | undefined;

/**
 * The keys (URIs and templates) of `records`, one a line, as the URI module reads them (no key
 * holds a line break: `wasm/uri/lib.rs`), joined once while they stay the same.
 */
function keysOf(records: readonly SubjectRecord[]): string {
  const [only] = records;
  if (records.length === 1 && only !== undefined) return only.key;
  const last = lastKeys;
  if (last !== undefined && last.records.length === records.length && last.records.every((record, index) => record === records[index])) return last.keys;
  const keys = records.map((record) => record.key).join('\n');
  lastKeys = { records, keys };
  return keys;
}

/**
 * Checks a resource's `uri` when it is made (the crate decides, as for reads): a URI's key is
 * its canonical form; a template is compiled, and an instance of it (each variable `x`) must be
 * canonical, or the template could never match. Answers the key and whether it is a template;
 * throws a sentence for a URI or template that is refused.
 */
export function resourceKey(uri: string): { key: string; template: boolean } {
  if (!uri.includes('{') && !uri.includes('}')) {
    const target = resolveRead(uri, []);
    if ('ok' in target) throw new Error(target.error.message);
    return { key: target.uri, template: false };
  }
  const answer = uriModule.uriTemplate(uri);
  if (!answer.ok) throw new Error(answer.error.message);
  let href: string | undefined;
  try {
    href = new URL(answer.sample).href;
  } catch {
    // An instance that is not a URI (a port variable, say): nothing to compare.
  }
  if (href !== undefined) {
    const sample = resolveRead(answer.sample, []);
    if ('ok' in sample) throw new Error(`URI template "${uri}" can never be read: its instance ${sample.error.message}`);
    if (sample.uri !== answer.sample) throw new Error(`URI template "${uri}" can never match: its instance "${answer.sample}" reads as "${sample.uri}" (write the template as its URIs read)`);
  }
  return { key: uri, template: true };
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
 * Reads `target` (resolved: `resolveRead`) of resource `record` through the governed pipeline.
 * Never throws for a read that went wrong.
 */
export async function readWith(w: ClientState, record: SubjectRecord, target: ReadTarget, options: CallOptions | null | undefined): Promise<SubjectOutcome<ReadResourceResult>> {
  const { uri, url, params } = target;
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

/** Reads the URI `raw` of resource `record` (`resource.read(uri)`, and MCP-B's reads of it). */
export async function readOne(w: ClientState, record: SubjectRecord, raw: unknown, options: CallOptions | null | undefined): Promise<SubjectOutcome<ReadResourceResult>> {
  const target = ownUri(record, raw) ?? resolveRead(raw, [record]);
  if ('ok' in target) return target;
  if (target.record === undefined) {
    const { name, uri } = record.definition as ResourceDefinition;
    return refused('validation', 'invalid_uri', `"${target.uri.slice(0, 200)}" is not the URI of resource "${name}" (${uri})`);
  }
  return readWith(w, record, target, options);
}

/** Reads a registered resource of the client `options.client` names, as an in-page agent would (`readResource(uri)`). */
export async function readResource(uri: unknown, options?: CallOptions & ClientOption): Promise<SubjectOutcome<ReadResourceResult>> {
  const [w, rest] = clientOption(options);
  // Reads notice a runtime that arrived since the last sync, as tool calls do (registration.ts).
  noticeRuntime(w);
  w.engine();
  const target = ownUri(typeof uri === 'string' ? w.resources.get(uri) : undefined, uri) ?? resolveRead(uri, [...w.resources.values()]);
  if ('ok' in target) return target;
  if (target.record === undefined) return refused('not_found', 'unknown_resource', `Unknown resource "${target.uri.slice(0, 200)}"`);
  return readWith(w, target.record, target, rest);
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
export async function getWith(w: ClientState, record: SubjectRecord, args: unknown, options: CallOptions | null | undefined): Promise<SubjectOutcome<GetPromptResult>> {
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
