// Shaping a result for a model (SPEC §7): the rules live in the core; this file decides only
// what must cross the boundary. Clean text never crosses: a regex the core supplies finds text
// that may hold a removable character; such text crosses once and comes back as removal
// positions, not as a new string; anything beyond plain text blocks (media, unknown blocks,
// `_meta`, `structuredContent`, a result that may pass the byte cap) is shaped whole by the core.
//
// Lone surrogates (text that is not valid UTF-16) become U+FFFD, as any UTF-8 encoder makes
// them, on both paths: the core's JSON cannot carry them, and a shaped result is then always
// well-formed text.
import { core } from './core.js';
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
let candidateFinder: RegExp = /$^/g;
let flagNames: string[] = [];

function candidates(): RegExp {
  if (candidate === undefined) {
    candidate = new RegExp(core.shapeCandidatePattern());
    candidateFinder = new RegExp(candidate.source, 'g');
    flagNames = core.shapeFlagNames();
  }
  return candidate;
}

function namesOf(bits: number): string[] {
  return flagNames.filter((_, i) => bits & (1 << i));
}

/** Removes the hidden and direction-changing characters from one string; returns it and the flag bits. */
export function stripText(text: string): [string, number] {
  if (typeof text !== 'string') return [text, 0];
  // Lone surrogates first: with them gone the text crosses as UTF-8 (fast), positions stay
  // aligned, and no removal can join two halves into a new character.
  const whole = wellFormed(text);
  if (!candidates().test(whole)) return [whole, 0];
  const scan = scanCandidates(whole) ?? core.scanText(whole);
  if (scan.length <= 1) return [whole, 0];
  let out = '';
  let from = 0;
  for (let i = 1; i + 1 < scan.length; i += 2) {
    out += whole.slice(from, scan[i]);
    from = scan[i + 1] as number;
  }
  out += whole.slice(from);
  return [out, scan[0] as number];
}

/**
 * The core's scan of well-formed `text` (`[flagBits, start0, end0, …]`) when it holds few
 * candidate units: only the characters at candidate positions cross, each followed by a space
 * (never removed; the core classifies each character on its own), and the removal ranges come
 * back mapped to positions in `text`. A 1 MiB text with a few hidden characters then costs a
 * regex pass instead of a 1 MiB UTF-8 copy into the core. `undefined` when candidates are more
 * than one unit in 16: then the whole text crossing is cheaper.
 */
