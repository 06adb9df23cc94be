// Registration with the browser's WebMCP runtime. What the browser lists is what an agent sees,
// and the browser has no listing callback, so the registrations themselves follow the page's
// governance: a tool the filter hides or a `toolsListed` hook drops is not registered, a title or
// description a hook annotated (and stripped of hidden characters) is what `getTools()` shows,
// and registrations follow when tools, hooks or settings change. Every change goes through one
// serialized `sync`, so React StrictMode's mount → unmount → mount leaves exactly one live
// registration and `status` tells the truth.
//
// A runtime may arrive after the tools (MCP-B initialized late, an extension): each
// registration remembers the runtime that holds it, and a sync re-registers with the page's
// current runtime. A sync runs on every `register()`, `listTools()` and `invokeTool()` whose
// runtime differs from the last one seen, and when MCP-B's tab transport announces itself on
// `window` (docs/mcp-b.md: the options measured, and the init orders).
import type { Warden } from './client.js';
import { dropBrowserRegistration, getModelContext, isMcpB, isVisible, RegistrationError, toWireResult, unknownToolOutcome, WardenError } from './from-entry.js';
import type { ToolRecord } from './client.js';
import { listContracts } from './listing.js';
import { runCall } from './call.js';
import { diagnose } from './diagnose.js';
import type { ToolContract } from './types.js';

/** Bundlers replace `process.env.NODE_ENV`, so production builds drop the diagnostics' code (diagnose.ts). */
declare const process: { env: { NODE_ENV?: string } };

interface SyncState {
  running: Promise<void>;
  queued: Promise<void> | undefined;
}

const syncs = new WeakMap<Warden, SyncState>();

/**
 * Brings the browser's registrations in line with the page (coalescing changes made in the
 * same turn); resolves once the registrations a caller's change implies are made.
 */
export function syncRegistrations(w: Warden): Promise<void> {
  let state = syncs.get(w);
  if (state === undefined) {
    state = { running: Promise.resolve(), queued: undefined };
    syncs.set(w, state);
  }
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

/** The runtime each client last synced with. */
const seen = new WeakMap<Warden, unknown>();

/**
 * Syncs `w`'s registrations when the page's runtime is no longer the one they were made with
 * (a runtime that arrived, left or was replaced). Cheap when nothing changed: two property
 * reads and a comparison.
 */
export function noticeRuntime(w: Warden): void {
  if (hasRegistrations(w) && getModelContext() !== seen.get(w)) void syncRegistrations(w).catch(() => undefined);
}

/** Whether `w` has registered tools, resources or prompts. */
function hasRegistrations(w: Warden): boolean {
  return w.registry.size > 0 || w.resources.size > 0 || w.prompts.size > 0;
}

/** Clients with registered tools, watched for a runtime that announces itself. */
const watched = new Set<Warden>();
let listening = false;

/**
 * MCP-B's tab transport posts `{ type: 'mcp', payload: 'mcp-server-ready' }` on `window` when it
 * starts (after MCP-B replaced `document.modelContext`), and a client's `'mcp-check-ready'`
 * when one connects: the moments a late runtime shows itself. Other messages cost one property
 * read.
 */
function watchForRuntime(w: Warden): void {
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

async function sync(w: Warden): Promise<void> {
  const records = [...w.registry.values()] as ToolRecord[];
  const runtime = getModelContext();
  seen.set(w, runtime);
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
      const contract = byName.get(record.contract.name);
      const key = contract === undefined ? undefined : JSON.stringify(contract);
      if (key !== undefined && record.browser?.key === key && record.browser.runtime === runtime) {
        if (record.status !== 'registering') record.status = 'registered';
        return;
      }
      dropBrowserRegistration(record);
      if (contract === undefined || key === undefined) {
        record.status = 'unregistered';
        return;
      }
      await registerWithBrowser(w, record, contract, key);
    }),
  );
}

async function registerWithBrowser(w: Warden, record: ToolRecord, contract: ToolContract, key: string): Promise<void> {
  const runtime = getModelContext();
  if (!runtime) {
    record.status = 'unsupported';
    return;
  }
  const controller = new AbortController();
  const browser = { controller, key, runtime };
  record.browser = browser;
  record.status = 'registering';
  const descriptor: Record<string, unknown> = { name: contract.name, description: contract.description, inputSchema: contract.inputSchema };
  for (const field of ['title', 'outputSchema', 'annotations'] as const) if (contract[field] !== undefined) descriptor[field] = contract[field];
  descriptor.execute = (input: unknown, extra?: { signal?: AbortSignal }) => executeForBrowser(w, record, input, extra);
  try {
    if (!isMcpB(runtime)) await runtime.registerTool(descriptor as never, { signal: controller.signal });
    else {
      // MCP-B's interop is loaded only by pages that run MCP-B (docs/mcp-b.md).
      const { registerThroughMcpB } = await import('./mcp-b.js');
      if (record.browser !== browser) return;
      if (!(await registerThroughMcpB(runtime, descriptor, controller.signal, () => record.browser === browser))) return;
    }
  } catch (cause) {
    if (record.browser !== browser) return;
    record.browser = undefined;
    const message = cause instanceof Error ? cause.message : String(cause);
    record.status = 'error';
    record.error = new RegistrationError('registration_failed', `Failed to register tool "${record.contract.name}": ${message}`, { cause });
    if (typeof process !== 'undefined' && process.env.NODE_ENV !== 'production' && w.settings.debug) await diagnose(w, [['registration', record.contract.name, 'registration_failed', message, 'browser']]);
    return;
  }
  if (record.browser === browser) {
    record.status = 'registered';
    record.error = null;
  }
}

/** The `execute` registered with the browser: the whole pipeline, answering the result object. */
async function executeForBrowser(w: Warden, record: ToolRecord, input: unknown, extra?: { signal?: AbortSignal }) {
  if (!isVisible(w, record)) return unknownToolOutcome(record.contract.name).result;
  const outcome = await runCall(w, record, input, extra?.signal ? { signal: extra.signal } : {}, record.scope);
  return toWireResult(outcome.result);
}
