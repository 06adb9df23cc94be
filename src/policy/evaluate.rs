//! The decision for one call, as a step machine: function predicates are JS, so when one is
//! needed the evaluation stops, the TS layer calls it, and feeds the result back.
//!
//! Everything the core can decide alone is decided when the evaluation starts: matchers and data
//! predicates of every rule that could matter, the pin and the new-tool gate. What is left is a
//! short queue of candidate rules that wait only on function predicates, ending in the decision
//! that applies if none of them matches. The evaluation therefore borrows nothing and can live
//! across boundary crossings.

use alloc::string::String;
use alloc::vec::Vec;

use crate::matcher::Target;

use super::decision::{Decision, FailedClosed, List, Pin, RuleRef};
use super::facts::{CallFacts, FingerprintState};
use super::predicate::all_of;
use super::Policy;

/// What a JS function predicate did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PredicateResult {
    /// Returned (or resolved to) `true`.
    True,
    /// Returned (or resolved to) `false`.
    False,
    /// Threw, rejected, timed out, or returned a non-boolean: the rule does not match in
    /// `allow`, and the predicate counts as holding in `deny` and `ask` (fail closed).
    Failed,
}

impl PredicateResult {
    /// Decodes the number the TS layer sends: 0 false, 1 true, 2 failed.
    pub fn from_code(code: u32) -> Option<PredicateResult> {
        match code {
            0 => Some(PredicateResult::False),
            1 => Some(PredicateResult::True),
            2 => Some(PredicateResult::Failed),
            _ => None,
        }
    }
}

/// What the TS layer must do next.
#[derive(Debug, Clone, PartialEq)]
pub enum EvalStep {
    /// Call the function predicate stored under `handle` (for `rule`) and report the result
    /// with [`Evaluation::predicate_result`].
    NeedPredicate {
        /// The function's handle.
        handle: u32,
        /// The rule it belongs to, for the predicate's context and for logs.
        rule: RuleRef,
    },
    /// Policy has decided.
    Decided(Decision),
}

/// A rule whose matcher matched and whose data predicates held, waiting on its functions.
#[derive(Debug, Clone)]
struct Candidate {
    rule: RuleRef,
    rule_reason: Option<String>,
    functions: Vec<u32>,
    /// How many of `functions` have held so far.
    held: usize,
    /// Whether part of the rule could not be decided and was counted as holding (deny and ask
    /// only): a pattern before the functions, or one of them failing.
    failed_closed: Option<FailedClosed>,
}

/// One policy evaluation in progress.
#[derive(Debug, Clone)]
pub struct Evaluation {
    /// Rules that wait on function predicates, in precedence order.
    candidates: Vec<Candidate>,
    /// Index of the candidate being decided.
    current: usize,
    /// The decision when every candidate turns out not to match.
    otherwise: Decision,
    /// Function results so far: a handle is never asked twice in one evaluation.
    answers: Vec<(u32, PredicateResult)>,
    /// The handle asked for and not yet answered.
    pending: Option<u32>,
}

impl Evaluation {
    /// Starts evaluating `policy` for a call: deny > pin > ask > allow > default, the first
    /// matching rule of a list deciding. Data predicates are all decided here, so a function
    /// is only asked for when its rule would otherwise decide.
    pub fn new(policy: &Policy, facts: CallFacts<'_>) -> Evaluation {
        let matched = MatchedRules::of(policy, facts.server, facts.name);
        Evaluation::with_matched(policy, facts, &matched)
    }

    /// [`Evaluation::new`] with the rules whose matchers select the tool already known (see
    /// [`MatchedRules`]), so a call only evaluates the predicates of those rules.
    pub fn with_matched(policy: &Policy, facts: CallFacts<'_>, matched: &MatchedRules) -> Evaluation {
        let mut candidates = Vec::new();
        let otherwise = plan(policy, &facts, matched, &mut candidates);
        Evaluation {
            candidates,
            current: 0,
            otherwise,
            answers: Vec::new(),
            pending: None,
        }
    }

    /// The next step. Asking again before answering repeats the same request; after the
    /// decision, every call returns it again.
    pub fn step(&mut self) -> EvalStep {
        loop {
            let Some(candidate) = self.candidates.get_mut(self.current) else {
                return EvalStep::Decided(self.otherwise.clone());
            };
            let Some(&handle) = candidate.functions.get(candidate.held) else {
                return EvalStep::Decided(Decision::by_rule(
                    candidate.rule.clone(),
                    candidate.rule_reason.clone(),
                    candidate.failed_closed,
                ));
            };
            let answer = self
                .answers
                .iter()
                .find(|(asked, _)| *asked == handle)
                .map(|(_, result)| *result);
            match (answer, candidate.rule.list) {
                (None, _) => {
                    self.pending = Some(handle);
                    return EvalStep::NeedPredicate {
                        handle,
                        rule: candidate.rule.clone(),
                    };
                }
                (Some(PredicateResult::True), _) => {
                    candidate.held = candidate.held.saturating_add(1)
                }
                (Some(PredicateResult::Failed), List::Deny | List::Ask) => {
                    candidate.failed_closed = Some(FailedClosed::Function);
                    candidate.held = candidate.held.saturating_add(1);
                }
                (Some(PredicateResult::False), _)
                | (Some(PredicateResult::Failed), List::Allow | List::Limits) => {
                    self.current = self.current.saturating_add(1);
                }
            }
        }
    }

