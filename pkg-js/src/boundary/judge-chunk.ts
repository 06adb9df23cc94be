// The pattern judgement's module (`wasm/patterns/lib.rs`), as a
// chunk the page imports when it first has a pattern (patterns.ts): its glue and its bytes.
import { initSync, judge } from '../../wasm/warden_patterns.js';
import { WASM_FILE, WASM_LZMA_BASE64 } from '../../wasm/warden_patterns_bytes.js';
import type { JudgeGlue, Loaded } from '../../wasm/pattern-host.js';
import { wasmBytesAsync } from './wasm-bytes.js';

/** Decodes and compiles the module (off the main thread); answers it with its glue, for pattern-host.js. */
export async function start(): Promise<Loaded<JudgeGlue>> {
  const module = await WebAssembly.compile((await wasmBytesAsync(WASM_FILE, WASM_LZMA_BASE64)) as BufferSource);
  return { glue: { initSync, judge }, module };
}
