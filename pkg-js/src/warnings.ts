// One console warning per hook (and per approver) that returned something outside its contract,
// so the developer learns why a call failed closed. It names the hook, the event and the shapes
// it may return, never the value itself (which may quote arguments or results); the agent-visible
// text does not change.
import type { Warden } from './client.js';

const SHAPES: Record<string, string> = {
  before: "nothing, { input }, { action: 'deny', message?, code? } or { action: 'halt', result }",
  after: 'nothing or { output }',
  error: "nothing or { action: 'recover', result }",
  denied: 'nothing',
  toolsListed: 'nothing or a subset of the tools it was given (same names, each once)',
  resourceRead: "nothing or { action: 'deny', message?, code? }",
  promptGet: "nothing, { args } or { action: 'deny', message?, code? }",
  approver: "{ allow: 'once' }, { allow: 'always' }, { deny: reason } or { deny: reason, halt: true }",
};

const warned = new WeakMap<Warden, Set<string>>();

/**
 * Warns once per client and hook id (or once for the approver) about a bad return. `failedCall`
 * is the core's answer (the action's `FailedNow` bit): whether the failure failed the call or
 * listing, or was gone past (an error or denied hook, an after-hook with `onError: 'ignore'`).
 */
export function warnBadReturn(w: Warden, event: string, hookId: string | undefined, failedCall: boolean): void {
  let seen = warned.get(w);
  if (seen === undefined) warned.set(w, (seen = new Set()));
  const key = `${event}\u0000${hookId ?? ''}`;
  if (seen.has(key)) return;
  seen.add(key);
  const who = event === 'approver' ? 'the approver (onAsk)' : `${event} hook "${hookId ?? '?'}"`;
  const consequence = !failedCall ? 'the hook was skipped' : event === 'approver' ? 'the ask was denied (ask_failed)' : event === 'after' ? 'the result was withheld' : event === 'toolsListed' ? 'the listing failed' : 'the call failed closed';
  console.warn(`webmcp-warden: ${who} returned a value outside its contract, so ${consequence}. It may return ${SHAPES[event] ?? 'nothing'}. See the hook returns section of the webmcp-warden docs.`);
}
