// The bytes of a wasm module the package ships, for the Node build (dist/node/: the `node`
// condition of package.json's `exports`; pkg-js/bundle.mjs puts this module in place of
// wasm-bytes.ts). Node downloads nothing, so decoding the embedded LZMA copy would only cost
// start-up time: the module's `.wasm` file, shipped beside the build's code, is read instead.
//
// When the file is not there (a server bundler copied the code without it), the embedded copy
// is decoded as in the other builds: slower to start, the same module.
import { readFileSync } from 'node:fs';
import { decodeBase64 } from './embedded-bytes.js';
import { unlzma, unlzmaAsync } from './unlzma.js';

/** A module's bytes: its `.wasm` file beside this build, else its embedded copy decoded. */
export function wasmBytes(file: string, lzmaBase64: string): Uint8Array {
  return readShipped(file) ?? unlzma(decodeBase64(lzmaBase64));
}

/** The same; the file is read synchronously (a few hundred KB at most, read once). */
export function wasmBytesAsync(file: string, lzmaBase64: string): Promise<Uint8Array> {
  const shipped = readShipped(file);
  return shipped !== undefined ? Promise.resolve(shipped) : unlzmaAsync(decodeBase64(lzmaBase64));
}

/** The file's bytes, or `undefined` when it cannot be read. */
function readShipped(file: string): Uint8Array | undefined {
  try {
    return readFileSync(new URL(`./${file}`, import.meta.url));
  } catch {
    return undefined;
  }
}
