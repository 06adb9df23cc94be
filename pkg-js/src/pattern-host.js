// The page's pattern engines beside its own RegExp (docs/behaviour.md, "Patterns"): the pattern
// judgement and the linear-time engine, two wasm modules of their own that load when the page
// first needs them. The core's glue imports this file (wasm/host/lib.rs; the build copies it to
// wasm/pattern-host.js, beside the glue), the validator's host reaches it through the engines the
// loader hands over (`validatorEngines`), and the package's modules import it for readiness.
//
// Kept small: it is in every page's entry. It loads nothing itself: the package installs the
// loaders (pkg-js/src/boundary/patterns.ts, dynamic imports of the two chunks), or a judgement compiled
// synchronously (pkg-js/src/api/lint.ts). It judges nothing either: the judgement module answers,
// and this file only remembers, by pattern, what it answered.
//
// - A pattern is asked about when it is compiled (`judgePattern`). While the judgement is not
//   loaded the answer is "not loaded" (0xFFFFFFFF), asking starts the load, and the pattern is
//   remembered: once the judgement loads, every remembered pattern is judged, so that what
//   `register()` reports and what the first call needs are ready before either runs.
// - A pattern the judgement routes long strings to the linear engine (route kind 1) is compiled
//   there, in a slot of this file's choosing, loading the engine first. The core and the
//   validator each know their patterns by their own numbers; each has a map to linear slots.
// - `patternsSettled()` is what the package awaits before a call, a listing, a dry run or a
//   schema's compilation: a promise while a load is in flight, `undefined` otherwise.
// - A module that traps is replaced by a new instance of the same compiled module (the linear
//   engine's slots compiled again); the test or judgement that saw it fails closed.
//
// Plain JavaScript, not TypeScript: wasm-bindgen copies this file into the build as it is.

/** The answer of `judgePattern` while the judgement is not loaded. */
const NOT_LOADED = 0xffff_ffff;

/** The judgement of a pattern the judgement module failed on (a trap): refused, unread. */
const FAILED = [3, 0, 0, 0];

/** @type {import('./pattern-host.js').PatternLoaders | undefined} */
let loaders;
/** The judgement module's glue, once an instance is live. @type {import('./pattern-host.js').JudgeGlue | undefined} */
let judge;
/** @type {WebAssembly.Module | undefined} */
let judgeModule;
/** @type {Promise<void> | undefined} */
let judgeLoading;
/** The linear engine's glue, once an instance is live. @type {import('./pattern-host.js').LinearGlue | undefined} */
let linear;
/** @type {WebAssembly.Module | undefined} */
let linearModule;
/** @type {Promise<void> | undefined} */
let linearLoading;
/** Why the last load failed (cleared by a load that succeeds). @type {unknown} */
let failure;
/** The words of the judgement answered last (`judgementWord`). @type {ArrayLike<number>} */
let last = FAILED;

/**
 * The linear engine's slots: what each holds (its source and flags), `undefined` when free.
 * @type {({ source: string, flags: string } | undefined)[]}
 */
const slots = [];

/**
 * What this file keeps for one side (the core's patterns, the validator's), by the side's own
 * number for a pattern: its linear slot; the patterns asked about while the judgement was not
 * loaded (and, once it loaded, their judgement, kept for when the side asks again); the patterns
 * a judgement refused.
 */
function side() {
  return {
    /** @type {Map<number, number>} */
    linear: new Map(),
    /** @type {Map<number, { source: string, flags: string, allowUnsafe: boolean, words?: ArrayLike<number> }>} */
    pending: new Map(),
    /** @type {Map<number, { source: string, flags: string, allowUnsafe: boolean }>} */
    refused: new Map(),
  };
}

const core = side();
const validator = side();
/** How many times the validator asked while the judgement was not loaded. */
let misses = 0;

/**
 * Installs the loaders of the two modules (the package's patterns.ts does, once).
 * @param {import('./pattern-host.js').PatternLoaders} given
 */
export function setPatternLoaders(given) {
  loaders ??= given;
}

/**
 * Installs the judgement: its glue and compiled module (the chunk's, or lint.ts's synchronous
 * copy), and judges every pattern waiting for it. A second install keeps the first.
 * @param {import('./pattern-host.js').Loaded<import('./pattern-host.js').JudgeGlue>} loaded
 */
export function installJudge(loaded) {
  if (judge !== undefined) return;
  loaded.glue.initSync({ module: loaded.module });
  judge = loaded.glue;
  judgeModule = loaded.module;
  failure = undefined;
  for (const waiting of [core, validator]) {
    for (const [key, entry] of waiting.pending) {
      entry.words = judged(entry.source, entry.flags, entry.allowUnsafe);
      settle(waiting, key, entry, entry.words);
    }
  }
}

/** Whether the judgement is loaded. */
export function hasJudge() {
  return judge !== undefined;
}

