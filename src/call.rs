//! The step machine of one governed call: the core says what to do next, the TS layer does it.
//!
//! The TS layer starts a call, performs each [`Action`] (calls hook N, runs the tool), and
//! reports what happened as an [`Outcome`]: only the *shape* of what a hook returned (nothing,
//! `{ input }`, a deny, …), never the values, which stay in JS. The machine decides what that
//! shape means for the event (a `halt` from an after-hook is a bad return; an allow is always a
//! bad return, HK-5) and which step comes next. It never calls JS and never awaits, so it is
//! testable with plain `cargo test` and cannot be re-entered.

use std::rc::Rc;

use serde::Serialize;

use crate::hooks::{Event, OnError};
use crate::plan::Plan;

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
}

impl Outcome {
    /// Decodes the number the TS layer sends.
    pub fn from_code(code: u32) -> Option<Outcome> {
        use Outcome::*;
        [Start, Nothing, Input, Output, Deny, Halt, Recover, Allow, BadReturn, Raise, Timeout, Aborted, ToolReturned, ToolThrew]
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
}

impl Action {
    /// Packs the action into one number, so a step crosses the boundary as a scalar: the
    /// opcode in bits 0–2, bit 3 set when the value the last hook returned takes effect (see
    /// [`Call::accepted`]), the event in bits 4–7 and the hook handle from bit 8.
    pub fn encode(self, accepted: bool) -> u32 {
        let accepted = u32::from(accepted) << 3;
        match self {
            Action::CallHook { event, handle } => 1 | accepted | ((event as u32) << 4) | (handle << 8),
            Action::RunTool => 2 | accepted,
            Action::Finish { ok } => 3 | accepted | (u32::from(ok) << 4),
        }
    }
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
    Tool,
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
}

impl Call {
    /// A call that will follow `plan`.
    pub fn new(plan: Rc<Plan>) -> Call {
        Call { plan, phase: Phase::Hooks(Event::Before, 0), error: None, withheld: false, accepted: false }
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
        );
        if outcome == Outcome::Start {
            return self.enter(Event::Before, 0);
        }
        match self.phase {
            Phase::Hooks(event, position) => self.after_hook(event, position, outcome),
            Phase::Tool => self.after_tool(outcome),
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
            // Input validation, policy, approval and the args digest check go here, in that
            // order (SPEC §1), before the tool.
            Event::Before => {
                self.phase = Phase::Tool;
                Action::RunTool
            }
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

    fn after_tool(&mut self, outcome: Outcome) -> Action {
        match outcome {
            // Output validation goes here, before the after-hooks.
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
