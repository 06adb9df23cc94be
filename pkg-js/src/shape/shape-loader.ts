// Loading shaping: the code that runs it (`shaping.ts`) is part of this chunk (the pipeline chunk,
// which every page that registers or calls loads at the same moment: one file packs smaller than
// two, `bench/RESULTS.md`), and the module that shapes is the validator module when the page validates with a JSON Schema (it
// shapes too: one download for both) or else the shaping module, a chunk of its own
// (`shape-module.ts`). Shaping needs no configuration, so it left the core a page compiles at
// its first `webmcp()`. `register()` starts loading it, a call or a listing that shapes awaits
// it, and the public `shapeForModel` (pipeline-loader.ts) loads it.
import { shapeForModel, start, stripText, type Shaping } from './shaping.js';
import type { ShapingExports } from '../types/internal.js';
import { loadingValidator } from '../validator/validator-loader.js';

// The page's shaping once loaded, and its load in progress: one module for every client.
let shaping: Shaping | undefined;
let loading: Promise<Shaping> | undefined;

/** Whether shaping can run now (its chunk is loaded and its module compiled): shaping is synchronous. */
export function shaperLoaded(): boolean {
  return shaping !== undefined;
}

/** The shaping module of its own, decoded and compiled. */
function ownModule(): Promise<ShapingExports> {
  return import('./shape-module.js').then((chunk) => chunk.start());
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
    // Only what the package's calls use (the tests import the rest from shaping.js): a namespace
    // would carry every export, and make esbuild share its helper through one more chunk.
    const chunk: Shaping = { shapeForModel, stripText };
    const shapes = await (validator === undefined ? ownModule() : validator.then((module) => module.shaping(), ownModule));
    start(shapes);
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
