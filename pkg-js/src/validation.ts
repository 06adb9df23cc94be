// Validation (SPEC §6): JSON Schema in the lazily loaded validator module, Standard Schema in JS.
//
// The validator module is fetched (a dynamic import a bundler splits into its own chunk) and
// compiled only when a tool with a JSON Schema is first called or registered, so a page that
// validates with Standard Schema, or not at all, never downloads it. Each schema is compiled
// once per tool and cached. Arguments cross as one JSON string, after a walk that turns what
// JSON cannot carry (a cycle, a BigInt, a function, too deep, too big) into a clear diagnostic
// instead of an exception or a silently dropped value.
import { decodeBase64 } from './core.js';
import { isPlainObject } from './hookset.js';
import type { JsonSchema } from './types.js';

/** One reason a value failed validation. */
export interface Diagnostic {
  /** JSON Pointer of the instance location (`''` is the whole input). */
  path: string;
  /** The JSON Schema keyword that failed (`type`, `required`, …), or `json`, `size`, `depth`, `standard`. */
  keyword: string;
  /** A short message, read after the path. */
  message: string;
}

/** The result of validating one value. */
export type Validated = { valid: true; value?: unknown } | { valid: false; diagnostics: Diagnostic[]; summary: string } | { valid: false; invalidSchema: string };

/** Limits on arguments that cross to the validator or the policy as JSON. */
export const limits = { maxBytes: 1024 * 1024, maxDepth: 64 };

interface ValidatorInstance {
  compile(schema: string): string;
  validate(handle: number, instance: string, maxBytes: number, maxDepth: number): string;
}

let loading: Promise<ValidatorInstance> | undefined;

/** Loads and compiles the validator module once (asynchronously, off the call's critical path). */
export function loadValidator(): Promise<ValidatorInstance> {
  if (loading === undefined) {
    loading = (async () => {
      const [glue, bytes] = await Promise.all([import('../wasm/warden_validate.js'), import('../wasm/warden_validate_base64.js')]);
      const module = await WebAssembly.compile(decodeBase64(bytes.WASM_BASE64) as BufferSource);
      glue.initSync({ module });
      return new glue.Validator() as ValidatorInstance;
    })();
    // A failed load (offline chunk, CSP) may be retried by a later call.
    loading.catch(() => {
      loading = undefined;
    });
  }
  return loading;
}

type Compiled = { handle: number } | { error: string };
const compiled = new WeakMap<object, Compiled>();

/** Compiles a JSON Schema once per schema object; answers its handle or why it is invalid. */
export async function compileSchema(schema: JsonSchema): Promise<Compiled> {
  const cached = compiled.get(schema);
  if (cached !== undefined) return cached;
  const validator = await loadValidator();
  let text: string;
  try {
    text = JSON.stringify(schema);
  } catch (err) {
    const result = { error: `the schema cannot be written as JSON (${err instanceof Error ? err.message : String(err)})` };
    compiled.set(schema, result);
    return result;
  }
  const answer = JSON.parse(validator.compile(text)) as { ok: true; handle: number } | { ok: false; error: { message: string } };
  const result: Compiled = answer.ok ? { handle: answer.handle } : { error: answer.error.message };
  compiled.set(schema, result);
  return result;
}

/** Validates `value` against a JSON Schema (SPEC §6). */
export async function validateJson(schema: JsonSchema, value: unknown): Promise<Validated> {
  const json = toJson(value);
  if (!json.ok) return invalid([json.diagnostic]);
  const schemaHandle = await compileSchema(schema);
  if ('error' in schemaHandle) return { valid: false, invalidSchema: schemaHandle.error };
  const validator = await loadValidator();
  const answer = JSON.parse(validator.validate(schemaHandle.handle, json.text, limits.maxBytes, limits.maxDepth)) as
    | { ok: true; valid: boolean; diagnostics: Diagnostic[]; summary: string }
    | { ok: false; error: { message: string } };
  if (!answer.ok) return { valid: false, invalidSchema: answer.error.message };
  return answer.valid ? { valid: true } : { valid: false, diagnostics: answer.diagnostics, summary: answer.summary };
}

/** A Standard Schema (zod, valibot, …): `'~standard'.validate`, maybe async. */
export interface StandardSchemaLike {
  '~standard': {
    version: number;
    vendor: string;
    validate(value: unknown): unknown;
    jsonSchema?: { input?(options: { target: string }): unknown };
  };
}

/** Whether `value` is a Standard Schema. */
export function isStandardSchema(value: unknown): value is StandardSchemaLike {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as StandardSchemaLike)['~standard']?.validate === 'function'
  );
}

