//! A listing: the `toolsListed` hooks run on the tools an agent would see, one at a time, as
//! the same kind of step machine as a call ([`crate::call`]: the same step reports, actions and
//! return judgement).
//!
//! Each hook is given the tools it matches that are still listed; it may return nothing (no
//! effect), or a subset of what it was given (same names, each once), possibly annotated: the
//! TS layer keeps the annotated objects, the machine keeps which tools remain. A hook that
//! throws, outlives its deadline or returns anything else fails the listing (never an empty
//! list), and the TS layer leaves the browser's registrations as they were.

use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use crate::call::{Action, Op, StepReport, Verdict};
use crate::hooks::Event;
use crate::returns::{is_listed_subset, judge_hook, Contract, Judged, Kind, ReturnFacts};
use crate::strs::cat;
use crate::value::{Map, Value};

/// One listing in progress.
#[derive(Debug)]
pub struct Listing {
    names: Vec<String>,
    listed: Vec<bool>,
    /// `(hook handle, hook id, indexes of the tools it matches)`, in run order.
    steps: Vec<(u32, String, Vec<u32>)>,
    at: usize,
    failure: Option<(String, &'static str)>,
    /// Hooks whose set was dropped while the listing was in flight.
    removed: Vec<u32>,
}

impl Listing {
    /// A listing of the tools `names` (by index) with the hooks `steps`.
    pub fn new(names: Vec<String>, steps: Vec<(u32, String, Vec<u32>)>) -> Listing {
        let listed = vec![true; names.len()];
        Listing { names, listed, steps, at: 0, failure: None, removed: Vec::new() }
    }

    /// Tells the listing that the hooks `handles` are gone (their set was dropped while it was
    /// in flight): it never asks for them, and reaching one fails the listing (cause
    /// `removed`), as any failing `toolsListed` hook does.
    pub fn forget_hooks(&mut self, handles: &[u32]) {
        for (handle, _, _) in &self.steps {
            if handles.contains(handle) && !self.removed.contains(handle) {
                self.removed.push(*handle);
            }
        }
    }

    /// The tools the current hook is given: indexes of the tools it matches still listed.
    pub fn given(&self) -> Vec<u32> {
        let mut given = Vec::new();
        if let Some((_, _, tools)) = self.steps.get(self.at) {
            for index in tools {
                if self.is_listed(*index) {
                    given.push(*index);
                }
            }
        }
        given
    }

    /// The id of the current hook, for telemetry.
    pub fn current_hook_id(&self) -> Option<&str> {
        self.steps.get(self.at).map(|(_, id, _)| id.as_str())
    }

    fn is_listed(&self, index: u32) -> bool {
        self.listed.get(index as usize).copied().unwrap_or(false)
    }

    /// Moves to the next hook that is given at least one tool, from `self.at` on.
    fn next(&mut self) -> Action {
        while let Some((handle, _, _)) = self.steps.get(self.at) {
            let handle = *handle;
            if !self.given().is_empty() {
                if self.removed.contains(&handle) {
                    let id = self.current_hook_id().unwrap_or_default().to_owned();
                    self.failure = Some((id, "removed"));
                    let mut action = plain(Op::FinishError, 0);
                    action.failed_now = true;
                    return action;
                }
                return plain(Op::CallHook, handle);
            }
            self.at = self.at.saturating_add(1);
        }
        plain(Op::FinishOk, 0)
    }

    /// Feeds the report of the current hook (`payload`: `{ names }` when it returned an
    /// array); answers the next action.
    pub fn step(&mut self, report: StepReport, facts: ReturnFacts, payload: &Value, contract: Contract, _duration_ms: f64) -> Action {
        if report == StepReport::Start {
            return self.next();
        }
        if self.failure.is_some() || self.steps.get(self.at).is_none() {
            return plain(if self.failure.is_some() { Op::FinishError } else { Op::FinishOk }, 0);
        }
        let judged = match report {
            StepReport::Returned if facts.kind() == Kind::Array => self.apply_subset(payload),
            StepReport::Returned if contract == Contract::Strict => match facts.kind() {
                Kind::Undefined | Kind::Null => Judged::Nothing,
                _ => Judged::Bad,
            },
            // Lenient: a value that means nothing has no effect; a key of another event fails.
            StepReport::Returned => match judge_hook(Event::ToolsListed, contract, facts) {
                Judged::Nothing => Judged::Nothing,
                _ => Judged::Bad,
            },
            _ => Judged::Bad,
        };
        let cause = match report {
            StepReport::Raised => "raise",
            StepReport::TimedOut => "timeout",
            StepReport::Aborted => "aborted",
            _ => "bad_return",
        };
        let verdict = match judged {
            Judged::Nothing => Verdict::Cont,
            Judged::Rewrite => Verdict::Rewrite,
            _ => Verdict::Failed,
        };
        let mut action = if judged == Judged::Bad {
            let id = self.current_hook_id().unwrap_or_default().to_owned();
            self.failure = Some((id, cause));
            let mut action = plain(Op::FinishError, 0);
            action.failed_now = true;
            action
        } else {
            self.at = self.at.saturating_add(1);
            self.next()
        };
        action.accepted = judged == Judged::Rewrite;
        action.verdict = verdict;
        action
    }

    /// Keeps the tools the hook returned among those it was given; anything that is not a
    /// subset (an unknown or repeated name, a non-string) is a bad return.
    fn apply_subset(&mut self, payload: &Value) -> Judged {
        let returned = payload.get("names").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        let given = self.given();
        let mut given_names: Vec<&str> = Vec::with_capacity(given.len());
        for index in &given {
            if let Some(name) = self.names.get(*index as usize) {
                given_names.push(name);
            }
        }
        if !is_listed_subset(&given_names, returned) {
            return Judged::Bad;
        }
        for index in given {
            let name = self.names.get(index as usize).map(String::as_str);
            let kept = returned.iter().any(|item| item.as_str() == name);
            if let Some(slot) = self.listed.get_mut(index as usize) {
                *slot = kept;
            }
        }
        Judged::Rewrite
    }

    /// `{ ok: true, listed: [indexes] }` or `{ ok: false, error: { hookId, cause, message } }`.
    pub fn outcome(&self) -> Value {
        let mut map = Map::new();
        match &self.failure {
            None => {
                map.insert("ok", true.into());
                let mut listed: Vec<Value> = Vec::new();
                for (index, kept) in (0u32..).zip(&self.listed) {
                    if *kept {
                        listed.push(Value::from(index));
                    }
                }
                map.insert("listed", Value::Array(listed));
            }
            Some((id, cause)) => {
                map.insert("ok", false.into());
                let message = cat!["toolsListed hook \"", id, "\" failed (", cause, ")"];
                map.insert("error", crate::object! { "hookId" => id.as_str(), "cause" => *cause, "message" => message });
            }
        }
        Value::Object(map)
    }
}

fn plain(op: Op, handle: u32) -> Action {
    Action { op, handle, accepted: false, failed_now: false, verdict: Verdict::None, decided: false }
}