    /// Reports what the predicate asked for last did. Returns `false` (and changes nothing)
    /// when `handle` is not the one asked for, so a confused caller cannot steer the decision.
    pub fn predicate_result(&mut self, handle: u32, result: PredicateResult) -> bool {
        if self.pending != Some(handle) {
            return false;
        }
        self.pending = None;
        self.answers.push((handle, result));
        true
    }
}

/// Decides everything that needs no JS. Pushes the candidates that wait on functions and
/// returns the decision that applies when none of them matches.
fn plan(policy: &Policy, facts: &CallFacts<'_>, matched: &MatchedRules, candidates: &mut Vec<Candidate>) -> Decision {
    if let Some(decision) = scan(policy, List::Deny, facts, matched, candidates) {
        return decision;
    }
    if let Some(decision) = gate(policy, facts) {
        return decision;
    }
    if let Some(decision) = scan(policy, List::Ask, facts, matched, candidates) {
        return decision;
    }
    if let Some(decision) = scan(policy, List::Allow, facts, matched, candidates) {
        return decision;
    }
    Decision::by_default(policy.default)
}

/// Walks one list: a rule that matches with no function predicates decides (later rules
/// cannot matter); one that matches but has functions becomes a candidate. A data predicate
/// that could not tell (a pattern that could not test its string) fails closed: the rule
/// applies in deny and ask, and not in allow.
fn scan(
    policy: &Policy,
    list: List,
    facts: &CallFacts<'_>,
    matched: &MatchedRules,
    candidates: &mut Vec<Candidate>,
) -> Option<Decision> {
    let rules = policy.rules(list);
    for &index in matched.list(list) {
        let Some(rule) = rules.get(index) else { continue };
        let closed = match (all_of(rule.data.iter().map(|predicate| predicate.holds(facts))), list) {
            (Ok(true), _) => None,
            (Err(why), List::Deny | List::Ask) => Some(why),
            (Ok(false), _) | (Err(_), List::Allow | List::Limits) => continue,
        };
        let rule_ref = RuleRef {
            list,
            index,
            id: rule.id.clone(),
            label: rule.label.clone(),
        };
        if rule.functions.is_empty() {
            return Some(Decision::by_rule(rule_ref, rule.reason.clone(), closed));
        }
        candidates.push(Candidate {
            rule: rule_ref,
            rule_reason: rule.reason.clone(),
            functions: rule.functions.clone(),
            held: 0,
            failed_closed: closed,
        });
    }
    None
}

/// Which rules' matchers select one tool, per list, in list order. A matcher depends only on
/// the tool's server and name, so this is fixed for a tool until the policy changes: the engine
/// computes it once per tool (a 1,000-rule policy then costs a call only the rules that
/// concern its tool) and the per-call work is the data predicates of those rules.
///
/// A `RegExp` matcher that could not test the name fails closed: the rule concerns the tool in
/// deny and ask, and not in allow.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MatchedRules {
    lists: [Vec<usize>; 3],
}

impl MatchedRules {
    /// The rules of `policy` whose matchers select the tool `name` on `server`.
    pub fn of(policy: &Policy, server: &str, name: &str) -> MatchedRules {
        let target = Target::new(server, name);
        let pick = |list: List| -> Vec<usize> {
            let unknown_counts = list != List::Allow;
            let mut picked = Vec::new();
            for (index, rule) in policy.rules(list).iter().enumerate() {
                if rule.matcher.test(&target).unwrap_or(unknown_counts) {
                    picked.push(index);
                }
            }
            picked
        };
        MatchedRules { lists: [pick(List::Deny), pick(List::Ask), pick(List::Allow)] }
    }

    fn list(&self, list: List) -> &[usize] {
        let slot = match list {
            List::Deny => 0,
            List::Ask => 1,
            List::Allow => 2,
            List::Limits => 3,
        };
        self.lists.get(slot).map_or(&[], Vec::as_slice)
    }
}

/// The pin and the new-tool gate, between deny and ask. A live grant for the current
/// fingerprint counts as an approval, so it opens both.
fn gate(policy: &Policy, facts: &CallFacts<'_>) -> Option<Decision> {
    if facts.live_grant {
        return None;
    }
    match (&facts.fingerprint, policy.pin, policy.allow_new_tools) {
        (
            FingerprintState::Changed {
                previous,
                current,
                changed,
            },
            Some(effect),
            _,
        ) => {
            let pin = Pin {
                previous: previous.clone(),
                current: current.clone(),
                changed: changed.clone(),
            };
            Some(Decision::by_pin(effect, facts.name, pin))
        }
        (FingerprintState::New, _, Some(effect)) => Some(Decision::new_tool(effect, facts.name)),
        _ => None,
    }
}

/// Drives an evaluation to its end with a synchronous answerer: for policies without function
/// predicates, dry runs that supply stand-in answers, and tests.
pub(crate) fn run(
    policy: &Policy,
    facts: CallFacts<'_>,
    mut answer: impl FnMut(u32, &RuleRef) -> PredicateResult,
) -> Decision {
    let mut evaluation = Evaluation::new(policy, facts);
    loop {
        match evaluation.step() {
            EvalStep::Decided(decision) => return decision,
            EvalStep::NeedPredicate { handle, rule } => {
                let result = answer(handle, &rule);
                evaluation.predicate_result(handle, result);
            }
        }
    }
}
