// The client's table of policy function predicates (see `Predicates`): a module of its own, so
// the client can hold one without importing the governance code.
import { ActionBits } from '../boundary/codes.js';
import { ConfigurationError } from '../util/errors.js';
import type { PolicyPredicate } from '../types/policy-types.js';

/**
 * A client's policy function predicates, by the handle the core asks for. A slot is
 * `undefined` once its function was released (no policy uses it any more): a call still running
 * under an older policy that asks for it gets a failure (fail closed), never another function.
 */
export class Predicates {
  /** Functions by handle. */
  readonly table: (PolicyPredicate | undefined)[] = [];
  /** The handle of each function: one function, one handle. */
  readonly #handles = new Map<PolicyPredicate, number>();
  /** Released handles, reused only once no call is in progress (see `retain`). */
  readonly #released: number[] = [];
  readonly #reusable: number[] = [];
  /** The handles the policy in force uses. */
  inForce: ReadonlySet<number> = new Set();
  /** The largest handle given out: what an action can carry (tests lower it). */
  readonly #max: number;

  constructor(max: number = ActionBits.MaxHandle) {
    this.#max = max;
  }

  /** The handle of `fn`, the same every time while a policy uses it. */
  handleOf(fn: PolicyPredicate, callsInProgress: () => number): number {
    let handle = this.#handles.get(fn);
    if (handle === undefined) {
      // A released handle could still be named by a call that started under the old policy;
      // it is reused only after every call of that time ended.
      if (this.#reusable.length === 0 && this.#released.length > 0 && callsInProgress() === 0) this.#reusable.push(...this.#released.splice(0));
      handle = this.#reusable.pop() ?? this.table.length;
      // The core refuses larger handles (an action could not carry them); say so here, before
      // the table grows past what it can use.
      if (handle > this.#max) {
        throw new ConfigurationError('too_many_handles', `webmcp-warden: more than ${this.#max} policy predicate functions are held at once (a call still running keeps those of older policies); reuse predicate functions rather than making new ones per configuration`, 'policy');
      }
      this.table[handle] = fn;
      this.#handles.set(fn, handle);
    }
    return handle;
  }

  /**
   * Releases every function whose handle is not in `keep` (the handles of the policy in force),
   * so a function no policy uses any more can be garbage-collected.
   */
  retain(keep: ReadonlySet<number>): void {
    for (const [fn, handle] of this.#handles) {
      if (keep.has(handle)) continue;
      this.#handles.delete(fn);
      this.table[handle] = undefined;
      this.#released.push(handle);
    }
  }

  /** How many functions are held (for leak tests). */
  get live(): number {
    return this.#handles.size;
  }
}