/**
 * Starts loading the judgement unless it is loaded or loading; resolves when that load is over
 * (it never rejects: `patternLoadFailure()` says why it failed).
 * @returns {Promise<void>}
 */
export function startPatternLoad() {
  if (judge !== undefined || loaders === undefined) return Promise.resolve();
  judgeLoading ??= loaders.judge().then(installJudge, (err) => {
    failure = err;
  }).finally(() => {
    judgeLoading = undefined;
  });
  return judgeLoading;
}

/** Whether the judgement is neither loaded nor loading. */
export function judgementMissing() {
  return judge === undefined && judgeLoading === undefined;
}

/**
 * Takes the judgement from another load (the validator's build that judges), unless one is loaded
 * or loading already: nothing else loads a judgement meanwhile.
 * @param {Promise<import('./pattern-host.js').Loaded<import('./pattern-host.js').JudgeGlue>>} loading
 */
export function adoptJudge(loading) {
  if (!judgementMissing()) return;
  judgeLoading = loading.then(installJudge, (err) => {
    failure = err;
  }).finally(() => {
    judgeLoading = undefined;
  });
}

/** Starts loading the linear engine unless it is loaded or loading. */
function startLinearLoad() {
  if (linear !== undefined || linearLoading !== undefined || loaders === undefined) return;
  linearLoading = loaders.linear().then((loaded) => {
    loaded.glue.initSync({ module: loaded.module });
    linear = loaded.glue;
    linearModule = loaded.module;
    failure = undefined;
    compileSlots();
  }, (err) => {
    failure = err;
  }).finally(() => {
    linearLoading = undefined;
  });
}

/**
 * A promise while a module this file needs is loading (resolved once nothing is in flight any
 * more, whatever the outcome), else `undefined`: what the package awaits before anything that
 * can test a pattern.
 * @returns {Promise<void> | undefined}
 */
export function patternsSettled() {
  if (judgeLoading === undefined && linearLoading === undefined) return undefined;
  return Promise.all([judgeLoading, linearLoading]).then(() => patternsSettled());
}

/** Why the last load of a module failed, or `undefined`. */
export function patternLoadFailure() {
  return failure;
}

/** Whether a pattern of the core is still waiting for the judgement (its load failed or is in flight). */
export function patternsWanted() {
  return judge === undefined && core.pending.size > 0;
}

/** The core's patterns a judgement refused, as compiled: what `register()` reports. */
export function refusedPatterns() {
  return [...core.refused.values()];
}

/** How many times the validator asked while the judgement was not loaded (a schema compiled then is compiled again). */
export function validatorMisses() {
  return misses;
}

/**
 * The judgement's words for a pattern, from the loaded module; a module that throws (a trap) is
 * replaced, and this pattern is refused (fails closed).
 * @param {string} source
 * @param {string} flags
 * @param {boolean} allowUnsafe
 * @returns {ArrayLike<number>}
 */
function judged(source, flags, allowUnsafe) {
  try {
    return /** @type {import('./pattern-host.js').JudgeGlue} */ (judge).judge(source, flags, allowUnsafe);
  } catch {
    try {
      /** @type {import('./pattern-host.js').JudgeGlue} */ (judge).initSync({ module: /** @type {WebAssembly.Module} */ (judgeModule) });
    } catch {
      // The next judgement throws again and is refused the same way.
    }
    return FAILED;
  }
}

/**
 * Answers side `of` about its pattern `key`: the first word of its judgement, or "not loaded".
 * @param {ReturnType<typeof side>} of
 * @param {number} key
 * @param {string} source
 * @param {string} flags
 * @param {boolean} allowUnsafe
 */
function ask(of, key, source, flags, allowUnsafe) {
  const entry = { source, flags, allowUnsafe };
  if (judge === undefined) {
    of.pending.set(key, entry);
    if (of === validator) misses++;
    void startPatternLoad();
    return NOT_LOADED;
  }
  const waiting = of.pending.get(key);
  of.pending.delete(key);
  const same = waiting?.words !== undefined && waiting.source === source && waiting.flags === flags && waiting.allowUnsafe === allowUnsafe;
  const words = same ? /** @type {ArrayLike<number>} */ (waiting.words) : judged(source, flags, allowUnsafe);
  settle(of, key, entry, words);
  last = words;
  return words[0] >>> 0;
}

/**
 * What a judgement means here: a refusal is remembered, a split route gets a linear slot.
 * @param {ReturnType<typeof side>} of
 * @param {number} key
 * @param {{ source: string, flags: string, allowUnsafe: boolean }} entry
 * @param {ArrayLike<number>} words
 */
