// The asks of a client waiting for an answer, as requests a page can build an approval UI on
// (`useApprovals()`, `<ApprovalDialog>`, the devtools). A framework-free store (subscribe +
// immutable snapshots) that React reads with `useSyncExternalStore`.
//
// A call's approval step lists its ask here while the approver works, whichever approver it is
// (`onAsk`, a provider's function, a provider's queue): an answer given through the request
// (`approve`, `deny`, `cancel`) settles the step as the approver's own answer would, judged by
// the core the same way, and aborts the approver's `ctx.signal`. The store exists once something
// shows asks (`asksOf`), so a page that shows none never loads this file.
import type { AskAnswer, PolicyCall } from '../types/policy-types.js';
import type { Decision } from '../types/types.js';

/** What a person is shown of an ask: the tool, the rule's own label, the arguments that decided. */
export interface ApprovalSummary {
  /** The tool's title, else its name (a resource's or a prompt's name). */
  tool: string;
  /** The deciding rule's `label`, when the policy gives one. */
  label?: string;
  /**
   * The arguments that decided: the values at the JSON pointers the deciding rule's `arg`
   * predicates read (the rule the decision names, as the policy wrote it); without such a rule,
   * the call's top-level arguments (at most five). Each
   * value as JSON, cut at 80 characters, invisible and direction-changing characters written
   * as `\u{…}` so what a person reads is what the agent sent.
   */
  arguments: { path: string; value: string }[];
  /** One line: `<label or tool> — <path> <value>, …`. */
  text: string;
}

/** Where an ask stands: `pending` until settled, then how it ended. */
export type AskStatus =
  /** Waiting for an answer. */
  | 'pending'
  /** Approved through the request (`approve`). */
  | 'approved'
  /** Denied through the request (`deny`). */
  | 'denied'
  /** Withdrawn through the request before anyone answered (`cancel`). */
  | 'cancelled'
  /** The deadline (`askTimeout`) came first: the call was denied (`ask_failed`, cause `timeout`). */
  | 'expired'
  /** The call was aborted. */
  | 'aborted'
  /** The approver answered (or failed) on its own. */
  | 'answered';

/** A pending ask: the call, the decision that asked, and how to answer it. */
export interface Ask {
  /** Unique per ask (the call's invocation id). */
  readonly id: string;
  /** What the approver sees of the call: the exact final arguments, digest, fingerprint, … */
  readonly call: PolicyCall;
  /** The decision that asked. */
  readonly decision: Decision | undefined;
  /** The decision's explanation: the developer's sentence (which rule, why). */
  readonly explanation: string;
  /** What to show the person who decides. */
  readonly summary: ApprovalSummary;
  /** When the ask was made (ms since the epoch, on the client's `clock`). */
  readonly createdAt: number;
  /** When it expires unanswered: `createdAt + askTimeout`. */
  readonly deadline: number;
  /** `pending` until settled, then how it ended (read it when the ask leaves `pending`). */
  readonly status: AskStatus;
  /** Allows this call (`'once'`, the default), or records a grant (`'always'`). */
  approve(mode?: 'once' | 'always'): void;
  /** Denies the call (`reason: 'ask_denied'`), or tells the agent loop to stop (`halt`: `'ask_halt'`). */
  deny(reason: string, options?: { halt?: boolean }): void;
  /**
   * Withdraws the ask without a person's answer (the approval UI closed, the page moved on):
   * the call is denied as the approver's `{ deny: reason }` would deny it (`ask_denied`, the
   * agent reading `Denied: <reason>`), and the ask's status says `cancelled`, not `denied`.
   */
  cancel(reason?: string): void;
}

/** A snapshot of the asks waiting for an answer. */
export interface Approvals {
  /** The asks waiting for an answer, oldest first. */
  pending: Ask[];
}

/** The snapshot with nothing pending: one object, so an idle store never re-renders anyone. */
export const NO_ASKS: Approvals = Object.freeze({ pending: Object.freeze([]) as unknown as Ask[] });

/** How the approver's step ended (perform.ts's `Ended`, by number) → the ask's status. */
const ENDED_STATUS: Record<number, AskStatus> = { 0: 'answered', 1: 'answered', 2: 'expired', 3: 'aborted' };

