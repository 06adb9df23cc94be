// `explain(name, input, opts)`: a dry run. The core runs the call machine in its dry-run mode:
// it lists the hooks that would run, asks for JSON Schema validation and the policy facts, and
// decides without calling any user function (hooks, predicates, the approver, a Standard Schema)
// or the tool; this file performs those steps and returns the core's explanation.
import { clientOption, type ClientOption } from './api.js';
import { CallFlags, Op, ActionBits, StepReport, Signal } from '../boundary/codes.js';
import { core } from '../boundary/core.js';
import { canonicalJson } from '../util/canonical.js';
import { approverFor, type Decision } from '../client/governance.js';
import { WardenError } from '../util/errors.js';
import { ensureGrants } from '../client/grants.js';
import { findTool, nameText } from '../client/registry.js';
import type { CallOptions } from '../types/types.js';
import { pipelineOrThrow } from './pipeline-loader.js';
import { patternsSettled } from '../boundary/patterns.js';
import type { Diagnostic } from '../types/types.js';
import { decode, encode } from '../boundary/wire.js';
import type { EndExplainAnswer, ExplainUnknownAnswer } from '../boundary/answers.js';

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
 * Runs selection, hook matching, validation and policy on `input` for the tool `name` of the
 * client `options.client` names (the default client when absent) without calling any user
 * function or the tool, and says what would happen and why. Before-hooks could still rewrite the
 * input or deny in a real call; the steps list which would run.
 */
export async function explain(name: string, input?: unknown, given: Pick<CallOptions, 'principal' | 'taint'> & ClientOption = {}): Promise<Explanation> {
  const [w, rest] = clientOption(given);
  // A disposed client refuses, as its other configuration-time methods do.
  w.engine();
  const { readCallOptions, toJson, validateJsonText, loadExtras } = await pipelineOrThrow();
  // Read once, as a call reads them (the other call options are accepted and have no effect here).
  const options = readCallOptions(rest);
  if (typeof options === 'string') throw new WardenError('invalid_options', options);
  // A filter function is user code: not called here, so a tool it would hide is explained.
  const tool = findTool(w, name, false);
  if (tool === undefined) return decode(core.explainUnknown(nameText(name))) as ExplainUnknownAnswer;
  // Policy's patterns are tested below: what they wait for loads first (docs/behaviour.md, "Patterns").
  await patternsSettled();
  const select: ExplainStep = { step: 'select', tool: nameText(name), found: true };
  if (w.settings.filter !== undefined) select.filterFunction = 'not called in a dry run; it could still hide this tool';
  const engine = w.engine();
  const rejectProto = w.settings.rejectProtoKeys;
  const flags =
    (tool.validation.standard ? CallFlags.StandardInput : tool.validation.input || rejectProto ? CallFlags.JsonInput : 0) |
    (approverFor(w, tool.scope) ? CallFlags.Approver : 0) |
    (w.limits?.selects(w, tool.server ?? w.settings.serverId, tool.contract.name) ? CallFlags.Limits : 0) |
    CallFlags.Explain;
  const begun = core.begin(engine, tool.coreTool, tool.scope, flags, Signal.Live);
  if (begun < 0) throw new Error('the tool cannot be planned');
  // The call's handle and its first action, packed in one number (see `begin` in wasm/core/lib.rs).
  const first = begun >>> 0;
  const call = (begun - first) / 0x1_0000_0000;
  const json = toJson(input, { maxBytes: w.settings.maxArgumentBytes, maxDepth: w.settings.maxArgumentDepth });
  let argsDigest: string | undefined;
  let action = first;
  for (;;) {
    const op = action & ActionBits.OpMask;
    if (op === Op.FinishOk || op === Op.FinishError) break;
    if (op === Op.ValidateInput) {
      let payload: unknown;
      let outcome: number = StepReport.Valid;
      const proto = json.ok && rejectProto ? (await loadExtras()).protoKeyProblem(json.text, JSON.parse(json.text)) : undefined;
      if (!json.ok) {
        outcome = StepReport.Invalid;
        payload = { diagnostics: [json.diagnostic] };
      } else if (proto !== undefined) {
        outcome = StepReport.Invalid;
        payload = { diagnostics: [proto] };
      } else if (tool.validation.input) {
        // The text alone: steps may have awaited since it was written (see JsonText).
        const result = await validateJsonText(tool.validation.input, { text: json.text }, 'inputSchema', w.settings, tool.validation.unsafePatterns === true || w.settings.unsafePatterns);
        if ('invalidSchema' in result) {
          outcome = StepReport.InvalidSchema;
          payload = { which: 'inputSchema', message: result.invalidSchema };
        } else if (!result.valid) {
          outcome = StepReport.Invalid;
          payload = { diagnostics: result.diagnostics };
        }
      }
      action = payload === undefined ? core.step(engine, call, outcome, 0, Signal.Live, 0) : core.stepWith(engine, call, outcome, 0, Signal.Live, 0, encode(payload));
    } else if (op === Op.EvaluatePolicy) {
      await ensureGrants(w);
      const args = json.ok ? JSON.parse(json.text) : null;
      if (json.ok) argsDigest = core.sha256Hex(canonicalJson(args));
      const facts: Record<string, unknown> = { arguments: args, taint: [...options.taint], nowMs: w.settings.clock() };
      // A grant for exactly these arguments is found by their digest.
      if (argsDigest !== undefined) facts.argsDigest = argsDigest;
      if (options.principal !== undefined) facts.principal = options.principal;
      const exposedTo = tool.options?.exposedTo;
      if (exposedTo !== undefined && exposedTo.length > 0) facts.exposedTo = exposedTo;
      action = core.policyFacts(engine, call, encode(facts), Signal.Live);
    } else if (op === Op.Limits) {
      // What the limits would say, counting nothing and calling no cost function.
      const checked = w.limits?.check(w, tool.server ?? w.settings.serverId, tool.contract.name, options.principal, undefined, undefined) ?? 0;
      const done = typeof checked === 'number' || Array.isArray(checked) ? checked : await checked;
      const [outcome, payload] = typeof done === 'number' ? [StepReport.Valid, undefined] : done;
      action = payload === undefined ? core.step(engine, call, outcome, 0, Signal.Live, 0) : core.stepWith(engine, call, outcome, 0, Signal.Live, 0, encode(payload));
    } else {
      core.end(engine, call);
      throw new Error(`the core asked a dry run for op ${op}`);
    }
  }
  const explanation: Explanation = decode(core.end(engine, call)) as EndExplainAnswer;
  explanation.steps.unshift(select);
  if (argsDigest !== undefined) explanation.argsDigest = argsDigest;
  return explanation;
}
