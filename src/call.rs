//! The step machine of one governed call: the core says what to do next, the TS layer does it
//! and reports what it saw.
//!
//! Order: before-hooks → input validation → policy (function predicates one at a time) →
//! approval → the tool → output validation → after-hooks; error hooks on a failure, denied
//! hooks on a denial. Steps a call does not need (no schema, no policy) are skipped, so a
//! hooks-only call never pays for them. The same machine runs a dry run ([`Mode::Explain`]):
//! no hook, predicate, approver or tool is called, and the answer is an explanation.
//!
//! Resources and prompts run the same machine ([`Subject`]): their gate event (`resourceRead`,
//! `promptGet`) takes the place of the before-hooks, with the same order, deadlines and
//! fail-closed failures; a prompt's arguments are validated against its `argsSchema`; policy
//! decides on the section of the policy for the subject; the read or the get is the step a
//! tool call runs its tool at. They have no after, error or denied hooks.
//!
//! The TS layer reports facts, never judgements: the shape of what a hook returned
//! ([`ReturnFacts`]), that a deadline passed, that the call's signal was aborted, the
//! diagnostics a validator gave. The machine judges them (the return contracts of
//! [`crate::returns`], where aborts stop a call, which failure the call ends with and what the
//! agent reads) and keeps the call's decision record for telemetry. It never calls JS and
//! never awaits, so it is tested with plain `cargo test` and cannot be re-entered.

use alloc::borrow::ToOwned;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use crate::hooks::{Event, OnError, Subject};
use crate::plan::Plan;
use crate::policy::{settle_with_grant, settle_without_approver, Decision, Effect, EvalStep, Evaluation, Policy, PredicateResult};
use crate::returns::{judge_approval, judge_hook, Approval, Contract, Judged, ReturnFacts};
use crate::strs::{cat, decimal_usize};
use crate::value::{Map, Value};

/// What the TS layer reports after performing the last action (the numbers are the wire codes).
/// A step's report, not a call's outcome: that is [`Call::outcome`], the public `CallOutcome`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepReport {
    /// The call starts.
    Start = 0,
    /// A hook or the approver returned a value; its [`ReturnFacts`] come with it.
    Returned = 1,
    /// A hook, the approver or a Standard Schema validator threw or rejected.
    Raised = 2,
    /// A hook or the approver outlived its deadline.
    TimedOut = 3,
    /// The call's signal aborted the step while it was pending.
    Aborted = 4,
    /// The tool returned.
    ToolReturned = 5,
    /// The tool threw or rejected; the payload's `message` says what it threw.
    ToolThrew = 6,
    /// The value is valid; at the limits step, the call is within every limit.
    Valid = 7,
    /// The value is invalid; the payload's `diagnostics` say why. At the limits step, the call
    /// would pass a limit: the payload is that limit's decision.
    Invalid = 8,
    /// The schema itself is not valid JSON Schema; the payload's `message` says why.
    InvalidSchema = 9,
    /// A policy function predicate returned `true`.
    PredicateTrue = 10,
    /// A policy function predicate returned `false`.
    PredicateFalse = 11,
    /// A policy function predicate threw, timed out or returned a non-boolean.
    PredicateFailed = 12,
    /// The limits check of an action flagged [`LIMITS_FIRST`] did not let the call through:
    /// the payload is the decision of the limit it would pass, or nothing when the call's
    /// signal aborted the check. A call within its limits reports nothing: the TS layer
    /// performs the action.
    Limited = 13,
}

/// The handle flag of a `RunTool` or `Approve` action whose call must be checked against the
/// page's limits first (the limits module counts it): within them, the TS layer performs the
/// action without reporting; past one, it reports [`StepReport::Limited`] and the core decides
/// again. Folding the check into the action saves a step per limited call.
pub const LIMITS_FIRST: u32 = 1;

impl StepReport {
    /// Every report, by wire code.
    pub const ALL: [StepReport; 14] = [
        StepReport::Start,
        StepReport::Returned,
        StepReport::Raised,
        StepReport::TimedOut,
        StepReport::Aborted,
        StepReport::ToolReturned,
        StepReport::ToolThrew,
        StepReport::Valid,
        StepReport::Invalid,
        StepReport::InvalidSchema,
        StepReport::PredicateTrue,
        StepReport::PredicateFalse,
        StepReport::PredicateFailed,
        StepReport::Limited,
    ];

    /// Decodes a wire code ([`StepReport::ALL`] is in code order: a test pins it).
    pub fn from_code(code: u32) -> Option<StepReport> {
        StepReport::ALL.get(code as usize).copied()
    }
}

/// The state of the call's abort signal when the TS layer reports a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Signal {
    /// Not aborted.
    #[default]
    Live = 0,
    /// Aborted by the caller.
    Aborted = 1,
    /// Aborted because the call ran past its `timeout` option.
    TimedOut = 2,
}

impl Signal {
    /// Decodes a wire code (anything unknown counts as aborted: fail closed).
    pub fn from_code(code: u32) -> Signal {
        match code {
            0 => Signal::Live,
            2 => Signal::TimedOut,
            _ => Signal::Aborted,
        }
    }
}

/// What the TS layer must do next (the numbers are the wire codes of [`Action::op`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Call the hook stored under the handle; report what it returned.
    CallHook = 1,
    /// Call the tool with the current input.
    RunTool = 2,
    /// The call is over and succeeded: normalize the current output.
    FinishOk = 3,
    /// The call is over and failed: read the failure with `end`.
    FinishError = 4,
    /// Validate: bit 0 of the handle field, the input; bit 1, check that the output schema
    /// compiles first.
    ValidateInput = 5,
    /// Send the policy facts; bit 0 of the handle field says the arguments are needed.
    EvaluatePolicy = 6,
    /// Call the policy function predicate stored under the handle.
    Predicate = 7,
    /// Ask the approver; report its answer's facts (and the deny reason as payload).
    Approve = 8,
    /// Validate the result's `structuredContent` against the output schema.
    ValidateOutput = 9,
    /// Check the call against the page's limits (the limits module; counting it, unless this
    /// is a dry run); report `Valid`, or `Invalid` with the decision of the limit it would pass.
    Limits = 10,
}

impl Op {
    /// Every op, by wire code.
    pub const ALL: [Op; 10] =
        [Op::CallHook, Op::RunTool, Op::FinishOk, Op::FinishError, Op::ValidateInput, Op::EvaluatePolicy, Op::Predicate, Op::Approve, Op::ValidateOutput, Op::Limits];
}

