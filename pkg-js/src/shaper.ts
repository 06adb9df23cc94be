// Loading shaping: the shaping module (the Rust crate's `src/shape/`, built with
// `--features shape-module`) and the code that runs it (`shape.ts`) are one chunk the page
// imports lazily. It needs no configuration, so it left the core a page compiles at its first
// `webmcp()`: 11.5 KB (gzip) less at import, the code and the module together. `register()`
// starts loading it, a call or a listing that shapes awaits it, and the public `shapeForModel`
// (pipeline-loader.ts) loads it. What it needs of the entry's modules it is handed when it starts (see `shape.ts`).
import type * as Shaping from './shape.js';
import { decode, decodeBase64, inflateRawAsync, Tag, Writer } from './from-entry.js';
import { isContainer, jsonView, ownMember, SKIP, Unsupported, Unsayable, walkJson } from './json-walk.js';
import { utf8Length, wellFormed } from './unicode.js';

let shaping: typeof Shaping | undefined;
let loading: Promise<typeof Shaping> | undefined;

/** Whether shaping can run now (its chunk is loaded and its module compiled): shaping is synchronous. */
export function shaperLoaded(): boolean {
  return shaping !== undefined;
}

/**
 * Loads the shaping chunk and compiles its module once (`WebAssembly.compile`, off the main
 * thread); answers the chunk's exports. A failed load (an offline chunk, a CSP without
 * `'wasm-unsafe-eval'`) rejects, and a later call tries again.
 */
export function loadShaper(): Promise<typeof Shaping> {
  if (shaping !== undefined) return Promise.resolve(shaping);
  loading ??= (async () => {
    const chunk = await import('./shape.js');
    await chunk.start({ isContainer, jsonView, ownMember, SKIP, Unsupported, Unsayable, walkJson, utf8Length, wellFormed, decode, Tag, Writer, inflateRawAsync, decodeBase64 });
    shaping = chunk;
    return chunk;
  })();
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

/** The loaded shaping chunk; throws when it is not loaded, a bug of this package (callers await `loadShaper` first). */
export function loadedShaping(): typeof Shaping {
  if (shaping === undefined) throw new Error('webmcp-warden: the shaping module is not loaded yet');
  return shaping;
}
