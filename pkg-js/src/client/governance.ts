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
 * The approver of a call under provider `scope`: the nearest provider's that has one (the React
 * layer keeps the providers' scopes on the client, `react/scope.ts`), else the client's `onAsk`.
 * Scopes of before the client's last `reset()` are gone from its core: none of them answers.
 */
export function approverFor(w: ClientState, scope: number): Approver | undefined {
  const scopes = w.providerScopes;
  if (scope !== 0 && scopes !== undefined && scopes.epoch === w.resets) {
    for (let node = scopes.nodes.get(scope); node; node = node.parent ?? undefined) {
      if (node.approver) return node.approver;
    }
  }
  return w.settings.approver;
}

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
