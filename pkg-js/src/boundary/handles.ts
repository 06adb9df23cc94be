// Handles the TS layer gives the core for what it keeps (hook sets, hooks, tools, scopes):
// reused when freed, and bounded so an action always packs into one number (`codes.ts`).
import { ActionBits } from './codes.js';
import { ConfigurationError } from '../util/errors.js';

/** A free-list allocator of handles from 1 to `ActionBits.MaxHandle`. */
export class Handles {
  #next = 1;
  readonly #free: number[] = [];

  /** A handle no live thing holds; throws `ConfigurationError` when every handle is taken. */
  take(): number {
    const reused = this.#free.pop();
    if (reused !== undefined) return reused;
    if (this.#next > ActionBits.MaxHandle) {
      throw new ConfigurationError('too_many_handles', `webmcp-warden: more than ${ActionBits.MaxHandle} hooks, tools, scopes and hook sets are alive at once; unregister or drop some`);
    }
    return this.#next++;
  }

  /** Gives a handle back. */
  give(handle: number): void {
    this.#free.push(handle);
  }

  /** How many handles are taken. */
  get live(): number {
    return this.#next - 1 - this.#free.length;
  }
}
