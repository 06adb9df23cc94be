//! The step machine of one governed call: the core says what to do next, the TS layer does it.
//!
//! Order (SPEC §1): before-hooks → input validation → policy (function predicates one at a
//! time) → approval → args digest check → the tool → output validation → after-hooks, or error
//! hooks on a failure, denied hooks on a denial. Steps a call does not need (no schema, no
//! policy) are skipped, so a hooks-only call never pays for them.
//!
//! The TS layer starts a call, performs each [`Action`] (calls hook N, runs the tool), and
//! reports what happened as an [`Outcome`]: only the *shape* of what a hook returned (nothing,
//! `{ input }`, a deny, …), never the values, which stay in JS. The machine decides what that
//! shape means for the event (a `halt` from an after-hook is a bad return; an allow is always a
//! bad return, HK-5) and which step comes next. It never calls JS and never awaits, so it is
//! testable with plain `cargo test` and cannot be re-entered.

use std::rc::Rc;

use serde::Serialize;

use crate::digest::args_digest;
use crate::hooks::{Event, OnError};
use crate::plan::Plan;
use crate::policy::{settle_with_grant, settle_without_approver, Decision, Effect, EvalStep, Evaluation, Policy, PredicateResult};

/// What the TS layer saw when it performed the last action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The call is starting.
    Start = 0,
    /// A hook returned `undefined` or `null`.
    Nothing = 1,
    /// A hook returned `{ input }`.
    Input = 2,
    /// A hook returned `{ output }`.
    Output = 3,
    /// A hook returned `{ action: 'deny', message?, code? }`.
    Deny = 4,
    /// A hook returned `{ action: 'halt', result }`.
    Halt = 5,
    /// A hook returned `{ action: 'recover', result }`.
    Recover = 6,
    /// A hook tried to allow (`{ allow }` or `{ action: 'allow' }`): never permitted (HK-5).
    Allow = 7,
    /// A hook returned anything else.
    BadReturn = 8,
    /// A hook threw or its promise rejected.
    Raise = 9,
    /// A hook outlived its deadline.
    Timeout = 10,
    /// The call's signal was aborted before or while performing the step.
    Aborted = 11,
    /// The tool returned a value.
    ToolReturned = 12,
    /// The tool threw or its promise rejected.
    ToolThrew = 13,
    /// The arguments (or the structured result) are valid.
    Valid = 14,
    /// The arguments (or the structured result) are invalid, or JSON cannot carry them.
    Invalid = 15,
    /// The tool's schema itself is not valid JSON Schema.
    InvalidSchema = 16,
    /// A policy function predicate returned `true`.
    PredicateTrue = 17,
    /// A policy function predicate returned `false`.
    PredicateFalse = 18,
    /// A policy function predicate threw, timed out or returned a non-boolean.
    PredicateFailed = 19,
    /// The approver answered `{ allow: 'once' }`.
    ApproveOnce = 20,
    /// The approver answered `{ allow: 'always' }`.
    ApproveAlways = 21,
    /// The approver answered `{ deny: reason }`.
    ApproveDeny = 22,
    /// The approver answered `{ deny: reason, halt: true }`.
    ApproveHalt = 23,
    /// The arguments' digest right before the tool is the one policy saw.
    ArgsSame = 24,
    /// The arguments changed after policy and the approver saw them.
    ArgsChanged = 25,
}

impl Outcome {
    /// Decodes the number the TS layer sends.
    pub fn from_code(code: u32) -> Option<Outcome> {
        use Outcome::*;
        [
            Start, Nothing, Input, Output, Deny, Halt, Recover, Allow, BadReturn, Raise, Timeout, Aborted, ToolReturned, ToolThrew,
            Valid, Invalid, InvalidSchema, PredicateTrue, PredicateFalse, PredicateFailed, ApproveOnce, ApproveAlways,
            ApproveDeny, ApproveHalt, ArgsSame, ArgsChanged,
        ]
            .into_iter()
            .find(|outcome| *outcome as u32 == code)
    }
}

