// The approval queue of a `<WebMCPProvider approver>`: the provider's approver parks each ask
// until the page's UI (`useApprovals()`, `<ApprovalDialog>`) answers its request. The asks live
// in the client's ask book (asks.ts), which lists every pending ask with its request (created
// and deadline times, summary, approve / deny / cancel); the queue is the part of the book whose
// approver is this provider's.
import type { ClientState } from '../client/client.js';
import type { Approver, AskAnswer } from '../client/governance.js';
import { asksOf, NO_ASKS, type Approvals, type Ask } from '../client/asks.js';

export type { Ask, Approvals, AskStatus, ApprovalSummary } from '../client/asks.js';

/** `getServerSnapshot` of the queue: a server never has pending asks. */
export function getNoAsks(): Approvals {
  return NO_ASKS;
}

/** The asks a provider with `approver` holds until its UI settles them. */
export class ApprovalQueue {
  #snapshot: Approvals = NO_ASKS;

  /** @param w The client whose asks the queue shows. */
  constructor(public w: ClientState) {
    asksOf(w);
  }

  /** Subscribes to changes of the pending asks; answers the unsubscribe function. */
  readonly subscribe = (listener: () => void): (() => void) => asksOf(this.w).subscribe(listener);

  /** The pending asks of this queue (the same object until one is added or settled). */
  readonly getSnapshot = (): Approvals => {
    const pending = asksOf(this.w).pendingOf(this.approver);
    const current = this.#snapshot.pending;
    if (pending.length === current.length && pending.every((ask, i) => ask === current[i])) return this.#snapshot;
    this.#snapshot = pending.length === 0 ? NO_ASKS : Object.freeze({ pending: Object.freeze(pending) as Ask[] });
    return this.#snapshot;
  };

  /**
   * The approver of the provider: it never answers on its own. The call lists its ask in the
   * client's book (asks.ts), where the UI answers it; the approver's deadline (`askTimeout`)
   * expires it, and an answer or an abort ends the wait.
   */
  readonly approver: Approver = () => new Promise<AskAnswer>(() => undefined);

  /** Withdraws every pending ask of this queue (the provider unmounted: nobody is left to answer). */
  cancelAll(reason: string): void {
    for (const ask of asksOf(this.w).pendingOf(this.approver)) ask.cancel(reason);
  }
}
