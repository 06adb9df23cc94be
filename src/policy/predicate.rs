//! Predicates of a rule's `when`: parsing what the TS layer sends, and testing the data ones.
//!
//! Data predicates (`annotation`, `tainted`, `principal`, `arg`) are decided here, in Rust.
//! A JS function predicate (a [`Value::Function`] handle) is only recorded: the evaluation asks
//! the TS layer to call it, after every data predicate of its rule held.
//!
//! Predicates are three-valued: `Ok(true)`, `Ok(false)`, or `Err(why)` for "could not tell",
//! which the evaluation resolves by the rule's list (fail closed: a deny or ask rule applies, an
//! allow rule does not). A predicate cannot tell when a `matches` pattern could not test its
//! string (see [`crate::pattern`]: too long, over the call's pattern budget, an engine failure)
//! or when the value is of a type the operator cannot judge (`min` on `"50"`, `matches` on an
//! array): an agent must not dodge a deny rule by sending the wrong type.

use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::facts::CallFacts;
use super::json::{foreign, Pointer};
use super::keys::unknown_key_message;
use crate::error::ConfigError;
use crate::matcher::pattern_error;
use super::decision::FailedClosed;
use crate::pattern::{with_unsafe_allowed, Pattern};
use crate::strs::{cat, decimal_usize};
use crate::value::{Map, Value};

/// The predicate keys of an object predicate other than `arg`.
const KINDS: [&str; 5] = ["annotation", "tainted", "principal", "exposedTo", "arg"];

/// The operators of an `arg` predicate.
const OPERATORS: [&str; 7] = ["equals", "in", "matches", "max", "min", "exists", "unsafePattern"];

/// Annotation hints the WebMCP draft and MCP define; others are allowed (a page may add its
/// own) but `lint` flags them, because a misspelt hint silently never matches.
pub(crate) const KNOWN_HINTS: [&str; 7] = [
    "readOnlyHint",
    "untrustedContentHint",
    "consequentialHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
    "title",
];

/// A predicate decided in Rust.
#[derive(Debug, Clone)]
pub(crate) enum DataPredicate {
    /// Every listed annotation equals the given value.
    Annotation(Map),
    /// The taint set holds a server other than the tool's own and not ignored.
    Tainted {
        /// Servers whose output does not count as taint.
        ignore: Vec<String>,
    },
    /// The call's principal is one of these.
    Principal(Vec<String>),
    /// The tool is exposed to other origins (its `exposedTo` registration option): to any of
    /// these, or (`None`) to any at all.
    ExposedTo(Option<Vec<String>>),
    /// The value at a pointer into the arguments passes every operator.
    Arg {
        /// Where in the arguments.
        pointer: Pointer,
        /// All must hold.
        operators: Vec<Operator>,
    },
}

/// One operator of an `arg` predicate.
#[derive(Debug, Clone)]
pub(crate) enum Operator {
    /// Structurally equal to this value.
    Equals(Value),
    /// Structurally equal to one of these.
    In(Vec<Value>),
    /// A string the pattern finds a match in (like `RegExp.prototype.test`).
    Matches(Pattern),
    /// A number ≤ this.
    Max(f64),
    /// A number ≥ this.
    Min(f64),
    /// The pointer resolves (`true`) or does not (`false`).
    Exists(bool),
}

/// A parsed predicate.
#[derive(Debug, Clone)]
pub(crate) enum Parsed {
    /// Decided in Rust.
    Data(DataPredicate),
    /// A JS function, by the handle the TS layer keeps it under.
    Function(u32),
}

impl DataPredicate {
    /// Whether the predicate holds for this call; `Err` when it could not tell, and why.
    pub(crate) fn holds(&self, facts: &CallFacts<'_>) -> Result<bool, FailedClosed> {
        match self {
            DataPredicate::Annotation(expected) => Ok(expected.iter().all(|(hint, value)| {
                // A missing (or null) hint has the draft's default, false, for boolean hints.
                match facts
                    .annotations
                    .get(hint)
                    .filter(|actual| !actual.is_null())
                {
                    Some(actual) => actual.json_eq(value),
                    None => *value == Value::Bool(false),
                }
            })),
            DataPredicate::Tainted { ignore } => Ok(facts.taint.iter().any(|server| {
                server != facts.server && !ignore.iter().any(|ignored| ignored == server)
            })),
            DataPredicate::Principal(ids) => Ok(
                facts
                    .principal
                    .is_some_and(|principal| ids.iter().any(|id| id == principal)),
            ),
            DataPredicate::ExposedTo(origins) => Ok(match origins {
                None => !facts.exposed_to.is_empty(),
                Some(origins) => facts.exposed_to.iter().any(|origin| origins.contains(origin)),
            }),
            DataPredicate::Arg { pointer, operators } => {
                let value = pointer.resolve(facts.arguments);
                all_of(operators.iter().map(|operator| operator.holds(value, facts)))
            }
        }
    }
}

