// The public `normalizeResult` and `normalizeError`, as thin wrappers of `normalize.ts`. Why not
// a re-export: esbuild puts a module in the chunk of every entry whose included modules import
// it, and `index.ts` is always included, so re-exporting `normalize.ts` from it would put
// normalize.ts and json-walk.ts in the page's import even where only the lazily loaded pipeline
// uses them. A wrapper module that nothing uses is dropped, import and all (docs/behaviour.md,
// "Sizes").
import { normalizeError as normalizeErrorOf, normalizeResult as normalizeResultOf } from '../shape/normalize.js';
import type { CallToolResult, NormalizeOptions } from '../types/types.js';

/**
 * Normalizes a tool's return value into an MCP result: `null`/`undefined` → empty text; a
 * string, number or boolean → text; an MCP result (`{ content: [...] }`) → itself; a plain object
 * → JSON text plus `structuredContent` (only JSON text with `structured: false`); anything else
 * → JSON text. What `JSON.stringify` cannot write (a cycle, a BigInt, a throwing `toJSON`)
 * becomes a notice string, never `[object Object]`.
 *
 * @param value - What a tool returned.
 * @param options - `structured: false` to leave out `structuredContent`.
 */
export function normalizeResult(value: unknown, options?: NormalizeOptions): CallToolResult {
  return normalizeResultOf(value, options);
}

/**
 * Normalizes a thrown value: `{ content: [{ type: 'text', text: 'Error: ' + message }], isError: true }`.
 *
 * @param err - What a tool threw.
 */
export function normalizeError(err: unknown): CallToolResult {
  return normalizeErrorOf(err);
}
