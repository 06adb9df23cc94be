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
//
// The draft's path is here, in the pipeline chunk; what the other shapes need (and `toolsOf`,
// which only governed forms read) is `runtime-shapes.ts`, a chunk this loads when it meets a
// runtime with `unregisterTool` or a tool with `exposedTo`, so a page on the draft's shape never
// downloads it.
import type { ModelContextLike } from './runtime.js';

/** The second argument of a runtime's `execute`: only a real `AbortSignal` is the call's signal. */
export function signalOf(extra: unknown): AbortSignal | undefined {
  try {
    const signal = (extra as { signal?: unknown } | null | undefined)?.signal;
    return signal !== null && typeof signal === 'object' && typeof (signal as AbortSignal).aborted === 'boolean' && typeof (signal as AbortSignal).addEventListener === 'function'
      ? (signal as AbortSignal)
      : undefined;
  } catch {
    // A runtime's second argument whose `signal` throws when read: no signal.
    return undefined;
  }
}

/** Whether each runtime met is of a shape with `unregisterTool` (detected once per runtime object). */
const otherShape = new WeakMap<object, boolean>();

/**
 * Registers `descriptor` (with its `execute`) with `runtime`; resolves once the runtime holds it.
 * Aborting `signal` removes it again on every shape (see the module's comment). `exposedTo`, when
 * given, is passed; a runtime that refuses it with `NotSupportedError` is asked again without it,
 * and `onDropped` says so. Rejects with what the runtime threw.
 */
export async function registerWith(runtime: ModelContextLike, descriptor: Record<string, unknown>, signal: AbortSignal, exposedTo?: readonly string[], onDropped?: () => void): Promise<void> {
  let other = otherShape.get(runtime);
  if (other === undefined) otherShape.set(runtime, (other = typeof (runtime as { unregisterTool?: unknown }).unregisterTool === 'function'));
  if (exposedTo === undefined && !other) {
    await runtime.registerTool(descriptor as never, { signal });
    return;
  }
  await (await import('./runtime-shapes.js')).registerOtherShape(runtime, descriptor, signal, exposedTo, onDropped);
}