/// "All hold" over three-valued answers: `Ok(false)` as soon as one is false (the others
/// cannot change that), else the first "could not tell", else `Ok(true)`.
pub(crate) fn all_of(answers: impl Iterator<Item = Result<bool, FailedClosed>>) -> Result<bool, FailedClosed> {
    let mut unknown = None;
    for answer in answers {
        match answer {
            Ok(false) => return Ok(false),
            Err(why) => {
                unknown.get_or_insert(why);
            }
            Ok(true) => {}
        }
    }
    match unknown {
        Some(why) => Err(why),
        None => Ok(true),
    }
}

impl Operator {
    /// Whether the operator holds for the resolved value (`None` for `value`: the pointer did
    /// not resolve, so only `exists` can hold); `Err` when it could not tell: a pattern could not
    /// test the string, or the value is of a type the operator cannot judge.
    fn holds(&self, value: Option<&Value>, facts: &CallFacts<'_>) -> Result<bool, FailedClosed> {
        match (self, value) {
            (Operator::Exists(expected), value) => Ok(value.is_some() == *expected),
            (_, None) => Ok(false),
            (Operator::Equals(expected), Some(value)) => Ok(value.json_eq(expected)),
            (Operator::In(options), Some(value)) => {
                Ok(options.iter().any(|option| value.json_eq(option)))
            }
            (Operator::Matches(pattern), Some(value)) => match value.as_str() {
                Some(text) => pattern.test(text, &facts.pattern_budget).ok_or(FailedClosed::Pattern),
                None => Err(FailedClosed::Type),
            },
            (Operator::Max(limit), Some(value)) => match value.as_f64() {
                Some(number) => Ok(number <= *limit),
                None => Err(FailedClosed::Type),
            },
            (Operator::Min(limit), Some(value)) => match value.as_f64() {
                Some(number) => Ok(number >= *limit),
                None => Err(FailedClosed::Type),
            },
        }
    }
}

/// Parses a rule's `when`: one predicate or an array of them. Errors are pushed with paths
/// relative to the rule (`when` or `when[i]`); predicates that parse are returned either way.
pub(crate) fn parse_when(when: &Value, errors: &mut Vec<ConfigError>) -> Vec<Parsed> {
    match when {
        Value::Array(items) => {
            let mut parsed = Vec::with_capacity(items.len());
            for (index, item) in items.iter().enumerate() {
                let mut inner = Vec::new();
                if let Some(predicate) = parse_predicate(item, &mut inner) {
                    parsed.push(predicate);
                }
                crate::error::file_under(errors, inner, &cat!["when[", decimal_usize(index), "]"]);
            }
            parsed
        }
        Value::Null => {
            errors.push(
                invalid("`when` is a predicate or an array of predicates, not null".into())
                    .at("when"),
            );
            Vec::new()
        }
        single => {
            let mut inner = Vec::new();
            let parsed = parse_predicate(single, &mut inner);
            crate::error::file_under(errors, inner, "when");
            // Not `into_iter().collect()`: a `from_iter` instance of its own for one item.
            match parsed {
                Some(predicate) => vec![predicate],
                None => Vec::new(),
            }
        }
    }
}

/// Parses one predicate; errors carry no path (the caller knows where it is).
fn parse_predicate(value: &Value, errors: &mut Vec<ConfigError>) -> Option<Parsed> {
    let fail = |errors: &mut Vec<ConfigError>, error: ConfigError| {
        errors.push(error);
        None
    };
    match value {
        Value::String(text) if text == "tainted" => {
            Some(Parsed::Data(DataPredicate::Tainted { ignore: Vec::new() }))
        }
        Value::String(text) => fail(
            errors,
            ConfigError::new(
                "unknown_predicate",
                cat!["unknown predicate \"", text, "\" (the only string predicate is 'tainted')"],
            ),
        ),
        Value::Function(handle) => Some(Parsed::Function(*handle)),
        Value::Regex { .. } => fail(
            errors,
            invalid("a RegExp is not a predicate: use { arg: '/pointer', matches: … }".into()),
        ),
        Value::Object(map) => parse_object(map, errors),
        Value::Array(_) => fail(
            errors,
            invalid(
                "a predicate cannot be an array: `when` is one predicate or a flat array of them"
                    .into(),
            ),
        ),
        other => fail(
            errors,
            invalid(cat![
                "a predicate is 'tainted', an object or a function, not ",
                other.type_name()
            ]),
        ),
    }
}

