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
//! `RegExp` is tested against the whole URI. The URI is always in its canonical form
//! ([`crate::uri`]), so a glob whose literal text no canonical URI holds (`%2f`, `%41`, `é`) is
//! refused: it could never match.
//!
//! A resource's own URI template ([`UriTemplate`]) is read by the same code, with `*` a
//! character and no variable crossing `?` or `#`; it also answers the variables of a URI, with a
//! documented rule for which split wins ([`UriTemplate::variables`]). Both match in time linear in
//! the URI times the number of parts, without backtracking.
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
            Value::String(text) => Ok(Matcher { kind: Kind::Uri(UriGlob::new::<false>(text)?), level: Level::Tool }),
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

/// How a URI glob reads its text: a rule's matcher, or a resource's URI template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum UriMode {
    /// A hook's or policy rule's matcher: `*` is a glob, and `{+name}` crosses `?` and `#` too
    /// (a deny on `file:///secrets/{+rest}` covers `file:///secrets/key?v=1`).
    Matcher,
    /// A resource's URI template: `*` is a character, and no variable holds a `?` or a `#`
    /// (a variable is taken from the path, or from a query the template writes out).
    Template,
}

/// One part of a URI glob.
#[derive(Debug, Clone, PartialEq, Eq)]
enum UriPart {
    /// Exactly this text.
    Literal(String),
    /// `*`: any run of characters without `/`, empty too (matchers only).
    Star,
    /// `{name}`: one or more characters without `/`; `{+name}` (`reserved`): one or more of any
    /// (in templates, neither holds `?` or `#`).
    Var { name: String, reserved: bool },
}

/// The most variables a resource's URI template may have: a match keeps one row of flags per
/// variable, a byte for each position of the URI ([`UriTemplate::variables`]), so this bounds
/// its memory at the URI length cap.
pub const MAX_TEMPLATE_VARIABLES: usize = 16;

/// A URI glob or template, compared exactly.
#[derive(Debug, Clone)]
struct UriGlob {
    parts: Vec<UriPart>,
    mode: UriMode,
    /// A template where each variable can end at one place only: it is last, or the text after
    /// it starts with a character it cannot take (`user://{id}/profile`). Its variables are then
    /// read in one walk from the left, with no sweep ([`UriGlob::captures`]).
    one_split: bool,
}

