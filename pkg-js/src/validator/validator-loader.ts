// Loading the JSON Schema validator module: once, when a tool with a JSON Schema is
// first registered or called, and again if it ever traps.
//
// How it ships, and why (the figures of each way: bench/RESULTS.md, "Build choices"):
//
// The `.wasm` file is the smallest download, but not every bundler handles such an asset: esbuild
// and plain Rollup leave a URL that answers 404 (one failed request, then a fallback), and Vite's
// dev server, pre-bundling, serves it with a MIME type that makes the glue warn (checked by hand;
// Vite build, webpack 5 and Next.js 16 emitted it fine). A dynamic `import()` of a JS module is
// split and served by every bundler and works unbundled: one code path everywhere, no request
// that can fail. Gzip and brotli cannot recompress compressed bytes, but they pack base64 back to
// them, so what the chunk weighs is what its compressor made. That is now LZMA (xz's best
// preset), smaller than Zopfli's deflate, decoded by the entry's wasm decoder (`unlzma.ts`, in
// slices with the page's other tasks in between), which takes more of the main thread than a
// platform decoder would (bench/RESULTS.md).
// Compilation is asynchronous (`WebAssembly.compile`, not the synchronous compile browsers refuse
// on the main thread for large modules) and needs CSP `'wasm-unsafe-eval'`, like the core.
//
// A trap (a bug, or running out of stack on a pathological schema) leaves an instance unusable:
// the call that trapped fails (closed: an invalid schema or an invalid instance), the instance is
// replaced by a new one of the same compiled `WebAssembly.Module`, and schemas are compiled again
// when next used (`generation` tells callers their handles are gone). The module exports free
// functions over integer handles, no class, so nothing in the page holds pointers into a dead
// instance (a class's FinalizationRegistry would free them in the new one).

import { adoptJudge, judgementMissing, validatorEngines } from '../../wasm/pattern-host.js';
import { installPatternLoaders } from '../boundary/patterns.js';
import { wasmBytesAsync } from '../boundary/wasm-bytes.js';
import { encodeJson } from '../boundary/wire.js';
import type { ValidatorModule } from './validator-module.js';

export type { ValidatorModule };

// The page's validator module, its load in progress and once loaded: one module for every client.
let loading: Promise<ValidatorModule> | undefined;
let loaded: ValidatorModule | undefined;

/** The validator module if it is loaded already (no loading starts): for releasing handles. */
export function loadedValidator(): ValidatorModule | undefined {
  return loaded;
}

/**
 * The validator module if it is loaded or loading (no loading starts): shaping takes its shaping
 * exports from it rather than loading the shaping module of its own (`shape-loader.ts`).
 */
export function loadingValidator(): Promise<ValidatorModule> | undefined {
  return loading;
}

/**
 * Whether a schema may hold a pattern: its JSON names `pattern` (a `pattern` or
 * `patternProperties` keyword, or a property of that name). Only which build to load rests on
 * it: a schema whose patterns the build cannot judge asks for the judgement module instead.
 */
function mayHoldPatterns(schemas: readonly unknown[]): boolean {
  return schemas.some((schema) => {
    try {
      return JSON.stringify(schema)?.includes('"pattern') === true;
    } catch {
      return false;
    }
  });
}

/**
 * Loads and compiles the validator module once (asynchronously, off the call's critical path).
 * The first load picks the build: when `schemas` (what is about to be compiled) may hold patterns
 * and nothing has loaded or is loading the pattern judgement, the build that also judges them,
 * which then judges every pattern of the page (docs/behaviour.md, "Patterns"): one download
 * instead of two.
 */
export function loadValidator(schemas: readonly unknown[] = []): Promise<ValidatorModule> {
  if (loading === undefined) {
    installPatternLoaders();
    const judges = judgementMissing() && mayHoldPatterns(schemas);
    loading = (async () => {
      // In parallel: the validator's code (the instance's guard, the glue, its pattern engine)
      // and the module's bytes.
      const [code, chunk] = await Promise.all([import('./validator-chunk.js'), judges ? import('../../wasm/warden_validate_judge_bytes.js') : import('../../wasm/warden_validate_bytes.js')]);
      const { instantiate, glue, host } = code;
      // The module reads the little JSON text it needs (its meta-schemas) with the page's
      // JSON.parse, answered in the wire format; its patterns are judged, and run on the linear
      // engine where the judgement says, by the modules the core's patterns use (pattern-host.js).
      host.setJsonEncoder(encodeJson);
      host.setPatternEngines(validatorEngines);
      loaded = await instantiate(glue, host, await wasmBytesAsync(chunk.WASM_FILE, chunk.WASM_LZMA_BASE64));
      return loaded;
    })();
    // The build that judges is the page's judgement: nothing else loads one meanwhile.
    if (judges) adoptJudge(loading.then((validator) => validator.judgement() as NonNullable<ReturnType<ValidatorModule['judgement']>>));
    // A failed load (an offline chunk, a CSP without 'wasm-unsafe-eval') may be retried by a later call.
    loading.catch(() => {
      loading = undefined;
    });
  }
  return loading;
}