/// How the last reported hook step was judged, for the TS layer's live telemetry events
/// (`hook.stop` with a status, or `hook.exception`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Verdict {
    /// The last step was not a hook.
    #[default]
    None = 0,
    /// The hook's return had no effect.
    Cont = 1,
    /// It rewrote the input or the output.
    Rewrite = 2,
    /// It denied.
    Deny = 3,
    /// It halted with a result.
    Halt = 4,
    /// It recovered with a result.
    Recover = 5,
    /// It failed (threw, timed out, or returned outside its contract).
    Failed = 6,
}

/// One packed answer: the next op, its handle, and what the last step came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Action {
    /// What to do.
    pub op: Op,
    /// The hook or predicate handle, or the op's flags.
    pub handle: u32,
    /// The value the last step returned takes effect (a rewrite, halt or recover result, the
    /// Standard Schema's validated value, a grant to persist).
    pub accepted: bool,
    /// The last step failed the call: what it threw (if anything) is the call's error.
    pub failed_now: bool,
    /// How the last hook step was judged.
    pub verdict: Verdict,
    /// Policy decided at the last step (`policy.decision` is due).
    pub decided: bool,
}

/// The largest handle an action can carry.
pub const MAX_HANDLE: u32 = (1 << 22) - 1;

impl Action {
    fn new(op: Op, handle: u32) -> Action {
        Action { op, handle, accepted: false, failed_now: false, verdict: Verdict::None, decided: false }
    }

    /// Packs the action into one `u32`: op in bits 0–3, `accepted` bit 4, `failed_now` bit 5,
    /// the verdict in bits 6–8, `decided` bit 9, the handle from bit 10. Handles never exceed
    /// [`MAX_HANDLE`] (the engine refuses larger ones), so packing never wraps.
    pub fn encode(self) -> u32 {
        (self.op as u32)
            | u32::from(self.accepted) << 4
            | u32::from(self.failed_now) << 5
            | (self.verdict as u32) << 6
            | u32::from(self.decided) << 9
            | (self.handle & MAX_HANDLE) << 10
    }
}

/// How the call validates its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InputCheck {
    /// No schema.
    #[default]
    None,
    /// A JSON Schema, checked by the validator module.
    Json,
    /// A Standard Schema, run in JS (its value is what the tool receives).
    Standard,
}

/// Whether the machine governs a call or explains one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// A real call.
    #[default]
    Call,
    /// A dry run: nothing the page wrote is called.
    Explain,
}

/// What a call needs to know of the page when it starts.
#[derive(Debug, Clone, Default)]
pub struct CallSpec {
    /// The tool's input contract.
    pub input: InputCheck,
    /// The tool has an output schema.
    pub output_schema: bool,
    /// The page's policy, if it has one.
    pub policy: Option<Rc<Policy>>,
    /// An approver settles asks.
    pub has_approver: bool,
    /// Which contract hook returns follow.
    pub contract: Contract,
    /// Keep the decision record (someone listens to telemetry).
    pub observed: bool,
    /// Payloads may appear in telemetry (a Standard Schema's own messages, for one).
    pub capture_payloads: bool,
    /// Call or dry run.
    pub mode: Mode,
    /// What the call is about: a tool, a resource or a prompt.
    pub subject: Subject,
    /// The page suspended its agents, for this reason: the call is denied before anything runs.
    pub suspended: Option<String>,
    /// The page's policy has limits (tool calls only): a call it lets through is checked
    /// against them.
    pub limits: bool,
}

/// Why a call failed, as `invokeTool` reports it, and what the agent reads.
#[derive(Debug, Clone, PartialEq)]
pub struct CallError {
    /// `hook | validation | denied | tool | aborted`.
    pub kind: &'static str,
    /// The finer reason, such as `hook_failed` or `hook_denied`.
    pub reason: &'static str,
    /// One sentence; never what a hook threw.
    pub message: String,
    /// The text the agent reads.
    pub text: String,
    /// The hook that decided, when one did.
    pub hook_id: Option<String>,
    /// How a hook or the approver failed: `raise`, `timeout` or `bad_return`.
    pub cause: Option<&'static str>,
    /// A deny's code, when it gave one.
    pub code: Option<String>,
    /// Validation diagnostics.
    pub diagnostics: Option<Value>,
    /// The failure is a denial by policy or the approver: the decision goes with it.
    pub with_decision: bool,
}

impl CallError {
    fn new(kind: &'static str, reason: &'static str, message: String, text: String) -> CallError {
        CallError { kind, reason, message, text, hook_id: None, cause: None, code: None, diagnostics: None, with_decision: false }
    }

    /// `Error: <message>`.
    fn error(kind: &'static str, reason: &'static str, message: String) -> CallError {
        let text = cat!["Error: ", message];
        CallError::new(kind, reason, message, text)
    }

    /// `Denied: <message>`.
    fn denied(reason: &'static str, message: String) -> CallError {
        let text = cat!["Denied: ", message];
        CallError::new("denied", reason, message, text)
    }

    /// The error as `invokeTool` reports it (`{ kind, reason, message, hookId?, cause?, code?,
    /// diagnostics? }`; the decision is added by the caller).
    pub fn to_value(&self) -> Value {
        let mut map = Map::new();
        map.insert("kind", self.kind.into());
        map.insert("reason", self.reason.into());
        map.insert("message", self.message.as_str().into());
        map.insert_some("hookId", self.hook_id.as_deref());
        map.insert_some("cause", self.cause);
        map.insert_some("code", self.code.as_deref());
        map.insert_some("diagnostics", self.diagnostics.clone());
        Value::Object(map)
    }
}

/// Where the call stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Hooks(Event, usize),
    ValidateInput,
    Policy,
    Predicate(u32),
    /// Policy decided; the limits are checked.
    Limits,
    Approve,
    Tool,
    ValidateOutput,
    Done,
}

/// The policy facts a call sends, decoded by the engine.
#[derive(Debug, Clone)]
pub struct PolicyFacts {
    /// The final arguments (`Null` when the policy did not ask for them).
    pub arguments: Value,
    /// Who the call is for.
    pub principal: Option<String>,
    /// Server ids whose output entered the turn.
    pub taint: Vec<String>,
    /// The time on the TS layer's clock.
    pub now_ms: f64,
    /// The arguments' digest, when the TS layer computed it (dry runs report it).
    pub args_digest: Option<String>,
    /// The origins beyond its own the tool is exposed to (its `exposedTo` option).
    pub exposed_to: Vec<String>,
}

/// What the approver is shown of a call besides its arguments and their digest.
#[derive(Debug, Clone)]
pub struct AskFacts {
    /// The tool's server id.
    pub server_id: String,
    /// The tool's name.
    pub name: String,
    /// The fingerprint of the tool's definition.
    pub fingerprint: String,
}

