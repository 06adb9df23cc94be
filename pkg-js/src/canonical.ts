// RFC 8785 canonical JSON (JCS): object keys sorted by UTF-16 code units (JS's default sort),
// everything else as `JSON.stringify` writes it, which is exactly ECMAScript's number and string
// serialization the RFC prescribes. The core hashes this text (SHA-256) for args digests.

/**
 * The canonical JSON of a JSON value (what `JSON.parse` produced). Throws a `TypeError` for what
 * JSON cannot carry (a non-finite number, a cycle, nesting deeper than 128).
 */
export function canonicalJson(value: unknown, depth = 0): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('canonical JSON cannot carry a non-finite number');
    return JSON.stringify(value);
  }
  if (depth >= 128) throw new TypeError('canonical JSON: nested deeper than 128 levels');
  if (Array.isArray(value)) return '[' + value.map((item) => canonicalJson(item === undefined ? null : item, depth + 1)).join(',') + ']';
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).filter((key) => record[key] !== undefined).sort();
    return '{' + keys.map((key) => JSON.stringify(key) + ':' + canonicalJson(record[key], depth + 1)).join(',') + '}';
  }
  throw new TypeError(`canonical JSON cannot carry ${typeof value}`);
}