/// What the TS layer must do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Call the hook stored under `handle` for `event` and report its outcome.
    CallHook {
        /// The event, which decides the context and the return contract.
        event: Event,
        /// The hook's function handle.
        handle: u32,
    },
    /// Call the tool with the current input and report whether it returned or threw.
    RunTool,
    /// The call is over; `ok` says whether the current output is the answer.
    Finish {
        /// `true`: normalize the current output. `false`: read the error with [`Call::error`].
        ok: bool,
    },
    /// Validate the current input against the tool's input schema; report `Valid`, `Invalid`
    /// or `InvalidSchema`.
    ValidateInput,
    /// Start the policy evaluation with the call's facts (`Engine::policy_start`).
    EvaluatePolicy,
    /// Call the policy function predicate stored under `handle`; report its result.
    Predicate {
        /// The predicate's function handle.
        handle: u32,
    },
    /// Ask the approver (`onAsk`) and report the shape of its answer.
    Approve,
    /// Send the final arguments again (`Engine::check_args`): the digest must be unchanged.
    CheckArgs,
    /// Validate the result's `structuredContent` against the tool's output schema.
    ValidateOutput,
}

impl Action {
    /// Packs the action into one number, so a step crosses the boundary as a scalar: the
    /// opcode in bits 0–3, bit 4 set when the value the last reported step returned takes
    /// effect (see [`Call::accepted`]), the event (or, for `Finish`, `ok`) in bits 5–7, and a
    /// function handle from bit 8.
    pub fn encode(self, accepted: bool) -> u32 {
        let accepted = u32::from(accepted) << 4;
        let (op, field, handle) = match self {
            Action::CallHook { event, handle } => (1, event as u32, handle),
            Action::RunTool => (2, 0, 0),
            Action::Finish { ok } => (3, u32::from(ok), 0),
            Action::ValidateInput => (4, 0, 0),
            Action::EvaluatePolicy => (5, 0, 0),
            Action::Predicate { handle } => (6, 0, handle),
            Action::Approve => (7, 0, 0),
            Action::CheckArgs => (8, 0, 0),
            Action::ValidateOutput => (9, 0, 0),
        };
        op | accepted | (field << 5) | (handle << 8)
    }
}

/// What a call needs to know of the page's governance when it starts.
#[derive(Debug, Clone, Default)]
pub struct Governance {
    /// The tool has an input schema to validate against.
    pub validate_input: bool,
    /// The tool has an output schema to validate `structuredContent` against.
    pub validate_output: bool,
    /// The page's policy, if it has one.
    pub policy: Option<Rc<Policy>>,
    /// An approver settles asks (`onAsk`, or a React provider's approver).
    pub has_approver: bool,
}

/// Why a call failed, as `invokeTool` reports it (SPEC §10).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CallError {
    /// `not_found | hook | validation | denied | tool | aborted`.
    pub kind: &'static str,
    /// The finer reason, such as `hook_failed` or `hook_denied`.
    pub reason: &'static str,
    /// The hook that decided, when one did.
    #[serde(rename = "hookId", skip_serializing_if = "Option::is_none")]
    pub hook_id: Option<String>,
    /// How the hook failed: `raise`, `timeout` or `bad_return`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cause: Option<&'static str>,
    /// The text the agent reads, when the core can say it; `None` when it comes from a JS value
    /// (the tool's error message, a deny's message).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// Where the call stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Hooks(Event, usize),
    ValidateInput,
    Policy,
    Predicate(u32),
    Approve,
    CheckArgs,
    Tool,
    ValidateOutput,
    Done,
}

/// One call in progress.
#[derive(Debug, Clone)]
pub struct Call {
    plan: Rc<Plan>,
    phase: Phase,
    error: Option<CallError>,
    /// Set once an after-hook withheld the result: the call is over whatever comes next.
    withheld: bool,
    /// Whether the value the last hook returned takes effect.
    accepted: bool,
    tool: u32,
    governance: Governance,
    evaluation: Option<Evaluation>,
    decision: Option<Decision>,
    /// The canonical JSON text (written by the TS layer) of the final arguments policy saw. It
    /// is sent only when something needs it (the approver, a predicate, arguments whose text
    /// changed before the tool), so an allowed call never pays for canonicalizing and hashing.
    canonical: Option<String>,
    args_digest: Option<String>,
    /// A live grant settles an ask.
    live_grant: bool,
}

impl Call {
    /// A call of `tool` that will follow `plan`, governed as `governance` says.
    pub fn new(plan: Rc<Plan>, tool: u32, governance: Governance) -> Call {
        Call {
            plan,
            tool,
            phase: Phase::Hooks(Event::Before, 0),
            error: None,
            withheld: false,
            accepted: false,
            governance,
            evaluation: None,
            decision: None,
            canonical: None,
            args_digest: None,
            live_grant: false,
        }
    }

    /// The engine's handle of the called tool.
    pub fn tool(&self) -> u32 {
        self.tool
    }

    /// The policy decision, once there is one.
    pub fn decision(&self) -> Option<&Decision> {
        self.decision.as_ref()
    }

