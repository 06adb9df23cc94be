// Loading the JSON Schema validator module: once, when a tool with a JSON Schema is
// first registered or called, and again if it ever traps.
//
// How it ships, and why (numbers from pkg-js/build.mjs's report, brotli -q 11 / gzip -9):
//
// | way | raw | brotli | gzip |
// |---|---:|---:|---:|
// | `.wasm` file beside the JS, `new URL(…, import.meta.url)` | 297,221 | 98,709 | 115,719 |
// | this: Zopfli-deflated (zlib format), base64, in a JS chunk (`import()`) | 146,448 | 109,879 | 110,340 |
// | the same with zlib -9 instead of Zopfli | 154,712 | 116,202 | 116,564 |
// | base64 of the raw `.wasm` in a JS chunk (the old fallback) | 396,327 | 131,088 | 154,881 |
//
// The `.wasm` file is the smallest download, but not every bundler handles such an asset: esbuild
// and plain Rollup leave a URL that answers 404 (one failed request, then a fallback), and Vite's
// dev server, pre-bundling, serves it with a MIME type that makes the glue warn (checked by hand;
// Vite build, webpack 5 and Next.js 16 emitted it fine). A dynamic `import()` of a JS module is
// split and served by every bundler and works unbundled, and deflate is undone by the platform
// (`DecompressionStream`, in Node ≥ 18, Chrome 80, Firefox 113, Safari 16.4): one code path
// everywhere, no request that can fail, for ~11 KB more than the best case on the wire (and
// ~5 KB less than the `.wasm` under gzip: brotli and gzip cannot recompress deflated bytes, but
// they pack base64 back to them, and Zopfli deflates ~5.5 % smaller than gzip -9). Decompressing and compiling take ~10 ms in Node. Compilation is asynchronous
// (`WebAssembly.compile`, not the synchronous compile browsers refuse on the main thread for
// large modules) and needs CSP `'wasm-unsafe-eval'`, like the core.
//
// A trap (a bug, or running out of stack on a pathological schema) leaves an instance unusable:
// the call that trapped fails (closed: an invalid schema or an invalid instance), the instance is
// replaced by a new one of the same compiled `WebAssembly.Module`, and schemas are compiled again
// when next used (`generation` tells callers their handles are gone). The module exports free
// functions over integer handles, no class, so nothing in the page holds pointers into a dead
// instance (a class's FinalizationRegistry would free them in the new one).

import { decodeBase64 } from './core.js';

/** The validator module's exports, as loaded (the generated glue, plus its reset). */
interface Glue {
  initSync(options: { module: WebAssembly.Module }): unknown;
  __wbg_reset(): void;
  compile(schema: string): string;
  validate(handle: number, instance: string, maxBytes: number, maxDepth: number): string;
  dropSchema(handle: number): void;
  schemaCount(): number;
  __test_trap(): void;
  __test_conformance_suite(dialect: string, documents: string): string;
}

/** The pattern engine the module imports (its `RegExp`s live there, by id). */
interface Host {
  patternReleaseAll(): void;
}

/** Why a call answered without the module: it trapped (and was replaced), or it is unusable. */
const FAILED = 'validator_failed';

/**
 * The loaded validator. `compile` and `validate` answer the module's JSON text (see
 * `src/wasm/validator.rs`); a call during which the module trapped answers
 * `{ ok: false, error: { code: 'validator_failed', message } }` and the module is replaced, so the
 * next call works on a fresh instance, where handles from earlier generations are unknown.
 */
export class ValidatorModule {
  /** Bumped each time the instance is replaced: handles of an earlier generation are gone. */
  generation = 0;
  /** How many times the instance was replaced after a trap (for tests and diagnostics). */
  replacements = 0;

  constructor(
    /** The module's glue (read by the test helpers below). */
    readonly glue: Glue,
    private readonly host: Host,
    private readonly module: WebAssembly.Module,
  ) {
    glue.initSync({ module });
  }

  /** Compiles a schema (JSON text): `{ ok, handle }` or `{ ok: false, error }`. */
  compile(schema: string): string {
    return this.guard('compiling the schema', () => this.glue.compile(schema));
  }

  /** Validates JSON text against a handle: `{ ok: true, valid, diagnostics, summary }` or `{ ok: false, error }`. */
  validate(handle: number, instance: string, maxBytes: number, maxDepth: number): string {
    return this.guard('validating', () => this.glue.validate(handle, instance, maxBytes, maxDepth));
  }

