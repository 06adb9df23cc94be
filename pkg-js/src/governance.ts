// Policy, approver and tool-filter settings: encode the user's policy for the core (functions
// become handles the core asks for), and keep the functions while a policy uses them.
import type { Warden } from './client.js';
import { core } from './core.js';
import type { Decision, ToolContract } from './types.js';

export type { Decision };
import { decode, encode } from './wire.js';


/** What the approver and function predicates see of a call. */
export interface PolicyCall {
  /** The tool's server id. */
  serverId: string;
  /** The tool's name. */
  name: string;
  /** The exact final arguments, as a deeply frozen copy. */
  arguments: unknown;
  /** Lowercase hex SHA-256 of their RFC 8785 canonical JSON. */
  argsDigest: string;
  /** The tool definition's fingerprint. */
  fingerprint: string;
  /** Who the call is for, if the caller said. */
  principal: string | undefined;
  /** Unique per call. */
  invocationId: string;
  /** What is called when it is not a tool: a resource read (`name` is the URI read) or a prompt get. */
  kind?: 'resource' | 'prompt';
  /** The decision that asked (absent for function predicates, which run before there is one). */
  decision?: Decision;
}

/** What the approver answers. */
export type AskAnswer = { allow: 'once' } | { allow: 'always' } | { deny: string } | { deny: string; halt: true };

/** What the approver sees of a call: always with the decision that asked. */
export interface ApprovalCall extends PolicyCall {
  /** The decision that asked (its `explanation` is the sentence to show a person). */
  decision: Decision;
}

/** What function predicates and the approver are told besides the call. */
export interface GovernanceContext {
  /** Server ids whose output entered the current turn (the call option `taint`). */
  taint: Set<string>;
  /** Who the call is for, if the caller said. */
  principal: string | undefined;
  /** The call option `assigns` (`{}` when not given). */
  assigns: Record<string, unknown>;
  /** Whether an approver would settle an ask for this call (`onAsk` or a provider's queue). */
  hasApprover: boolean;
  /** The `approvedFingerprints` setting in force. */
  approvedFingerprints: Record<string, string> | 'first_listing' | null | undefined;
}

/** The approver: settles asks. Its `signal` aborts when the call does or the ask times out. */
export type Approver = (call: ApprovalCall, ctx: GovernanceContext & { signal: AbortSignal }) => AskAnswer | Promise<AskAnswer>;

/** A policy predicate written in JS: `(call, ctx) => boolean`. */
export type PolicyPredicate = (call: PolicyCall, ctx: GovernanceContext) => boolean | Promise<boolean>;

/** A tool filter written in JS. */
export type ToolFilterFn = (tool: ToolContract, ctx: { serverId: string }) => boolean;

/** A policy predicate given as data, or a JS function. */
export type PolicyWhen =
  | 'tainted'
  | { tainted: { ignore?: string[] } }
  | { annotation: Record<string, unknown> }
  | { principal: string | readonly string[] }
  | { arg: string; equals?: unknown; in?: readonly unknown[]; matches?: string | RegExp; max?: number; min?: number; exists?: boolean }
  | PolicyPredicate;

/** A policy rule: a matcher, or a matcher with conditions, an id and a reason the agent reads. */
export type PolicyRule =
  | string
  | RegExp
  | { server: string; name: RegExp }
  | { match?: string | RegExp | { server: string; name: RegExp }; when?: PolicyWhen | readonly PolicyWhen[]; id?: string; reason?: string };

/** A policy rule (the same as {@link PolicyRule}). */
export type Rule = PolicyRule;

/** A policy: deny > pin > ask > allow > default, first match within a list. */
export interface Policy {
  /** Calls that are refused. */
  deny?: readonly PolicyRule[];
  /** Calls that need an approval (a live grant or the approver). */
  ask?: readonly PolicyRule[];
  /** Calls that run without asking. */
  allow?: readonly PolicyRule[];
  /** What a call no rule matches gets (default `'ask'`). */
  default?: 'deny' | 'ask' | 'allow';
  /** What a changed tool definition gets (default `'ask'`; `false`: no pin). */
  pin?: 'ask' | 'deny' | false;
  /** A tool first seen after the baseline (default `true`). */
  allowNewTools?: true | 'ask' | 'deny';
  /**
   * Reads of resources: rules matching the URI read (a URI glob or template, a RegExp,
   * `{ server, name: RegExp }`); `default` falls back to the policy's. The policy's own rules
   * never apply to resources.
   */
  resources?: PolicySection;
  /** Gets of prompts: rules matching the prompt's name; `default` falls back to the policy's. */
  prompts?: PolicySection;
}

/** The `resources` or `prompts` section of a policy: deny > ask > allow > default, no pins. */
export interface PolicySection {
  /** Reads or gets that are refused. */
  deny?: readonly PolicyRule[];
  /** Reads or gets that need an approval. */
  ask?: readonly PolicyRule[];
  /** Reads or gets that go ahead. */
  allow?: readonly PolicyRule[];
  /** What no rule matches gets (default: the policy's `default`). */
  default?: 'deny' | 'ask' | 'allow';
}

/**
 * Types a policy written as a literal, without `as const` (`default: 'ask'` stays `'ask'`, not
 * `string`), and answers it unchanged. `const policy = { … } satisfies Policy` does the same.
 *
 * @example
 * const policy = definePolicy({ deny: [{ match: 'shop/delete_*', reason: 'People delete, not agents.' }], default: 'ask' });
 * configureWebMCP({ policy });
 */
