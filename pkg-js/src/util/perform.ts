// Performing one step: call a user function under a deadline and the call's abort signal.
// What it returned is read by `facts.ts` and judged by the core.

/** A user function as a step calls it. */
export type AnyHook = (...args: any[]) => unknown;

/** The signal of calls that have none: never aborted, and never listened to. */
export const NEVER_ABORTED = new AbortController().signal;

/** How a step the TS layer performed ended. */
export const Ended = { Value: 0, Raise: 1, Timeout: 2, Aborted: 3 } as const;
/** One of {@link Ended}'s values. */
export type Ended = (typeof Ended)[keyof typeof Ended];

/**
 * When the last synchronous step with a deadline ended (`performance.now()`; -1 when the last
 * step threw, had no deadline or answered a promise). A caller that
 * performs its next step right after, with only its own code in between (no await, no user
 * code), passes it as that step's `startedAt` and saves a clock read per step (bench/RESULTS.md,
 * "Build choices, measured"). The page's, not a client's: steps of every client run on its one thread.
 */
export let syncEndedAt = -1;

/**
 * Runs `fn(...args)` under a deadline and the call's signal; a throw or rejection comes back
 * with its value, for the tool's error (a hook's is dropped by the caller). A synchronous return is used as is
 * (no promise, no timer), so the common case of sync hooks costs no extra microtasks.
 */
export function perform(fn: AnyHook, args: unknown[], timeoutMs: number | undefined, signal: AbortSignal, startedAt = -1): [Ended, unknown] | Promise<[Ended, unknown]> {
  let returned: unknown;
  const started = timeoutMs === undefined ? 0 : startedAt >= 0 ? startedAt : performance.now();
  // An abort counts when it happens during this step, including inside `fn` before it returned
  // its promise (the 'abort' event has fired by then, so a listener added below would never
  // hear it). A step that started on an already aborted signal (error and denied hooks of an
  // aborted call) is left to finish: its observers still run and may recover.
  const abortedBefore = signal !== NEVER_ABORTED && signal.aborted;
  let thenable: boolean;
  try {
    returned = fn(...args);
    // Reading `then` is part of the step: a getter that throws there is the hook's raise.
    thenable = isThenable(returned);
  } catch (err) {
    syncEndedAt = -1;
    return [Ended.Raise, err];
  }
  // Set after `fn` returned, so a step performed inside it (a hook calling another tool) does
  // not leave its own time here.
  syncEndedAt = -1;
  if (!thenable) {
    // A synchronous hook cannot be interrupted, but one that ran past its deadline failed it.
    if (timeoutMs !== undefined) {
      syncEndedAt = performance.now();
      if (syncEndedAt - started > timeoutMs) return [Ended.Timeout, undefined];
    }
    return [Ended.Value, returned];
  }
  if (!abortedBefore && signal !== NEVER_ABORTED && signal.aborted) {
    (returned as PromiseLike<unknown>).then(undefined, () => undefined);
    return [Ended.Aborted, undefined];
  }
  // The shared never-aborted signal gets no listener: thousands of concurrent calls without a
  // signal would otherwise pile listeners onto one object (and Node warns past ten).
  const listen = !abortedBefore && signal !== NEVER_ABORTED;
  return new Promise((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const settle = (result: [Ended, unknown]) => {
      if (timer !== undefined) clearTimeout(timer);
      if (listen) signal.removeEventListener('abort', onAbort);
      resolve(result);
    };
    const onAbort = () => settle([Ended.Aborted, undefined]);
    if (timeoutMs !== undefined) timer = setTimeout(() => settle([Ended.Timeout, undefined]), timeoutMs);
    if (listen) signal.addEventListener('abort', onAbort, { once: true });
    try {
      (returned as PromiseLike<unknown>).then(
        (value) => settle([Ended.Value, value]),
        (err) => settle([Ended.Raise, err]),
      );
    } catch (err) {
      settle([Ended.Raise, err]);
    }
  });
}

/** Whether `value` is a thenable (reading `then` may throw: the caller treats that as a raise). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function';
}
