// One governed call: ask the core for the next step, perform it, report what happened.
//
// The core decides the order, judges every outcome and writes every failure; this file calls
// the user's functions (hooks, predicates, the approver, a Standard Schema, the tool) with
// deadlines and the call's abort signal, holds the JS values (input, output, what a hook
// returned or threw), reports facts, and converts the core's answer into a `CallOutcome`. It
// never throws for a call that went wrong: every path ends in data.
//
// The arguments become JSON once, at the first step that needs them (validation, policy, a
// predicate, the approver); from then on that JSON *is* the arguments: the validator, the
// policy, the digest and the approver read it, and the tool receives a fresh parse of it, so
// an inherited property or a later mutation of the caller's object cannot reach the tool.
//
// A resource read or a prompt get runs the same machine (`SubjectCall`, made by subject.ts): its
// gate hooks in place of the before-hooks, the read or the get in place of the tool, its own
// answer, shaping and telemetry event.
import { ActionBits, approverFor, CallFailure, CallFlags, canonicalJson, core, CoreTrapped, decode, deepFrozenCopy, disposedOutcome, emitHookEvent, encode, ensureGrants, EVENTS, failedOutcome, genInvocationId, Op, Outcome, recordGrant, sealFirstListing, Signal, snapshotOf, taintSet, Verdict } from './from-entry.js';
import type { Warden } from './client.js';
import { readReturn, type Returned } from './facts.js';
import type { Decision, PolicyCall } from './governance.js';
import type { JsonText, PipelineTool, SubjectCall } from './internal.js';
import { errorMessage, errorResult, normalizeResult } from './normalize.js';
import { Ended, NEVER_ABORTED, perform, syncEndedAt, type AnyHook } from './perform.js';
import { loadedShaping, loadShaper, shaperLoaded } from './shaper.js';
import type { CallTrace, DecisionStep, TracedStep } from './telemetry.js';
import { warnBadReturn } from './warnings.js';
import type { CallError, CallOptions, CallOutcome, CallToolResult, ToolContract } from './types.js';
import { compileSchema, toJson, validateJsonText, validateStandard, type Diagnostic } from './validation.js';
import type { AskFactsAnswer, CallDecisionAnswer, CallErrorAnswer, EndAnswer, PlanErrorAnswer } from './answers.js';
import type { LimitsChecked } from './limits-hook.js';

/** What a quiet ending means: the call succeeded and nothing was recorded. */
const QUIET_SUCCESS = { ok: true } as const;


const CALL_OPTION_KEYS = new Set(['principal', 'taint', 'shape', 'signal', 'timeout', 'assigns']);

/** What is wrong with a caller's call options, if anything (misuse still ends as data). */
function optionsProblem(options: unknown): string | undefined {
  if (options === undefined || options === null) return undefined;
  if (typeof options !== 'object') return `call options must be an object, not ${typeof options}`;
  for (const key of Object.keys(options)) {
    if (!CALL_OPTION_KEYS.has(key)) return `unknown call option "${key}" (expected principal, taint, shape, signal, timeout, assigns)`;
  }
  const { principal, signal, shape, assigns, taint, timeout } = options as CallOptions & { timeout?: unknown };
  if (principal !== undefined && typeof principal !== 'string') return 'call option principal must be a string';
  if (signal !== undefined && !(signal instanceof AbortSignal)) return 'call option signal must be an AbortSignal';
  if (shape !== undefined && shape !== 'llm' && shape !== false) return "call option shape must be 'llm' or false";
  if (assigns !== undefined && (assigns === null || typeof assigns !== 'object')) return 'call option assigns must be an object';
  if (timeout !== undefined && !(typeof timeout === 'number' && Number.isFinite(timeout) && timeout > 0)) return 'call option timeout must be a positive number of milliseconds';
  if (taint !== undefined && taint !== null && !isStringIterable(taint)) return 'call option taint must be an array or Set of server ids (strings)';
  return undefined;
}

function isStringIterable(value: unknown): boolean {
  if (typeof value === 'string') return true;
  if (value === null || typeof value !== 'object' || typeof (value as { [Symbol.iterator]?: unknown })[Symbol.iterator] !== 'function') return false;
  try {
    for (const item of value as Iterable<unknown>) if (typeof item !== 'string') return false;
    return true;
  } catch {
    return false;
  }
}


