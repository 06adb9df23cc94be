// Decodes the package's wasm modules, which ship LZMA-compressed (pkg-js/build.mjs), with a small
// wasm decoder of our own (the `unlzma/` crate) that ships beside the core as hex. One
// decoder for every module: the core in the entry, and shaping, the validator, the pattern
// judgement and the linear engine in their chunks, which import `unlzmaAsync` from here.
//
// Why LZMA and this decoder: LZMA is the smallest download of the formats a page can decode
// (several KB smaller than Zopfli's deflate for each module), and no platform API decodes it; a
// wasm decoder runs compiled code where a JS one would run interpreted on a cold page. It decodes
// several times slower than inflating: on the synchronous path (the first `webmcp()` that needs
// the core at once) that is the cost of the smaller import; on the asynchronous one (`ready()`, `register()`, the chunks) it works in slices with the page's
// other tasks in between, so no task of ours is long (bench/RESULTS.md, "Patterns").
import { UNLZMA_WASM_HEX } from '../../wasm/warden_unlzma_bytes.js';

/** The decoder module's exports (unlzma/src/wasm.rs). */
interface DecoderExports {
  readonly memory: WebAssembly.Memory;
  /** Where the stream goes: the module's input buffer. */
  input(): number;
  /** Where the answer is read from. */
  output(): number;
  /** Starts on the first `length` bytes of the input: 0, or an error code (< 0). */
  start(length: number): number;
  /** Decodes at most `budget` more bytes: `PENDING`, the output's length once done, or an error code (< 0). */
  resume(budget: number): number;
}

/** `resume`'s answer when it stopped at its budget (unlzma/src/wasm.rs). */
const PENDING = -100;

/**
 * How many bytes one slice of decoding writes: a small part of a long task's threshold on the
 * machine the benchmarks run on (bench/RESULTS.md, "Patterns"), so that no task of ours is long
 * even on a phone several times slower.
 */
const SLICE_BYTES = 32 * 1024;

/** What each negative answer of the decoder means (unlzma/src/lib.rs, `Error`). */
const REASONS = ['', 'the data ends before its end marker', 'unsupported properties', 'the data is corrupt', 'a distance too far back', 'the output is too large', 'the input is too large'];

/** The page's compiled decoder, shared by every module it unpacks. */
let compiled: WebAssembly.Module | undefined;

/** A fresh instance of the decoder (each decode has its own: its answer is a view of its memory). */
function decoder(module: WebAssembly.Module, stream: Uint8Array): DecoderExports {
  const exports = new WebAssembly.Instance(module).exports as unknown as DecoderExports;
  const input = exports.input();
  if (input + stream.length > exports.memory.buffer.byteLength) throw new Error(`webmcp-warden: cannot decode ${stream.length} bytes: ${REASONS[6]}`);
  new Uint8Array(exports.memory.buffer, input, stream.length).set(stream);
  return exports;
}

/** The decoded module, or the reason it did not decode. */
function answer(exports: DecoderExports, code: number): Uint8Array {
  if (code < 0) throw new Error(`webmcp-warden: an embedded module does not decode: ${REASONS[-code] ?? `code ${code}`}`);
  return new Uint8Array(exports.memory.buffer, exports.output(), code);
}

/**
 * Decodes an LZMA stream synchronously, in one go (the core's first use on the main thread).
 * Answers a view of the decoder's memory: compile it or copy it right away. Throws an `Error`
 * saying why when it does not decode.
 */
export function unlzma(stream: Uint8Array): Uint8Array {
  compiled ??= new WebAssembly.Module(decodeHex(UNLZMA_WASM_HEX) as BufferSource);
  const exports = decoder(compiled, stream);
  const started = exports.start(stream.length);
  return answer(exports, started < 0 ? started : exports.resume(0x7fff_ffff));
}

/**
 * Decodes an LZMA stream in slices, with the page's other tasks in between, the decoder
 * compiled off the main thread the first time. Answers a view of the decoder's memory, which
 * `WebAssembly.compile` copies when called; rejects when the stream does not decode.
 */
export async function unlzmaAsync(stream: Uint8Array): Promise<Uint8Array> {
  compiled ??= await WebAssembly.compile(decodeHex(UNLZMA_WASM_HEX) as BufferSource);
  const exports = decoder(compiled, stream);
  let code = exports.start(stream.length);
  while (code === 0) {
    code = exports.resume(SLICE_BYTES);
    if (code !== PENDING) break;
    code = 0;
    await nextTask();
  }
  return answer(exports, code);
}

/**
 * Lets the page's other tasks run: `scheduler.yield()` where there is one (Chromium), else a
 * message to ourselves (a task of its own, without the 4 ms that nested timers wait), else a
 * timer.
 */
function nextTask(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
  if (typeof scheduler?.yield === 'function') return scheduler.yield();
  if (typeof MessageChannel !== 'function') return new Promise((resolve) => setTimeout(resolve, 0));
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      channel.port2.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

/**
 * Decodes hex natively where the platform can (`Uint8Array.fromHex`), else with a loop (a few
 * KB: the decoder). Hex rather than base64 for a module that ships uncompressed: every byte is
 * two whole characters, so gzip and brotli still see the module's byte patterns (less gzip
 * than base64, measured: bench/RESULTS.md).
 */
export function decodeHex(hex: string): Uint8Array {
  const native = (Uint8Array as { fromHex?: (text: string) => Uint8Array }).fromHex;
  if (typeof native === 'function') return native.call(Uint8Array, hex);
  const bytes = new Uint8Array(hex.length >> 1);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}
