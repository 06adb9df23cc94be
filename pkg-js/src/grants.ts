// Grants: what `{ allow: 'always' }` records, where it is kept, and the grant API.
//
// The core keeps the page's grants in a book (`src/policy/grants.rs`) and decides everything
// about them: which grant is live for a call (one lookup, the store is not read), which ones a
// revoke removes, which have expired. The configured `grantStore` only persists: it is loaded
// into the core once, at the first need after it is configured, and saved after each change
// (README, "Grants live in the core").
import { getCore } from './core.js';
import { ConfigurationError } from './errors.js';
import { decode, encode } from './wire.js';

/** A standing approval for one principal, one tool and one exact definition. */
export interface Grant {
  /** Who it is for (`null`: calls without a principal). */
  principal: string | null;
  /** The tool's server id. */
  server: string;
  /** The tool's name. */
  tool: string;
  /** The fingerprint of the approved definition. */
  fingerprint: string;
  /** When it stops counting (ms since the epoch). */
  expiresAt: number;
  /** When it was recorded (ms since the epoch). */
  grantedAt: number;
}

/** Where grants are kept. Either method may be async. */
export interface GrantStore {
  /** Every stored grant (expired ones may be included; they are never used). */
  load(): Grant[] | Promise<Grant[]>;
  /** Replaces the stored grants. */
  save(grants: Grant[]): void | Promise<void>;
}

/** A grant store in memory (the default): grants last until the page reloads. */
export function memoryGrantStore(): GrantStore {
  let grants: Grant[] = [];
  return {
    load: () => grants.slice(),
    save: (next) => {
      grants = next.slice();
    },
  };
}

/**
 * A grant store in `localStorage` under `key`: grants survive reloads. Unreadable stored data
 * counts as no grants (never as an approval).
 */
export function localStorageGrantStore(key = 'webmcp-warden:grants', storage?: Storage): GrantStore {
  const store = () => storage ?? (globalThis as { localStorage?: Storage }).localStorage;
  return {
    load: () => {
      try {
        const parsed = JSON.parse(store()?.getItem(key) ?? '[]') as unknown;
        return Array.isArray(parsed) ? (parsed as Grant[]) : [];
      } catch {
        return [];
      }
    },
    save: (grants) => {
      store()?.setItem(key, JSON.stringify(grants));
    },
  };
}

/** Grant settings (set through `configureWebMCP`). */
export const grantSettings = {
  store: memoryGrantStore(),
  ttl: 86_400_000,
  clock: (): number => Date.now(),
};

/** Where the core's book stands against the configured store. */
const book = {
  /** The store was read into the core. */
  loaded: false,
  /** The read in progress, shared by everyone who needs it meanwhile. */
  loading: undefined as Promise<LoadResult> | undefined,
  /** Bumped when the store changes, so a read of the previous store is dropped. */
  generation: 0,
  /** Saves run one at a time, each writing the book as it is when it starts. */
  saving: Promise.resolve() as Promise<unknown>,
};

type LoadResult = { ok: true } | { ok: false; error: unknown };

/**
 * Uses `store` from now on: the core forgets the grants of the previous store, and reads this
 * one at the first need.
 */
export function useGrantStore(store: GrantStore): void {
  grantSettings.store = store;
  book.generation++;
  book.loaded = false;
  book.loading = undefined;
  getCore().clearGrants();
}

/** Whether the store was read into the core (then nothing needs to be awaited). */
export function grantsReady(): boolean {
  return book.loaded;
}

/**
 * Reads the store into the core once. A store that throws or rejects holds no grants for now
 * (an ask then goes to the approver; nothing is approved by a broken store) and is read again
 * at the next need; one that answers something other than an array holds none.
 */
export function loadGrantsOnce(): Promise<LoadResult> {
  if (book.loaded) return Promise.resolve({ ok: true });
  if (book.loading !== undefined) return book.loading;
  const generation = book.generation;
  const store = grantSettings.store;
  const read = async (): Promise<LoadResult> => {
    try {
      const stored: unknown = await store.load();
      if (generation !== book.generation) return { ok: false, error: new Error('the grant store was replaced') };
      getCore().loadGrants(encode(Array.isArray(stored) ? stored : []));
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

/** Every grant in the core's book, as the store keeps them. */
function storedGrants(): Grant[] {
  return (decode(getCore().storedGrants()) as { grants: Grant[] }).grants;
}

/** Saves the book after a change; resolves when this save is done (a failure rejects). */
function save(): Promise<void> {
  const store = grantSettings.store;
  const next = book.saving.then(
    () => store.save(storedGrants()),
    () => store.save(storedGrants()),
  );
  book.saving = next.catch(() => undefined);
  return next.then(() => undefined);
}

/** The live grants, as the core judges them at the current time. Expired grants are dropped. */
export async function listGrants(): Promise<Grant[]> {
  await loadGrantsOnce();
  const answer = decode(getCore().listGrants(grantSettings.clock())) as { grants: Grant[]; pruned: number };
  if (answer.pruned > 0 && book.loaded) await save().catch(() => undefined);
  return answer.grants;
}

/** Revokes every grant matching all the given fields (`principal: null` selects grants without one). */
export async function revokeGrant(filter: { principal?: string | null; server?: string; tool?: string } = {}): Promise<number> {
  // A mistyped filter (`revokeGrant('alice')`) must not read as "no filter" and revoke everything.
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) {
    throw new ConfigurationError('invalid_filter', 'revokeGrant expects { principal?, server?, tool? }');
  }
  const loaded = await loadGrantsOnce();
  // A store that cannot be read is not overwritten with what the core holds.
  if (!loaded.ok) throw loaded.error;
  const { removed } = decode(getCore().revokeGrants(encode(filter))) as { removed: number };
  await save();
  return removed;
}

/** Removes every grant. */
export async function clearGrants(): Promise<void> {
  getCore().clearGrants();
  // The book and the store are both empty once this save is done: nothing left to read.
  book.generation++;
  book.loading = undefined;
  book.loaded = true;
  await save();
}

/**
 * Records the grant the core makes for an `{ allow: 'always' }` answer to `call` and saves the
 * book. When the store cannot be read or cannot keep it, the core forgets the grant again: the
 * approval of this call stands, and the next call asks again.
 */
export async function recordGrant(call: number, principal: string | undefined): Promise<void> {
  const loaded = await loadGrantsOnce();
  const core = getCore();
  const answer = decode(core.recordGrant(call, principal, grantSettings.clock(), grantSettings.ttl)) as { ok: boolean; grant?: Grant };
  if (!answer.ok || answer.grant === undefined) return;
  const grant = encode(answer.grant);
  if (!loaded.ok) {
    core.forgetGrant(grant);
    return;
  }
  try {
    await save();
  } catch {
    core.forgetGrant(grant);
  }
}

/** Back to a fresh in-memory store (for `resetWebMCP()`), the core's book emptied. */
export function resetGrants(): void {
  grantSettings.ttl = 86_400_000;
  grantSettings.clock = () => Date.now();
  useGrantStore(memoryGrantStore());
}
