// The runtime adapter's part for shapes other than the draft's (a runtime with `unregisterTool`,
// one that refuses `exposedTo`), and for reading a runtime's
// listing (runtime-adapter.ts says what each shape does and when this chunk loads). It imports
// nothing of the package at run time.
import type { ModelContextLike } from './runtime.js';

/** Which registration of each name is a runtime's latest: `unregisterTool(name)` may remove only that one. */
const latest = new WeakMap<object, Map<string, object>>();

/**
 * `registerWith` (runtime-adapter.ts) for a runtime with `unregisterTool` or a tool with
 * `exposedTo`.
 */
export async function registerOtherShape(runtime: ModelContextLike, descriptor: Record<string, unknown>, signal: AbortSignal, exposedTo?: readonly string[], onDropped?: () => void): Promise<void> {
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

