// Canonical JSON (RFC 8785, "JCS"): the text the core hashes for args digests and tool
// fingerprints (`src/digest.rs`).
//
// RFC 8785 writes every string and number exactly as ECMAScript's `JSON.stringify` does, and
// sorts object members by the UTF-16 code units of their names, which is JavaScript's default
// `Array.prototype.sort`. So the page's own JSON engine does the exact part, and the core needs
// no JSON serializer or float formatting (`ARCHITECTURE.md`, "Crossing the boundary"). The test
// vectors of RFC 8785 are in `tests/fixtures/canonical.json`.
import { WardenError } from './errors.js';
import { typeName } from './js-values.js';

/** Deepest nesting of arrays and objects {@link canonicalJson} accepts (`[]` is 1). */
export const CANONICAL_MAX_DEPTH = 128;

/**
 * The RFC 8785 canonical JSON text of `value`, read as `JSON.stringify` reads it (`toJSON` is
 * called, members that are `undefined`, functions or symbols are left out of objects and are
 * `null` in arrays, boxed primitives are unwrapped), with object members sorted by UTF-16 code
 * units and no whitespace.
 *
 * Throws a `WardenError` for what has no canonical form: `non_finite_number` (NaN, ±Infinity),
 * `cyclic_value`, `too_deep` (arrays and objects nested deeper than `maxDepth`, 128 by
 * default), `unsupported_value` (a BigInt, or a top-level value JSON cannot say). What a getter
 * or a `toJSON` throws is thrown as it is.
 */
export function canonicalJson(value: unknown, maxDepth: number = CANONICAL_MAX_DEPTH): string {
  const text = canonicalOrAbsent(value, maxDepth);
  if (text === undefined) throw new WardenError('unsupported_value', `canonicalJson: ${typeName(value)} has no JSON form`);
  return text;
}

/** {@link canonicalJson}, with `undefined` where `JSON.stringify` would leave the value out. */
function canonicalOrAbsent(value: unknown, maxDepth: number): string | undefined {
  const ancestors = new Set<object>();
  const write = (input: unknown, key: string, depth: number): string | undefined => {
    let v = input;
    if ((typeof v === 'object' && v !== null) || typeof v === 'bigint') {
      const toJSON = (v as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') v = toJSON.call(v, key);
    }
    if (v instanceof Number) v = Number(v);
    else if (v instanceof String) v = String(v);
    else if (v instanceof Boolean) v = v.valueOf();
    switch (typeof v) {
      case 'string':
        return JSON.stringify(v);
      case 'number':
        if (!Number.isFinite(v)) throw new WardenError('non_finite_number', `canonicalJson: ${String(v)} has no JSON form`);
        // ECMAScript's Number::toString, which RFC 8785 adopts (`-0` is written `0`).
        return JSON.stringify(v);
      case 'boolean':
        return v ? 'true' : 'false';
      case 'bigint':
        throw new WardenError('unsupported_value', 'canonicalJson: a BigInt has no JSON form');
      case 'undefined':
      case 'function':
      case 'symbol':
        return undefined;
    }
    if (v === null) return 'null';
    const object = v as object;
    if (ancestors.has(object)) throw new WardenError('cyclic_value', 'canonicalJson: a cyclic value has no JSON form');
    if (depth >= maxDepth) throw new WardenError('too_deep', `canonicalJson: arrays and objects nest deeper than ${maxDepth} levels`);
    ancestors.add(object);
    try {
      if (Array.isArray(object)) {
        const items: string[] = [];
        // Index by index: a hole is `null`, as JSON.stringify writes it.
        for (let i = 0; i < object.length; i++) items.push(write(object[i], String(i), depth + 1) ?? 'null');
        return '[' + items.join(',') + ']';
      }
      const members: string[] = [];
      // The default sort compares UTF-16 code units: RFC 8785's member order.
      for (const name of Object.keys(object).sort()) {
        const text = write((object as Record<string, unknown>)[name], name, depth + 1);
        if (text !== undefined) members.push(JSON.stringify(name) + ':' + text);
      }
      return '{' + members.join(',') + '}';
    } finally {
      ancestors.delete(object);
    }
  };
  return write(value, '', 0);
}

/** The members of a tool definition a fingerprint covers, in the core's reporting order. */
const FINGERPRINT_FIELDS = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;

/**
 * The canonical text of each fingerprinted member of a tool definition, for the core to hash
 * (`src/digest.rs` assembles the definition's RFC 8785 text from them). A member that is
 * absent, `null`, or that `JSON.stringify` would leave out is omitted. Members may nest one
 * level less than {@link CANONICAL_MAX_DEPTH}: the definition object around them is one level.
 */
export function fingerprintFields(definition: Readonly<Record<string, unknown>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const field of FINGERPRINT_FIELDS) {
    const value = definition[field];
    if (value === undefined || value === null) continue;
    const text = canonicalOrAbsent(value, CANONICAL_MAX_DEPTH - 1);
    // `null` is an absent member, as it was when the core read the definition's JSON.
    if (text !== undefined && text !== 'null') out[field] = text;
  }
  return out;
}
