// Turning what a tool returned or threw into an MCP result (SPEC §7).
import type { CallToolResult } from './types.js';

/**
 * Normalizes a tool's return value: `null`/`undefined` → empty text; a string → that text;
 * a number or boolean → `String(value)`; an object with a `content` array → unchanged;
 * anything else → `JSON.stringify(value, null, 2)` as text.
 */
export function normalizeResult(value: unknown): CallToolResult {
  if (value === null || value === undefined) return textResult('');
  if (typeof value === 'string') return textResult(value);
  if (typeof value === 'number' || typeof value === 'boolean') return textResult(String(value));
  if (typeof value === 'object' && Array.isArray((value as { content?: unknown }).content)) {
    return value as CallToolResult;
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(value, null, 2);
  } catch {
    text = undefined;
  }
  return textResult(text ?? safeString(value));
}

/** Normalizes a thrown value: `{ content: [{ type: 'text', text: 'Error: ' + message }], isError: true }`. */
export function normalizeError(err: unknown): CallToolResult {
  return errorResult('Error: ' + errorMessage(err));
}

/** The message of a thrown value, as simple-webmcp reads it. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'string') return err;
  if (err !== null && typeof err === 'object' && typeof (err as { message?: unknown }).message === 'string') {
    return (err as { message: string }).message;
  }
  try {
    const json = JSON.stringify(err);
    if (json !== undefined) return json;
  } catch {
    // fall through to String()
  }
  return safeString(err);
}

/** A one-block text result. */
export function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

/** A one-block text result marked as an error. */
export function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
