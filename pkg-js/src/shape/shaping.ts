// Shaping a result for a model: the rules live in the Rust crate (`src/shape/`); this file runs
// them and decides what crosses the boundary, so that shaping costs what is kept, not what a tool
// returned. Below, "the core" is the module that shapes: the shaping module
// (`wasm/shape/`, in a chunk of its own, `shape-module.ts`), or, on a page that
// validates with a JSON Schema, the validator module, which shapes too (one download instead of
// two, sharing what both carry: bench/RESULTS.md, "Patterns"). `shape-loader.ts` picks it once loaded
// (`start`, a `ShapingExports`).
//
// This file is part of the pipeline chunk (`shape-loader.ts` imports it; `register()` starts loading
// the chunk, a call that shapes awaits it before its answer).
//
// - Plain text that fits the cap (the common case) never crosses unless it may hold a removable
//   character: a regex the core supplies finds such characters, and only they cross, with the
//   neighbours the core's rules read, coming back as edit positions (`scanText`), not as a new
//   string.
// - Everything else crosses as one wire buffer (`shapeResult`), prepared here so that it is
//   bounded by the cap: block strings are stripped as above, a text longer than the cap could keep sends
//   only its first bytes, media that cannot fit sends no data, blocks past the core's limit are
//   not sent, and a `structuredContent` whose JSON passes the cap plus a slack is not sent. The
//   core is told what was left out (`src/shape/request.rs`) and answers exactly as it would for
//   the whole result (the tests compare both routes, `shapeReference` being the whole one).
//
// Lone surrogates become U+FFFD on every path, so a shaped result is always well-formed text.
//
// A trapped instance is replaced by its owner (the module's guard: `shape-module.ts`,
// `validator-module.ts`). Shaping keeps nothing between crossings, so there is nothing to replay.
import { SKIP, Unsayable, Unsupported, isContainer, jsonView, ownMember, walkJson, type JsonSink } from '../util/json-walk.js';
import { utf8Length, wellFormed } from '../util/unicode.js';
import type { ShapingExports } from '../types/internal.js';
import type { CallToolResult } from '../types/types.js';
import { Tag, Writer, decode } from '../boundary/wire.js';
import type { ShapeResultAnswer } from '../boundary/answers.js';

/** What the package's calls use of shaping (`shape-loader.ts` answers it once started). */
export interface Shaping {
  /** Shapes a result for a model ({@link shapeForModel}). */
  shapeForModel: typeof shapeForModel;
  /** Removes hidden text from one string ({@link stripText}). */
  stripText: typeof stripText;
}

export type { ShapingExports };

/** The module that shapes: the page's one instance, for every client (shaping reads no client's state). */
let shapingModule: ShapingExports | undefined;

/** Shapes with `shapes`, the module `shape-loader.ts` loaded (the shaping module's or the validator's exports). */
export function start(shapes: ShapingExports): void {
  shapingModule = shapes;
}

/** The module that shapes, once started. */
function current(): ShapingExports {
  if (shapingModule === undefined) throw new Error('webmcp-warden: the shaping module is not loaded yet');
  return shapingModule;
}

/** The shaping exports of the module that shapes (tests and benchmarks wrap these). */
export const shaper = {
  scanText: (text: string): Uint32Array => current().scanText(text),
  shapeFlagNames: () => current().shapeFlagNames(),
  shapeLimits: (): Uint32Array => current().shapeLimits(),
  shapeMediaKinds: (mime: string) => current().shapeMediaKinds(mime),
  shapeResult: (request: Uint8Array): Uint8Array => current().shapeResult(request),
  /** Forces a trap (tests of the recovery only). */
  testTrap: () => current().testTrap(),
};

/**
 * The size of the live instance's linear memory in bytes (0 before the first crossing). Wasm
 * memory only grows, so tests read it before and after a large result to show what shaping keeps.
 */
export function shaperMemoryBytes(): number {
  return shapingModule === undefined ? 0 : shapingModule.memoryBytes();
}

