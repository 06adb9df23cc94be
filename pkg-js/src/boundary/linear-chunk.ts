// The linear-time pattern engine's module (`--features linear-module`, src/wasm/linear.rs), as a
// chunk the page imports only when a pattern's judgement routes long strings to it
// (patterns.ts): its glue and its bytes. Like the judgement's chunk, it imports nothing of the
// package's entry; the entry hands it the decoder when it starts.
import { compile, initSync, release, test } from '../../wasm/warden_linear.js';
import { WASM_LZMA_BASE64 } from '../../wasm/warden_linear_bytes.js';
import type { Loaded, LinearGlue } from '../../wasm/pattern-host.js';

/** What the entry hands a pattern chunk when it starts it. */
export interface ChunkDeps {
  /** Base64 to bytes (`embedded-bytes.ts`). */
  decodeBase64(text: string): Uint8Array;
  /** The LZMA decoder, in slices (`unlzma.ts`). */
  unlzmaAsync(stream: Uint8Array): Promise<Uint8Array>;
}

/** Decodes and compiles the module (off the main thread); answers it with its glue, for pattern-host.js. */
export async function start(deps: ChunkDeps): Promise<Loaded<LinearGlue>> {
  const module = await WebAssembly.compile((await deps.unlzmaAsync(deps.decodeBase64(WASM_LZMA_BASE64))) as BufferSource);
  return { glue: { initSync, compile, test, release }, module };
}
