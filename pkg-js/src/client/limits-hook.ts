// Where the `webmcp-warden/limits` entry plugs in (limits.ts): configuration and calls reach the
// limits module through the functions it installs here, so a page that does not import that entry
// downloads nothing of limits (docs/behaviour.md, "Limits"). Types and one object, importing
// nothing at run time.
import type { PolicyCall } from '../types/policy-types.js';

/**
 * What the limits module reads of a client (a `ClientState`): its clock, its deadline for page
 * functions, its functions; and where it keeps its own state for the client.
 */
export interface LimitsClient {
  readonly settings: { clock: () => number; hookTimeout: number };
  readonly predicates: { readonly table: readonly unknown[] };
  /** The limits module's state for this client (its own type: `webmcp-warden/limits` reads it), while it has limits. */
  limitsSlot: object | undefined;
}

/**
 * What a limits check comes to: within every limit, the token of the calls in flight it holds
 * (0: none); else the step report the core reads (`Invalid` with the limit's decision, or `Aborted`)
 * and its payload.
 */
export type LimitsChecked = number | [report: number, payload: unknown];

/** The limits module, as the configuration and the calls use it. */
export interface LimitsModule {
  /**
   * Compiles client `w`'s limits (the policy's `limits`, wire-encoded; `undefined` removes them),
   * keeping the counts of those that stay. Throws `ConfigurationError` for invalid limits,
   * leaving the client's limits as they were.
   */
  set(w: LimitsClient, limits: Uint8Array | undefined): void;
  /** Whether any of `w`'s limits selects tool `tool` on `server` (a call of one no limit selects is not checked). */
  selects(w: LimitsClient, server: string, tool: string): boolean;
  /**
   * Checks a call of tool `tool` on `server` for `principal` against `w`'s limits and counts it.
   * `call` gives what cost functions get; without it (a dry run) nothing is counted and no cost
   * function is called (it counts as failed). `now`: the time on `w`'s clock to count the call
   * at, when the caller has just read it (else the clock is read).
   */
  check(w: LimitsClient, server: string, tool: string, principal: string | undefined, signal: AbortSignal | undefined, call: (() => PolicyCall) | undefined, now?: number): LimitsChecked | Promise<LimitsChecked>;
  /** Ends the calls in flight of a call that held `token`. */
  release(w: LimitsClient, token: number): void;
}

/** The limits module (its functions), once `webmcp-warden/limits` is in use (`withLimits`). */
export const limitsHook: { module?: LimitsModule } = {};
