// Deeply frozen copies of what the package hands to user code it does not trust to leave data
// alone (approvers, predicates, telemetry subscribers).

/**
 * A deeply frozen copy of plain objects and arrays; other values are kept as they are. Own keys
 * only; a `__proto__` key stays an own property. A part whose keys or getters throw is kept as
 * it is (or left out) rather than failing the caller: telemetry and approvers must not fail a call.
 */
export function deepFrozenCopy(value: unknown, seen = new Map<object, unknown>()): unknown {
  if (value === null || typeof value !== 'object') return value;
  const done = seen.get(value);
  if (done !== undefined) return done;
  let keys: string[];
  try {
    const proto = Object.getPrototypeOf(value) as unknown;
    if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return value;
    keys = Object.keys(value);
  } catch {
    return value;
  }
  const copy: Record<string, unknown> | unknown[] = Array.isArray(value) ? [] : {};
  seen.set(value, copy);
  for (const key of keys) {
    let item: unknown;
    try {
      item = (value as Record<string, unknown>)[key];
    } catch {
      continue;
    }
    // A `__proto__` key (JSON.parse makes one) stays an own property instead of becoming the copy's prototype.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: deepFrozenCopy(item, seen), enumerable: true, writable: true, configurable: true });
    else (copy as Record<string, unknown>)[key] = deepFrozenCopy(item, seen);
  }
  return Object.freeze(copy);
}