/** A result shaped for a model, with what shaping did. */
export interface ShapedResult {
  /** The result, with `provenance`. */
  result: CallToolResult;
  /** The flags set (`bidi`, `zero_width`, `tag_chars`, `variation_selectors`, `controls`, `other_invisible`, `media_dropped`, `unsupported_content`, `oversized`). */
  flags: string[];
  /** Whether the result was cut (at the byte cap, or at a limit). */
  truncated: boolean;
}

/** What crossed into the core to shape whole results (read by tests and benchmarks). */
export const shapeStats = { crossings: 0, bytesSent: 0 };

// The shaping module's tables, read from it at first use: the page's, like the module.
let candidate: RegExp | undefined;
let candidateFinder: RegExp = /$^/gu;
let flagNames: string[] = [];
let knownFlags = new Set<string>();
let limits = { maxBlocks: 1000, structuredSlack: 4096, maxMimeBytes: 256, maxDepth: 128 };
/** `limits.maxBlocks`, read on the fast path. */
let maxBlocksLimit = 1000;

function candidates(): RegExp {
  if (candidate === undefined) {
    flagNames = shaper.shapeFlagNames().split(',');
    knownFlags = new Set(flagNames);
    // The limits, then the ranges of characters the core may remove or replace: the regex that
    // finds candidates is written from the core's own table, so the two agree whatever Unicode
    // version the page's RegExp knows.
    const [maxBlocks, structuredSlack, maxMimeBytes, maxDepth, ...ranges] = shaper.shapeLimits();
    let source = '';
    for (let i = 0; i + 1 < ranges.length; i += 2) source += `\\u{${(ranges[i] as number).toString(16)}}-\\u{${(ranges[i + 1] as number).toString(16)}}`;
    candidate = new RegExp(`[${source}]`, 'u');
    candidateFinder = new RegExp(candidate.source, 'gu');
    limits = { maxBlocks: maxBlocks as number, structuredSlack: structuredSlack as number, maxMimeBytes: maxMimeBytes as number, maxDepth: maxDepth as number };
    maxBlocksLimit = limits.maxBlocks;
  }
  return candidate;
}

function namesOf(bits: number): string[] {
  // Clean text is the common case: no filter pass for it.
  return bits === 0 ? [] : flagNames.filter((_, i) => bits & (1 << i));
}

/** The most UTF-16 units one crossing of `scanText` carries: wasm memory only grows, so a long dirty text crosses in parts. */
const BATCH_UNITS = 32_768;
/** A start in `scanText`'s answer with this bit set: the unit becomes LF (`shape::NEWLINE_MARK`). */
const NEWLINE_MARK = 0x8000_0000;

// Positions in well-formed text, where a low surrogate always closes a pair.
const isLow = (text: string, i: number) => (text.charCodeAt(i) & 0xfc00) === 0xdc00;
/** The start of the character before position `i`, or 0. */
const back = (text: string, i: number) => Math.max(0, i - (isLow(text, i - 1) ? 2 : 1));
/** The end of the character at position `i`, or the text's length. */
const forward = (text: string, i: number) => Math.min(text.length, i + (isLow(text, i + 1) ? 2 : 1));

/** Removes what shaping removes from one string (and makes line separators LF); returns it and the flag bits. */
export function stripText(text: string): [string, number] {
  if (typeof text !== 'string') return [text, 0];
  // Lone surrogates first: with them gone the text crosses as UTF-8 (fast), positions stay
  // aligned, and no removal can join two halves into a new character.
  const whole = wellFormed(text);
  if (!candidates().test(whole)) return [whole, 0];
  const edits = scanEdits(whole);
  let out = '';
  let from = 0;
  for (let i = 1; i + 1 < edits.length; i += 2) {
    const start = edits[i] as number;
    out += whole.slice(from, start & ~NEWLINE_MARK) + (start & NEWLINE_MARK ? '\n' : '');
    from = edits[i + 1] as number;
  }
  return [out + whole.slice(from), edits[0] as number];
}

