// Facts about JS values the package checks everywhere it reads user input: a module with no
// imports, so any module may use it without joining an import cycle.

/** How a JS value's type reads in a message: `a function`, `an array`, `null`, … */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value instanceof RegExp) return 'a RegExp';
  const type = typeof value;
  if (type === 'undefined') return 'undefined';
  if (type === 'object') return 'an object';
  if (type === 'bigint') return 'a BigInt';
  return `a ${type}`;
}

/** A plain object (not an array, a function, a class instance other than Object). */
export function isPlainObject(value: unknown): value is Record<string, any> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
