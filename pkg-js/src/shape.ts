// Shaping a result for a model (SPEC §7): the rules live in the core; this file decides only
// what must cross the boundary. Clean text never crosses: a regex the core supplies finds text
// that may hold a removable character; such text crosses once and comes back as removal
// positions, not as a new string; anything beyond plain text blocks (media, unknown blocks,
// `_meta`, `structuredContent`, a result that may pass the byte cap) is shaped whole by the core.
import { scanText, scanUnits, shapeCandidatePattern, shapeFlagNames, shapeResult } from '../wasm/warden_core.js';
import { getCore } from './core.js';
import type { CallToolResult } from './types.js';

/** A result shaped for a model, with what shaping did. */
export interface ShapedResult {
  /** The result, with `provenance`. */
  result: CallToolResult;
  /** The flags set (`bidi`, `zero_width`, `tag_chars`, `variation_selectors`, `media_dropped`, `unsupported_content`). */
  flags: string[];
  /** Whether the byte cap cut the result. */
  truncated: boolean;
}

let candidate: RegExp | undefined;
let flagNames: string[] = [];

function candidates(): RegExp {
  if (candidate === undefined) {
    getCore();
    candidate = new RegExp(shapeCandidatePattern());
    flagNames = shapeFlagNames();
  }
  return candidate;
}

function namesOf(bits: number): string[] {
  return flagNames.filter((_, i) => bits & (1 << i));
}

/** Removes the hidden and direction-changing characters from one string; returns it and the flag bits. */
export function stripText(text: string): [string, number] {
  if (!candidates().test(text)) return [text, 0];
  // Well-formed strings cross as UTF-8 (fast); a string with lone surrogates crosses as code
  // units so the core can keep removals from joining two lone halves into a new character.
  let scan: Uint32Array;
  if (isWellFormed(text)) {
    scan = scanText(text);
  } else {
    const units = new Uint16Array(text.length);
    for (let i = 0; i < text.length; i++) units[i] = text.charCodeAt(i);
    scan = scanUnits(units);
  }
  if (scan.length <= 1) return [text, 0];
  let out = '';
  let from = 0;
  for (let i = 1; i + 1 < scan.length; i += 2) {
    out += text.slice(from, scan[i]);
    from = scan[i + 1] as number;
  }
  out += text.slice(from);
  return [out, scan[0] as number];
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function isWellFormed(text: string): boolean {
  const native = (text as { isWellFormed?: () => boolean }).isWellFormed;
  return typeof native === 'function' ? native.call(text) : !LONE_SURROGATE.test(text);
}

/** Whether a result is only text blocks of `{ type: 'text', text }`, with at most `isError` beside `content`. */
function isPlainText(result: CallToolResult): boolean {
  for (const key in result) {
    if (key !== 'content' && key !== 'isError') return false;
  }
  if (result.isError !== undefined && typeof result.isError !== 'boolean') return false;
  for (const block of result.content) {
    if (block === null || typeof block !== 'object' || block.type !== 'text' || typeof block.text !== 'string') return false;
    for (const key in block) if (key !== 'type' && key !== 'text') return false;
  }
  return true;
}

/** Shapes a normalized result for a model, as the core's rules say (SPEC §7). */
export function shapeForModel(result: CallToolResult, serverId: string, maxBytes: number): ShapedResult {
  candidates();
  if (Array.isArray(result.content) && isPlainText(result)) {
    let bits = 0;
    let units = 0;
    const content = result.content.map((block) => {
      const [text, found] = stripText(block.text as string);
      bits |= found;
      units += text.length;
      return { type: 'text', text };
    });
    // A UTF-16 unit is at most 3 UTF-8 bytes, so below this bound the cap cannot bite.
    if (units * 3 <= maxBytes) {
      const flags = namesOf(bits);
      const shaped: CallToolResult = { content };
      if (result.isError !== undefined) shaped.isError = result.isError;
      shaped.provenance = { serverId, truncated: false, flags };
      return { result: shaped, flags, truncated: false };
    }
    // Near the cap: the core cuts, carrying the flags found so far in `provenance`.
    return shapeWhole({ ...result, content, provenance: { flags: namesOf(bits) } }, serverId, maxBytes);
  }
  return shapeWhole(result, serverId, maxBytes);
}

function shapeWhole(result: unknown, serverId: string, maxBytes: number): ShapedResult {
  let json: string;
  try {
    json = JSON.stringify(result) ?? 'null';
  } catch {
    // A cycle or a BigInt: the core shapes it as an invalid result.
    json = 'null';
  }
  return JSON.parse(shapeResult(json, serverId, maxBytes)) as ShapedResult;
}
