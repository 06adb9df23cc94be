// Validation: JSON Schema in the lazily loaded validator module, Standard Schema in JS.
//
// The validator module (./validator-loader.ts) is loaded (a dynamic import a bundler splits into
// its own chunk) and compiled only when a tool with a JSON Schema is first called or registered,
// so a page that validates with Standard Schema, or not at all, never downloads it. Each schema
// is compiled once per tool and cached (and compiled again if the module was replaced after a
// trap). Arguments are first written as JSON text, by a walk that turns what JSON cannot carry
// (a cycle, a BigInt, a function, too deep, too big) into a clear diagnostic instead of an
// exception or a silently dropped value. The arguments then cross in the wire format
// (./wire.ts `encodeJson`), written from the value when the walk vouched for it, else from the
// text read back, so their numbers reach the module as the same doubles, unparsed.

import { Ended, NEVER_ABORTED, perform, type AnyHook } from '../util/perform.js';
import type { StandardSchemaLike } from '../util/schema-export.js';
import type { Compiled, JsonText, PatternNote, StandardValidated } from '../types/internal.js';
import type { Diagnostic, JsonSchema, JsonValidated, Limits } from '../types/types.js';

export type { Diagnostic };
import { hasLoneSurrogate, utf8Length, wellFormed } from '../util/unicode.js';
import type { ValidatorModule } from './validator-loader.js';
import { hasJudge, patternsSettled, validatorMisses } from '../boundary/patterns.js';
import { encodeJson } from '../boundary/wire.js';
import { loadedValidator, loadValidator } from './validator-loader.js';

/** The default limits (`maxArgumentBytes`, `maxArgumentDepth`). */
export const DEFAULT_LIMITS: Limits = { maxBytes: 1024 * 1024, maxDepth: 64 };

/**
 * Each schema object's compilation, without and with the page's opt-in to unsafe patterns
 * (`unsafePatterns`): the opt-in decides whether a pattern is refused, so the two are compiled
 * apart.
 */
const compiled = new WeakMap<object, [Compiled | undefined, Compiled | undefined]>();

/** The token a compiled handle is registered under, one per schema object and opt-in. */
const tokens = new WeakMap<object, [object, object]>();

/**
 * Each compiled handle holds one reference in the module's cache; when its schema object is
 * collected (the tools using it are gone), the reference goes too, so a page that makes and
 * drops tools keeps only the schemas still in use. A handle of an earlier generation (the
 * module was replaced after a trap) is already gone.
 */
const schemaReleaser =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry<{ handle: number; generation: number }>(({ handle, generation }) => {
        const validator = loadedValidator();
        if (validator !== undefined && validator.generation === generation) validator.dropSchema(handle);
      })
    : undefined;

/**
 * Compiles a JSON Schema once per schema object (and opt-in); answers its handle and notes, or
 * why it cannot be used. Its patterns are judged: when the judgement (or the linear engine) is
 * loading, this waits for it (docs/behaviour.md, "Patterns").
 */
export async function compileSchema(schema: JsonSchema, allowUnsafe = false): Promise<Compiled> {
  const validator = await loadValidator([schema]);
  let result = compileWith(validator, schema, allowUnsafe);
  for (let waiting = patternsSettled(); waiting !== undefined; waiting = patternsSettled()) {
    await waiting;
    result = compileWith(validator, schema, allowUnsafe);
  }
  return result;
}

/**
 * {@link compileSchema} on a loaded module, synchronously: the handle is valid in its current
 * generation. A schema compiled while the judgement was not loaded is compiled again once it is
 * (the module asked for it, and it started loading: the caller awaits `patternsSettled`).
 */
