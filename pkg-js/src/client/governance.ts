// Policy, approver and tool-filter settings: encode the user's policy for the core (functions
// become handles the core asks for), and keep the functions while a policy uses them.
import type { ClientState } from './client.js';
import type { Decision } from '../types/types.js';
import { encode } from '../boundary/wire.js';
import type { Approver, PolicyPredicate } from '../types/policy-types.js';

export type { Decision };
export { definePolicy, type PolicyCall, type AskAnswer, type ApprovalCall, type GovernanceContext, type Approver, type PolicyPredicate, type ToolFilterFn, type PolicyWhen, type PolicyRule, type Rule, type Policy, type PolicySection, type PolicyDiagnostic, type PolicyLimit, type LimitCost } from '../types/policy-types.js';
export { Predicates } from './predicates.js';


/**
 * The approver of a call under provider `scope`: the nearest provider's (set by
 * `webmcp-warden/react` through `scopeApprovers`), else the client's `onAsk`.
 */
export function approverFor(w: ClientState, scope: number): Approver | undefined {
  return (scope !== 0 ? scopeApprovers.get(w)?.(scope) : undefined) ?? w.settings.approver;
}

/** Where each client finds the approver of a provider scope (set by the React layer). */
export const scopeApprovers = new WeakMap<ClientState, (scope: number) => Approver | undefined>();

/**
 * A policy in the wire format the core compiles: functions become predicate handles (the same
 * function the same handle, so a predicate named in several rules is asked at most once per
 * call), RegExps typed tokens, and what JSON cannot say an unsupported value the core names.
 * Own keys only, each read once: a `__proto__` key of a parsed policy stays a key.
 */
export function encodePolicy(w: ClientState, policy: unknown): { bytes: Uint8Array; handles: Set<number> } {
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
export function sealFirstListing(w: ClientState): void {
  if (w.settings.approvedFingerprints !== 'first_listing' || w.sealed) return;
  w.sealBaseline();
}
