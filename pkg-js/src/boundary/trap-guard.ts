// The one trap guard of the package's wasm modules: the core (`core.ts`), the validator
// (`validator-module.ts`), shaping (`shape-module.ts`), limits (`limits.ts`), the policy lint
// (`lint-module.ts`) and resource URIs (`uri-module.ts`) each keep their instance in a
// `TrapGuard` and cross through it.
//
// A trap (an out-of-memory, a bug: a Rust panic becomes a trap) leaves wasm-bindgen's
// instance half-changed: its next crossing may read broken state, or throw "recursive use of an
// object" for a borrow the trapped call never released. So a crossing that traps marks the
// instance dead, and the next crossing makes a fresh one from the same compiled module (each
// module's `start` says what else a fresh instance needs: the core's clients replay their
// configuration, limits compile every client's limits again, the validator's schemas are compiled
// again when next used).
//
// Imports nothing, so every module that keeps an instance, in the entry or in a lazily loaded
// chunk, imports it directly.

/**
 * Whether `err`, thrown by a crossing into a wasm instance, is a trap: the instance cannot be
 * used again. A trap is a `WebAssembly.RuntimeError` (`unreachable` is what a Rust panic
 * becomes), or wasm-bindgen's refusal to re-enter an instance a trap left borrowed.
 */
export function isTrap(err: unknown): boolean {
  return err instanceof WebAssembly.RuntimeError || (err instanceof Error && /recursive use of an object|unreachable/i.test(err.message));
}

/** One wasm module's instance: made on first use, and again after a trap. */
export class TrapGuard {
  #live = false;
  readonly #start: () => void;
  readonly #trapped: (err: unknown) => unknown;

  /**
   * `start` makes the instance (it throws when it cannot); `trapped` answers what a crossing
   * that trapped throws (the trap itself unless it says otherwise).
   */
  constructor(start: () => void, trapped: (err: unknown) => unknown = (err) => err) {
    this.#start = start;
    this.#trapped = trapped;
  }

  /** Whether an instance is live (no crossing trapped since it was made). */
  get live(): boolean {
    return this.#live;
  }

  /** Makes the instance unless one is live. */
  open(): void {
    if (!this.#live) {
      this.#start();
      this.#live = true;
    }
  }

  /** Forgets the instance: the next crossing makes a fresh one (for a module that replaces it on any failure). */
  drop(): void {
    this.#live = false;
  }

  /**
   * What a crossing threw, to throw on: a trap marks the instance dead and becomes what
   * `trapped` answers; anything else is thrown as it is. For crossings guarded inline (the hot
   * path makes no closure per call).
   */
  failed(err: unknown): unknown {
    if (!isTrap(err)) return err;
    this.#live = false;
    return this.#trapped(err);
  }

  /** Runs one crossing on the live instance (made first if none is); a trap marks it dead and throws. */
  run<T>(crossing: () => T): T {
    this.open();
    try {
      return crossing();
    } catch (err) {
      throw this.failed(err);
    }
  }
}
