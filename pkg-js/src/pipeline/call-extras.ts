// What few calls need, in a chunk of its own so that a page whose calls need neither never
// downloads it: the text the approver and function predicates are shown (`call.display`), and
// the `rejectProtoKeys` check. `call.ts` loads it when a call first asks an approver or a
// predicate, or checks for `__proto__` keys.
import type { Diagnostic } from '../types/types.js';

/**
 * Characters a person cannot see, or that change the direction of the text around them: format
 * and control characters, default-ignorable code points, line and paragraph separators (the
 * page's own Unicode data, through `RegExp`).
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/gu;

/** JSON text for a person to read (`call.display`): each hidden character written as `\u{XXXX}`. */
export function displayText(json: string): string {
  return json.replace(HIDDEN, (c) => `\\u{${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}}`);
}

/** Where JSON text has a `__proto__` key: `{` or `,` then the quoted key (a string value's quotes are escaped). */
const PROTO_KEY = /[{,]"__proto__":/;

/**
 * With `rejectProtoKeys`, arguments with a `__proto__` key anywhere are refused: the diagnostic
 * naming the first one (`keyword: 'proto_key'`), or `undefined` when there is none. `text` is
 * the arguments' JSON (as `JSON.stringify` writes it: a key is `"__proto__"` exactly), `value`
 * that text read back (where `JSON.parse` made each such key an own property), walked only when
 * the text has one.
 */
export function protoKeyProblem(text: string, value: unknown): Diagnostic | undefined {
  if (!PROTO_KEY.test(text)) return undefined;
  return { path: protoKeyPath(value, '') ?? '', keyword: 'proto_key', message: 'is a "__proto__" key, which this page refuses (rejectProtoKeys)' };
}

/** Where the first own `__proto__` key of parsed JSON is (its nesting is bounded by `maxArgumentDepth`). */
function protoKeyPath(value: unknown, at: string): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  if (Object.prototype.hasOwnProperty.call(value, '__proto__')) return `${at}/__proto__`;
  for (const key of Object.keys(value)) {
    // A JSON Pointer segment: `~` and `/` escaped.
    const found = protoKeyPath((value as Record<string, unknown>)[key], `${at}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`);
    if (found !== undefined) return found;
  }
  return undefined;
}
