// One governed call: ask the core for the next step, perform it, report what happened.
//
// The core decides the order, judges every outcome and writes every failure; this file calls
// the user's functions (hooks, predicates, the approver, a Standard Schema, the tool) with
// deadlines and the call's abort signal, holds the JS values (input, output, what a hook
// returned or threw), reports facts, and converts the core's answer into a `CallOutcome`. It
// never throws for a call that went wrong: every path ends in data.
//
// The arguments become JSON once, at the first step that needs them (validation, policy, a
// predicate, the approver), read back once; from then on that JSON *is* the arguments: the
// validator, the policy, the digest and the approver read it, and the tool receives it, so an
// inherited property, a getter, a `toJSON` or a later mutation of the caller's object (a
// Standard Schema's value may be that object) cannot reach the tool unjudged.
//
// A resource read or a prompt get runs the same machine (`SubjectCall`, made by subject.ts): its
// gate hooks in place of the before-hooks, the read or the get in place of the tool, its own
// answer, shaping and telemetry event.
import { ActionBits, CallFlags, EVENTS, Op, Signal, StepReport, Verdict } from '../boundary/codes.js';
import { core, CoreTrapped } from '../boundary/core.js';
import { decode, encode } from '../boundary/wire.js';
import { approverFor, sealFirstListing } from '../client/governance.js';
import { ensureGrants, recordGrant } from '../client/grants.js';
import { disposedOutcome, failedOutcome, genInvocationId, snapshotOf } from '../client/outcomes.js';
import { emitHookEvent } from '../client/telemetry.js';
import { canonicalJson } from '../util/canonical.js';
import { CallFailure } from '../util/errors.js';
import { deepFrozenCopy } from '../util/frozen.js';
import { loadValidator } from '../validator/validator-loader.js';
import type { ClientState } from '../client/client.js';
import { readReturn, type Returned } from './facts.js';
import type { Decision, PolicyCall } from '../client/governance.js';
import type { JsonText, PipelineTool, SubjectCall } from '../types/internal.js';
import { errorMessage, errorResult, normalizeResult } from '../shape/normalize.js';
import { Ended, NEVER_ABORTED, perform, syncEndedAt, type AnyHook } from '../util/perform.js';
import { loadedShaping, loadShaper, shaperLoaded } from '../shape/shape-loader.js';
import type { CallTrace, DecisionStep, TracedStep } from '../client/telemetry.js';
import { DIAGNOSING, diagnose } from './diagnostics-loader.js';
import type { Note } from './diagnostics.js';
import type { CallError, CallOptions, CallOutcome, CallToolResult, ToolContract } from '../types/types.js';
import { readCallOptions, type ReadCallOptions } from './call-options.js';
import type * as PayloadsModule from './payloads.js';
import type { PayloadSource } from './payloads.js';
import { compileSchema, toJson, validateJsonText, validateStandard, type Diagnostic } from '../validator/validation.js';
import type * as Extras from './call-extras.js';
import type { AskFactsAnswer, CallDecisionAnswer, CallErrorAnswer, EndAnswer, PlanErrorAnswer } from '../boundary/answers.js';
import type { LimitsChecked } from '../client/limits-hook.js';

/**
 * A chunk only some calls need, loaded once by `load()`; `loaded` is the module once it is. A
 * failed load rejects, and the next `load()` tries again.
 */
function lazily<M>(importer: () => Promise<M>): { loaded: M | undefined; load(): Promise<M> } {
  let loading: Promise<M> | undefined;
  const chunk = {
    loaded: undefined as M | undefined,
    load: (): Promise<M> =>
      (loading ??= importer().then(
        (module) => (chunk.loaded = module),
        (err: unknown) => {
          loading = undefined;
          throw err;
        },
      )),
  };
  return chunk;
}

/** Recording payloads (payloads.ts): only pages that capture them load it; one that cannot load records none. */
const payloadsChunk = lazily(() => import('./payloads.js'));

/** What few calls need (call-extras.ts: `call.display`, the `rejectProtoKeys` check); one that cannot load fails the call closed. */
const extrasChunk = lazily(() => import('./call-extras.js'));