function settle(of, key, entry, words) {
  const kind = (words[0] ?? 3) & 3;
  if (kind === 3) of.refused.set(key, { source: entry.source, flags: entry.flags, allowUnsafe: entry.allowUnsafe });
  else of.refused.delete(key);
  const had = of.linear.get(key);
  const held = had === undefined ? undefined : slots[had];
  // Asked again about a pattern already prepared (judged when the judgement loaded, then by its side).
  if (kind === 1 && held !== undefined && held.source === entry.source && held.flags === entry.flags) return;
  freeSlot(of, key);
  if (kind !== 1) return;
  let slot = slots.indexOf(undefined);
  if (slot < 0) slot = slots.length;
  slots[slot] = { source: entry.source, flags: entry.flags };
  of.linear.set(key, slot);
  if (linear !== undefined) compileSlot(slot);
  else startLinearLoad();
}

/**
 * Compiles linear slot `slot` from what it holds; a slot the engine refuses stays empty there
 * (its tests are "could not test").
 * @param {number} slot
 */
function compileSlot(slot) {
  const held = slots[slot];
  if (held === undefined || linear === undefined) return;
  try {
    linear.compile(slot, held.source, held.flags);
  } catch {
    // Tested as "no pattern in the slot", which fails closed.
  }
}

/** Compiles every live slot (the engine just loaded, or was replaced). */
function compileSlots() {
  for (let slot = 0; slot < slots.length; slot++) compileSlot(slot);
}

/**
 * Frees the linear slot of side `of`'s pattern `key`, if it has one.
 * @param {ReturnType<typeof side>} of
 * @param {number} key
 */
function freeSlot(of, key) {
  const slot = of.linear.get(key);
  if (slot === undefined) return;
  of.linear.delete(key);
  slots[slot] = undefined;
  try {
    linear?.release(slot);
  } catch {
    // A broken instance is replaced at its next test.
  }
}

/**
 * Forgets side `of`'s pattern `key` (it was released).
 * @param {ReturnType<typeof side>} of
 * @param {number} key
 */
function forget(of, key) {
  of.pending.delete(key);
  of.refused.delete(key);
  freeSlot(of, key);
}

/**
 * Tests `text` on the linear engine, in linear slot `slot`. Throws (the caller's "could not
 * test") when the engine is not loaded, the slot holds nothing, or the engine failed; an engine
 * that threw is replaced by a new instance with every slot compiled again.
 * @param {number | undefined} slot
 * @param {string} text
 */
function testLinear(slot, text) {
  if (slot === undefined || linear === undefined) throw new Error('the linear engine is not loaded');
  let answer;
  try {
    answer = linear.test(slot, text);
  } catch (err) {
    linear.initSync({ module: /** @type {WebAssembly.Module} */ (linearModule) });
    compileSlots();
    throw err;
  }
  if (answer < 0) throw new Error('the linear engine holds no such pattern');
  return answer === 1;
}

// ---- the core's imports (wasm/host/lib.rs) -----------------------------------------------------

/**
 * The first word of the judgement of the core's pattern `slot`, or 0xFFFFFFFF while the
 * judgement is not loaded (asking starts the load).
 * @param {number} slot
 * @param {string} source
 * @param {string} flags
 * @param {boolean} allowUnsafe
 * @returns {number}
 */
export function judgePattern(slot, source, flags, allowUnsafe) {
  return ask(core, slot, source, flags, allowUnsafe);
}

/**
 * Word `index` (1 to 3) of the judgement answered last.
 * @param {number} index
 * @returns {number}
 */
export function judgementWord(index) {
  return (last[index] ?? 0) >>> 0;
}

/**
 * Whether the core's pattern `slot` matches somewhere in `text`, on the linear engine; throws
 * when it could not be tested.
 * @param {number} slot
 * @param {string} text
 * @returns {boolean}
 */
export function linearTest(slot, text) {
  return testLinear(core.linear.get(slot), text);
}

/**
 * The core released its pattern `slot`.
 * @param {number} slot
 */
export function linearRelease(slot) {
  forget(core, slot);
}

/** The core's instance was replaced (a trap): its pattern slots are gone. */
export function coreReplaced() {
  for (const key of [...core.linear.keys(), ...core.pending.keys(), ...core.refused.keys()]) forget(core, key);
}

// ---- the validator's (wasm/validate/lib.rs, through validator-host.js) ---------------------

/** The engines the validator's host is handed (validator-loader.ts), by the validator's pattern ids. */
export const validatorEngines = {
  /** @type {(id: number, source: string, flags: string, allowUnsafe: boolean) => number} */
  judge: (id, source, flags, allowUnsafe) => ask(validator, id, source, flags, allowUnsafe),
  word: judgementWord,
  /** @type {(id: number, text: string) => boolean} */
  linearTest: (id, text) => testLinear(validator.linear.get(id), text),
  /** @type {(id: number) => void} */
  release: (id) => forget(validator, id),
  releaseAll: () => {
    for (const key of [...validator.linear.keys(), ...validator.pending.keys(), ...validator.refused.keys()]) forget(validator, key);
  },
};
