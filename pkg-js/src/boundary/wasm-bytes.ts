// The bytes of a wasm module the package ships, ready to compile. This build decodes the copy
// embedded in the package (LZMA, base64: build.mjs says why), with the package's own decoder
// (unlzma.ts). The Node build (dist/node/, pkg-js/bundle.mjs) replaces this module with
// wasm-bytes-node.ts, which reads the module's `.wasm` file instead.
import { decodeBase64 } from './embedded-bytes.js';
import { unlzma, unlzmaAsync } from './unlzma.js';

/**
 * A module's bytes, decoded on the calling thread in one go (for modules compiled
 * synchronously). `file` names the module's `.wasm` file, which this build does not read.
 */
export function wasmBytes(file: string, lzmaBase64: string): Uint8Array {
  return unlzma(decodeBase64(lzmaBase64));
}

/** The same, decoded in slices with the page's other tasks in between (unlzma.ts). */
export function wasmBytesAsync(file: string, lzmaBase64: string): Promise<Uint8Array> {
  return unlzmaAsync(decodeBase64(lzmaBase64));
}
