// Hook sets: the user's hooks object goes to the core as it is, each function replaced by a
// handle the client chose; the core checks every entry (ids, matchers, options) and answers
// which handle is which hook, and the client files the functions under those handles.
import type { ClientState } from './client.js';
import { EVENTS } from '../boundary/codes.js';
import { isPlainObject } from '../util/js-values.js';
import { encode } from '../boundary/wire.js';
import type { WebMCPHooks } from '../types/types.js';


/** The events in the order the core numbers them (generated from the core: `codes.ts`). */
export const HOOK_EVENTS = EVENTS;

/**
 * Checks and compiles `hooks` in the client's core and keeps their functions; answers the set's
 * handle, or `undefined` when there are no hooks. Throws `ConfigurationError` naming the event
 * and the entry (`hooks.before[1]`) on the first invalid one, leaving nothing behind.
 */
export function compileHookSet(w: ClientState, hooks: unknown, label: string): number | undefined {
  if (hooks === undefined || hooks === null) return undefined;
  const taken: number[] = [];
  const functions = new Map<number, (...args: never[]) => unknown>();
  // Before the client has an engine, a set of plain functions is filed without it (see
  // `bareFunctions`); it is encoded from the one read the check made of it.
  const bare = w.hasEngine ? undefined : bareFunctions(hooks);
  const spec = encode(bare ?? hooks, {
    fn: (f) => {
      const handle = w.handles.take();
      taken.push(handle);
      functions.set(handle, f);
      return handle;
    },
  });
  const set = w.handles.take();
  let filed: [number, number, number | null][];
  try {
    filed = w.defineHookSet(set, spec, label, bare === undefined ? undefined : filing(bare, taken));
  } catch (err) {
    for (const handle of taken) w.handles.give(handle);
    w.handles.give(set);
    throw err;
  }
  const used = new Set<number>();
  for (const [handle, event, timeout] of filed) {
    const run = functions.get(handle);
    if (run === undefined) continue;
    used.add(handle);
    w.hooks.set(handle, { run: run as (...args: any[]) => unknown, timeout: timeout ?? undefined, event, set });
  }
  // A function the core did not file as a hook (none today) gives its handle back.
  for (const handle of taken) if (!used.has(handle)) w.handles.give(handle);
  w.setHooks.set(set, [...used]);
  return set;
}

/** A hook set of plain functions only, by event, in the core's order of events. */
export type BareSet = Partial<Record<(typeof EVENTS)[number], ((...args: never[]) => unknown)[]>>;

/**
 * `hooks` read once, when it is a set the core accepts whatever it holds: a plain object whose
 * keys are known events, each an array of functions (no hook objects: those carry matchers, ids,
 * deadlines the core checks). The core files such a set the same way every time: each function
 * a hook of its event, in the order of events (`EVENTS`, generated from the core) and then of
 * the array, without a deadline (`src/hooks.rs`, `HookSet::compile`). So, like a tool without
 * hooks, it needs no core at `webmcp()`: the client logs it, and the core checks and stores it
 * when the engine is made (`client.ts`, `defineHookSet`); `hookset.test.mjs` holds this filing
 * equal to the core's. `undefined` for any other set, which the core checks at once.
 */
export function bareFunctions(hooks: unknown): BareSet | undefined {
  try {
    return readBare(hooks);
  } catch {
    // A getter or a proxy that throws: the core's path says what is wrong with it.
    return undefined;
  }
}

function readBare(hooks: unknown): BareSet | undefined {
  if (!isPlainObject(hooks)) return undefined;
  const keys = Object.keys(hooks);
  if (!keys.every((key) => (EVENTS as readonly string[]).includes(key))) return undefined;
  const set: BareSet = {};
  for (const event of EVENTS) {
    if (!keys.includes(event)) continue;
    const entries = (hooks as Record<string, unknown>)[event];
    if (!Array.isArray(entries)) return undefined;
    const functions: ((...args: never[]) => unknown)[] = [];
    // By index, not `every`: a hole is not a function, and the core refuses it.
    for (let i = 0; i < entries.length; i++) {
      const entry: unknown = entries[i];
      if (typeof entry !== 'function') return undefined;
      functions.push(entry as (...args: never[]) => unknown);
    }
    set[event] = functions;
  }
  return set;
}

/** How the core files `set`, whose functions were given `handles` in encoding order. */
export function filing(set: BareSet, handles: number[]): [number, number, null][] {
  const filed: [number, number, null][] = [];
  let next = 0;
  EVENTS.forEach((event, code) => {
    for (let i = 0; i < (set[event]?.length ?? 0); i++) filed.push([handles[next++] as number, code, null]);
  });
  return filed;
}

/** Concatenates two hook sets per event (simple-webmcp's `mergeHooks`). */
export function mergeHooks(a: WebMCPHooks<any, any, any> | undefined, b: WebMCPHooks<any, any, any> | undefined): WebMCPHooks {
  const out: Record<string, unknown[]> = {};
  for (const event of HOOK_EVENTS) {
    const merged = [...((a?.[event] as unknown[]) ?? []), ...((b?.[event] as unknown[]) ?? [])];
    if (merged.length) out[event] = merged;
  }
  return out as WebMCPHooks;
}

/**
 * Orders hooks as simple-webmcp does: `before` global → scoped → tool; `after`, `error` and
 * `denied` tool → scoped → global. This is simple-webmcp's engine API, kept for code written
 * against it; the governed pipeline orders hooks in the core, by scope and then by matcher level.
 */
export function mergeHooksOrdered(parts: { globalHooks?: WebMCPHooks<any, any, any>; scopedHooks?: WebMCPHooks<any, any, any>; toolHooks?: WebMCPHooks<any, any, any> }): WebMCPHooks {
  const { globalHooks: g, scopedHooks: s, toolHooks: t } = parts;
  const list = (hooks: WebMCPHooks<any, any, any> | undefined, event: (typeof HOOK_EVENTS)[number]) => (hooks?.[event] as unknown[]) ?? [];
  const forward = (event: (typeof HOOK_EVENTS)[number]) => [...list(g, event), ...list(s, event), ...list(t, event)];
  const reverse = (event: (typeof HOOK_EVENTS)[number]) => [...list(t, event), ...list(s, event), ...list(g, event)];
  const ordered: Record<string, unknown[]> = { before: forward('before'), after: reverse('after'), error: reverse('error'), denied: reverse('denied'), toolsListed: forward('toolsListed') };
  // Resource and prompt hooks gate like before-hooks; they appear only when some set has them.
  for (const event of ['resourceRead', 'promptGet'] as const) {
    const hooks = forward(event);
    if (hooks.length) ordered[event] = hooks;
  }
  return ordered as WebMCPHooks;
}

