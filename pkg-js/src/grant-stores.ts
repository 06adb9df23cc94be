// Where grants are kept: the stores a page may choose (`grantStore` in `configureWebMCP`). A
// module of its own, importing nothing: the client makes its default store from it.

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