  /** Releases a handle (a no-op for handles of an earlier generation). */
  dropSchema(handle: number): void {
    this.guard('dropping a schema', () => {
      this.glue.dropSchema(handle);
      return '';
    });
  }

  /**
   * Runs one call into the module. An exception (a trap, or a stack overflow in wasm) replaces the
   * instance and answers `validator_failed`; so does an answer saying the table is unusable
   * (`validator_broken`: an earlier call died holding it), after which the call is tried once more
   * on the new instance, since it did not cause the failure.
   */
  guard(doing: string, call: () => string): string {
    let answer: string;
    try {
      answer = call();
    } catch (err) {
      this.replace();
      const what = err instanceof WebAssembly.RuntimeError ? 'trapped' : 'failed';
      return JSON.stringify({ ok: false, error: { code: FAILED, message: `the validator module ${what} while ${doing} and was reloaded` } });
    }
    // serde_json writes the keys in order: an unusable table answers exactly this way.
    if (answer.startsWith('{"error":{"code":"validator_broken"')) {
      this.replace();
      try {
        return call();
      } catch {
        this.replace();
        return JSON.stringify({ ok: false, error: { code: FAILED, message: `the validator module failed while ${doing} and was reloaded` } });
      }
    }
    return answer;
  }

  /** A new instance of the same compiled module; the old one's patterns and handles are forgotten. */
  private replace(): void {
    this.glue.__wbg_reset();
    this.host.patternReleaseAll();
    this.generation += 1;
    this.replacements += 1;
    this.glue.initSync({ module: this.module });
  }
}

let loading: Promise<ValidatorModule> | undefined;
let loaded: ValidatorModule | undefined;

// For tests only, functions rather than methods so that no page's bundle carries them.

/** How many compiled schemas `validator` holds (for tests: unused schemas are freed). */
export function schemaCount(validator: ValidatorModule): number {
  try {
    return validator.glue.schemaCount();
  } catch {
    return 0;
  }
}

/**
 * For the JSON-Schema-Test-Suite run only: drops every compiled schema and sets the dialect of
 * schemas without `$schema` and the documents `$ref` may name (a JSON object, URI to document).
 */
export function testConformanceSuite(validator: ValidatorModule, dialect: 'draft-07' | '2020-12', documents: string): string {
  validator.generation += 1; // every handle is gone
  return validator.guard('setting up the conformance suite', () => validator.glue.__test_conformance_suite(dialect, documents));
}

/** For tests only: makes the module trap, as a bug would. */
export function testTrap(validator: ValidatorModule): string {
  return validator.guard('trapping on purpose', () => {
    validator.glue.__test_trap();
    return '';
  });
}

/** The validator module if it is loaded already (no loading starts): for releasing handles. */
export function loadedValidator(): ValidatorModule | undefined {
  return loaded;
}

/** Loads and compiles the validator module once (asynchronously, off the call's critical path). */
export function loadValidator(): Promise<ValidatorModule> {
  if (loading === undefined) {
    loading = (async () => {
      const [glue, host, chunk] = await Promise.all([
        import('../wasm/warden_validate.js') as Promise<unknown> as Promise<Glue>,
        import('../wasm/validator-host.js') as Promise<Host>,
        import('../wasm/warden_validate_deflate.js'),
      ]);
      const module = await WebAssembly.compile((await inflate(decodeBase64(chunk.WASM_DEFLATE_BASE64))) as BufferSource);
      loaded = new ValidatorModule(glue, host, module);
      return loaded;
    })();
    // A failed load (an offline chunk, a CSP without 'wasm-unsafe-eval') may be retried by a later call.
    loading.catch(() => {
      loading = undefined;
    });
  }
  return loading;
}

/** Undoes zlib "deflate" with the platform's DecompressionStream. */
async function inflate(bytes: Uint8Array): Promise<ArrayBuffer> {
  if (typeof DecompressionStream !== 'function') {
    throw new Error('JSON Schema validation needs DecompressionStream (Node 18, Chrome 80, Firefox 113, Safari 16.4 or later)');
  }
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new DecompressionStream('deflate'));
  return new Response(stream).arrayBuffer();
}
