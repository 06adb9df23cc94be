//! Matchers: which tools a hook or a policy rule applies to, compiled once and compared loosely.
//!
//! A matcher is `'*'` / `'all'` / `'any'`, `'server/tool'` (with `*` globbing inside one
//! segment), a bare `'tool'` (any server), a JS `RegExp` tested against the tool name, or
//! `{ server, name: RegExp }`. Names compare loosely: ASCII case-folded, with `-`, `.` and `_`
//! equivalent, so a redaction hook on `"fs/read_file"` also covers `Read-File` on server `fs`.
//! Tool names are ASCII (`A-Z a-z 0-9 _ . -`), so folding needs no Unicode tables.
//!
//! Resource hooks and resource policy rules match URIs instead ([`Matcher::compile_uri`]): a
//! URI glob compared exactly (URIs are case-sensitive, and `a-b` is not `a_b`), where `*` is any
//! run of characters without `/`, a URI template variable `{name}` is one or more such
//! characters and `{+name}` one or more of any (RFC 6570's simple and reserved expansions), so
//! a template such as `user://{id}/profile` matches its instances (`user://42/profile`). A
//! `RegExp` is tested against the whole URI.
//!
//! A `RegExp` runs on the page's own engine ([`crate::pattern`]), which may be unable to test a
//! name (one longer than [`crate::pattern::INPUT_LIMIT`], or an engine failure). [`Matcher::test`]
//! says so with `None`, and each caller fails closed in its own way: a hook runs, a deny or ask
//! rule applies, an allow rule does not, a tool filter hides the tool.

use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use crate::error::ConfigError;
use crate::pattern::{Budget, Pattern, PatternError};
use crate::strs::cat;
use crate::value::{Map, Value};

/// Where a matcher sits in the onion order of one scope: all → server → tool (see `docs/behaviour.md`,
/// "Order").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// `'*'`, `'all'`, `'any'` or `'*/*'`: every tool.
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
    Pattern { server: Option<Glob>, name: Pattern },
    Uri(UriGlob),
}

/// The text matchers that select every tool.
pub const EVERY_TOOL: [&str; 3] = ["*", "all", "any"];

impl Matcher {
    /// The matcher used when an entry gives none: every tool.
    pub fn all() -> Matcher {
        Matcher { kind: Kind::All, level: Level::All }
    }

    /// Compiles a matcher: a string, a `RegExp`, or `{ server: string, name: RegExp }`.
    ///
    /// # Errors
    /// A [`ConfigError`] with code `invalid_matcher`, or `invalid_pattern` for a `RegExp` the
    /// engine refuses, whose message says what is wrong; `path` is left for the caller.
    pub fn compile(spec: &Value) -> Result<Matcher, ConfigError> {
        match spec {
            Value::String(text) => Matcher::from_text(text),
            Value::Regex { source, flags } => {
                let name = compile_regex(source, flags)?;
                Ok(Matcher { kind: Kind::Pattern { server: None, name }, level: Level::Tool })
            }
            Value::Object(map) => Matcher::from_object(map),
            other => Err(invalid(cat!["a matcher must be a string, a RegExp or { server, name: RegExp }, not ", other.type_name()])),
        }
    }

    /// `{ server, name: RegExp }`.
    fn from_object(map: &Map) -> Result<Matcher, ConfigError> {
        let server = match map.get("server") {
            Some(Value::String(server)) => server_glob(server)?,
            _ => return Err(invalid("the object form of a matcher is { server: string, name: RegExp }".into())),
        };
        let name = match map.get("name") {
            Some(Value::Regex { source, flags }) => compile_regex(source, flags)?,
            _ => return Err(invalid("the object form of a matcher needs `name: RegExp`".into())),
        };
        if let Some(extra) = map.unknown_key(&["server", "name"]) {
            return Err(invalid(cat!["unknown key \"", extra, "\" in a matcher object (expected server, name)"]));
        }
        Ok(Matcher { kind: Kind::Pattern { server: Some(server), name }, level: Level::Tool })
    }

