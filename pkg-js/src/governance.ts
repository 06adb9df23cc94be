// Policy, approver and tool-filter settings: convert the user's policy into the JSON the core
// compiles (functions become handles the core asks for), and keep the functions.
import { Core } from '../wasm/warden_core.js';
import { getCore } from './core.js';
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

/** A diagnostic of `lintPolicy` (SPEC §5). */
export interface PolicyDiagnostic {
  code: string;
  message: string;
  /** The rule, such as `allow[0]` or `deny[1].when[0]`. */
  path: string;
}

/** Settings the pipeline reads. */
export const governance = {
  hasPolicy: false,
  approver: undefined as Approver | undefined,
  askTimeout: 60_000,
  filter: undefined as ToolFilterFn | undefined,
};

/** Policy function predicates by the handle the core asks for. */
export const predicateTable: PolicyPredicate[] = [];

/**
 * The JSON the core compiles from a policy (or any configuration holding matchers and
 * predicates): functions become `{ $fn: handle }` (stored in `predicateTable` when `keep`),
 * RegExps `{ $regex: { source, flags } }`, and values JSON cannot say `{ $invalid: type }`.
 */
export function describeForCore(value: unknown, keep: boolean): unknown {
  if (typeof value === 'function') {
    if (!keep) return { $fn: 0 };
    predicateTable.push(value as PolicyPredicate);
    return { $fn: predicateTable.length - 1 };
  }
  if (value instanceof RegExp) return { $regex: { source: value.source, flags: value.flags } };
  if (Array.isArray(value)) return value.map((item) => describeForCore(item, keep));
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      if (value[key] !== undefined) out[key] = describeForCore(value[key], keep);
    }
    return out;
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
  getCore();
  return JSON.parse(Core.lintPolicy(JSON.stringify(describeForCore(policy, false)))) as PolicyDiagnostic[];
}
