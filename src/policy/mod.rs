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
//! Modules: `rule` and `predicate` parse, `json` holds pointers, `evaluate` decides,
//! `decision` is the data and its sentences, `grants` and `lint` stand apart.

mod decision;
mod evaluate;
mod grants;
mod json;
mod keys;
mod lint;
mod predicate;
mod rule;

pub use decision::{
    settle_with_grant, settle_without_approver, Decision, Effect, List, Pin, Reason, RuleRef,
};
pub use evaluate::{CallFacts, EvalStep, Evaluation, FingerprintState, MatchedRules, PredicateResult};
pub use grants::{Grant, GrantBook, RevokeFilter};
pub use lint::{lint, Diagnostic};

use crate::error::ConfigError;
use crate::value::{Map, Value};
use keys::unknown_key_message;
use rule::{parse_rule, Rule};

/// The keys of a policy object.
const POLICY_KEYS: [&str; 6] = ["deny", "ask", "allow", "default", "pin", "allowNewTools"];

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
}

impl Policy {
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
        }
    }

    fn all_rules(&self) -> impl Iterator<Item = &Rule> {
        self.deny.iter().chain(&self.ask).chain(&self.allow)
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
}

impl Draft {
    /// The compiled policy; only called when parsing pushed no error, so every rule is there.
    fn into_policy(self) -> Policy {
        let keep = |rules: Vec<Option<Rule>>| rules.into_iter().flatten().collect();
        Policy {
            deny: keep(self.deny),
            ask: keep(self.ask),
            allow: keep(self.allow),
            default: self.default,
            pin: self.pin,
            allow_new_tools: self.allow_new_tools,
        }
    }

    fn rules(&self, list: List) -> &[Option<Rule>] {
        match list {
            List::Deny => &self.deny,
            List::Ask => &self.ask,
            List::Allow => &self.allow,
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
                format!(
                    "a policy is an object {{ deny, ask, allow, default, pin, allowNewTools }}, not {}",
                    other.type_name()
                ),
            ));
            return None;
        }
    };
    for key in map
        .keys()
        .filter(|key| !POLICY_KEYS.contains(&key.as_str()))
    {
        errors.push(
            ConfigError::new(
                "unknown_policy_key",
                unknown_key_message(key, "the policy", &POLICY_KEYS),
            )
            .at(key),
        );
    }
    let default = setting(
        map,
        "default",
        errors,
        |value| match value.as_str() {
            Some("deny") => Some(Effect::Deny),
            Some("ask") => Some(Effect::Ask),
            Some("allow") => Some(Effect::Allow),
            _ => None,
        },
        "'deny', 'ask' or 'allow'",
    )
    .unwrap_or(Effect::Ask);
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
    Some(Draft {
        deny: parse_list(map, List::Deny, errors),
        ask: parse_list(map, List::Ask, errors),
        allow: parse_list(map, List::Allow, errors),
        default,
        pin,
        allow_new_tools,
    })
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
            Value::String(text) => format!("\"{text}\""),
            Value::Bool(flag) => flag.to_string(),
            other => other.type_name().to_owned(),
        };
        errors.push(
            ConfigError::new(
                "invalid_policy",
                format!("`{key}` is {expected}, not {shown}"),
            )
            .at(key),
        );
    }
    parsed
}

/// Reads one rule list; each rule's errors are filed under `deny[i]` and so on.
fn parse_list(
    map: &Map,
    list: List,
    errors: &mut Vec<ConfigError>,
) -> Vec<Option<Rule>> {
    let name = list.name();
    match map.get(name) {
        None => Vec::new(),
        Some(Value::Array(rules)) => rules
            .iter()
            .enumerate()
            .map(|(index, value)| {
                let mut inner = Vec::new();
                let rule = parse_rule(value, &mut inner);
                let path = format!("{name}[{index}]");
                errors.extend(inner.into_iter().map(|error| error.at(&path)));
                rule
            })
            .collect(),
        Some(other) => {
            errors.push(
                ConfigError::new(
                    "invalid_policy",
                    format!("`{name}` is an array of rules, not {}", other.type_name()),
                )
                .at(name),
            );
            Vec::new()
        }
    }
}