/**
 * The core's edits of well-formed `text` (`[flagBits, start0, end0, start1, end1, …]`),
 * with only what may change crossing: each candidate with the characters its rules read (two
 * before it, one after it; `src/shape/text.rs`), as a window that keeps the edits of that one
 * candidate. Windows are joined by spaces (which no rule reads as anything but "no neighbour")
 * into crossings of at most `BATCH_UNITS`. A 1 MiB text with a few hidden characters then costs
 * a regex pass, not a 1 MiB copy into the core; densely dirty text (a candidate in every 16
 * units) crosses whole instead, in windows of `BATCH_UNITS` with their context.
 */
function scanEdits(text: string): number[] {
  const edits: number[] = [0];
  // The pending crossing, and per window where it starts in it, where in `text`, and the span it keeps.
  let batch = '';
  let windows: number[] = [];
  const flush = () => {
    const scan = shaper.scanText(batch);
    let k = 0;
    // Each edit: start (with the LF mark), end, the flag bit of its class. Only the edits of a
    // window's own span are kept, and only their flags: a context character at a window's edge
    // may be judged without its own context.
    for (let i = 1; i + 2 < scan.length; i += 3) {
      const mark = (scan[i] as number) & NEWLINE_MARK;
      const start = (scan[i] as number) & ~NEWLINE_MARK;
      while (k + 4 < windows.length && (windows[k + 4] as number) <= start) k += 4;
      const shift = (windows[k + 1] as number) - (windows[k] as number);
      const from = Math.max(start + shift, windows[k + 2] as number);
      const to = Math.min((scan[i + 1] as number) + shift, windows[k + 3] as number);
      if (from >= to) continue;
      edits[0] = (edits[0] as number) | (scan[i + 2] as number);
      // Removals that touch merge; a replacement stays on its own.
      const last = edits.length - 1;
      if (!mark && last > 0 && edits[last] === from && !((edits[last - 1] as number) & NEWLINE_MARK)) edits[last] = to;
      else edits.push(from | mark, to);
    }
    batch = '';
    windows = [];
  };
  const add = (keep: number, keepTo: number) => {
    const from = back(text, back(text, keep));
    const to = forward(text, keepTo);
    if (batch.length + to - from >= BATCH_UNITS) flush();
    windows.push(batch.length, from, keep, keepTo);
    batch += text.slice(from, to) + ' ';
  };
  const finder = candidateFinder;
  let found = 0;
  finder.lastIndex = 0;
  // `test` with the `g` flag moves `lastIndex` past the match without building a match array.
  while (finder.test(text)) {
    if (++found > (text.length >> 4) + 64) {
      // Densely dirty: all of it crosses (what crossed so far is answered again).
      edits.length = 1;
      edits[0] = 0;
      batch = '';
      windows = [];
      for (let keep = 0; keep < text.length; ) {
        const keepTo = Math.min(text.length, keep + BATCH_UNITS - 8);
        const end = isLow(text, keepTo) ? keepTo + 1 : keepTo;
        add(keep, end);
        keep = end;
      }
      break;
    }
    const end = finder.lastIndex;
    // A match is one character: two units when astral.
    add(isLow(text, end - 1) ? end - 2 : end - 1, end);
  }
  finder.lastIndex = 0;
  flush();
  return edits;
}

/**
 * Whether a result is plain text blocks `{ type: 'text', text }` (at most `isError` beside
 * `content`), within the block limit, and read by `JSON.stringify` as it is read here (no
 * `toJSON`; the cheapest check that keeps this path's answer the core's: measured, a prototype
 * check cost a fifth of the clean-text case).
 */
