// Where the core's compiled module comes from, for the main entry and every other entry but
// `/slim`: the bytes shipped in the package (LZMA-compressed, base64-encoded: build.mjs says
// why), decoded by the package's decoder (unlzma.ts, in core.ts). The `/slim` build replaces this module
// with core-source-slim.ts (pkg-js/bundle.mjs), whose module is the `.wasm` file `init()` loads.
//
// The core's bytes first: bundlers then put them at the top of the page's entry, so that the
// package's JS is one run a compressor can read as a whole (a run split by them compresses
// worse: bench/RESULTS.md, "Patterns").
import { WASM_LZMA_BASE64 } from '../../wasm/warden_core_bytes.js';
import { decodeBase64 } from './embedded-bytes.js';

/** The core as shipped: its LZMA stream, which core.ts decodes (unlzma.ts) and compiles. */
export function coreSource(): Uint8Array | WebAssembly.Module {
  return decodeBase64(WASM_LZMA_BASE64);
}

/** The same, for core.ts's asynchronous path (`ready()`, `register()`). */
export async function coreSourceAsync(): Promise<Uint8Array | WebAssembly.Module> {
  return coreSource();
}
