// The governed call: ask the core for the next step, perform it, report what happened.
//
// The core decides the order and what each outcome means; this file only calls the user's
// functions (hooks, predicates, the approver, the tool) with deadlines and the call's abort
// signal, holds the JS values (input, output, a deny's message), and converts the final state
// into a result. It never throws for a call that went wrong: every path ends in a `CallOutcome`.
import { ACCEPTED, fieldOf, getCore, handleOf, Op, OP_MASK, Outcome } from './core.js';
import { settings } from './config.js';
import { CallFailure, WardenError } from './errors.js';
import { approverFor, governance, predicateTable, taintSet, type Decision, type PolicyCall } from './governance.js';
import { grantSettings, loadGrants, recordGrant, type Grant } from './grants.js';
import { hookTable, isPlainObject, typeName, type AnyHook } from './hookset.js';
import { errorMessage, errorResult, normalizeError, normalizeResult } from './normalize.js';
import { Ended, endedOutcome, NEVER_ABORTED, perform, shapeOf } from './perform.js';
import { shapeForModel } from './shape.js';
import { emit, telemetryActive, type DecisionStep } from './telemetry.js';
import type { CallError, CallOptions, CallOutcome, CallToolResult, JsonSchema, ToolContract, WebMCPTool } from './types.js';
import { schemaProblem, summaryOf, toJson, validateJson, validateStandard, type Diagnostic, type StandardSchemaLike, type Validated } from './validation.js';

/** What the pipeline needs to know about a tool. */
export interface PipelineTool {
  /** The core's handle of the tool. */
  readonly coreTool: number;
  /** The function behind the tool. */
  readonly fn: (input: any, extra: { signal: AbortSignal }) => unknown;
  /** The tool as users hold it (for `ctx.tool`). */
  readonly publicTool: WebMCPTool;
  /** The contract sent to the browser. */
  readonly contract: ToolContract;
  /** The tool's own server id, if it has one. */
  readonly server: string | undefined;
  /** What validates its input and output, if anything. */
  readonly validation: { input?: JsonSchema; standard?: StandardSchemaLike; output?: JsonSchema };
  /** Shaping on the agent path (`'llm'` by default). */
  readonly shape: 'llm' | false;
  /** `false`: a plain object the tool returns becomes text only, without `structuredContent` (default `true`). */
  readonly structured?: boolean;
}

let invocationCounter = 0;

/** A unique id per call: `crypto.randomUUID()` when available. */
export function genInvocationId(): string {
  const uuid = (globalThis.crypto as Crypto | undefined)?.randomUUID;
  if (typeof uuid === 'function') return uuid.call(globalThis.crypto);
  invocationCounter = (invocationCounter + 1) % Number.MAX_SAFE_INTEGER;
  return `webmcp_${Date.now().toString(36)}_${invocationCounter}_${Math.random().toString(36).slice(2, 8)}`;
}

const snapshots = new WeakMap<ToolContract, ToolContract>();

/**
 * The contract hooks see (`ctx.contract`): a deeply frozen copy, made once per tool, so a hook
 * cannot change the definition the browser, `listTools` and the fingerprint read.
 */
export function snapshotOf(contract: ToolContract): ToolContract {
  let snapshot = snapshots.get(contract);
  if (snapshot === undefined) {
    snapshot = deepFrozenCopy(contract) as ToolContract;
    snapshots.set(contract, snapshot);
  }
  return snapshot;
}

/** A deeply frozen copy of plain objects and arrays (other values are kept as they are). */
export function deepFrozenCopy(value: unknown, seen = new Map<object, unknown>()): unknown {
  if (!Array.isArray(value) && !isPlainObject(value)) return value;
  const done = seen.get(value);
  if (done !== undefined) return done;
  const copy: Record<string, unknown> | unknown[] = Array.isArray(value) ? [] : {};
  seen.set(value, copy);
  for (const key of Object.keys(value)) {
    const item = deepFrozenCopy((value as Record<string, unknown>)[key], seen);
    // A `__proto__` key (JSON.parse makes one) stays an own property instead of becoming the copy's prototype.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    else (copy as Record<string, unknown>)[key] = item;
  }
  return Object.freeze(copy);
}

