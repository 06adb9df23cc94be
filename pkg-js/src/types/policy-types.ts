// The policy's public types: what a page writes (`Policy`, rules, predicates), what the approver
// and function predicates are given, and what they answer. Types (and `definePolicy`, an
// identity) only, importing nothing at run time: the client and the governance code both use them.
import type { Decision, ToolContract } from './types.js';

/** What the approver and function predicates see of a call. */
export interface PolicyCall {
  /** The tool's server id. */
  serverId: string;
  /** The tool's name. */
  name: string;
  /** The exact final arguments, as a deeply frozen copy. */
  arguments: unknown;
  /**
   * The arguments as text to show a person, for display only (never to decide on): their JSON
   * with every invisible or direction-changing character (format and control characters,
   * default-ignorable code points, line and paragraph separators) written as its code point,
   * `\u{202E}`, so `{ amount: '\u202E0001\u202C$' }` cannot read as `$1000`. Empty when the
   * arguments have no JSON form.
   */
  display: string;
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

/**
 * What the approver answers: allow this call once; record a grant (`'always'`: for `grantTtl`,
 * `'session'`: for as long as the client and at most `grantTtl`, never stored) for every argument of the tool
 * (`scope: 'tool'`, the default) or for exactly these arguments (`scope: 'arguments'`); or deny,
 * with a `code` the outcome carries (`error.code`), and `halt` to tell an agent loop to stop.
 */
export type AskAnswer =
  | { allow: 'once' }
  | { allow: 'always' | 'session'; scope?: 'tool' | 'arguments' }
  | { deny: string; code?: string }
  | { deny: string; code?: string; halt: true };

/** What the approver sees of a call: always with the decision that asked. */
export interface ApprovalCall extends PolicyCall {
  /**
   * The decision that asked: its `explanation` is the developer's sentence (which rule, why);
   * what to show a person is an ask's `summary` (`useApprovals()`, the devtools).
   */
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
  /** The origins the tool is exposed to beyond its own (its `exposedTo` option), if it has any. */
  exposedTo?: readonly string[];
}

/**
 * The approver: settles asks. Its `signal` aborts when the call does, and, while the page shows
 * its asks (`useApprovals()`, the devtools), when the ask was answered through its request.
 */
export type Approver = (call: ApprovalCall, ctx: GovernanceContext & { signal: AbortSignal }) => AskAnswer | Promise<AskAnswer>;

/** A policy predicate written in JS: `(call, ctx) => boolean`. */
export type PolicyPredicate = (call: PolicyCall, ctx: GovernanceContext) => boolean | Promise<boolean>;

/** A tool filter written in JS. */
export type ToolFilterFn = (tool: ToolContract, ctx: { serverId: string }) => boolean;

/**
 * A policy predicate given as data, or a JS function. `arg`: the value at a JSON pointer of the
 * arguments; `min`, `max` and `matches` on a value of another type (a string for `min`, an array
 * for `matches`) "could not tell": the rule holds in deny and ask, not in allow. `matches` runs
 * where its judgement says (docs/behaviour.md, "Patterns"); `unsafePattern: true` lets this one
 * pattern run although neither engine can be trusted with it (short strings only). `exposedTo`:
 * the tool is exposed to other origins (its `exposedTo` registration option): `true` for any,
 * or one of the origins given.
 */
export type PolicyWhen =
  | 'tainted'
  | { tainted: { ignore?: string[] } }
  | { annotation: Record<string, unknown> }
  | { principal: string | readonly string[] }
  | { exposedTo: true | string | readonly string[] }
  | { arg: string; equals?: unknown; in?: readonly unknown[]; matches?: string | RegExp; max?: number; min?: number; exists?: boolean; unsafePattern?: boolean }
  | PolicyPredicate;

/**
 * A policy rule: a matcher, or a matcher with conditions, an id, a reason the agent reads and a
 * label a person reads (an approval UI's summary shows it).
 */
export type PolicyRule =
  | string
  | RegExp
  | { server: string; name: RegExp }
  | { match?: string | RegExp | { server: string; name: RegExp }; when?: PolicyWhen | readonly PolicyWhen[]; id?: string; reason?: string; label?: string };

/** A policy rule (the same as {@link PolicyRule}). */
export type Rule = PolicyRule;

/**
 * What a call costs against a limit's `budget`, from its final arguments (a deeply frozen copy)
 * and the call as function predicates see it. A throw, a rejection, a timeout (`hookTimeout`) or
 * an answer that is not a number of 0 or more counts as past the limit (fail closed).
 */
export type LimitCost = (input: unknown, call: PolicyCall) => number | Promise<number>;

/**
 * A limit on tool calls (docs/behaviour.md, "Limits"). Every limit whose matcher selects the tool
 * applies; a call past one is denied or asked about (`onExceeded`), whatever the rules said and
 * whatever grant there is. Give at least one of `max` (with `window`), `budget` (with `window`)
 * and `concurrency`.
 */
export interface PolicyLimit {
  /** The tools it counts: a matcher, as a rule's (default: every tool). */
  match?: string | RegExp | { server: string; name: RegExp };
  /** What it counts apart: each principal, each tool name, or every call together (`'page'`, the default). */
  per?: 'principal' | 'tool' | 'page';
  /** At most this many calls in any `window` (a whole number above 0). */
  max?: number;
  /** The window `max` and `budget` count in, in ms (a whole number above 0). */
  window?: number;
  /** At most this many calls in flight at once: from the policy step (an approval wait counts) to the call's end. */
  concurrency?: number;
  /** At most this much cost in any `window` (a number above 0). */
  budget?: number;
  /** What a call costs against `budget`: a number of 0 or more (default 1) or a function. */
  cost?: number | LimitCost;
  /** What a call past the limit gets (default `'deny'`). A grant never settles a limit's ask. */
  onExceeded?: 'deny' | 'ask';
  /** Names the limit in decisions; its counts carry over when the policy is configured again (without one, its place does). */
  id?: string;
}

/** A policy: deny > pin > ask > allow > default, first match within a list; then its limits. */
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
  /** Limits on tool calls: rate, calls in flight, budgets (docs/behaviour.md, "Limits"). */
  limits?: readonly PolicyLimit[];
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
