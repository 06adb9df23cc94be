// The pipeline's door to the console diagnostics (diagnostics.ts, a chunk of its own): calls,
// listings and registrations collect what failed closed and hand it over here, when the
// client's `debug` setting is on. The chunk is imported at the first diagnostic, so a page that
// has none, or runs with `debug: false` (production builds by default), never downloads it.
import type { ClientState } from '../client/client.js';
import type { Note } from './diagnostics.js';

/**
 * `process.env.NODE_ENV`, which bundlers replace: the guard of the diagnostics' code is false
 * where it says `'production'`; a page without `process` (a browser) relies on `debug`.
 */
declare const process: { env: { NODE_ENV?: string } };

/**
 * Whether this build may write diagnostics at all (the client's `debug` decides the rest): not
 * where `process.env.NODE_ENV` says `'production'`. Read once, as the package loads.
 */
export const DIAGNOSING: boolean = typeof process === 'undefined' || process.env.NODE_ENV !== 'production';

/**
 * Writes `notes` to the console (once per client and cause), loading the diagnostics chunk on
 * first use; resolves when written. Never rejects: a chunk that cannot load writes nothing.
 */
export function diagnose(w: ClientState, notes: readonly Note[]): Promise<void> {
  return import('./diagnostics.js').then(
    (chunk) => chunk.writeNotes(w, notes),
    () => undefined,
  );
}
