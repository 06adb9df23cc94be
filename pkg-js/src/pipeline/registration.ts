// Registration with the browser's WebMCP runtime. What the browser lists is what an agent sees,
// and the browser has no listing callback, so the registrations themselves follow the page's
// governance: a tool the filter hides or a `toolsListed` hook drops is not registered, a title or
// description a hook annotated (and stripped of hidden characters) is what `getTools()` shows,
// and registrations follow when tools, hooks or settings change. Every change goes through one
// serialized `sync`, so React StrictMode's mount → unmount → mount leaves exactly one live
// registration and `status` tells the truth.
//
// A runtime may arrive after the tools (MCP-B initialized late, a polyfill, an extension): each
// registration remembers the runtime that holds it, and a sync re-registers with the page's
// current runtime. A sync runs on every `register()`, `listTools()` and `invokeTool()` whose
// runtime differs from the last one seen, when MCP-B's tab transport announces itself on
// `window` (docs/mcp-b.md), and while tools wait without a runtime, at polls that back off and
// stop (docs/runtimes.md, "A runtime that starts late").
//
// What the browser is sent is the listed contract, adapted to what browsers read
// (docs/runtimes.md): MCP's annotations mapped to WebMCP's, `untrustedContentHint` where the
// page asked for it, and, with `browserSchema: 'compatible'`, a schema without the keywords a
// browser may refuse. The adapting is `schema-compat.ts`, a chunk loaded only for a definition
// that has something to adapt. Every call to the runtime itself is `runtime-adapter.ts`.
import type { ClientState } from '../client/client.js';
import { dropBrowserRegistration, isVisible, unknownToolOutcome } from '../client/registry.js';
import { getModelContext, isMcpB } from '../runtime/runtime.js';
import { RegistrationError, WardenError } from '../util/errors.js';
import { toWireResult } from '../util/mcp.js';
import type { ToolRecord } from '../client/client.js';
import { listContracts } from './listing.js';
import { runCall } from './call.js';
import { DIAGNOSING, diagnose } from './diagnostics-loader.js';
import { registerWith, signalOf } from '../runtime/runtime-adapter.js';
import type { CallOutcome, ToolContract } from '../types/types.js';


/**
 * Brings the browser's registrations in line with the page (coalescing changes made in the
 * same turn); resolves once the registrations a caller's change implies are made. The sync
 * running and the one queued are the client's (`registrationSync`).
 */
export function syncRegistrations(w: ClientState): Promise<void> {
  const state = (w.registrationSync ??= { running: Promise.resolve(), queued: undefined });
  if (state.queued !== undefined) return state.queued;
  const current = state;
  const next = current.running.then(async () => {
    current.queued = undefined;
    await sync(w);
  });
  current.queued = next;
  current.running = next.catch(() => undefined);
  return next;
}

/**
 * Syncs `w`'s registrations when the page's runtime is no longer the one they were made with
 * (a runtime that arrived, left or was replaced; the client keeps the one of its last sync,
 * `syncedRuntime`). Cheap when nothing changed: two property reads and a comparison.
 */
export function noticeRuntime(w: ClientState): void {
  if (hasRegistrations(w) && getModelContext() !== w.syncedRuntime) void syncRegistrations(w).catch(() => undefined);
}

/** Whether `w` has registered tools, resources or prompts. */
function hasRegistrations(w: ClientState): boolean {
  return w.registry.size > 0 || w.resources.size > 0 || w.prompts.size > 0;
}

/**
 * Clients with registered tools, watched for a runtime that announces itself: the page's one
 * `message` listener walks them, so this set is the page's, not a client's state.
 */
const watched = new Set<ClientState>();
/** Whether the page's one `message` listener was added (once per page, for every client). */
let listening = false;

/**
 * MCP-B's tab transport posts `{ type: 'mcp', payload: 'mcp-server-ready' }` on `window` when it
 * starts (after MCP-B replaced `document.modelContext`), and a client's `'mcp-check-ready'`
 * when one connects: the moments a late runtime shows itself. Other messages cost one property
 * read.
 */
function watchForRuntime(w: ClientState): void {
  const target = globalThis as { addEventListener?: (type: string, listener: (event: { data?: unknown }) => void) => void };
  if (typeof target.addEventListener !== 'function' || (globalThis as { document?: unknown }).document === undefined) return;
  watched.add(w);
  if (listening) return;
  listening = true;
  target.addEventListener('message', (event) => {
    const data = event.data as { type?: unknown; payload?: unknown } | null | undefined;
    if (data === null || typeof data !== 'object' || data.type !== 'mcp') return;
    if (data.payload !== 'mcp-server-ready' && data.payload !== 'mcp-check-ready') return;
    for (const client of watched) noticeRuntime(client);
  });
}

