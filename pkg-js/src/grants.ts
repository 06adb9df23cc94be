// Grants: what `{ allow: 'always' }` records, where it is kept, and the grant API. The core
// holds the grants and decides which is live and which a revoke removes; a store only keeps
// them: it is read once (at the first need after it is set) and written after each change.
import type { Warden } from './client.js';
import { core } from './core.js';
import { ConfigurationError } from './errors.js';

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

/** Which store each client has loaded into its core. */
const loaded = new WeakMap<Warden, GrantStore>();

/**
 * Loads the client's store into its core, once per store: a store that throws, rejects or
 * answers something other than an array holds no grants (an ask then goes to the approver;
 * nothing is approved by a broken store). Entries that are not grants are skipped by the core.
 */
export async function ensureGrants(w: Warden): Promise<void> {
  const store = w.settings.grantStore;
  if (loaded.get(w) === store) return;
  let grants: unknown;
  try {
    grants = await store.load();
  } catch {
    grants = [];
  }
  if (w.settings.grantStore !== store) return ensureGrants(w);
  w.setGrants(JSON.stringify(Array.isArray(grants) ? grants : []) ?? '[]');
  loaded.set(w, store);
}

/** Writes the grants the core holds to the store (after a grant was recorded or revoked). */
export async function persistGrants(w: Warden): Promise<void> {
  await w.settings.grantStore.save(JSON.parse(w.grantsJson()) as Grant[]);
}

/** The live grants, as the core judges them at the client's current time. */
export async function listGrants(w: Warden): Promise<Grant[]> {
  await ensureGrants(w);
  const now = w.settings.clock();
  return (JSON.parse(w.grantsJson()) as Grant[]).filter((grant) => core.isGrantLive(JSON.stringify(grant), now));
}

/** Revokes every grant matching all the given fields (`principal: null` selects grants without one). */
export async function revokeGrant(w: Warden, filter: { principal?: string | null; server?: string; tool?: string } = {}): Promise<number> {
  // A mistyped filter (`revokeGrant('alice')`) must not read as "no filter" and revoke everything.
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) {
    throw new ConfigurationError('invalid_filter', 'revokeGrant expects { principal?, server?, tool? }');
  }
  await ensureGrants(w);
  const grants = JSON.parse(w.grantsJson()) as Grant[];
  const matches = JSON.parse(core.revokeMatches(JSON.stringify(grants), JSON.stringify(filter))) as boolean[];
  const kept = grants.filter((_, i) => !matches[i]);
  w.setGrants(JSON.stringify(kept));
  await w.settings.grantStore.save(kept);
  return grants.length - kept.length;
}

/** Removes every grant. */
export async function clearGrants(w: Warden): Promise<void> {
  w.setGrants('[]');
  loaded.set(w, w.settings.grantStore);
  await w.settings.grantStore.save([]);
}
