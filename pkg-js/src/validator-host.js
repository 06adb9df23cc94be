// The validator module's pattern engine, the page's own RegExp, and its JSON parser, the page's
// own JSON.parse (src/wasm/validator.rs imports these functions; the build copies this file to
// wasm/validator-host.js, beside the glue).
//
// JSON Schema patterns are ECMA-262 regular expressions, so they are compiled exactly as
// written, with the `u` flag (as ajv does by default). Each compiled pattern is kept here under
// an id the module holds; the module releases the id when its schema is dropped. Every function
// is imported with `catch`: what RegExp throws (a SyntaxError, a RangeError from a runaway
// match) becomes an error value in Rust, never an exception unwinding through wasm.
//
// Plain JavaScript, not TypeScript: wasm-bindgen copies this file into the build as it is.

/** @type {Map<number, RegExp>} */
const patterns = new Map();
let lastId = 0;

/**
 * Compiles `source` with the `u` flag; answers its id. Throws the engine's message (a string)
 * when the page's RegExp refuses the pattern.
 * @param {string} source
 * @returns {number}
 */
export function patternCompile(source) {
  let regexp;
  try {
    regexp = new RegExp(source, 'u');
  } catch (err) {
    throw String(err instanceof Error ? err.message : err);
  }
  // Ids are u32 in the module: wrap, skipping any still in use.
  do lastId = lastId >= 0xffff_fffe ? 1 : lastId + 1;
  while (patterns.has(lastId));
  patterns.set(lastId, regexp);
  return lastId;
}

/**
 * Whether pattern `id` matches somewhere in `text` (no `g` or `y` flag: `lastIndex` plays no
 * part). Throws when the id is unknown or the engine fails.
 * @param {number} id
 * @param {string} text
 * @returns {boolean}
 */
export function patternTest(id, text) {
  const regexp = patterns.get(id);
  if (regexp === undefined) throw new Error(`no compiled pattern has id ${id}`);
  return regexp.test(text);
}

/**
 * Forgets pattern `id`.
 * @param {number} id
 */
export function patternRelease(id) {
  patterns.delete(id);
}

/**
 * Forgets every pattern: the loader calls it when it replaces a broken instance of the module,
 * whose ids die with it.
 */
export function patternReleaseAll() {
  patterns.clear();
}

/**
 * Writes a JSON value in the wire format (wire.ts `encodeJson`): installed by the loader, so this
 * file imports nothing and stays in the validator's chunk.
 * @type {((value: unknown) => Uint8Array) | undefined}
 */
let encodeJson;

/**
 * Installs the wire encoder {@link jsonParse} answers with.
 * @param {(value: unknown) => Uint8Array} encode
 */
export function setJsonEncoder(encode) {
  encodeJson = encode;
}

/**
 * Parses JSON text with the page's JSON.parse (the engine's bundled meta-schemas, and contents
 * declared `application/json`); answers the value in the wire format. Throws the parser's
 * message (a string) when the text is not JSON.
 * @param {string} text
 * @returns {Uint8Array}
 */
export function jsonParse(text) {
  if (encodeJson === undefined) throw 'no JSON encoder is installed';
  let value;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw String(err instanceof Error ? err.message : err);
  }
  return encodeJson(value);
}

/** How many compiled patterns are held (for tests). */
export function patternCount() {
  return patterns.size;
}