async function sync(w: ClientState): Promise<void> {
  const records = [...w.registry.values()] as ToolRecord[];
  const runtime = getModelContext();
  w.syncedRuntime = runtime;
  if (!hasRegistrations(w)) {
    watched.delete(w);
    return;
  }
  watchForRuntime(w);
  // Resources and prompts (MCP-B's): registered with the runtime when it offers them. Awaited
  // even when the client has none, so tools register at the same turn either way.
  await w.subjects?.sync(w, runtime);
  if (records.length === 0) return;
  const visible = records.filter((record) => isVisible(w, record));
  if (!runtime) {
    for (const record of records) {
      dropBrowserRegistration(record);
      record.status = visible.includes(record) ? 'unsupported' : 'unregistered';
    }
    if (visible.length > 0) pollForRuntime(w);
    return;
  }
  let listed: ToolContract[];
  try {
    listed = await listContracts(w, visible, { shape: 'llm' });
  } catch (err) {
    // A failing toolsListed hook leaves the browser's registrations as they were; a tool not in
    // the browser yet cannot be shown, and says why.
    for (const record of records) {
      if (record.browser === undefined && w.registry.get(record.contract.name) === record) {
        record.status = 'error';
        record.error = err instanceof Error ? err : new WardenError('hook_failed', 'a toolsListed hook failed');
      }
    }
    return;
  }
  const byName = new Map(listed.map((contract) => [contract.name, contract]));
  await Promise.all(
    records.map(async (record) => {
      if (w.registry.get(record.contract.name) !== record) return;
      const listedContract = byName.get(record.contract.name);
      let sent: Sent | undefined;
      try {
        sent = listedContract === undefined ? undefined : await forBrowser(w, record, listedContract);
      } catch (err) {
        // The adapting chunk did not download (or the listed definition has no JSON form):
        // nothing is registered, and register() says why.
        if (w.registry.get(record.contract.name) !== record) return;
        dropBrowserRegistration(record);
        record.status = 'error';
        record.error = new WardenError('internal_error', `webmcp-warden: tool "${record.contract.name}" could not be prepared for the browser (${String(err)})`, { cause: err });
        return;
      }
      if (w.registry.get(record.contract.name) !== record) return;
      if (sent !== undefined && record.browser?.key === sent.key && record.browser.runtime === runtime) {
        if (record.status !== 'registering') record.status = 'registered';
        return;
      }
      dropBrowserRegistration(record);
      if (sent === undefined) {
        record.status = 'unregistered';
        return;
      }
      await registerWithBrowser(w, record, sent);
    }),
  );
}

/** What a tool's browser registration sends: its descriptor (without `execute`), and its key. */
interface Sent {
  descriptor: Record<string, unknown>;
  /** What the registration was made with: a change means registering again. */
  key: string;
  /** What `schema-compat.ts` would add to a refusal's message. */
  hint?: string;
}

/**
 * Keys of a JSON text a browser may refuse: only a definition whose JSON has one (or annotations
 * outside WebMCP's, or a hint to add) loads `schema-compat.ts`, which tells a keyword from a
 * property of that name.
 */
const MAYBE_REFUSED = /"(\$(ref|defs|dynamicRef|recursiveRef)|definitions|format|unevaluated\w+|dependent\w+|content(Encoding|MediaType|Schema))":/;
/** WebMCP's annotations (docs/runtimes.md, "Annotations"): other members are mapped or reported. */
const WEBMCP_HINTS = ['readOnlyHint', 'untrustedContentHint', 'consequentialHint', 'debugging'];
/** Tools whose results shaping flagged, for `untrustedContentHint: 'auto'`. */
const flagged = new WeakSet<ToolRecord>();

/** The descriptor the browser is sent for `contract` (the listed one), adapted (docs/runtimes.md). */
async function forBrowser(w: ClientState, record: ToolRecord, contract: ToolContract): Promise<Sent> {
  const descriptor: Record<string, unknown> = { name: contract.name, description: contract.description, inputSchema: contract.inputSchema };
  for (const field of ['title', 'outputSchema', 'annotations'] as const) if (contract[field] !== undefined) descriptor[field] = contract[field];
  // `untrustedContentHint: 'auto'` is sent as a boolean: true for a tool of another server (its
  // output is what taint counts) and for one whose results shaping had to clean.
  const auto = contract.annotations?.untrustedContentHint === 'auto';
  const untrusted = auto && ((record.server !== undefined && record.server !== w.settings.serverId) || flagged.has(record));
  const sent: Sent = { descriptor, key: '' };
  if (auto || MAYBE_REFUSED.test(JSON.stringify([contract.inputSchema, contract.outputSchema])) || Object.keys(contract.annotations ?? {}).some((key) => !WEBMCP_HINTS.includes(key))) {
    sent.hint = (await import('../runtime/schema-compat.js')).adaptForBrowser(descriptor, record, record.options.browserSchema === 'compatible', untrusted);
  }
  sent.key = JSON.stringify([descriptor, record.options.exposedTo]);
  return sent;
}

