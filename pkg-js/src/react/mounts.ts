// Mounts of a tool: reference counting of the browser registration, and which provider scope a
// tool's calls run under.
//
// A tool may be mounted in several places (one `webmcp()` tool used by two components, under
// two providers). The browser holds one registration per name, so the first live mount
// registers and the last one to leave unregisters, by aborting the signal it registered with:
// StrictMode's mount → unmount → mount then leaves exactly one registration (see `register()`
// in tool.ts). The browser's registration, `invokeTool` and `listTools` run under the first live
// mount's provider scope; `result.tool.invoke` of each mount runs under its own.
import { runCall } from '../api/pipeline-loader.js';
import type { ToolRecord } from '../client/client.js';
import { recordOf } from '../api/tool.js';
import type { CallOptions, CallOutcome, WebMCPTool } from '../types/types.js';
import { resolveScope, type ScopeHandle } from './scope.js';

/** The live mounts of one tool, first one first, and the registration they share. */
interface Live {
  mounts: { handle: ScopeHandle | null }[];
  controller: AbortController | undefined;
}

// Keyed by tool records, which belong to one client each: nothing here is shared between clients.
const lives = new WeakMap<ToolRecord, Live>();
/** The provider a tool made by `useWebMCP(fn)` was created under (its scope while unmounted). */
const owners = new WeakMap<ToolRecord, ScopeHandle | null>();

function scopeOfRecord(record: ToolRecord): number {
  const first = lives.get(record)?.mounts[0];
  if (first !== undefined) return resolveScope(first.handle);
  return resolveScope(owners.get(record) ?? null);
}

/** Makes the tool's registry and browser calls run under the scope of its mounts. */
function attachScope(record: ToolRecord): void {
  if (record.scopeOf === undefined) record.scopeOf = () => scopeOfRecord(record);
}

/** Records that a tool made by `useWebMCP(fn)` belongs to the provider it was created under. */
export function adoptTool(tool: WebMCPTool, handle: ScopeHandle | null): void {
  const record = recordOf(tool);
  owners.set(record, handle);
  attachScope(record);
}

/**
 * Adds a mount of `tool` under `handle`; the first live mount registers the tool (unless its
 * `scope` is `'manual'`). Answers the function that removes the mount again, unregistering
 * when it was the last.
 */
export function joinMount(tool: WebMCPTool, handle: ScopeHandle | null): () => void {
  const record = recordOf(tool);
  attachScope(record);
  let live = lives.get(record);
  if (live === undefined) lives.set(record, (live = { mounts: [], controller: undefined }));
  const mount = { handle };
  live.mounts.push(mount);
  const scope = record.options.scope;
  // 'global' tools register themselves; 'manual' ones only by an explicit register().
  if (live.controller === undefined && (scope === undefined || scope === 'scoped')) {
    const controller = new AbortController();
    live.controller = controller;
    // A failure lands in the tool's status and error, which the hook mirrors, and, with `debug`
    // on, in the console (the diagnostics chunk, loaded only then).
    tool.register({ signal: controller.signal }).catch((err: unknown) => {
      if (!record.clientState.settings.debug) return;
      const code = (err as { code?: unknown } | null)?.code;
      const message = err instanceof Error ? err.message : String(err);
      import('../pipeline/diagnostics.js').then(
        (chunk) => chunk.writeNotes(record.clientState, [['registration', record.contract.name, typeof code === 'string' ? code : 'registration_failed', message, 'useWebMCP']]),
        () => undefined,
      );
    });
  }
  const current = live;
  return () => {
    const index = current.mounts.indexOf(mount);
    if (index >= 0) current.mounts.splice(index, 1);
    if (current.mounts.length === 0 && current.controller !== undefined) {
      const controller = current.controller;
      current.controller = undefined;
      // Unregisters only the registration this controller made (never someone else's).
      controller.abort();
    }
  };
}

/**
 * The tool as one mount sees it: the same function and properties, with `invoke` running under
 * this mount's provider scope (so one tool under two providers keeps their hooks apart).
 */
export function mountView<T extends WebMCPTool<any, any>>(tool: T, handle: ScopeHandle | null): T {
  const record = recordOf(tool);
  const view = function (this: unknown, ...args: unknown[]): unknown {
    return (tool as (...a: unknown[]) => unknown).apply(this, args);
  };
  const descriptors = Object.getOwnPropertyDescriptors(tool) as Record<string | symbol, PropertyDescriptor>;
  delete descriptors.prototype;
  Object.defineProperties(view, {
    ...descriptors,
    invoke: { value: (input?: unknown, options?: CallOptions): Promise<CallOutcome> => runCall(record.clientState, record, input, options, resolveScope(handle)) },
  });
  return view as unknown as T;
}
