// What crosses to MCP clients: results in the shape MCP's schema gives them, schemas MCP-B
// advertises without enforcing, and the MCP server's own callbacks for what we register through
// MCP-B (`@mcp-b/global`), so each request's cancellation reaches the governed call.
//
// Why each piece (docs/mcp-b.md has the measurements and the init orders):
//
// - **Provenance in `_meta`.** MCP's `CallToolResult` is `{ content, structuredContent?,
//   isError?, _meta? }`; `_meta` is where a result carries data for the host, under a key with a
//   prefix of our own. In-page callers (`invokeTool`, `tool.invoke`) keep `result.provenance`;
//   what leaves the page (the browser's `execute`, MCP) carries it at
//   `_meta["webmcp-warden/provenance"]`.
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

/** The `_meta` key under which a result that leaves the page carries its provenance. */
export const PROVENANCE_META_KEY = 'webmcp-warden/provenance';

/**
 * A result as it leaves the page (the browser's `execute`, an MCP client): `provenance` moved
 * into `_meta[PROVENANCE_META_KEY]`, every other member as it is. Results without provenance
 * (`shape: false`) are returned unchanged.
 */
export function toWireResult<T extends object>(result: T): T {
  if (result === null || typeof result !== 'object' || !('provenance' in result)) return result;
  const { provenance, ...rest } = result as T & { provenance?: unknown; _meta?: unknown };
  const meta = rest._meta !== null && typeof rest._meta === 'object' ? (rest._meta as Record<string, unknown>) : {};
  return { ...rest, _meta: { ...meta, [PROVENANCE_META_KEY]: provenance } } as T;
}

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
