// Where the core's module comes from, for the main entry and every other entry but `/slim`: the
// core as shipped in the package, which core.ts turns into bytes with wasm-bytes.ts (the
// embedded copy decoded, or in the Node build the `.wasm` file read). The `/slim` build replaces
// this module with core-source-slim.ts (pkg-js/bundle.mjs), whose module is the `.wasm` file
// `init()` loads.
//
// The core's bytes first: bundlers then put them at the top of the page's entry, so that the
// package's JS is one run a compressor can read as a whole (a run split by them compresses
// worse: bench/RESULTS.md, "Patterns").
import { WASM_FILE, WASM_LZMA_BASE64 } from '../../wasm/warden_core_bytes.js';

/** A wasm module as the package ships it: its `.wasm` file's name and its embedded copy (wasm-bytes.ts reads either). */
export interface ShippedWasm {
  readonly file: string;
  readonly lzmaBase64: string;
}

/** The core as shipped, which core.ts reads and compiles. */
export function coreSource(): ShippedWasm | WebAssembly.Module {
  return { file: WASM_FILE, lzmaBase64: WASM_LZMA_BASE64 };
}

/** The same, for core.ts's asynchronous path (`ready()`, `register()`). */
export async function coreSourceAsync(): Promise<ShippedWasm | WebAssembly.Module> {
  return coreSource();
}
