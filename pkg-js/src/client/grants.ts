// Grants: what `{ allow: 'always' | 'session' }` records, where it is kept, and the grant API.
// The core holds the grants (a book keyed by principal, tool, fingerprint and, for a grant of
// exactly some arguments, their digest) and decides which is live and which a revoke removes; a
// store only keeps them: it is read into the core once (at the first need after it is set) and
// written after each change. Session grants are the core's alone: what it hands a store to save
// never holds one (docs/behaviour.md, "Grants").
import type { ClientState, GrantLoad } from './client.js';
import { core } from '../boundary/core.js';
import { ConfigurationError } from '../util/errors.js';
import { decode, encode } from '../boundary/wire.js';
import type { Accepted, ListGrantsAnswer, RecordGrantAnswer, RevokeGrantsAnswer } from '../boundary/answers.js';
import { memoryGrantStore, type Grant, type GrantStore } from './grant-stores.js';

export { localStorageGrantStore, memoryGrantStore, type Grant, type GrantStore } from './grant-stores.js';

/**
 * Uses `store` from now on: the core forgets the grants of the previous store, and reads this
 * one at the first need.
 */
export function useGrantStore(w: ClientState, store: GrantStore): void {
  const book = w.grantBook;
  w.settings.grantStore = store;
  book.generation++;
  book.loaded = false;
  book.loading = undefined;
  w.emptyGrantBook();
}

/**
 * Reads the client's store into its core once. A store that throws or rejects holds no grants
 * for now (an ask then goes to the approver; nothing is approved by a broken store) and is read
 * again at the next need; one that answers something other than an array holds none.
 */
export function ensureGrants(w: ClientState): Promise<GrantLoad> {
  const book = w.grantBook;
  if (book.loaded) return Promise.resolve({ ok: true });
  if (book.loading !== undefined) return book.loading;
  const generation = book.generation;
  const store = w.settings.grantStore;
  const read = async (): Promise<GrantLoad> => {
    try {
      const stored: unknown = await store.load();
      if (generation !== book.generation) return { ok: false, error: new Error('the grant store was replaced') };
      const grants = Array.isArray(stored) ? stored : [];
      w.loadGrants(encode(grants));
      // A stored grant for exactly some arguments: policy steps send the arguments' digest (an
      // entry that cannot be read may be one too).
      try {
        if (grants.some((grant) => (grant as Grant | null)?.scope === 'arguments')) w.exactGrants = true;
      } catch {
        w.exactGrants = true;
      }
      book.loaded = true;
      return { ok: true };
    } catch (error) {
      return { ok: false, error };
    }
  };
  const loading = read().finally(() => {
    if (book.loading === loading) book.loading = undefined;
  });
  book.loading = loading;
  return loading;
}

/** Saves the book after a change; resolves when this save is done (a failure rejects). */
function save(w: ClientState): Promise<void> {
  const book = w.grantBook;
  const store = w.settings.grantStore;
  const write = () => store.save(w.storedGrants());
  const next = book.saving.then(write, write);
  book.saving = next.catch(() => undefined);
  return next.then(() => undefined);
}

/** The live grants (session grants too), as the core judges them at the client's current time. Expired grants are dropped. */
export async function listGrants(w: ClientState): Promise<Grant[]> {
  await ensureGrants(w);
  // The engine is live (`w.engine()` throws for a disposed client): the core does not refuse.
  const answer = decode(core.listGrants(w.engine(), w.settings.clock())) as Accepted<ListGrantsAnswer>;
  if (answer.pruned > 0 && w.grantBook.loaded) await save(w).catch(() => undefined);
  return answer.grants;
}

/** Revokes every grant matching all the given fields (`principal: null` selects grants without one). */
export async function revokeGrant(w: ClientState, filter: { principal?: string | null; server?: string; tool?: string } = {}): Promise<number> {
  // A mistyped filter (`revokeGrant('alice')`) must not read as "no filter" and revoke everything.
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) {
    throw new ConfigurationError('invalid_filter', 'revokeGrant expects { principal?, server?, tool? }');
  }
  const loaded = await ensureGrants(w);
  // A store that cannot be read is not overwritten with what the core holds.
  if (!loaded.ok) throw loaded.error;
  const { removed } = decode(core.revokeGrants(w.engine(), encode(filter))) as Accepted<RevokeGrantsAnswer>;
  await save(w);
  return removed;
}

/** Removes every grant. */
export async function clearGrants(w: ClientState): Promise<void> {
  const book = w.grantBook;
  w.emptyGrantBook();
  // The book and the store are both empty once this save is done: nothing left to read.
  book.generation++;
  book.loading = undefined;
  book.loaded = true;
  await save(w);
}

/**
 * Records the grant the core makes for an `{ allow: 'always' | 'session' }` answer to `call` and
 * saves the book. `argsDigest` is the digest of the arguments the approver was shown (a grant of
 * `scope: 'arguments'` is for them). When the store cannot be read or cannot keep it, the core
 * forgets the grant again: the approval of this call stands, and the next call asks again.
 */
export async function recordGrant(w: ClientState, call: number, principal: string | undefined, argsDigest?: string): Promise<void> {
  const loaded = await ensureGrants(w);
  const engine = w.engine();
  const answer = decode(core.recordGrant(engine, call, principal, w.settings.clock(), w.settings.grantTtl, argsDigest)) as RecordGrantAnswer;
  if (!answer.ok || answer.grant === undefined) return;
  if (answer.grant.scope === 'arguments') w.exactGrants = true;
  const grant = encode(answer.grant);
  if (!loaded.ok) {
    core.forgetGrant(engine, grant);
    return;
  }
  try {
    await save(w);
  } catch {
    core.forgetGrant(engine, grant);
  }
}

/** Back to a fresh in-memory store (for `resetWebMCP()`), the core's book emptied. */
export function resetGrants(w: ClientState): void {
  useGrantStore(w, memoryGrantStore());
}