function isPlainText(result: CallToolResult): boolean {
  if (result === null || typeof result !== 'object' || !Array.isArray(result.content) || result.content.length > maxBlocksLimit || typeof result.toJSON === 'function') return false;
  for (const key in result) {
    if (key !== 'content' && key !== 'isError') return false;
  }
  for (const block of result.content) {
    if (block === null || typeof block !== 'object' || block.type !== 'text' || typeof block.text !== 'string' || typeof block.toJSON === 'function') return false;
    for (const key in block) if (key !== 'type' && key !== 'text') return false;
  }
  return true;
}

/** Shapes a normalized result for a model, as the core's rules say. Never throws. */
export function shapeForModel(result: CallToolResult, serverId: string, maxBytes: number): ShapedResult {
  candidates();
  let plain = false;
  try {
    plain = isPlainText(result);
  } catch {
    // A getter or proxy threw: the core route reads it safely.
  }
  if (plain) {
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
      // Truthiness, as the core keeps it: a tool error never reads as a success.
      if (result.isError !== undefined) shaped.isError = Boolean(result.isError);
      shaped.provenance = { serverId, truncated: false, flags };
      return { result: shaped, flags, truncated: false };
    }
    // Near the cap: the core cuts the text stripped here, carrying the flags found so far.
    const stripped: CallToolResult = { content };
    if (result.isError !== undefined) stripped.isError = result.isError;
    return coreRoute(stripped, serverId, maxBytes, bits);
  }
  return coreRoute(result, serverId, maxBytes, 0);
}

const BEYOND_LATIN1 = /[^\0-\xFF]/;

/**
 * Whether the stripped text blocks `content` (`units` UTF-16 units in all) fit in `maxBytes`
 * UTF-8 bytes, so the cap cannot bite and the core need not see them. A unit is at most 3
 * bytes. Stripping only removes characters or makes a line separator LF, so it never adds a
 * byte and a test on the `originals` (flat strings, unlike the stripped ropes) is enough when it
 * passes: with nothing above U+00FF neither they nor what stripping leaves of them takes more
 * than 2 bytes a unit (V8 answers that regex on a one-byte string without scanning it);
 * otherwise their bytes are counted, and only when they are over, the stripped text's.
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

/** Shapes a whole result in the core, sending only what the cap can keep (the route of everything but plain text that fits). */
export function shapeInCore(result: unknown, serverId: string, maxBytes: number): ShapedResult {
  candidates();
  return coreRoute(result, serverId, maxBytes, 0);
}

/**
 * Shapes a result in the core with *everything* sent as `JSON.stringify` sees it, and no
 * limit applied here: the reference the bounded route must agree with. For tests; its cost is
 * the whole result.
 */
export function shapeReference(result: unknown, serverId: string, maxBytes: number): ShapedResult {
  candidates();
  const w = new Writer();
  const numbers: number[] = [];
  const sink = new WireSink(w, numbers);
  const request = new ObjectWriter(w);
  request.member('result', () => {
    const root = jsonView(result, '');
    if (!isContainer(root) || Array.isArray(root)) {
      walkJson(root, sink, { maxDepth: limits.maxDepth });
      return;
    }
    const out = new ObjectWriter(w);
    for (const key of Object.keys(root)) {
      if (key === 'isError') {
        const isError = truthyMember(root, 'isError');
        if (isError !== undefined) out.member(key, () => w.byte(isError ? Tag.TRUE : Tag.FALSE));
        continue;
      }
      const item = ownMember(root, key);
      if (item !== SKIP) out.member(key, () => walkJson(item, sink, { maxDepth: limits.maxDepth }));
    }
    out.end();
  });
  writeSettings(request, serverId, maxBytes, { omitted: [], surplus: 0, structuredOver: false, numbers });
  request.end();
  return cross(w.done());
}

