// Policy, approver and tool-filter settings: convert the user's policy into the JSON the core
// compiles (functions become handles the core asks for), and keep the functions.
import type { Warden } from './client.js';
import { core } from './core.js';
import { isPlainObject, typeName } from './hookset.js';
import type { ToolContract } from './types.js';

/** A policy decision (SPEC §5). */
export interface Decision {
  /** `allow`, `ask` or `deny`. */
  effect: 'allow' | 'ask' | 'deny';
  /** `rule`, `default`, `no_rule`, `no_approver`, `fingerprint_changed`, `new_tool` or `grant`. */
  reason: string;
  /** The deciding rule. */
  rule?: { list: 'deny' | 'ask' | 'allow'; index: number; id?: string };
  /** One sentence naming the deciding rule. */
  explanation: string;
  /** What changed, when the pin decided. */
  pin?: { previous: string; current: string; changed: string[] };
}

/** What the approver and function predicates see of a call (SPEC §5). */
export interface PolicyCall {
  serverId: string;
  name: string;
  /** The exact final arguments, as a deeply frozen copy. */
  arguments: unknown;
  /** Lowercase hex SHA-256 of their RFC 8785 canonical JSON. */
  argsDigest: string;
  /** The tool definition's fingerprint. */
  fingerprint: string;
  principal: string | undefined;
  invocationId: string;
  /** The decision that asked (absent for function predicates, which run before there is one). */
  decision?: Decision;
}

/** What the approver answers. */
export type AskAnswer = { allow: 'once' } | { allow: 'always' } | { deny: string } | { deny: string; halt: true };

/** The approver: settles asks. */
export type Approver = (call: PolicyCall, ctx: { signal: AbortSignal; taint: Set<string>; assigns: Record<string, unknown> }) => AskAnswer | Promise<AskAnswer>;

/** A policy predicate written in JS: `(call, ctx) => boolean`. */
export type PolicyPredicate = (call: PolicyCall, ctx: { taint: Set<string>; principal: string | undefined; assigns: Record<string, unknown> }) => boolean | Promise<boolean>;

/** A tool filter written in JS. */
export type ToolFilterFn = (tool: ToolContract, ctx: { serverId: string }) => boolean;

/** A policy predicate given as data, or a JS function (SPEC §5). */
export type PolicyWhen =
  | 'tainted'
  | { tainted: { ignore?: string[] } }
  | { annotation: Record<string, unknown> }
  | { principal: string | string[] }
  | { arg: string; equals?: unknown; in?: unknown[]; matches?: string | RegExp; max?: number; min?: number; exists?: boolean }
  | PolicyPredicate;

/** A policy rule: a matcher, or a matcher with conditions, an id and a reason the agent reads. */
export type PolicyRule =
  | string
  | RegExp
  | { server: string; name: RegExp }
  | { match?: string | RegExp | { server: string; name: RegExp }; when?: PolicyWhen | PolicyWhen[]; id?: string; reason?: string };

/** A policy (SPEC §5): deny > pin > ask > allow > default, first match within a list. */
export interface Policy {
  /** Calls that are refused. */
  deny?: PolicyRule[];
  /** Calls that need an approval (a live grant or the approver). */
  ask?: PolicyRule[];
  /** Calls that run without asking. */
  allow?: PolicyRule[];
  /** What a call no rule matches gets (default `'ask'`). */
  default?: 'deny' | 'ask' | 'allow';
  /** What a changed tool definition gets (default `'ask'`; `false`: no pin). */
  pin?: 'ask' | 'deny' | false;
  /** A tool first seen after the baseline (default `true`). */
  allowNewTools?: true | 'ask' | 'deny';
}

/** A diagnostic of `lintPolicy` (SPEC §5). */
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
 * The call's taint as a Set of server ids. A single string is one server id (`taint: 'web'` is
 * `['web']`, never the letters of "web"); call options are checked to be strings before this.
 */
export function taintSet(taint: Iterable<unknown> | string | null | undefined): Set<string> {
  if (taint === undefined || taint === null) return new Set();
  if (typeof taint === 'string') return new Set([taint]);
  return new Set(Array.from(taint, String));
}

/** The keys of the markers below; a user's object holding one would be read as a marker. */
const RESERVED_KEYS = ['$fn', '$regex', '$invalid'];

/**
 * The JSON the core compiles from a policy (or any configuration holding matchers and
 * predicates): functions become `{ $fn: handle }`, RegExps `{ $regex: { source, flags } }`, and
 * values JSON cannot say `{ $invalid: type }`.
 *
 * The same function always gets the same handle, so a predicate named in several rules is one
 * predicate: the core asks it at most once per call, and lint can tell it from another function.
 * With `keep`, handles index `predicateTable`; without (lint, filters), they are numbered for
 * this description only. A plain object that itself holds a marker key (`$fn`, …: say, a policy
 * loaded from JSON) becomes `$invalid`, so data can never name one of the page's functions.
 */
export function describeForCore(value: unknown, w: Warden | undefined, local = new Map<unknown, number>(), ancestors = new Set<object>()): unknown {
  if (typeof value === 'function') {
    if (w === undefined) {
      let handle = local.get(value);
      if (handle === undefined) local.set(value, (handle = local.size));
      return { $fn: handle };
    }
    const { table, handles } = w.predicates;
    let handle = handles.get(value as PolicyPredicate);
    if (handle === undefined) {
      handle = table.push(value as PolicyPredicate) - 1;
      handles.set(value as PolicyPredicate, handle);
    }
    return { $fn: handle };
  }
  if (value instanceof RegExp) return { $regex: { source: value.source, flags: value.flags } };
  if (Array.isArray(value) || isPlainObject(value)) {
    // A cycle would recurse forever: it is a value JSON cannot say, reported like one.
    if (ancestors.has(value)) return { $invalid: 'a cyclic object' };
    ancestors.add(value);
    try {
      if (Array.isArray(value)) return value.map((item) => describeForCore(item, w, local, ancestors));
      const object = value as Record<string, unknown>;
      const reserved = RESERVED_KEYS.find((key) => Object.hasOwn(object, key));
      if (reserved !== undefined) return { $invalid: `an object with the reserved key "${reserved}"` };
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(object)) {
        if (object[key] !== undefined) out[key] = describeForCore(object[key], w, local, ancestors);
      }
      return out;
    } finally {
      ancestors.delete(value);
    }
  }
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : { $invalid: String(value) };
  return { $invalid: typeName(value) };
}

/**
 * Checks a policy without applying it (SPEC §5): rules that can never fire (shadowed by an
 * earlier or higher-precedence rule), invalid patterns, unknown keys. Never throws.
 */
export function lintPolicy(policy: unknown): PolicyDiagnostic[] {
  return JSON.parse(core.lintPolicy(JSON.stringify(describeForCore(policy, undefined)))) as PolicyDiagnostic[];
}
