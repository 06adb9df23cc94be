//! `lintPolicy`: every problem `compile` would refuse, plus what is legal but almost certainly
//! a mistake: rules that can never fire, limits that can never refuse a call, duplicate ids,
//! annotation hints nobody sets.
//!
//! Shadowing is only reported when it is provable from the text of the rules: an earlier rule
//! (same list) or a rule of a list checked earlier covers the later one's matcher and asks for
//! no condition the later one does not also ask for. Anything less certain stays silent.

use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec::Vec;

use super::keys::suggest;
use super::predicate::KNOWN_HINTS;
use super::rule::raw_parts;
use super::{parse, List};
use crate::error::ConfigError;
use crate::matcher::{loose, EVERY_TOOL};
use crate::strs::{cat, decimal_usize};
use crate::value::{Map, Value};

/// One finding of [`lint`]: `{ code, message, path }`, `path` naming the rule (`allow[0]`) or
/// the part of it (`deny[1].when[0]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// A stable machine code: a compile error's code, or `shadowed_rule`, `duplicate_rule_id`,
    /// `unknown_annotation`, `pattern_linear`, `pattern_unsafe`.
    pub code: &'static str,
    /// One sentence for a person, starting with the path.
    pub message: String,
    /// Where the problem is.
    pub path: String,
}

impl Diagnostic {
    /// `{ code, message, path }`, as `lintPolicy()` answers it (`path` always present).
    pub fn to_value(&self) -> Value {
        let mut map = Map::new();
        map.insert("code", self.code.into());
        map.insert("message", self.message.as_str().into());
        map.insert("path", self.path.as_str().into());
        Value::Object(map)
    }
}

impl From<ConfigError> for Diagnostic {
    fn from(error: ConfigError) -> Diagnostic {
        Diagnostic {
            code: error.code,
            message: error.message,
            path: error.path,
        }
    }
}

/// Lints a policy given as the same JSON [`Policy::compile`](super::Policy::compile) takes.
/// Reports all problems, not just the first; an empty list means nothing was found.
pub fn lint(spec: &Value) -> Vec<Diagnostic> {
    let mut errors = Vec::new();
    let draft = parse(spec, &mut errors);
    let mut found: Vec<Diagnostic> = Vec::with_capacity(errors.len());
    for error in errors {
        found.push(Diagnostic::from(error));
    }
    let Some(draft) = draft else { return found };
    let mut entries: Vec<Entry<'_>> = Vec::new();
    for &list in &List::ALL {
        let Some(raw) = spec.get(list.name()).and_then(Value::as_array) else { continue };
        let compiled = draft.rules(list);
        for (index, value) in raw.iter().enumerate() {
            let Some((matcher, when)) = raw_parts(value) else { continue };
            let shape = match compiled.get(index) {
                Some(Some(_)) => Shape::of(matcher),
                _ => None,
            };
            entries.push(Entry { list, index, shape, matcher, when, id: value.get("id").and_then(Value::as_str) });
        }
    }
    for (position, entry) in entries.iter().enumerate() {
        let earlier = entries.get(..position).unwrap_or_default();
        if let Some(found_one) = duplicate_id(entry, earlier) {
            found.push(found_one);
        }
        unknown_hints(entry, &mut found);
        if let Some(found_one) = shadowed(entry, earlier) {
            found.push(found_one);
        }
        slow_patterns(entry, &mut found);
    }
    lint_limits(spec, &mut found);
    found
}

