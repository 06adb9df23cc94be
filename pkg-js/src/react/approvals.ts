// The approval queue of a `<WebMCPProvider approver>`: the provider's approver parks each ask
// here until the page's UI (`useApprovals()`) settles it. A framework-free store (subscribe +
// immutable snapshots) that React reads with `useSyncExternalStore`.
import type { Warden } from '../client.js';
import type { Approver, AskAnswer, Decision, PolicyCall } from '../governance.js';

/** A pending ask of a tool mounted under `<WebMCPProvider approver>`. */
export interface Ask {
  /** Unique per ask (the call's invocation id). */
  id: string;
  /** What the approver sees of the call: the exact final arguments, digest, fingerprint, … */
  call: PolicyCall;
  /** The decision that asked. */
  decision: Decision | undefined;
  /** Allows this call (`'once'`), or records a grant (`'always'`). */
  approve(mode: 'once' | 'always'): void;
  /** Denies the call (`reason: 'ask_denied'`), or tells the agent loop to stop (`halt`: `'ask_halt'`). */
  deny(reason: string, options?: { halt?: boolean }): void;
}

/** What {@link ApprovalQueue.getSnapshot} answers. */
export interface Approvals {
  /** The asks waiting for an answer, oldest first. */
  pending: Ask[];
}

/** The snapshot with nothing pending: one object, so an idle queue never re-renders anyone. */
const NO_ASKS: Approvals = Object.freeze({ pending: Object.freeze([]) as unknown as Ask[] });

/** `getServerSnapshot` of the queue: a server never has pending asks. */
export function getNoAsks(): Approvals {
  return NO_ASKS;
}

/** The asks a provider with `approver` holds until its UI settles them. */
export class ApprovalQueue {
  private snapshot = NO_ASKS;
  private readonly listeners = new Set<() => void>();

  /** @param w The client whose `askTimeout` bounds how long an ask stays listed. */
  constructor(public w: Warden) {}

  /** Subscribes to changes of the pending asks; answers the unsubscribe function. */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  };

  /** The pending asks (the same object until one is added or settled). */
  readonly getSnapshot = (): Approvals => this.snapshot;

  /** The approver of the provider: each ask waits in `pending` until approved or denied. */
  readonly approver: Approver = (call, ctx) =>
    new Promise<AskAnswer>((resolve) => {
      let open = true;
      const settle = (answer: AskAnswer | undefined) => {
        if (!open) return;
        open = false;
        clearTimeout(timer);
        ctx.signal.removeEventListener('abort', onAbort);
        this.update(this.snapshot.pending.filter((other) => other !== ask));
        // After an abort or the ask deadline the call has moved on; nothing to answer.
        if (answer !== undefined) resolve(answer);
      };
      const onAbort = () => settle(undefined);
      const ask: Ask = Object.freeze({
        id: call.invocationId,
        call,
        decision: call.decision,
        approve: (mode: 'once' | 'always') => settle({ allow: mode } as AskAnswer),
        deny: (reason: string, options?: { halt?: boolean }) => settle((options?.halt === true ? { deny: reason, halt: true } : { deny: reason }) as AskAnswer),
      });
      // The call runner gives up on the approver at the same deadline; the ask must not stay
      // listed for a UI to answer into the void.
      const timer = setTimeout(() => settle(undefined), this.w.settings.askTimeout);
      (timer as { unref?: () => void }).unref?.();
      if (ctx.signal.aborted) {
        settle(undefined);
        return;
      }
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      this.update([...this.snapshot.pending, ask]);
    });

  /** Denies every pending ask (the provider unmounted: nobody is left to answer). */
  denyAll(reason: string): void {
    for (const ask of this.snapshot.pending) ask.deny(reason);
  }

  private update(pending: Ask[]): void {
    this.snapshot = pending.length === 0 ? NO_ASKS : { pending };
    for (const listener of [...this.listeners]) listener();
  }
}
