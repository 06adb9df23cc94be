// Validation (SPEC §6): JSON Schema in the lazily loaded validator module, Standard Schema in JS.
//
// The validator module (./validator-loader.ts) is loaded (a dynamic import a bundler splits into
// its own chunk) and compiled only when a tool with a JSON Schema is first called or registered,
// so a page that validates with Standard Schema, or not at all, never downloads it. Each schema
// is compiled once per tool and cached (and compiled again if the module was replaced after a
// trap). Arguments cross as one JSON string, after a walk that turns what JSON cannot carry (a
// cycle, a BigInt, a function, too deep, too big) into a clear diagnostic instead of an
// exception or a silently dropped value.
import { isPlainObject, type AnyHook } from './hookset.js';
import { Ended, NEVER_ABORTED, perform } from './perform.js';
import type { JsonSchema } from './types.js';
import { loadValidator, type ValidatorModule } from './validator-loader.js';

export { loadValidator } from './validator-loader.js';

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

/**
 * The largest `maxArgumentDepth`: the core's JSON parser (serde_json) reads at most 127 levels,
 * and the policy step sends the arguments inside an object of facts; 100 leaves a margin.
 */
export const MAX_ARGUMENT_DEPTH = 100;

/** A compiled schema's handle, valid in one generation of the module; or why the schema is invalid. */
type Compiled = { handle: number; generation: number } | { error: string };
const compiled = new WeakMap<object, Compiled>();

/** Compiles a JSON Schema once per schema object; answers its handle or why it is invalid. */
export async function compileSchema(schema: JsonSchema): Promise<Compiled> {
  return compileWith(await loadValidator(), schema);
}

/** {@link compileSchema} on a loaded module, synchronously: the handle is valid in its current generation. */
function compileWith(validator: ValidatorModule, schema: JsonSchema): Compiled {
  const cached = compiled.get(schema);
  // A handle from before the module was replaced (after a trap) is gone: compile again.
  if (cached !== undefined && ('error' in cached || cached.generation === validator.generation)) return cached;
  let text: string;
  try {
    text = JSON.stringify(schema);
  } catch (err) {
    const result = { error: `the schema cannot be written as JSON (${err instanceof Error ? err.message : String(err)})` };
    compiled.set(schema, result);
    return result;
  }
  const answer = JSON.parse(validator.compile(text)) as { ok: true; handle: number } | { ok: false; error: { message: string } };
  const result: Compiled = answer.ok ? { handle: answer.handle, generation: validator.generation } : { error: answer.error.message };
  compiled.set(schema, result);
  return result;
}

/** The failure of a call to a tool whose `which` schema is not valid JSON Schema, or `undefined` when it is valid. */
export async function schemaProblem(schema: JsonSchema, which: 'inputSchema' | 'outputSchema'): Promise<Validated | undefined> {
  const compiledSchema = await compileSchema(schema);
  return 'error' in compiledSchema ? { valid: false, invalidSchema: `${which} is not valid JSON Schema: ${compiledSchema.error}` } : undefined;
}

/** Validates `value` against a JSON Schema (SPEC §6). */
export async function validateJson(schema: JsonSchema, value: unknown, which: 'inputSchema' | 'outputSchema' = 'inputSchema'): Promise<Validated> {
  const json = toJson(value);
  if (!json.ok) return invalid([json.diagnostic]);
  const validator = await loadValidator();
  // Compiled (or found in the cache) and used with no await between: no trap elsewhere can
  // replace the module in the meantime and leave a stale handle.
  const schemaHandle = compileWith(validator, schema);
  if ('error' in schemaHandle) return { valid: false, invalidSchema: `${which} is not valid JSON Schema: ${schemaHandle.error}` };
  const answer = JSON.parse(validator.validate(schemaHandle.handle, json.text, asU32(limits.maxBytes), asU32(limits.maxDepth))) as
    | { ok: true; valid: boolean; diagnostics: Diagnostic[]; summary: string }
    | { ok: false; error: { code: string; message: string } };
  if (!answer.ok) {
    // The module trapped while validating (and was replaced): these arguments were not checked.
    if (answer.error.code === 'validator_failed') return invalid([{ path: '', keyword: 'validator', message: `could not be validated: ${answer.error.message}` }]);
    return { valid: false, invalidSchema: answer.error.message };
  }
  return answer.valid ? { valid: true } : { valid: false, diagnostics: answer.diagnostics, summary: answer.summary };
}