/// One call in progress.
#[derive(Debug)]
pub struct Call {
    /// The engine's handle of the called tool.
    pub(crate) tool: u32,
    /// What the call is about when it is not the subject's own name: the URI a resource read
    /// reads (an instance of its template).
    pub(crate) target: Option<String>,
    plan: Rc<Plan>,
    spec: CallSpec,
    phase: Phase,
    error: Option<CallError>,
    halted: bool,
    evaluation: Option<Evaluation>,
    decision: Option<Decision>,
    /// The grant the approver's answer records (`allow: 'always'` or `'session'`), as
    /// `(for these exact arguments, for the session)`.
    grant_due: Option<(bool, bool)>,
    /// A live grant exists for this call's principal, tool and definition (and arguments, for
    /// an arguments-scoped one): its scope, as `grant_due`.
    live_grant: Option<(bool, bool)>,
    /// The decision waiting for the limits (a dry run's separate limits step).
    pending: Option<Decision>,
    /// The last action carries [`LIMITS_FIRST`]: the length the record had before its decision
    /// was noted, so that a limit's decision can replace that note.
    limits_first: Option<usize>,
    record: Vec<Value>,
    /// What a dry run found, step by step.
    explain: Vec<Value>,
    /// Function predicates a dry run counted as failed.
    skipped_predicates: usize,
    /// Where the last hook whose outcome was reported sits in the plan (for the TS layer's
    /// warnings): a position, not its id, so reporting a hook allocates nothing.
    last_hook: Option<(Event, usize)>,
    /// Hooks of the plan whose set was dropped while the call was in flight (see
    /// [`Call::forget_hooks`]).
    removed: Vec<u32>,
    /// What predicates and the approver are shown of the call, fixed at its policy step.
    pub(crate) asked: Option<AskFacts>,
}

/// What the engine must do for a call's policy step (the call cannot reach the governor).
#[derive(Debug)]
pub enum PolicyNeed {
    /// Nothing: the call is not at its policy step.
    None,
    /// Build an evaluation from these facts and hand it to [`Call::start_policy`].
    Evaluate,
}

impl Call {
    /// A call that follows `plan`, governed as `spec` says.
    pub fn new(plan: Rc<Plan>, spec: CallSpec) -> Call {
        Call {
            tool: 0,
            target: None,
            plan,
            spec,
            phase: Phase::Hooks(Event::Before, 0),
            error: None,
            halted: false,
            evaluation: None,
            decision: None,
            grant_due: None,
            live_grant: None,
            pending: None,
            limits_first: None,
            record: Vec::new(),
            explain: Vec::new(),
            skipped_predicates: 0,
            last_hook: None,
            removed: Vec::new(),
            asked: None,
        }
    }

    /// Tells the call that the hooks `handles` are gone: their set was dropped while the call
    /// was in flight. The TS layer no longer holds their functions and hands their handles to
    /// whatever it defines next, so the call never asks for them again. A gone hook counts as
    /// a hook that failed, cause `removed` (fail closed: a before-hook fails the call, an
    /// after-hook withholds the result unless it is `onError: 'ignore'`, an error or denied
    /// hook is skipped); a hook already running finishes and is judged as usual.
    pub fn forget_hooks(&mut self, handles: &[u32]) {
        for &event in &Event::ALL {
            for hook in self.plan.hooks(event) {
                if handles.contains(&hook.handle) && !self.removed.contains(&hook.handle) {
                    self.removed.push(hook.handle);
                }
            }
        }
    }

    /// Tells the call that its tool was dropped while it was in flight: the tool's handle may
    /// soon name another tool, whose definition must not decide this call (the policy step
    /// then fails closed, and no grant is recorded).
    pub fn forget_tool(&mut self) {
        self.tool = 0;
    }

    /// The policy decision, once there is one.
    pub fn decision(&self) -> Option<&Decision> {
        self.decision.as_ref()
    }

    /// Why the call failed, once it has.
    pub fn error(&self) -> Option<&CallError> {
        self.error.as_ref()
    }

    /// Whether the call waits for its policy facts.
    pub fn wants_policy_facts(&self) -> bool {
        self.phase == Phase::Policy
    }

    /// The page's policy, for the engine to evaluate.
    pub fn policy(&self) -> Option<&Rc<Policy>> {
        self.spec.policy.as_ref()
    }

    /// Whether an approver settles asks.
    pub fn has_approver(&self) -> bool {
        self.spec.has_approver
    }

    /// The mode.
    pub fn mode(&self) -> Mode {
        self.spec.mode
    }

    /// The grant the approver's answer records, as `(for these exact arguments, for the
    /// session)`, once (the engine records it).
    pub fn take_grant_due(&mut self) -> Option<(bool, bool)> {
        self.grant_due.take()
    }

    /// The id of the hook the call is at, for telemetry.
    pub fn current_hook_id(&self) -> Option<&str> {
        match self.phase {
            Phase::Hooks(event, position) => self.plan.hook(event, position).map(|hook| hook.id.as_str()),
            _ => None,
        }
    }

    /// The id of the last hook whose outcome was reported.
    pub fn last_hook_id(&self) -> Option<&str> {
        let (event, position) = self.last_hook?;
        self.plan.hook(event, position).map(|hook| hook.id.as_str())
    }

    /// The decision record so far (empty unless the spec is observed).
    pub fn record(&self) -> &[Value] {
        &self.record
    }

    /// Starts the call. While the page's agents are suspended, the call is denied at once
    /// (`denied` / `suspended`, the agent reading `Denied: <reason>`): no hook, validation,
    /// predicate, approver or tool runs (denied hooks do, as for every denial). A dry run
    /// explains the policy as it would decide once the agents are resumed.
    pub fn start(&mut self, signal: Signal) -> Action {
        if let (Some(reason), Mode::Call) = (self.spec.suspended.take(), self.spec.mode) {
            self.error = Some(CallError::denied("suspended", reason));
            let mut action = self.enter(Event::Denied, 0, signal);
            action.failed_now = true;
            return action;
        }
        if self.spec.mode == Mode::Explain {
            self.explain_hooks();
            return self.validate_input(signal);
        }
        self.enter(self.spec.subject.gate(), 0, signal)
    }

    /// The part an event plays in this call: the subject's gate event is its before-hooks.
    fn role(&self, event: Event) -> Event {
        if event == self.spec.subject.gate() {
            Event::Before
        } else {
            event
        }
    }