export function definePolicy<P extends Policy>(policy: P): P {
  return policy;
}

/** A diagnostic of `lintPolicy`. */
export interface PolicyDiagnostic {
  code: string;
  message: string;
  /** The rule, such as `allow[0]` or `deny[1].when[0]`. */
  path: string;
}

/**
 * The approver of a call under provider `scope`: the nearest provider's (set by
 * `webmcp-warden/react` through `scopeApprovers`), else the client's `onAsk`.
 */
export function approverFor(w: Warden, scope: number): Approver | undefined {
  return (scope !== 0 ? scopeApprovers.get(w)?.(scope) : undefined) ?? w.settings.approver;
}

/** Where each client finds the approver of a provider scope (set by the React layer). */
export const scopeApprovers = new WeakMap<Warden, (scope: number) => Approver | undefined>();

/**
 * The call's taint as a Set of server ids. A single string is one server id
 * (`taint: 'web'` is `['web']`, never the letters of "web", which TypeScript's
 * `Iterable<string>` would allow); other entries become strings, so each one still counts.
 */
export function taintSet(taint: Iterable<unknown> | string | null | undefined): Set<string> {
  if (taint === undefined || taint === null) return new Set();
  if (typeof taint === 'string') return new Set([taint]);
  return new Set(Array.from(taint, String));
}

/**
 * A client's policy function predicates, by the handle the core asks for. A slot is
 * `undefined` once its function was released (no policy uses it any more): a call still running
 * under an older policy that asks for it gets a failure (fail closed), never another function.
 */
export class Predicates {
  /** Functions by handle. */
  readonly table: (PolicyPredicate | undefined)[] = [];
  /** The handle of each function: one function, one handle. */
  readonly #handles = new Map<PolicyPredicate, number>();
  /** Released handles, reused only once no call is in progress (see `retain`). */
  readonly #released: number[] = [];
  readonly #reusable: number[] = [];
  /** The handles the policy in force uses. */
  inForce: ReadonlySet<number> = new Set();

  /** The handle of `fn`, the same every time while a policy uses it. */
  handleOf(fn: PolicyPredicate, callsInProgress: () => number): number {
    let handle = this.#handles.get(fn);
    if (handle === undefined) {
      // A released handle could still be named by a call that started under the old policy;
      // it is reused only after every call of that time ended.
      if (this.#reusable.length === 0 && this.#released.length > 0 && callsInProgress() === 0) this.#reusable.push(...this.#released.splice(0));
      handle = this.#reusable.pop() ?? this.table.length;
      this.table[handle] = fn;
      this.#handles.set(fn, handle);
    }
    return handle;
  }

  /**
   * Releases every function whose handle is not in `keep` (the handles of the policy in force),
   * so a function no policy uses any more can be garbage-collected.
   */
  retain(keep: ReadonlySet<number>): void {
    for (const [fn, handle] of this.#handles) {
      if (keep.has(handle)) continue;
      this.#handles.delete(fn);
      this.table[handle] = undefined;
      this.#released.push(handle);
    }
  }

  /** How many functions are held (for leak tests). */
  get live(): number {
    return this.#handles.size;
  }
}

/**
 * A policy in the wire format the core compiles: functions become predicate handles (the same
 * function the same handle, so a predicate named in several rules is asked at most once per
 * call), RegExps typed tokens, and what JSON cannot say an unsupported value the core names.
 * Own keys only, each read once: a `__proto__` key of a parsed policy stays a key.
 */
export function encodePolicy(w: Warden, policy: unknown): { bytes: Uint8Array; handles: Set<number> } {
  const handles = new Set<number>();
  const callsInProgress = () => w.counts().calls;
  const bytes = encode(policy, {
    fn: (f) => {
      const handle = w.predicates.handleOf(f as PolicyPredicate, callsInProgress);
      handles.add(handle);
      return handle;
    },
  });
  return { bytes, handles };
}

/** Seals an `approvedFingerprints: 'first_listing'` baseline at the first listing or call. */
export function sealFirstListing(w: Warden): void {
  if (w.settings.approvedFingerprints !== 'first_listing' || w.sealed) return;
  w.sealBaseline();
}

/**
 * Checks a policy without applying it: rules that can never fire (shadowed by an
 * earlier or higher-precedence rule), invalid patterns, unknown keys. Never throws: what cannot
 * be read (a getter or a proxy that throws) is reported like any other wrong value. Functions
 * are numbered for this lint only and never called.
 */
export function lintPolicy(policy: unknown): PolicyDiagnostic[] {
  try {
    const local = new Map<unknown, number>();
    const bytes = encode(policy, {
      fn: (f) => {
        let handle = local.get(f);
        if (handle === undefined) local.set(f, (handle = local.size));
        return handle;
      },
    });
    const answer = decode(core.lintPolicy(bytes)) as { ok: true; diagnostics: PolicyDiagnostic[] } | { ok: false; error: { code: string; message: string } };
    if (answer.ok) return answer.diagnostics;
    return [{ code: answer.error.code, message: answer.error.message, path: '' }];
  } catch {
    return [{ code: 'invalid_policy', message: 'the policy could not be read', path: '' }];
  }
}