impl UriGlob {
    /// Compiles a matcher (`TEMPLATE` false) or a template. A parameter of the type rather than
    /// a value, so that the core module, which compiles matchers only, carries no template code.
    fn new<const TEMPLATE: bool>(text: &str) -> Result<UriGlob, ConfigError> {
        let mode = if TEMPLATE { UriMode::Template } else { UriMode::Matcher };
        let what = if TEMPLATE { "URI template \"" } else { "URI matcher \"" };
        let fail = |why: &str| {
            let code = if TEMPLATE { "invalid_uri" } else { "invalid_matcher" };
            ConfigError::new(code, cat![what, text, "\" ", why])
        };
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut variables = 0usize;
        let mut rest = text;
        while let Some(c) = rest.chars().next() {
            rest = rest.get(c.len_utf8()..).unwrap_or_default();
            let part = match c {
                '*' if !TEMPLATE => UriPart::Star,
                '}' if TEMPLATE => return Err(fail("has a '}' without its '{'")),
                '{' => {
                    let Some(end) = crate::strs::find_byte(rest, b'}') else {
                        return Err(fail("has a '{' without its '}'"));
                    };
                    let inner = rest.get(..end).unwrap_or_default();
                    rest = rest.get(end.saturating_add(1)..).unwrap_or_default();
                    let (reserved, name) = inner.strip_prefix("+").map_or((false, inner), |name| (true, name));
                    if TEMPLATE {
                        let is_name = !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'%'));
                        if !is_name {
                            return Err(fail(&cat!["has a template variable that is empty or not a name: {", inner, "}"]));
                        }
                        for part in &parts {
                            if matches!(part, UriPart::Var { name: seen, .. } if seen == name) {
                                return Err(fail(&cat!["has the variable \"", name, "\" twice"]));
                            }
                        }
                        variables = variables.saturating_add(1);
                        if variables > MAX_TEMPLATE_VARIABLES {
                            return Err(fail(&cat!["has more than ", crate::strs::decimal_usize(MAX_TEMPLATE_VARIABLES), " variables"]));
                        }
                    } else if name.is_empty() || crate::strs::find_byte(name, b'{').is_some() {
                        return Err(fail("has an empty or nested template variable"));
                    }
                    UriPart::Var { name: name.to_owned(), reserved }
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
        for part in &parts {
            if matches!(part, UriPart::Literal(literal) if !can_be_canonical(literal)) {
                return Err(fail(
                    "can never match: URIs are compared in their canonical form, which is ASCII without control characters, with escapes in upper case (%2F) and only of characters that need one (write '~', not %7E)",
                ));
            }
        }
        let mut glob = UriGlob { parts, mode, one_split: false };
        if TEMPLATE {
            glob.one_split = glob.parts.iter().zip(glob.parts.iter().skip(1).map(Some).chain([None])).all(|(part, next)| match (part, next) {
                (UriPart::Literal(_), _) | (_, None) => true,
                (_, Some(UriPart::Literal(text))) => text.as_bytes().first().is_some_and(|first| glob.stops(part, *first)),
                (_, Some(_)) => false,
            });
        }
        Ok(glob)
    }

    /// Whether `part` (a run) cannot take `byte`.
    fn stops(&self, part: &UriPart, byte: u8) -> bool {
        let ends = self.mode == UriMode::Template && (byte == b'?' || byte == b'#');
        match part {
            UriPart::Literal(_) => true,
            UriPart::Star => byte == b'/',
            UriPart::Var { reserved, .. } => ends || (!*reserved && byte == b'/'),
        }
    }

    /// Whether `uri` is an instance of the glob; `None` for a URI longer than
    /// [`crate::pattern::INPUT_LIMIT`] bytes (not tested: callers fail closed).
    fn matches(&self, uri: &str) -> Option<bool> {
        if uri.len() > crate::pattern::INPUT_LIMIT {
            return None;
        }
        Some(self.sweep::<false>(uri.as_bytes(), &mut Vec::new()).get(0))
    }

    /// The text each variable takes when `uri` is an instance of the glob, in order; `None`
    /// when it is not one, or is longer than [`crate::pattern::INPUT_LIMIT`] bytes.
    ///
    /// RFC 6570 matching is ambiguous (`x://{+a}/{+b}` against `x://p/q/r`), so one split is
    /// chosen: each variable, from the left, takes the longest text that still lets the rest of
    /// the template match (`a = p/q`, `b = r`), as a backtracking regular expression of greedy
    /// groups would, but found without backtracking: a sweep from the right marks, for each
    /// part, every position from which the rest can match, then a walk from the left takes the
    /// furthest marked end for each variable. Parts × length, never more.
    fn captures<'u>(&self, uri: &'u str) -> Option<Vec<(&str, &'u str)>> {
        if uri.len() > crate::pattern::INPUT_LIMIT || !self.ends_fit(uri) {
            return None;
        }
        let bytes = uri.as_bytes();
        if self.one_split {
            return self.only_split(uri);
        }
        let mut rows = Vec::new();
        if !self.sweep::<true>(bytes, &mut rows).get(0) {
            return None;
        }
        let mut values = Vec::new();
        let mut at = 0usize;
        let mut rows = rows.iter().rev();
        for part in &self.parts {
            let (name, least) = match part {
                UriPart::Literal(text) => {
                    at = at.saturating_add(text.len());
                    continue;
                }
                UriPart::Star => (None, 0usize),
                UriPart::Var { name, .. } => (Some(name.as_str()), 1usize),
            };
            let after = rows.next()?;
            let mut limit = at;
            while bytes.get(limit).is_some_and(|byte| !self.stops(part, *byte)) {
                limit = limit.saturating_add(1);
            }
            let shortest = at.saturating_add(least);
            let mut end = limit;
            while !(end >= shortest && after.get(end)) {
                end = end.checked_sub(1).filter(|end| *end >= shortest)?;
            }
            if let Some(name) = name {
                values.push((name, uri.get(at..end)?));
            }
            at = end;
        }
        Some(values)
    }

