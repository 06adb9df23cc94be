// UTF-16 facts the package needs in several places, written once: JS strings may hold lone
// surrogates, which neither JSON text nor the core's UTF-8 strings can carry.
//
// Its top-level values are made by calls marked `@__PURE__`, so that a page's bundler can drop
// them where nothing uses them, inside a chunk of the bundled dist/ too (ARCHITECTURE.md, "Build
// outputs").

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = /* @__PURE__ */ new RegExp(LONE_SURROGATE.source, 'g');

type Native = { isWellFormed?: () => boolean; toWellFormed?: () => string };
const native = String.prototype as Native;

/** Whether `text` holds a UTF-16 surrogate without its partner. */
export const hasLoneSurrogate: (text: string) => boolean = /* @__PURE__ */ (() =>
  typeof native.isWellFormed === 'function' ? (text: string) => !(text as Native).isWellFormed!() : (text: string) => LONE_SURROGATE.test(text))();

/** `text` with every lone surrogate replaced by U+FFFD (`String.prototype.toWellFormed`). */
export function wellFormed(text: string): string {
  // `isWellFormed` first: V8's `toWellFormed` copies even a well-formed string (slower than the
  // check alone, measured: bench/RESULTS.md), and the check is free on one-byte strings.
  if (!hasLoneSurrogate(text)) return text;
  const own = text as Native;
  return typeof own.toWellFormed === 'function' ? own.toWellFormed() : text.replace(LONE_SURROGATES, '\uFFFD');
}

const nodeBuffer = /* @__PURE__ */ (() => (globalThis as { Buffer?: { byteLength(text: string, encoding: 'utf8'): number } }).Buffer)();

/** UTF-8 bytes of `text`, a lone surrogate counting as U+FFFD (3 bytes), as the core and the wire write it. */
export function utf8Length(text: string): number {
  if (nodeBuffer) return nodeBuffer.byteLength(text, 'utf8');
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) continue;
    if (unit < 0x800) bytes += 1;
    else if (unit >= 0xd800 && unit <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      // A pair: 4 bytes for its 2 units.
      bytes += 2;
      i++;
    } else bytes += 2;
  }
  return bytes;
}