/** A limit as the module's `u32` (which would wrap a larger number: 2^32 would become 0). */
function asU32(n: number): number {
  return Math.min(Math.max(Math.floor(n), 0), 0xffff_ffff);
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

/**
 * Validates with a Standard Schema (awaited: async validators are enforced); the validated value
 * is what the tool receives. The call's abort signal ends the wait (the pipeline then reports
 * the abort); there is no deadline, as for the tool itself. A throw, a rejection or an answer
 * that is neither a value nor issues fails validation (closed).
 */
export async function validateStandard(schema: StandardSchemaLike, value: unknown, signal: AbortSignal = NEVER_ABORTED): Promise<Validated> {
  const standard = schema['~standard'];
  const performed = perform(((input: unknown) => standard.validate(input)) as AnyHook, [value], undefined, signal);
  const [how, result] = Array.isArray(performed) ? performed : await performed;
  if (how === Ended.Aborted) return invalid([{ path: '', keyword: 'standard', message: 'was not validated: the call was aborted' }]);
  // What the validator threw is not quoted: like a hook's error, it may quote the arguments.
  if (how !== Ended.Value) return invalid([{ path: '', keyword: 'standard', message: 'could not be validated: the validator threw' }]);
  const issues = result !== null && typeof result === 'object' ? (result as { issues?: unknown }).issues : undefined;
  if (Array.isArray(issues) && issues.length > 0) return invalid(issues.map(diagnosticOfIssue));
  if (result === null || typeof result !== 'object' || !('value' in result)) {
    return invalid([{ path: '', keyword: 'standard', message: 'could not be validated: the validator returned neither a value nor issues' }]);
  }
  return { valid: true, value: (result as { value: unknown }).value };
}

/** A Standard Schema issue (`{ message, path? }`) as a diagnostic, whatever the vendor put in it. */
function diagnosticOfIssue(issue: unknown): Diagnostic {
  const { message, path } = (issue !== null && typeof issue === 'object' ? issue : {}) as { message?: unknown; path?: unknown };
  return { path: pointerOf(path), keyword: 'standard', message: typeof message === 'string' && message !== '' ? message : 'is invalid' };
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

/** How many diagnostics {@link summaryOf} spells out before `; … (N more)` (the core's `SUMMARY_ITEMS`). */
const SUMMARY_ITEMS = 5;

/**
 * `Validation failed: <path> <message>; …`, written exactly as the core's `validate::summary`
 * writes it: the root is `(root)`, a `required` problem is shown at the missing property
 * (`/q is required`), at most five items and then `; … (N more)`.
 */
export function summaryOf(diagnostics: Diagnostic[]): string {
  const shown = diagnostics.slice(0, SUMMARY_ITEMS).map(summaryItem);
  const more = diagnostics.length > SUMMARY_ITEMS ? `; … (${diagnostics.length - SUMMARY_ITEMS} more)` : '';
  return shown.length === 0 ? 'Validation failed' : `Validation failed: ${shown.join('; ')}${more}`;
}

function summaryItem(d: Diagnostic): string {
  if (d.keyword === 'required' && d.message.startsWith('is required: ')) {
    try {
      const name: unknown = JSON.parse(d.message.slice('is required: '.length));
      if (typeof name === 'string') return `${d.path}/${escapePointer(name)} is required`;
    } catch {
      // not a quoted name: shown as it is below
    }
  }
  return `${d.path === '' ? '(root)' : d.path} ${d.message}`;
}

function escapePointer(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Whether `text` holds a UTF-16 surrogate without its partner (JSON text cannot carry one). */
const hasLoneSurrogate: (text: string) => boolean =
  typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function'
    ? (text) => !(text as string & { isWellFormed(): boolean }).isWellFormed()
    : (text) => /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);

const LONE_SURROGATE = 'holds a lone UTF-16 surrogate, which JSON text cannot carry';

/**
 * Writes `value` as JSON for the core, or says precisely why JSON cannot carry it: a cycle, a
 * BigInt, a function or symbol, NaN or an infinity, a string or key with a lone UTF-16
 * surrogate, nesting deeper than `limits.maxDepth` arrays and objects (a scalar is 0, `{}` is 1,
 * as the core counts), or more than `limits.maxBytes` UTF-8 bytes of JSON. The walk is
 * iterative, so a 10,000-deep array cannot overflow the stack, and it reads each property once
 * (a getter or proxy that throws is reported, not thrown). Values JSON drops or rewrites the way
 * `JSON.stringify` always has (an `undefined` property, a `Date` through `toJSON`) are written as
 * it writes them.
 */
export function toJson(value: unknown): { ok: true; text: string } | { ok: false; diagnostic: Diagnostic } {
  // Most arguments are plain and small: a recursive check without paths or allocations proves
  // that, and only a value it cannot vouch for takes the precise walk below, which names where
  // the problem is.
  const budget = { left: limits.maxBytes };
  let clean = false;
  try {
    clean = isPlainJson(value, 0, budget);
  } catch {
    clean = false;
  }
  if (clean) {
    const text = JSON.stringify(value);
    if (text !== undefined) {
      const bytes = text.length * 3 <= limits.maxBytes ? text.length : utf8Length(text);
      if (bytes <= limits.maxBytes) return { ok: true, text };
    }
  }
  return toJsonWithDiagnostics(value);
}

/**
 * Whether `value` is JSON as it stands: well-formed strings, finite numbers, plain nesting
 * within `maxDepth` (so a cycle fails too), no `toJSON`, and no more string data than the byte
 * budget. `false` means "look closer", not "invalid".
 */
function isPlainJson(value: unknown, depth: number, budget: { left: number }): boolean {
  switch (typeof value) {
    case 'string':
      budget.left -= value.length;
      return budget.left >= 0 && !hasLoneSurrogate(value);
    case 'number':
      return Number.isFinite(value);
    case 'boolean':
    case 'undefined':
      return true;
    case 'object': {
      if (value === null) return true;
      if (depth >= limits.maxDepth || typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) if (!isPlainJson(value[i], depth + 1, budget)) return false;
        return true;
      }
      for (const key in value) {
        if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
        if (hasLoneSurrogate(key) || !isPlainJson((value as Record<string, unknown>)[key], depth + 1, budget)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

/** The precise walk: the first thing JSON cannot carry, with its path. */
function toJsonWithDiagnostics(value: unknown): { ok: true; text: string } | { ok: false; diagnostic: Diagnostic } {
  const { maxBytes, maxDepth } = limits;
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: '', depth: 0 }];
  const ancestors = new Set<object>();
  const exits: { at: number; node: object }[] = [];
  // A lower bound of the JSON's UTF-8 size (a UTF-16 unit is at least one UTF-8 byte), so a
  // value far over the limit is refused before it is written out.
  let atLeast = 0;
  try {
    while (stack.length > 0) {
      const { value: current, path, depth } = stack.pop() as { value: unknown; path: string; depth: number };
      while (exits.length > 0 && (exits[exits.length - 1] as { at: number }).at > stack.length) ancestors.delete((exits.pop() as { node: object }).node);
      const type = typeof current;
      if (type === 'string') {
        atLeast += (current as string).length + 2;
        if (hasLoneSurrogate(current as string)) return bad(path, 'json', LONE_SURROGATE);
      } else if (type === 'number') {
        if (!Number.isFinite(current)) return bad(path, 'json', `is ${String(current)}; JSON cannot carry it`);
        atLeast += 1;
      } else if (type === 'bigint') {
        return bad(path, 'json', 'is a BigInt; JSON cannot carry it');
      } else if (type === 'function' || type === 'symbol') {
        return bad(path, 'json', `is a ${type}; JSON cannot carry it`);
      }
      if (atLeast > maxBytes) return bad('', 'size', `is at least ${atLeast} bytes of JSON, over the limit of ${maxBytes} bytes`);
      if (current === null || type !== 'object') continue;
      if (typeof (current as { toJSON?: unknown }).toJSON === 'function') continue;
      if (ancestors.has(current as object)) return bad(path, 'json', 'refers to itself (a cycle); JSON cannot carry it');
      if (depth >= maxDepth) return bad('', 'depth', `is nested deeper than ${maxDepth} level${maxDepth === 1 ? '' : 's'} of arrays and objects`);
      ancestors.add(current as object);
      exits.push({ at: stack.length, node: current as object });
      if (Array.isArray(current)) {
        atLeast += current.length + 1;
        for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], path: `${path}/${i}`, depth: depth + 1 });
      } else {
        const entries = Object.entries(current as object);
        atLeast += 2;
        for (let i = entries.length - 1; i >= 0; i--) {
          const [key, child] = entries[i] as [string, unknown];
          const at = `${path}/${escapePointer(key)}`;
          if (hasLoneSurrogate(key)) return bad(at, 'json', `has a property name that ${LONE_SURROGATE}`);
          atLeast += key.length + 3;
          stack.push({ value: child, path: at, depth: depth + 1 });
        }
      }
    }
  } catch {
    // What the page's getter or proxy threw is not quoted (it may quote the arguments).
    return bad('', 'json', 'cannot be read: a getter or proxy threw');
  }
  if (atLeast > maxBytes) return bad('', 'size', `is at least ${atLeast} bytes of JSON, over the limit of ${maxBytes} bytes`);
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return bad('', 'json', 'cannot be written as JSON: JSON.stringify threw (in a toJSON method, or on what one returned)');
  }
  if (text === undefined) return bad('', 'json', 'is not a JSON value');
  // Under for sure when every unit could be three bytes; else count.
  const bytes = text.length * 3 <= maxBytes ? text.length : utf8Length(text);
  if (bytes > maxBytes) return bad('', 'size', `is ${bytes} bytes of JSON, over the limit of ${maxBytes} bytes`);
  return { ok: true, text };
}

/** UTF-8 length of `text` (well formed: `JSON.stringify` writes a lone surrogate as an escape). */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit < 0xdc00) {
      bytes += 4; // a pair (JSON.stringify wrote any lone surrogate as an escape)
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function bad(path: string, keyword: string, message: string): { ok: false; diagnostic: Diagnostic } {
  return { ok: false, diagnostic: { path, keyword, message } };
}
