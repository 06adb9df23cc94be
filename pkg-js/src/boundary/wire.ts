// The wire format: how a value crosses to the core and back, as one byte buffer each way.
// The other half, with the grammar, is `src/wire.rs`; `ARCHITECTURE.md` ("Crossing the boundary") says why it is not
// JSON text (the core would need a JSON parser and float formatting, most of its bytes).
import { typeName } from '../util/js-values.js';

const NULL = 0;
const FALSE = 1;
const TRUE = 2;
const NUMBER = 3;
const STRING = 4;
const ARRAY = 5;
const OBJECT = 6;
const FUNCTION = 7;
const REGEX = 8;
const UNSUPPORTED = 9;

/** The tags of the wire grammar, for writers other than {@link encode} (shaping writes its own). */
export const Tag = { NULL, FALSE, TRUE, NUMBER, STRING, ARRAY, OBJECT, UNSUPPORTED } as const;

/** The deepest nesting the core decodes (`wire::MAX_DEPTH`). */
const WIRE_MAX_DEPTH = 160;

/** How {@link encode} treats what JSON cannot say. */
export interface EncodeOptions {
  /**
   * The handle of a JS function the TS layer keeps (configuration holding hooks or predicates).
   * Without it, a function is an unsupported value.
   */
  fn?: (f: (...args: never[]) => unknown) => number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A growable byte buffer in the wire format. */
export class Writer {
  // Typed without a buffer parameter, so that the declarations read on TypeScript before 5.7.
  bytes: Uint8Array = new Uint8Array(256);
  view: DataView = new DataView(this.bytes.buffer);
  at = 0;

  reserve(n: number): void {
    if (this.at + n <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < this.at + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.bytes.subarray(0, this.at));
    this.bytes = next;
    this.view = new DataView(next.buffer);
  }

  byte(b: number): void {
    this.reserve(1);
    this.bytes[this.at++] = b;
  }

  count(n: number): void {
    this.reserve(5);
    do {
      let b = n & 0x7f;
      n >>>= 7;
      if (n !== 0) b |= 0x80;
      this.bytes[this.at++] = b;
    } while (n !== 0);
  }

  string(text: string): void {
    const length = text.length;
    // Most keys and values are short ASCII: written byte by byte, with a one-byte length,
    // they skip the encoder and its view of the buffer (measured twice as fast on arguments).
    if (length < 0x80) {
      this.reserve(1 + length);
      const bytes = this.bytes;
      let at = this.at + 1;
      let i = 0;
      for (; i < length; i++) {
        const unit = text.charCodeAt(i);
        if (unit >= 0x80) break;
        bytes[at++] = unit;
      }
      if (i === length) {
        bytes[this.at] = length;
        this.at = at;
        return;
      }
    }
    // UTF-8 takes at most three bytes per UTF-16 unit. The length goes first, so reserve the
    // widest count that length could need and pad it (LEB128 allows redundant groups).
    const max = length * 3;
    const width = max < 0x80 ? 1 : max < 0x4000 ? 2 : max < 0x200000 ? 3 : max < 0x10000000 ? 4 : 5;
    this.reserve(width + max);
    const start = this.at + width;
    const { written } = encoder.encodeInto(text, this.bytes.subarray(start));
    let n = written;
    for (let i = 0; i < width; i++) {
      this.bytes[this.at + i] = (n & 0x7f) | (i < width - 1 ? 0x80 : 0);
      n >>>= 7;
    }
    this.at = start + written;
  }

  number(n: number): void {
    this.reserve(9);
    this.bytes[this.at++] = NUMBER;
    this.view.setFloat64(this.at, n, true);
    this.at += 8;
  }

  /**
   * Reserves a count written later with {@link Writer.patch} (an object's member count, known
   * only once its members are written): five LEB128 groups, the widest a u32 needs.
   */
  slot(): number {
    this.reserve(5);
    const at = this.at;
    this.at += 5;
    return at;
  }

  /** Writes `n` into a {@link Writer.slot}, padded with redundant groups. */
  patch(at: number, n: number): void {
    for (let i = 0; i < 5; i++) {
      this.bytes[at + i] = (n & 0x7f) | (i < 4 ? 0x80 : 0);
      n >>>= 7;
    }
  }