/** One listed ask and the approver whose step it is. */
interface Listed {
  ask: Ask;
  approver: unknown;
}

/** A client's pending asks. */
export class AskBook {
  #listed: Listed[] = [];
  #snapshot: Approvals = NO_ASKS;
  readonly #listeners = new Set<() => void>();

  /** Subscribes to changes; answers the unsubscribe function. */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  };

  /** The pending asks (the same object until one is added or settled). */
  readonly getSnapshot = (): Approvals => this.#snapshot;

  /** The pending asks whose approver is `approver` (a provider's queue), oldest first. */
  pendingOf(approver: unknown): Ask[] {
    return this.#listed.filter((entry) => entry.approver === approver).map((entry) => entry.ask);
  }

  /**
   * An approval step of a call whose signal is `callSignal` (call.ts; none for the shared
   * never-aborted signal, which must get no listeners): the signal its approver
   * works under (aborted with the call's, and when the ask is answered through its request), and
   * `race`, which lists the ask while the approver's step (`performed`, perform.ts's answer)
   * works and answers whichever ends it first: the step, or the request's answer as a value.
   */
  step(callSignal: AbortSignal | undefined): { signal: AbortSignal; race(performed: Promise<[number, unknown]>, call: PolicyCall, title: string | undefined, approver: unknown, settings: { clock: () => number; askTimeout: number; policy?: unknown }): Promise<[number, unknown]> } {
    const own = new AbortController();
    if (callSignal?.aborted) own.abort(callSignal.reason);
    else callSignal?.addEventListener('abort', () => own.abort(callSignal.reason), { once: true });
    return {
      signal: own.signal,
      race: (performed, call, title, approver, settings) =>
        new Promise((resolve) => {
          const close = this.open(call, title, approver, settings, (answer) => {
            resolve([0, answer]);
            own.abort();
          });
          void performed.then((done) => {
            close(done[0]);
            resolve(done);
          });
        }),
    };
  }

  /**
   * Lists the ask of a call whose approver is working (`step`). `give` is called at most once,
   * with the answer given through the request; the function answered closes the ask with how the
   * approver's step ended (perform.ts's `Ended`), when the request was not answered first.
   */
  open(call: PolicyCall, title: string | undefined, approver: unknown, settings: { clock: () => number; askTimeout: number; policy?: unknown }, give: (answer: AskAnswer) => void): (ended: number) => void {
    let status: AskStatus = 'pending';
    const createdAt = settings.clock();
    const settle = (to: AskStatus, answer: AskAnswer | undefined) => {
      if (status !== 'pending') return;
      status = to;
      this.#listed = this.#listed.filter((entry) => entry.ask !== ask);
      this.#changed();
      if (answer !== undefined) give(answer);
    };
    const ask: Ask = Object.freeze({
      id: call.invocationId,
      call,
      decision: call.decision,
      explanation: call.decision?.explanation ?? '',
      summary: summarize(call, title, settings.policy),
      createdAt,
      deadline: createdAt + settings.askTimeout,
      get status() {
        return status;
      },
      approve: (mode: 'once' | 'always' = 'once') => settle('approved', { allow: mode === 'always' ? 'always' : 'once' }),
      deny: (reason: string, options?: { halt?: boolean }) => settle('denied', options?.halt === true ? { deny: String(reason), halt: true } : { deny: String(reason) }),
      cancel: (reason = 'The approval request was withdrawn.') => settle('cancelled', { deny: String(reason) }),
    });
    this.#listed = [...this.#listed, { ask, approver }];
    this.#changed();
    return (ended) => settle(ENDED_STATUS[ended] ?? 'answered', undefined);
  }

  #changed(): void {
    this.#snapshot = this.#listed.length === 0 ? NO_ASKS : Object.freeze({ pending: Object.freeze(this.#listed.map((entry) => entry.ask)) as Ask[] });
    for (const listener of [...this.#listeners]) {
      try {
        listener();
      } catch {
        // a listener's failure is its own
      }
    }
  }
}

