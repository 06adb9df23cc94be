// The in-page registry: the tools `invokeTool` and `listTools` see, whether or not the browser
// has a WebMCP runtime, so an in-page agent works in every browser. One per client.
import { core } from './core.js';
import type { Warden } from './client.js';
import { disposedOutcome, failedOutcome, runCall, snapshotOf } from './call.js';
import type { RegisteredTool } from './internal.js';
import { listContracts, type ListingOptions } from './listing.js';
import { sealFirstListing } from './governance.js';
import type { CallOptions, CallOutcome, ToolContract } from './types.js';

/** Adds a tool; `false` when another tool already holds its name. */
export function addToRegistry(w: Warden, tool: RegisteredTool): boolean {
  const holder = w.registry.get(tool.contract.name);
  if (holder !== undefined && holder !== tool) return false;
  w.registry.set(tool.contract.name, tool);
  return true;
}

/** Removes a tool if it is the one registered under its name. */
export function removeFromRegistry(w: Warden, tool: RegisteredTool): void {
  if (w.registry.get(tool.contract.name) === tool) w.registry.delete(tool.contract.name);
}

/**
 * Whether agents may see the tool: the static filter (decided by the core) and, when one is
 * configured, the filter function (a throw or a non-`true` answer hides the tool: fail closed).
 */
export function isVisible(w: Warden, tool: RegisteredTool, callFilter = true): boolean {
  if (!core.isVisible(w.engine(), tool.coreTool)) return false;
  const filter = w.settings.filter;
  if (filter === undefined || !callFilter) return true;
  try {
    // The deeply frozen contract hooks see: a filter cannot change what the browser is sent.
    return filter(snapshotOf(tool.contract), { serverId: tool.server ?? w.settings.serverId }) === true;
  } catch {
    return false;
  }
}

/**
 * The outcome of calling a tool that does not exist, or that the filter hides: the same in
 * both cases, so a hidden tool's name cannot be probed.
 */
export function unknownToolOutcome(name: unknown): CallOutcome {
  return failedOutcome('not_found', 'unknown_tool', `Unknown tool "${String(name)}"`);
}

/**
 * The registered, visible tool named `name`. `callFilter: false` (dry runs) applies the static
 * filter only and leaves a filter function uncalled.
 */
export function findTool(w: Warden, name: unknown, callFilter = true): RegisteredTool | undefined {
  const tool = typeof name === 'string' ? w.registry.get(name) : undefined;
  return tool !== undefined && isVisible(w, tool, callFilter) ? tool : undefined;
}

/**
 * Calls a registered tool through the governed pipeline, as an in-page agent host would.
 * Never throws for a call that went wrong: the outcome is data.
 */
export async function invokeTool(w: Warden, name: string, input?: unknown, options?: CallOptions): Promise<CallOutcome> {
  // Disposed first: a disposed client's registry is empty, and "unknown tool" would mislead.
  if (w.isDisposed) return disposedOutcome();
  const tool = findTool(w, name);
  if (tool === undefined) return unknownToolOutcome(name);
  return runCall(w, tool, input, options, tool.scope);
}

/**
 * The registered tools as an agent would see them, after the `toolsListed` hooks. A failing
 * `toolsListed` hook fails the listing (rejects with a `WardenError` whose code is
 * `hook_failed`) rather than answering an empty list.
 */
export async function listTools(w: Warden, options: ListingOptions = {}): Promise<ToolContract[]> {
  // A disposed client refuses (this throws `ConfigurationError('disposed')`).
  w.engine();
  const tools = [...w.registry.values()].filter((tool) => isVisible(w, tool));
  // The first listing is a first sight: it records each tool's baseline definition, and seals
  // the baseline when the page asked for `approvedFingerprints: 'first_listing'`.
  for (const tool of tools) w.noteBaseline(tool.coreTool);
  sealFirstListing(w);
  return listContracts(w, tools, options);
}
