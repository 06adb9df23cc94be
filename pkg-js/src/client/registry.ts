// The in-page registry: the tools `invokeTool` and `listTools` (api.ts) see, whether or not the browser
// has a WebMCP runtime, so an in-page agent works in every browser. One per client.
import { core } from '../boundary/core.js';
import type { ToolRecord, ClientState } from './client.js';
import { failedOutcome, snapshotOf } from './outcomes.js';
import type { RegisteredTool } from '../types/internal.js';
import type { CallOutcome } from '../types/types.js';

/** Adds a tool; `false` when another tool already holds its name. */
export function addToRegistry(w: ClientState, tool: RegisteredTool): boolean {
  const holder = w.registry.get(tool.contract.name);
  if (holder !== undefined && holder !== tool) return false;
  w.registry.set(tool.contract.name, tool);
  return true;
}

/** Removes a tool if it is the one registered under its name. */
export function removeFromRegistry(w: ClientState, tool: RegisteredTool): void {
  if (w.registry.get(tool.contract.name) === tool) w.registry.delete(tool.contract.name);
}

/**
 * Whether agents may see the tool: the static filter (decided by the core) and, when one is
 * configured, the filter function (a throw or a non-`true` answer hides the tool: fail closed).
 */
export function isVisible(w: ClientState, tool: RegisteredTool, callFilter = true): boolean {
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
  return failedOutcome('not_found', 'unknown_tool', `Unknown tool "${nameText(name)}"`);
}

/**
 * A name as a message quotes it: a string cut to 200 characters (a caller's megabyte name is not
 * echoed back), anything else by its type (never its own `toString`, which may throw).
 */
export function nameText(name: unknown): string {
  return typeof name === 'string' ? name.slice(0, 200) : `(${name === null ? 'null' : typeof name})`;
}

/**
 * The registered, visible tool named `name`. `callFilter: false` (dry runs) applies the static
 * filter only and leaves a filter function uncalled.
 */
export function findTool(w: ClientState, name: unknown, callFilter = true): RegisteredTool | undefined {
  const tool = typeof name === 'string' ? w.registry.get(name) : undefined;
  return tool !== undefined && isVisible(w, tool, callFilter) ? tool : undefined;
}

/** Ends a tool's browser registration, if it has one. */
export function dropBrowserRegistration(record: ToolRecord): void {
  const browser = record.browser;
  record.browser = undefined;
  browser?.controller.abort();
}