/** The ask book of client `w` (a `ClientState`: typed by its one field, so this file imports no client), made on first use. */
export function asksOf(w: { asks: AskBook | undefined }): AskBook {
  w.asks ??= new AskBook();
  return w.asks;
}

/** Characters a person would not see, or that change how text around them reads. */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\u115F\u1160\u3164\uFFA0\u034F\u180B-\u180F\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/gu;
/** The longest value a summary shows, in UTF-16 units. */
const VALUE_CHARS = 80;
/** How many arguments a summary shows when no rule names them. */
const TOP_LEVEL = 5;

/**
 * What a person is shown of `call`: `policy` is the page's policy as given, where the rule the
 * core named (its list and index) says which arguments it reads.
 */
export function summarize(call: PolicyCall, title: string | undefined, policy?: unknown): ApprovalSummary {
  const tool = typeof title === 'string' && title.length > 0 ? visible(title, VALUE_CHARS) : call.name;
  const label = call.decision?.rule?.label;
  const pointers = argPointers(policy, call);
  const args = call.arguments;
  const picked: { path: string; value: string }[] = [];
  if (pointers !== undefined && pointers.length > 0) {
    for (const pointer of pointers) picked.push({ path: pointer, value: shown(at(args, pointer)) });
  } else if (args !== null && typeof args === 'object' && !Array.isArray(args)) {
    for (const key of Object.keys(args).slice(0, TOP_LEVEL)) picked.push({ path: `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, value: shown((args as Record<string, unknown>)[key]) });
  }
  const parts = picked.map((arg) => `${visible(arg.path.slice(1).replace(/\//g, '.'), VALUE_CHARS) || '(arguments)'} ${arg.value}`);
  const text = `${label ?? tool}${parts.length > 0 ? ` — ${parts.join(', ')}` : ''}`;
  const summary: ApprovalSummary = { tool, arguments: picked, text };
  if (label !== undefined) summary.label = label;
  return Object.freeze(summary);
}

/**
 * The JSON pointers the deciding rule's `arg` predicates read, each once: the rule the core named
 * (`decision.rule`: list and index, in the section of the policy for what is called).
 */
function argPointers(policy: unknown, call: PolicyCall): string[] {
  const rule = call.decision?.rule;
  if (rule === undefined || policy === null || typeof policy !== 'object') return [];
  const section = call.kind === 'resource' ? 'resources' : call.kind === 'prompt' ? 'prompts' : undefined;
  const holder = section === undefined ? policy : (policy as Record<string, unknown>)[section];
  const list = holder !== null && typeof holder === 'object' ? (holder as Record<string, unknown>)[rule.list] : undefined;
  const written = Array.isArray(list) ? (list[rule.index] as unknown) : undefined;
  const when = written !== null && typeof written === 'object' ? (written as { when?: unknown }).when : undefined;
  const pointers: string[] = [];
  for (const predicate of Array.isArray(when) ? when : [when]) {
    const pointer = predicate !== null && typeof predicate === 'object' ? (predicate as { arg?: unknown }).arg : undefined;
    if (typeof pointer === 'string' && !pointers.includes(pointer)) pointers.push(pointer);
  }
  return pointers;
}

/** The value at a JSON pointer (RFC 6901), or `undefined`. */
function at(value: unknown, pointer: string): unknown {
  if (pointer === '') return value;
  let here = value;
  for (const token of pointer.slice(1).split('/')) {
    const key = token.replace(/~1/g, '/').replace(/~0/g, '~');
    if (here === null || typeof here !== 'object' || !Object.hasOwn(here, key)) return undefined;
    here = (here as Record<string, unknown>)[key];
  }
  return here;
}

/** A value as a person reads it: its JSON, cut, hidden characters written out. */
function shown(value: unknown): string {
  if (value === undefined) return '(absent)';
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = '(unreadable)';
  }
  return visible(text, VALUE_CHARS);
}

/** `text` cut at `max` units, every hidden character written as `\u{…}`. */
function visible(text: string, max: number): string {
  const cut = text.length > max ? `${text.slice(0, max)}…` : text;
  return cut.replace(HIDDEN, (c) => `\\u{${(c.codePointAt(0) ?? 0).toString(16).toUpperCase()}}`);
}