    /// [`UriGlob::captures`] for a template of one possible split (`one_split`): each variable
    /// runs to the first character it cannot take, where the text after it must start (or to
    /// the end, for the last one), so the walk from the left finds the split or that there is
    /// none.
    fn only_split<'u>(&self, uri: &'u str) -> Option<Vec<(&str, &'u str)>> {
        let bytes = uri.as_bytes();
        let mut values = Vec::new();
        let mut at = 0usize;
        for part in &self.parts {
            match part {
                UriPart::Literal(text) => {
                    if !bytes.get(at..)?.starts_with(text.as_bytes()) {
                        return None;
                    }
                    at = at.saturating_add(text.len());
                }
                UriPart::Var { name, .. } => {
                    let mut end = at;
                    while bytes.get(end).is_some_and(|byte| !self.stops(part, *byte)) {
                        end = end.saturating_add(1);
                    }
                    if end == at {
                        return None;
                    }
                    values.push((name.as_str(), uri.get(at..end)?));
                    at = end;
                }
                UriPart::Star => return None,
            }
        }
        (at == bytes.len()).then_some(values)
    }

    /// A cheap first test: the URI starts with the glob's first literal and ends with its last.
    fn ends_fit(&self, uri: &str) -> bool {
        let first = match self.parts.first() {
            Some(UriPart::Literal(text)) => uri.starts_with(text.as_str()),
            _ => true,
        };
        let last = match self.parts.last() {
            Some(UriPart::Literal(text)) => uri.ends_with(text.as_str()),
            _ => true,
        };
        first && last
    }

    /// The sweep from the right: answers the row of the first part (bit `p`: the whole glob
    /// matches the URI from byte `p` to its end). With `KEEP`, each run's following row is put in
    /// `kept` (last run first), for [`UriGlob::captures`].
    fn sweep<const KEEP: bool>(&self, bytes: &[u8], kept: &mut Vec<Bits>) -> Bits {
        let n = bytes.len();
        let mut after = Bits::new(n.saturating_add(1));
        after.set(n);
        for part in self.parts.iter().rev() {
            let mut row = Bits::new(n.saturating_add(1));
            match part {
                UriPart::Literal(text) => {
                    let text = text.as_bytes();
                    for start in 0..=n.saturating_sub(text.len()) {
                        let end = start.saturating_add(text.len());
                        if end <= n && after.get(end) && bytes.get(start..end).is_some_and(|found| found == text) {
                            row.set(start);
                        }
                    }
                }
                UriPart::Star | UriPart::Var { .. } => {
                    let empty_too = matches!(part, UriPart::Star);
                    if empty_too && after.get(n) {
                        row.set(n);
                    }
                    // `longer`: a run of one character or more from the next position reaches a
                    // marked end, without a character the run cannot take.
                    let mut longer = false;
                    for (start, byte) in bytes.iter().enumerate().rev() {
                        longer = !self.stops(part, *byte) && (after.get(start.saturating_add(1)) || longer);
                        if longer || (empty_too && after.get(start)) {
                            row.set(start);
                        }
                    }
                }
            }
            let done = core::mem::replace(&mut after, row);
            if KEEP && !matches!(part, UriPart::Literal(_)) {
                kept.push(done);
            }
        }
        after
    }
}

/// Whether literal text of a URI glob can appear in a canonical URI (`crate::uri`): canonical
/// URIs are ASCII without control characters, and their escapes are upper case and never of an
/// unreserved character.
fn can_be_canonical(literal: &str) -> bool {
    let bytes = literal.as_bytes();
    let mut at = 0usize;
    while let Some(&byte) = bytes.get(at) {
        at = at.saturating_add(1);
        if !(0x20..0x7f).contains(&byte) {
            return false;
        }
        if byte == b'%' {
            let (Some(high), Some(low)) = (upper_hex(bytes.get(at)), upper_hex(bytes.get(at.saturating_add(1)))) else { return false };
            if is_unreserved(high.wrapping_mul(16).wrapping_add(low)) {
                return false;
            }
            at = at.saturating_add(2);
        }
    }
    true
}

/// The value of an upper-case hex digit.
fn upper_hex(digit: Option<&u8>) -> Option<u8> {
    match *digit? {
        digit @ b'0'..=b'9' => Some(digit.wrapping_sub(b'0')),
        digit @ b'A'..=b'F' => Some(digit.wrapping_sub(b'A').wrapping_add(10)),
        _ => None,
    }
}

/// RFC 3986's unreserved characters: `A-Z a-z 0-9 - . _ ~`.
pub(crate) fn is_unreserved(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~')
}

/// A row of flags, one per position of a URI (and one past its end). A byte each rather than a
/// bit: the core module's matchers use it too, and bytes cost it less code.
#[derive(Debug, Clone)]
struct Bits(Vec<bool>);

impl Bits {
    fn new(len: usize) -> Bits {
        Bits(vec![false; len])
    }

    fn get(&self, at: usize) -> bool {
        self.0.get(at).copied().unwrap_or(false)
    }

