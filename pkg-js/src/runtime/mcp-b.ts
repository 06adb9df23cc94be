// MCP-B (`@mcp-b/global`) interop: schemas MCP-B advertises without enforcing, and the MCP
// server's own callbacks for what we register through MCP-B, so each request's cancellation
// reaches the governed call. A module of its own, imported dynamically by `registration.ts` when
// the page's runtime is MCP-B's (and statically by the resources and prompts, which only MCP-B
// serves), so a page on Chromium's native WebMCP never downloads it.
//
// Why each piece (docs/mcp-b.md has the measurements and the init orders):
//
// - **Validation stays ours.** MCP-B hands a tool's JSON Schema to the official SDK's
//   `McpServer`, which validates `tools/call` arguments before calling anything, so an agent's
//   bad arguments never reached our hooks, telemetry or refusal. A Standard Schema whose
//   `jsonSchema.input()` is the tool's JSON Schema and whose `validate` accepts everything is
//   advertised exactly as the JSON Schema, and the SDK leaves the arguments to us.
// - **The request's signal.** MCP-B calls a tool's `execute(args)` with one argument and only
//   races it against the request's signal, so a cancelled MCP call ran on. While MCP-B registers
//   one of our tools (or resources, or prompts) with its `McpServer`, `withMcpCallback` hands the
//   server our own callback for that name: it gets the SDK's request context, whose
//   `mcpReq.signal` becomes the governed call's signal. MCP-B still lists, mirrors and removes
//   the registration as its own. Should MCP-B ever stop registering through `McpServer`, the
//   callback is simply not used: calls still run governed, without the request's signal.
//
// It imports nothing at run time: a chunk that imported the package's other modules would make
// esbuild move them all into a chunk shared with the page's entry (one more request at import).
import type { McpBRuntime } from './runtime.js';

/**
 * A copy of JSON Schema `schema` that MCP-B and the MCP SDK read as a Standard Schema: it
 * advertises `schema` (`~standard.jsonSchema.input()`), and its `validate` accepts any value
 * unchanged, so validation is left to the governed pipeline. `~standard` is not enumerable:
 * `JSON.stringify` and the browser see the JSON Schema only.
 */
export function passthroughSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const json = (): Record<string, unknown> => JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  const copy = json();
  Object.defineProperty(copy, '~standard', {
    value: {
      version: 1,
      vendor: 'webmcp-warden',
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: json, output: json },
    },
  });
  return copy;
}

/** What a registration method of an MCP server is called with: a name first. */
type Registration = (name: string, ...rest: unknown[]) => unknown;

/** The overrides waiting for a call of one method of one server, by name. */
const overrides = new WeakMap<object, Map<string, Map<string, (args: unknown[]) => unknown[]>>>();

/**
 * Runs `register()` while `server[method](name, …)` calls for `name` go through `override`
 * (which gets the call's arguments and answers the ones to use). Other names pass through
 * unchanged. The server's own method is back in place when the last override of it is done.
 * Answers what `register()` resolved to, and whether the override was used.
 */
export async function withMcpCallback<T>(
  server: unknown,
  method: 'registerTool' | 'registerResource' | 'registerPrompt',
  name: string,
  override: (args: unknown[]) => unknown[],
  register: () => Promise<T> | T,
): Promise<{ value: T; used: boolean }> {
  const target = server as Record<string, unknown> | null;
  if (target === null || typeof target !== 'object' || typeof target[method] !== 'function') return { value: await register(), used: false };
  let methods = overrides.get(target);
  if (methods === undefined) overrides.set(target, (methods = new Map()));
  let byName = methods.get(method);
  if (byName === undefined) {
    byName = new Map();
    methods.set(method, byName);
    const own = Object.getOwnPropertyDescriptor(target, method);
    const original = target[method] as Registration;
    const pending = byName;
    Object.defineProperty(target, method, {
      configurable: true,
      writable: true,
      value: function (this: unknown, ...args: unknown[]) {
        const replace = typeof args[0] === 'string' ? pending.get(args[0]) : undefined;
        return Reflect.apply(original, this, replace ? replace(args) : args);
      },
    });
    pendingRestore.set(byName, () => {
      if (own) Object.defineProperty(target, method, own);
      else delete target[method];
      methods?.delete(method);
    });
  }
  let used = false;
  const mine = (args: unknown[]) => {
    used = true;
    return override([...args]);
  };
  byName.set(name, mine);
  try {
    return { value: await register(), used };
  } finally {
    if (byName.get(name) === mine) byName.delete(name);
    if (byName.size === 0) pendingRestore.get(byName)?.();
  }
}

/** How to put a server's method back once no override waits on it. */
const pendingRestore = new WeakMap<Map<string, unknown>, () => void>();

/** The request's abort signal in an MCP SDK handler context (`ctx.mcpReq.signal`), if it has one. */
export function requestSignal(ctx: unknown): AbortSignal | undefined {
  const signal = (ctx as { mcpReq?: { signal?: unknown } } | null | undefined)?.mcpReq?.signal;
  return typeof AbortSignal === 'function' && signal instanceof AbortSignal ? signal : undefined;
}

/**
 * Registers a tool with MCP-B (`descriptor` is what any runtime gets: the listed contract and
 * `execute`): its JSON Schema advertised as a {@link passthroughSchema}, and MCP's callback for
 * it ours, calling `execute` under the request's signal. Waits first for MCP-B to drop a mirror
 * of an earlier native registration ({@link mirrorGone}); answers `false` when `current()` says
 * the registration was replaced meanwhile (nothing was registered).
 */
export async function registerThroughMcpB(runtime: McpBRuntime, descriptor: Record<string, unknown>, signal: AbortSignal, current: () => boolean): Promise<boolean> {
  const name = descriptor.name as string;
  await mirrorGone(runtime, name);
  if (!current()) return false;
  // Under MCP-B the schema is advertised but not enforced by MCP's SDK: validation is ours.
  const advertised = { ...descriptor, inputSchema: passthroughSchema(descriptor.inputSchema as Record<string, unknown>) };
  const execute = descriptor.execute as (input: unknown, extra?: { signal?: AbortSignal }) => Promise<unknown>;
  // MCP's callback for this tool is ours: the governed call runs under the request's signal.
  const mcpCallback = (args: unknown, ctx: unknown) => {
    const requested = requestSignal(ctx);
    return execute(args, requested ? { signal: requested } : undefined);
  };
  await withMcpCallback(runtime.mcpServer, 'registerTool', name, (args) => [args[0], args[1], mcpCallback, ...args.slice(3)], () => runtime.registerTool(advertised as never, { signal }));
  return true;
}

/**
 * Waits (at most `timeoutMs`) until MCP-B no longer lists a tool named `name`. With Chromium's
 * native WebMCP on, MCP-B initialized after our tools registered natively mirrors them into MCP
 * with an `executeTool` call Chromium 156 refuses; re-registering through MCP-B first needs that
 * mirror gone, which MCP-B does once it has seen the native registration end (its `toolchange`).
 */
async function mirrorGone(runtime: McpBRuntime, name: string, timeoutMs = 2000): Promise<void> {
  const listed = (): boolean => {
    try {
      const tools = runtime.listTools?.();
      return Array.isArray(tools) && tools.some((tool) => tool?.name === name);
    } catch {
      return false;
    }
  };
  const deadline = performance.now() + timeoutMs;
  while (listed() && performance.now() < deadline) {
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        runtime.removeEventListener?.('toolchange', done);
        resolve();
      };
      const timer = setTimeout(done, 50);
      runtime.addEventListener?.('toolchange', done);
    });
  }
}
