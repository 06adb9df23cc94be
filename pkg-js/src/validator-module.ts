// The validator module's instance and its guard: what `validator-loader.ts` loads, in a chunk of
// its own with the module's glue and host functions (`validator-chunk.ts`; the module's bytes
// are fetched in parallel), so a page without a JSON Schema never downloads it. It imports
// nothing at run time: a chunk that imported the package's other modules would make esbuild
// move them into a chunk shared with the page's entry. How the module ships, and why:
// `validator-loader.ts`.

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
 * Compiles the module from its LZMA stream (decoded by `decoder`, the `unlzma/` crate's module;
 * compiled asynchronously: `WebAssembly.compile`, not the synchronous compile browsers refuse on
 * the main thread for large modules) and instantiates it.
 */
export async function instantiate(glue: Glue, host: Host, stream: Uint8Array, decoder: Uint8Array): Promise<ValidatorModule> {
  const module = await WebAssembly.compile((await unlzma(stream, decoder)) as BufferSource);
  return new ValidatorModule(glue, host, module);
}

/** The decoder module's exports (unlzma/src/wasm.rs). */
interface DecoderExports {
  readonly memory: WebAssembly.Memory;
  /** Where the stream goes: the module's input buffer. */
  input(): number;
  /** Where the answer is read from. */
  output(): number;
  /** Starts on the first `length` bytes of the input: 0, or an error code (< 0). */
  start(length: number): number;
  /** Decodes at most `budget` more bytes: `PENDING`, the output's length once done, or an error code (< 0). */
  resume(budget: number): number;
}

/** `resume`'s answer when it stopped at its budget (unlzma/src/wasm.rs). */
const PENDING = -100;

/**
 * How many bytes one slice of decoding writes: about 1.5 ms of the main thread in Chromium on the
 * machine the benchmarks run on (the validator takes ~8 slices), so that no task of ours is long
 * even on a phone several times slower.
 */
const SLICE_BYTES = 32 * 1024;

/** What each negative answer of the decoder means (unlzma/src/lib.rs, `Error`). */
const REASONS = ['', 'the data ends before its end marker', 'unsupported properties', 'the data is corrupt', 'a distance too far back', 'the output is too large', 'the input is too large'];

/**
 * Decodes the LZMA stream with the decoder module, instantiated for this one use, in slices with
 * the page's other tasks in between. Answers a view of the decoder's memory, which
 * `WebAssembly.compile` copies when called.
 */
async function unlzma(stream: Uint8Array, decoder: Uint8Array): Promise<Uint8Array> {
  const { instance } = await WebAssembly.instantiate(decoder as BufferSource);
  const exports = instance.exports as unknown as DecoderExports;
  const input = exports.input();
  if (input + stream.length > exports.memory.buffer.byteLength) throw new Error(`webmcp-warden: cannot decode the validator module: ${REASONS[6]}`);
  new Uint8Array(exports.memory.buffer, input, stream.length).set(stream);
  let answer = exports.start(stream.length);
  while (answer === 0) {
    answer = exports.resume(SLICE_BYTES);
    if (answer !== PENDING) break;
    answer = 0;
    await nextTask();
  }
  if (answer < 0) throw new Error(`webmcp-warden: the validator module does not decode: ${REASONS[-answer] ?? `code ${answer}`}`);
  return new Uint8Array(exports.memory.buffer, exports.output(), answer);
}

/**
 * Lets the page's other tasks run: `scheduler.yield()` where there is one (Chromium), else a
 * message to ourselves (a task of its own, without the 4 ms that nested timers wait), else a
 * timer.
 */
function nextTask(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
  if (typeof scheduler?.yield === 'function') return scheduler.yield();
  if (typeof MessageChannel !== 'function') return new Promise((resolve) => setTimeout(resolve, 0));
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      channel.port2.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}
