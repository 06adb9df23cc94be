// The page's patterns beside its own RegExp (docs/behaviour.md, "Patterns"): the pattern
// judgement and the linear-time engine are wasm modules of their own, each a chunk this file
// loads when the page first needs it (a pattern compiled while the judgement is missing asks for
// it; a judgement that routes long strings to the linear engine asks for that). What each
// answered is kept by `pattern-host.js`, which the core's glue imports; this file installs the
// loaders there and says what `register()` must report.
import { hasJudge, patternLoadFailure, patternsSettled, patternsWanted, refusedPatterns, setPatternLoaders, startPatternLoad, validatorMisses } from '../../wasm/pattern-host.js';
import { configurationError, WardenError } from '../util/errors.js';
import type { CheckPatternAnswer } from './answers.js';

export { hasJudge, patternsSettled, validatorMisses };

/** Installs the loaders of the two chunks in pattern-host.js (once; called before the core or the validator first runs). */
export function installPatternLoaders(): void {
  setPatternLoaders({
    judge: () => import('./judge-chunk.js').then((chunk) => chunk.start()),
    linear: () => import('./linear-chunk.js').then((chunk) => chunk.start()),
  });
}

/**
 * The error `register()` rejects with when the pattern judgement did not load (its patterns
 * cannot be judged: calls fail them closed until it loads; the next use tries again).
 */
export function judgementMissing(): WardenError {
  const why = patternLoadFailure();
  return new WardenError('internal_error', `internal error in webmcp-warden: the pattern judgement did not load (${why instanceof Error ? why.message : String(why)})`, { cause: why });
}

/**
 * Why the page's patterns keep `register()` from going on, once the modules they wait for have
 * loaded: the judgement that did not load (a `WardenError('internal_error')`; the next
 * `register()` tries again), or a pattern the core compiled before the judgement was loaded and
 * the judgement refuses (`ConfigurationError('unsafe_pattern')`, naming it, in the words of
 * `check`: the core's own check of a pattern, its answer decoded).
 */
export async function patternsProblem(check: (source: string, flags: string, allowUnsafe: boolean) => CheckPatternAnswer): Promise<WardenError | undefined> {
  if (patternsWanted() && patternsSettled() === undefined) await startPatternLoad();
  await patternsSettled();
  if (patternsWanted()) return judgementMissing();
  for (const { source, flags, allowUnsafe } of refusedPatterns()) {
    const answer = check(source, flags, allowUnsafe);
    if (!answer.ok) return configurationError(answer.error);
  }
  return undefined;
}