    /// The digest of the arguments policy saw.
    pub fn args_digest(&mut self) -> Option<&str> {
        if self.args_digest.is_none() {
            self.args_digest = self.canonical.as_deref().map(args_digest);
        }
        self.args_digest.as_deref()
    }

    /// Records the canonical JSON text of the arguments policy saw, the first time the TS
    /// layer sends it (later texts are ignored: the first one is what the digest covers; the
    /// policy step starts afresh).
    pub fn provide_canonical(&mut self, canonical: &str) {
        if self.canonical.is_none() {
            self.canonical = Some(canonical.to_owned());
        }
    }

    /// Whether `canonical` (the canonical JSON text of the arguments about to reach the tool)
    /// is the text policy saw: equal texts are equal digests, so nothing is hashed here.
    pub fn same_arguments(&self, canonical: &str) -> bool {
        self.canonical.as_deref() == Some(canonical)
    }

    /// The page's policy, when the call is at its policy step.
    pub fn policy_due(&self) -> Option<Rc<Policy>> {
        match self.phase {
            Phase::Policy => self.governance.policy.clone(),
            _ => None,
        }
    }

    /// Starts the policy evaluation built by the engine from the call's facts.
    pub fn start_policy(&mut self, evaluation: Evaluation, canonical: Option<String>, live_grant: bool) -> Action {
        if self.phase != Phase::Policy {
            return self.internal_error();
        }
        self.evaluation = Some(evaluation);
        self.canonical = canonical;
        self.live_grant = live_grant;
        self.drive_policy()
    }

    /// Whether the call waits for its arguments to be checked against the digest.
    pub fn checking_args(&self) -> bool {
        self.phase == Phase::CheckArgs
    }

    /// Why the call failed, once it has.
    pub fn error(&self) -> Option<&CallError> {
        self.error.as_ref()
    }

    /// The id of the hook the last [`Action::CallHook`] named.
    pub fn current_hook_id(&self) -> Option<&str> {
        match self.phase {
            Phase::Hooks(event, position) => self.plan.hook(event, position).map(|hook| hook.id.as_str()),
            _ => None,
        }
    }

    /// Whether the value the last reported hook returned takes effect: the rewritten input or
    /// output, the deny's message, the halt or recover result. The TS layer holds those values
    /// and applies one only when the core accepted its shape for that event.
    pub fn accepted(&self) -> bool {
        self.accepted
    }

    /// Feeds the outcome of the last action and returns the next one.
    pub fn step(&mut self, outcome: Outcome) -> Action {
        self.accepted = matches!(
            (self.phase, outcome),
            (Phase::Hooks(Event::Before, _), Outcome::Input | Outcome::Deny | Outcome::Halt)
                | (Phase::Hooks(Event::After, _), Outcome::Output)
                | (Phase::Hooks(Event::Error, _), Outcome::Recover)
                | (Phase::Approve, Outcome::ApproveAlways | Outcome::ApproveDeny | Outcome::ApproveHalt)
        );
        if outcome == Outcome::Start {
            return self.enter(Event::Before, 0);
        }
        if outcome == Outcome::Aborted && matches!(self.phase, Phase::ValidateInput | Phase::Policy | Phase::Predicate(_) | Phase::Approve | Phase::CheckArgs | Phase::ValidateOutput) {
            return self.fail_aborted();
        }
        match self.phase {
            Phase::Hooks(event, position) => self.after_hook(event, position, outcome),
            Phase::ValidateInput => self.after_validation(outcome, "invalid_arguments"),
            // Only reported when the arguments cannot be sent to the core as JSON.
            Phase::Policy => self.after_validation(outcome, "invalid_arguments"),
            Phase::Predicate(handle) => self.after_predicate(handle, outcome),
            Phase::Approve => self.after_approval(outcome),
            Phase::CheckArgs => self.after_args_check(outcome),
            Phase::Tool => self.after_tool(outcome),
            Phase::ValidateOutput => self.after_validation(outcome, "invalid_structured_content"),
            Phase::Done => Action::Finish { ok: self.error.is_none() },
        }
    }

    /// Moves to hook `position` of `event`, or past the event when its list is exhausted.
    fn enter(&mut self, event: Event, position: usize) -> Action {
        match self.plan.hook(event, position) {
            Some(hook) => {
                self.phase = Phase::Hooks(event, position);
                Action::CallHook { event, handle: hook.handle }
            }
            None => self.event_done(event),
        }
    }

