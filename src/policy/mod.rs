//! Policy: which calls are allowed, asked about or denied, and why (`docs/behaviour.md`, "Policy").
//!
//! [`Policy::compile`] checks and compiles the policy object the TS layer sends as a
//! [`Value`] (functions as handles, `RegExp`s as patterns).
//! [`Evaluation`] decides one call in the order deny > pin > ask > allow > default, stopping
//! to ask the TS layer whenever a JS function predicate must run. Settling an ask (approver,
//! grant) belongs to the call; [`settle_without_approver`] and [`settle_with_grant`] give the
//! resulting decisions. [`lint`] reports every problem of a policy plus rules that can never
//! fire; [`GrantBook`] keeps the grants `{ allow: 'always' }` recorded, with the clock passed in.
//!
//! Resources and prompts have sections of their own, `resources` and `prompts`: `{ deny, ask,
//! allow, default }` decided in the same order (no pins: they have no fingerprint baseline),
//! with `default` falling back to the policy's own. Rules of `resources` match the URI read
//! (URI matchers), rules of `prompts` the prompt's name. [`Policy::for_subject`] answers the
//! part that decides a call.
//!
//! Modules: `rule` and `predicate` parse, `json` holds pointers, `evaluate` decides,
//! `decision` is the data and its sentences, `grants` and `lint` stand apart.

use alloc::borrow::ToOwned;
use alloc::boxed::Box;
use alloc::vec::Vec;

mod decision;
mod evaluate;
mod grants;
mod json;
mod keys;
mod facts;
// Limits are decided in a wasm module of their own (`wasm/limits/`), which a page loads by
// importing `webmcp-warden/limits`; lint reads them too.
mod limits;
// Lint is a wasm module of its own (`wasm/lint/`): the core a page downloads at import does not
// carry it (`docs/behaviour.md`, "Policy").
mod lint;
mod predicate;
mod rule;

pub use decision::{
    settle_with_grant, settle_without_approver, Decision, Effect, List, Pin, Reason, RuleRef,
};
pub use evaluate::{EvalStep, Evaluation, MatchedRules, PredicateResult};
pub use facts::{CallFacts, FingerprintState};
pub use grants::{Grant, GrantBook, RevokeFilter};
pub use limits::{Held, Hit, Limit, LimitBook, LimitFacts, Limits, Verdict, MAX_KEYS, RING, SLOTS};
pub use lint::{lint, Diagnostic};

use crate::error::ConfigError;
use crate::hooks::Subject;
use crate::strs::{cat, decimal_usize};
use crate::value::{Map, Value};
use keys::report_unknown_keys;
use rule::{parse_rule, Rule};

/// The keys of a policy object. `limits` is read by the limits module (`limits.rs`), not here.
const POLICY_KEYS: [&str; 9] = ["deny", "ask", "allow", "default", "pin", "allowNewTools", "limits", "resources", "prompts"];

/// The keys of a `resources` or `prompts` section.
const SECTION_KEYS: [&str; 4] = ["deny", "ask", "allow", "default"];

/// A compiled policy.
#[derive(Debug, Clone)]
pub struct Policy {
    deny: Vec<Rule>,
    ask: Vec<Rule>,
    allow: Vec<Rule>,
    /// What applies when no rule matches (`default`, `ask` unless given).
    default: Effect,
    /// What a changed definition gets; `None` is `pin: false`.
    pin: Option<Effect>,
    /// What a new tool gets; `None` is `allowNewTools: true`.
    allow_new_tools: Option<Effect>,
    /// The `resources` and `prompts` sections (`None` inside a section).
    sections: Option<Box<[Policy; 2]>>,
}

impl Policy {
    /// Whether any rule reads the call's arguments (an `arg` predicate). When none does, the TS
    /// layer sends the policy step no arguments: parsing and encoding them is most of the step.
    pub fn reads_arguments(&self) -> bool {
        for rules in [&self.deny, &self.ask, &self.allow] {
            for rule in rules {
                for predicate in &rule.data {
                    if matches!(predicate, predicate::DataPredicate::Arg { .. }) {
                        return true;
                    }
                }
            }
        }
        self.sections.as_deref().is_some_and(|sections| sections.iter().any(Policy::reads_arguments))
    }