    /// Compiles a text matcher: `'*'`, `'all'`, `'any'`, `'server/tool'` or a bare `'tool'`.
    ///
    /// # Errors
    /// `invalid_matcher` for an empty matcher, an empty segment, more than one `/`, or a tool
    /// segment holding characters no tool name can have (it could never match).
    pub fn from_text(text: &str) -> Result<Matcher, ConfigError> {
        if EVERY_TOOL.contains(&text) {
            return Ok(Matcher::all());
        }
        if text.is_empty() {
            return Err(invalid("a matcher cannot be empty (use '*' for every tool)".into()));
        }
        let (server, tool) = match crate::strs::split_byte(text, b'/') {
            Some((server, tool)) => {
                if crate::strs::find_byte(tool, b'/').is_some() {
                    return Err(invalid(cat!["matcher \"", text, "\" has more than one '/': use 'server/tool'"]));
                }
                (Some(server_glob(server)?), tool)
            }
            None => (None, text),
        };
        if tool.is_empty() {
            return Err(invalid(cat!["matcher \"", text, "\" has an empty tool segment (use 'server/*')"]));
        }
        // Loops rather than iterator adapters in this module: each closure handed to one is a
        // generic instance of its own in the wasm module.
        for bad in tool.chars() {
            if !(bad.is_ascii_alphanumeric() || matches!(bad, '_' | '.' | '-' | '*')) {
                return Err(invalid(cat![
                    "matcher \"",
                    text,
                    "\" can never match: tool names hold only A-Z a-z 0-9 _ . - (found '",
                    bad.encode_utf8(&mut [0; 4]),
                    "')"
                ]));
            }
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

    /// Compiles a URI matcher (resource hooks and rules): `'*'` / `'all'` / `'any'`, a URI glob
    /// or template (see the module docs), a `RegExp` tested against the URI, or `{ server, name:
    /// RegExp }`.
    ///
    /// # Errors
    /// `invalid_matcher` for an empty matcher, an unclosed or empty `{…}`, or a value that is
    /// not a matcher; `invalid_pattern` for a `RegExp` the engine refuses.
    pub fn compile_uri(spec: &Value) -> Result<Matcher, ConfigError> {
        match spec {
            Value::String(text) if EVERY_TOOL.contains(&text.as_str()) => Ok(Matcher::all()),
            Value::String(text) if text.is_empty() => Err(invalid("a URI matcher cannot be empty (use '*' for every URI)".into())),
            Value::String(text) => Ok(Matcher { kind: Kind::Uri(UriGlob::new(text)?), level: Level::Tool }),
            other => Matcher::compile(other),
        }
    }

    /// The matcher's level in the onion order.
    pub fn level(&self) -> Level {
        self.level
    }

    /// Whether the matcher selects the tool `name` on server `server`. A `RegExp` that could
    /// not be tested counts as matching: a hook that cannot tell whether it applies runs, since
    /// skipping a guard is the unsafe side. Callers that need another answer use
    /// [`Matcher::test`].
    pub fn matches(&self, server: &str, name: &str) -> bool {
        self.test(&Target::new(server, name)).unwrap_or(true)
    }

    /// Whether the matcher selects the tool: `None` when a `RegExp` could not be tested (see
    /// the module docs). Takes names already in loose form, so a policy of many rules folds
    /// the tool's names once per decision instead of once per rule.
    pub fn test(&self, target: &Target<'_>) -> Option<bool> {
        match &self.kind {
            Kind::All => Some(true),
            Kind::Glob { server, tool } => {
                Some(server.as_ref().is_none_or(|glob| glob.matches_loose(&target.server)) && tool.matches_loose(&target.name))
            }
            Kind::Pattern { server, name } => {
                if !server.as_ref().is_none_or(|glob| glob.matches_loose(&target.server)) {
                    return Some(false);
                }
                name.test(target.raw_name, &target.budget)
            }
            Kind::Uri(glob) => glob.matches(target.raw_name),
        }
    }
}

/// One part of a URI glob.
#[derive(Debug, Clone, PartialEq, Eq)]
enum UriPart {
    /// Exactly this text.
    Literal(String),
    /// `*`: any run of characters without `/`, empty too.
    Star,
    /// `{name}`: one or more characters without `/`.
    Segment,
    /// `{+name}`: one or more characters of any kind.
    Reserved,
}

/// A URI glob or template, compared exactly.
#[derive(Debug, Clone)]
struct UriGlob {
    parts: Vec<UriPart>,
}

impl UriGlob {
    fn new(text: &str) -> Result<UriGlob, ConfigError> {
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut rest = text;
        while let Some(c) = rest.chars().next() {
            rest = rest.get(c.len_utf8()..).unwrap_or_default();
            let part = match c {
                '*' => UriPart::Star,
                '{' => {
                    let Some(end) = crate::strs::find_byte(rest, b'}') else {
                        return Err(invalid(cat!["URI matcher \"", text, "\" has a '{' without its '}'"]));
                    };
                    let name = rest.get(..end).unwrap_or_default();
                    rest = rest.get(end.saturating_add(1)..).unwrap_or_default();
                    let (reserved, name) = name.strip_prefix("+").map_or((false, name), |name| (true, name));
                    if name.is_empty() || crate::strs::find_byte(name, b'{').is_some() {
                        return Err(invalid(cat!["URI matcher \"", text, "\" has an empty or nested template variable"]));
                    }
                    if reserved {
                        UriPart::Reserved
                    } else {
                        UriPart::Segment
                    }
                }
                c => {
                    literal.push(c);
                    continue;
                }
            };
            if !literal.is_empty() {
                parts.push(UriPart::Literal(core::mem::take(&mut literal)));
            }
            parts.push(part);
        }
        if !literal.is_empty() {
            parts.push(UriPart::Literal(literal));
        }
        Ok(UriGlob { parts })
    }

    /// Whether `uri` is an instance of the glob; `None` for a URI longer than
    /// [`crate::pattern::INPUT_LIMIT`] bytes (not tested: callers fail closed). Tracks every
    /// position the parts so far can end at, so the cost is parts × length, never exponential.
    fn matches(&self, uri: &str) -> Option<bool> {
        if uri.len() > crate::pattern::INPUT_LIMIT {
            return None;
        }
        let bytes = uri.as_bytes();
        let mut at = vec![false; bytes.len().saturating_add(1)];
        if let Some(first) = at.first_mut() {
            *first = true;
        }
        for part in &self.parts {
            let mut next = vec![false; at.len()];
            match part {
                UriPart::Literal(text) => {
                    for (start, reached) in at.iter().enumerate() {
                        if *reached && bytes.get(start..).is_some_and(|tail| tail.starts_with(text.as_bytes())) {
                            if let Some(slot) = next.get_mut(start.saturating_add(text.len())) {
                                *slot = true;
                            }
                        }
                    }
                }
                UriPart::Star | UriPart::Segment | UriPart::Reserved => {
                    // Sweep left to right: a run goes on from a reached position or from the
                    // position before, as long as no `/` breaks it (for all but `{+name}`).
                    let slash_stops = !matches!(part, UriPart::Reserved);
                    let mut run = false;
                    for (index, reached) in at.iter().enumerate() {
                        let extended = run && index > 0;
                        if *part == UriPart::Star && *reached {
                            if let Some(slot) = next.get_mut(index) {
                                *slot = true;
                            }
                        }
                        if extended {
                            if let Some(slot) = next.get_mut(index) {
                                *slot = true;
                            }
                        }
                        let byte = bytes.get(index).copied();
                        let can_take = byte.is_some_and(|b| !(slash_stops && b == b'/'));
                        run = can_take && (*reached || extended);
                    }
                }
            }
            at = next;
        }
        Some(at.last().copied().unwrap_or(false))
    }
}

/// A tool's server and name in the form matchers compare.
#[derive(Debug, Clone)]
pub struct Target<'a> {
    server: String,
    name: String,
    raw_name: &'a str,
    /// What the `RegExp` matchers tested against this target may still spend.
    budget: Budget,
}

impl<'a> Target<'a> {
    /// Folds `server` and `name` once.
    pub fn new(server: &str, name: &'a str) -> Target<'a> {
        Target { server: loose(server), name: loose(name), raw_name: name, budget: Budget::default() }
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
        let mut parts = Vec::new();
        for part in crate::strs::split_bytes(&loose(pattern), b'*') {
            parts.push(part.to_owned());
        }
        Glob { parts }
    }

    fn is_any(&self) -> bool {
        for part in &self.parts {
            if !part.is_empty() {
                return false;
            }
        }
        true
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
        match crate::strs::find(remaining, part) {
            Some(at) => remaining = remaining.get(at.saturating_add(part.len())..).unwrap_or_default(),
            None => return false,
        }
    }
    remaining.len() >= last.len() && remaining.ends_with(last.as_str())
}

/// The loose form of a name: ASCII lower-cased, with `-` and `.` turned into `_`. Other
/// characters are kept as they are (tool names are ASCII; a server id that is not still
/// compares exactly).
pub fn loose(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        out.push(match c {
            '-' | '.' => '_',
            c => c.to_ascii_lowercase(),
        });
    }
    out
}

fn server_glob(server: &str) -> Result<Glob, ConfigError> {
    if server.is_empty() {
        return Err(invalid("a matcher's server segment cannot be empty (use '*/tool' or a bare 'tool')".into()));
    }
    Ok(Glob::new(server))
}

fn compile_regex(source: &str, flags: &str) -> Result<Pattern, ConfigError> {
    Pattern::compile(source, flags, crate::pattern::unsafe_allowed())
        .map_err(|error| pattern_error(&cat!["RegExp /", source, "/", flags], source, flags, &error))
}

/// The error for a pattern that did not compile: `invalid_pattern` for one the engine refused
/// (`<what>: <the engine's reason>`, without the engine's own repetition of the pattern), and
/// `unsafe_pattern` for one refused for the time it could take (`docs/behaviour.md`, "Patterns").
pub(crate) fn pattern_error(what: &str, source: &str, flags: &str, error: &PatternError) -> ConfigError {
    let reason = match error {
        PatternError::Invalid(reason) => reason,
        PatternError::Unsafe(why) => return ConfigError::new("unsafe_pattern", cat![what, " ", why]),
    };
    // The engine names the pattern with the flags it was given, which never hold `g` or `y`.
    let kept = crate::pattern::without_gy(flags);
    let prefix = cat!["Invalid regular expression: /", source, "/", kept, ": "];
    let detail = reason.strip_prefix(prefix.as_str()).unwrap_or(reason);
    ConfigError::new("invalid_pattern", cat![what, " is not a valid pattern: ", detail])
}

fn invalid(message: String) -> ConfigError {
    ConfigError::new("invalid_matcher", message)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::arithmetic_side_effects)]
