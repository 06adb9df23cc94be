// The in-page registry: the tools `invokeTool` and `listTools` see (SPEC §10), whether or not
// the browser has a WebMCP runtime, so an in-page agent works in every browser.
import { Core } from '../wasm/warden_core.js';
import { getCore } from './core.js';
import { settings } from './config.js';
import { WardenError } from './errors.js';
import { hookTable } from './hookset.js';
import { errorResult } from './normalize.js';
import { governance, sealFirstListing } from './governance.js';
import { genInvocationId, runCall, snapshotOf, type PipelineTool } from './pipeline.js';
import { stripText } from './shape.js';
import type { CallOptions, CallOutcome, ToolContract } from './types.js';

/** What the registry holds per tool. */
interface Registered extends PipelineTool {
  scope: number;
}

const registered = new Map<string, Registered>();

/** Adds a tool; `false` when another tool already holds its name. */
export function addToRegistry(tool: Registered): boolean {
  const holder = registered.get(tool.contract.name);
  if (holder !== undefined && holder !== tool) return false;
  registered.set(tool.contract.name, tool);
  return true;
}

/** Removes a tool if it is the one registered under its name. */
export function removeFromRegistry(tool: Registered): void {
  if (registered.get(tool.contract.name) === tool) registered.delete(tool.contract.name);
}

/**
 * Whether agents may see the tool: the static filter (decided by the core) and, when one is
 * configured, the filter function (a throw or a non-`true` answer hides the tool: fail closed).
 */
export function isVisible(tool: PipelineTool, callFilter = true): boolean {
  if (!getCore().isVisible(tool.coreTool)) return false;
  const filter = governance.filter;
  if (filter === undefined || !callFilter) return true;
  try {
    // The deeply frozen contract hooks see: a filter cannot change what the browser is sent.
    return filter(snapshotOf(tool.contract), { serverId: tool.server ?? settings.serverId }) === true;
  } catch {
    return false;
  }
}

/**
 * The outcome of calling a tool that does not exist, or that the filter hides: the same in
 * both cases, so a hidden tool's name cannot be probed (SPEC §5).
 */
export function unknownToolOutcome(name: unknown): CallOutcome {
  const message = `Unknown tool "${String(name)}"`;
  return { ok: false, error: { kind: 'not_found', reason: 'unknown_tool', message }, result: errorResult('Error: ' + message) };
}

/**
 * The registered, visible tool named `name`. `callFilter: false` (dry runs) applies the static
 * filter only and leaves a filter function uncalled.
 */
export function findTool(name: unknown, callFilter = true): Registered | undefined {
  const tool = typeof name === 'string' ? registered.get(name) : undefined;
  return tool !== undefined && isVisible(tool, callFilter) ? tool : undefined;
}

/**
 * Calls a registered tool through the governed pipeline, as an in-page agent host would.
 * Never throws for a call that went wrong: the outcome is data (SPEC §10).
 */
export async function invokeTool(name: string, input?: unknown, options?: CallOptions): Promise<CallOutcome> {
  const tool = findTool(name);
  if (tool === undefined) return unknownToolOutcome(name);
  return runCall(tool, input, options, tool.scope);
}

/**
 * The registered tools as an agent would see them, after the `toolsListed` hooks. A failing
 * `toolsListed` hook fails the listing (rejects with a `WardenError` whose code is
 * `hook_failed`) rather than answering an empty list.
 */
export async function listTools(options: Pick<CallOptions, 'principal' | 'assigns' | 'signal' | 'shape'> = {}): Promise<ToolContract[]> {
  const tools = [...registered.values()].filter((tool) => isVisible(tool));
  let listed: ToolContract[] = tools.map((tool) => ({ ...tool.contract }));
  const core = getCore();
  // The first listing is a first sight: it records each tool's baseline definition.
  for (const tool of tools) core.recordBaseline(tool.coreTool);
  sealFirstListing();
  const plan = JSON.parse(core.listPlan(new Uint32Array(tools.map((t) => t.coreTool)), new Uint32Array(tools.map((t) => t.scope)))) as { handle: number; id: string; tools: number[] }[];
  const ctx = {
    invocationId: genInvocationId(),
    metadata: {} as Record<string, unknown>,
    principal: options.principal,
    assigns: options.assigns ?? {},
    signal: options.signal ?? new AbortController().signal,
  };
  for (const step of plan) {
    const hook = hookTable[step.handle];
    const names = new Set(step.tools.map((i) => tools[i]?.contract.name));
    const given = listed.filter((tool) => names.has(tool.name));
    if (given.length === 0 || hook === undefined) continue;
    let returned: unknown;
    try {
      returned = await withTimeout(hook.run(given.map((t) => ({ ...t })), ctx), hook.timeout);
    } catch {
      throw new WardenError('hook_failed', `toolsListed hook "${step.id}" failed`);
    }
    if (returned === undefined || returned === null) continue;
    const returnedNames = Array.isArray(returned) ? returned.map((t) => (t && typeof t === 'object' ? (t as { name?: unknown }).name : undefined)) : undefined;
    if (!returnedNames || !Core.isListedSubset(JSON.stringify(given.map((t) => t.name)), JSON.stringify(returnedNames))) {
      throw new WardenError('hook_failed', `toolsListed hook "${step.id}" returned something other than a subset of the tools it was given`);
    }
    const byName = new Map((returned as ToolContract[]).map((t) => [t.name, t]));
    listed = listed.flatMap((tool) => (names.has(tool.name) ? (byName.has(tool.name) ? [{ ...(byName.get(tool.name) as ToolContract), name: tool.name }] : []) : [tool]));
  }
  // Shaped for a model: a description is text a model reads, and a tool definition is the
  // classic place to hide instructions (tool poisoning).
  if ((options.shape ?? 'llm') === 'llm') {
    listed = listed.map((tool) => {
      const shaped = { ...tool, description: stripText(tool.description)[0] };
      if (tool.title !== undefined) shaped.title = stripText(tool.title)[0];
      return shaped;
    });
  }
  return listed;
}

async function withTimeout(value: unknown, timeoutMs: number | undefined): Promise<unknown> {
  const ms = timeoutMs ?? settings.hookTimeout;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      Promise.resolve(value),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), ms);
      }),
    ]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

/** Every tool registered in the page, visible or not. */
export function registeredRecords(): PipelineTool[] {
  return [...registered.values()];
}

let filterListener: (() => void) | undefined;

/** Set by tool.ts: what to do when the tool filter changes (re-sync browser registrations). */
export function setFilterListener(listener: () => void): void {
  filterListener = listener;
}

/** The tool filter changed: visibility of registered tools may have changed with it. */
export function toolFilterChanged(): void {
  filterListener?.();
}

/** Forgets every registered tool (for tests). */
export function clearRegistry(): void {
  registered.clear();
}
