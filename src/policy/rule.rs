//! Rules: parsing one entry of `deny`, `ask` or `allow` into a compiled matcher and predicates.

use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::keys::report_unknown_keys;
use super::predicate::{parse_when, DataPredicate, Parsed};
use crate::error::ConfigError;
use crate::matcher::Matcher;
use crate::strs::cat;
use crate::value::{Map, Value};

/// The keys of a rule object.
const RULE_KEYS: [&str; 5] = ["match", "when", "id", "reason", "label"];

/// A compiled rule.
#[derive(Debug, Clone)]
pub(crate) struct Rule {
    /// Which tools it applies to (`'*'` when the rule gives none).
    pub(crate) matcher: Matcher,
    /// Its data predicates, all of which must hold.
    pub(crate) data: Vec<DataPredicate>,
    /// Its function predicates, in the order given, asked only after every data predicate held.
    pub(crate) functions: Vec<u32>,
    /// The `id` the user gave.
    pub(crate) id: Option<String>,
    /// The `reason` text the user gave.
    pub(crate) reason: Option<String>,
    /// The `label` the user gave: what an approval UI shows a person about this rule.
    pub(crate) label: Option<String>,
}

impl Rule {
    fn matching(matcher: Matcher) -> Rule {
        Rule {
            matcher,
            data: Vec::new(),
            functions: Vec::new(),
            id: None,
            reason: None,
            label: None,
        }
    }
}

/// A rule as written: its matcher, and its `when` predicates each with its path.
pub(crate) type RawRule<'a> = (Option<&'a Value>, Vec<(String, &'a Value)>);

/// The parts of a rule as written, before compiling: its matcher (`None`: every tool) and its
/// `when` predicates with their paths relative to the rule (`when` or `when[i]`). `None` when
/// the entry is not a rule object or string. Lint reads these to compare rules with each other.
pub(crate) fn raw_parts(value: &Value) -> Option<RawRule<'_>> {
    match value {
        Value::String(_) | Value::Regex { .. } => Some((Some(value), Vec::new())),
        Value::Object(map) if is_matcher_object(map) => Some((Some(value), Vec::new())),
        Value::Object(map) => {
            let when = match map.get("when") {
                Some(Value::Array(items)) => {
                    let mut when = Vec::with_capacity(items.len());
                    for (index, item) in items.iter().enumerate() {
                        when.push((cat!["when[", crate::strs::decimal_usize(index), "]"], item));
                    }
                    when
                }
                Some(single) => vec![("when".to_owned(), single)],
                None => Vec::new(),
            };
            Some((map.get("match"), when))
        }
        _ => None,
    }
}

/// Whether an object entry is the `{ server, name: RegExp }` matcher standing in for a rule
/// ("a rule is a matcher", as a string or a `RegExp` is).
fn is_matcher_object(map: &Map) -> bool {
    map.contains_key("server") && map.unknown_key(&["server", "name"]).is_none()
}

/// Compiles a rule's matcher: names (tools, prompts), or URIs (the `resources` section).
pub(crate) fn compile_matcher(spec: &Value, uris: bool) -> Result<Matcher, ConfigError> {
    match (spec, uris) {
        (_, true) => Matcher::compile_uri(spec),
        (Value::String(text), false) => Matcher::from_text(text),
        (spec, false) => Matcher::compile(spec),
    }
}

/// Parses one rule; `uris`: its matcher matches URIs (the policy's `resources` section). Errors
/// are pushed with paths relative to the rule (`match`, `when[0]`, …); `None` when any part of
/// it is wrong, so a half-understood rule never takes effect.
pub(crate) fn parse_rule(value: &Value, errors: &mut Vec<ConfigError>, uris: bool) -> Option<Rule> {
    match value {
        Value::String(_) | Value::Regex { .. } => compile_matcher(value, uris)
            .map(Rule::matching)
            .map_err(|error| errors.push(error))
            .ok(),
        Value::Object(map) if is_matcher_object(map) => compile_matcher(value, uris)
            .map(Rule::matching)
            .map_err(|error| errors.push(error))
            .ok(),
        Value::Function(_) => {
            errors.push(invalid(
                "a function is not a rule: put it in `when`, as { match: '*', when: fn }"
                    .to_owned(),
            ));
            None
        }
        Value::Object(map) => parse_object(map, errors, uris),
        other => {
            errors.push(invalid(cat![
                "a rule is a matcher string or { match, when, id, reason, label }, not ",
                other.type_name()
            ]));
            None
        }
    }
}

/// Parses `{ match?, when?, id?, reason?, label? }`, collecting every problem in it.
fn parse_object(map: &Map, errors: &mut Vec<ConfigError>, uris: bool) -> Option<Rule> {
    let before = errors.len();
    report_unknown_keys(map, &RULE_KEYS, "unknown_rule_key", "a rule", "", errors);
    let matcher = match map.get("match") {
        None => Some(Matcher::all()),
        Some(spec) => compile_matcher(spec, uris)
            .map_err(|error| errors.push(error.at("match")))
            .ok(),
    };
    let (mut data, mut functions) = (Vec::new(), Vec::new());
    if let Some(when) = map.get("when") {
        for predicate in parse_when(when, errors) {
            match predicate {
                Parsed::Data(predicate) => data.push(predicate),
                Parsed::Function(handle) => functions.push(handle),
            }
        }
    }
    let id = text_member(map, "id", errors);
    let reason = text_member(map, "reason", errors);
    let label = text_member(map, "label", errors);
    match matcher {
        Some(matcher) if errors.len() == before => Some(Rule {
            matcher,
            data,
            functions,
            id,
            reason,
            label,
        }),
        _ => None,
    }
}

/// An optional non-empty string member (`id`, `reason`, `label`). An empty one is refused: an empty id
/// names nothing, and an empty reason would make the agent read just `Denied: `.
fn text_member(
    map: &Map,
    key: &str,
    errors: &mut Vec<ConfigError>,
) -> Option<String> {
    match map.get(key) {
        None => None,
        Some(Value::String(text)) if !crate::strs::trim(text).is_empty() => Some(text.clone()),
        Some(Value::String(_)) => {
            errors.push(invalid(cat!["`", key, "` cannot be empty"]).at(key));
            None
        }
        Some(other) => {
            errors.push(invalid(cat!["`", key, "` is a string, not ", other.type_name()]).at(key));
            None
        }
    }
}

fn invalid(message: String) -> ConfigError {
    ConfigError::new("invalid_rule", message)
}