    /// The part of the policy that decides a call about `subject`: the policy itself for tools,
    /// its `resources` or `prompts` section otherwise (rules of that section only, its `default`
    /// or else the policy's, no pins).
    pub fn for_subject(&self, subject: Subject) -> &Policy {
        let index = match subject {
            Subject::Tool => return self,
            Subject::Resource => 0,
            Subject::Prompt => 1,
        };
        self.sections.as_deref().and_then(|sections| sections.get(index)).unwrap_or(self)
    }

    /// Compiles a policy object `{ deny, ask, allow, default, pin, allowNewTools }` as the TS
    /// layer sends it: a function predicate is a [`Value::Function`] handle, a `RegExp` a
    /// [`Value::Regex`], and a JS value JSON cannot say a [`Value::Unsupported`].
    ///
    /// # Errors
    /// The first problem found (unknown keys first, then `default`, `pin`, `allowNewTools`, then
    /// the rules in `deny`, `ask`, `allow` order), with `path` naming the entry, such as
    /// `deny[1].when[0]`. Codes: `invalid_policy`, `unknown_policy_key`, `invalid_rule`,
    /// `unknown_rule_key`, `invalid_matcher`, `invalid_predicate`, `unknown_predicate`,
    /// `invalid_pattern`. [`lint`] reports them all.
    pub fn compile(spec: &Value) -> Result<Policy, ConfigError> {
        let mut errors = Vec::new();
        let draft = parse(spec, &mut errors);
        match (errors.into_iter().next(), draft) {
            (Some(error), _) => Err(error),
            (None, Some(draft)) => Ok(draft.into_policy()),
            (None, None) => Err(ConfigError::new(
                "invalid_policy",
                "the policy could not be read".into(),
            )),
        }
    }

    /// Whether any rule has a JS function predicate, so an evaluation may need the TS layer.
    pub fn has_function_predicates(&self) -> bool {
        self.all_rules().any(|rule| !rule.functions.is_empty())
    }

    /// Every function handle the policy uses, each once, in rule order: the functions the TS
    /// layer must keep while this policy is in force.
    pub fn function_handles(&self) -> Vec<u32> {
        let mut handles: Vec<u32> = Vec::new();
        for handle in self
            .all_rules()
            .flat_map(|rule| rule.functions.iter().copied())
        {
            if !handles.contains(&handle) {
                handles.push(handle);
            }
        }
        handles
    }

    /// The effect when no rule matches.
    pub fn default_effect(&self) -> Effect {
        self.default
    }

    /// The effect a changed definition gets; `None` when `pin: false`.
    pub fn pin(&self) -> Option<Effect> {
        self.pin
    }

    /// The effect a new tool gets; `None` when `allowNewTools: true`.
    pub fn allow_new_tools(&self) -> Option<Effect> {
        self.allow_new_tools
    }

    /// How many rules a list holds.
    pub fn rule_count(&self, list: List) -> usize {
        self.rules(list).len()
    }

    /// Decides a call in one go, calling `answer` for each function predicate the evaluation
    /// needs (see [`Evaluation`] for the order and the fail-closed rule). For policies without
    /// functions, dry runs that supply stand-in answers, and tests.
    pub fn decide(
        &self,
        facts: CallFacts<'_>,
        answer: impl FnMut(u32, &RuleRef) -> PredicateResult,
    ) -> Decision {
        evaluate::run(self, facts, answer)
    }

    fn rules(&self, list: List) -> &[Rule] {
        match list {
            List::Deny => &self.deny,
            List::Ask => &self.ask,
            List::Allow => &self.allow,
            List::Limits => &[],
        }
    }