/** Loads call-extras.ts (for `explain`, through the pipeline chunk). */
export const loadExtras = (): Promise<typeof Extras> => extrasChunk.load();


/** What a quiet ending means: the call succeeded and nothing was recorded. */
const QUIET_SUCCESS = { ok: true } as const;


/** Runs one governed call of `tool` under provider `scope` (0: none). Never throws for a failed call. */
export async function runCall(w: ClientState, tool: PipelineTool, input: unknown, options?: CallOptions | null, scope = 0): Promise<CallOutcome> {
  const read = readCallOptions(options);
  if (typeof read === 'string') return failedOutcome('validation', 'invalid_options', read);
  const run = new CallRun(w, tool, input, read, scope, undefined);
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
export async function runSubjectCall(w: ClientState, subject: PipelineTool, about: SubjectCall, input: unknown, options: CallOptions | null | undefined, scope: number): Promise<CallOutcome> {
  const read = readCallOptions(options);
  if (typeof read === 'string') return failedOutcome('validation', 'invalid_options', read);
  return new CallRun(w, subject, input, read, scope, about).run();
}

/** Whether the core flagged `action` (a tool run or an approval) to be checked against the limits first. */
function limitsFirst(action: number): boolean {
  const op = action & ActionBits.OpMask;
  return action >>> ActionBits.HandleShift === ActionBits.LimitsFirst && (op === Op.RunTool || op === Op.Approve);
}

/** The state of one call, and one performer per op. */
class CallRun {
  readonly #w: ClientState;
  readonly #tool: PipelineTool;
  #input: unknown;
  readonly #options: ReadCallOptions;
  readonly #scope: number;
  /** What a resource read or prompt get does differently (undefined: a tool call). */
  readonly #about: SubjectCall | undefined;
  readonly #observed: boolean;
  readonly #started: number;
  readonly #serverId: string;
  readonly invocationId = genInvocationId();
  /** The call's signal: the caller's, or the call's own when it has a timeout (set as the call starts). */
  #signal: AbortSignal = NEVER_ABORTED;
  /** The call's own controller (a timeout), its timer, and how it follows the caller's signal. */
  #deadline: AbortController | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #follow: (() => void) | undefined;
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
  /** The arguments as JSON, once a step needed them: what every step after judges. */
  #argsJson: string | undefined;
  /**
   * That JSON read back, once: the validator and the policy are sent it, the approver and
   * predicates get frozen copies of it, and the tool receives it. Nobody else ever holds it.
   */
  #argsValue: unknown = undefined;
  #argsDigest: string | undefined;
  #validated: unknown = undefined;
  /** What the last performed step returned, read once. */
  #returned: Returned | undefined;
  /**
   * When the last synchronously performed hook ended, while no await and no user code outside
   * a hook ran since (-1: unknown). Only the run loop's hook steps read and set it.
   */
  #clock = -1;
  /**
   * The time (the client's clock) policy was asked at, while no await has passed since: the
   * limits check that follows counts the call at that time rather than reading the clock again.
   */
  #policyNow: number | undefined = undefined;
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
  /** What the tool received, as it will be recorded, when payloads may be (telemetry, tracing). */
  #received: PayloadSource | undefined;
  /**
   * What loads before the tool runs, when it was not loaded as the call began: the shaping module
   * (`#shapes`: the answer is shaped, so the tool never runs without it), the payload recorder.
   */
  #beforeTool: Promise<unknown> | undefined;
  #shapes = false;
  /** An instrumentation following this call (tracing), told of its start in the caller's context. */
  readonly #trace: CallTrace | undefined;
  /** What failed closed in this call, for the console (only with `debug` on: diagnostics-loader.ts). */
  #notes: Note[] | undefined;
  /** A failed predicate's note, waiting for the decision policy then makes. */
  #predicateNote: Note | undefined;
  /** The token of the calls in flight the limits counted this call in (0: none). */
  #held = 0;

  constructor(w: ClientState, tool: PipelineTool, input: unknown, options: ReadCallOptions, scope: number, about: SubjectCall | undefined) {
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
    this.#trace = this.#observed && about === undefined ? w.telemetry.follow?.({ tool: tool.contract.name, serverId: this.#serverId, invocationId: this.invocationId }) : undefined;
    this.#taint = options.taint;
    this.#assigns = options.assigns ?? {};
    this.#approver = approverFor(w, scope);
  }

  /**
   * Sets up the call's signal: the caller's, or with a `timeout` one of the call's own that follows
   * it and aborts when the time is up. Called as the call starts, inside its `try`: a signal that
   * throws when read ends the call as data. `#disarm` undoes it when the call ends.
   */
  #arm(): void {
    const given = this.#options.signal ?? NEVER_ABORTED;
    const timeout = this.#options.timeout;
    if (timeout === undefined) {
      this.#signal = given;
      return;
    }
    const deadline = new AbortController();
    this.#deadline = deadline;
    this.#signal = deadline.signal;
    if (given.aborted) deadline.abort(given.reason);
    else if (given !== NEVER_ABORTED) {
      this.#follow = () => deadline.abort(given.reason);
      given.addEventListener('abort', this.#follow, { once: true });
    }
    this.#timer = setTimeout(() => {
      if (!deadline.signal.aborted) {
        this.#timedOut = true;
        deadline.abort(new DOMException('the call ran past its timeout', 'TimeoutError'));
      }
    }, timeout);
  }

  /** Ends what `#arm` set up: the timer and the listener on the caller's signal (which may live on). */
  #disarm(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    if (this.#follow !== undefined) {
      try {
        this.#options.signal?.removeEventListener('abort', this.#follow);
      } catch {
        // a signal that throws now: nothing more to undo
      }
    }
    if (this.#deadline && !this.#deadline.signal.aborted) this.#deadline.abort();
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
    // Shaping runs synchronously at the end (`#answer`). Its module loads while the call's hooks
    // run (they still start at once) and is awaited before the tool runs: a module that cannot
    // load fails the call before the tool, so an agent's retry repeats no action whose answer
    // was withheld. Once loaded (`register()` starts it), this costs one check.
    this.#shapes = (this.#options.shape ?? this.#tool.shape) === 'llm';
    // A tool with a JSON Schema validates in the validator module, which shapes too: asked for
    // first, so that shaping takes its module from it rather than loading one of its own.
    const { input, output } = this.#tool.validation;
    if (!shaperLoaded() && this.#shapes && (input !== undefined || output !== undefined)) void loadValidator([input, output]).catch(() => undefined);
    const shaping = !shaperLoaded() && this.#shapes ? loadShaper().catch(() => undefined) : undefined;
    const recording = payloadsChunk.loaded === undefined && this.#observed && (this.#w.settings.capturePayloads || this.#trace !== undefined) ? payloadsChunk.load().catch(() => undefined) : undefined;
    const loading = shaping === undefined ? recording : recording === undefined ? shaping : Promise.all([shaping, recording]);
    this.#beforeTool = loading;
    let ended = false;
    try {
      this.#arm();
      this.#engine = this.#w.engine();
      // A tool unregister() took out of the engine goes back for the call (one check otherwise).
      if (this.#about === undefined) this.#w.attach(this.#tool.coreTool);
      this.#instance = this.#w.coreInstance;
      // Fingerprint baselines are tools' (resources and prompts have no pins).
      if (this.#about === undefined) sealFirstListing(this.#w);
      // `rejectProtoKeys` checks a tool's arguments even without a JSON Schema (as JSON).
      const flags =
        (this.#tool.validation.standard ? CallFlags.StandardInput : this.#tool.validation.input || (this.#w.settings.rejectProtoKeys && this.#about === undefined) ? CallFlags.JsonInput : 0) |
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
        if (loading !== undefined) await loading;
        return this.#noted(this.#planFailure());
      }
      // The call's handle and its first action, packed in one number (one crossing to start).
      let action = begun >>> 0;
      this.#call = (begun - action) / 0x1_0000_0000;
      // A suspended page's calls are decided at once (`policy.decision` is due).
      this.#decided(action);
      for (;;) {
        this.#apply(action);
        const op = action & ActionBits.OpMask;
        const handle = action >>> ActionBits.HandleShift;
        if (op === Op.FinishOk || op === Op.FinishError) {
          ended = true;
          if (loading !== undefined) await loading;
          // The core ended a call that succeeded with nothing to record: no answer to read.
          return this.#noted(op === Op.FinishOk && handle === ActionBits.EndedQuietly ? this.#finish(QUIET_SUCCESS) : this.#finish());
        }
        // A step performed synchronously (a sync hook, a sync tool) answers at once: no promise
        // and no microtask per step, which is most of a hook's cost.
        const next = limitsFirst(action) ? this.#limitsFirst(action) : this.#perform(op, handle);
        if (typeof next === 'number') action = next;
        else {
          action = await next;
          // Time passed and other code ran: the next hook reads the clock itself, as does a
          // limits check after any step but policy's own (which reads the clock last, after its
          // own awaits).
          this.#clock = -1;
          if (op !== Op.EvaluatePolicy) this.#policyNow = undefined;
        }
      }
    } catch (err) {
      // A trapped core, or a bug in this package: the call still ends as data, and what was
      // thrown is never shown to the agent.
      if (loading !== undefined) await loading;
      return this.#noted(this.#internalError(err));
    } finally {
      this.#disarm();
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
        return this.#beforeTool === undefined ? this.#runTool() : this.#runToolWhenLoaded(this.#beforeTool);
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
  #hookDone(hook: { event: number; timeout?: number }, hookId: string, started: number, [how, value]: [Ended, unknown]): number {
    const duration = this.#observed ? performance.now() - started : 0;
    const outcome = this.#report(how, value);
    const action = this.#step(outcome, this.#reportedFacts, duration, this.#reportedPayload);
    if (((action >>> ActionBits.VerdictShift) & 7) === Verdict.Failed && DIAGNOSING && this.#w.settings.debug) {
      const failed = (action & ActionBits.FailedNow) !== 0;
      this.#note(['hook', EVENTS[hook.event] ?? 'before', core.lastHookId(this.#engine, this.#call) ?? '?', this.#tool.contract.name, outcome, failed ? this.#callFailure().message : undefined, hook.timeout ?? this.#w.settings.hookTimeout]);
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
      return StepReport.Raised;
    }
    if (how === Ended.Timeout) return StepReport.TimedOut;
    if (how === Ended.Aborted) return StepReport.Aborted;
    let returned: Returned;
    try {
      returned = readReturn(value, answer);
    } catch (err) {
      // Reading the return is part of performing the step: a getter or trap that throws is a raise.
      this.#threw = true;
      this.#thrown = err;
      return StepReport.Raised;
    }
    this.#returned = returned;
    this.#reportedFacts = returned.facts;
    // Most hooks return nothing the core needs text of: no payload object for them.
    if (returned.message === undefined && returned.code === undefined && returned.deny === undefined && returned.allow === undefined && returned.scopeOwn === undefined) return StepReport.Returned;
    const payload: Record<string, unknown> = {};
    if (returned.message !== undefined) payload.message = returned.message;
    if (returned.code !== undefined) payload.code = returned.code;
    if (returned.deny !== undefined) payload.deny = returned.deny;
    if (returned.allow !== undefined) payload.allow = returned.allow;
    // The approver's `scope` as an own key, its value a string or `null` (`undefined` stays so).
    if (returned.scopeOwn) payload.scope = returned.scope;
    this.#reportedPayload = payload;
    return StepReport.Returned;
  }

  /** Runs the tool once what it waits for loaded; throws (the call ends as `internal_error`) when shaping cannot load. */
  async #runToolWhenLoaded(loading: Promise<unknown>): Promise<number> {
    await loading;
    this.#beforeTool = undefined;
    if (this.#shapes && !shaperLoaded()) throw new Error('the shaping module did not load');
    if (!this.#current()) throw new CoreTrapped('the core was restarted during this call');
    return this.#runTool();
  }

  #runTool(): number | Promise<number> {
    // The single value: once a step judged the arguments as JSON, the tool gets that JSON read
    // back (never the caller's object, nor a Standard Schema's value, which may be the caller's:
    // a getter, a `toJSON`, an inherited key or a later change would reach the tool unjudged).
    if (this.#argsJson !== undefined) this.#input = this.#argsValue;
    // Payloads record what the tool received, taken now (the tool may change its own input).
    const payloads = payloadsChunk.loaded;
    if (payloads !== undefined && this.#observed && (this.#w.settings.capturePayloads || this.#trace !== undefined)) this.#received = payloads.argumentsSource(this.#argsJson, this.#input, true);
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
      return this.#step(StepReport.ToolReturned, 0, duration);
    }
    if (how === Ended.Aborted) return this.#step(StepReport.Aborted, 0, duration);
    this.#threw = true;
    this.#thrown = value;
    return this.#step(StepReport.ToolThrew, 0, duration, { message: errorMessage(value) });
  }

  /** Whether the tool's schemas may hold patterns neither engine can be trusted with (its own `unsafePatterns`, or the page's). */
  #unsafePatterns(): boolean {
    return this.#tool.validation.unsafePatterns === true || this.#w.settings.unsafePatterns;
  }

  /**
   * The arguments as JSON, made once from what the call holds then (a Standard Schema's value
   * once it validated), and read back once into `#argsValue`; a diagnostic when JSON cannot
   * carry them.
   */
  #argumentsJson(): ({ ok: true } & JsonText) | { ok: false; diagnostic: Diagnostic } {
    if (this.#argsJson !== undefined) return { ok: true, text: this.#argsJson, source: this.#argsValue };
    const source = this.#tool.validation.standard && this.#validated !== undefined ? (this.#validated as { value: unknown }).value : this.#input;
    const json = toJson(source, { maxBytes: this.#w.settings.maxArgumentBytes, maxDepth: this.#w.settings.maxArgumentDepth });
    if (!json.ok) return json;
    // Read back from the text, never the value it was written from: a getter that answers
    // differently on each read could otherwise make what is validated differ from the text.
    this.#argsJson = json.text;
    this.#argsValue = JSON.parse(json.text);
    return { ok: true, text: json.text, source: this.#argsValue };
  }

  async #validateInput(what: number): Promise<number> {
    const output = this.#tool.validation.output;
    if (what & 2 && output !== undefined) {
      const compiled = await compileSchema(output, this.#unsafePatterns());
      if ('error' in compiled) return this.#step(StepReport.InvalidSchema, 0, 0, { which: 'outputSchema', message: compiled.error });
    }
    if (!(what & 1)) return this.#step(StepReport.Valid, 0);
    const standard = this.#tool.validation.standard;
    if (standard) {
      const result = await validateStandard(standard, this.#input, this.#signal);
      if (result.how === 'threw') {
        this.#threw = true;
        this.#thrown = result.thrown;
        return this.#step(StepReport.Raised, 0);
      }
      if (result.how === 'aborted') return this.#step(StepReport.Aborted, 0);
      if (!result.valid) return this.#step(StepReport.Invalid, 0, 0, { diagnostics: result.diagnostics });
      this.#validated = { value: result.value };
      // The value the tool would receive, as JSON, when `__proto__` keys are refused.
      if (this.#w.settings.rejectProtoKeys && this.#about === undefined) {
        const json = this.#argumentsJson();
        if (!json.ok) return this.#step(StepReport.Invalid, 0, 0, { diagnostics: [json.diagnostic] });
        const proto = (extrasChunk.loaded ?? (await extrasChunk.load())).protoKeyProblem(json.text, this.#argsValue);
        if (proto !== undefined) return this.#step(StepReport.Invalid, 0, 0, { diagnostics: [proto] });
      }
      return this.#step(StepReport.Valid, 0);
    }
    const schema = this.#tool.validation.input;
    if (schema === undefined && !(this.#w.settings.rejectProtoKeys && this.#about === undefined)) return this.#step(StepReport.Valid, 0);
    const json = this.#argumentsJson();
    if (!json.ok) return this.#step(StepReport.Invalid, 0, 0, { diagnostics: [json.diagnostic] });
    if (this.#w.settings.rejectProtoKeys && this.#about === undefined) {
      const proto = (extrasChunk.loaded ?? (await extrasChunk.load())).protoKeyProblem(json.text, this.#argsValue);
      if (proto !== undefined) return this.#step(StepReport.Invalid, 0, 0, { diagnostics: [proto] });
    }
    if (schema === undefined) return this.#step(StepReport.Valid, 0);
    const result = await validateJsonText(schema, json, 'inputSchema', this.#w.settings, this.#unsafePatterns());
    if (this.#signal.aborted) return this.#step(StepReport.Aborted, 0);
    if ('invalidSchema' in result) return this.#step(StepReport.InvalidSchema, 0, 0, { which: 'inputSchema', message: result.invalidSchema });
    return result.valid ? this.#step(StepReport.Valid, 0) : this.#step(StepReport.Invalid, 0, 0, { diagnostics: result.diagnostics });
  }

  /** The policy step; bit 0 of `what`: the policy reads the arguments, send them. */
  async #evaluatePolicy(what: number): Promise<number> {
    const json = this.#argumentsJson();
    if (!json.ok) return this.#step(StepReport.Invalid, 0, 0, { diagnostics: [json.diagnostic] });
    await ensureGrants(this.#w);
    if (!this.#current()) throw new CoreTrapped('the core was restarted during this call');
    if (this.#about === undefined) this.#w.noteBaseline(this.#tool.coreTool, false);
    const nowMs = (this.#policyNow = this.#w.settings.clock());
    const facts: Record<string, unknown> = { taint: [...this.#taint], nowMs };
    // Encoded (copied) as it is sent: the core never hands it back.
    if (what & 1) facts.arguments = this.#argsValue;
    // A grant for exactly some arguments is found by their digest.
    if (this.#w.exactGrants) facts.argsDigest = this.#argsDigest ??= digestOf(this.#argsValue);
    if (this.#options.principal !== undefined) facts.principal = this.#options.principal;
    // The origins beyond its own the tool is exposed to: `{ exposedTo }` predicates read them.
    const exposedTo = this.#tool.options?.exposedTo;
    if (exposedTo !== undefined && exposedTo.length > 0) facts.exposedTo = exposedTo;
    const action = core.policyFacts(this.#engine, this.#call, encode(facts), this.#signalState());
    if (action === 0) throw new Error('the core does not know this call');
    this.#decided(action);
    return action;
  }

  async #predicate(handle: number): Promise<number> {
    const predicate = this.#w.predicates.table[handle];
    const call = this.#policyCall(undefined, extrasChunk.loaded ?? (await extrasChunk.load()));
    const ctx = this.#governanceContext();
    const performed = predicate ? perform(predicate as AnyHook, [call, ctx], this.#w.settings.hookTimeout, this.#signal) : ([Ended.Raise, undefined] as [Ended, unknown]);
    const [how, value] = Array.isArray(performed) ? performed : await performed;
    const outcome = how === Ended.Aborted ? StepReport.Aborted : how !== Ended.Value || typeof value !== 'boolean' ? StepReport.PredicateFailed : value ? StepReport.PredicateTrue : StepReport.PredicateFalse;
    if (outcome === StepReport.PredicateFailed && DIAGNOSING && this.#w.settings.debug) {
      this.#note((this.#predicateNote = ['predicate', this.#tool.contract.name, how, predicate?.name || undefined, this.#w.settings.hookTimeout]));
    }
    const action = this.#step(outcome, 0);
    this.#decided(action);
    return action;
  }

  /** Checks the call against the page's limits and counts it (the limits module, webmcp-warden/limits). */
  #checkLimits(): LimitsChecked | Promise<LimitsChecked> {
    const limits = this.#w.limits;
    // A cost function is given the call as predicates see it, written with the extras' chunk.
    const extras = extrasChunk.loaded;
    if (limits && extras === undefined) {
      // Time passes while the chunk loads: the check reads the clock itself.
      return extrasChunk.load().then(() => {
        this.#policyNow = undefined;
        return this.#checkLimits();
      });
    }
    // Limits removed while the call was in flight: it is within them.
    return limits && extras ? limits.check(this.#w, this.#serverId, this.#tool.contract.name, this.#options.principal, this.#signal, () => this.#policyCall(undefined, extras), this.#policyNow) : 0;
  }

  /**
   * A tool run or an approval the core flagged `LimitsFirst`: the call is checked against its
   * limits first. Within every limit (and not aborted meanwhile), policy's decision is reported
   * and the action performed with no step to the core; past a limit, the core decides again
   * from that limit's decision.
   */
  #limitsFirst(action: number): number | Promise<number> {
    const checked = this.#checkLimits();
    return typeof checked === 'number' || Array.isArray(checked) ? this.#limitsThen(action, checked) : checked.then((done) => this.#limitsThen(action, done));
  }

  #limitsThen(action: number, checked: LimitsChecked): number | Promise<number> {
    if (typeof checked === 'number') this.#held = checked;
    if (typeof checked === 'number' && this.#signalState() === Signal.Live) {
      this.#decided(action, true);
      return this.#perform(action & ActionBits.OpMask, 0);
    }
    // Past a limit (its decision), or aborted while a cost function ran (nothing).
    const next = this.#step(StepReport.Limited, 0, 0, typeof checked === 'number' ? undefined : checked[0] === StepReport.Invalid ? checked[1] : undefined);
    this.#decided(next);
    return next;
  }

  async #approve(): Promise<number> {
    const decision = decode(core.callDecision(this.#engine, this.#call)) as CallDecisionAnswer;
    const call = this.#policyCall(decision ?? undefined, extrasChunk.loaded ?? (await extrasChunk.load()));
    // While something shows the page's asks (useApprovals, the devtools: `w.asks`), the ask is
    // listed with its request, which can answer it, and the approver gets a signal of its own.
    const step = this.#w.asks?.step(this.#signal === NEVER_ABORTED ? undefined : this.#signal);
    const signal = step?.signal ?? this.#signal;
    const ctx = { signal, ...this.#governanceContext() };
    const started = performance.now();
    const approver = this.#approver;
    let performed = approver ? this.traced('approval', () => perform(approver as AnyHook, [call, ctx], this.#w.settings.askTimeout, signal)) : ([Ended.Raise, undefined] as [Ended, unknown]);
    if (step !== undefined && !Array.isArray(performed)) performed = step.race(performed, call, this.#tool.contract.title, approver, this.#w.settings) as Promise<[Ended, unknown]>;
    const [how, value] = Array.isArray(performed) ? performed : await performed;
    const duration = performance.now() - started;
    const outcome = this.#report(how, value, true);
    const action = this.#step(outcome, this.#reportedFacts, duration, this.#reportedPayload);
    if (((action >>> ActionBits.VerdictShift) & 7) === Verdict.Failed && DIAGNOSING && this.#w.settings.debug) {
      const failure = this.#callFailure();
      this.#note(['approver', this.#tool.contract.name, failure.cause ?? 'bad_return', failure.message, decision?.explanation, this.#w.settings.askTimeout]);
    }
    // `{ allow: 'always' | 'session' }`: the core records the grant (for the arguments the
    // approver was shown, when it is scoped to them) and the store keeps what is not a session
    // grant. The approval of this call stands even if the store cannot: the next call then asks again.
    if (action & ActionBits.Accepted) await recordGrant(this.#w, this.#call, this.#options.principal, this.#argsDigest).catch(() => undefined);
    return action;
  }

  async #validateOutput(): Promise<number> {
    const schema = this.#tool.validation.output;
    const structured = normalizeResult(this.#output, { structured: this.#tool.structured }).structuredContent;
    if (schema === undefined || structured === undefined) return this.#step(StepReport.Valid, 0);
    const json = toJson(structured, { maxBytes: Number.MAX_SAFE_INTEGER, maxDepth: 100 });
    if (!json.ok) return this.#step(StepReport.Invalid, 0, 0, { diagnostics: [json.diagnostic] });
    const result = await validateJsonText(schema, json, 'outputSchema', this.#w.settings, this.#unsafePatterns());
    if (this.#signal.aborted) return this.#step(StepReport.Aborted, 0);
    if ('invalidSchema' in result) return this.#step(StepReport.InvalidSchema, 0, 0, { which: 'outputSchema', message: result.invalidSchema });
    return result.valid ? this.#step(StepReport.Valid, 0) : this.#step(StepReport.Invalid, 0, 0, { diagnostics: result.diagnostics });
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
    // base (or adding a field later) takes V8 off its fast path (measured, bench/RESULTS.md).
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
      exposedTo: this.#tool.options?.exposedTo?.slice(),
    };
  }

  /** What the approver and function predicates see (a deeply frozen copy of the arguments). */
  #policyCall(decision: Decision | undefined, { displayText }: typeof Extras): PolicyCall {
    const facts = decode(core.askFacts(this.#engine, this.#call)) as AskFactsAnswer;
    const json = this.#argumentsJson();
    const args = json.ok ? this.#argsValue : undefined;
    if (this.#argsDigest === undefined && json.ok) this.#argsDigest = digestOf(args);
    const call: PolicyCall = {
      serverId: facts.serverId,
      name: facts.name,
      // A copy: the approver and predicates never hold what the tool will receive.
      arguments: deepFrozenCopy(args),
      display: json.ok ? displayText(json.text) : '',
      argsDigest: this.#argsDigest ?? '',
      fingerprint: facts.fingerprint,
      principal: this.#options.principal,
      invocationId: this.invocationId,
    };
    if (this.#about !== undefined) call.kind = this.#about.target === undefined ? 'prompt' : 'resource';
    if (decision) call.decision = deepFrozenCopy(decision) as Decision;
    return Object.freeze(call);
  }

  // ---- diagnostics ---------------------------------------------------------------------------

  /** Keeps a fail-closed event for the console (callers check `debug` first). */
  #note(note: Note): void {
    (this.#notes ??= []).push(note);
  }

  /** The outcome, once the call's diagnostics, if any, are written. */
  #noted(outcome: CallOutcome): CallOutcome | Promise<CallOutcome> {
    const notes = this.#notes;
    return DIAGNOSING && notes !== undefined ? diagnose(this.#w, notes).then(() => outcome) : outcome;
  }

  // ---- telemetry -----------------------------------------------------------------------------



  /** Emits `policy.decision` when the core says policy just decided, and `limit.exceeded` when a limit did. */
  #decided(action: number, limitsChecked = false): void {
    // A decision whose limits are still to be checked is reported once they let it through.
    if (!(action & ActionBits.Decided) || (!limitsChecked && limitsFirst(action))) return;
    if (DIAGNOSING && this.#predicateNote !== undefined) {
      this.#predicateNote[5] = (decode(core.callDecision(this.#engine, this.#call)) as CallDecisionAnswer)?.explanation;
      this.#predicateNote = undefined;
    }
    if (!this.#observed) return;
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
        // The agent reads the generic text only (docs/behaviour.md, Outcomes).
        outcome = failedOutcome('tool', 'internal_error', 'internal error in webmcp-warden');
      } else {
        const max = this.#w.settings.maxResultBytesForLlm;
        const shaped = this.#about ? this.#about.shape(outcome.result, this.#serverId, max) : loadedShaping().shapeForModel(outcome.result, this.#serverId, max);
        outcome.result = shaped.result as CallToolResult;
        this.#shapeStep = { step: 'shape', flags: shaped.flags, truncated: shaped.truncated };
        if ((shaped.flags.length > 0 || shaped.truncated) && DIAGNOSING && this.#w.settings.debug) this.#note(['shape', this.#tool.contract.name, shaped.flags, shaped.truncated, max]);
      }
    }
    if (!outcome.ok && outcome.error.reason === 'invalid_structured_content' && DIAGNOSING && this.#w.settings.debug) {
      this.#note(['output', this.#tool.contract.name, outcome.error.message]);
    }
    if (this.#observed) {
      const steps = [...(record ?? [])];
      if (this.#shapeStep) steps.push(this.#shapeStep);
      const event: Record<string, unknown> = {
        name: this.#about?.stopEvent ?? 'tool_call.stop',
        tool: this.#tool.contract.name,
        // The URI read holds what the agent chose (a template's variables): a payload.
        ...(this.#about?.target !== undefined && this.#w.settings.capturePayloads ? { uri: this.#about.target } : {}),
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
      const capture = this.#w.settings.capturePayloads;
      // Without the recorder (its chunk did not load) no payload is recorded.
      const payloads = payloadsChunk.loaded;
      if (payloads !== undefined && (capture || this.#trace !== undefined)) {
        payloads.recordCall(event, this.#received ?? payloads.argumentsSource(this.#argsJson, this.#input, false), outcome.result, capture, this.#w.settings.redact, this.#trace);
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