/// The rule's patterns (a `RegExp` matcher, `matches` predicates) that the page's backtracking
/// engine cannot run on every string: where each runs instead (`docs/behaviour.md`,
/// "Patterns"). Patterns refused outright are compile errors, reported above.
fn slow_patterns(entry: &Entry<'_>, found: &mut Vec<Diagnostic>) {
    // (path, source, flags, opted in to unsafe patterns)
    let mut patterns: Vec<(String, &str, &str, bool)> = Vec::new();
    match entry.matcher {
        Some(Value::Regex { source, flags }) => patterns.push((String::from("match"), source, flags, false)),
        Some(Value::Object(map)) => {
            if let Some(Value::Regex { source, flags }) = map.get("name") {
                patterns.push((String::from("match.name"), source, flags, false));
            }
        }
        _ => {}
    }
    for (path, predicate) in &entry.when {
        let opted = predicate.get("unsafePattern") == Some(&Value::Bool(true));
        match predicate.get("matches") {
            Some(Value::String(source)) => patterns.push((cat![path, ".matches"], source, "", opted)),
            Some(Value::Regex { source, flags }) => patterns.push((cat![path, ".matches"], source, flags, opted)),
            _ => {}
        }
    }
    for (path, source, flags, opted) in patterns {
        let allowed = opted || crate::pattern::unsafe_allowed();
        let Ok(pattern) = crate::pattern::Pattern::compile(source, flags, allowed) else { continue };
        let Some(judgement) = pattern.judgement() else { continue };
        let (code, short, how) = match judgement.route {
            Some(crate::pattern::Route::Split { short }) => ("pattern_linear", short, "; longer strings are tested on the linear-time engine"),
            Some(crate::pattern::Route::Unsafe { short }) => ("pattern_unsafe", short, "; it runs only because the page opted in (unsafePatterns), and longer strings are not tested (the rule fails closed)"),
            _ => continue,
        };
        let where_ = cat![entry.path(), ".", path];
        let message = cat![
            where_.as_str(),
            ": the pattern /",
            source,
            "/",
            flags,
            " ",
            judgement.slowness().unwrap_or_default(),
            engine_phrase(code, short, how).as_str()
        ];
        found.push(Diagnostic { code, message, path: where_ });
    }
}

/// Where a slow pattern runs, as the end of its lint message: a split pattern too slow for any
/// string runs on the linear-time engine alone.
fn engine_phrase(code: &str, short: u32, how: &str) -> String {
    if short == 0 && code == "pattern_linear" {
        return String::from(", so every string is tested on the linear-time engine");
    }
    cat![" on the page's backtracking engine, which tests strings of at most ", crate::strs::decimal(short), " characters", how]
}

/// Every problem of the policy's limits, and a limit that can never refuse a call: an earlier
/// one selects every call it does (its matcher covers this one's), counts by the same key, has
/// at least as tight a bound for each bound this one has (over the same window; the same cost
/// for a budget), and decides at least as much (a deny limit, or both ask): it counts every call
/// this one counts, so it refuses first.
fn lint_limits(spec: &Value, found: &mut Vec<Diagnostic>) {
    let mut errors = Vec::new();
    let limits = super::limits::parse_limits(spec.get("limits"), &mut errors);
    for error in errors {
        found.push(Diagnostic::from(error));
    }
    let Some(items) = spec.get("limits").and_then(Value::as_array) else { return };
    for (index, item) in items.iter().enumerate() {
        let (Some(Some(limit)), Some(shape)) = (limits.get(index), Shape::of(item.get("match"))) else { continue };
        for (earlier, cover) in items.iter().enumerate().take(index) {
            let Some(Some(tighter)) = limits.get(earlier) else { continue };
            if Shape::of(cover.get("match")).is_some_and(|cover| cover.covers(&shape)) && super::limits::covers(tighter, limit) {
                let path = cat!["limits[", decimal_usize(index), "]"];
                found.push(Diagnostic {
                    code: "shadowed_limit",
                    message: cat![path, ": this limit can never refuse a call: limits[", decimal_usize(earlier), "] counts every call it counts, by the same key, with bounds at least as tight, and comes first"],
                    path,
                });
                break;
            }
        }
    }
}

/// A rule as lint sees it: where it is, its matcher's shape (`None` when it did not compile or
/// cannot be reasoned about) and its conditions as written.
struct Entry<'a> {
    list: List,
    index: usize,
    shape: Option<Shape>,
    matcher: Option<&'a Value>,
    when: Vec<(String, &'a Value)>,
    id: Option<&'a str>,
}