    fn all_rules(&self) -> Box<dyn Iterator<Item = &Rule> + '_> {
        let own = self.deny.iter().chain(&self.ask).chain(&self.allow);
        match self.sections.as_deref() {
            Some(sections) => Box::new(own.chain(sections.iter().flat_map(Policy::all_rules))),
            None => Box::new(own),
        }
    }
}

/// A policy as far as it could be read: a rule that failed to parse is `None`, so lint can
/// still compare the others by their place in the lists.
struct Draft {
    deny: Vec<Option<Rule>>,
    ask: Vec<Option<Rule>>,
    allow: Vec<Option<Rule>>,
    default: Effect,
    pin: Option<Effect>,
    allow_new_tools: Option<Effect>,
    /// The `resources` and `prompts` sections (`None` inside a section).
    sections: Option<Box<[Draft; 2]>>,
}

impl Draft {
    /// The compiled policy; only called when parsing pushed no error, so every rule is there.
    fn into_policy(self) -> Policy {
        let keep = |rules: Vec<Option<Rule>>| {
            let mut kept = Vec::with_capacity(rules.len());
            // `let … else` rather than `flatten()`, a generic instance of its own.
            for rule in rules {
                let Some(rule) = rule else { continue };
                kept.push(rule);
            }
            kept
        };
        Policy {
            deny: keep(self.deny),
            ask: keep(self.ask),
            allow: keep(self.allow),
            default: self.default,
            pin: self.pin,
            allow_new_tools: self.allow_new_tools,
            sections: self.sections.map(|sections| {
                let [resources, prompts] = *sections;
                Box::new([resources.into_policy(), prompts.into_policy()])
            }),
        }
    }

    fn rules(&self, list: List) -> &[Option<Rule>] {
        match list {
            List::Deny => &self.deny,
            List::Ask => &self.ask,
            List::Allow => &self.allow,
            List::Limits => &[],
        }
    }
}

/// Reads a policy, pushing every problem found (with its path) and going on past each, so
/// `compile` can report the first and `lint` all of them. `None` when it is not a policy object.
fn parse(spec: &Value, errors: &mut Vec<ConfigError>) -> Option<Draft> {
    let map = match spec {
        Value::Object(map) => map,
        other => {
            errors.push(ConfigError::new(
                "invalid_policy",
                cat![
                    "a policy is an object { deny, ask, allow, default, pin, allowNewTools }, not ",
                    other.type_name()
                ],
            ));
            return None;
        }
    };
    report_unknown_keys(map, &POLICY_KEYS, "unknown_policy_key", "the policy", "", errors);
    let default = setting(map, "default", errors, effect_of, "'deny', 'ask' or 'allow'").unwrap_or(Effect::Ask);
    let pin = setting(
        map,
        "pin",
        errors,
        |value| match value {
            Value::String(text) if text == "ask" => Some(Some(Effect::Ask)),
            Value::String(text) if text == "deny" => Some(Some(Effect::Deny)),
            Value::Bool(false) => Some(None),
            _ => None,
        },
        "'ask', 'deny' or false",
    )
    .unwrap_or(Some(Effect::Ask));
    let allow_new_tools = setting(
        map,
        "allowNewTools",
        errors,
        |value| match value {
            Value::Bool(true) => Some(None),
            Value::String(text) if text == "ask" => Some(Some(Effect::Ask)),
            Value::String(text) if text == "deny" => Some(Some(Effect::Deny)),
            _ => None,
        },
        "true, 'ask' or 'deny'",
    )
    .unwrap_or(None);
    // Two calls rather than `[..].map(..)`: the array map is a generic `try_map` instance of its
    // own for two sections.
    let sections = [parse_section(map, "resources", true, default, errors), parse_section(map, "prompts", false, default, errors)];
    Some(Draft {
        deny: parse_list(map, List::Deny, errors, uris_of(false)),
        ask: parse_list(map, List::Ask, errors, uris_of(false)),
        allow: parse_list(map, List::Allow, errors, uris_of(false)),
        default,
        pin,
        allow_new_tools,
        sections: Some(Box::new(sections)),
    })
}