/** What every hook's `ctx` of one call shares. */
interface HookBase {
  invocationId: string;
  tool: unknown;
  contract: unknown;
  signal: AbortSignal;
  metadata: Record<string, unknown>;
  serverId: string;
  principal: unknown;
  taint: Set<string>;
  assigns: unknown;
}

/**
 * A hook's `ctx` (SPEC §4): `base`'s fields, `input`, and the event's own (`output`; `error`;
 * `reason` and `code`), written as one object literal per event. Measured in Node 20, a spread
 * of `base` followed by added keys cost ~3 µs per ctx (the object leaves V8's fast path); a
 * literal costs ~40 ns.
 */
function hookContext(b: HookBase, input: unknown, event: number, first?: unknown, second?: unknown): Record<string, unknown> {
  const { invocationId, tool, contract, signal, metadata, serverId, principal, taint, assigns } = b;
  if (event === 1) return { invocationId, tool, contract, signal, metadata, serverId, principal, taint, assigns, input, output: first };
  if (event === 2) return { invocationId, tool, contract, signal, metadata, serverId, principal, taint, assigns, input, error: first };
  if (event === 3) return { invocationId, tool, contract, signal, metadata, serverId, principal, taint, assigns, input, reason: first, code: second };
  return { invocationId, tool, contract, signal, metadata, serverId, principal, taint, assigns, input };
}

const HOOK_STATUS: Record<number, 'cont' | 'rewrite' | 'deny' | 'halt' | 'recover'> = {
  [Outcome.Nothing]: 'cont',
  [Outcome.Input]: 'rewrite',
  [Outcome.Output]: 'rewrite',
  [Outcome.Deny]: 'deny',
  [Outcome.Halt]: 'halt',
  [Outcome.Recover]: 'recover',
};
const EVENT_NAMES = ['before', 'after', 'error', 'denied', 'toolsListed'];

/** The error record the core keeps for a failing call. */
interface CoreCallError {
  kind: string;
  reason: string;
  hookId?: string;
  cause?: string;
  text?: string;
}