mod tests {
    use alloc::format;

    use super::*;

    fn regex(source: &str, flags: &str) -> Value {
        Value::Regex { source: source.into(), flags: flags.into() }
    }

    #[test]
    fn every_tool_spellings() {
        for text in EVERY_TOOL.iter().copied().chain(["*/*"]) {
            let matcher = Matcher::from_text(text).unwrap();
            assert_eq!(matcher.level(), Level::All, "{text}");
            assert!(matcher.matches("shop", "anything"), "{text}");
        }
        // 'any' is only special alone: as a segment it is a name like any other.
        assert!(!Matcher::from_text("shop/any").unwrap().matches("shop", "other"));
        assert!(Matcher::from_text("shop/any").unwrap().matches("shop", "ANY"));
    }

    #[test]
    fn loose_folding_is_ascii() {
        assert_eq!(loose("Read-File.v2"), "read_file_v2");
        // Non-ASCII letters are not folded (no Unicode tables), and never equal an ASCII one.
        assert_eq!(loose("ÉTÉ"), "ÉtÉ");
        assert!(Matcher::from_text("fs/read_file").unwrap().matches("FS", "Read-File"));
    }

    #[test]
    fn regexps_run_on_the_pattern_engine() {
        let matcher = Matcher::compile(&regex("^read", "i")).unwrap();
        assert!(matcher.matches("any", "READ_file"));
        assert!(!matcher.matches("any", "write"));
        let scoped = Matcher::compile(&crate::object! { "server" => "SHOP", "name" => regex("order$", "") }).unwrap();
        assert_eq!(scoped.test(&Target::new("shop", "new_order")), Some(true));
        assert_eq!(scoped.test(&Target::new("blog", "new_order")), Some(false));
    }

