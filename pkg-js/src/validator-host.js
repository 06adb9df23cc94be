// The validator module's pattern engines, the page's own RegExp with the judgement and the
// linear-time engine the core's patterns use too, and its JSON parser, the page's own
// JSON.parse (wasm/validate/lib.rs imports these functions; the build copies this file to
// wasm/validator-host.js, beside the glue).
//
// JSON Schema patterns are ECMA-262 regular expressions, so they are compiled exactly as
// written, with the `u` flag (as ajv does by default). Each compiled pattern is kept here under
// an id the module holds; the module releases the id when its schema is dropped. How each may
// run on an agent's text is the judgement's (docs/behaviour.md, "Patterns"): the engines are the
// entry's (pattern-host.js), handed over by the loader (`setPatternEngines`), so this chunk
// imports nothing of the package. Every function is imported with `catch` where it can throw:
// what RegExp throws (a SyntaxError, a RangeError from a runaway match) becomes an error value
// in Rust, never an exception unwinding through wasm.
//
// Plain JavaScript, not TypeScript: wasm-bindgen copies this file into the build as it is.

/** The judgement and the linear engine (pattern-host.js's `validatorEngines`), once handed over. */
let engines;

/**
 * Installs the pattern engines the loader hands over.
 * @param {{ judge(id: number, source: string, flags: string, allowUnsafe: boolean): number, word(index: number): number, linearTest(id: number, text: string): boolean, release(id: number): void, releaseAll(): void }} given
 */
export function setPatternEngines(given) {
  engines = given;
}

/** @type {Map<number, RegExp>} */
const patterns = new Map();
let lastId = 0;

/**
 * Compiles `source` with `flags` (the module gives `u`); answers its id. Throws the engine's
 * message (a string) when the page's RegExp refuses the pattern.
 * @param {string} source
 * @param {string} flags
 * @returns {number}
 */
export function patternCompile(source, flags) {
  let regexp;
  try {
    regexp = new RegExp(source, flags);
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
 * The first word of the judgement of pattern `id`, or 0xFFFFFFFF while the judgement is not
 * loaded (asking starts the load; pattern-host.js).
 * @param {number} id
 * @param {string} source
 * @param {string} flags
 * @param {boolean} allowUnsafe
 * @returns {number}
 */
export function patternJudge(id, source, flags, allowUnsafe) {
  return engines === undefined ? 0xffff_ffff : engines.judge(id, source, flags, allowUnsafe);
}

/**
 * Word `index` (1 to 3) of the judgement `patternJudge` answered last.
 * @param {number} index
 * @returns {number}
 */
export function judgementWord(index) {
  return engines === undefined ? 0 : engines.word(index);
}

/**
 * Whether pattern `id` matches somewhere in `text` (no `g` or `y` flag: `lastIndex` plays no
 * part), on the page's engine or (`linear`) the linear-time one. Throws when the id is unknown
 * or the engine fails.
 * @param {number} id
 * @param {string} text
 * @param {boolean} linear
 * @returns {boolean}
 */
export function patternTest(id, text, linear) {
  if (linear) {
    if (engines === undefined) throw new Error('the linear engine is not loaded');
    return engines.linearTest(id, text);
  }
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
  engines?.release(id);
}

/**
 * Forgets every pattern: the loader calls it when it replaces a broken instance of the module,
 * whose ids die with it.
 */
export function patternReleaseAll() {
  patterns.clear();
  engines?.releaseAll();
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