function scanCandidates(text: string): Uint32Array | undefined {
  const finder = candidateFinder;
  const limit = text.length >> 4;
  const starts: number[] = [];
  let windows = '';
  finder.lastIndex = 0;
  // `test` with the `g` flag moves `lastIndex` past the one-unit match without building a match array.
  while (finder.test(text)) {
    if (starts.length >= limit) {
      finder.lastIndex = 0;
      return undefined;
    }
    // A match is one BMP unit or a whole surrogate pair (the pattern is exact): find its start.
    let at = finder.lastIndex - 1;
    if ((text.charCodeAt(at) & 0xfc00) === 0xdc00) at -= 1;
    // U+DB40 opens the pair of a tag character or variation selector: the pair crosses whole.
    windows += (text.charCodeAt(at) === 0xdb40 ? text.slice(at, at + 2) : text[at]) + ' ';
    starts.push(at);
  }
  if (starts.length === 0) return new Uint32Array([0]);
  const scan = core.scanText(windows);
  // Map each range back: window k starts at `offsets[k]` in `windows` and at `starts[k]` in `text`.
  let k = 0;
  let offset = 0;
  for (let i = 1; i + 1 < scan.length; i += 2) {
    const start = scan[i] as number;
    while (k + 1 < starts.length && offset + (windows.charCodeAt(offset) === 0xdb40 ? 3 : 2) <= start) {
      offset += windows.charCodeAt(offset) === 0xdb40 ? 3 : 2;
      k++;
    }
    const shift = (starts[k] as number) - offset;
    scan[i] = start + shift;
    scan[i + 1] = (scan[i + 1] as number) + shift;
  }
  return scan;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** `text` with every lone surrogate replaced by U+FFFD (`String.prototype.toWellFormed`). */
export function wellFormed(text: string): string {
  const native = text as { isWellFormed?: () => boolean; toWellFormed?: () => string };
  // `isWellFormed` first: V8's `toWellFormed` copies even a well-formed string (measured 1.8 ms
  // against 1.1 ms for the check alone on 1 MiB), and the check is free on one-byte strings.
  if (typeof native.isWellFormed === 'function' && typeof native.toWellFormed === 'function') return native.isWellFormed() ? text : native.toWellFormed();
  return LONE_SURROGATE.test(text) ? text.replace(LONE_SURROGATES, '\uFFFD') : text;
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
  if (result !== null && typeof result === 'object' && Array.isArray(result.content) && isPlainText(result)) {
    let bits = 0;
    let units = 0;
    const content = result.content.map((block) => {
      const [text, found] = stripText(block.text as string);
      bits |= found;
      units += text.length;
      return { type: 'text', text };
    });
    if (fitsCap(result.content as unknown as { text: string }[], content, units, maxBytes)) {
      const flags = namesOf(bits);
      const shaped: CallToolResult = { content };
      if (result.isError !== undefined) shaped.isError = result.isError;
      shaped.provenance = { serverId, truncated: false, flags };
      return { result: shaped, flags, truncated: false };
    }
    // Near the cap: the core cuts, carrying the flags found so far in `provenance`.
    return shapeInCore({ ...result, content, provenance: { flags: namesOf(bits) } }, serverId, maxBytes);
  }
  return shapeInCore(result, serverId, maxBytes);
}

const BEYOND_LATIN1 = /[^\0-\xFF]/;

/**
 * Whether the stripped text blocks `content` (`units` UTF-16 units in all) fit in `maxBytes`
 * UTF-8 bytes, so the cap cannot bite and the core need not see them. A unit is at most 3
 * bytes. Stripping only removes characters (each above U+00FF), so a test on the `originals`
 * (flat strings, unlike the stripped ropes) is enough when it passes: with nothing above U+00FF
 * they are unchanged and at most 2 bytes a unit (V8 answers that regex on a one-byte string
 * without scanning it); otherwise their bytes are counted, and only when they are over, the
 * stripped text's.
 */
function fitsCap(originals: { text: string }[], content: { text: string }[], units: number, maxBytes: number): boolean {
  if (units * 3 <= maxBytes) return true;
  if (units > maxBytes) return false;
  if (units * 2 <= maxBytes && originals.every((block) => !BEYOND_LATIN1.test(block.text))) return true;
  const within = (blocks: { text: string }[]) => {
    let bytes = 0;
    for (const { text } of blocks) {
      bytes += utf8Length(text);
      if (bytes > maxBytes) return false;
    }
    return true;
  };
  return within(originals) || within(content);
}

const nodeBuffer = (globalThis as { Buffer?: { byteLength(text: string, encoding: 'utf8'): number } }).Buffer;

/** UTF-8 bytes of `text`, a lone surrogate counting as U+FFFD (3 bytes), as in the core. */
function utf8Length(text: string): number {
  if (nodeBuffer) return nodeBuffer.byteLength(text, 'utf8');
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) continue;
    if (unit < 0x800) bytes += 1;
    else if (unit >= 0xd800 && unit <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      // A pair: 4 bytes for its 2 units.
      bytes += 2;
      i++;
    } else bytes += 2;
  }
  return bytes;
}

/** Shapes a whole result in the core (also the path a result near the cap takes). */
export function shapeInCore(result: unknown, serverId: string, maxBytes: number): ShapedResult {
  let json: string;
  try {
    json = JSON.stringify(result) ?? 'null';
    // JSON.stringify writes a lone surrogate as a `\udXXX` escape (pairs stay raw), which the
    // core's JSON parser rejects: write the result again with such strings made well-formed.
    // (An escaped backslash before "ud8…" matches too; that only costs the second pass.)
    if (/\\ud[89a-f]/i.test(json)) json = JSON.stringify(result, wellFormedStrings) ?? 'null';
  } catch {
    // A cycle or a BigInt: the core shapes it as an invalid result.
    json = 'null';
  }
  // The core takes the cap as a u32; no JS string is long enough for a larger cap to bite.
  const cap = Math.min(Math.max(0, Math.floor(maxBytes)), 0xffff_ffff);
  return JSON.parse(core.shapeResult(json, serverId, cap)) as ShapedResult;
}

/** A `JSON.stringify` replacer that makes every string value and key well-formed. */
function wellFormedStrings(this: unknown, _key: string, value: unknown): unknown {
  if (typeof value === 'string') return wellFormed(value);
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const keys = Object.keys(value);
    if (keys.some((key) => wellFormed(key) !== key)) {
      return Object.fromEntries(keys.map((key) => [wellFormed(key), (value as Record<string, unknown>)[key]]));
    }
  }
  return value;
}