function compileWith(validator: ValidatorModule, schema: JsonSchema, allowUnsafe: boolean): Compiled {
  const at = allowUnsafe ? 1 : 0;
  const both = compiled.get(schema) ?? [undefined, undefined];
  const cached = both[at];
  // A handle from before the module was replaced (after a trap) is gone: compile again.
  if (cached !== undefined && ('error' in cached || (cached.generation === validator.generation && !(cached.unjudged && hasJudge())))) return cached;
  let token = tokens.get(schema);
  if (token === undefined) tokens.set(schema, (token = [{}, {}]));
  if (cached !== undefined && 'handle' in cached && cached.generation === validator.generation) {
    // Compiled before the judgement loaded: released, so that the module compiles it afresh.
    schemaReleaser?.unregister(token[at]);
    validator.dropSchema(cached.handle);
  }
  let wire: Uint8Array;
  try {
    // Written and read back as JSON (toJSON, dropped members) before it crosses.
    const text = JSON.stringify(schema) as string | undefined;
    if (text === undefined) throw new Error('it is not a JSON value');
    wire = encodeJson(JSON.parse(text));
  } catch (err) {
    const result = { error: `the schema cannot be written as JSON (${err instanceof Error ? err.message : String(err)})`, code: 'invalid_schema' };
    both[at] = result;
    compiled.set(schema, both);
    return result;
  }
  const misses = validatorMisses();
  const answer = JSON.parse(validator.compile(wire, allowUnsafe)) as { ok: true; handle: number; notes: PatternNote[] } | { ok: false; error: { code: string; message: string } };
  const result: Compiled = answer.ok
    ? { handle: answer.handle, generation: validator.generation, notes: answer.notes, unjudged: validatorMisses() !== misses }
    : { error: answer.error.message, code: answer.error.code === 'unsafe_pattern' ? 'unsafe_pattern' : 'invalid_schema' };
  both[at] = result;
  compiled.set(schema, both);
  if ('handle' in result) {
    // The token is the schema's: a recompile (after a trap) replaces the registration.
    schemaReleaser?.unregister(token[at]);
    schemaReleaser?.register(schema, { handle: result.handle, generation: result.generation }, token[at]);
  }
  return result;
}

/**
 * Validates JSON text (what `toJson` wrote) against a JSON Schema; an invalid schema is
 * reported, not thrown. `which` names the schema in that report's message. The text is limited
 * to `limits.maxArgumentBytes` here; it crosses to the module in the wire format, written from
 * `json.source` when there is one (reading the text back with `JSON.parse` cost a noticeable
 * share of validating a typical argument: bench/RESULTS.md), from the text read back otherwise.
 */
export async function validateJsonText(
  schema: JsonSchema,
  json: JsonText,
  _which: 'inputSchema' | 'outputSchema',
  limits: { maxArgumentBytes: number; maxArgumentDepth: number },
  allowUnsafe = false,
): Promise<JsonValidated> {
  const { text } = json;
  // The source is written now, before any await: it may change while the module loads, and
  // what is validated must be what the text says. Copied, since the next encoding (another
  // call's, during that await) reuses the buffer.
  const fromSource = 'source' in json ? encodeJson(json.source).slice() : undefined;
  // Loaded already (the common case): no promise to wait for, no array to make.
  const validator = loadedValidator() ?? (await loadValidator([schema]));
  let schemaHandle = compileWith(validator, schema, allowUnsafe);
  // What its patterns wait for (the judgement, the linear engine), compiled again once loaded.
  for (let waiting = patternsSettled(); waiting !== undefined; waiting = patternsSettled()) {
    await waiting;
    schemaHandle = compileWith(validator, schema, allowUnsafe);
  }
  // From here, compiled (or found in the cache) and used with no await between: no trap
  // elsewhere can replace the module in the meantime and leave a stale handle.
  if ('error' in schemaHandle) return { valid: false, invalidSchema: schemaHandle.error };
  const bytes = text.length * 3 <= limits.maxArgumentBytes ? text.length : utf8Length(text);
  if (bytes > limits.maxArgumentBytes) return { valid: false, diagnostics: [overLimit(bytes, limits.maxArgumentBytes).diagnostic] };
  const validated = validator.validate(schemaHandle.handle, fromSource ?? encodeJson(JSON.parse(text)), asU32(limits.maxArgumentDepth));
  // Nothing: valid (the common case, with nothing to parse).
  if (validated === '') return { valid: true };
  const answer = JSON.parse(validated) as { ok: true; valid: false; diagnostics: Diagnostic[] } | { ok: false; error: { code: string; message: string } };
  if (!answer.ok) {
    // The module trapped while validating (and was replaced): these arguments were not checked.
    if (answer.error.code === 'validator_failed') return { valid: false, diagnostics: [{ path: '', keyword: 'validator', message: `could not be validated: ${answer.error.message}` }] };
    return { valid: false, invalidSchema: answer.error.message };
  }
  return { valid: false, diagnostics: answer.diagnostics };
}

