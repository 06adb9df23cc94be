//! Matchers: which tools a hook or a policy rule applies to, compiled once and compared loosely.
//!
//! A matcher is `'*'` / `'all'`, `'server/tool'` (with `*` globbing inside one segment), a bare
//! `'tool'` (any server), a JS `RegExp` tested against the tool name, or `{ server, name: RegExp }`.
//! Names compare loosely: case-folded, with `-`, `.` and `_` equivalent, so a redaction hook on
//! `"fs/read_file"` also covers `Read-File` on server `fs`.

use serde_json::Value;

use crate::error::ConfigError;
use crate::js_regex::JsRegex;

/// Where a matcher sits in the onion order of one scope (SPEC §4): all → server → tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// `'*'`, `'all'` or `'*/*'`: every tool.
    All = 0,
    /// `'server/*'`: every tool of one server.
    Server = 1,
    /// Any other matcher.
    Tool = 2,
}

/// A compiled matcher.
#[derive(Debug, Clone)]
pub struct Matcher {
    kind: Kind,
    level: Level,
}

#[derive(Debug, Clone)]
enum Kind {
    All,
    Glob { server: Option<Glob>, tool: Glob },
    Pattern { server: Option<Glob>, name: Box<JsRegex> },
}

impl Matcher {
    /// The matcher used when an entry gives none: every tool.
    pub fn all() -> Matcher {
        Matcher { kind: Kind::All, level: Level::All }
    }

    /// Compiles a matcher from the form the TS layer sends: a JSON string for a text matcher,
    /// `{"$regex": {source, flags}}` for a `RegExp`, `{"server": s, "name": {"$regex": …}}` for
    /// the object form, and `{"$invalid": "<typeof>"}` for anything JS-side that is none of these.
    ///
    /// # Errors
    /// A [`ConfigError`] with code `invalid_matcher` (or the regex translator's code) whose message
    /// says what is wrong; `path` is left for the caller to fill in.
    pub fn compile(spec: &Value) -> Result<Matcher, ConfigError> {
        match spec {
            Value::String(text) => Matcher::from_text(text),
            Value::Object(map) => {
                if let Some(regex) = map.get("$regex") {
                    let name = compile_regex(regex)?;
                    return Ok(Matcher { kind: Kind::Pattern { server: None, name: Box::new(name) }, level: Level::Tool });
                }
                if let Some(Value::String(kind)) = map.get("$invalid") {
                    return Err(invalid(format!(
                        "a matcher must be a string, a RegExp or {{ server, name: RegExp }}, not {kind}"
                    )));
                }
                let server = match map.get("server") {
                    Some(Value::String(server)) => server_glob(server)?,
                    _ => return Err(invalid("the object form of a matcher is { server: string, name: RegExp }".into())),
                };
                let name = match map.get("name").and_then(|name| name.get("$regex")) {
                    Some(regex) => compile_regex(regex)?,
                    None => return Err(invalid("the object form of a matcher needs `name: RegExp`".into())),
                };
                if let Some(extra) = map.keys().find(|key| *key != "server" && *key != "name") {
                    return Err(invalid(format!("unknown key \"{extra}\" in a matcher object (expected server, name)")));
                }
                Ok(Matcher { kind: Kind::Pattern { server: Some(server), name: Box::new(name) }, level: Level::Tool })
            }
            other => Err(invalid(format!(
                "a matcher must be a string, a RegExp or {{ server, name: RegExp }}, not {}",
                json_type(other)
            ))),
        }
    }