/// How rule paths are written and what rule matchers match: `prefix` is `""` for the policy's
/// own lists, `"resources."` / `"prompts."` for a section's; `uris` is true for `resources`.
#[derive(Clone, Copy)]
struct Lists {
    prefix: &'static str,
    uris: bool,
}

fn uris_of(uris: bool) -> Lists {
    Lists { prefix: "", uris }
}

/// Reads the `resources` or `prompts` section (absent: no rules, the policy's default).
fn parse_section(map: &Map, key: &'static str, uris: bool, inherited: Effect, errors: &mut Vec<ConfigError>) -> Draft {
    let empty = |default| Draft { deny: Vec::new(), ask: Vec::new(), allow: Vec::new(), default, pin: None, allow_new_tools: None, sections: None };
    let section = match map.get(key) {
        None => return empty(inherited),
        Some(Value::Object(section)) => section,
        Some(other) => {
            errors.push(ConfigError::new("invalid_policy", cat!["`", key, "` is an object { deny, ask, allow, default }, not ", other.type_name()]).at(key));
            return empty(inherited);
        }
    };
    report_unknown_keys(section, &SECTION_KEYS, "unknown_policy_key", &cat!["the policy's `", key, "`"], &cat![key, "."], errors);
    let mut inner = Vec::new();
    let default = setting(section, "default", &mut inner, effect_of, "'deny', 'ask' or 'allow'").unwrap_or(inherited);
    crate::error::file_under(errors, inner, key);
    let prefix = if uris { "resources." } else { "prompts." };
    let lists = Lists { prefix, uris };
    Draft {
        deny: parse_list(section, List::Deny, errors, lists),
        ask: parse_list(section, List::Ask, errors, lists),
        allow: parse_list(section, List::Allow, errors, lists),
        default,
        pin: None,
        allow_new_tools: None,
        sections: None,
    }
}

fn effect_of(value: &Value) -> Option<Effect> {
    match value.as_str() {
        Some("deny") => Some(Effect::Deny),
        Some("ask") => Some(Effect::Ask),
        Some("allow") => Some(Effect::Allow),
        _ => None,
    }
}

/// Reads one scalar setting with `read`; `None` when it is absent or wrong (wrong is reported).
fn setting<T>(
    map: &Map,
    key: &str,
    errors: &mut Vec<ConfigError>,
    read: impl Fn(&Value) -> Option<T>,
    expected: &str,
) -> Option<T> {
    let value = map.get(key)?;
    let parsed = read(value);
    if parsed.is_none() {
        let shown = match value {
            Value::String(text) => cat!["\"", text, "\""],
            Value::Bool(flag) => if *flag { "true" } else { "false" }.to_owned(),
            other => other.type_name().to_owned(),
        };
        errors.push(
            ConfigError::new(
                "invalid_policy",
                cat!["`", key, "` is ", expected, ", not ", shown],
            )
            .at(key),
        );
    }
    parsed
}

/// Reads one rule list; each rule's errors are filed under `deny[i]` (or `resources.deny[i]`)
/// and so on.
fn parse_list(map: &Map, list: List, errors: &mut Vec<ConfigError>, lists: Lists) -> Vec<Option<Rule>> {
    let name = list.name();
    let prefix = lists.prefix;
    match map.get(name) {
        None => Vec::new(),
        Some(Value::Array(rules)) => {
            let mut parsed = Vec::with_capacity(rules.len());
            for (index, value) in rules.iter().enumerate() {
                let mut inner = Vec::new();
                parsed.push(parse_rule(value, &mut inner, lists.uris));
                crate::error::file_under(errors, inner, &cat![prefix, name, "[", decimal_usize(index), "]"]);
            }
            parsed
        }
        Some(other) => {
            errors.push(
                ConfigError::new(
                    "invalid_policy",
                    cat!["`", name, "` is an array of rules, not ", other.type_name()],
                )
                .at(&cat![prefix, name]),
            );
            Vec::new()
        }
    }
}