/** Runs one governed call of `tool` under provider `scope` (0: none). Never throws for a failed call. */
export async function runCall(w: Warden, tool: PipelineTool, input: unknown, options?: CallOptions | null, scope = 0): Promise<CallOutcome> {
  const problem = optionsProblem(options);
  if (problem !== undefined) return failedOutcome('validation', 'invalid_options', problem);
  const run = new CallRun(w, tool, input, options ?? {}, scope, undefined);
  const activity = w.activity;
  if (activity === undefined || !activity.observed) return run.traced('call', () => run.run());
  const active = { invocationId: run.invocationId, tool: tool.contract.name, startedAt: performance.now() };
  activity.started(active);
  const outcome = await run.traced('call', () => run.run());
  activity.finished(active, outcome);
  return outcome;
}

/**
 * Runs one governed read or get (`about`) of a resource or prompt record `subject`. Never throws
 * for a failed call; `result` of a failure is the text the agent reads, as an error result.
 */
export async function runSubjectCall(w: Warden, subject: PipelineTool, about: SubjectCall, input: unknown, options: CallOptions | null | undefined, scope: number): Promise<CallOutcome> {
  const problem = optionsProblem(options);
  if (problem !== undefined) return failedOutcome('validation', 'invalid_options', problem);
  return new CallRun(w, subject, input, options ?? {}, scope, about).run();
}

/** The state of one call, and one performer per op. */
class CallRun {
  readonly #w: Warden;
  readonly #tool: PipelineTool;
  #input: unknown;
  readonly #options: CallOptions & { timeout?: number };
  readonly #scope: number;
  /** What a resource read or prompt get does differently (undefined: a tool call). */
  readonly #about: SubjectCall | undefined;
  readonly #observed: boolean;
  readonly #started: number;
  readonly #serverId: string;
  readonly invocationId = genInvocationId();
  readonly #signal: AbortSignal;
  #deadline: AbortController | undefined;
  #timedOut = false;
  readonly #taint: Set<string>;
  readonly #metadata: Record<string, unknown> = {};
  /** `ctx.assigns`: the caller's map, or one empty map every hook of the call shares. */
  readonly #assigns: Record<string, unknown>;
  /** The frozen contract hooks see, looked up once per call. */
  #contract: ToolContract | undefined;
  readonly #approver;

  #engine = -1;
  #instance = -1;
  #call = -1;
  #output: unknown = undefined;
  /** The arguments as JSON, once a step needed them. */
  #argsJson: string | undefined;
  #argsDigest: string | undefined;
  #validated: unknown = undefined;
  /** What the last performed step returned, read once. */
  #returned: Returned | undefined;
  /**
   * When the last synchronously performed hook ended, while no await and no user code outside
   * a hook ran since (-1: unknown). Only the run loop's hook steps read and set it.
   */
  #clock = -1;
  /** The facts and payload `#report` read from the last performed step. */
  #reportedFacts = 0;
  #reportedPayload: Record<string, unknown> | undefined;
  /** The event of the last hook performed. */
  #event = 0;
  /** What the last performed step threw. */
  #thrown: unknown = undefined;
  #threw = false;
  /** `ctx.error`: what failed the call (a thrown value), if a step threw; else the failure. */
  #error: unknown = undefined;
  #errorIsThrown = false;
  #failure: (CallError & { decision?: Decision }) | undefined;
  #shapeStep: DecisionStep | undefined;
  /** An instrumentation following this call (tracing), told of its start in the caller's context. */
  readonly #trace: CallTrace | undefined;
  /** The token of the calls in flight the limits counted this call in (0: none). */
  #held = 0;

  constructor(w: Warden, tool: PipelineTool, input: unknown, options: CallOptions & { timeout?: number }, scope: number, about: SubjectCall | undefined) {
    this.#w = w;
    this.#tool = tool;
    this.#input = input;
    this.#options = options;
    this.#scope = scope;
    this.#about = about;
    this.#observed = w.telemetry.active();
    this.#started = this.#observed ? performance.now() : 0;
    this.#serverId = tool.server ?? w.settings.serverId;
    // Synchronous, before the call's first await: the caller's context is still the active one.
    // Instrumentations (tracing) follow tool calls.
    this.#trace = this.#observed && about === undefined ? w.telemetry.follow?.({ tool: tool.contract.name, serverId: this.#serverId, invocationId: this.invocationId, input }) : undefined;
    this.#taint = taintSet(options.taint);
    this.#assigns = options.assigns ?? {};
    this.#approver = approverFor(w, scope);
    const given = options.signal ?? NEVER_ABORTED;
    if (options.timeout !== undefined) {
      const deadline = new AbortController();
      this.#deadline = deadline;
      const onAbort = () => deadline.abort(given.reason);
      if (given.aborted) deadline.abort(given.reason);
      else if (given !== NEVER_ABORTED) given.addEventListener('abort', onAbort, { once: true });
      setTimeout(() => {
        if (!deadline.signal.aborted) {
          this.#timedOut = true;
          deadline.abort(new DOMException('the call ran past its timeout', 'TimeoutError'));
        }
      }, options.timeout);
      this.#signal = deadline.signal;
    } else {
      this.#signal = given;
    }
  }

