// Loading shaping: the code that runs it (`shape.ts`) is part of this chunk (the pipeline chunk,
// which every page that registers or calls loads at the same moment: one file packs smaller than
// two, `bench/RESULTS.md`), and the module that shapes is the validator module when the page validates with a JSON Schema (it
// shapes too: one download for both) or else the shaping module, a chunk of its own
// (`shape-module.ts`). Shaping needs no configuration, so it left the core a page compiles at
// its first `webmcp()`. `register()` starts loading it, a call or a listing that shapes awaits
// it, and the public `shapeForModel` (pipeline-loader.ts) loads it. What it needs of the entry's
// modules it is handed when it starts (see `shape.ts`).
import { shapeForModel, start, stripText, type Shaping } from './shape.js';
import type { ShapeEngine } from './shape.js';
import { decode, decodeBase64, loadingValidator, Tag, TrapGuard, unlzmaAsync, Writer } from './from-entry.js';
import { isContainer, jsonView, ownMember, SKIP, Unsupported, Unsayable, walkJson } from './json-walk.js';
import { utf8Length, wellFormed } from './unicode.js';

let shaping: Shaping | undefined;
let loading: Promise<Shaping> | undefined;

/** Whether shaping can run now (its chunk is loaded and its module compiled): shaping is synchronous. */
export function shaperLoaded(): boolean {
  return shaping !== undefined;
}

/** The shaping module of its own, decoded and compiled. */
function ownModule(): Promise<ShapeEngine> {
  return import('./shape-module.js').then((chunk) => chunk.start({ decodeBase64, unlzmaAsync, TrapGuard }));
}

/**
 * Loads the shaping chunk and the module that shapes once: the validator module when it is
 * loaded or loading (a page with a JSON Schema; should it fail to load, the shaping module), else
 * the shaping module, compiled off the main thread. Answers the chunk's exports. A failed load
 * (an offline chunk, a CSP without `'wasm-unsafe-eval'`) rejects, and a later call tries again.
 */
export function loadShaper(): Promise<Shaping> {
  if (shaping !== undefined) return Promise.resolve(shaping);
  loading ??= (async () => {
    const validator = loadingValidator();
    // Only what the package's calls use (the tests import the rest from shape.js): a namespace
    // would carry every export, and make esbuild share its helper through one more chunk.
    const chunk: Shaping = { shapeForModel, stripText };
    const engine = await (validator === undefined ? ownModule() : validator.then((module) => module.shaping(), ownModule));
    start({ isContainer, jsonView, ownMember, SKIP, Unsupported, Unsayable, walkJson, utf8Length, wellFormed, decode, Tag, Writer }, engine);
    shaping = chunk;
    return chunk;
  })();
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

/** The loaded shaping chunk; throws when it is not loaded, a bug of this package (callers await `loadShaper` first). */
export function loadedShaping(): Shaping {
  if (shaping === undefined) throw new Error('webmcp-warden: the shaping module is not loaded yet');
  return shaping;
}