  /** Appends bytes another writer wrote. */
  append(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.bytes.set(bytes, this.at);
    this.at += bytes.length;
  }

  done(): Uint8Array {
    return this.bytes.subarray(0, this.at);
  }
}

/**
 * Encodes a configuration value for the core: plain objects and arrays, strings, finite
 * numbers, booleans, `null`; functions (as handles, when `options.fn` is given) and RegExps as
 * typed tokens; anything else (a class instance, a BigInt, NaN, a cycle, a property whose getter
 * throws) as an unsupported value the core names in its error. Own enumerable keys only, each
 * read once; `undefined` members are left out, as JSON does. Never throws.
 */
export function encode(value: unknown, options: EncodeOptions = {}): Uint8Array {
  const out = new Writer();
  const ancestors = new Set<object>();
  const write = (v: unknown, depth: number): void => {
    if (v === UNREADABLE) {
      unsupported('an unreadable value (a getter or proxy threw)');
      return;
    }
    switch (typeof v) {
      case 'string':
        out.byte(STRING);
        out.string(v);
        return;
      case 'number':
        if (Number.isFinite(v)) out.number(v);
        else unsupported(String(v));
        return;
      case 'boolean':
        out.byte(v ? TRUE : FALSE);
        return;
      case 'function':
        if (options.fn) {
          out.byte(FUNCTION);
          out.count(options.fn(v as (...args: never[]) => unknown));
        } else unsupported('a function');
        return;
      case 'object':
        break;
      default:
        unsupported(typeName(v));
        return;
    }
    if (v === null) {
      out.byte(NULL);
      return;
    }
    let proto: unknown;
    let isArray: boolean;
    let regex: { source: string; flags: string } | undefined;
    try {
      // `instanceof` and the RegExp accessors run a proxy's traps: inside the try.
      if (v instanceof RegExp) regex = { source: v.source, flags: v.flags };
      proto = Object.getPrototypeOf(v);
      isArray = Array.isArray(v);
    } catch {
      unsupported('an unreadable value (a getter or proxy threw)');
      return;
    }
    if (regex !== undefined) {
      out.byte(REGEX);
      out.string(regex.source);
      out.string(regex.flags);
      return;
    }
    if (!isArray && proto !== Object.prototype && proto !== null) {
      unsupported('an object of a class (only plain objects are read)');
      return;
    }
    if (ancestors.has(v)) {
      unsupported('a cyclic object');
      return;
    }
    if (depth >= WIRE_MAX_DEPTH) {
      unsupported('a value nested too deep');
      return;
    }
    ancestors.add(v);
    try {
      if (isArray) {
        const items = v as unknown[];
        const length = read(items, 'length');
        if (typeof length !== 'number') {
          unsupported('an unreadable value (a getter or proxy threw)');
          return;
        }
        out.byte(ARRAY);
        out.count(length);
        for (let i = 0; i < length; i++) write(read(items, i), depth + 1);
      } else {
        const entries: [string, unknown][] = [];
        let keys: string[];
        try {
          keys = Object.keys(v);
        } catch {
          unsupported('an unreadable value (a getter or proxy threw)');
          return;
        }
        for (const key of keys) {
          const item = read(v as Record<string, unknown>, key);
          if (item !== undefined) entries.push([key, item]);
        }
        out.byte(OBJECT);
        out.count(entries.length);
        for (const [key, item] of entries) {
          out.string(key);
          write(item, depth + 1);
        }
      }
    } finally {
      ancestors.delete(v);
    }
  };
  const unsupported = (kind: string): void => {
    out.byte(UNSUPPORTED);
    out.string(kind);
  };
  write(value, 0);
  return out.done();
}

/**
 * Encodes JSON data, as `JSON.parse` returns it or as `toJson` vouched for it (plain objects and
 * arrays, strings, finite numbers, booleans, `null`; `undefined` members left out and
 * `undefined` items written `null`, as `JSON.stringify` does), for the validator module, which reads
 * JSON values only (`wire::decode_json`): its numbers then cross as the page's doubles exactly,
 * and the module parses none. Nesting deeper than the core decodes is cut there, as
 * {@link encode} cuts it (the module reports it as too deep), so the recursion stays bounded.
 *
 * The bytes are a view of one buffer this module reuses: valid until the next call, which is
 * all the validator needs (its glue copies them into wasm memory at once). A fresh buffer per
 * call cost more than the encoding itself (measured: bench/RESULTS.md, "Build choices, measured").
 */
export function encodeJson(value: unknown): Uint8Array {
  // A buffer a large argument grew is let go at the next call, not kept for the page's life.
  if (jsonScratch.bytes.length > 1 << 16) jsonScratch = new Writer();
  jsonScratch.at = 0;
  writeJson(jsonScratch, value, 0);
  return jsonScratch.done();
}

/** The page's scratch writer for {@link encodeJson}: an encoding runs to its end without yielding. */
let jsonScratch = new Writer();

function writeJson(out: Writer, v: unknown, depth: number): void {
  if (typeof v === 'string') {
    out.byte(STRING);
    out.string(v);
  } else if (typeof v === 'number') out.number(v);
  else if (typeof v === 'boolean') out.byte(v ? TRUE : FALSE);
  else if (v === null) out.byte(NULL);
  else if (depth >= WIRE_MAX_DEPTH) {
    out.byte(UNSUPPORTED);
    out.string('a value nested too deep');
  } else if (Array.isArray(v)) {
    out.byte(ARRAY);
    out.count(v.length);
    for (let i = 0; i < v.length; i++) {
      const item: unknown = v[i];
      if (item === undefined) out.byte(NULL);
      else writeJson(out, item, depth + 1);
    }
  } else if (v !== undefined) {
    const keys = Object.keys(v as object);
    out.byte(OBJECT);
    // Each member is read once; one whose value is `undefined` is left out, so the count is
    // written when known.
    const slot = out.slot();
    let members = 0;
    for (const key of keys) {
      const item = (v as Record<string, unknown>)[key];
      if (item === undefined) continue;
      out.string(key);
      writeJson(out, item, depth + 1);
      members++;
    }
    out.patch(slot, members);
  } else out.byte(NULL);
}

/** Marks a member whose getter threw: encoded as an unsupported value, never rethrown. */
const UNREADABLE = { unreadable: true };

function read(holder: Record<string | number, unknown> | unknown[], key: string | number): unknown {
  try {
    return (holder as Record<string | number, unknown>)[key];
  } catch {
    return UNREADABLE;
  }
}

/**
 * Decodes what the core answered. Objects are plain; a `__proto__` key stays an own property.
 * Functions come back as their handle, RegExps as `{ source, flags }` and unsupported values
 * as their description (the core sends none of these in answers today).
 */
export function decode(bytes: Uint8Array): unknown {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  const count = (): number => {
    let n = 0;
    let shift = 0;
    let b: number;
    do {
      b = bytes[at++] as number;
      n += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    return n;
  };
  const string = (): string => {
    const len = count();
    const text = decoder.decode(bytes.subarray(at, at + len));
    at += len;
    return text;
  };
  const value = (): unknown => {
    const tag = bytes[at++];
    switch (tag) {
      case NULL:
        return null;
      case FALSE:
        return false;
      case TRUE:
        return true;
      case NUMBER: {
        const n = view.getFloat64(at, true);
        at += 8;
        return n;
      }
      case STRING:
        return string();
      case ARRAY: {
        const n = count();
        const items: unknown[] = new Array(n);
        for (let i = 0; i < n; i++) items[i] = value();
        return items;
      }
      case OBJECT: {
        const n = count();
        const object: Record<string, unknown> = {};
        for (let i = 0; i < n; i++) {
          const key = string();
          const item = value();
          if (key === '__proto__') Object.defineProperty(object, key, { value: item, enumerable: true, writable: true, configurable: true });
          else object[key] = item;
        }
        return object;
      }
      case FUNCTION:
        return count();
      case REGEX: {
        const source = string();
        return { source, flags: string() };
      }
      case UNSUPPORTED:
        return string();
      default:
        throw new Error(`webmcp-warden: the core answered an unknown wire tag ${String(tag)} at byte ${at - 1}`);
    }
  };
  return value();
}