/**
 * Validates a value against a JSON Schema outside any call (a page checking data itself):
 * `{ valid: true }`, `{ valid: false, diagnostics }`, or `{ valid: false, invalidSchema }`.
 * JSON cannot carry every JS value: a cycle, a BigInt or a value over the limits is a diagnostic.
 */
export async function validateJson(schema: JsonSchema, value: unknown, limits: Limits = DEFAULT_LIMITS): Promise<JsonValidated> {
  const json = toJson(value, limits);
  if (!json.ok) return { valid: false, diagnostics: [json.diagnostic] };
  return validateJsonText(schema, json, 'inputSchema', { maxArgumentBytes: limits.maxBytes, maxArgumentDepth: limits.maxDepth });
}

/** A limit as the module's `u32` (which would wrap a larger number: 2^32 would become 0). */
function asU32(n: number): number {
  return Math.min(Math.max(Math.floor(n), 0), 0xffff_ffff);
}

export type { StandardValidated };

/**
 * Validates with a Standard Schema (awaited: async validators are enforced); the validated value
 * is what the tool receives. The call's abort signal ends the wait; there is no deadline, as for
 * the tool itself. What the validator threw comes back for the page's error hooks (never for
 * the agent); an answer that is neither a value nor issues is invalid (fail closed). Reading the
 * answer is `standard-result.ts`, a chunk loaded beside the first validation, so a page whose
 * tools have JSON Schemas only never carries it.
 */
export async function validateStandard(schema: StandardSchemaLike, value: unknown, signal: AbortSignal = NEVER_ABORTED): Promise<StandardValidated> {
  const reading = import('./standard-result.js');
  reading.catch(() => undefined);
  const standard = schema['~standard'];
  const performed = perform(((input: unknown) => standard.validate(input)) as AnyHook, [value], undefined, signal);
  const [how, result] = Array.isArray(performed) ? performed : await performed;
  if (how === Ended.Aborted) return { how: 'aborted' };
  if (how !== Ended.Value) return { how: 'threw', thrown: result };
  return (await reading).standardResult(result);
}

function escapePointer(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

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
 *
 * Both walks count a lower bound of the JSON's UTF-8 size as they go (a UTF-16 unit is at least
 * one byte; a number at least one digit; only what `JSON.stringify` certainly writes is
 * counted) and stop the moment it passes `limits.maxBytes`: refusing a value over the limit
 * reads no more of it than the limit allows, whatever its size. (An object's keys are listed
 * once, by the engine, before the first is read: that listing is the one cost that grows with
 * the input.)
 */
export function toJson(value: unknown, limits: Limits = DEFAULT_LIMITS): ({ ok: true } & JsonText) | { ok: false; diagnostic: Diagnostic } {
  // Most arguments are plain and small: a recursive check without paths or allocations proves
  // that, and only a value it cannot vouch for takes the precise walk below, which names where
  // the problem is.
  const budget = { left: limits.maxBytes };
  let clean = false;
  try {
    clean = isPlainJson(value, 0, budget, limits.maxDepth);
  } catch {
    clean = false;
  }
  // The check stops as soon as what it counted passes the limit, and what it counted is
  // certainly written: that is the answer, whatever the rest holds, and nothing more is read.
  if (budget.left < 0) return tooLarge(limits.maxBytes - budget.left, limits.maxBytes);
  if (clean) {
    let text: string | undefined;
    try {
      text = JSON.stringify(value);
    } catch {
      // A getter that throws only the second time it is read: the precise walk reports it.
      text = undefined;
    }
    if (text !== undefined) {
      const bytes = text.length * 3 <= limits.maxBytes ? text.length : utf8Length(text);
      return bytes <= limits.maxBytes ? { ok: true, text, source: value } : overLimit(bytes, limits.maxBytes);
    }
  }
  return toJsonWithDiagnostics(value, limits);
}