/** Validates with a Standard Schema (awaited: async validators are enforced); the validated value is what the tool receives. */
export async function validateStandard(schema: StandardSchemaLike, value: unknown): Promise<Validated> {
  let result: unknown;
  try {
    result = await schema['~standard'].validate(value);
  } catch (err) {
    return invalid([{ path: '', keyword: 'standard', message: `the validator threw: ${err instanceof Error ? err.message : String(err)}` }]);
  }
  const issues = (result as { issues?: unknown })?.issues;
  if (Array.isArray(issues) && issues.length > 0) {
    return invalid(issues.map((issue: { message?: unknown; path?: unknown }) => ({ path: pointerOf(issue.path), keyword: 'standard', message: String(issue.message ?? 'is invalid') })));
  }
  if (result === null || typeof result !== 'object' || !('value' in result)) {
    return invalid([{ path: '', keyword: 'standard', message: 'the validator returned neither a value nor issues' }]);
  }
  return { valid: true, value: (result as { value: unknown }).value };
}

/** The JSON Schema a Standard Schema exports for the browser, if it has one. */
export function jsonSchemaOf(schema: StandardSchemaLike): JsonSchema | undefined {
  const tryExport = (fn: () => unknown): JsonSchema | undefined => {
    try {
      const exported = fn();
      return isPlainObject(exported) ? (exported as JsonSchema) : undefined;
    } catch {
      return undefined;
    }
  };
  const standard = schema['~standard'].jsonSchema;
  if (standard && typeof standard.input === 'function') {
    const exported = tryExport(() => standard.input?.({ target: 'draft-2020-12' })) ?? tryExport(() => standard.input?.({ target: 'draft-07' }));
    if (exported) return exported;
  }
  const zod = (schema as { toJSONSchema?: () => unknown }).toJSONSchema;
  if (typeof zod === 'function') return tryExport(() => zod.call(schema));
  return undefined;
}

function pointerOf(path: unknown): string {
  if (!Array.isArray(path)) return '';
  return path
    .map((segment) => {
      const key = segment !== null && typeof segment === 'object' && 'key' in segment ? (segment as { key: unknown }).key : segment;
      return '/' + String(key).replaceAll('~', '~0').replaceAll('/', '~1');
    })
    .join('');
}

function invalid(diagnostics: Diagnostic[]): Validated {
  return { valid: false, diagnostics, summary: summaryOf(diagnostics) };
}

/** `Validation failed: <path> <message>; …`, the way the core's summary reads. */
export function summaryOf(diagnostics: Diagnostic[]): string {
  const shown = diagnostics.slice(0, 5).map((d) => `${d.path || '/'} ${d.message}`);
  const more = diagnostics.length > 5 ? `; … (${diagnostics.length - 5} more)` : '';
  return `Validation failed: ${shown.join('; ')}${more}`;
}

/**
 * Writes `value` as JSON for the core, or says precisely why JSON cannot carry it: a cycle, a
 * BigInt, a function or symbol, nesting deeper than `limits.maxDepth`, or text longer than
 * `limits.maxBytes`. The walk is iterative, so a 10,000-deep array cannot overflow the stack.
 */
export function toJson(value: unknown): { ok: true; text: string } | { ok: false; diagnostic: Diagnostic } {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: '', depth: 0 }];
  const ancestors = new Set<object>();
  const exits: { at: number; node: object }[] = [];
  while (stack.length > 0) {
    const { value: current, path, depth } = stack.pop() as { value: unknown; path: string; depth: number };
    while (exits.length > 0 && (exits[exits.length - 1] as { at: number }).at > stack.length) ancestors.delete((exits.pop() as { node: object }).node);
    const type = typeof current;
    if (type === 'bigint') return bad(path, 'json', 'is a BigInt; JSON cannot carry it');
    if (type === 'function' || type === 'symbol') return bad(path, 'json', `is a ${type}; JSON cannot carry it`);
    if (current === null || type !== 'object') continue;
    if (typeof (current as { toJSON?: unknown }).toJSON === 'function') continue;
    if (depth >= limits.maxDepth) return bad(path, 'depth', `nests deeper than ${limits.maxDepth} levels`);
    if (ancestors.has(current as object)) return bad(path, 'json', 'refers to itself (a cycle); JSON cannot carry it');
    ancestors.add(current as object);
    exits.push({ at: stack.length, node: current as object });
    const entries = Array.isArray(current) ? current.map((item, i) => [String(i), item] as const) : Object.entries(current as object);
    for (const [key, child] of entries) stack.push({ value: child, path: `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`, depth: depth + 1 });
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    return bad('', 'json', `cannot be written as JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  if (text === undefined) return bad('', 'json', 'is not a JSON value');
  if (text.length > limits.maxBytes) return bad('', 'size', `is larger than ${limits.maxBytes} bytes of JSON`);
  return { ok: true, text };
}

function bad(path: string, keyword: string, message: string): { ok: false; diagnostic: Diagnostic } {
  return { ok: false, diagnostic: { path, keyword, message } };
}