    /// Feeds the report of the last action and returns the next one. `facts` are the facts
    /// of a returned value, `payload` what the report carries (see [`StepReport`]), `duration_ms`
    /// how long the step took (for the decision record).
    pub fn step(&mut self, report: StepReport, facts: ReturnFacts, payload: &Value, signal: Signal, duration_ms: f64) -> Action {
        if report == StepReport::Start {
            return self.start(signal);
        }
        // Any other report after a `LIMITS_FIRST` action means the call was within its limits.
        match (self.limits_first.take(), report) {
            (Some(noted), StepReport::Limited) => return self.limit_refused(noted, payload, signal),
            (None, StepReport::Limited) => return self.internal_error(),
            _ => {}
        }
        match self.phase {
            Phase::Hooks(event, position) => self.after_hook(event, position, report, facts, payload, signal, duration_ms),
            Phase::ValidateInput => self.after_input_validation(report, payload, signal),
            // Arguments JSON cannot carry are reported at the policy step when nothing validated
            // them before: a validation failure with its diagnostic. A dry run calls nothing the
            // page wrote (no error hooks): it records the failure and still asks for the facts.
            Phase::Policy if report == StepReport::Invalid && self.spec.mode == Mode::Explain => {
                self.explain.push(crate::object! { "step" => "validation", "ok" => false, "diagnostics" => diagnostics_of(report, payload) });
                Action::new(Op::EvaluatePolicy, 0)
            }
            Phase::Policy if report == StepReport::Invalid => {
                self.note_validation("input", report, payload);
                self.fail_validation(report, payload, "invalid_arguments", signal)
            }
            Phase::Policy => self.internal_error(),
            Phase::Predicate(handle) => self.after_predicate(handle, report, signal),
            Phase::Limits => self.after_limits(report, payload, signal),
            Phase::Approve => self.after_approval(report, facts, payload, signal, duration_ms),
            Phase::Tool => self.after_tool(report, payload, signal, duration_ms),
            Phase::ValidateOutput => self.after_output_validation(report, payload, signal),
            Phase::Done => self.finish(),
        }
    }

    // ---- hooks -------------------------------------------------------------------------------

    /// Moves to hook `position` of `event`, or past the event when its list is done. Before and
    /// after hooks are work: an aborted call stops there. Error and denied hooks still run, so
    /// observers see the abort.
    ///
    /// A hook whose set was dropped meanwhile ([`Call::forget_hooks`]) is judged failed here,
    /// in a loop rather than by recursion, so a long list of gone hooks cannot exhaust the stack.
    fn enter(&mut self, event: Event, position: usize, signal: Signal) -> Action {
        let (mut event, mut position) = (event, position);
        let mut failed_now = false;
        loop {
            let role = self.role(event);
            let works = matches!(role, Event::Before | Event::After);
            let mut action = if works && signal != Signal::Live && self.error.is_none() {
                self.fail_aborted(signal)
            } else {
                match self.plan.hook(event, position) {
                    Some(hook) if self.removed.contains(&hook.handle) => {
                        let (hook_id, on_error) = (hook.id.clone(), hook.on_error);
                        let fails_call = role == Event::Before || (role == Event::After && on_error == OnError::Fail);
                        self.note_hook(event, &hook_id, Judged::Bad, "removed", 0.0, !fails_call);
                        if fails_call {
                            self.error = Some(hook_failed(event, role, hook_id, "removed"));
                            failed_now = true;
                            (event, position) = (Event::Error, 0);
                        } else {
                            position = position.saturating_add(1);
                        }
                        continue;
                    }
                    Some(hook) => {
                        self.phase = Phase::Hooks(event, position);
                        Action::new(Op::CallHook, hook.handle)
                    }
                    None => self.event_done(event, signal),
                }
            };
            action.failed_now |= failed_now;
            return action;
        }
    }

