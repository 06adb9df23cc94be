// A walk over a JS value with `JSON.stringify`'s semantics, for values that must become JSON but
// may hold what JSON cannot say. It reads what `JSON.stringify` reads (own enumerable keys,
// `toJSON`, boxed primitives; `undefined`, functions and symbols left out of objects and written
// as `null` in arrays; non-finite numbers as `null`), and where `JSON.stringify` would throw it
// reports the part instead (a cycle, a BigInt, a `toJSON` or getter that throws), as does an
// array or object nested `maxDepth` deep. What it found goes to a sink: the shaping request's
// wire writer (`shaping.ts`), or a plain JS copy (`normalize.ts`).
//
// It also measures what it walks as the core's `json_len` does (UTF-8 bytes of the compact JSON,
// a lone surrogate as U+FFFD, a reported part as its notice string) and stops at a budget, so a
// 40-million-number result costs the budget, not the result.
import { utf8Length } from './unicode.js';

/** What JSON cannot say, as the core's notices name it (`[<what> removed by the MCP client]`). */
export const Unsayable = {
  cycle: 'a cyclic reference',
  bigint: 'a BigInt',
  toJsonThrew: 'a value whose toJSON threw',
  unreadable: 'an unreadable value (a getter or proxy threw)',
  tooDeep: (levels: number) => `a value nested deeper than ${levels} levels`,
} as const;

/** The string that stands for a part JSON cannot say; the core writes the same (`shape::removed_notice`). */
export function removedNotice(what: string): string {
  return `[${what} removed by the MCP client]`;
}

/** A member `JSON.stringify` leaves out (`undefined`, a function, a symbol). */
export const SKIP: unique symbol = Symbol('skip');

/** A part JSON cannot say, with its description. */
export class Unsupported {
  constructor(readonly what: string) {}
}

/** Where a walk writes what it finds. Containers: `array(n)` then n values; `object()`, then `key` + value pairs, then `endObject(members)`. */
export interface JsonSink {
  null(): void;
  bool(value: boolean): void;
  number(value: number): void;
  string(value: string): void;
  unsupported(what: string): void;
  array(length: number): void;
  endArray(): void;
  object(): void;
  key(key: string): void;
  endObject(members: number): void;
}

/** Options of {@link walkJson}. */
export interface WalkOptions {
  /** Arrays and objects at this depth (the root is 0) are reported as too deep. */
  maxDepth: number;
  /** Stop once the measured JSON passes this many bytes (default: never). */
  budget?: number;
}

/** What a walk found. */
export interface Walked {
  /** The root is not written at all (`JSON.stringify` would give `undefined`). */
  skipped: boolean;
  /** The walk passed its budget and stopped; the sink holds a partial value. */
  over: boolean;
  /** UTF-8 bytes of the JSON measured (up to where it stopped). */
  bytes: number;
}

class OverBudget {}
/** The walk's signal that it passed its budget (`@__PURE__`: droppable by a page's bundler where unused). */
const OVER = /* @__PURE__ */ new OverBudget();

const propertyIsEnumerable = Object.prototype.propertyIsEnumerable;

/**
 * `JSON.stringify`'s view of `value` as the member `key` of its holder: `toJSON` applied, boxed
 * primitives unwrapped; {@link SKIP} for what it leaves out, {@link Unsupported} for what it
 * cannot say or cannot read. Never throws.
 */
export function jsonView(value: unknown, key: string): unknown {
  if (value !== null && (typeof value === 'object' || typeof value === 'bigint')) {
    let toJSON: unknown;
    try {
      toJSON = (value as { toJSON?: unknown }).toJSON;
    } catch {
      return new Unsupported(Unsayable.unreadable);
    }
    if (typeof toJSON === 'function') {
      try {
        value = toJSON.call(value, key);
      } catch {
        return new Unsupported(Unsayable.toJsonThrew);
      }
    }
  }
  if (value !== null && typeof value === 'object') {
    try {
      if (value instanceof Number) value = Number(value);
      else if (value instanceof String) value = String(value);
      else if (value instanceof Boolean || value instanceof BigInt) value = value.valueOf();
    } catch {
      return new Unsupported(Unsayable.unreadable);
    }
  }
  switch (typeof value) {
    case 'undefined':
    case 'function':
    case 'symbol':
      return SKIP;
    case 'bigint':
      return new Unsupported(Unsayable.bigint);
    case 'number':
      return Number.isFinite(value) ? value : null;
    default:
      return value;
  }
}

/** {@link jsonView} of the own enumerable member `key` of `holder` (what `JSON.stringify` reads); {@link SKIP} when there is none. */
export function ownMember(holder: object, key: string): unknown {
  let value: unknown;
  try {
    if (!propertyIsEnumerable.call(holder, key)) return SKIP;
    value = (holder as Record<string, unknown>)[key];
  } catch {
    return new Unsupported(Unsayable.unreadable);
  }
  return jsonView(value, key);
}