/// Parses an object predicate.
fn parse_object(map: &Map, errors: &mut Vec<ConfigError>) -> Option<Parsed> {
    if map.contains_key("arg") {
        return parse_arg(map, errors);
    }
    if let Some(unknown) = map.unknown_key(&KINDS) {
        errors.push(ConfigError::new(
            "unknown_predicate",
            unknown_key_message(unknown, "a predicate", &KINDS),
        ));
        return None;
    }
    let mut kinds = map.iter();
    let (Some((kind, body)), None) = (kinds.next(), kinds.next()) else {
        errors.push(invalid(if map.is_empty() {
            "an empty object is not a predicate".to_owned()
        } else {
            "one predicate per object: list several in a `when` array (all must hold)".to_owned()
        }));
        return None;
    };
    let parsed = match kind.as_str() {
        "annotation" => parse_annotation(body),
        "tainted" => parse_tainted(body),
        "exposedTo" => parse_exposed_to(body),
        _ => parse_principal(body),
    };
    parsed
        .map(Parsed::Data)
        .map_err(|error| errors.push(error))
        .ok()
}

/// `{ annotation: { hint: value, … } }`.
fn parse_annotation(body: &Value) -> Result<DataPredicate, ConfigError> {
    let Value::Object(hints) = body else {
        return Err(invalid(cat![
            "`annotation` takes an object of hints, such as { destructiveHint: true }, not ",
            body.type_name()
        ]));
    };
    if hints.is_empty() {
        return Err(invalid(
            "`annotation` lists no hint, so it would hold for every tool".into(),
        ));
    }
    for (hint, value) in hints.iter() {
        if let Some(kind) = foreign(value) {
            return Err(invalid(cat![
                "annotation \"",
                hint,
                "\" cannot be compared with ",
                kind
            ]));
        }
    }
    Ok(DataPredicate::Annotation(hints.clone()))
}

/// `{ tainted: { ignore: [serverIds] } }`.
fn parse_tainted(body: &Value) -> Result<DataPredicate, ConfigError> {
    let Value::Object(options) = body else {
        return Err(invalid(cat![
            "`tainted` takes { ignore: [serverIds] }, not ",
            body.type_name(),
            " (write 'tainted' for no exceptions)"
        ]));
    };
    if let Some(unknown) = options.unknown_key(&["ignore"]) {
        return Err(ConfigError::new(
            "unknown_predicate",
            unknown_key_message(unknown, "`tainted` options", &["ignore"]),
        ));
    }
    let ignore = match options.get("ignore") {
        None => Vec::new(),
        Some(list) => strings(list)
            .ok_or_else(|| invalid("`tainted.ignore` is an array of server ids".into()))?,
    };
    Ok(DataPredicate::Tainted { ignore })
}

/// `{ principal: id | [ids] }`.
fn parse_principal(body: &Value) -> Result<DataPredicate, ConfigError> {
    let ids = match body {
        Value::String(id) => vec![id.clone()],
        list => strings(list)
            .ok_or_else(|| invalid("`principal` is an id or an array of ids".into()))?,
    };
    if ids.is_empty() {
        return Err(invalid(
            "`principal: []` lists no principal, so it could never hold".into(),
        ));
    }
    Ok(DataPredicate::Principal(ids))
}

/// `{ exposedTo: true | origin | [origins] }`: the tool is exposed to other origins at all, or
/// to one of these.
fn parse_exposed_to(body: &Value) -> Result<DataPredicate, ConfigError> {
    let origins = match body {
        Value::Bool(true) => return Ok(DataPredicate::ExposedTo(None)),
        Value::String(origin) => vec![origin.clone()],
        list => strings(list).ok_or_else(|| {
            invalid("`exposedTo` is true (exposed to any other origin), an origin or an array of origins".into())
        })?,
    };
    if origins.is_empty() {
        return Err(invalid("`exposedTo: []` lists no origin, so it could never hold".into()));
    }
    Ok(DataPredicate::ExposedTo(Some(origins)))
}

