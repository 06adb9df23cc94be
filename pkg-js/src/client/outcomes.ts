// What a call answers without running the pipeline, and what identifies a call: the helpers the
// page's entry needs synchronously (an unknown tool, a disposed client, `genInvocationId`), kept
// out of the lazily loaded pipeline chunk (`pipeline.ts`) that imports them too.
import { deepFrozenCopy } from '../util/frozen.js';
import type { CallError, CallOutcome, ToolContract } from '../types/types.js';

/** The page's count of ids made without `crypto.randomUUID`: ids are unique across clients. */
let invocationCounter = 0;

/** A unique id per call: `crypto.randomUUID()` when available. */
export function genInvocationId(): string {
  const uuid = (globalThis.crypto as Crypto | undefined)?.randomUUID;
  if (typeof uuid === 'function') return uuid.call(globalThis.crypto);
  invocationCounter = (invocationCounter + 1) % Number.MAX_SAFE_INTEGER;
  return `webmcp_${Date.now().toString(36)}_${invocationCounter}_${Math.random().toString(36).slice(2, 8)}`;
}

const snapshots = new WeakMap<ToolContract, ToolContract>();

/**
 * The contract hooks see (`ctx.contract`): a deeply frozen copy, made once per tool, so a hook
 * cannot change the definition the browser, `listTools` and the fingerprint read.
 */
export function snapshotOf(contract: ToolContract): ToolContract {
  // The last tool asked for is usually the next one too (calls of one tool in a row).
  if (contract === last.contract) return last.snapshot;
  let snapshot = snapshots.get(contract);
  if (snapshot === undefined) {
    snapshot = deepFrozenCopy(contract) as ToolContract;
    snapshots.set(contract, snapshot);
  }
  last.contract = contract;
  last.snapshot = snapshot;
  return snapshot;
}

/**
 * The last contract {@link snapshotOf} answered for. It holds one tool's contract alive until
 * another is asked for; a `WeakRef` would cost what the cache saves.
 */
const last: { contract: ToolContract | undefined; snapshot: ToolContract } = { contract: undefined, snapshot: {} as ToolContract };

/** A call that ended before it ran (or that the core could not run), as data: its error, and the text the agent reads. */
export function failedOutcome(kind: CallError['kind'], reason: string, message: string): CallOutcome {
  // normalize.ts's `errorResult`, written out: that module loads with the pipeline chunk.
  return { ok: false, error: { kind, reason, message }, result: { content: [{ type: 'text', text: 'Error: ' + message }], isError: true } };
}

/** The outcome of a call on a disposed client: data, like every other refusal of a call. */
export function disposedOutcome(): CallOutcome {
  return failedOutcome('tool', 'disposed', 'this webmcp-warden client was disposed');
}