/** Runs one governed call of `tool` under provider `scope` (0: none). Never throws for a failed call. */
export async function runCall(tool: PipelineTool, rawInput: unknown, givenOptions?: CallOptions | null, scope = 0): Promise<CallOutcome> {
  const problem = optionsProblem(givenOptions);
  if (problem !== undefined) {
    return { ok: false, error: { kind: 'validation', reason: 'invalid_options', message: problem }, result: errorResult('Error: ' + problem) };
  }
  const options: CallOptions = givenOptions ?? {};
  const core = getCore();
  // Clock reads only when telemetry will report a duration (each costs ~0.1 µs in Node).
  const started = telemetryActive() ? performance.now() : 0;
  const approver = approverFor(scope);
  // An outputSchema also takes the input validation step: its schema is checked there, before the tool runs.
  const flags = (tool.validation.input || tool.validation.standard || tool.validation.output ? 1 : 0) | (tool.validation.output ? 2 : 0) | (approver ? 4 : 0);
  const call = core.begin(tool.coreTool, scope, flags);
  const signal = options.signal ?? NEVER_ABORTED;
  const taint = taintSet(options.taint);
  const serverId = tool.server ?? settings.serverId;
  const invocationId = genInvocationId();
  const observed = telemetryActive();
  const record: DecisionStep[] | undefined = observed ? [] : undefined;
  if (call < 0) return planFailure(core.plan(tool.coreTool, scope));
  const base = {
    invocationId,
    tool: tool.publicTool,
    contract: snapshotOf(tool.contract),
    signal,
    metadata: {} as Record<string, unknown>,
    serverId,
    principal: options.principal,
    taint,
    assigns: options.assigns ?? {},
  };
  let input = rawInput;
  let output: unknown = undefined;
  let thrown: unknown = undefined;
  let toolThrew = false;
  let denyMessage: string | undefined;
  let denyCode: string | undefined;
  let failure: CallFailure | undefined;
  let validated: Validated | undefined;
  let decision: Decision | undefined;
  let pending: unknown = undefined;
  let pendingShape = 0;
  let ended = false;
  /** The arguments' JSON the policy step received (see `Op.CheckArgs`). */
  let policyArgs: string | undefined;

  try {
    let action = core.step(call, Outcome.Start);
    for (;;) {
      if (action & ACCEPTED) accept();
      pending = undefined;
      pendingShape = 0;
      switch (action & OP_MASK) {
        case Op.CallHook: {
          const event = fieldOf(action);
          const hook = hookTable[handleOf(action)];
          // Aborts are acted on before the steps that do work (before/after hooks); error and
          // denied hooks still run so observers see the abort.
          if ((event === 0 || event === 1) && signal.aborted) {
            record?.push({ step: 'aborted' });
            action = core.step(call, Outcome.Aborted);
            continue;
          }
          if (hook === undefined) throw new WardenError('internal', 'the core named a hook this page does not hold');
          const ctx =
            event === 1
              ? hookContext(base, input, 1, output)
              : event === 2
                ? hookContext(base, input, 2, toolThrew ? thrown : (failure ??= failureOf(core.callError(call))))
                : event === 3
                  ? hookContext(base, input, 3, denyMessage ?? failureOf(core.callError(call)).message, denyCode ?? failureOf(core.callError(call)).reason)
                  : hookContext(base, input, 0);
          const hookStarted = observed ? performance.now() : 0;
          const performed = perform(hook.run, [ctx], hook.timeout ?? settings.hookTimeout, signal);
          const [how, value] = Array.isArray(performed) ? performed : await performed;
          // What a failing hook threw is dropped here: it may quote arguments or results, so it
          // is never logged, never put in a message, never sent to telemetry (HK-1).
          let shape: number = endedOutcome[how] ?? Outcome.Raise;
          if (how === Ended.Value) {
            shape = shapeOf(value);
            pending = value;
            pendingShape = shape;
          }
          const hookId = observed ? (core.currentHookId(call) ?? '') : '';
          action = core.step(call, shape);
          if (observed) observeHook(EVENT_NAMES[event] ?? 'before', hookId, how, shape, (action & ACCEPTED) !== 0, performance.now() - hookStarted);
          continue;
        }
        case Op.ValidateInput: {
          // A tool whose outputSchema is not valid JSON Schema is never run (SPEC §6: invalid_schema).
          const broken = tool.validation.output ? await schemaProblem(tool.validation.output, 'outputSchema') : undefined;
          const result: Validated =
            broken ?? (tool.validation.standard ? await validateStandard(tool.validation.standard, input, signal) : tool.validation.input ? await validateJson(tool.validation.input, input) : { valid: true });
          validated = result;
          if (result.valid && tool.validation.standard) input = result.value;
          if (broken || tool.validation.input || tool.validation.standard) record?.push(validationStep(broken ? 'output' : 'input', result));
          action = core.step(call, signal.aborted ? Outcome.Aborted : validationOutcome(result));
          continue;
        }
        case Op.EvaluatePolicy: {
          const json = toJson(input);
          if (!json.ok) {
            validated = { valid: false, diagnostics: [json.diagnostic], summary: summaryOf([json.diagnostic]) };
            record?.push(validationStep('input', validated));
            action = core.step(call, Outcome.Invalid);
            continue;
          }
          const grants = await loadGrants();
          // The arguments' JSON goes in as written (no parse and re-stringify), and is kept: if
          // the same text reaches the args check, the digest policy took still holds.
          const rest = JSON.stringify({ principal: options.principal, taint: [...taint], grants, nowMs: grantSettings.clock() });
          policyArgs = json.text;
          action = core.policyStart(call, '{"arguments":' + json.text + ',' + rest.slice(1));
          if (record) noteDecision(action);
          continue;
        }
        case Op.Predicate: {
          const predicate = predicateTable[handleOf(action)];
          const policyCall = askCall(undefined);
          const performed = predicate
            ? perform(predicate as AnyHook, [policyCall, { taint, principal: options.principal, assigns: base.assigns }], settings.hookTimeout, signal)
            : ([Ended.Raise, undefined] as [Ended, unknown]);
          const [how, value] = Array.isArray(performed) ? performed : await performed;
          const outcome = how === Ended.Aborted ? Outcome.Aborted : how !== Ended.Value || typeof value !== 'boolean' ? Outcome.PredicateFailed : value ? Outcome.PredicateTrue : Outcome.PredicateFalse;
          action = core.step(call, outcome);
          if (record) noteDecision(action);
          continue;
        }
        case Op.Approve: {
          decision = readDecision();
          const approvalStarted = performance.now();
          const performed = approver
            ? perform(approver as AnyHook, [askCall(decision), { signal, taint, assigns: base.assigns }], governance.askTimeout, signal)
            : ([Ended.Raise, undefined] as [Ended, unknown]);
          const [how, value] = Array.isArray(performed) ? performed : await performed;
          const outcome = how === Ended.Value ? answerShape(value) : (endedOutcome[how] ?? Outcome.Raise);
          if (outcome === Outcome.ApproveDeny || outcome === Outcome.ApproveHalt) {
            pending = value;
            pendingShape = outcome;
          }
          record?.push({ step: 'approval', outcome: approvalName(outcome), durationMs: performance.now() - approvalStarted });
          action = core.step(call, outcome);
          if (action & ACCEPTED && outcome === Outcome.ApproveAlways) {
            const grant = core.grantFor(call, options.principal, grantSettings.clock(), grantSettings.ttl);
            // The approval of this call stands even if the store cannot keep the grant: the
            // next call then asks again.
            if (grant) await recordGrant(JSON.parse(grant) as Grant).catch(() => undefined);
          }
          continue;
        }
        case Op.CheckArgs: {
          // The decision is read for telemetry only: a failure after this step is never a
          // denial, and a failed call gets its decision from `core.end`.
          if (observed) decision ??= readDecision();
          const json = toJson(input);
          // The very JSON text the policy step digested: the digest is the same without
          // canonicalizing and hashing it again in the core (PO-11 still holds: any change in
          // the text goes to the core's digest comparison).
          action = json.ok && json.text === policyArgs ? core.step(call, Outcome.ArgsSame) : core.checkArgs(call, json.ok ? json.text : 'null');
          continue;
        }
        case Op.RunTool: {
          if (signal.aborted) {
            record?.push({ step: 'aborted' });
            action = core.step(call, Outcome.Aborted);
            continue;
          }
          const toolStarted = record ? performance.now() : 0;
          const performed = perform(tool.fn as AnyHook, [input, { signal }], undefined, signal);
          const [how, value] = Array.isArray(performed) ? performed : await performed;
          record?.push({ step: 'tool', outcome: how === Ended.Value ? 'returned' : how === Ended.Aborted ? 'aborted' : 'threw', durationMs: performance.now() - toolStarted });
          if (how === Ended.Value) {
            output = value;
            action = core.step(call, Outcome.ToolReturned);
          } else if (how === Ended.Aborted) {
            action = core.step(call, Outcome.Aborted);
          } else {
            toolThrew = true;
            thrown = value;
            action = core.step(call, Outcome.ToolThrew);
          }
          continue;
        }
        case Op.ValidateOutput: {
          const structured = normalizeResult(output, { structured: tool.structured }).structuredContent;
          const result: Validated = structured === undefined ? { valid: true } : await validateJson(tool.validation.output as JsonSchema, structured, 'outputSchema');
          if (!result.valid) validated = result;
          record?.push(validationStep('output', result));
          action = core.step(call, signal.aborted ? Outcome.Aborted : validationOutcome(result));
          continue;
        }
        case Op.Finish: {
          ended = true;
          const outcome: CallOutcome = fieldOf(action) & 1 ? { ok: true, result: normalizeResult(output, { structured: tool.structured }) } : failed(core.end(call));
          return finish(outcome);
        }
        default:
          throw new WardenError('internal', `the core answered an unknown action ${action}`);
      }
    }
  } catch (err) {
    // Only a bug in this package lands here; the call still ends as data.
    return finish({
      ok: false,
      error: { kind: 'tool', reason: 'internal_error', message: errorMessage(err) },
      result: errorResult('Error: internal error in webmcp-warden'),
    });
  } finally {
    if (!ended) core.end(call);
  }

  /** The core accepted what the last step returned: its value takes effect. */
  function accept(): void {
    const value = pending as Record<string, any>;
    if (pendingShape === Outcome.Input) input = value.input;
    else if (pendingShape === Outcome.Output) output = value.output;
    else if (pendingShape === Outcome.Halt || pendingShape === Outcome.Recover) output = value.result;
    else if (pendingShape === Outcome.Deny) {
      denyMessage = value.message;
      denyCode = value.code;
    } else if (pendingShape === Outcome.ApproveDeny || pendingShape === Outcome.ApproveHalt) {
      denyMessage = value.deny;
    }
  }

  function readDecision(): Decision | undefined {
    const facts = core.askFacts(call);
    const parsed = facts ? (JSON.parse(facts) as { decision?: Decision }) : undefined;
    const found = parsed?.decision ?? undefined;
    if (found && record && !record.some((step) => step.step === 'policy')) {
      record.push({ step: 'policy', decision: found });
      emitDecision(found);
    }
    return found;
  }

  /**
   * Records the policy decision as soon as policy has decided (no predicate pending), so the
   * record and the `policy.decision` event come before the denied hooks a deny runs.
   */
  function noteDecision(next: number): void {
    if ((next & OP_MASK) !== Op.Predicate && !recorded('policy')) readDecision();
  }

  /** What the approver and function predicates see (SPEC §5). */
  function askCall(forDecision: Decision | undefined): PolicyCall {
    const facts = JSON.parse(core.askFacts(call) ?? '{}') as { serverId: string; name: string; fingerprint: string; argsDigest: string };
    const json = toJson(input);
    const policyCall: PolicyCall = {
      serverId: facts.serverId,
      name: facts.name,
      arguments: deepFrozenCopy(json.ok ? JSON.parse(json.text) : undefined),
      argsDigest: facts.argsDigest,
      fingerprint: facts.fingerprint,
      principal: options.principal,
      invocationId,
    };
    if (forDecision) policyCall.decision = deepFrozenCopy(forDecision) as Decision;
    return Object.freeze(policyCall);
  }

  function failed(answerJson: string | undefined): CallOutcome {
    const answer = answerJson ? (JSON.parse(answerJson) as { error: CoreCallError; decision?: Decision | null }) : undefined;
    const record: CoreCallError = answer?.error ?? { kind: 'tool', reason: 'internal_error' };
    if (answer?.decision) {
      decision = answer.decision;
      if (!recorded('policy')) {
        observedStep({ step: 'policy', decision: answer.decision });
        emitDecision(answer.decision);
      }
    }
    let result: CallToolResult;
    let message: string;
    if (record.text !== undefined) {
      result = errorResult(record.text);
      message = record.text.replace(/^(Error|Denied): /, '');
    } else if (record.kind === 'denied') {
      // An empty message says nothing to the agent: it reads the default instead.
      message = denyMessage || 'Tool execution denied';
      result = errorResult('Denied: ' + message);
    } else if (record.kind === 'validation' && validated && !validated.valid) {
      message = 'invalidSchema' in validated ? `the tool's ${validated.invalidSchema}` : validated.summary;
      result = errorResult('Error: ' + message);
    } else if (toolThrew) {
      result = normalizeError(thrown);
      message = errorMessage(thrown);
    } else {
      message = record.reason;
      result = errorResult('Error: ' + message);
    }
    const error: CallError & { decision?: Decision; diagnostics?: Diagnostic[] } = { kind: record.kind as CallError['kind'], reason: record.reason, message };
    if (record.hookId !== undefined) error.hookId = record.hookId;
    if (record.cause !== undefined) error.cause = record.cause as CallError['cause'];
    if (record.kind === 'denied' && denyCode !== undefined) error.code = denyCode;
    if (decision && record.kind === 'denied' && !record.hookId) error.decision = decision;
    if (record.kind === 'validation' && validated && !validated.valid && 'diagnostics' in validated) error.diagnostics = validated.diagnostics;
    return { ok: false, error, result };
  }

  /** Shapes the result for a model, emits `tool_call.stop`, and answers. */
  function finish(outcome: CallOutcome): CallOutcome {
    const shapeMode = options.shape ?? tool.shape;
    if (shapeMode === 'llm') {
      const shaped = shapeForModel(outcome.result, serverId, settings.maxResultBytesForLlm);
      outcome.result = shaped.result;
      record?.push({ step: 'shape', flags: shaped.flags, truncated: shaped.truncated });
    }
    if (observed && record) {
      const event: Record<string, unknown> = {
        name: 'tool_call.stop',
        tool: tool.contract.name,
        serverId,
        invocationId,
        status: outcome.ok ? 'ok' : 'error',
        durationMs: performance.now() - started,
        record,
      };
      if (!outcome.ok) {
        event.errorKind = outcome.error.kind;
        event.errorReason = outcome.error.reason;
      }
      if (settings.capturePayloads) {
        event.arguments = rawInput;
        event.result = outcome.result;
      }
      emit(event as never);
    }
    return outcome;
  }

  function recorded(step: DecisionStep['step']): boolean {
    return record?.some((entry) => entry.step === step) ?? false;
  }

  function observedStep(step: DecisionStep): void {
    record?.push(step);
  }

  function emitDecision(found: Decision): void {
    const event: Record<string, unknown> = { name: 'policy.decision', tool: tool.contract.name, serverId, invocationId, effect: found.effect, reason: found.reason };
    if (found.rule) event.rule = found.rule;
    emit(event as never);
  }

  function observeHook(event: string, hookId: string, how: Ended, shape: number, accepted: boolean, durationMs: number): void {
    const status = HOOK_STATUS[shape];
    const contractKept = how === Ended.Value && status !== undefined && (accepted || shape === Outcome.Nothing);
    if (contractKept) {
      record?.push({ step: 'hook', event, hookId, outcome: status, durationMs });
      emit({ name: 'hook.stop', tool: tool.contract.name, serverId, invocationId, hookId, event, status, durationMs });
    } else {
      const cause = how === Ended.Timeout ? 'timeout' : how === Ended.Value ? 'bad_return' : 'raise';
      if (how === Ended.Aborted) {
        record?.push({ step: 'aborted' });
        return;
      }
      // A failure the call went past (`onError: 'ignore'`, any error or denied hook) says so;
      // one that failed the call is the error the core now holds.
      const failedCall = event === 'before' || (event === 'after' && callErrorNames(hookId));
      record?.push(failedCall ? { step: 'hook', event, hookId, outcome: cause, durationMs } : { step: 'hook', event, hookId, outcome: cause, durationMs, skipped: true });
      emit({ name: 'hook.exception', tool: tool.contract.name, serverId, invocationId, hookId, event, cause, durationMs });
    }
  }

  function callErrorNames(hookId: string): boolean {
    const json = core.callError(call);
    return json !== undefined && (JSON.parse(json) as CoreCallError).hookId === hookId;
  }

  function planFailure(answerJson: string): CallOutcome {
    const answer = JSON.parse(answerJson) as { ok: boolean; error?: { code: string; message: string } };
    const message = answer.error?.message ?? 'the hooks of this tool cannot be planned';
    return finish({ ok: false, error: { kind: 'hook', reason: answer.error?.code ?? 'invalid_configuration', message }, result: errorResult('Error: ' + message) });
  }
}