    /// Compiles a text matcher: `'*'`, `'all'`, `'server/tool'` or a bare `'tool'`.
    ///
    /// # Errors
    /// `invalid_matcher` for an empty matcher, an empty segment, more than one `/`, or a tool
    /// segment holding characters no tool name can have (it could never match).
    pub fn from_text(text: &str) -> Result<Matcher, ConfigError> {
        if text == "*" || text == "all" {
            return Ok(Matcher::all());
        }
        if text.is_empty() {
            return Err(invalid("a matcher cannot be empty (use '*' for every tool)".into()));
        }
        let (server, tool) = match text.split_once('/') {
            Some((server, tool)) => {
                if tool.contains('/') {
                    return Err(invalid(format!(
                        "matcher \"{text}\" has more than one '/': use 'server/tool'"
                    )));
                }
                (Some(server_glob(server)?), tool)
            }
            None => (None, text),
        };
        if tool.is_empty() {
            return Err(invalid(format!("matcher \"{text}\" has an empty tool segment (use 'server/*')")));
        }
        if let Some(bad) = tool.chars().find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '*'))) {
            return Err(invalid(format!(
                "matcher \"{text}\" can never match: tool names hold only A-Z a-z 0-9 _ . - (found {bad:?})"
            )));
        }
        let tool = Glob::new(tool);
        let level = match (&server, tool.is_any()) {
            (None, true) => Level::All,
            (Some(server), true) if server.is_any() => Level::All,
            (Some(_), true) => Level::Server,
            _ => Level::Tool,
        };
        let kind = if level == Level::All { Kind::All } else { Kind::Glob { server, tool } };
        Ok(Matcher { kind, level })
    }

    /// The matcher's level in the onion order.
    pub fn level(&self) -> Level {
        self.level
    }

    /// Whether the matcher selects the tool `name` on server `server`.
    pub fn matches(&self, server: &str, name: &str) -> bool {
        self.matches_target(&Target::new(server, name))
    }

    /// [`Matcher::matches`] for names already in loose form, so a policy of many rules folds
    /// the tool's names once per decision instead of once per rule.
    pub fn matches_target(&self, target: &Target<'_>) -> bool {
        match &self.kind {
            Kind::All => true,
            Kind::Glob { server: server_glob, tool } => {
                server_glob.as_ref().is_none_or(|glob| glob.matches_loose(&target.server)) && tool.matches_loose(&target.name)
            }
            Kind::Pattern { server: server_glob, name: regex } => {
                server_glob.as_ref().is_none_or(|glob| glob.matches_loose(&target.server)) && regex.is_match(target.raw_name)
            }
        }
    }
}

/// A tool's server and name in the form matchers compare.
#[derive(Debug, Clone)]
pub struct Target<'a> {
    server: String,
    name: String,
    raw_name: &'a str,
}

impl<'a> Target<'a> {
    /// Folds `server` and `name` once.
    pub fn new(server: &str, name: &'a str) -> Target<'a> {
        Target { server: loose(server), name: loose(name), raw_name: name }
    }
}

/// A `*` glob over one loosely compared segment.
#[derive(Debug, Clone)]
struct Glob {
    /// The loose form of the pattern, split at each `*`.
    parts: Vec<String>,
}

impl Glob {
    fn new(pattern: &str) -> Glob {
        Glob { parts: loose(pattern).split('*').map(str::to_owned).collect() }
    }

    fn is_any(&self) -> bool {
        self.parts.iter().all(String::is_empty)
    }

    fn matches_loose(&self, candidate: &str) -> bool {
        glob_match(&self.parts, candidate)
    }
}

/// Matches `text` against a glob already split at its stars: the first part is a prefix, the
/// last a suffix, and the ones between are found left to right (leftmost is always right for a
/// pattern whose only wildcard is `*`).
fn glob_match(parts: &[String], text: &str) -> bool {
    let Some((first, rest)) = parts.split_first() else { return text.is_empty() };
    let Some(mut remaining) = text.strip_prefix(first.as_str()) else { return false };
    let Some((last, middle)) = rest.split_last() else { return remaining.is_empty() };
    for part in middle {
        match remaining.find(part.as_str()) {
            Some(at) => remaining = remaining.get(at + part.len()..).unwrap_or_default(),
            None => return false,
        }
    }
    remaining.len() >= last.len() && remaining.ends_with(last.as_str())
}

/// The loose form of a name: lower-cased, with `-` and `.` turned into `_`.
pub fn loose(name: &str) -> String {
    name.chars()
        .flat_map(char::to_lowercase)
        .map(|c| if c == '-' || c == '.' { '_' } else { c })
        .collect()
}

fn server_glob(server: &str) -> Result<Glob, ConfigError> {
    if server.is_empty() {
        return Err(invalid("a matcher's server segment cannot be empty (use '*/tool' or a bare 'tool')".into()));
    }
    Ok(Glob::new(server))
}

fn compile_regex(spec: &Value) -> Result<JsRegex, ConfigError> {
    let source = spec.get("source").and_then(Value::as_str).unwrap_or_default();
    let flags = spec.get("flags").and_then(Value::as_str).unwrap_or_default();
    JsRegex::new(source, flags).map_err(|err| ConfigError::new(err.code, format!("RegExp /{source}/{flags}: {}", err.message)))
}

fn invalid(message: String) -> ConfigError {
    ConfigError::new("invalid_matcher", message)
}

/// The JSON type name of a value, for messages.
pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