    fn set(&mut self, at: usize) {
        if let Some(bit) = self.0.get_mut(at) {
            *bit = true;
        }
    }
}

/// A resource's URI template (`user://{id}/profile`): RFC 6570's simple `{name}` and reserved
/// `{+name}` expansions, read back from a canonical URI (`crate::uri`). `{name}` is one or more
/// characters other than `/`, `?` and `#`; `{+name}` one or more other than `?` and `#`;
/// everything else is literal text, `*` included. Variable names are `A-Z a-z 0-9 _ . %`, each
/// once, at most [`MAX_TEMPLATE_VARIABLES`].
#[derive(Debug, Clone)]
pub struct UriTemplate(UriGlob);

impl UriTemplate {
    /// Whether a resource's `uri` is a template (it holds a `{` or a `}`) rather than a URI.
    pub fn is_template(uri: &str) -> bool {
        crate::strs::find_byte(uri, b'{').is_some() || crate::strs::find_byte(uri, b'}').is_some()
    }

    /// Compiles a template.
    ///
    /// # Errors
    /// `invalid_uri` for an unclosed `{` or a stray `}`, a variable that is not a name or is
    /// there twice, too many variables, or literal text no canonical URI holds.
    pub fn compile(text: &str) -> Result<UriTemplate, ConfigError> {
        UriGlob::new::<true>(text).map(UriTemplate)
    }