/** Writes an object member by member; the count goes in at the end. */
class ObjectWriter {
  readonly #at: number;
  #members = 0;
  constructor(readonly w: Writer) {
    w.byte(Tag.OBJECT);
    this.#at = w.slot();
  }
  member(key: string, write: () => void): void {
    this.w.string(key);
    write();
    this.#members++;
  }
  string(key: string, value: string): void {
    this.member(key, () => {
      this.w.byte(Tag.STRING);
      this.w.string(value);
    });
  }
  end(): void {
    this.w.patch(this.#at, this.#members);
  }
}

/** Writes a walk onto the wire, noting the JS text length of numbers the core cannot format. */
class WireSink implements JsonSink {
  private readonly slots: number[] = [];
  constructor(
    private readonly w: Writer,
    private readonly numbers: number[],
  ) {}
  null(): void {
    this.w.byte(Tag.NULL);
  }
  bool(value: boolean): void {
    this.w.byte(value ? Tag.TRUE : Tag.FALSE);
  }
  number(value: number): void {
    this.w.number(value);
    // The core writes integers below 1e21 itself (their text is their digits).
    if (!Number.isInteger(value) || Math.abs(value) >= 1e21) this.numbers.push(value, String(value).length);
  }
  string(value: string): void {
    this.w.byte(Tag.STRING);
    this.w.string(value);
  }
  unsupported(what: string): void {
    this.w.byte(Tag.UNSUPPORTED);
    this.w.string(what);
  }
  array(length: number): void {
    this.w.byte(Tag.ARRAY);
    this.w.count(length);
  }
  endArray(): void {}
  object(): void {
    this.w.byte(Tag.OBJECT);
    this.slots.push(this.w.slot());
  }
  key(key: string): void {
    this.w.string(key);
  }
  endObject(members: number): void {
    this.w.patch(this.slots.pop() as number, members);
  }
}

/** What the request says beside the result. */
interface Settings {
  omitted: number[];
  surplus: number;
  structuredOver: boolean;
  numbers: number[];
}

function writeSettings(request: ObjectWriter, serverId: string, maxBytes: number, settings: Settings): void {
  const { w } = request;
  request.string('serverId', serverId);
  // A whole number up to 2^53 - 1 (configuration checks it); the core saturates past usize.
  request.member('maxBytes', () => w.number(Math.min(Math.max(0, Math.floor(maxBytes)), Number.MAX_SAFE_INTEGER)));
  const numbers = (key: string, list: number[]) => {
    if (list.length === 0) return;
    request.member(key, () => {
      w.byte(Tag.ARRAY);
      w.count(list.length);
      for (const n of list) w.number(n);
    });
  };
  numbers('omitted', settings.omitted);
  numbers('numbers', settings.numbers);
  if (settings.surplus > 0) request.member('surplusBlocks', () => w.number(settings.surplus));
  if (settings.structuredOver) request.member('structuredOverLimit', () => w.byte(Tag.TRUE));
}

function cross(request: Uint8Array): ShapedResult {
  shapeStats.crossings++;
  shapeStats.bytesSent += request.length;
  const result = decode(shaper.shapeResult(request)) as ShapeResultAnswer;
  return { result, flags: result.provenance.flags, truncated: result.provenance.truncated };
}

/** `Boolean(holder[key])` for an own member, `undefined` when there is none or it is `undefined`; one that cannot be read counts as `true` (an error flag is never lost). */
function truthyMember(holder: object, key: string): boolean | undefined {
  try {
    if (!Object.prototype.propertyIsEnumerable.call(holder, key)) return undefined;
    const value = (holder as Record<string, unknown>)[key];
    return value === undefined ? undefined : Boolean(value);
  } catch {
    return true;
  }
}

/** Fields of a block whose end may not be sent (`shape::Field`). */
const Field = { Text: 0, Data: 1, Uri: 2, Name: 3 } as const;

const BASE64ISH = /^[A-Za-z0-9+/\-_= \t\r\n]*$/;

/** Strips strings as the core does, remembering the flags of what it removed. */
class Stripper {
  constructor(private bits: number) {}

  strip(text: string): string {
    const [out, bits] = stripText(text);
    this.bits |= bits;
    return out;
  }