/**
 * Whether `value` is JSON as it stands: well-formed strings, finite numbers, plain nesting
 * within `maxDepth` (so a cycle fails too), no `toJSON` or boxed primitive, and a lower bound of
 * its UTF-8 JSON size within the budget. `false` means "look closer", not "invalid", unless
 * `budget.left` is below zero: then the value is over the limit, and the check stopped there.
 *
 * What it counts: a string its units and quotes, a number one digit, `true`/`false`/`null`
 * four bytes, an array its `[` and one `,` or `]` per item, an object its `{` and, per member,
 * the key, its quotes, `:` and one `,` or `}`. A member whose value JSON drops (`undefined`)
 * is not counted, and a member's key is counted only once its value proved written as is.
 */
function isPlainJson(value: unknown, depth: number, budget: { left: number }, maxDepth: number): boolean {
  switch (typeof value) {
    case 'string':
      budget.left -= value.length + 2;
      return budget.left >= 0 && !hasLoneSurrogate(value);
    case 'number':
      budget.left -= 1;
      return budget.left >= 0 && Number.isFinite(value);
    case 'boolean':
      budget.left -= 4;
      return budget.left >= 0;
    case 'undefined':
      // An array item (written `null`, its byte counted with the array) or the whole value
      // (which JSON.stringify refuses, checked after).
      return true;
    case 'object': {
      if (value === null) {
        budget.left -= 4;
        return budget.left >= 0;
      }
      if (depth >= maxDepth || typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
      if (Array.isArray(value)) {
        // Each item costs at least a byte: a budget that cannot hold them all stops here, so a
        // huge (or sparse) array is refused before any of it is read.
        budget.left -= value.length + 1;
        if (budget.left < 0) return false;
        for (let i = 0; i < value.length; i++) if (!isPlainJson(value[i], depth + 1, budget, maxDepth)) return false;
        return true;
      }
      // JSON.stringify writes a String, Number or Boolean object as its primitive, and throws on
      // a BigInt one: the precise walk handles them (a String object's characters would count
      // as members here, far more than is written).
      if (isBoxed(value)) return false;
      budget.left -= 1;
      if (budget.left < 0) return false;
      for (const key in value) {
        if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
        const item = (value as Record<string, unknown>)[key];
        if (item === undefined) continue;
        if (!isPlainJson(item, depth + 1, budget, maxDepth)) return false;
        budget.left -= key.length + 4;
        if (budget.left < 0 || hasLoneSurrogate(key)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

/** A `String`, `Number`, `Boolean` or `BigInt` object, which JSON.stringify writes (or refuses) as its primitive. */
function isBoxed(value: object): boolean {
  return value instanceof String || value instanceof Number || value instanceof Boolean || value instanceof BigInt;
}

/** The size diagnostic when a walk stopped: `atLeast` is the lower bound it had counted. */
function tooLarge(atLeast: number, maxBytes: number): { ok: false; diagnostic: Diagnostic } {
  return bad('', 'size', `is at least ${atLeast} bytes of JSON, over the limit of ${maxBytes} bytes`);
}

/** The size diagnostic once the JSON was written and measured. */
function overLimit(bytes: number, maxBytes: number): { ok: false; diagnostic: Diagnostic } {
  return bad('', 'size', `is ${bytes} bytes of JSON, over the limit of ${maxBytes} bytes`);
}

/** One value waiting in the precise walk; `rewritten`: it has a `toJSON` (read when it was pushed). */
type Pending = { value: unknown; path: string; depth: number; rewritten: boolean };

/**
 * The precise walk: the first thing JSON cannot carry, with its path. It counts what
 * {@link isPlainJson} counts, and stops as soon as that passes the limit.
 */
function toJsonWithDiagnostics(value: unknown, limits: Limits): { ok: true; text: string } | { ok: false; diagnostic: Diagnostic } {
  const { maxBytes, maxDepth } = limits;
  const stack: Pending[] = [];
  const ancestors = new Set<object>();
  const exits: { at: number; node: object }[] = [];
  let atLeast = 0;
  try {
    stack.push({ value, path: '', depth: 0, rewritten: hasToJson(value) });
    while (stack.length > 0) {
      const { value: current, path, depth, rewritten } = stack.pop() as Pending;
      while (exits.length > 0 && (exits[exits.length - 1] as { at: number }).at > stack.length) ancestors.delete((exits.pop() as { node: object }).node);
      const type = typeof current;
      if (type === 'string') {
        atLeast += (current as string).length + 2;
        if (atLeast <= maxBytes && hasLoneSurrogate(current as string)) return bad(path, 'json', LONE_SURROGATE);
      } else if (type === 'number') {
        if (!Number.isFinite(current)) return bad(path, 'json', `is ${String(current)}; JSON cannot carry it`);
        atLeast += 1;
      } else if (type === 'boolean' || current === null) {
        atLeast += 4;
      } else if (type === 'bigint') {
        return bad(path, 'json', 'is a BigInt; JSON cannot carry it');
      } else if (type === 'function' || type === 'symbol') {
        return bad(path, 'json', `is a ${type}; JSON cannot carry it`);
      }
      if (atLeast > maxBytes) return tooLarge(atLeast, maxBytes);
      if (current === null || type !== 'object') continue;
      // Rewritten by JSON.stringify: measured once written, below.
      if (rewritten) continue;
      if (isBoxed(current as object)) {
        if (current instanceof BigInt) return bad(path, 'json', 'is a BigInt; JSON cannot carry it');
        continue;
      }
      if (ancestors.has(current as object)) return bad(path, 'json', 'refers to itself (a cycle); JSON cannot carry it');
      if (depth >= maxDepth) return bad('', 'depth', `is nested deeper than ${maxDepth} level${maxDepth === 1 ? '' : 's'} of arrays and objects`);
      ancestors.add(current as object);
      exits.push({ at: stack.length, node: current as object });
      if (Array.isArray(current)) {
        // As in the check: a huge (or sparse) array is refused before any of it is read.
        atLeast += current.length + 1;
        if (atLeast > maxBytes) return tooLarge(atLeast, maxBytes);
        for (let i = current.length - 1; i >= 0; i--) {
          const item: unknown = current[i];
          stack.push({ value: item, path: `${path}/${i}`, depth: depth + 1, rewritten: hasToJson(item) });
        }
      } else {
        atLeast += 1;
        // The keys are listed once; each member is counted as it is read, so a huge object is
        // refused after reading what the limit allows.
        const keys = Object.keys(current as object);
        for (let i = keys.length - 1; i >= 0; i--) {
          const key = keys[i] as string;
          const item = (current as Record<string, unknown>)[key];
          // JSON.stringify drops the member: nothing to check, nothing written.
          if (item === undefined) continue;
          // The path crosses to the core as UTF-8, which cannot carry the lone surrogate either:
          // it names the key with U+FFFD in its place.
          if (hasLoneSurrogate(key)) return bad(`${path}/${escapePointer(wellFormed(key))}`, 'json', `has a property name that ${LONE_SURROGATE}`);
          const itemRewritten = hasToJson(item);
          // A toJSON may return undefined, dropping the member: its key is not counted.
          if (!itemRewritten) {
            atLeast += key.length + 4;
            if (atLeast > maxBytes) return tooLarge(atLeast, maxBytes);
          }
          stack.push({ value: item, path: `${path}/${escapePointer(key)}`, depth: depth + 1, rewritten: itemRewritten });
        }
      }
    }
  } catch {
    // What the page's getter or proxy threw is not quoted (it may quote the arguments).
    return bad('', 'json', 'cannot be read: a getter or proxy threw');
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return bad('', 'json', 'cannot be written as JSON: JSON.stringify threw (in a toJSON method, or on what one returned)');
  }
  if (text === undefined) return bad('', 'json', 'is not a JSON value');
  // Under for sure when every unit could be three bytes; else count.
  const bytes = text.length * 3 <= maxBytes ? text.length : utf8Length(text);
  if (bytes > maxBytes) return overLimit(bytes, maxBytes);
  return { ok: true, text };
}

/** Whether `value` is an object JSON.stringify rewrites through its `toJSON` (a read that may throw). */
function hasToJson(value: unknown): boolean {
  return value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function';
}

function bad(path: string, keyword: string, message: string): { ok: false; diagnostic: Diagnostic } {
  return { ok: false, diagnostic: { path, keyword, message } };
}