impl Entry<'_> {
    fn path(&self) -> String {
        cat![self.list.name(), "[", decimal_usize(self.index), "]"]
    }

    /// The matcher as the user wrote it, for messages.
    fn matcher_text(&self) -> String {
        match self.matcher {
            None => "'*'".to_owned(),
            Some(Value::String(text)) => cat!["'", text, "'"],
            Some(Value::Regex { source, flags }) => cat!["/", source, "/", flags],
            Some(other) => {
                let server = other.get("server").and_then(Value::as_str).unwrap_or_default();
                match other.get("name") {
                    Some(Value::Regex { source, flags }) => {
                        cat!["{ server: '", server, "', name: /", source, "/", flags, " }"]
                    }
                    _ => cat!["{ server: '", server, "' }"],
                }
            }
        }
    }
}

/// What a matcher selects, in loose form, as far as coverage can be proven.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Shape {
    /// Every tool.
    All,
    /// A `*` glob on the tool name, on servers matching `server` (`None`: every server).
    Glob {
        server: Option<String>,
        tool: String,
    },
    /// A `RegExp` on the tool name, on servers matching `server` (`None`: every server).
    Regex {
        server: Option<String>,
        source: String,
        flags: String,
    },
}

impl Shape {
    /// The shape of a matcher as written (`None`: the rule's default, every tool).
    fn of(matcher: Option<&Value>) -> Option<Shape> {
        let Some(matcher) = matcher else {
            return Some(Shape::All);
        };
        match matcher {
            Value::String(text) if EVERY_TOOL.contains(&text.as_str()) => Some(Shape::All),
            Value::String(text) => {
                let (server, tool) = match crate::strs::split_byte(text, b'/') {
                    Some((server, tool)) => (server_glob(server), loose(tool)),
                    None => (None, loose(text)),
                };
                match (&server, is_any(&tool)) {
                    (None, true) => Some(Shape::All),
                    _ => Some(Shape::Glob { server, tool }),
                }
            }
            Value::Regex { source, flags } => Some(Shape::Regex {
                server: None,
                source: source.clone(),
                flags: flags.clone(),
            }),
            Value::Object(map) => match map.get("name")? {
                Value::Regex { source, flags } => Some(Shape::Regex {
                    server: map
                        .get("server")
                        .and_then(Value::as_str)
                        .and_then(server_glob),
                    source: source.clone(),
                    flags: flags.clone(),
                }),
                _ => None,
            },
            _ => None,
        }
    }

    /// Whether every tool `other` selects is provably selected by `self`.
    fn covers(&self, other: &Shape) -> bool {
        match (self, other) {
            (Shape::All, _) => true,
            (_, Shape::All) => false,
            (
                Shape::Glob {
                    server: a,
                    tool: ta,
                },
                Shape::Glob {
                    server: b,
                    tool: tb,
                },
            ) => server_covers(a.as_deref(), b.as_deref()) && glob_covers(ta, tb),
            (Shape::Glob { server: a, tool }, Shape::Regex { server: b, .. }) => {
                server_covers(a.as_deref(), b.as_deref()) && is_any(tool)
            }
            (
                Shape::Regex {
                    server: a,
                    source: sa,
                    flags: fa,
                },
                Shape::Regex {
                    server: b,
                    source: sb,
                    flags: fb,
                },
            ) => server_covers(a.as_deref(), b.as_deref()) && sa == sb && fa == fb,
            (Shape::Regex { .. }, Shape::Glob { .. }) => false,
        }
    }
}

/// A server segment in loose form; `None` when it is all stars (every server).
fn server_glob(server: &str) -> Option<String> {
    let server = loose(server);
    (!is_any(&server)).then_some(server)
}

fn is_any(glob: &str) -> bool {
    glob.chars().all(|c| c == '*')
}

fn server_covers(a: Option<&str>, b: Option<&str>) -> bool {
    match (a, b) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(a), Some(b)) => glob_covers(a, b),
    }
}