  /** The flag bits of everything removed, and those carried in. */
  flagBits(): number {
    return this.bits;
  }
}

/**
 * Position `k` of stripped `text`, moved on past the second half of a pair and past characters
 * the core may remove: a prefix ending there is one the core strips to itself (no character
 * kept for its neighbour ends it), so it measures as the whole text's first part.
 */
function stableCut(text: string, k: number): number {
  if (isLow(text, k)) k++;
  while (k < text.length && (candidate as RegExp).test(text.slice(back(text, k), k))) k = forward(text, k);
  return k;
}

/** A text field as sent: all of it when it may fit, else a prefix longer than the room left, and how many bytes were left out. */
interface Sent {
  send: string;
  /** UTF-8 bytes of the whole field, stripped. */
  bytes: number;
  omitted: number;
}

/**
 * One request being written: the bounded preparation of a result. `lb` is a lower bound of
 * the bytes the core will have kept before the current block, if it has not cut yet: once it
 * passes the cap the core has certainly cut, and later fields send only their sizes.
 */
class Preparation {
  readonly w = new Writer();
  readonly omitted: number[] = [];
  readonly numbers: number[] = [];
  surplus = 0;
  structuredOver = false;
  lb = 0;
  readonly stripper: Stripper;

  constructor(
    readonly cap: number,
    carriedBits: number,
  ) {
    this.stripper = new Stripper(carriedBits);
  }

  /** Bytes a field must send so that the core's cut falls inside it: one more than any room it can find. */
  need(): number {
    return this.cap - this.lb + 1;
  }

  omit(block: number, field: number, bytes: number): void {
    if (bytes > 0) this.omitted.push(block, field, bytes);
  }

  str(value: string): void {
    this.w.byte(Tag.STRING);
    this.w.string(value);
  }

  text(raw: string, need: number): Sent {
    const stripped = this.stripper.strip(raw);
    const bytes = utf8Length(stripped);
    if (bytes < need) return { send: stripped, bytes, omitted: 0 };
    if (need <= 0) return { send: '', bytes, omitted: bytes };
    // `need` units are at least `need` bytes.
    const k = stableCut(stripped, Math.min(stripped.length, need));
    const send = stripped.slice(0, k);
    return { send, bytes, omitted: k === stripped.length ? 0 : bytes - utf8Length(send) };
  }

  /** A `mimeType`, stripped; over the core's limit, cut to a length that is still over it (the block is malformed either way). */
  mime(raw: string): { send: string; bytes: number; ok: boolean } {
    const stripped = this.stripper.strip(raw);
    const bytes = utf8Length(stripped);
    if (bytes <= limits.maxMimeBytes) return { send: stripped, bytes, ok: true };
    return { send: stripped.slice(0, stableCut(stripped, limits.maxMimeBytes + 1)), bytes, ok: false };
  }

