// The linear-time pattern engine's module (`wasm/linear/lib.rs`), as a
// chunk the page imports only when a pattern's judgement routes long strings to it
// (patterns.ts): its glue and its bytes.
import { compile, initSync, release, test } from '../../wasm/warden_linear.js';
import { WASM_FILE, WASM_LZMA_BASE64 } from '../../wasm/warden_linear_bytes.js';
import type { Loaded, LinearGlue } from '../../wasm/pattern-host.js';
import { wasmBytesAsync } from './wasm-bytes.js';

/** Decodes and compiles the module (off the main thread); answers it with its glue, for pattern-host.js. */
export async function start(): Promise<Loaded<LinearGlue>> {
  const module = await WebAssembly.compile((await wasmBytesAsync(WASM_FILE, WASM_LZMA_BASE64)) as BufferSource);
  return { glue: { initSync, compile, test, release }, module };
}
