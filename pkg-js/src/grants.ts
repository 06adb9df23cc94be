// Grants (SPEC §5): what `{ allow: 'always' }` records, where it is kept, and the grant API.
// The core decides which grant is live and which a revoke removes; stores only keep them.
import { Core } from '../wasm/warden_core.js';
import { getCore } from './core.js';
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

/** Grant settings (set through `configureWebMCP`). */
export const grantSettings = {
  store: memoryGrantStore(),
  ttl: 86_400_000,
  clock: (): number => Date.now(),
};

/**
 * What the store holds, for deciding a call: a store that throws, rejects or answers something
 * other than an array holds no grants (an ask then goes to the approver; nothing is approved by
 * a broken store). Entries that are not grants are skipped by the core.
 */
export async function loadGrants(): Promise<unknown[]> {
  try {
    const grants: unknown = await grantSettings.store.load();
    return Array.isArray(grants) ? grants : [];
  } catch {
    return [];
  }
}

/** The live grants, as the core judges them at the current time. */
export async function listGrants(): Promise<Grant[]> {
  const now = grantSettings.clock();
  getCore();
  const grants = await loadGrants();
  return grants.filter((grant): grant is Grant => Core.isGrantLive(JSON.stringify(grant) ?? 'null', now));
}

/** Revokes every grant matching all the given fields (`principal: null` selects grants without one). */
export async function revokeGrant(filter: { principal?: string | null; server?: string; tool?: string } = {}): Promise<number> {
  // A mistyped filter (`revokeGrant('alice')`) must not read as "no filter" and revoke everything.
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) {
    throw new ConfigurationError('invalid_filter', 'revokeGrant expects { principal?, server?, tool? }');
  }
  getCore();
  const loaded: unknown = await grantSettings.store.load();
  const grants: unknown[] = Array.isArray(loaded) ? loaded : [];
  const matches = JSON.parse(Core.revokeMatches(JSON.stringify(grants), JSON.stringify(filter))) as boolean[];
  const kept = grants.filter((_, i) => !matches[i]) as Grant[];
  await grantSettings.store.save(kept);
  return grants.length - kept.length;
}

/** Removes every grant. */
export async function clearGrants(): Promise<void> {
  await grantSettings.store.save([]);
}

/** Records a grant the core made for an `{ allow: 'always' }` answer. */
export async function recordGrant(grant: Grant): Promise<void> {
  const stored: unknown = await grantSettings.store.load();
  // Expired grants and the one this grant replaces are dropped, so a store does not grow forever.
  const kept = (Array.isArray(stored) ? (stored as Grant[]) : []).filter(
    (old) =>
      Core.isGrantLive(JSON.stringify(old) ?? 'null', grant.grantedAt) &&
      !(old.principal === grant.principal && old.server === grant.server && old.tool === grant.tool && old.fingerprint === grant.fingerprint),
  );
  await grantSettings.store.save([...kept, grant]);
}
