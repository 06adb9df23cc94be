// `explain(name, input, opts)`: a dry run. Says what would happen to a call and why, without
// calling any user function (hooks, predicates, the approver, a Standard Schema) or the tool.
import { canonicalJson } from './canonical.js';
import { getCore } from './core.js';
import { approverFor, governance, taintSet, type Decision } from './governance.js';
import { grantSettings, loadGrantsOnce } from './grants.js';
import { findTool } from './registry.js';
import type { CallOptions } from './types.js';
import { toJson, validateJson, type Diagnostic } from './validation.js';
import { decode, encode } from './wire.js';

/** One step of a dry run. */
export type ExplainStep =
  | { step: 'select'; tool: string; found: boolean; filterFunction?: string }
  | { step: 'hooks'; before: string[]; after: string[]; error: string[]; denied: string[]; note: string }
  | { step: 'validation'; ok: boolean; skipped?: string; diagnostics?: Diagnostic[] }
  | { step: 'policy'; decision: Decision; functionPredicatesNotCalled?: number }
  | { step: 'approval'; wouldAsk: boolean; approver: boolean };

/** What `explain` answers: the decision policy would take, and every step that led there. */
export type Explanation = Decision & { steps: ExplainStep[]; argsDigest?: string; fingerprint?: string };

/**
 * Runs selection, hook matching, validation and policy on `input` for the tool `name` without
 * calling any user function or the tool, and says what would happen and why (SPEC §5). Before-hooks
 * could still rewrite the input or deny in a real call; the steps list which would run.
 */
export async function explain(name: string, input?: unknown, options: Pick<CallOptions, 'principal' | 'taint'> = {}): Promise<Explanation> {
  const steps: ExplainStep[] = [];
  // A filter function is user code: not called here, so a tool it would hide is explained.
  const tool = findTool(name, false);
  const select: ExplainStep = { step: 'select', tool: String(name), found: tool !== undefined };
  if (tool !== undefined && governance.filter !== undefined) select.filterFunction = 'not called in a dry run; it could still hide this tool';
  steps.push(select);
  if (tool === undefined) {
    return { effect: 'deny', reason: 'unknown_tool', explanation: `No visible tool is named "${String(name)}"; a call would fail as unknown.`, steps };
  }
  const core = getCore();
  const plan = JSON.parse(core.plan(tool.coreTool, tool.scope)) as { ok: boolean; hooks?: { id: string; event: string }[] };
  const ids = (event: string) => (plan.hooks ?? []).filter((hook) => hook.event === event).map((hook) => hook.id);
  steps.push({ step: 'hooks', before: ids('before'), after: ids('after'), error: ids('error'), denied: ids('denied'), note: 'not called in a dry run; before-hooks could rewrite or deny' });

  if (tool.validation.standard) {
    steps.push({ step: 'validation', ok: true, skipped: 'a Standard Schema is user code and is not called in a dry run' });
  } else if (tool.validation.input) {
    const result = await validateJson(tool.validation.input, input);
    if (result.valid) steps.push({ step: 'validation', ok: true });
    else if ('invalidSchema' in result) steps.push({ step: 'validation', ok: false, diagnostics: [{ path: '', keyword: 'schema', message: result.invalidSchema }] });
    else steps.push({ step: 'validation', ok: false, diagnostics: result.diagnostics });
  }
  const validationFailed = steps.some((step) => step.step === 'validation' && !step.ok);

  const json = toJson(input);
  const args: unknown = json.ok ? JSON.parse(json.text) : null;
  let canonical: string | undefined;
  try {
    canonical = json.ok ? canonicalJson(args) : undefined;
  } catch {
    canonical = undefined;
  }
  await loadGrantsOnce();
  const facts = {
    arguments: args,
    canonical,
    principal: options.principal,
    taint: [...taintSet(options.taint)],
    nowMs: grantSettings.clock(),
    hasApprover: approverFor(tool.scope) !== undefined,
  };
  const answer = decode(core.explain(tool.coreTool, encode(facts))) as {
    ok: boolean;
    decision?: Decision | null;
    functionPredicates?: number[];
    argsDigest?: string | null;
    fingerprint?: string;
  };
  const decision: Decision = answer.decision ?? {
    effect: 'allow',
    reason: 'default',
    explanation: 'There is no policy: a call that passes the hooks and validation is allowed.',
  };
  const notCalled = answer.functionPredicates?.length ?? 0;
  steps.push(notCalled ? { step: 'policy', decision, functionPredicatesNotCalled: notCalled } : { step: 'policy', decision });
  if (decision.effect === 'ask') steps.push({ step: 'approval', wouldAsk: true, approver: approverFor(tool.scope) !== undefined });
  const explanation = validationFailed
    ? `Validation would fail first (the tool would not run). Policy would then say: ${decision.explanation}`
    : decision.explanation;
  const out: Explanation = { ...decision, explanation, steps };
  if (answer.argsDigest) out.argsDigest = answer.argsDigest;
  if (answer.fingerprint) out.fingerprint = answer.fingerprint;
  return out;
}
