// The validator module's instance and its guard: what `validator-loader.ts` loads, in a chunk of
// its own (imported in parallel with the module's glue and bytes), so a page without a JSON
// Schema never downloads it. It imports nothing at run time: a chunk that imported the package's
// other modules would make esbuild move them into a chunk shared with the page's entry. How the
// module ships, and why: `validator-loader.ts`.

/** The validator module's exports, as loaded (the generated glue, plus its reset). */
export interface Glue {
  initSync(options: { module: WebAssembly.Module }): unknown;
  __wbg_reset(): void;
  compile(schema: Uint8Array): string;
  validate(handle: number, instance: Uint8Array, maxDepth: number): string;
  dropSchema(handle: number): void;
  schemaCount(): number;
  __test_trap(): void;
}

/** The pattern engine and JSON parser the module imports (its `RegExp`s live there, by id). */
export interface Host {
  patternReleaseAll(): void;
  setJsonEncoder(encode: (value: unknown) => Uint8Array): void;
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

  /** Compiles a schema (a JSON value in the wire format): `{ ok, handle }` or `{ ok: false, error }`. */
  compile(schema: Uint8Array): string {
    return this.guard('compiling the schema', () => this.glue.compile(schema));
  }

  /**
   * Validates an instance (a JSON value in the wire format, at most `maxDepth` levels deep)
   * against a handle: `{ ok: true, valid, diagnostics, summary }` or `{ ok: false, error }`.
   */
  validate(handle: number, instance: Uint8Array, maxDepth: number): string {
    return this.guard('validating', () => this.glue.validate(handle, instance, maxDepth));
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

// For tests only, functions rather than methods so that no page's bundle carries them.

/** How many compiled schemas `validator` holds (for tests: unused schemas are freed). */
export function schemaCount(validator: ValidatorModule): number {
  try {
    return validator.glue.schemaCount();
  } catch {
    return 0;
  }
}

/** For tests only: makes the module trap, as a bug would. */
export function testTrap(validator: ValidatorModule): string {
  return validator.guard('trapping on purpose', () => {
    validator.glue.__test_trap();
    return '';
  });
}

/**
 * Compiles the module from its deflated bytes (asynchronously: `WebAssembly.compile`, not the
 * synchronous compile browsers refuse on the main thread for large modules) and instantiates it.
 */
export async function instantiate(glue: Glue, host: Host, deflated: Uint8Array): Promise<ValidatorModule> {
  const module = await WebAssembly.compile((await inflate(deflated)) as BufferSource);
  return new ValidatorModule(glue, host, module);
}

/** Undoes zlib "deflate" with the platform's DecompressionStream. */
async function inflate(bytes: Uint8Array): Promise<ArrayBuffer> {
  if (typeof DecompressionStream !== 'function') {
    throw new Error('JSON Schema validation needs DecompressionStream (Node 18, Chrome 80, Firefox 113, Safari 16.4 or later)');
  }
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new DecompressionStream('deflate'));
  return new Response(stream).arrayBuffer();
}