/// Whether glob `a` matches everything glob `b` matches (both loose). Proven cases only: `a` is
/// all stars; `a` equals `b`; `a` is `prefix*` and `b` starts with that prefix (every string `b`
/// matches then starts with it); `a` is `*suffix` and `b` ends with that suffix.
fn glob_covers(a: &str, b: &str) -> bool {
    if is_any(a) || a == b {
        return true;
    }
    if let Some(prefix) = a.strip_suffix("*").filter(|prefix| crate::strs::find_byte(prefix, b'*').is_none()) {
        return b.starts_with(prefix);
    }
    if let Some(suffix) = a.strip_prefix("*").filter(|suffix| crate::strs::find_byte(suffix, b'*').is_none()) {
        return b.ends_with(suffix);
    }
    false
}

/// A rule can never fire when a rule checked before it covers its matcher and every condition
/// of that rule is also one of its own (so whenever it would match, the earlier one matches
/// first). Function predicates compare by handle: one handle gives one answer per evaluation,
/// and a failure counts for the earlier rule at least as much as for the later one (deny and
/// ask fail closed, allow comes last).
fn shadowed(entry: &Entry<'_>, earlier: &[Entry<'_>]) -> Option<Diagnostic> {
    let shape = entry.shape.as_ref()?;
    // Earlier lists first: the deny that hides an allow is the more useful thing to say.
    let covers = |other: &Entry<'_>| {
        other.shape.as_ref().is_some_and(|other_shape| other_shape.covers(shape))
            && other.when.iter().all(|(_, condition)| entry.when.iter().any(|(_, own)| same_condition(own, condition)))
    };
    let mut cover = None;
    for &same_list in &[false, true] {
        for other in earlier {
            if cover.is_none() && (other.list == entry.list) == same_list && covers(other) {
                cover = Some(other);
            }
        }
    }
    let cover = cover?;
    let how = if cover.when.is_empty() {
        "unconditionally"
    } else {
        "under conditions it also has"
    };
    let order = if cover.list == entry.list {
        "and comes first".to_owned()
    } else {
        cat!["and ", cover.list.name(), " is checked before ", entry.list.name()]
    };
    let path = entry.path();
    Some(Diagnostic {
        code: "shadowed_rule",
        message: cat![
            path,
            ": this rule can never fire: ",
            cover.path(),
            " (",
            cover.matcher_text(),
            ") matches every call it matches, ",
            how,
            ", ",
            order
        ],
        path,
    })
}

/// Whether two conditions are provably the same: equal as written (functions by handle,
/// `RegExp`s by source and flags), or equal as JSON with members in another order.
fn same_condition(a: &Value, b: &Value) -> bool {
    a == b || a.json_eq(b)
}

/// A rule reusing an id already given to an earlier rule.
fn duplicate_id(entry: &Entry<'_>, earlier: &[Entry<'_>]) -> Option<Diagnostic> {
    let id = entry.id?;
    let first = earlier.iter().find(|other| other.id == Some(id))?;
    let path = entry.path();
    Some(Diagnostic {
        code: "duplicate_rule_id",
        message: cat![
            path,
            ": the id \"",
            id,
            "\" is already used by ",
            first.path(),
            ", so decisions naming it are ambiguous"
        ],
        path,
    })
}

/// Annotation hints that neither the WebMCP draft nor MCP defines: a misspelt hint never
/// matches, which in a deny rule is a silent hole.
fn unknown_hints(entry: &Entry<'_>, found: &mut Vec<Diagnostic>) {
    let rule = entry.path();
    for (at, condition) in &entry.when {
        let Some(hints) = condition.get("annotation").and_then(Value::as_object) else { continue };
        for (hint, _) in hints.iter() {
            if KNOWN_HINTS.contains(&hint.as_str()) {
                continue;
            }
            let path = cat![rule, ".", at];
            let near = suggest(hint, &KNOWN_HINTS).map(|near| cat![" (did you mean \"", near, "\"?)"]).unwrap_or_default();
            found.push(Diagnostic {
                code: "unknown_annotation",
                message: cat![
                    path,
                    ": \"",
                    hint,
                    "\" is not an annotation the WebMCP draft or MCP defines",
                    near,
                    "; a tool without it reads as false"
                ],
                path,
            });
        }
    }
}
