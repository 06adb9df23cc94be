// What a result looks like when it leaves the page (the browser's `execute`, MCP clients): the
// shape MCP's schema gives it. MCP-B's own interop (schemas it advertises without enforcing, the
// MCP server's callbacks) is in `mcp-b.ts`, loaded only on pages that run MCP-B.
//
// - **Provenance in `_meta`.** MCP's `CallToolResult` is `{ content, structuredContent?,
//   isError?, _meta? }`; `_meta` is where a result carries data for the host, under a key with a
//   prefix of our own. In-page callers (`invokeTool`, `tool.invoke`) keep `result.provenance`;
//   what leaves the page (the browser's `execute`, MCP) carries it at
//   `_meta["webmcp-warden/provenance"]`.

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
