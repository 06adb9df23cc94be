// The shaping module: what rewrites a result for a model's context (`src/shape/`), built from
// the crate with `--features shape-module` (`src/wasm/shape.rs`). It needs no configuration, so
// it is a module of its own, out of the core a page compiles at its first `webmcp()`: 8.5 KB
// (gzip) less at import. A page loads it before its first call (`register()` starts it, a call
// or a listing that shapes awaits it); its bytes ship deflated, in a chunk of their own, and are
// inflated by the inflater the core already uses.
//
// Like the core, a trapped instance is replaced: the next crossing instantiates the compiled
// module again. Shaping keeps nothing between crossings, so there is nothing to replay.
import type * as ShapeGlue from '../wasm/warden_shape.js';
import { decodeBase64 } from './embedded-bytes.js';
import { inflateRaw } from './inflate.js';

type Glue = typeof ShapeGlue;

let glue: Glue | undefined;
let compiled: WebAssembly.Module | undefined;
let live = false;
let memory: WebAssembly.Memory | undefined;
let loading: Promise<void> | undefined;

/** Whether shaping can run now (its module is loaded): shaping's crossings are synchronous. */
export function shaperLoaded(): boolean {
  return compiled !== undefined;
}

/**
 * Loads and compiles the shaping module once (`WebAssembly.compile`, off the main thread). A
 * failed load (an offline chunk, a CSP without `'wasm-unsafe-eval'`) rejects, and a later call
 * tries again.
 */
export function loadShaper(): Promise<void> {
  if (compiled !== undefined) return Promise.resolve();
  loading ??= (async () => {
    const [module, chunk] = await Promise.all([import('../wasm/warden_shape.js'), import('../wasm/warden_shape_bytes.js')]);
    const bytes = await WebAssembly.compile(inflateRaw(decodeBase64(chunk.WASM_DEFLATED_BASE64)) as BufferSource);
    glue = module;
    compiled = bytes;
  })();
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

/** Thrown when shaping runs before its module is loaded: a bug of this package (callers await `loadShaper`). */
export class ShaperNotLoaded extends Error {
  constructor() {
    super('webmcp-warden: the shaping module is not loaded yet');
    this.name = 'ShaperNotLoaded';
  }
}

/** Runs one crossing on the live instance (made from the compiled module if none is); a trap drops it. */
function guard<T>(crossing: (exports: Glue) => T): T {
  if (glue === undefined || compiled === undefined) throw new ShaperNotLoaded();
  if (!live) {
    memory = glue.initSync({ module: compiled }).memory;
    live = true;
  }
  try {
    return crossing(glue);
  } catch (err) {
    // A trap (out of memory, a bug) leaves the instance half-changed: the next crossing gets a new one.
    if (err instanceof WebAssembly.RuntimeError || (err instanceof Error && /unreachable/i.test(err.message))) live = false;
    throw err;
  }
}

/** The shaping module's exports (`src/wasm/shape.rs`), each crossing guarded. */
export const shaper = {
  scanText: (text: string) => guard((g) => g.scanText(text)),
  shapeCandidatePattern: () => guard((g) => g.shapeCandidatePattern()),
  shapeFlagNames: () => guard((g) => g.shapeFlagNames()),
  shapeLimits: () => guard((g) => g.shapeLimits()),
  shapeMediaKinds: (mime: string) => guard((g) => g.shapeMediaKinds(mime)),
  shapeResult: (request: Uint8Array) => guard((g) => g.shapeResult(request)),
  /** Forces a trap (tests of the recovery only). */
  testTrap: () => guard((g) => g.__testTrap()),
};

/**
 * The size of the live instance's linear memory in bytes (0 before the first crossing). Wasm
 * memory only grows, so tests read it before and after a large result to show what shaping keeps.
 */
export function shaperMemoryBytes(): number {
  return live && memory !== undefined ? memory.buffer.byteLength : 0;
}
