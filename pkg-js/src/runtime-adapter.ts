// The only code that talks to the browser's WebMCP runtime (`runtime.ts` only finds it): every
// shape WebMCP has had, met once per runtime object (docs/runtimes.md has the shapes and what
// each one does):
//
// - **Registering**: `registerTool(tool, { signal, exposedTo })`, answered by a promise (the draft
//   since June 2026, MCP-B) or by `undefined` (Firefox, Chrome's first previews), throwing or
//   rejecting alike. A runtime that refuses `exposedTo` (MCP-B: `NotSupportedError`) is asked
//   again without it: without `exposedTo` a tool is seen by fewer agents, never more.
// - **Unregistering** really removes the tool on every shape: the registration's signal aborts
//   (the draft's only way), and where the runtime has `unregisterTool(name)` (Firefox, Chrome's
//   previews: they never read the signal) that is called too, once, and only while this
//   registration is the runtime's latest of that name.
// - **Executing**: `execute(input, { signal })` (Chrome 153+), `execute(input)` (MCP-B's
//   polyfill) or `execute(input, client)` (Firefox): only a real `AbortSignal` in the second
//   argument is taken as the call's signal.
// - **Listing**: `getTools()` answers plain objects, or (Chrome 160) `Tool` objects whose members
//   are getters, `null` when empty, that spreading and `JSON.stringify` do not copy; an
//   `inputSchema` is an object or (Chrome 149–153) its JSON text. `toolsOf` answers plain copies.
import type { ModelContextLike } from './runtime.js';

/** The second argument of a runtime's `execute`: only a real `AbortSignal` is the call's signal. */
export function signalOf(extra: unknown): AbortSignal | undefined {
  const signal = (extra as { signal?: unknown } | null | undefined)?.signal;
  return signal !== null && typeof signal === 'object' && typeof (signal as AbortSignal).aborted === 'boolean' && typeof (signal as AbortSignal).addEventListener === 'function'
    ? (signal as AbortSignal)
    : undefined;
}

/** Which registration of each name is a runtime's latest: `unregisterTool(name)` may remove only that one. */
const latest = new WeakMap<object, Map<string, object>>();

/**
 * Registers `descriptor` (with its `execute`) with `runtime`; resolves once the runtime holds it.
 * Aborting `signal` removes it again on every shape (see the module's comment). `exposedTo`, when
 * given, is passed; a runtime that refuses it with `NotSupportedError` is asked again without it,
 * and `onDropped` says so. Rejects with what the runtime threw.
 */
export async function registerWith(runtime: ModelContextLike, descriptor: Record<string, unknown>, signal: AbortSignal, exposedTo?: readonly string[], onDropped?: () => void): Promise<void> {
  const name = String(descriptor.name);
  const token = {};
  let names = latest.get(runtime);
  if (names === undefined) latest.set(runtime, (names = new Map()));
  names.set(name, token);
  const options: { signal: AbortSignal; exposedTo?: string[] } = { signal };
  if (exposedTo !== undefined) options.exposedTo = [...exposedTo];
  try {
    await runtime.registerTool(descriptor as never, options);
  } catch (err) {
    if (exposedTo === undefined || (err as { name?: unknown } | null)?.name !== 'NotSupportedError' || signal.aborted) throw err;
    delete options.exposedTo;
    await runtime.registerTool(descriptor as never, options);
    onDropped?.();
  }
  const unregisterTool = (runtime as { unregisterTool?: unknown }).unregisterTool;
  if (typeof unregisterTool !== 'function') return;
  // A runtime that never reads the signal keeps the tool until unregisterTool(name).
  const remove = () => {
    if (names.get(name) !== token) return;
    names.delete(name);
    try {
      Reflect.apply(unregisterTool, runtime, [name]);
    } catch {
      // Already gone (a runtime that read the signal too).
    }
  };
  if (signal.aborted) remove();
  else signal.addEventListener('abort', remove, { once: true });
}

/** A tool as a runtime's `getTools()` lists it, copied into a plain object. */
export interface RuntimeTool {
  name: string;
  title?: string;
  description: string;
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  origin?: string;
}

/**
 * The runtime's tools (`getTools()`) as plain objects, on every shape: each member read by name
 * (Chrome 160's `Tool` has them as getters), `null` and absent members left out, a schema given
 * as JSON text parsed. Answers `[]` when the runtime cannot list, or its listing fails.
 */
export async function toolsOf(runtime: unknown): Promise<RuntimeTool[]> {
  const getTools = (runtime as { getTools?: unknown } | null | undefined)?.getTools;
  if (typeof getTools !== 'function') return [];
  let listed: unknown;
  try {
    listed = await Reflect.apply(getTools, runtime, []);
  } catch {
    return [];
  }
  if (!Array.isArray(listed)) return [];
  const out: RuntimeTool[] = [];
  for (const tool of listed as Record<string, unknown>[]) {
    if (tool === null || typeof tool !== 'object' || typeof tool.name !== 'string') continue;
    const copy: RuntimeTool = { name: tool.name, description: typeof tool.description === 'string' ? tool.description : '' };
    if (typeof tool.title === 'string' && tool.title !== '') copy.title = tool.title;
    if (typeof tool.origin === 'string') copy.origin = tool.origin;
    for (const key of ['inputSchema', 'outputSchema', 'annotations'] as const) {
      let value = tool[key];
      if (typeof value === 'string') {
        try {
          value = JSON.parse(value);
        } catch {
          value = undefined;
        }
      }
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) copy[key] = { ...(value as Record<string, unknown>) };
    }
    out.push(copy);
  }
  return out;
}