/** Whether `value` (a {@link jsonView}) is an object or array to walk into. */
export function isContainer(value: unknown): value is object {
  return value !== null && typeof value === 'object' && !(value instanceof Unsupported);
}

const ESCAPED = /["\\\u0000-\u001f]/;
/** UTF-8 bytes of `JSON.stringify(text)` once lone surrogates are U+FFFD (the core's `json::string_len`). */
function jsonStringLength(text: string): number {
  let bytes = 2 + utf8Length(text);
  if (!ESCAPED.test(text)) return bytes;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit === 0x22 || unit === 0x5c || unit === 0x08 || unit === 0x0c || unit === 0x0a || unit === 0x0d || unit === 0x09) bytes += 1;
    else if (unit < 0x20) bytes += 5;
  }
  return bytes;
}

/**
 * Walks `root` (already a {@link jsonView}) into `sink`, measuring as it goes. Stops (and says
 * `over`) once the measure passes `options.budget`; the sink then holds a partial value.
 */
export function walkJson(root: unknown, sink: JsonSink, options: WalkOptions): Walked {
  const budget = options.budget ?? Infinity;
  const ancestors = new Set<object>();
  let bytes = 0;
  const add = (n: number): void => {
    bytes += n;
    if (bytes > budget) throw OVER;
  };
  const unsupported = (what: string): void => {
    add(jsonStringLength(removedNotice(what)));
    sink.unsupported(what);
  };
  const walk = (value: unknown, depth: number): void => {
    if (value instanceof Unsupported) return unsupported(value.what);
    switch (typeof value) {
      case 'string':
        add(jsonStringLength(value));
        return sink.string(value);
      case 'number':
        add(String(value).length);
        return sink.number(value);
      case 'boolean':
        add(value ? 4 : 5);
        return sink.bool(value);
      default:
        break;
    }
    if (value === null || value === SKIP || typeof value !== 'object') {
      add(4);
      return sink.null();
    }
    if (ancestors.has(value)) return unsupported(Unsayable.cycle);
    if (depth >= options.maxDepth) return unsupported(Unsayable.tooDeep(options.maxDepth));
    let isArray: boolean;
    let keys: string[] | undefined;
    let length = 0;
    try {
      isArray = Array.isArray(value);
      if (isArray) length = (value as unknown[]).length >>> 0;
      else keys = Object.keys(value);
    } catch {
      return unsupported(Unsayable.unreadable);
    }
    ancestors.add(value);
    if (isArray) {
      add(2 + Math.max(0, length - 1));
      sink.array(length);
      for (let i = 0; i < length; i++) {
        let item: unknown;
        try {
          item = (value as unknown[])[i];
        } catch {
          item = new Unsupported(Unsayable.unreadable);
        }
        walk(item instanceof Unsupported ? item : jsonView(item, String(i)), depth + 1);
      }
      sink.endArray();
    } else {
      add(2);
      sink.object();
      let members = 0;
      for (const key of keys as string[]) {
        const item = ownMember(value, key);
        if (item === SKIP) continue;
        add(jsonStringLength(key) + 1 + (members > 0 ? 1 : 0));
        sink.key(key);
        walk(item, depth + 1);
        members++;
      }
      sink.endObject(members);
    }
    ancestors.delete(value);
  };
  if (root === SKIP) return { skipped: true, over: false, bytes: 0 };
  try {
    walk(root, 0);
  } catch (err) {
    if (err === OVER) return { skipped: false, over: true, bytes };
    throw err;
  }
  return { skipped: false, over: false, bytes };
}

/** A sink that builds the plain JS value the walk describes, parts JSON cannot say as their notice strings. */
export class ValueSink implements JsonSink {
  readonly #stack: { container: unknown[] | Record<string, unknown>; key?: string; index: number }[] = [];
  value: unknown = undefined;

  #put(value: unknown): void {
    const top = this.#stack[this.#stack.length - 1];
    if (top === undefined) {
      this.value = value;
    } else if (Array.isArray(top.container)) {
      top.container[top.index++] = value;
    } else if (top.key === '__proto__') {
      // An own `__proto__` member stays a member instead of becoming the prototype.
      Object.defineProperty(top.container, '__proto__', { value, enumerable: true, writable: true, configurable: true });
    } else {
      top.container[top.key as string] = value;
    }
  }

  null(): void {
    this.#put(null);
  }
  bool(value: boolean): void {
    this.#put(value);
  }
  number(value: number): void {
    this.#put(value);
  }
  string(value: string): void {
    this.#put(value);
  }
  unsupported(what: string): void {
    this.#put(removedNotice(what));
  }
  array(length: number): void {
    const container = new Array<unknown>(length);
    this.#put(container);
    this.#stack.push({ container, index: 0 });
  }
  endArray(): void {
    this.#stack.pop();
  }
  object(): void {
    const container: Record<string, unknown> = {};
    this.#put(container);
    this.#stack.push({ container, index: 0 });
  }
  key(key: string): void {
    const top = this.#stack[this.#stack.length - 1];
    if (top) top.key = key;
  }
  endObject(): void {
    this.#stack.pop();
  }
}