    #[test]
    fn a_name_the_engine_cannot_test_is_none_and_runs_a_hook() {
        let matcher = Matcher::compile(&regex("^a", "")).unwrap();
        let long = "a".repeat(crate::pattern::INPUT_LIMIT + 1);
        assert_eq!(matcher.test(&Target::new("s", &long)), None);
        assert!(matcher.matches("s", &long));
    }

    #[test]
    fn refused_patterns_and_shapes() {
        let error = Matcher::compile(&regex("(", "g")).unwrap_err();
        assert_eq!(error.code, "invalid_pattern");
        assert!(error.message.starts_with("RegExp /(/g is not a valid pattern: "), "{}", error.message);
        assert!(!error.message.contains("Invalid regular expression"), "{}", error.message);
        for bad in [Value::Null, Value::Number(3.0), Value::Function(1), Value::Unsupported("a BigInt".into())] {
            let error = Matcher::compile(&bad).unwrap_err();
            assert_eq!(error.code, "invalid_matcher");
            assert!(error.message.ends_with(bad.type_name()), "{}", error.message);
        }
        let error = Matcher::from_text("shop/bad name").unwrap_err();
        assert!(error.message.contains("(found ' ')"), "{}", error.message);
    }

    #[test]
    fn uri_templates_and_globs_match_exactly() {
        let uri = |text: &str| Matcher::compile_uri(&Value::from(text)).unwrap();
        let test = |m: &Matcher, u: &str| m.test(&Target::new("page", u));
        let profile = uri("user://{id}/profile");
        assert_eq!(profile.level(), Level::Tool);
        assert_eq!(test(&profile, "user://42/profile"), Some(true));
        assert_eq!(test(&profile, "user:///profile"), Some(false), "a variable is one character or more");
        assert_eq!(test(&profile, "user://4/2/profile"), Some(false), "{{id}} stops at a slash");
        assert_eq!(test(&profile, "USER://42/profile"), Some(false), "URIs compare exactly");
        assert_eq!(test(&profile, "user://42/profile/x"), Some(false));
        let path = uri("file:///{+path}");
        assert_eq!(test(&path, "file:///a/b/c.txt"), Some(true), "{{+path}} crosses slashes");
        assert_eq!(test(&path, "file:///"), Some(false));
        let star = uri("docs://*/readme");
        assert_eq!(test(&star, "docs://app/readme"), Some(true));
        assert_eq!(test(&star, "docs:///readme"), Some(true), "a star may be empty");
        assert_eq!(test(&star, "docs://a/b/readme"), Some(false));
        let several = uri("a*b*c{x}d");
        assert_eq!(test(&several, "aXbYcZd"), Some(true));
        assert_eq!(test(&several, "abcd"), Some(false));
        assert_eq!(test(&several, "a-b-b-cc-d"), Some(true), "tries every split, not only the first");
        assert_eq!(uri("*").level(), Level::All);
        assert_eq!(test(&uri("any"), "whatever://x"), Some(true));
        let long = format!("user://{}/profile", "9".repeat(crate::pattern::INPUT_LIMIT));
        assert_eq!(test(&profile, &long), None, "too long to test: callers fail closed");
        let regex = Matcher::compile_uri(&regex("^user://\\d+/", "")).unwrap();
        assert_eq!(test(&regex, "user://42/profile"), Some(true));
        for bad in ["", "user://{id", "user://{}/p", "user://{+}/p", "a{b{c}d}"] {
            assert_eq!(Matcher::compile_uri(&Value::from(bad)).unwrap_err().code, "invalid_matcher", "{bad}");
        }
    }
}
