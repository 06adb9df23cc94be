// Registration of resources and prompts with the runtime: MCP-B's `registerResource` /
// `registerPrompt` (the W3C WebMCP API has tools only, so elsewhere they are `'unsupported'`,
// and MCP-B's interop, `mcp-b.ts`, is never loaded).
// As for tools (registration.ts, mcp.ts), the runtime registers them as its own while the MCP
// server gets our callbacks: the request's signal reaches the read or the get, and a prompt's
// `argsSchema` is advertised but left to our validation.
import type { Warden } from '../client/client.js';
import { RegistrationError } from '../util/errors.js';
import type { SubjectRecord } from '../client/client.js';
import { toWireResult } from '../util/mcp.js';
import type { PromptDefinition, ResourceDefinition, SubjectOutcome } from '../types/types.js';
import { getWith, readOne } from './subject-call.js';

/** Brings every resource's and prompt's registration in line with `runtime`. */
export async function syncSubjects(w: Warden, runtime: unknown): Promise<void> {
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

async function syncSubject(w: Warden, record: SubjectRecord, runtime: unknown): Promise<void> {
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