  /**
   * `data` or `blob` as sent: whole when it may be kept and fit; `''` when it becomes a notice
   * whatever it holds, or (with its length omitted) when it is base64 that cannot fit; `'!'`
   * when it is not base64 (a notice, whatever the rest holds). Also answers the bytes the core
   * will count for it if it keeps it (0 when it becomes a notice: a lower bound).
   */
  data(block: number, data: string, kept: boolean, need: number, before: number): [string, number] {
    if (data.length === 0) return [data, 0];
    if (need > 0 && !kept) return ['', 0];
    const base64 = BASE64ISH.test(data);
    if (!base64) return ['!', 0];
    const counted = kept ? data.length : 0;
    if (need > 0 && before + data.length < need) return [data, counted];
    this.omit(block, Field.Data, data.length);
    return ['', counted];
  }
}

/** The bounded route: prepares the request, crosses once, decodes the answer. */
function coreRoute(result: unknown, serverId: string, maxBytes: number, carriedBits: number): ShapedResult {
  const cap = Math.min(Math.max(0, Math.floor(maxBytes)), Number.MAX_SAFE_INTEGER);
  const p = new Preparation(cap, carriedBits);
  const request = new ObjectWriter(p.w);
  request.member('result', () => writeResult(p, jsonView(result, '')));
  writeSettings(request, serverId, cap, { omitted: p.omitted, surplus: p.surplus, structuredOver: p.structuredOver, numbers: p.numbers });
  request.end();
  return cross(p.w.done());
}

function writeResult(p: Preparation, root: unknown): void {
  const { w } = p;
  if (!isContainer(root) || Array.isArray(root)) {
    // Not a result: the core answers its notice (and no isError).
    w.byte(Tag.NULL);
    return;
  }
  const out = new ObjectWriter(w);
  const isError = truthyMember(root, 'isError');
  if (isError !== undefined) out.member('isError', () => w.byte(isError ? Tag.TRUE : Tag.FALSE));
  const content = ownMember(root, 'content');
  let length = -1;
  if (isContainer(content)) {
    try {
      if (Array.isArray(content)) length = content.length >>> 0;
    } catch {
      length = -1;
    }
  }
  if (length < 0) {
    // No content array: the core answers its notice, keeping isError.
    out.end();
    return;
  }

  // What an earlier shaping recorded: only its known flags and whether it cut.
  const provenance = ownMember(root, 'provenance');
  let cutBefore = false;
  const carried = new Set<string>();
  if (isContainer(provenance) && !Array.isArray(provenance)) {
    cutBefore = ownMember(provenance, 'truncated') === true;
    const names = ownMember(provenance, 'flags');
    let count = 0;
    try {
      if (isContainer(names) && Array.isArray(names)) count = names.length >>> 0;
    } catch {
      count = 0;
    }
    for (let i = 0; i < count; i++) {
      let name: unknown;
      try {
        name = jsonView((names as unknown[])[i], String(i));
      } catch {
        continue;
      }
      if (typeof name === 'string' && knownFlags.has(name)) carried.add(name);
    }
  }

  // Blocks past the limit are not sent (a result cut before may hold one more: its notice).
  const over = length > limits.maxBlocks + (cutBefore ? 1 : 0);
  const count = over ? limits.maxBlocks : length;
  p.surplus = length - count;
  out.member('content', () => {
    w.byte(Tag.ARRAY);
    w.count(count);
    for (let i = 0; i < count; i++) {
      let block: unknown;
      try {
        block = jsonView((content as unknown[])[i], String(i));
      } catch {
        block = new Unsupported(Unsayable.unreadable);
      }
      // The last block of a result cut before may be that shaping's notice: sent whole, so the core can recognise it.
      const notice = cutBefore && !over && i === count - 1;
      p.lb += writeBlock(p, block, i, root, notice);
    }
  });

  const structured = ownMember(root, 'structuredContent');
  if (structured !== SKIP && structured !== null) {
    // Walked into a writer of its own: a walk that passes the limit is dropped whole.
    const sw = new Writer();
    const numbers: number[] = [];
    const walked = walkJson(structured, new WireSink(sw, numbers), { maxDepth: limits.maxDepth, budget: p.cap + limits.structuredSlack });
    if (walked.over) p.structuredOver = true;
    else if (!walked.skipped) {
      out.member('structuredContent', () => w.append(sw.done()));
      p.numbers.push(...numbers);
    }
  }

  const bits = p.stripper.flagBits();
  for (const name of namesOf(bits)) carried.add(name);
  out.member('provenance', () => {
    const prov = new ObjectWriter(w);
    if (cutBefore) prov.member('truncated', () => w.byte(Tag.TRUE));
    prov.member('flags', () => {
      w.byte(Tag.ARRAY);
      w.count(carried.size);
      for (const name of carried) p.str(name);
    });
    prov.end();
  });
  out.end();
}

/**
 * Writes one block as the core needs it: the fields its type reads, stripped, cut or stubbed
 * as {@link Preparation} says; nothing else. Answers a lower bound of the bytes the core will
 * count for it.
 */
function writeBlock(p: Preparation, block: unknown, index: number, root: object, notice: boolean): number {
  const { w } = p;
  // Not an object, or one `JSON.stringify` would call cyclic: the core's unsupported notice either way.
  if (!isContainer(block) || Array.isArray(block) || block === root) {
    w.byte(Tag.NULL);
    return 0;
  }
  const need = p.need();
  const out = new ObjectWriter(w);
  const type = ownMember(block, 'type');
  // A known type is short; a longer one is unknown and unquoted by the core, cut or not.
  if (typeof type === 'string') out.string('type', type.length > 65 ? type.slice(0, 65) : type);
  let size = 0;
  switch (type) {
    case 'text': {
      const text = ownMember(block, 'text');
      if (typeof text === 'string') {
        const sent = p.text(text, notice && text.length <= 128 ? Infinity : need);
        out.string('text', sent.send);
        p.omit(index, Field.Text, sent.omitted);
        size = sent.bytes;
      }
      break;
    }
    case 'image':
    case 'audio': {
      const mime = ownMember(block, 'mimeType');
      const data = ownMember(block, 'data');
      let kept = false;
      if (typeof mime === 'string') {
        const m = p.mime(mime);
        out.string('mimeType', m.send);
        // Asked only while the cap may still keep something: data that becomes a notice never crosses.
        if (need > 0 && m.ok && typeof data === 'string' && data.length > 0) kept = (shaper.shapeMediaKinds(m.send) & (type === 'image' ? 1 : 2)) !== 0;
      }
      if (typeof data === 'string') {
        const [send, counted] = p.data(index, data, kept, need, 0);
        out.string('data', send);
        size = counted;
      }
      break;
    }
    case 'resource': {
      const resource = ownMember(block, 'resource');
      if (!isContainer(resource) || Array.isArray(resource) || resource === block || resource === root) {
        out.member('resource', () => w.byte(Tag.NULL));
        break;
      }
      out.member('resource', () => {
        const r = new ObjectWriter(w);
        const uri = ownMember(resource, 'uri');
        const mime = ownMember(resource, 'mimeType');
        const text = ownMember(resource, 'text');
        const blob = ownMember(resource, 'blob');
        let u: Sent | undefined;
        let m: { send: string; bytes: number; ok: boolean } | undefined;
        if (typeof uri === 'string') {
          u = p.text(uri, need);
          r.string('uri', u.send);
          p.omit(index, Field.Uri, u.omitted);
        }
        if (typeof mime === 'string') {
          m = p.mime(mime);
          r.string('mimeType', m.send);
        }
        if (typeof text === 'string') {
          const t = p.text(text, need);
          r.string('text', t.send);
          p.omit(index, Field.Text, t.omitted);
          if (u && (m === undefined || m.ok)) size = u.bytes + (m?.bytes ?? 0) + t.bytes;
        } else if (typeof blob === 'string') {
          let kept = false;
          if (u && need > 0 && m?.ok && blob.length > 0) kept = (shaper.shapeMediaKinds(m.send) & 1) !== 0;
          // A URI cut short cannot fit: the blob is then sent as if it could not either.
          const before = u ? (u.omitted > 0 ? need : u.bytes) : 0;
          const [send, counted] = p.data(index, blob, kept, need, before);
          r.string('blob', send);
          if (counted > 0 && u) size = u.bytes + counted;
        }
        r.end();
      });
      break;
    }
    case 'resource_link': {
      const uri = ownMember(block, 'uri');
      const name = ownMember(block, 'name');
      let u: Sent | undefined;
      let n: Sent | undefined;
      if (typeof uri === 'string') {
        u = p.text(uri, need);
        out.string('uri', u.send);
        p.omit(index, Field.Uri, u.omitted);
      }
      if (typeof name === 'string') {
        n = p.text(name, need);
        out.string('name', n.send);
        p.omit(index, Field.Name, n.omitted);
      }
      // "[resource link: " + name + " " + uri + "]"
      if (u) size = 17 + u.bytes + (n ? n.bytes + 1 : 0);
      break;
    }
    default:
      break;
  }
  out.end();
  return size;
}
