// Text to bytes, the way the package embeds its wasm modules: base64 (every module, LZMA-compressed)
// and hex (the LZMA decoder, which cannot be compressed by itself).

/**
 * Decodes base64 natively where the platform can (`Uint8Array.fromBase64`: current browsers;
 * `Buffer` in Node), else with `atob` and a loop. Native matters on a page's first `webmcp()`,
 * where the loop runs cold and many times slower (bench/RESULTS.md, "Build choices").
 */
export function decodeBase64(base64: string): Uint8Array {
  const native = (Uint8Array as { fromBase64?: (text: string) => Uint8Array }).fromBase64;
  if (typeof native === 'function') return native.call(Uint8Array, base64);
  const buffer = (globalThis as { Buffer?: { from(data: string, encoding: string): Uint8Array } }).Buffer;
  if (buffer) return buffer.from(base64, 'base64');
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
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