    /// The variables of `uri` as an instance of the template, as `(name, value)` in the
    /// template's order; `None` when it is not one (or is longer than
    /// [`crate::pattern::INPUT_LIMIT`] bytes). Where several splits fit (`x://{+a}/{+b}` against
    /// `x://p/q/r`), each variable from the left takes the longest text that lets the rest match
    /// (`a = p/q`, `b = r`), found in time linear in the URI times the template's parts.
    pub fn variables<'u>(&self, uri: &'u str) -> Option<Vec<(&str, &'u str)>> {
        self.0.captures(uri)
    }

    /// An instance with `x` for each variable: the TS layer checks that it is canonical, so a
    /// template whose literal text no canonical URI holds is refused when it is defined.
    pub fn sample(&self) -> String {
        let mut out = String::new();
        for part in &self.0.parts {
            match part {
                UriPart::Literal(text) => out.push_str(text),
                UriPart::Star => out.push('*'),
                UriPart::Var { .. } => out.push('x'),
            }
        }
        out
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
pub fn pattern_error(what: &str, source: &str, flags: &str, error: &PatternError) -> ConfigError {
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

    fn vars(template: &str, uri: &str) -> Option<alloc::vec::Vec<(String, String)>> {
        let template = UriTemplate::compile(template).unwrap();
        Some(template.variables(uri)?.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect())
    }

    fn pairs(items: &[(&str, &str)]) -> Option<alloc::vec::Vec<(String, String)>> {
        Some(items.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect())
    }

    #[test]
    fn templates_read_their_variables_earlier_ones_longest() {
        assert_eq!(vars("user://{id}/profile", "user://42/profile"), pairs(&[("id", "42")]));
        assert_eq!(vars("x://{+a}/{+b}/end", "x://p/q/r/end"), pairs(&[("a", "p/q"), ("b", "r")]));
        assert_eq!(vars("x://{a}{b}", "x://pqr"), pairs(&[("a", "pq"), ("b", "r")]), "longest first, one left for b");
        assert_eq!(vars("x://{+a}/{b}/{+c}", "x://1/2/3/4/5"), pairs(&[("a", "1/2/3"), ("b", "4"), ("c", "5")]));
        assert_eq!(vars("file:///{+path}", "file:///a/b/c.txt"), pairs(&[("path", "a/b/c.txt")]));
        assert_eq!(vars("notes://today", "notes://today"), pairs(&[]));
        assert_eq!(vars("user://{id}/profile", "user://4/2/profile"), None, "{{id}} stops at a slash");
        assert_eq!(vars("user://{id}/profile", "user:///profile"), None, "one character or more");
    }

    #[test]
    fn template_variables_stop_at_the_query_and_the_fragment() {
        assert_eq!(vars("file:///{+path}", "file:///a?x"), None);
        assert_eq!(vars("file:///{+path}", "file:///a#x"), None);
        assert_eq!(vars("file:///{+path}", "file:///public?/../secrets"), None);
        assert_eq!(vars("s://x{+p}?q={q}", "s://x/a/b?q=1"), pairs(&[("p", "/a/b"), ("q", "1")]), "a query the template writes out");
        assert_eq!(vars("s://x?q={q}", "s://x?q=1#f"), None);
        // A rule's `{+rest}` crosses them: a deny on a directory covers its URIs with a query.
        let rule = Matcher::compile_uri(&Value::from("file:///secrets/{+rest}")).unwrap();
        assert_eq!(rule.test(&Target::new("page", "file:///secrets/key?v=1#top")), Some(true));
    }

    #[test]
    fn templates_of_one_possible_split_are_read_in_one_walk() {
        let one = |text: &str| UriTemplate::compile(text).unwrap().0.one_split;
        for text in ["user://{id}/profile", "file:///{+path}", "x://{a}/{b}?q={q}", "notes://today", "s://x{+p}?{q}"] {
            assert!(one(text), "{text}");
        }
        for text in ["x://{+a}/{+b}/end", "x://{a}{b}", "x://{a}-{b}", "file:///{+p}a{+q}"] {
            assert!(!one(text), "{text}");
        }
        // Both ways agree (the walk against the sweep): the same answers as the other tests.
        assert_eq!(vars("x://{a}/{b}?q={q}", "x://1/2?q=3"), pairs(&[("a", "1"), ("b", "2"), ("q", "3")]));
        assert_eq!(vars("x://{a}/{b}?q={q}", "x://1/2/3?q=3"), None);
        assert_eq!(vars("x://{a}/{b}?q={q}", "x://1/2?q="), None);
        assert_eq!(vars("user://{id}/profile", "user://42/profile/"), None);
    }

    #[test]
    fn a_star_is_a_character_in_a_template() {
        assert_eq!(vars("x://a*/{id}", "x://a*/1"), pairs(&[("id", "1")]));
        assert_eq!(vars("x://a*/{id}", "x://ab/1"), None);
        assert_eq!(UriTemplate::compile("x://a*/{id}/{+rest}").unwrap().sample(), "x://a*/x/x");
    }

    #[test]
    fn refused_templates() {
        let refused = |text: &str| {
            let err = UriTemplate::compile(text).unwrap_err();
            assert_eq!(err.code, "invalid_uri", "{text}");
            err.message
        };
        assert!(refused("user://{id/profile").ends_with("has a '{' without its '}'"));
        assert!(refused("user://id}/profile").ends_with("has a '}' without its '{'"));
        assert!(refused("user://{}/profile").contains("empty or not a name: {}"));
        assert!(refused("user://{+}/profile").contains("empty or not a name: {+}"));
        assert!(refused("user://{a b}/profile").contains("not a name"));
        assert!(refused("user://{id}/{id}").contains("\"id\" twice"));
        let many: String = (0..=MAX_TEMPLATE_VARIABLES).map(|i| format!("{{v{i}}}/")).collect();
        assert!(refused(&format!("x://h/{many}")).contains("more than 16 variables"));
        for text in ["x://h/%2f/{id}", "x://h/%41/{id}", "x://h/%7E/{id}", "x://h/é/{id}", "x://h/50%/{id}", "x://h/%zz/{id}", "x://h/\u{7f}/{id}"] {
            assert!(refused(text).contains("can never match: URIs are compared in their canonical form"), "{text}");
        }
        assert!(UriTemplate::compile("x://h/%2F%C3%A9/{id}").is_ok());
        assert!(UriTemplate::is_template("a}") && UriTemplate::is_template("{a") && !UriTemplate::is_template("x://a"));
    }

    #[test]
    fn uri_matchers_no_canonical_uri_holds_are_refused() {
        for text in ["docs://é/*", "docs://a%2fb", "docs://%7Euser/*", "docs://%41", "docs://50%", "docs://%G0", "docs://a\tb"] {
            let err = Matcher::compile_uri(&Value::from(text)).unwrap_err();
            assert_eq!(err.code, "invalid_matcher", "{text}");
            assert!(err.message.starts_with(&format!("URI matcher \"{text}\" can never match: URIs are compared in their canonical form")), "{}", err.message);
        }
        for text in ["docs://a%2Fb/*", "docs://%C3%A9/*", "docs://%25", "x:a b"] {
            assert!(Matcher::compile_uri(&Value::from(text)).is_ok(), "{text}");
        }
    }

    /// Every split of `uri` among the template's parts, the first in the order a backtracking
    /// matcher of greedy groups tries them: the reference for the linear search.
    fn backtracking(parts: &[UriPart], mode: UriMode, uri: &str, out: &mut alloc::vec::Vec<(String, String)>) -> bool {
        let glob = UriGlob { parts: parts.to_vec(), mode, one_split: false };
        let Some((first, rest)) = parts.split_first() else { return uri.is_empty() };
        match first {
            UriPart::Literal(text) => uri.strip_prefix(text.as_str()).is_some_and(|tail| backtracking(rest, mode, tail, out)),
            UriPart::Star | UriPart::Var { .. } => {
                let mut limit = 0;
                while uri.as_bytes().get(limit).is_some_and(|b| !glob.stops(first, *b)) {
                    limit += 1;
                }
                let least = usize::from(*first != UriPart::Star);
                for end in (least..=limit).rev() {
                    let mark = out.len();
                    if let UriPart::Var { name, .. } = first {
                        out.push((name.clone(), uri[..end].to_owned()));
                    }
                    if backtracking(rest, mode, &uri[end..], out) {
                        return true;
                    }
                    out.truncate(mark);
                }
                false
            }
        }
    }

    #[test]
    fn the_linear_search_finds_what_backtracking_finds() {
        let templates = ["x:{+a}/{+b}", "x:{a}{b}{c}", "x:{+a}a{+b}", "x:{a}/{+b}/{c}", "x:{+a}?{b}", "x:a{+a}a{+b}a", "x:{a}/{b}", "x:{a}?{+b}#{c}", "x:{+a}"];
        let alphabet = ['a', '/', '?', '#', 'b'];
        for template in templates {
            let compiled = UriTemplate::compile(template).unwrap();
            for len in 0..=6u32 {
                for mut code in 0..alphabet.len().pow(len) {
                    let mut uri = String::from("x:");
                    for _ in 0..len {
                        uri.push(alphabet[code % alphabet.len()]);
                        code /= alphabet.len();
                    }
                    let mut expected = alloc::vec::Vec::new();
                    let expected = backtracking(&compiled.0.parts, UriMode::Template, &uri, &mut expected).then_some(expected);
                    assert_eq!(vars(template, &uri), expected, "{template} against {uri}");
                    // The sweep, for templates the walk reads too.
                    let swept = UriGlob { one_split: false, ..compiled.0.clone() };
                    let swept = swept.captures(&uri).map(|found| found.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect());
                    assert_eq!(swept, expected, "swept: {template} against {uri}");
                    let rule = Matcher::compile_uri(&Value::from(template)).unwrap();
                    let mut unused = alloc::vec::Vec::new();
                    let parts = UriGlob::new::<false>(template).unwrap().parts;
                    assert_eq!(rule.test(&Target::new("p", &uri)), Some(backtracking(&parts, UriMode::Matcher, &uri, &mut unused)), "rule {template} against {uri}");
                }
            }
        }
    }

    #[test]
    fn adversarial_uris_at_the_cap_finish() {
        // Each would take a backtracking matcher quadratic or worse time at this length; here
        // they are parts × length. Outcomes are asserted, speed is measured in bench/.
        let cap = crate::pattern::INPUT_LIMIT;
        let slashes = |prefix: &str, unit: &str, suffix: &str| {
            let mut uri = String::from(prefix);
            while uri.len() + unit.len() + suffix.len() <= cap {
                uri.push_str(unit);
            }
            uri.push_str(suffix);
            uri
        };
        let cases: [(&str, String, bool); 5] = [
            ("x://{+a}/{+b}/end", slashes("x://", "a/", "en"), false),
            ("x://{+a}/{+b}/end", slashes("x://", "a/", "end"), true),
            ("x://{+a}/{+b}/{+c}/{+d}/{+e}/end", slashes("x://", "/a", "/x"), false),
            ("x://{a}{b}{c}{d}{e}{f}{g}{h}!", slashes("x://", "a", ""), false),
            ("file:///{+p}a{+q}a{+r}ab", slashes("file:///", "a", ""), false),
        ];
        for (template, uri, matches) in cases {
            assert!(uri.len() <= cap);
            assert_eq!(vars(template, &uri).is_some(), matches, "{template}");
            let rule = Matcher::compile_uri(&Value::from(template)).unwrap();
            assert_eq!(rule.test(&Target::new("p", &uri)), Some(matches), "{template}");
        }
        let long = alloc::format!("x://{}", "a".repeat(cap));
        assert_eq!(vars("x://{+a}", &long), None, "longer than the cap: not tested");
    }
}
