// Text to bytes, the way the package embeds its wasm modules: base64 (every module, LZMA-compressed;
// the LZMA decoder itself ships as hex: unlzma.ts).

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
