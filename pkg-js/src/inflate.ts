// Inflates the embedded core synchronously, with a wasm decoder of ~4 KB (the `inflate/`
// crate) that ships beside it as hex.
//
// Why wasm rather than a JavaScript inflater: on a page's first `webmcp()` nothing of ours has
// run yet, and a JS inflater runs cold (interpreted) code over ~75 KB of deflate: fflate, which
// this replaces, took 18–37 ms of the main thread in Chromium where this takes a few ms, as its
// code is compiled before its first instruction (bench/RESULTS.md). The module is instantiated
// for one use and dropped with its memory.
import { INFLATE_WASM_HEX } from '../wasm/warden_inflate_bytes.js';
import { decodeHex } from './embedded-bytes.js';

/** The decoder module's exports (inflate/src/wasm.rs). */
interface InflaterExports {
  readonly memory: WebAssembly.Memory;
  /** Where the stream goes: the module's input buffer. */
  input(): number;
  /** Where the answer is read from. */
  output(): number;
  /** Inflates the first `length` bytes of the input: the output's length, or an error code (< 0). */
  inflate(length: number): number;
}

/** What each negative answer of the decoder means (inflate/src/lib.rs, `Error`). */
const REASONS = ['', 'the data ends inside a block', 'a reserved block type', 'a stored block with a wrong length', 'malformed code lengths', 'an invalid code', 'a distance too far back', 'the output is too large', 'the input is too large'];

let compiled: WebAssembly.Module | undefined;

/**
 * Inflates raw DEFLATE data (RFC 1951) synchronously. Answers a view of the decoder's memory,
 * valid until the next call; compile it or copy it right away. Throws an `Error` saying why
 * when the data does not inflate.
 */
export function inflateRaw(deflated: Uint8Array): Uint8Array {
  compiled ??= new WebAssembly.Module(decodeHex(INFLATE_WASM_HEX) as BufferSource);
  const inflater = new WebAssembly.Instance(compiled).exports as unknown as InflaterExports;
  const memory = inflater.memory.buffer;
  const input = inflater.input();
  if (input + deflated.length > memory.byteLength) throw new Error(`webmcp-warden: cannot inflate ${deflated.length} bytes: ${REASONS[8]}`);
  new Uint8Array(memory, input, deflated.length).set(deflated);
  const answer = inflater.inflate(deflated.length);
  if (answer < 0) throw new Error(`webmcp-warden: the embedded module does not inflate: ${REASONS[-answer] ?? `code ${answer}`}`);
  return new Uint8Array(memory, inflater.output(), answer);
}

/**
 * Inflates raw DEFLATE data off the critical path: with the platform's `DecompressionStream`,
 * which runs in the page's stream tasks rather than in one block, where it has `deflate-raw`;
 * else (Node 20.0–20.11) with `inflateRaw`. For what loads asynchronously anyway (`ready()`, the
 * shaping chunk), so a page that never inflates synchronously never compiles the decoder above.
 */
export async function inflateRawAsync(deflated: Uint8Array): Promise<Uint8Array | ArrayBuffer> {
  try {
    const stream = new Blob([deflated as BlobPart]).stream().pipeThrough(new DecompressionStream('deflate-raw' as CompressionFormat));
    return await new Response(stream).arrayBuffer();
  } catch {
    return inflateRaw(deflated);
  }
}
