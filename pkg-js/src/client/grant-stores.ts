// Where grants are kept: the stores a page may choose (`grantStore` in `configureWebMCP`). A
// module of its own, importing nothing: the client makes its default store from it.

/**
 * A standing approval for one principal, one tool and one exact definition: for every argument
 * (`scope: 'tool'`) or for exactly the arguments approved (`scope: 'arguments'`), for
 * `grantTtl` or, `session: true`, for as long as the client (never stored).
 */
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
  /** What it covers: every argument of the tool, or exactly the arguments approved (a stored entry without it reads as `'tool'`). */
  scope: 'tool' | 'arguments';
  /** The digest of the approved arguments (`scope: 'arguments'`): `call.argsDigest` of the call approved. */
  argsDigest?: string;
  /** It lasts as long as the client (`{ allow: 'session' }`, and at most until `expiresAt`): a store never sees it. */
  session: boolean;
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
