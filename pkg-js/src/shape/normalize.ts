// Turning what a tool returned or threw into an MCP result.
import { jsonView, removedNotice, ValueSink, walkJson } from '../util/json-walk.js';
import type { CallToolResult, NormalizeOptions } from '../types/types.js';


/** How deep a value that `JSON.stringify` refused is walked again; deeper parts become notices (shaping cuts at 128 anyway). */
const SALVAGE_DEPTH = 1000;
/** How much JSON a salvaged value may make before it is replaced by a notice as a whole. */
const SALVAGE_BUDGET = 64 * 1024 * 1024;

/**
 * Normalizes a tool's return value: `null`/`undefined` → empty text; a string → that text;
 * a number or boolean → `String(value)`; an object with a `content` array → unchanged; a
 * plain object → its `JSON.stringify(value, null, 2)` as text *and* the object as
 * `structuredContent` (MCP's structured tool result; not with `structured: false`); anything
 * else (an array, a class instance) → `JSON.stringify(value, null, 2)` as text.
 *
 * A value `JSON.stringify` cannot write keeps what it can: each part it refuses (a cycle, a
 * BigInt, a `toJSON` or getter that throws) becomes a notice string such as
 * `"[a BigInt removed by the MCP client]"`, in the text and in `structuredContent`. Never
 * `[object Object]`.
 */
export function normalizeResult(value: unknown, options: NormalizeOptions = {}): CallToolResult {
  if (value === null || value === undefined) return textResult('');
  if (typeof value === 'string') return textResult(value);
  if (typeof value === 'number' || typeof value === 'boolean') return textResult(String(value));
  if (typeof value === 'object' && hasContentArray(value)) return value as CallToolResult;
  const structured = options.structured !== false && isStructured(value);
  let text: string | undefined;
  let threw = false;
  try {
    text = JSON.stringify(value, null, 2);
  } catch {
    threw = true;
  }
  if (text !== undefined) return structured ? { content: [{ type: 'text', text }], structuredContent: value } : textResult(text);
  // A function or a symbol (JSON has nothing), a BigInt: their own text, as before.
  if (typeof value !== 'object') return textResult(safeString(value));
  if (!threw) return textResult(removedNotice('a value with no JSON form'));
  const salvaged = salvage(value);
  if (salvaged === undefined) return textResult(removedNotice(`a value whose JSON passes ${SALVAGE_BUDGET} bytes`));
  const salvagedText = JSON.stringify(salvaged, null, 2);
  return structured ? { content: [{ type: 'text', text: salvagedText }], structuredContent: salvaged } : textResult(salvagedText);
}

/** `value` as plain JSON data, each part `JSON.stringify` refuses replaced by its notice; `undefined` when it is too large or has no JSON form. */
function salvage(value: unknown): unknown {
  const sink = new ValueSink();
  const walked = walkJson(jsonView(value, ''), sink, { maxDepth: SALVAGE_DEPTH, budget: SALVAGE_BUDGET });
  return walked.over || walked.skipped ? undefined : sink.value;
}

/** Whether `value` has a `content` array (an MCP result); a getter that throws says no. */
function hasContentArray(value: object): boolean {
  try {
    return Array.isArray((value as { content?: unknown }).content);
  } catch {
    return false;
  }
}

/** A plain object (`{}` or a null prototype) that `JSON.stringify` writes as itself (no `toJSON`). */
function isStructured(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  try {
    const proto = Object.getPrototypeOf(value);
    return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
  } catch {
    return false;
  }
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
    // An object JSON refuses: what it can write, never `[object Object]`.
    if (err !== null && typeof err === 'object') {
      const salvaged = salvage(err);
      if (salvaged !== undefined) return JSON.stringify(salvaged);
    }
  }
  return safeString(err);
}

/** A one-block text result. */
function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/** A one-block text result marked as an error. */
export function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