    fn event_done(&mut self, event: Event) -> Action {
        match event {
            // Then input validation, policy, approval and the args digest check, in that
            // order (SPEC §1), before the tool.
            Event::Before => self.validate_input(),
            Event::After | Event::Error | Event::Denied | Event::ToolsListed => self.finish(),
        }
    }

    fn finish(&mut self) -> Action {
        self.phase = Phase::Done;
        Action::Finish { ok: self.error.is_none() }
    }

    fn after_hook(&mut self, event: Event, position: usize, outcome: Outcome) -> Action {
        let next = position.saturating_add(1);
        let hook_id = || self.plan.hook(event, position).map(|hook| hook.id.clone());
        let on_error = self.plan.hook(event, position).map_or(OnError::Fail, |hook| hook.on_error);
        match event {
            Event::Before => match outcome {
                Outcome::Nothing | Outcome::Input => self.enter(Event::Before, next),
                Outcome::Deny => {
                    self.error = Some(CallError { kind: "denied", reason: "hook_denied", hook_id: hook_id(), cause: None, text: None });
                    self.enter(Event::Denied, 0)
                }
                // Halt answers the call: no more before-hooks, no policy, no tool; after-hooks
                // see the halt result as the output.
                Outcome::Halt => self.enter(Event::After, 0),
                Outcome::Aborted => self.fail_aborted(),
                failure => {
                    let cause = failure_cause(failure);
                    let id = hook_id().unwrap_or_default();
                    self.error = Some(CallError {
                        kind: "hook",
                        reason: "hook_failed",
                        text: Some(format!("Error: before hook \"{id}\" failed ({cause})")),
                        hook_id: Some(id),
                        cause: Some(cause),
                    });
                    self.enter(Event::Error, 0)
                }
            },
            Event::After => match outcome {
                Outcome::Nothing | Outcome::Output => self.enter(Event::After, next),
                Outcome::Aborted => self.fail_aborted(),
                failure if on_error == OnError::Ignore => {
                    let _ = failure;
                    self.enter(Event::After, next)
                }
                failure => {
                    // Fail closed: the raw result is dropped, and nothing after this runs on it.
                    let id = hook_id().unwrap_or_default();
                    self.withheld = true;
                    self.error = Some(CallError {
                        kind: "hook",
                        reason: "hook_failed",
                        text: Some(format!("Error: result withheld (after hook \"{id}\" failed)")),
                        hook_id: Some(id),
                        cause: Some(failure_cause(failure)),
                    });
                    self.finish()
                }
            },
            Event::Error => match outcome {
                // Recover turns the error into a result and ends the error chain.
                Outcome::Recover => {
                    self.error = None;
                    self.finish()
                }
                // Anything else, including a failure, leaves the original error standing.
                _ => self.enter(Event::Error, next),
            },
            Event::Denied | Event::ToolsListed => self.enter(event, next),
        }
    }

    fn validate_input(&mut self) -> Action {
        if self.governance.validate_input {
            self.phase = Phase::ValidateInput;
            return Action::ValidateInput;
        }
        self.evaluate_policy()
    }

    fn evaluate_policy(&mut self) -> Action {
        if self.governance.policy.is_some() {
            self.phase = Phase::Policy;
            return Action::EvaluatePolicy;
        }
        self.run_tool()
    }

    fn run_tool(&mut self) -> Action {
        self.phase = Phase::Tool;
        Action::RunTool
    }

    /// After input or output validation (or arguments JSON cannot carry, at the policy step).
    fn after_validation(&mut self, outcome: Outcome, invalid_reason: &'static str) -> Action {
        let output = self.phase == Phase::ValidateOutput;
        match outcome {
            Outcome::Valid if output => self.enter(Event::After, 0),
            Outcome::Valid if self.phase == Phase::ValidateInput => self.evaluate_policy(),
            Outcome::InvalidSchema => self.fail("validation", "invalid_schema", None),
            // The TS layer holds the diagnostics and writes the agent's text from them.
            Outcome::Invalid => self.fail("validation", invalid_reason, None),
            _ => self.internal_error(),
        }
    }

    fn drive_policy(&mut self) -> Action {
        let Some(evaluation) = self.evaluation.as_mut() else { return self.internal_error() };
        match evaluation.step() {
            EvalStep::NeedPredicate { handle, .. } => {
                self.phase = Phase::Predicate(handle);
                Action::Predicate { handle }
            }
            EvalStep::Decided(decision) => {
                self.evaluation = None;
                self.decided(decision)
            }
        }
    }