    fn event_done(&mut self, event: Event, signal: Signal) -> Action {
        match self.role(event) {
            Event::Before if self.halted => self.enter(Event::After, 0, signal),
            Event::Before => self.validate_input(signal),
            _ => self.finish(),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn after_hook(&mut self, event: Event, position: usize, report: StepReport, facts: ReturnFacts, payload: &Value, signal: Signal, duration_ms: f64) -> Action {
        let next = position.saturating_add(1);
        // The plan outlives this step (an `Rc`): the hook's id is borrowed from it, and copied
        // only into an error that names it.
        let plan = Rc::clone(&self.plan);
        let Some(hook) = plan.hook(event, position) else { return self.internal_error() };
        let (hook_id, on_error) = (hook.id.as_str(), hook.on_error);
        self.last_hook = Some((event, position));
        let judged = match report {
            StepReport::Returned => judge_hook(event, self.spec.contract, facts),
            StepReport::Raised | StepReport::TimedOut => Judged::Bad,
            StepReport::Aborted => {
                self.note(|| object_step("aborted"));
                // An abort while an error or denied hook was pending ends that hook only.
                return match event {
                    Event::Error | Event::Denied => self.enter(event, next, signal),
                    _ => self.fail_aborted(signal),
                };
            }
            _ => return self.internal_error(),
        };
        let cause = match report {
            StepReport::Raised => "raise",
            StepReport::TimedOut => "timeout",
            _ => "bad_return",
        };
        let role = self.role(event);
        let failed_call = judged == Judged::Bad && (role == Event::Before || (role == Event::After && on_error == OnError::Fail));
        self.note_hook(event, hook_id, judged, cause, duration_ms, judged == Judged::Bad && !failed_call);
        let verdict = verdict_of(judged);
        let mut action = match (role, judged) {
            (Event::Before, Judged::Nothing | Judged::Rewrite) => self.enter(event, next, signal),
            (Event::Before, Judged::Deny) => {
                let message = payload.get("message").and_then(Value::as_str).filter(|m| !m.is_empty()).unwrap_or(self.denied_by_default());
                let mut error = CallError::denied("hook_denied", message.to_owned());
                error.hook_id = Some(hook_id.to_owned());
                error.code = payload.get("code").and_then(Value::as_str).map(str::to_owned);
                self.error = Some(error);
                let mut action = self.enter(Event::Denied, 0, signal);
                action.failed_now = true;
                action
            }
            // Halt answers the call: no more before-hooks, no validation, policy or tool;
            // after-hooks see the halt result as the output.
            (Event::Before, Judged::Halt) => {
                self.halted = true;
                self.enter(Event::After, 0, signal)
            }
            (Event::Before, _) => {
                self.error = Some(hook_failed(event, role, hook_id.to_owned(), cause));
                let mut action = self.enter(Event::Error, 0, signal);
                action.failed_now = true;
                action
            }
            (Event::After, Judged::Nothing | Judged::Rewrite) => self.enter(event, next, signal),
            (Event::After, _) if on_error == OnError::Ignore => self.enter(event, next, signal),
            (Event::After, _) => {
                // Fail closed: the raw result is dropped; error hooks run and may recover.
                self.error = Some(hook_failed(event, role, hook_id.to_owned(), cause));
                let mut action = self.enter(Event::Error, 0, signal);
                action.failed_now = true;
                action
            }
            // Recover turns the error into a result and ends the error chain.
            (Event::Error, Judged::Recover) => {
                self.error = None;
                self.finish()
            }
            // Anything else, a failure included, leaves the original error standing.
            _ => self.enter(event, next, signal),
        };
        action.accepted = matches!(judged, Judged::Rewrite | Judged::Halt | Judged::Recover | Judged::Deny);
        action.verdict = verdict;
        action
    }

    /// What the agent reads of a deny that gave no message.
    fn denied_by_default(&self) -> &'static str {
        match self.spec.subject {
            Subject::Tool => "Tool execution denied",
            Subject::Resource => "Resource read denied",
            Subject::Prompt => "Prompt get denied",
        }
    }

    // ---- validation ---------------------------------------------------------------------------

    fn validate_input(&mut self, signal: Signal) -> Action {
        let input = self.spec.input == InputCheck::Json || (self.spec.input == InputCheck::Standard && self.spec.mode == Mode::Call);
        // A tool whose output schema is not valid JSON Schema never runs: that is checked here,
        // before anything the call would do.
        let output = self.spec.output_schema && self.spec.mode == Mode::Call;
        if self.spec.mode == Mode::Explain && self.spec.input == InputCheck::Standard {
            self.explain.push(crate::object! { "step" => "validation", "ok" => true, "skipped" => "a Standard Schema is user code and is not called in a dry run" });
        }
        if !input && !output {
            return self.evaluate_policy(signal);
        }
        if signal != Signal::Live && self.spec.mode == Mode::Call {
            return self.fail_aborted(signal);
        }
        self.phase = Phase::ValidateInput;
        Action::new(Op::ValidateInput, u32::from(input) | u32::from(output) << 1)
    }

    fn after_input_validation(&mut self, report: StepReport, payload: &Value, signal: Signal) -> Action {
        if self.spec.mode == Mode::Explain {
            let step = match report {
                StepReport::Valid => crate::object! { "step" => "validation", "ok" => true },
                _ => crate::object! { "step" => "validation", "ok" => false, "diagnostics" => diagnostics_of(report, payload) },
            };
            self.explain.push(step);
            return self.evaluate_policy(signal);
        }
        if report == StepReport::Aborted {
            return self.fail_aborted(signal);
        }
        let target = if report == StepReport::InvalidSchema && payload.get("which").and_then(Value::as_str) == Some("outputSchema") { "output" } else { "input" };
        self.note_validation(target, report, payload);
        match report {
            StepReport::Valid => {
                let mut action = self.evaluate_policy(signal);
                // A Standard Schema's validated value is what the tool receives.
                action.accepted = self.spec.input == InputCheck::Standard;
                action
            }
            _ => self.fail_validation(report, payload, "invalid_arguments", signal),
        }
    }

    fn after_output_validation(&mut self, report: StepReport, payload: &Value, signal: Signal) -> Action {
        if report == StepReport::Aborted {
            return self.fail_aborted(signal);
        }
        self.note_validation("output", report, payload);
        match report {
            StepReport::Valid => self.enter(Event::After, 0, signal),
            _ => self.fail_validation(report, payload, "invalid_structured_content", signal),
        }
    }

    fn fail_validation(&mut self, report: StepReport, payload: &Value, invalid: &'static str, signal: Signal) -> Action {
        let error = match report {
            StepReport::InvalidSchema => {
                let which = payload.get("which").and_then(Value::as_str).unwrap_or("schema");
                let why = payload.get("message").and_then(Value::as_str).unwrap_or("it cannot be compiled");
                CallError::error("validation", "invalid_schema", cat!["the tool's ", which, " is not valid JSON Schema: ", why])
            }
            StepReport::Invalid | StepReport::Raised => {
                let diagnostics = diagnostics_of(report, payload);
                let mut error = CallError::error("validation", invalid, summary(&diagnostics));
                error.diagnostics = Some(diagnostics);
                error
            }
            _ => return self.internal_error(),
        };
        self.error = Some(error);
        let mut action = self.enter(Event::Error, 0, signal);
        action.failed_now = true;
        action
    }

    // ---- policy and approval -----------------------------------------------------------------

    fn evaluate_policy(&mut self, signal: Signal) -> Action {
        match &self.spec.policy {
            Some(_) => {
                if signal != Signal::Live && self.spec.mode == Mode::Call {
                    return self.fail_aborted(signal);
                }
                self.phase = Phase::Policy;
                // The engine sets bit 0 (arguments needed) when it answers this action.
                Action::new(Op::EvaluatePolicy, 0)
            }
            None if self.spec.mode == Mode::Explain => self.finish(),
            None => self.run_tool(signal),
        }
    }

    /// Starts the policy evaluation the engine built from the call's facts; `live_grant` says a
    /// live grant would settle an ask.
    pub fn start_policy(&mut self, evaluation: Evaluation, live_grant: Option<(bool, bool)>, signal: Signal) -> Action {
        if self.phase != Phase::Policy {
            return self.internal_error();
        }
        self.evaluation = Some(evaluation);
        self.live_grant = live_grant;
        self.drive_policy(signal)
    }

    fn drive_policy(&mut self, signal: Signal) -> Action {
        loop {
            let Some(evaluation) = self.evaluation.as_mut() else { return self.internal_error() };
            match evaluation.step() {
                // A dry run calls nothing: a function predicate counts as failed (fail closed).
                // So does a handle an action cannot carry (packing would wrap it onto another
                // function; the TS layer refuses to give out such handles).
                EvalStep::NeedPredicate { handle, .. } if self.spec.mode == Mode::Explain || handle > MAX_HANDLE => {
                    self.skipped_predicates = self.skipped_predicates.saturating_add(1);
                    evaluation.predicate_result(handle, PredicateResult::Failed);
                }
                EvalStep::NeedPredicate { handle, .. } => {
                    self.phase = Phase::Predicate(handle);
                    return Action::new(Op::Predicate, handle);
                }
                EvalStep::Decided(decision) => {
                    self.evaluation = None;
                    return self.decided(decision, signal);
                }
            }
        }
    }

    fn after_predicate(&mut self, handle: u32, report: StepReport, signal: Signal) -> Action {
        let result = match report {
            StepReport::PredicateTrue => PredicateResult::True,
            StepReport::PredicateFalse => PredicateResult::False,
            StepReport::Aborted => return self.fail_aborted(signal),
            // A throw, a timeout or a non-boolean: the evaluation applies fail-closed rules.
            _ => PredicateResult::Failed,
        };
        if let Some(evaluation) = self.evaluation.as_mut() {
            evaluation.predicate_result(handle, result);
        }
        self.drive_policy(signal)
    }

    /// Goes on from the limits: the decision stands, or (`Invalid`) the decision of the limit
    /// the call would pass replaces it, denied when it asks and nobody can approve.
    fn after_limits(&mut self, report: StepReport, payload: &Value, signal: Signal) -> Action {
        let Some(decision) = self.pending.take() else { return self.internal_error() };
        let decision = match (report, Decision::by_limit(payload)) {
            (StepReport::Valid, _) => decision,
            (StepReport::Invalid, Some(limited)) if self.spec.has_approver => limited,
            (StepReport::Invalid, Some(limited)) => settle_without_approver(&limited),
            (StepReport::Aborted, _) => return self.fail_aborted(signal),
            _ => return self.internal_error(),
        };
        self.conclude(decision, signal)
    }

    /// Deny > pin > ask > allow > default has decided: settle an ask by a live grant, or deny
    /// it when nobody can approve. A call it lets through (to the tool or an approver) goes to
    /// its limits first, when any selects the tool.
    fn decided(&mut self, decision: Decision, signal: Signal) -> Action {
        let decision = match (decision.effect, self.live_grant, self.spec.has_approver) {
            (Effect::Ask, Some(scope), _) => settle_with_grant(&decision, scope),
            (Effect::Ask, None, false) => settle_without_approver(&decision),
            _ => decision,
        };
        if decision.effect == Effect::Deny || !self.spec.limits {
            return self.conclude(decision, signal);
        }
        // A dry run reports its limits as a step of its own (it ends at its decision).
        if self.spec.mode == Mode::Explain {
            self.pending = Some(decision);
            self.phase = Phase::Limits;
            return Action::new(Op::Limits, 0);
        }
        // A call goes on to the tool or the approver with the limits checked first: one step
        // fewer when they let it through, which is nearly always.
        let noted = self.record.len();
        let mut action = self.conclude(decision, signal);
        if matches!(action.op, Op::RunTool | Op::Approve) {
            action.handle = LIMITS_FIRST;
            self.limits_first = Some(noted);
        }
        action
    }

    /// A limit refused the call that its `LIMITS_FIRST` action was about to take on: the
    /// limit's decision replaces the one concluded (and its note in the record), denied when it
    /// asks and nobody can approve.
    fn limit_refused(&mut self, noted: usize, payload: &Value, signal: Signal) -> Action {
        let Some(limited) = Decision::by_limit(payload) else {
            return if signal == Signal::Live { self.internal_error() } else { self.fail_aborted(signal) };
        };
        self.record.truncate(noted);
        let decision = if self.spec.has_approver { limited } else { settle_without_approver(&limited) };
        self.conclude(decision, signal)
    }

    /// The decision stands: record it, and go to the tool, the approver or the denied hooks.
    fn conclude(&mut self, decision: Decision, signal: Signal) -> Action {
        let mut action = self.concluded(decision, signal);
        action.decided = true;
        action
    }

    fn concluded(&mut self, decision: Decision, signal: Signal) -> Action {
        self.note(|| crate::object! { "step" => "policy", "decision" => decision_value(&decision) });
        let effect = decision.effect;
        let reason = decision.reason.name();
        let text = decision.denial_text();
        self.decision = Some(decision);
        if self.spec.mode == Mode::Explain {
            return self.finish();
        }
        match effect {
            Effect::Allow => self.run_tool(signal),
            Effect::Ask => {
                if signal != Signal::Live {
                    return self.fail_aborted(signal);
                }
                self.phase = Phase::Approve;
                Action::new(Op::Approve, 0)
            }
            Effect::Deny => {
                let message = text.strip_prefix("Denied: ").unwrap_or(&text).to_owned();
                let mut error = CallError::new("denied", reason, message, text);
                error.with_decision = true;
                self.error = Some(error);
                let mut action = self.enter(Event::Denied, 0, signal);
                action.failed_now = true;
                action
            }
        }
    }

    fn after_approval(&mut self, report: StepReport, facts: ReturnFacts, payload: &Value, signal: Signal, duration_ms: f64) -> Action {
        let (approval, arguments) = match report {
            StepReport::Returned => judge_approval(facts, payload),
            StepReport::Aborted => {
                self.note(|| crate::object! { "step" => "approval", "outcome" => "aborted", "durationMs" => duration_ms });
                return self.fail_aborted(signal);
            }
            _ => (Approval::Bad, false),
        };
        let named = match (approval, report) {
            (Approval::Once, _) => "allow_once",
            (Approval::Always, _) => "allow_always",
            (Approval::Session, _) => "allow_session",
            (Approval::Deny, _) => "deny",
            (Approval::DenyHalt, _) => "deny_halt",
            (Approval::Bad, StepReport::TimedOut) => "timeout",
            (Approval::Bad, _) => "failed",
        };
        self.note(|| {
            let mut step = crate::object! { "step" => "approval", "outcome" => named, "durationMs" => duration_ms };
            if let (true, Value::Object(fields)) = (arguments, &mut step) {
                fields.insert("scope", "arguments".into());
            }
            step
        });
        let mut action = match approval {
            Approval::Once | Approval::Always | Approval::Session => {
                let grant = approval != Approval::Once;
                self.grant_due = grant.then_some((arguments, approval == Approval::Session));
                let mut action = self.run_tool(signal);
                action.accepted = grant;
                return action;
            }
            Approval::Deny | Approval::DenyHalt => {
                let reason = if approval == Approval::DenyHalt { "ask_halt" } else { "ask_denied" };
                let message = payload.get("deny").and_then(Value::as_str).filter(|m| !m.is_empty()).unwrap_or(self.denied_by_default());
                let mut error = CallError::denied(reason, message.to_owned());
                error.with_decision = true;
                error.code = payload.get("code").and_then(Value::as_str).map(str::to_owned);
                self.error = Some(error);
                self.enter(Event::Denied, 0, signal)
            }
            Approval::Bad => {
                let verdict = Verdict::Failed;
                let cause = match report {
                    StepReport::Raised => "raise",
                    StepReport::TimedOut => "timeout",
                    _ => "bad_return",
                };
                let mut error = CallError::denied("ask_failed", cat!["the approval failed (", cause, ")"]);
                error.cause = Some(cause);
                error.with_decision = true;
                self.error = Some(error);
                let mut action = self.enter(Event::Denied, 0, signal);
                action.verdict = verdict;
                action
            }
        };
        action.failed_now = true;
        action
    }

    // ---- the tool ------------------------------------------------------------------------------

    fn run_tool(&mut self, signal: Signal) -> Action {
        if signal != Signal::Live {
            return self.fail_aborted(signal);
        }
        self.phase = Phase::Tool;
        Action::new(Op::RunTool, 0)
    }

    fn after_tool(&mut self, report: StepReport, payload: &Value, signal: Signal, duration_ms: f64) -> Action {
        let named = match report {
            StepReport::ToolReturned => "returned",
            StepReport::Aborted => "aborted",
            _ => "threw",
        };
        let step = match self.spec.subject {
            Subject::Tool => "tool",
            Subject::Resource => "read",
            Subject::Prompt => "get",
        };
        self.note(|| crate::object! { "step" => step, "outcome" => named, "durationMs" => duration_ms });
        match report {
            StepReport::ToolReturned if self.spec.output_schema => {
                if signal != Signal::Live {
                    return self.fail_aborted(signal);
                }
                self.phase = Phase::ValidateOutput;
                Action::new(Op::ValidateOutput, 0)
            }
            StepReport::ToolReturned => self.enter(Event::After, 0, signal),
            StepReport::Aborted => self.fail_aborted(signal),
            _ => {
                let message = payload.get("message").and_then(Value::as_str).unwrap_or("the tool failed").to_owned();
                self.error = Some(CallError::error("tool", "tool_error", message));
                let mut action = self.enter(Event::Error, 0, signal);
                action.failed_now = true;
                action
            }
        }
    }

    // ---- endings -------------------------------------------------------------------------------

    fn fail_aborted(&mut self, signal: Signal) -> Action {
        let error = match signal {
            Signal::TimedOut => CallError::error("aborted", "timeout", "Aborted (timeout)".to_owned()),
            _ => CallError::error("aborted", "aborted", "Aborted".to_owned()),
        };
        if !matches!(self.record.last(), Some(last) if last.get("step").and_then(Value::as_str) == Some("aborted")) {
            self.note(|| object_step("aborted"));
        }
        self.error = Some(error);
        // A dry run calls nothing the page wrote: no error hooks.
        let mut action = if self.spec.mode == Mode::Explain { self.finish() } else { self.enter(Event::Error, 0, signal) };
        action.failed_now = true;
        action
    }

    /// The TS layer reported something that cannot happen at this step: fail closed.
    fn internal_error(&mut self) -> Action {
        self.error = Some(CallError::error("tool", "internal_error", "internal error in webmcp-warden".to_owned()));
        let mut action = self.finish();
        action.failed_now = true;
        action
    }

    fn finish(&mut self) -> Action {
        self.phase = Phase::Done;
        Action::new(if self.error.is_none() { Op::FinishOk } else { Op::FinishError }, 0)
    }

    // ---- the answer ----------------------------------------------------------------------------

    /// Whether the call succeeded with nothing recorded: its outcome would only say `ok`, so
    /// the boundary answers it with no bytes (the hot path of every successful call).
    pub fn succeeded_quietly(&self) -> bool {
        self.mode() == Mode::Call && self.error.is_none() && !self.spec.observed
    }

    /// The call's end as the TS layer reads it: `{ ok: true }` or `{ ok: false, error, text,
    /// decision? }`, plus `record` when observed.
    pub fn outcome(&self) -> Value {
        let mut map = Map::new();
        match &self.error {
            None => map.insert("ok", true.into()),
            Some(error) => {
                map.insert("ok", false.into());
                let mut value = error.to_value();
                if let (true, Some(decision), Value::Object(fields)) = (error.with_decision, &self.decision, &mut value) {
                    fields.insert("decision", decision_value(decision));
                }
                map.insert("error", value);
                map.insert("text", error.text.as_str().into());
            }
        }
        if let Some(decision) = &self.decision {
            map.insert("decision", decision_value(decision));
        }
        if self.spec.observed {
            map.insert("record", Value::Array(self.record.clone()));
        }
        Value::Object(map)
    }

    /// What a dry run found: the decision (or what happens with no policy), every step, and
    /// one sentence saying what would happen.
    pub fn explanation(&self) -> Value {
        let mut steps = self.explain.clone();
        let decision = match &self.decision {
            Some(decision) => decision_value(decision),
            None => crate::object! {
                "effect" => "allow",
                "reason" => "default",
                "explanation" => "There is no policy: a call that passes the hooks and validation is allowed.",
            },
        };
        let mut policy_step = crate::object! { "step" => "policy", "decision" => decision.clone() };
        if self.skipped_predicates > 0 {
            if let Value::Object(fields) = &mut policy_step {
                fields.insert("functionPredicatesNotCalled", self.skipped_predicates.into());
            }
        }
        steps.push(policy_step);
        if self.decision.as_ref().is_some_and(|d| d.effect == Effect::Ask) {
            steps.push(crate::object! { "step" => "approval", "wouldAsk" => true, "approver" => self.spec.has_approver });
        }
        let invalid = self.explain.iter().any(|step| step.get("step").and_then(Value::as_str) == Some("validation") && step.get("ok") == Some(&Value::Bool(false)));
        let mut out = match decision {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        if invalid {
            let said = out.get("explanation").and_then(Value::as_str).unwrap_or_default().to_owned();
            out.insert("explanation", cat!["Validation would fail first (the tool would not run). Policy would then say: ", said].into());
        }
        out.insert("steps", Value::Array(steps));
        Value::Object(out)
    }

    // ---- the decision record ---------------------------------------------------------------------

    /// Records a step when the call is observed. The step is made only then: building a
    /// `Value` allocates, and most calls record nothing.
    fn note(&mut self, step: impl FnOnce() -> Value) {
        if self.spec.observed {
            self.record.push(step());
        }
    }

    fn note_hook(&mut self, event: Event, hook_id: &str, judged: Judged, cause: &'static str, duration_ms: f64, skipped: bool) {
        if !self.spec.observed {
            return;
        }
        let outcome = match judged {
            Judged::Nothing => "cont",
            Judged::Rewrite => "rewrite",
            Judged::Deny => "deny",
            Judged::Halt => "halt",
            Judged::Recover => "recover",
            Judged::Bad => cause,
        };
        let mut step = crate::object! { "step" => "hook", "event" => event.name(), "hookId" => hook_id, "outcome" => outcome, "durationMs" => duration_ms };
        // A failure the call went past (`onError: 'ignore'`, any error or denied hook).
        if skipped {
            if let Value::Object(fields) = &mut step {
                fields.insert("skipped", true.into());
            }
        }
        self.record.push(step);
    }

    fn note_validation(&mut self, target: &str, report: StepReport, payload: &Value) {
        if !self.spec.observed {
            return;
        }
        let mut step = crate::object! { "step" => "validation", "target" => target, "ok" => report == StepReport::Valid };
        if report != StepReport::Valid {
            let mut diagnostics = diagnostics_of(report, payload);
            // Paths name the caller's keys and messages may quote values (a Standard Schema's
            // own, `additionalProperties 'x'`, …): payload, not telemetry, unless payloads are
            // captured. What remains is the schema's keyword, and the message of a schema that
            // is not valid JSON Schema (the page's own schema, no argument in it).
            if !self.spec.capture_payloads {
                if let Value::Array(items) = &mut diagnostics {
                    for item in items {
                        if let Value::Object(fields) = item {
                            fields.remove("path");
                            if fields.get("keyword").and_then(Value::as_str) != Some("schema") {
                                fields.remove("message");
                            }
                        }
                    }
                }
            }
            if let Value::Object(fields) = &mut step {
                fields.insert("diagnostics", diagnostics);
            }
        }
        self.record.push(step);
    }

    /// A dry run lists the hooks that would run, none of them called.
    fn explain_hooks(&mut self) {
        let ids = |event: Event| {
            let mut ids = Vec::new();
            for hook in self.plan.hooks(event) {
                ids.push(Value::from(hook.id.as_str()));
            }
            Value::Array(ids)
        };
        let step = crate::object! {
            "step" => "hooks",
            "before" => ids(Event::Before),
            "after" => ids(Event::After),
            "error" => ids(Event::Error),
            "denied" => ids(Event::Denied),
            "note" => "not called in a dry run; before-hooks could rewrite or deny",
        };
        self.explain.push(step);
    }
}

/// The explanation of a call to a tool no agent can see (unknown, or hidden by the filter): what
/// any call to it would answer.
pub fn unknown_tool_explanation(name: &str) -> Value {
    let select = crate::object! { "step" => "select", "tool" => name, "found" => false };
    crate::object! {
        "effect" => "deny",
        "reason" => "unknown_tool",
        "explanation" => cat!["No visible tool is named \"", name, "\"; a call would fail as unknown."],
        "steps" => Value::Array(vec![select]),
    }
}

/// A decision as the TS layer reads it (`Decision::to_value`).
pub fn decision_value(decision: &Decision) -> Value {
    decision.to_value()
}

/// The failure of a hook in the before role (the call fails) or the after role (the result is
/// withheld).
fn hook_failed(event: Event, role: Event, hook_id: String, cause: &'static str) -> CallError {
    let message = match role {
        Event::After => cat!["result withheld (after hook \"", hook_id, "\" failed)"],
        _ => cat![event.name(), " hook \"", hook_id, "\" failed (", cause, ")"],
    };
    let mut error = CallError::error("hook", "hook_failed", message);
    error.hook_id = Some(hook_id);
    error.cause = Some(cause);
    error
}

fn object_step(name: &str) -> Value {
    crate::object! { "step" => name }
}

fn verdict_of(judged: Judged) -> Verdict {
    match judged {
        Judged::Nothing => Verdict::Cont,
        Judged::Rewrite => Verdict::Rewrite,
        Judged::Deny => Verdict::Deny,
        Judged::Halt => Verdict::Halt,
        Judged::Recover => Verdict::Recover,
        Judged::Bad => Verdict::Failed,
    }
}

/// The diagnostics a validation report carries: the payload's list, one for a schema that is
/// not valid, or one for a validator that threw (what it threw is never quoted).
fn diagnostics_of(report: StepReport, payload: &Value) -> Value {
    match report {
        StepReport::Raised => Value::Array(vec![crate::object! { "path" => "", "keyword" => "standard", "message" => "could not be validated: the validator threw" }]),
        StepReport::InvalidSchema => {
            let why = payload.get("message").and_then(Value::as_str).unwrap_or("the schema cannot be compiled");
            let which = payload.get("which").and_then(Value::as_str).unwrap_or("schema");
            Value::Array(vec![crate::object! { "path" => "", "keyword" => "schema", "message" => cat![which, " is not valid JSON Schema: ", why] }])
        }
        _ => payload.get("diagnostics").cloned().unwrap_or(Value::Array(Vec::new())),
    }
}

/// How many diagnostics [`summary`] spells out before `; … (N more)`.
pub const SUMMARY_ITEMS: usize = 5;

/// `Validation failed: <path> <message>; …`: the root is `(root)`, a `required` problem is
/// shown at the missing property (`/q is required`), at most [`SUMMARY_ITEMS`] items and then
/// `; … (N more)`. The one place this sentence is written, for JSON Schema and Standard Schema.
pub fn summary(diagnostics: &Value) -> String {
    let items = diagnostics.as_array().map(Vec::as_slice).unwrap_or_default();
    if items.is_empty() {
        return "Validation failed".to_owned();
    }
    let mut text = "Validation failed: ".to_owned();
    for (index, item) in items.iter().take(SUMMARY_ITEMS).enumerate() {
        if index > 0 {
            text.push_str("; ");
        }
        text.push_str(&summary_item(item));
    }
    if items.len() > SUMMARY_ITEMS {
        text.push_str("; … (");
        text.push_str(&decimal_usize(items.len().saturating_sub(SUMMARY_ITEMS)));
        text.push_str(" more)");
    }
    text
}

/// `name` as a JSON pointer token: `~` written `~0`, `/` written `~1` (what
/// `.replace('~', "~0").replace('/', "~1")` writes, in one pass with no `char` searcher).
fn pointer_token(name: &str) -> String {
    let mut token = String::with_capacity(name.len());
    for c in name.chars() {
        match c {
            '~' => token.push_str("~0"),
            '/' => token.push_str("~1"),
            c => token.push(c),
        }
    }
    token
}

fn summary_item(item: &Value) -> String {
    let path = item.get("path").and_then(Value::as_str).unwrap_or_default();
    let message = item.get("message").and_then(Value::as_str).unwrap_or("is invalid");
    if item.get("keyword").and_then(Value::as_str) == Some("required") {
        if let Some(name) = message.strip_prefix("is required: \"").and_then(|rest| rest.strip_suffix("\"")) {
            if crate::strs::find_byte(name, b'"').is_none() && crate::strs::find_byte(name, b'\\').is_none() {
                return cat![path, "/", pointer_token(name), " is required"];
            }
        }
    }
    cat![if path.is_empty() { "(root)" } else { path }, " ", message]
}
