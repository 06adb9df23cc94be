// The validator module's instance and its guard: what `validator-loader.ts` loads, in a chunk of
// its own with the module's glue and host functions (`validator-chunk.ts`; the bytes of the
// module, or of the build that also judges patterns, are fetched in parallel), so a page without a JSON Schema never downloads it. The module shapes
// too (`wasm/validate/`, which links `wasm/shape/`): a page that validates also shapes, and one
// module carries what both need once (`ValidatorModule.shaping`). How the module ships, and why:
// `validator-loader.ts`.
import type { ShapingExports } from '../types/internal.js';
import { TrapGuard } from '../boundary/trap-guard.js';

/** The validator module's exports, as loaded (the generated glue, plus its reset). */
export interface Glue {
  initSync(options: { module: WebAssembly.Module }): { memory: WebAssembly.Memory };
  __wbg_reset(): void;
  compile(schema: Uint8Array, allowUnsafe: boolean): string;
  validate(handle: number, instance: Uint8Array, maxDepth: number): string;
  dropSchema(handle: number): void;
  schemaCount(): number;
  __test_trap(): void;
  // Shaping (`wasm/shape/lib.rs`), built into the module.
  scanText(text: string): Uint32Array;
  shapeFlagNames(): string;
  shapeLimits(): Uint32Array;
  shapeMediaKinds(mime: string): number;
  shapeResult(request: Uint8Array): Uint8Array;
  __testTrap(): void;
  /** The pattern judgement (`wasm/patterns/lib.rs`): only the build that judges patterns has it. */
  judge(source: string, flags: string, allowUnsafe: boolean): Uint32Array;
}

/** The pattern engines and JSON parser the module imports (its `RegExp`s live there, by id). */
export interface Host {
  patternReleaseAll(): void;
  setJsonEncoder(encode: (value: unknown) => Uint8Array): void;
  /** Hands over the judgement and the linear engine (the entry's pattern-host.js). */
  setPatternEngines(engines: PatternEngines): void;
}

/** The judgement and the linear engine, by the module's pattern ids (pattern-host.js's `validatorEngines`). */
export interface PatternEngines {
  judge(id: number, source: string, flags: string, allowUnsafe: boolean): number;
  word(index: number): number;
  linearTest(id: number, text: string): boolean;
  release(id: number): void;
  releaseAll(): void;
}

/** Why a call answered without the module: it trapped (and was replaced), or it is unusable. */
const FAILED = 'validator_failed';

/**
 * The loaded validator. `compile` and `validate` answer the module's JSON text (see
 * `wasm/validate/lib.rs`); a call during which the module trapped answers
 * `{ ok: false, error: { code: 'validator_failed', message } }` and the module is replaced, so the
 * next call works on a fresh instance, where handles from earlier generations are unknown.
 */
export class ValidatorModule {
  /** Bumped each time the instance is replaced: handles of an earlier generation are gone. */
  generation = 0;
  /** How many times the instance was replaced after a trap (for tests and diagnostics). */
  replacements = 0;

  /** The live instance's memory. */
  #memory!: WebAssembly.Memory;
  /** The instance (`trap-guard.ts`): made at once, and again at once after a failure. */
  readonly #instance: TrapGuard;

  constructor(
    /** The module's glue (read by the test helpers below). */
    readonly glue: Glue,
    host: Host,
    /** The compiled module. */
    readonly module: WebAssembly.Module,
  ) {
    let first = true;
    this.#instance = new TrapGuard(() => {
      // A new instance of the same compiled module; the old one's patterns and handles are forgotten.
      if (!first) {
        glue.__wbg_reset();
        host.patternReleaseAll();
        this.generation += 1;
        this.replacements += 1;
      }
      first = false;
      this.#memory = glue.initSync({ module }).memory;
    });
    this.#instance.open();
  }

  /**
   * Its shaping exports, for shaping (`shaping.ts`), each crossing guarded: a trap replaces the
   * instance (the schemas are compiled again when next used) and the crossing throws.
   */
  shaping(): ShapingExports {
    const glue = this.glue;
    return {
      scanText: (text) => this.run(() => glue.scanText(text)),
      shapeFlagNames: () => this.run(() => glue.shapeFlagNames()),
      shapeLimits: () => this.run(() => glue.shapeLimits()),
      shapeMediaKinds: (mime) => this.run(() => glue.shapeMediaKinds(mime)),
      shapeResult: (request) => this.run(() => glue.shapeResult(request)),
      testTrap: () => this.run(() => glue.__testTrap()),
      memoryBytes: () => this.#memory.buffer.byteLength,
    };
  }

  /**
   * The pattern judgement of the build that has it (`undefined` otherwise), as pattern-host.js
   * takes a judgement: its glue (replacing the instance is this guard's: `initSync` does
   * nothing) and the compiled module.
   */
  judgement(): { glue: { initSync(): void; judge(source: string, flags: string, allowUnsafe: boolean): Uint32Array }; module: WebAssembly.Module } | undefined {
    if (!WebAssembly.Module.exports(this.module).some((e) => e.name === 'judge')) return undefined;
    const judge = this.glue.judge;
    return { glue: { initSync: () => undefined, judge: (source, flags, allowUnsafe) => this.run(() => judge(source, flags, allowUnsafe)) }, module: this.module };
  }

  /** Runs one crossing that answers no JSON text: a trap replaces the instance, and the crossing throws. */
  run<T>(crossing: () => T): T {
    try {
      return this.#instance.run(crossing);
    } catch (err) {
      // Replaced at once (not at the next crossing): `generation` tells callers their handles are gone.
      this.#instance.open();
      throw err;
    }
  }

  /**
   * Compiles a schema (a JSON value in the wire format; `allowUnsafe`: the page's opt-in to
   * patterns neither engine can be trusted with): `{ ok, handle, notes }` or `{ ok: false, error }`.
   */
  compile(schema: Uint8Array, allowUnsafe = false): string {
    return this.guard('compiling the schema', () => this.glue.compile(schema, allowUnsafe));
  }

  /**
   * Validates an instance (a JSON value in the wire format, at most `maxDepth` levels deep)
   * against a handle: `''` when it is valid, else `{ ok: true, valid: false, diagnostics, summary }`
   * or `{ ok: false, error }`.
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
      answer = this.#instance.run(call);
    } catch (err) {
      this.replace();
      const what = err instanceof WebAssembly.RuntimeError ? 'trapped' : 'failed';
      return JSON.stringify({ ok: false, error: { code: FAILED, message: `the validator module ${what} while ${doing} and was reloaded` } });
    }
    // serde_json writes the keys in order: an unusable table answers exactly this way.
    if (answer.startsWith('{"error":{"code":"validator_broken"')) {
      this.replace();
      try {
        return this.#instance.run(call);
      } catch {
        this.replace();
        return JSON.stringify({ ok: false, error: { code: FAILED, message: `the validator module failed while ${doing} and was reloaded` } });
      }
    }
    return answer;
  }

  /**
   * A new instance of the same compiled module, whatever failed (a trap, or an exception such as
   * a stack overflow that left the table half-changed).
   */
  private replace(): void {
    this.#instance.drop();
    this.#instance.open();
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
 * Compiles the module from its bytes (what `wasm-bytes.ts` made of the shipped copy)
 * asynchronously (`WebAssembly.compile`, not the synchronous compile browsers refuse on the main
 * thread for large modules) and instantiates it.
 */
export async function instantiate(glue: Glue, host: Host, bytes: Uint8Array): Promise<ValidatorModule> {
  const module = await WebAssembly.compile(bytes as BufferSource);
  return new ValidatorModule(glue, host, module);
}
