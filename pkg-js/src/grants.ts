// Grants (SPEC §5): what `{ allow: 'always' }` records, where it is kept, and the grant API.
// The core decides which grant is live and which a revoke removes; stores only keep them.
import { Core } from '../wasm/warden_core.js';
import { getCore } from './core.js';

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

/** The live grants, as the core judges them at the current time. */
export async function listGrants(): Promise<Grant[]> {
  const now = grantSettings.clock();
  getCore();
  const grants = await grantSettings.store.load();
  return grants.filter((grant) => Core.isGrantLive(JSON.stringify(grant), now));
}

/** Revokes every grant matching all the given fields (`principal: null` selects grants without one). */
export async function revokeGrant(filter: { principal?: string | null; server?: string; tool?: string } = {}): Promise<number> {
  getCore();
  const grants = await grantSettings.store.load();
  const matches = JSON.parse(Core.revokeMatches(JSON.stringify(grants), JSON.stringify(filter))) as boolean[];
  const kept = grants.filter((_, i) => !matches[i]);
  await grantSettings.store.save(kept);
  return grants.length - kept.length;
}

/** Removes every grant. */
export async function clearGrants(): Promise<void> {
  await grantSettings.store.save([]);
}

/** Records a grant the core made for an `{ allow: 'always' }` answer. */
export async function recordGrant(grant: Grant): Promise<void> {
  const grants = await grantSettings.store.load();
  await grantSettings.store.save([...grants, grant]);
}