/**
 * After a call of `record` on any agent path: for a tool whose annotations say
 * `untrustedContentHint: 'auto'`, a result shaping flagged (hidden characters, media or content
 * it removed) marks it, and its registration is made again with `untrustedContentHint: true`.
 */
export function noteOutcome(w: ClientState, record: unknown, outcome: CallOutcome): void {
  const flags = (outcome.result as { provenance?: { flags?: unknown[] } } | undefined)?.provenance?.flags;
  if ((record as ToolRecord).contract.annotations?.untrustedContentHint !== 'auto' || !flags?.length || w.registry.get((record as ToolRecord).contract.name) !== record || flagged.has(record as ToolRecord)) return;
  flagged.add(record as ToolRecord);
  void syncRegistrations(w).catch(() => undefined);
}

async function registerWithBrowser(w: ClientState, record: ToolRecord, sent: Sent): Promise<void> {
  const runtime = getModelContext();
  if (!runtime) {
    record.status = 'unsupported';
    return;
  }
  const controller = new AbortController();
  const browser = { controller, key: sent.key, runtime };
  record.browser = browser;
  record.status = 'registering';
  const descriptor = { ...sent.descriptor };
  // An execute reaching a registration the page no longer holds runs nothing (docs/runtimes.md).
  descriptor.execute = (input: unknown, extra?: unknown) => executeForBrowser(w, record, browser, input, extra);
  try {
    if (!isMcpB(runtime)) {
      await registerWith(runtime, descriptor, controller.signal, record.options.exposedTo, () => console.warn(`webmcp-warden: tool "${record.contract.name}": this runtime does not support exposedTo, so only same-origin agents see it`));
    } else {
      // MCP-B's interop is loaded only by pages that run MCP-B (docs/mcp-b.md).
      const { registerThroughMcpB } = await import('../runtime/mcp-b.js');
      if (record.browser !== browser) return;
      if (!(await registerThroughMcpB(runtime, descriptor, controller.signal, () => record.browser === browser))) return;
    }
  } catch (cause) {
    if (record.browser !== browser) return;
    record.browser = undefined;
    const message = cause instanceof Error ? cause.message : String(cause);
    record.status = 'error';
    record.error = new RegistrationError('registration_failed', `Failed to register tool "${record.contract.name}": ${message}${sent.hint ?? ''}`, { cause });
    if (DIAGNOSING && w.settings.debug) await diagnose(w, [['registration', record.contract.name, 'registration_failed', message + (sent.hint ?? ''), 'browser']]);
    return;
  }
  if (record.browser === browser) {
    record.status = 'registered';
    record.error = null;
  }
}

/**
 * The `execute` registered with the browser: the whole pipeline, answering the result object.
 * A runtime that still calls a registration the page ended (one that kept a reference, or never
 * removed it) gets `not_found`, and nothing runs.
 */
async function executeForBrowser(w: ClientState, record: ToolRecord, browser: ToolRecord['browser'], input: unknown, extra: unknown) {
  if (record.browser !== browser || w.registry.get(record.contract.name) !== record || !isVisible(w, record)) return unknownToolOutcome(record.contract.name).result;
  const signal = signalOf(extra);
  const outcome = await runCall(w, record, input, signal ? { signal } : {}, record.scope);
  noteOutcome(w, record, outcome);
  return toWireResult(outcome.result);
}

/**
 * Looks for a runtime again while `w` has tools waiting for one: 0.1 s after the sync that found
 * none, then after twice as long each time, the last about 51 s after it; then stops. A polyfill
 * or an extension initialized late is picked up without another `register()`, and a page that
 * never gets a runtime keeps no timer (docs/runtimes.md, "A runtime that starts late"). Only
 * pages with a document poll; Node's timers do not keep a process alive for it.
 */
function pollForRuntime(w: ClientState, delay = 100): void {
  if ((delay === 100 && w.pollingForRuntime) || (globalThis as { document?: unknown }).document === undefined) return;
  w.pollingForRuntime = true;
  (setTimeout(() => {
    if (getModelContext() === undefined && delay < 25_600) return pollForRuntime(w, delay * 2);
    w.pollingForRuntime = false;
    noticeRuntime(w);
  }, delay) as unknown as { unref?: () => void }).unref?.();
}