/** What is wrong with a caller's call options, if anything (misuse still ends as data). */
function optionsProblem(options: unknown): string | undefined {
  if (options === undefined || options === null) return undefined;
  if (typeof options !== 'object') return `call options must be an object, not ${typeName(options)}`;
  const { principal, signal, shape, assigns } = options as CallOptions;
  if (principal !== undefined && typeof principal !== 'string') return `call option principal must be a string, not ${typeName(principal)}`;
  if (signal !== undefined && !(signal instanceof AbortSignal)) return 'call option signal must be an AbortSignal';
  if (shape !== undefined && shape !== 'llm' && shape !== false) return "call option shape must be 'llm' or false";
  if (assigns !== undefined && (assigns === null || typeof assigns !== 'object')) return 'call option assigns must be an object';
  return undefined;
}

function validationOutcome(result: Validated): number {
  if (result.valid) return Outcome.Valid;
  return 'invalidSchema' in result ? Outcome.InvalidSchema : Outcome.Invalid;
}

function validationStep(target: 'input' | 'output', result: Validated): DecisionStep {
  if (result.valid) return { step: 'validation', target, ok: true };
  if ('invalidSchema' in result) return { step: 'validation', target, ok: false, diagnostics: [{ path: '', keyword: 'schema', message: result.invalidSchema }] };
  // The core's messages quote only the schema; a Standard Schema's own messages (and what its
  // validator threw) may quote the arguments, so they are payload.
  const diagnostics = result.diagnostics.map(({ path, keyword, message }) => (keyword === 'standard' && !settings.capturePayloads ? { path, keyword } : { path, keyword, message }));
  return { step: 'validation', target, ok: false, diagnostics };
}