  /** Runs one part of the call inside the instrumentation's context, when one follows the call. */
  traced<T>(step: TracedStep, run: () => T): T {
    return this.#trace === undefined ? run() : this.#trace.step(step, run);
  }

  #signalState(): number {
    // Most calls have no signal: the shared never-aborted one needs no look (a getter in Node).
    if (this.#signal === NEVER_ABORTED || !this.#signal.aborted) return Signal.Live;
    return this.#timedOut ? Signal.TimedOut : Signal.Aborted;
  }

  async run(): Promise<CallOutcome> {
    // Shaping runs synchronously at the end (`#answer`). Its module loads while the call runs
    // (its hooks still start at once) and is awaited before the answer; one that cannot load
    // fails the call closed there. Once loaded (`register()` starts it), this costs one check.
    const shaping = !shaperLoaded() && (this.#options.shape ?? this.#tool.shape) === 'llm' ? loadShaper().catch(() => undefined) : undefined;
    let ended = false;
    try {
      this.#engine = this.#w.engine();
      this.#instance = this.#w.coreInstance;
      // Fingerprint baselines are tools' (resources and prompts have no pins).
      if (this.#about === undefined) sealFirstListing(this.#w);
      const flags =
        (this.#tool.validation.standard ? CallFlags.StandardInput : this.#tool.validation.input ? CallFlags.JsonInput : 0) |
        (this.#tool.validation.output ? CallFlags.OutputSchema : 0) |
        (this.#approver ? CallFlags.Approver : 0) |
        (this.#observed ? CallFlags.Observed : 0) |
        (this.#w.settings.capturePayloads ? CallFlags.Capture : 0) |
        // Limits count tool calls, and only those of tools a limit selects.
        (this.#about === undefined && this.#w.limits?.selects(this.#w, this.#serverId, this.#tool.contract.name) ? CallFlags.Limits : 0);
      const target = this.#about?.target;
      const signal = this.#signalState();
      const begun = target === undefined ? core.begin(this.#engine, this.#tool.coreTool, this.#scope, flags, signal) : core.beginAt(this.#engine, this.#tool.coreTool, this.#scope, flags, target, signal);
      if (begun < 0) {
        ended = true;
        if (shaping !== undefined) await shaping;
        return this.#planFailure();
      }
      // The call's handle and its first action, packed in one number (one crossing to start).
      let action = begun >>> 0;
      this.#call = (begun - action) / 0x1_0000_0000;
      for (;;) {
        this.#apply(action);
        const op = action & ActionBits.OpMask;
        const handle = action >>> ActionBits.HandleShift;
        if (op === Op.FinishOk || op === Op.FinishError) {
          ended = true;
          if (shaping !== undefined) await shaping;
          // The core ended a call that succeeded with nothing to record: no answer to read.
          return op === Op.FinishOk && handle === ActionBits.EndedQuietly ? this.#finish(QUIET_SUCCESS) : this.#finish();
        }
        // A step performed synchronously (a sync hook, a sync tool) answers at once: no promise
        // and no microtask per step, which is most of a hook's cost.
        const next = this.#perform(op, handle);
        if (typeof next === 'number') action = next;
        else {
          action = await next;
          // Time passed and other code ran: the next hook reads the clock itself.
          this.#clock = -1;
        }
      }
    } catch (err) {
      // A trapped core, or a bug in this package: the call still ends as data, and what was
      // thrown is never shown to the agent.
      if (shaping !== undefined) await shaping;
      return this.#internalError(err);
    } finally {
      if (this.#deadline && !this.#deadline.signal.aborted) this.#deadline.abort();
      // The call ends its calls in flight (limits' `concurrency`).
      if (this.#held) this.#w.limits?.release(this.#w, this.#held);
      if (!ended && this.#call >= 0 && this.#current()) {
        try {
          core.end(this.#engine, this.#call);
        } catch {
          // the instance is gone; nothing to free
        }
      }
    }
  }

  /** Whether the call's engine is still the live one (a trap replaces it). */
  #current(): boolean {
    return this.#instance === this.#w.coreInstance;
  }

  #step(outcome: number, facts: number, durationMs = 0, payload?: unknown): number {
    if (!this.#current()) throw new CoreTrapped('the core was restarted during this call');
    const action =
      payload === undefined
        ? core.step(this.#engine, this.#call, outcome, facts, this.#signalState(), durationMs)
        : core.stepWith(this.#engine, this.#call, outcome, facts, this.#signalState(), durationMs, encode(payload));
    if (action === 0) throw new Error('the core does not know this call');
    return action;
  }

  /** Applies what the core said about the last step: a value taking effect, a failure. */
  #apply(action: number): void {
    const verdict = (action >>> ActionBits.VerdictShift) & 7;
    if (action & ActionBits.Accepted) {
      const returned = this.#returned;
      const event = EVENTS[this.#event];
      if (verdict === Verdict.Rewrite && event === 'before') this.#input = returned?.input;
      else if (verdict === Verdict.Rewrite && event === 'promptGet') this.#input = returned?.args;
      else if (verdict === Verdict.Rewrite && event === 'after') this.#output = returned?.output;
      else if (verdict === Verdict.Halt || verdict === Verdict.Recover) this.#output = returned?.result;
      else if (verdict === Verdict.None && this.#tool.validation.standard && this.#validated !== undefined) this.#input = (this.#validated as { value: unknown }).value;
    }
    if (action & ActionBits.FailedNow) {
      this.#failure = undefined;
      this.#errorIsThrown = this.#threw;
      this.#error = this.#threw ? this.#thrown : undefined;
    }
    this.#returned = undefined;
    this.#threw = false;
    this.#thrown = undefined;
  }

  #perform(op: number, handle: number): number | Promise<number> {
    // Only hook after hook keeps the clock: validation, policy, approval and the tool run user
    // code (a Standard Schema, predicates, the approver, the tool) between hooks.
    if (op !== Op.CallHook) this.#clock = -1;
    switch (op) {
      case Op.CallHook:
        return this.#callHook(handle);
      case Op.RunTool:
        return this.#runTool();
      case Op.ValidateInput:
        return this.#validateInput(handle);
      case Op.EvaluatePolicy:
        return this.#evaluatePolicy(handle);
      case Op.Predicate:
        return this.#predicate(handle);
      case Op.Approve:
        return this.#approve();
      case Op.ValidateOutput:
        return this.#validateOutput();
      case Op.Limits:
        return this.#limits();
      default:
        throw new Error(`the core answered an unknown op ${op}`);
    }
  }

  // ---- performers ------------------------------------------------------------------------------

  #callHook(handle: number): number | Promise<number> {
    const hook = this.#w.hooks.get(handle);
    if (hook === undefined) throw new Error('the core named a hook this client does not hold');
    this.#event = hook.event;
    const ctx = this.#hookContext(hook.event);
    const hookId = this.#observed ? (core.currentHookId(this.#engine, this.#call) ?? '') : '';
    const started = this.#observed ? performance.now() : 0;
    const performed = perform(hook.run, [ctx], hook.timeout ?? this.#w.settings.hookTimeout, this.#signal, this.#clock);
    // A hook that answered synchronously ended at `syncEndedAt`: the next hook, performed from
    // this loop with only this class's code in between, starts there.
    this.#clock = Array.isArray(performed) ? syncEndedAt : -1;
    return Array.isArray(performed) ? this.#hookDone(hook, hookId, started, performed) : performed.then((done) => this.#hookDone(hook, hookId, started, done));
  }

  /** Reports a performed hook to the core; answers the next action. */
  #hookDone(hook: { event: number }, hookId: string, started: number, [how, value]: [Ended, unknown]): number {
    const duration = this.#observed ? performance.now() - started : 0;
    const outcome = this.#report(how, value);
    const action = this.#step(outcome, this.#reportedFacts, duration, this.#reportedPayload);
    if (outcome === Outcome.Returned && ((action >>> ActionBits.VerdictShift) & 7) === Verdict.Failed) {
      warnBadReturn(this.#w, EVENTS[hook.event] ?? 'before', core.lastHookId(this.#engine, this.#call) ?? undefined, (action & ActionBits.FailedNow) !== 0);
      this.#clock = -1;
    }
    if (this.#observed) {
      const event = EVENTS[hook.event] ?? 'before';
      emitHookEvent(this.#w.telemetry, { tool: this.#tool.contract.name, serverId: this.#serverId, invocationId: this.invocationId, hookId, event, durationMs: duration }, outcome, action);
      // Telemetry handlers are the page's code: the next hook reads the clock itself.
      this.#clock = -1;
    }
    return action;
  }

  /**
   * What a performed hook or approver (`answer`) step reports: answers the outcome, and leaves
   * its facts and payload in `#reportedFacts` / `#reportedPayload` (no array per step).
   */
  #report(how: Ended, value: unknown, answer = false): number {
    this.#reportedFacts = 0;
    this.#reportedPayload = undefined;
    if (how === Ended.Raise) {
      this.#threw = true;
      this.#thrown = value;
      return Outcome.Raised;
    }
    if (how === Ended.Timeout) return Outcome.TimedOut;
    if (how === Ended.Aborted) return Outcome.Aborted;
    let returned: Returned;
    try {
      returned = readReturn(value, answer);
    } catch (err) {
      // Reading the return is part of performing the step: a getter or trap that throws is a raise.
      this.#threw = true;
      this.#thrown = err;
      return Outcome.Raised;
    }
    this.#returned = returned;
    this.#reportedFacts = returned.facts;
    // Most hooks return nothing the core needs text of: no payload object for them.
    if (returned.message === undefined && returned.code === undefined && returned.deny === undefined && returned.allow === undefined && returned.scopeOwn === undefined) return Outcome.Returned;
    const payload: Record<string, unknown> = {};
    if (returned.message !== undefined) payload.message = returned.message;
    if (returned.code !== undefined) payload.code = returned.code;
    if (returned.deny !== undefined) payload.deny = returned.deny;
    if (returned.allow !== undefined) payload.allow = returned.allow;
    // The approver's `scope` as an own key, its value a string or `null` (`undefined` stays so).
    if (returned.scopeOwn) payload.scope = returned.scope;
    this.#reportedPayload = payload;
    return Outcome.Returned;
  }

  #runTool(): number | Promise<number> {
    // The single value: the tool gets a fresh parse of the JSON every governance step read
    // (a Standard Schema's own value, which nobody else holds, is passed as it is).
    if (this.#argsJson !== undefined && !this.#tool.validation.standard) this.#input = JSON.parse(this.#argsJson);
    // Durations only feed the decision record and telemetry: no clock reads when nobody listens.
    const started = this.#observed ? performance.now() : 0;
    const about = this.#about;
    const performed = about
      ? perform(() => about.run(this.#input, this.#signal), [], undefined, this.#signal)
      : this.#trace === undefined
        ? perform(this.#tool.fn as AnyHook, [this.#input, { signal: this.#signal }], undefined, this.#signal)
        : this.traced('tool', () => perform(this.#tool.fn as AnyHook, [this.#input, { signal: this.#signal }], undefined, this.#signal));
    return Array.isArray(performed) ? this.#toolDone(started, performed) : performed.then((done) => this.#toolDone(started, done));
  }

  /** Reports what the tool did to the core; answers the next action. */
  #toolDone(started: number, [how, value]: [Ended, unknown]): number {
    const duration = this.#observed ? performance.now() - started : 0;
    if (how === Ended.Value) {
      this.#output = value;
      return this.#step(Outcome.ToolReturned, 0, duration);
    }
    if (how === Ended.Aborted) return this.#step(Outcome.Aborted, 0, duration);
    this.#threw = true;
    this.#thrown = value;
    return this.#step(Outcome.ToolThrew, 0, duration, { message: errorMessage(value) });
  }

  /** The arguments as JSON, made once; `undefined` with a diagnostic when JSON cannot carry them. */
  #argumentsJson(): ({ ok: true } & JsonText) | { ok: false; diagnostic: Diagnostic } {
    if (this.#argsJson !== undefined) return { ok: true, text: this.#argsJson };
    const json = toJson(this.#input, { maxBytes: this.#w.settings.maxArgumentBytes, maxDepth: this.#w.settings.maxArgumentDepth });
    if (json.ok) this.#argsJson = json.text;
    return json;
  }

  async #validateInput(what: number): Promise<number> {
    const output = this.#tool.validation.output;
    if (what & 2 && output !== undefined) {
      const compiled = await compileSchema(output);
      if ('error' in compiled) return this.#step(Outcome.InvalidSchema, 0, 0, { which: 'outputSchema', message: compiled.error });
    }
    if (!(what & 1)) return this.#step(Outcome.Valid, 0);
    const standard = this.#tool.validation.standard;
    if (standard) {
      const result = await validateStandard(standard, this.#input, this.#signal);
      if (result.how === 'threw') {
        this.#threw = true;
        this.#thrown = result.thrown;
        return this.#step(Outcome.Raised, 0);
      }
      if (result.how === 'aborted') return this.#step(Outcome.Aborted, 0);
      if (!result.valid) return this.#step(Outcome.Invalid, 0, 0, { diagnostics: result.diagnostics });
      this.#validated = { value: result.value };
      return this.#step(Outcome.Valid, 0);
    }
    const schema = this.#tool.validation.input;
    if (schema === undefined) return this.#step(Outcome.Valid, 0);
    const json = this.#argumentsJson();
    if (!json.ok) return this.#step(Outcome.Invalid, 0, 0, { diagnostics: [json.diagnostic] });
    const result = await validateJsonText(schema, json, 'inputSchema', this.#w.settings);
    if (this.#signal.aborted) return this.#step(Outcome.Aborted, 0);
    if ('invalidSchema' in result) return this.#step(Outcome.InvalidSchema, 0, 0, { which: 'inputSchema', message: result.invalidSchema });
    return result.valid ? this.#step(Outcome.Valid, 0) : this.#step(Outcome.Invalid, 0, 0, { diagnostics: result.diagnostics });
  }

  /** The policy step; bit 0 of `what`: the policy reads the arguments, send them. */
  async #evaluatePolicy(what: number): Promise<number> {
    const source = this.#tool.validation.standard && this.#validated !== undefined ? (this.#validated as { value: unknown }).value : this.#input;
    let json = this.#argsJson !== undefined ? ({ ok: true, text: this.#argsJson } as const) : undefined;
    if (json === undefined) {
      const made = toJson(source, { maxBytes: this.#w.settings.maxArgumentBytes, maxDepth: this.#w.settings.maxArgumentDepth });
      if (!made.ok) return this.#step(Outcome.Invalid, 0, 0, { diagnostics: [made.diagnostic] });
      this.#argsJson = made.text;
      json = made;
    }
    await ensureGrants(this.#w);
    if (!this.#current()) throw new CoreTrapped('the core was restarted during this call');
    if (this.#about === undefined) this.#w.noteBaseline(this.#tool.coreTool, false);
    const facts: Record<string, unknown> = { taint: [...this.#taint], nowMs: this.#w.settings.clock() };
    if (what & 1) facts.arguments = JSON.parse(json.text);
    // A grant for exactly some arguments is found by their digest.
    if (this.#w.exactGrants) facts.argsDigest = this.#argsDigest ??= digestOf(JSON.parse(json.text));
    if (this.#options.principal !== undefined) facts.principal = this.#options.principal;
    const action = core.policyFacts(this.#engine, this.#call, encode(facts), this.#signalState());
    if (action === 0) throw new Error('the core does not know this call');
    this.#decided(action);
    return action;
  }

  async #predicate(handle: number): Promise<number> {
    const predicate = this.#w.predicates.table[handle];
    const call = this.#policyCall(undefined);
    const ctx = this.#governanceContext();
    const performed = predicate ? perform(predicate as AnyHook, [call, ctx], this.#w.settings.hookTimeout, this.#signal) : ([Ended.Raise, undefined] as [Ended, unknown]);
    const [how, value] = Array.isArray(performed) ? performed : await performed;
    const outcome = how === Ended.Aborted ? Outcome.Aborted : how !== Ended.Value || typeof value !== 'boolean' ? Outcome.PredicateFailed : value ? Outcome.PredicateTrue : Outcome.PredicateFalse;
    const action = this.#step(outcome, 0);
    this.#decided(action);
    return action;
  }

  /** The limits step: the limits module (webmcp-warden/limits) checks and counts the call. */
  #limits(): number | Promise<number> {
    const limits = this.#w.limits;
    // Limits removed while the call was in flight: it is within them.
    const checked = limits ? limits.check(this.#w, this.#serverId, this.#tool.contract.name, this.#options.principal, this.#signal, () => this.#policyCall(undefined)) : ([Outcome.Valid, undefined, 0] as LimitsChecked);
    return Array.isArray(checked) ? this.#limited(checked) : checked.then((done) => this.#limited(done));
  }

  #limited([outcome, payload, token]: LimitsChecked): number {
    this.#held = token;
    const action = this.#step(outcome, 0, 0, payload);
    this.#decided(action);
    return action;
  }

  async #approve(): Promise<number> {
    const decision = decode(core.callDecision(this.#engine, this.#call)) as CallDecisionAnswer;
    const call = this.#policyCall(decision ?? undefined);
    const ctx = { signal: this.#signal, ...this.#governanceContext() };
    const started = performance.now();
    const approver = this.#approver;
    const performed = approver ? this.traced('approval', () => perform(approver as AnyHook, [call, ctx], this.#w.settings.askTimeout, this.#signal)) : ([Ended.Raise, undefined] as [Ended, unknown]);
    const [how, value] = Array.isArray(performed) ? performed : await performed;
    const duration = performance.now() - started;
    const outcome = this.#report(how, value, true);
    const action = this.#step(outcome, this.#reportedFacts, duration, this.#reportedPayload);
    if (outcome === Outcome.Returned && ((action >>> ActionBits.VerdictShift) & 7) === Verdict.Failed) warnBadReturn(this.#w, 'approver', undefined, true);
    // `{ allow: 'always' | 'session' }`: the core records the grant (for the arguments the
    // approver was shown, when it is scoped to them) and the store keeps what is not a session
    // grant. The approval of this call stands even if the store cannot: the next call then asks again.
    if (action & ActionBits.Accepted) await recordGrant(this.#w, this.#call, this.#options.principal, this.#argsDigest).catch(() => undefined);
    return action;
  }

  async #validateOutput(): Promise<number> {
    const schema = this.#tool.validation.output;
    const structured = normalizeResult(this.#output, { structured: this.#tool.structured }).structuredContent;
    if (schema === undefined || structured === undefined) return this.#step(Outcome.Valid, 0);
    const json = toJson(structured, { maxBytes: Number.MAX_SAFE_INTEGER, maxDepth: 100 });
    if (!json.ok) return this.#step(Outcome.Invalid, 0, 0, { diagnostics: [json.diagnostic] });
    const result = await validateJsonText(schema, json, 'outputSchema', this.#w.settings);
    if (this.#signal.aborted) return this.#step(Outcome.Aborted, 0);
    if ('invalidSchema' in result) return this.#step(Outcome.InvalidSchema, 0, 0, { which: 'outputSchema', message: result.invalidSchema });
    return result.valid ? this.#step(Outcome.Valid, 0) : this.#step(Outcome.Invalid, 0, 0, { diagnostics: result.diagnostics });
  }

  // ---- contexts ------------------------------------------------------------------------------

  /** A hook's `ctx`: the shared fields, `input`, and the event's own. */
  #hookContext(event: number): Record<string, unknown> {
    if (this.#about !== undefined) {
      // A gate hook of a resource or prompt: its own fields (uri and params, or name and args).
      return {
        invocationId: this.invocationId,
        signal: this.#signal,
        metadata: this.#metadata,
        serverId: this.#serverId,
        principal: this.#options.principal,
        taint: this.#taint,
        assigns: this.#assigns,
        ...this.#about.context(this.#input),
      };
    }
    // One object literal per event, every field written in the same order: a spread of a shared
    // base (or adding a field later) takes V8 off its fast path, ~3 µs per context instead of
    // ~40 ns (measured, bench/RESULTS.md).
    const contract = (this.#contract ??= snapshotOf(this.#tool.contract));
    const assigns = this.#assigns;
    switch (EVENTS[event]) {
      case 'after':
        return { invocationId: this.invocationId, tool: this.#tool.publicTool, contract, signal: this.#signal, metadata: this.#metadata, serverId: this.#serverId, principal: this.#options.principal, taint: this.#taint, assigns, input: this.#input, output: this.#output };
      case 'error': {
        const failure = this.#callFailure();
        const error = this.#errorIsThrown ? this.#error : new CallFailure(failure.kind, failure.reason, failure.message, failure.hookId);
        return { invocationId: this.invocationId, tool: this.#tool.publicTool, contract, signal: this.#signal, metadata: this.#metadata, serverId: this.#serverId, principal: this.#options.principal, taint: this.#taint, assigns, input: this.#input, error, failure };
      }
      case 'denied': {
        const failure = this.#callFailure();
        return { invocationId: this.invocationId, tool: this.#tool.publicTool, contract, signal: this.#signal, metadata: this.#metadata, serverId: this.#serverId, principal: this.#options.principal, taint: this.#taint, assigns, input: this.#input, reason: failure.message, code: failure.code ?? failure.reason, failure };
      }
      default:
        return { invocationId: this.invocationId, tool: this.#tool.publicTool, contract, signal: this.#signal, metadata: this.#metadata, serverId: this.#serverId, principal: this.#options.principal, taint: this.#taint, assigns, input: this.#input };
    }
  }

  /** The call's failure as the core holds it (`ctx.failure`), read once per failure. */
  #callFailure(): CallError {
    // Read only once the call failed (an error or denied hook is running): never `null` here.
    this.#failure ??= Object.freeze(decode(core.callError(this.#engine, this.#call)) as NonNullable<CallErrorAnswer>);
    return this.#failure;
  }

  /** What predicates and the approver get besides the call. */
  #governanceContext(): Record<string, unknown> {
    return {
      taint: this.#taint,
      principal: this.#options.principal,
      assigns: this.#assigns,
      hasApprover: this.#approver !== undefined,
      approvedFingerprints: this.#w.settings.approvedFingerprints,
    };
  }

  /** What the approver and function predicates see (a deeply frozen copy of the arguments). */
  #policyCall(decision: Decision | undefined): PolicyCall {
    const facts = decode(core.askFacts(this.#engine, this.#call)) as AskFactsAnswer;
    const json = this.#argumentsJson();
    const args = json.ok ? JSON.parse(json.text) : undefined;
    if (this.#argsDigest === undefined && json.ok) this.#argsDigest = digestOf(args);
    const call: PolicyCall = {
      serverId: facts.serverId,
      name: facts.name,
      arguments: deepFrozenCopy(args),
      argsDigest: this.#argsDigest ?? '',
      fingerprint: facts.fingerprint,
      principal: this.#options.principal,
      invocationId: this.invocationId,
    };
    if (this.#about !== undefined) call.kind = this.#about.target === undefined ? 'prompt' : 'resource';
    if (decision) call.decision = deepFrozenCopy(decision) as Decision;
    return Object.freeze(call);
  }

  // ---- telemetry -----------------------------------------------------------------------------



  /** Emits `policy.decision` when the core says policy just decided, and `limit.exceeded` when a limit did. */
  #decided(action: number): void {
    if (!this.#observed || !(action & ActionBits.Decided)) return;
    const decision = decode(core.callDecision(this.#engine, this.#call)) as CallDecisionAnswer;
    if (!decision) return;
    const event: Record<string, unknown> = { name: 'policy.decision', tool: this.#tool.contract.name, serverId: this.#serverId, invocationId: this.invocationId, effect: decision.effect, reason: decision.reason };
    if (decision.rule) event.rule = decision.rule;
    this.#w.telemetry.emit(event as never);
    if (decision.limit) this.#w.telemetry.emit({ ...event, name: 'limit.exceeded', limit: decision.limit } as never);
  }

  // ---- endings -------------------------------------------------------------------------------

  #finish(ended?: typeof QUIET_SUCCESS): CallOutcome {
    const answer: EndAnswer = ended ?? (decode(core.end(this.#engine, this.#call)) as EndAnswer);
    const outcome: CallOutcome = answer.ok
      ? { ok: true, result: (this.#about ? this.#about.normalize(this.#output) : normalizeResult(this.#output, { structured: this.#tool.structured })) as CallToolResult }
      : { ok: false, error: answer.error, result: errorResult(answer.text ?? 'Error: internal error in webmcp-warden') };
    return this.#answer(outcome, answer.record);
  }

  #planFailure(): CallOutcome {
    const answer = decode(core.planError(this.#engine, this.#tool.coreTool, this.#scope)) as PlanErrorAnswer;
    const error = answer.ok ? undefined : answer.error;
    const message = error?.message ?? 'the hooks of this tool cannot be planned';
    return this.#answer(failedOutcome('hook', error?.code ?? 'invalid_configuration', message), []);
  }

  #internalError(_err: unknown): CallOutcome {
    if (this.#w.isDisposed) return disposedOutcome();
    return this.#answer(failedOutcome('tool', 'internal_error', 'internal error in webmcp-warden'), []);
  }

  /** Shapes the result for a model, emits `tool_call.stop`, and answers. */
  #answer(outcome: CallOutcome, record: DecisionStep[] | undefined): CallOutcome {
    const shapeMode = this.#options.shape ?? this.#tool.shape;
    // A failed read or get answers with the text the agent reads, never shaped as contents.
    if (shapeMode === 'llm' && (this.#about === undefined || outcome.ok)) {
      if (!shaperLoaded()) {
        // Only when the shaping module did not load (its chunk is missing, or the page's CSP
        // refuses wasm): the answer is withheld, so nothing unshaped reaches a model.
        outcome = failedOutcome('tool', 'internal_error', 'internal error in webmcp-warden: the shaping module did not load');
      } else {
        const max = this.#w.settings.maxResultBytesForLlm;
        const shaped = this.#about ? this.#about.shape(outcome.result, this.#serverId, max) : loadedShaping().shapeForModel(outcome.result, this.#serverId, max);
        outcome.result = shaped.result as CallToolResult;
        this.#shapeStep = { step: 'shape', flags: shaped.flags, truncated: shaped.truncated };
      }
    }
    if (this.#observed) {
      const steps = [...(record ?? [])];
      if (this.#shapeStep) steps.push(this.#shapeStep);
      const event: Record<string, unknown> = {
        name: this.#about?.stopEvent ?? 'tool_call.stop',
        tool: this.#tool.contract.name,
        ...(this.#about?.target !== undefined ? { uri: this.#about.target } : {}),
        serverId: this.#serverId,
        invocationId: this.invocationId,
        status: outcome.ok ? 'ok' : 'error',
        durationMs: performance.now() - this.#started,
        record: steps,
      };
      if (!outcome.ok) {
        event.errorKind = outcome.error.kind;
        event.errorReason = outcome.error.reason;
      }
      if (this.#w.settings.capturePayloads) {
        event.arguments = this.#input;
        event.result = outcome.result;
      }
      this.#w.telemetry.emit(event as never);
    }
    return outcome;
  }
}

/** The arguments' digest: SHA-256 (in the core) of their RFC 8785 canonical JSON. */
function digestOf(args: unknown): string {
  return core.sha256Hex(canonicalJson(args));
}

export type { CallToolResult };