/// `{ arg: '<JSON pointer>', <operator>: … }`. Several operators may be given (all must hold),
/// so a range reads `{ arg: '/limit', min: 1, max: 50 }`.
fn parse_arg(map: &Map, errors: &mut Vec<ConfigError>) -> Option<Parsed> {
    let pointer = match map.get("arg") {
        Some(Value::String(text)) => Pointer::parse(text)
            .map_err(|message| errors.push(invalid(message)))
            .ok(),
        Some(other) => {
            errors.push(invalid(cat![
                "`arg` is a JSON pointer string such as '/limit', not ",
                other.type_name()
            ]));
            None
        }
        None => None,
    };
    let mut operators = Vec::new();
    let mut broken = pointer.is_none();
    // `unsafePattern: true` opts this predicate's `matches` in to running although neither
    // engine can be trusted with it (`docs/behaviour.md`, "Patterns").
    let allow_unsafe = match map.get("unsafePattern") {
        None => false,
        Some(Value::Bool(allowed)) => *allowed,
        Some(other) => {
            errors.push(invalid(cat!["`unsafePattern` takes true or false, not ", other.type_name()]));
            broken = true;
            false
        }
    };
    for (key, value) in map.iter() {
        if key == "arg" || key == "unsafePattern" {
            continue;
        }
        match with_unsafe_allowed(allow_unsafe, || parse_operator(key, value)) {
            Ok(operator) => operators.push(operator),
            Err(error) => {
                errors.push(error);
                broken = true;
            }
        }
    }
    if operators.is_empty() && !broken {
        errors.push(invalid(
            "an arg predicate needs an operator: equals, in, matches, max, min or exists".into(),
        ));
        return None;
    }
    if operators.len() > 1
        && operators
            .iter()
            .any(|operator| matches!(operator, Operator::Exists(false)))
    {
        errors.push(invalid(
            "`exists: false` cannot be combined with another operator: it could never hold".into(),
        ));
        return None;
    }
    match (pointer, broken) {
        (Some(pointer), false) => Some(Parsed::Data(DataPredicate::Arg { pointer, operators })),
        _ => None,
    }
}

/// One operator of an `arg` predicate.
fn parse_operator(key: &str, value: &Value) -> Result<Operator, ConfigError> {
    let comparable = |value: &Value| match foreign(value) {
        Some(kind) => Err(invalid(cat!["`", key, "` cannot compare with ", kind])),
        None => Ok(()),
    };
    match key {
        "equals" => comparable(value).map(|()| Operator::Equals(value.clone())),
        "in" => match value {
            Value::Array(options) if options.is_empty() => Err(invalid(
                "`in: []` lists no value, so it could never hold".into(),
            )),
            Value::Array(options) => comparable(value).map(|()| Operator::In(options.clone())),
            other => Err(invalid(cat![
                "`in` takes an array of values, not ",
                other.type_name()
            ])),
        },
        "matches" => parse_pattern(value).map(Operator::Matches),
        "max" | "min" => match value.as_f64() {
            Some(limit) if key == "max" => Ok(Operator::Max(limit)),
            Some(limit) => Ok(Operator::Min(limit)),
            None => Err(invalid(cat![
                "`",
                key,
                "` takes a number, not ",
                value.type_name()
            ])),
        },
        "exists" => match value {
            Value::Bool(expected) => Ok(Operator::Exists(*expected)),
            other => Err(invalid(cat![
                "`exists` takes true or false, not ",
                other.type_name()
            ])),
        },
        unknown => Err(ConfigError::new(
            "unknown_predicate",
            unknown_key_message(unknown, "an arg predicate", &OPERATORS),
        )),
    }
}

/// `matches`: a regex source in JS syntax (no flags), or a `RegExp` with its flags. Compiled by
/// the page's engine, so it means exactly what the same `RegExp` means in JS (look-around and
/// back-references included).
fn parse_pattern(value: &Value) -> Result<Pattern, ConfigError> {
    let (source, flags) = match value {
        Value::String(source) => (source.as_str(), ""),
        Value::Regex { source, flags } => (source.as_str(), flags.as_str()),
        other => {
            return Err(invalid(cat![
                "`matches` takes a regex source string or a RegExp, not ",
                other.type_name()
            ]))
        }
    };
    Pattern::compile(source, flags, crate::pattern::unsafe_allowed()).map_err(|error| {
        pattern_error(&cat!["`matches` pattern /", source, "/", flags], source, flags, &error)
    })
}

/// An array of strings, or `None` when the value is anything else.
fn strings(value: &Value) -> Option<Vec<String>> {
    let items = value.as_array()?;
    let mut texts = Vec::with_capacity(items.len());
    for item in items {
        texts.push(item.as_str()?.to_owned());
    }
    Some(texts)
}

fn invalid(message: String) -> ConfigError {
    ConfigError::new("invalid_predicate", message)
}