    fn after_predicate(&mut self, handle: u32, outcome: Outcome) -> Action {
        let result = match outcome {
            Outcome::PredicateTrue => PredicateResult::True,
            Outcome::PredicateFalse => PredicateResult::False,
            // A throw, a timeout or a non-boolean: the evaluation applies fail-closed rules.
            _ => PredicateResult::Failed,
        };
        if let Some(evaluation) = self.evaluation.as_mut() {
            evaluation.predicate_result(handle, result);
        }
        self.drive_policy()
    }

    /// Deny > pin > ask > allow > default has decided; settle an ask by a grant, or deny it
    /// when nobody can approve.
    fn decided(&mut self, decision: Decision) -> Action {
        let decision = match (decision.effect, self.live_grant, self.governance.has_approver) {
            (Effect::Ask, true, _) => settle_with_grant(&decision),
            (Effect::Ask, false, false) => settle_without_approver(&decision),
            _ => decision,
        };
        let effect = decision.effect;
        let reason = decision.reason.name();
        let text = decision.denial_text();
        self.decision = Some(decision);
        match effect {
            Effect::Allow => self.check_args(),
            Effect::Ask => {
                self.phase = Phase::Approve;
                Action::Approve
            }
            Effect::Deny => {
                self.error = Some(CallError { kind: "denied", reason, hook_id: None, cause: None, text: Some(text) });
                self.enter(Event::Denied, 0)
            }
        }
    }

    fn after_approval(&mut self, outcome: Outcome) -> Action {
        match outcome {
            Outcome::ApproveOnce | Outcome::ApproveAlways => self.check_args(),
            // The approver's reason is a JS value: the TS layer writes `Denied: <reason>`.
            Outcome::ApproveDeny | Outcome::ApproveHalt => {
                let reason = if outcome == Outcome::ApproveHalt { "ask_halt" } else { "ask_denied" };
                self.error = Some(CallError { kind: "denied", reason, hook_id: None, cause: None, text: None });
                self.enter(Event::Denied, 0)
            }
            failure => {
                let cause = failure_cause(failure);
                self.error = Some(CallError {
                    kind: "denied",
                    reason: "ask_failed",
                    hook_id: None,
                    cause: Some(cause),
                    text: Some(format!("Denied: the approval failed ({cause})")),
                });
                self.enter(Event::Denied, 0)
            }
        }
    }

    fn check_args(&mut self) -> Action {
        self.phase = Phase::CheckArgs;
        Action::CheckArgs
    }

    fn after_args_check(&mut self, outcome: Outcome) -> Action {
        match outcome {
            Outcome::ArgsSame => self.run_tool(),
            _ => {
                let text = "Error: the arguments changed after policy and the approver saw them".to_owned();
                self.fail("hook", "args_changed", Some(text))
            }
        }
    }

    /// Fails the call and runs the error hooks.
    fn fail(&mut self, kind: &'static str, reason: &'static str, text: Option<String>) -> Action {
        self.error = Some(CallError { kind, reason, hook_id: None, cause: None, text });
        self.enter(Event::Error, 0)
    }

    /// The TS layer reported something that cannot happen at this step: fail closed.
    fn internal_error(&mut self) -> Action {
        let text = Some("Error: internal error in webmcp-warden".to_owned());
        self.error = Some(CallError { kind: "tool", reason: "internal_error", hook_id: None, cause: None, text });
        self.finish()
    }

    fn after_tool(&mut self, outcome: Outcome) -> Action {
        match outcome {
            Outcome::ToolReturned if self.governance.validate_output => {
                self.phase = Phase::ValidateOutput;
                Action::ValidateOutput
            }
            Outcome::ToolReturned => self.enter(Event::After, 0),
            Outcome::Aborted => self.fail_aborted(),
            _ => {
                self.error = Some(CallError { kind: "tool", reason: "tool_error", hook_id: None, cause: None, text: None });
                self.enter(Event::Error, 0)
            }
        }
    }

    fn fail_aborted(&mut self) -> Action {
        self.error = Some(CallError {
            kind: "aborted",
            reason: "aborted",
            hook_id: None,
            cause: None,
            text: Some("Error: Aborted".to_owned()),
        });
        self.enter(Event::Error, 0)
    }

    /// Whether an after-hook withheld the result.
    pub fn withheld(&self) -> bool {
        self.withheld
    }
}

/// The `cause` of a hook failure as SPEC §4 names it.
fn failure_cause(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Raise => "raise",
        Outcome::Timeout => "timeout",
        _ => "bad_return",
    }
}