/** The shape of what the approver answered (SPEC §5's return contract). */
function answerShape(value: unknown): number {
  if (!isPlainObject(value)) return Outcome.BadReturn;
  const keys = Object.keys(value);
  if (keys.length === 1 && value.allow === 'once') return Outcome.ApproveOnce;
  if (keys.length === 1 && value.allow === 'always') return Outcome.ApproveAlways;
  if (typeof value.deny === 'string') {
    if (keys.length === 1) return Outcome.ApproveDeny;
    if (keys.length === 2 && value.halt === true) return Outcome.ApproveHalt;
  }
  return Outcome.BadReturn;
}

function approvalName(outcome: number): string {
  switch (outcome) {
    case Outcome.ApproveOnce:
      return 'allow_once';
    case Outcome.ApproveAlways:
      return 'allow_always';
    case Outcome.ApproveDeny:
      return 'deny';
    case Outcome.ApproveHalt:
      return 'deny_halt';
    case Outcome.Timeout:
      return 'timeout';
    case Outcome.Aborted:
      return 'aborted';
    default:
      return 'failed';
  }
}

function failureOf(errorJson: string | undefined): CallFailure {
  const record = errorJson ? (JSON.parse(errorJson) as CoreCallError) : { kind: 'tool', reason: 'internal_error' };
  const message = record.text?.replace(/^(Error|Denied): /, '') ?? record.reason;
  return new CallFailure(record.kind, record.reason, message, record.hookId);
}
