//! Translation of JavaScript `RegExp` syntax into the core's linear-time regex engine.
//!
//! Users hand the core JavaScript regular expressions (hook matchers, `matches` sources in
//! policy rules). The core must not run a backtracking engine on hostile input, so it matches
//! with `regex_lite` (a Pike VM: linear in the haystack). This module parses the JS syntax
//! itself and emits an equivalent `regex_lite` pattern, or rejects features that a linear-time
//! engine cannot provide (look-around, backreferences) with a [`RegexError`].
//!
//! The translator never hands a JS construct to `regex_lite` verbatim where the two dialects
//! disagree: every non-alphanumeric literal is emitted as `\x{..}`, `.`/`\s`/`\w`/`\d` become
//! explicit classes, `^`/`$` become explicit anchors, and all groups become non-capturing
//! (the core only asks *whether* a match exists, so captures would only cost VM slots).
//!
//! Known differences from JS (the first three need look-around or UTF-16 matching to bridge):
//! - Case-insensitivity (`i`): `regex_lite` folds ASCII only, so the translator widens
//!   literals, class members and class ranges itself to JS's case-equivalence classes (built
//!   once from Rust's case mappings: Canonicalize without `u`, an approximation of simple case
//!   folding with `u`, so `ſ` ~ `s` and `K` ~ `k` only under `iu`). Left over: `\b`/`\B` under
//!   `iu` still treat `ſ` and `K` as non-word characters, and the tables follow Rust's Unicode
//!   version rather than the browser's. Names we match are ASCII, where all of this is exact.
//! - Without `u`/`v`, JS matches UTF-16 code units; Rust strings hold whole characters, so
//!   `.` or `[^x]` consume an astral character (e.g. an emoji) whole: `/^.$/.test("😀")` is
//!   `true` here, `false` in JS. Where the pattern itself splits an astral character (one inside
//!   a class, or followed by a quantifier, without `u`) it is rejected as `lone_surrogate`.
//! - With `m`, `^` and `$` treat `\n` and `\r` as line terminators, but not U+2028/U+2029, and
//!   `^` does not match between the `\r` and `\n` of a CRLF pair (JS does).
//! - `\1`..`\9` are always rejected as backreferences, even where Annex B would read a legacy
//!   octal escape (no such group); `\p{..}` is rejected even without `u` (where JS would read
//!   the literal text `p{..}`), since that is almost certainly a forgotten flag; `\k` counts as
//!   a named backreference whenever the source contains `(?<name`, even inside a class.
//! - `v`-flag class set syntax (nested classes, `&&`, `--`, `\q{..}`) is rejected.

#![forbid(unsafe_code)]

use regex_lite::{Regex, RegexBuilder};
use std::fmt;
use std::str::Chars;
use std::sync::OnceLock;

const MAX_SOURCE_CHARS: usize = 4096;
const SIZE_LIMIT: usize = 1 << 20;
const NEST_LIMIT: u32 = 100;

/// Inclusive code point ranges; `u32` so complements can step past an endpoint freely.
type Ranges = Vec<(u32, u32)>;

const DIGIT: &[(u32, u32)] = &[(0x30, 0x39)];
const WORD: &[(u32, u32)] = &[(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)];
/// With both `i` and `u`, JS `\w` also holds the characters that fold onto ASCII word
/// characters: U+017F LATIN SMALL LETTER LONG S and U+212A KELVIN SIGN.
const WORD_IU: &[(u32, u32)] =
    &[(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A), (0x17F, 0x17F), (0x212A, 0x212A)];
/// JS `\s`: WhiteSpace plus LineTerminator (ECMA-262 22.2.2.9), wider than `regex_lite`'s ASCII `\s`.
#[rustfmt::skip]
const SPACE: &[(u32, u32)] = &[
    (0x09, 0x0D), (0x20, 0x20), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A),
    (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000), (0xFEFF, 0xFEFF),
];
/// What JS `.` excludes without `s`; `regex_lite`'s `.` only excludes `\n`.
const LINE_TERMINATOR: &[(u32, u32)] = &[(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)];
/// `regex_lite` cannot spell an empty class; negating every scalar value yields a class that
/// compiles to a never-matching state, which is exactly JS `[]`.
const NOTHING: &str = r"[^\x{0}-\x{10FFFF}]";
const ANYTHING: &str = r"[\x{0}-\x{10FFFF}]";

/// Why a JS regular expression could not be translated; `code` is stable, `message` is for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegexError {
    /// One of `unsupported_lookaround`, `unsupported_backreference`,
    /// `unsupported_unicode_property`, `unsupported_flag`, `lone_surrogate`, `invalid_pattern`,
    /// `pattern_too_long`, `too_complex`.
    pub code: &'static str,
    /// One sentence naming the offending feature and its offset (in characters) in the source.
    pub message: String,
}

impl RegexError {
    fn new(code: &'static str, message: String) -> RegexError {
        RegexError { code, message }
    }
}

impl fmt::Display for RegexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for RegexError {}

fn invalid(message: String) -> RegexError {
    RegexError::new("invalid_pattern", message)
}

fn unsupported(code: &'static str, feature: &str, text: &str, at: usize) -> RegexError {
    let message =
        format!("{feature} \"{text}\" at offset {at} is not supported by the core's linear-time regex engine");
    RegexError::new(code, message)
}

/// A JavaScript regular expression compiled for the core's linear-time engine.
#[derive(Debug, Clone)]
pub struct JsRegex {
    regex: Regex,
    source: String,
    flags: String,
}

impl JsRegex {
    /// Compiles a JS RegExp given as its `source` and `flags` (e.g. from `re.source`, `re.flags`).
    pub fn new(source: &str, flags: &str) -> Result<JsRegex, RegexError> {
        let pattern = translate(source, flags)?;
        let regex = RegexBuilder::new(&pattern).size_limit(SIZE_LIMIT).nest_limit(NEST_LIMIT).build().map_err(|e| {
            // regex_lite's error only exposes its message, so classify by its text.
            let text = e.to_string();
            if text.contains("size limit") || text.contains("nesting") {
                RegexError::new(
                    "too_complex",
                    format!("the pattern is too complex for the core's regex engine ({text})"),
                )
            } else {
                invalid(format!("the pattern was rejected by the core's regex engine ({text})"))
            }
        })?;
        Ok(JsRegex { regex, source: source.to_owned(), flags: flags.to_owned() })
    }

    /// Like `RegExp.prototype.test` on a fresh regex (`lastIndex` 0): does it match anywhere
    /// (or, with `y`, at the start)?
    pub fn is_match(&self, haystack: &str) -> bool {
        self.regex.is_match(haystack)
    }

    /// The JS source this regex was compiled from.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The JS flags this regex was compiled with.
    pub fn flags(&self) -> &str {
        &self.flags
    }
}

/// The translated pattern text (for tests and diagnostics).
pub fn translate(source: &str, flags: &str) -> Result<String, RegexError> {
    let len = source.chars().count();
    if len > MAX_SOURCE_CHARS {
        let message = format!("pattern source is {len} characters long; the limit is {MAX_SOURCE_CHARS}");
        return Err(RegexError::new("pattern_too_long", message));
    }
    let flags = parse_flags(flags)?;
    // Whether `\k` means a named backreference: always with u/v, otherwise only when the
    // pattern has a named group (Annex B reads `\k` as a literal `k` in older patterns).
    let named_groups = source
        .match_indices("(?<")
        .any(|(i, _)| !matches!(source.get(i + 3..).and_then(|rest| rest.chars().next()), Some('=' | '!')));
    let cur = Cursor { rest: source.chars(), pos: 0 };
    let t = Translator { cur, flags, named_groups, names: Vec::new(), astral: None, out: String::new() };
    t.run()
}

#[derive(Clone, Copy, Default)]
struct Flags {
    ignore_case: bool,
    multiline: bool,
    dot_all: bool,
    unicode: bool,
    sets: bool,
    sticky: bool,
}

fn parse_flags(flags: &str) -> Result<Flags, RegexError> {
    let mut f = Flags::default();
    for (i, c) in flags.chars().enumerate() {
        if flags.chars().take(i).any(|p| p == c) {
            return Err(invalid(format!("flag \"{c}\" is repeated in flags \"{flags}\"")));
        }
        match c {
            // `g` and `d` only affect lastIndex bookkeeping and match indices, not `test()` from 0.
            'g' | 'd' => {}
            'i' => f.ignore_case = true,
            'm' => f.multiline = true,
            's' => f.dot_all = true,
            'u' => f.unicode = true,
            'v' => (f.unicode, f.sets) = (true, true),
            'y' => f.sticky = true,
            _ => {
                let message =
                    format!("flag \"{c}\" is not a JavaScript RegExp flag the core supports (d g i m s u v y)");
                return Err(RegexError::new("unsupported_flag", message));
            }
        }
    }
    if flags.contains('u') && flags.contains('v') {
        return Err(invalid("flags \"u\" and \"v\" cannot be combined".to_owned()));
    }
    Ok(f)
}

/// A character cursor over the source that tracks the offset in characters.
#[derive(Clone)]
struct Cursor<'a> {
    rest: Chars<'a>,
    pos: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<char> {
        self.rest.clone().next()
    }
    fn peek2(&self) -> Option<char> {
        self.rest.clone().nth(1)
    }
    fn bump(&mut self) -> Option<char> {
        let c = self.rest.next()?;
        self.pos += 1;
        Some(c)
    }
    fn eat(&mut self, c: char) -> bool {
        self.peek() == Some(c) && self.bump().is_some()
    }
    fn eat_str(&mut self, s: &str) -> bool {
        let hit = self.rest.as_str().starts_with(s);
        if hit {
            s.chars().for_each(|_| {
                self.bump();
            });
        }
        hit
    }
    /// Consumes exactly `n` hex digits, or nothing.
    fn hex(&mut self, n: usize) -> Option<u32> {
        let mut probe = self.clone();
        let mut value = 0u32;
        for _ in 0..n {
            value = value * 16 + probe.bump()?.to_digit(16)?;
        }
        *self = probe;
        Some(value)
    }
    /// Decimal digits, saturating (JS allows any count; the caller rejects huge ones).
    fn decimal(&mut self) -> Option<u64> {
        let mut value: Option<u64> = None;
        while let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
            self.bump();
            value = Some(value.unwrap_or(0).saturating_mul(10).saturating_add(u64::from(d)));
        }
        value
    }
}

enum ClassAtom {
    Single(u32),
    Set(Ranges),
}

struct Translator<'a> {
    cur: Cursor<'a>,
    flags: Flags,
    named_groups: bool,
    names: Vec<String>,
    /// Offset and code point of the previous atom if it is an astral character without `u`.
    astral: Option<(usize, u32)>,
    out: String,
}

impl Translator<'_> {
    fn run(mut self) -> Result<String, RegexError> {
        if self.flags.ignore_case {
            self.out.push_str("(?i)");
        }
        if self.flags.sticky {
            // `\A`, not `^`: under `m` a `^` would also match after every line break.
            self.out.push_str(r"\A(?:");
        }
        let mut depth = 0usize;
        // Whether the previous item may take a quantifier (JS: "nothing to repeat" otherwise).
        let mut quantifiable = false;
        while let Some(c) = self.cur.bump() {
            let at = self.cur.pos - 1;
            let astral = self.astral.take();
            quantifiable = match c {
                // CRLF mode makes both `\r` and `\n` line terminators; for `$` the union with
                // plain `(?m:$)` also restores JS's "before the `\n` of `\r\n`" position.
                '^' if self.flags.multiline => self.emit(r"(?mR:^)", false),
                '^' => self.emit(r"\A", false),
                '$' if self.flags.multiline => self.emit(r"(?:(?m:$)|(?mR:$))", false),
                '$' => self.emit(r"\z", false),
                '.' if self.flags.dot_all => self.emit(ANYTHING, true),
                '.' => {
                    push_class(&mut self.out, true, LINE_TERMINATOR);
                    true
                }
                '|' => self.emit("|", false),
                '(' => {
                    self.group(at)?;
                    depth += 1;
                    false
                }
                ')' if depth == 0 => return Err(invalid(format!("unmatched \")\" at offset {at}"))),
                ')' => {
                    depth -= 1;
                    self.emit(")", true)
                }
                '[' => {
                    self.class(at)?;
                    true
                }
                '*' | '+' | '?' => {
                    self.quantifier(quantifiable, astral, at, &c.to_string())?;
                    false
                }
                '{' => match self.brace_quantifier(at)? {
                    Some(text) => {
                        self.quantifier(quantifiable, astral, at, &text)?;
                        false
                    }
                    None if self.flags.unicode => {
                        return Err(invalid(format!("lone \"{{\" at offset {at} is not allowed with the u/v flag")))
                    }
                    None => self.literal(u32::from(c), at)?,
                },
                '}' | ']' if self.flags.unicode => {
                    return Err(invalid(format!("lone \"{c}\" at offset {at} is not allowed with the u/v flag")))
                }
                '\\' => self.atom_escape(at)?,
                _ => self.literal(u32::from(c), at)?,
            };
        }
        if depth > 0 {
            return Err(invalid("pattern has an unterminated group \"(\"".to_owned()));
        }
        if self.flags.sticky {
            self.out.push(')');
        }
        Ok(self.out)
    }

    fn emit(&mut self, text: &str, quantifiable: bool) -> bool {
        self.out.push_str(text);
        quantifiable
    }

    fn quantifier(
        &mut self,
        quantifiable: bool,
        astral: Option<(usize, u32)>,
        at: usize,
        text: &str,
    ) -> Result<(), RegexError> {
        if !quantifiable {
            return Err(invalid(format!("quantifier \"{text}\" at offset {at} has nothing to repeat")));
        }
        if let Some((char_at, cp)) = astral {
            // Without `u`, JS repeats only the low surrogate half, which a UTF-8 engine cannot split.
            return Err(split_astral(cp, char_at, "is followed by a quantifier"));
        }
        self.out.push_str(text);
        if self.cur.eat('?') {
            self.out.push('?');
        }
        Ok(())
    }

    /// After a `{`: the regex_lite quantifier text if this is a valid `{n}`, `{n,}` or `{n,m}`;
    /// `None` when JS (without `u`) reads the brace as a literal.
    fn brace_quantifier(&mut self, at: usize) -> Result<Option<String>, RegexError> {
        let mut probe = self.cur.clone();
        let Some(min) = probe.decimal() else {
            return Ok(None);
        };
        let max = if probe.eat(',') { probe.decimal() } else { Some(min) };
        if !probe.eat('}') {
            return Ok(None);
        }
        self.cur = probe;
        if max.is_some_and(|max| max < min) {
            return Err(invalid(format!("quantifier at offset {at} has its numbers out of order")));
        }
        if max.unwrap_or(min) > u64::from(u32::MAX) {
            let message = format!("repetition count at offset {at} is too large for the core's regex engine");
            return Err(RegexError::new("too_complex", message));
        }
        Ok(Some(match max {
            Some(max) if max == min => format!("{{{min}}}"),
            Some(max) => format!("{{{min},{max}}}"),
            None => format!("{{{min},}}"),
        }))
    }

    fn group(&mut self, at: usize) -> Result<(), RegexError> {
        for (text, feature) in [
            ("?=", "look-ahead"),
            ("?!", "negative look-ahead"),
            ("?<=", "look-behind"),
            ("?<!", "negative look-behind"),
        ] {
            if self.cur.rest.as_str().starts_with(text) {
                return Err(unsupported("unsupported_lookaround", feature, &format!("({text}"), at));
            }
        }
        if self.cur.eat_str("?<") {
            let mut name = String::new();
            loop {
                match self.cur.bump() {
                    Some('>') => break,
                    Some(c) => name.push(c),
                    None => return Err(invalid(format!("group name at offset {at} is not terminated by \">\""))),
                }
            }
            // JS RegExpIdentifierName, approximated with Rust's Unicode alphabetic/alphanumeric.
            let mut chars = name.chars();
            let valid = chars.next().is_some_and(|c| c.is_alphabetic() || c == '$' || c == '_')
                && chars.all(|c| c.is_alphanumeric() || matches!(c, '$' | '_' | '\u{200C}' | '\u{200D}'));
            if !valid {
                return Err(invalid(format!("group name \"{name}\" at offset {at} is not a valid identifier")));
            }
            if self.names.contains(&name) {
                return Err(invalid(format!("group name \"{name}\" at offset {at} is used twice")));
            }
            self.names.push(name);
        } else if !self.cur.eat_str("?:") && self.cur.peek() == Some('?') {
            return Err(invalid(format!(
                "group syntax \"(?\" at offset {at} is not valid JavaScript the core supports"
            )));
        }
        // Every group is non-capturing: the core only tests for a match.
        self.out.push_str("(?:");
        Ok(())
    }

    /// An escape outside a class; returns whether it is quantifiable (assertions are not).
    fn atom_escape(&mut self, at: usize) -> Result<bool, RegexError> {
        if self.backslash_is_literal(false) {
            return self.literal(u32::from('\\'), at);
        }
        let Some(c) = self.cur.bump() else {
            return Err(invalid(format!("pattern ends with a lone \"\\\" at offset {at}")));
        };
        match c {
            'b' => return Ok(self.emit(r"\b", false)),
            'B' => return Ok(self.emit(r"\B", false)),
            'd' | 'D' | 'w' | 'W' | 's' | 'S' => {
                push_class(&mut self.out, c.is_ascii_uppercase(), class_escape_set(c, self.flags));
            }
            'p' | 'P' if self.flags.unicode || self.cur.peek() == Some('{') => {
                let text = self.escape_text(c, '}');
                return Err(unsupported("unsupported_unicode_property", "Unicode property escape", &text, at));
            }
            'k' if self.flags.unicode || self.named_groups => {
                let text = self.escape_text(c, '>');
                return Err(unsupported("unsupported_backreference", "named backreference", &text, at));
            }
            '1'..='9' => {
                return Err(unsupported("unsupported_backreference", "backreference", &format!("\\{c}"), at));
            }
            _ => {
                let cp = self.char_escape(c, at, false)?;
                self.literal(cp, at)?;
            }
        }
        Ok(true)
    }

    /// A character escape (after the `\`) shared by atoms and classes; returns the code point.
    fn char_escape(&mut self, c: char, at: usize, in_class: bool) -> Result<u32, RegexError> {
        let u = self.flags.unicode;
        let bad = || invalid(format!("escape \"\\{c}\" at offset {at} is not valid with the u/v flag"));
        Ok(match c {
            't' => 0x09,
            'n' => 0x0A,
            'v' => 0x0B,
            'f' => 0x0C,
            'r' => 0x0D,
            'c' => match self.cur.peek() {
                Some(l) if is_control_letter(l, in_class && !u) => {
                    self.cur.bump();
                    u32::from(l) % 32
                }
                _ => return Err(bad()),
            },
            'x' => match self.cur.hex(2) {
                Some(v) => v,
                None if u => return Err(bad()),
                None => u32::from('x'),
            },
            'u' => self.unicode_escape(at)?,
            '0' if !self.cur.peek().is_some_and(|d| d.is_ascii_digit()) => 0,
            '0'..='9' if u => return Err(bad()),
            '8' | '9' => u32::from(c),
            '0'..='7' => {
                // Annex B legacy octal: up to three digits while the value stays <= 0o377.
                let mut value = c.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match self.cur.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) if value * 8 + d <= 0o377 => {
                            self.cur.bump();
                            value = value * 8 + d;
                        }
                        _ => break,
                    }
                }
                value
            }
            '^' | '$' | '\\' | '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|' | '/' => u32::from(c),
            '-' if in_class => u32::from(c),
            '&' | '!' | '#' | '%' | ',' | ':' | ';' | '<' | '=' | '>' | '@' | '`' | '~'
                if in_class && self.flags.sets =>
            {
                u32::from(c)
            }
            _ if u => return Err(bad()),
            // Annex B identity escape: `\a` is `a`, `\-` is `-`, ...
            _ => u32::from(c),
        })
    }

    /// The escape `\<c>` plus its `{..}` / `<..>` argument, for error messages.
    fn escape_text(&self, c: char, close: char) -> String {
        let arg = self.cur.rest.as_str().split_inclusive(close).next().filter(|a| a.len() > 1 && a.ends_with(close));
        format!("\\{c}{}", arg.filter(|a| a.starts_with(['{', '<'])).unwrap_or(""))
    }

    /// Annex B: a `\c` without a control letter is a literal backslash, and the `c` is then
    /// read as an ordinary character (`/\c/` matches the two characters `\c`).
    fn backslash_is_literal(&self, in_class: bool) -> bool {
        !self.flags.unicode
            && self.cur.peek() == Some('c')
            && !self.cur.peek2().is_some_and(|l| is_control_letter(l, in_class))
    }

    /// After `\u`: `\u{..}` (u/v only), `\uHHHH`, or a `\uHHHH\uHHHH` surrogate pair.
    fn unicode_escape(&mut self, at: usize) -> Result<u32, RegexError> {
        let bad = || invalid(format!("escape \"\\u\" at offset {at} is malformed"));
        if self.flags.unicode && self.cur.eat('{') {
            let mut value = 0u32;
            let mut digits = 0;
            while let Some(d) = self.cur.bump() {
                if d == '}' && digits > 0 {
                    return Ok(value);
                }
                value = value.saturating_mul(16).saturating_add(d.to_digit(16).ok_or_else(bad)?);
                digits += 1;
                if value > 0x10FFFF {
                    return Err(bad());
                }
            }
            return Err(bad());
        }
        let Some(high) = self.cur.hex(4) else {
            return if self.flags.unicode { Err(bad()) } else { Ok(u32::from('u')) };
        };
        if (0xD800..=0xDBFF).contains(&high) {
            // Two escaped halves of a pair denote one astral character (as in a JS string).
            let mut probe = self.cur.clone();
            if let Some(low) =
                probe.eat_str("\\u").then(|| probe.hex(4)).flatten().filter(|l| (0xDC00..=0xDFFF).contains(l))
            {
                self.cur = probe;
                return Ok(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00));
            }
        }
        Ok(high)
    }

    /// Emits one literal code point, widened to its case variants under `i`.
    fn literal(&mut self, cp: u32, at: usize) -> Result<bool, RegexError> {
        let c = scalar(cp, at)?;
        if !self.flags.unicode && cp > 0xFFFF {
            self.astral = Some((at, cp));
        }
        let mut variants = Ranges::new();
        if self.flags.ignore_case {
            widen(&mut variants, (cp, cp), self.flags.unicode);
        }
        // ASCII-only variants are left to regex_lite's own (?i) folding.
        if variants.iter().any(|&(v, _)| v > 0x7F) {
            variants.push((cp, cp));
            push_class(&mut self.out, false, &variants);
        } else if c.is_alphanumeric() || c == '_' {
            self.out.push(c);
        } else {
            // Escaping every other char keeps regex_lite from reading its own syntax
            // (`\b{`, `(?x)` whitespace, ...) into what JS meant literally.
            push_code(&mut self.out, cp);
        }
        Ok(true)
    }

    fn class(&mut self, at: usize) -> Result<(), RegexError> {
        let negate = self.cur.eat('^');
        // Literal members and ranges are kept apart from `\d`/`\w`/`\s` sets so that only
        // they widen under `i`: the sets are ASCII or case-closed already (see the module doc
        // for the `iu` exceptions), and widening `\W` would wrongly pull in `s` via `ſ`.
        let (mut set, mut escapes) = (Ranges::new(), Ranges::new());
        loop {
            if self.flags.sets {
                self.check_class_set_syntax()?;
            }
            let item_at = self.cur.pos;
            let Some(c) = self.cur.bump() else {
                return Err(invalid(format!("character class \"[\" at offset {at} is not terminated")));
            };
            if c == ']' {
                break;
            }
            let first = self.class_atom(c, item_at)?;
            let range = self.cur.peek() == Some('-')
                && !matches!(self.cur.peek2(), Some(']') | None)
                && !(self.flags.sets && self.cur.peek2() == Some('-'));
            if !range {
                add_atom(&mut set, &mut escapes, first);
                continue;
            }
            self.cur.bump();
            let end_at = self.cur.pos;
            let Some(c2) = self.cur.bump() else { continue };
            match (first, self.class_atom(c2, end_at)?) {
                (ClassAtom::Single(a), ClassAtom::Single(b)) if a <= b => set.push((a, b)),
                (ClassAtom::Single(_), ClassAtom::Single(_)) => {
                    return Err(invalid(format!("range at offset {item_at} in a character class is out of order")));
                }
                _ if self.flags.unicode => {
                    return Err(invalid(format!(
                        "class escape at offset {item_at} cannot be a range endpoint with the u/v flag"
                    )));
                }
                // Annex B: `[\w-z]` is `\w`, `-` and `z`.
                (a, b) => {
                    add_atom(&mut set, &mut escapes, a);
                    set.push((0x2D, 0x2D));
                    add_atom(&mut set, &mut escapes, b);
                }
            }
        }
        if self.flags.ignore_case {
            for range in set.clone() {
                widen(&mut set, range, self.flags.unicode);
            }
        }
        set.append(&mut escapes);
        match (set.is_empty(), negate) {
            (true, false) => self.out.push_str(NOTHING),
            (true, true) => self.out.push_str(ANYTHING),
            // The negation stays in regex_lite syntax so that (?i) folds before negating,
            // as JS does (`/[^a]/i` rejects `A`).
            _ => push_class(&mut self.out, negate, &set),
        }
        Ok(())
    }

    /// Rejects `v`-mode class set syntax, which this translator does not implement.
    fn check_class_set_syntax(&self) -> Result<(), RegexError> {
        let rest = self.cur.rest.as_str();
        let mut chars = rest.chars();
        let (first, second) = (chars.next(), chars.next());
        let doubled = first.is_some_and(|c| second == Some(c) && "&!#$%*+,.:;<=>?@^`~-".contains(c));
        if doubled || rest.starts_with('[') || rest.starts_with("\\q") {
            let text: String = rest.chars().take(2).collect();
            return Err(invalid(format!(
                "class set syntax \"{text}\" (v flag) at offset {} is not supported",
                self.cur.pos
            )));
        }
        if first.is_some_and(|c| "(){}/-|".contains(c)) {
            return Err(invalid(format!(
                "\"{}\" at offset {} must be escaped in a v-flag class",
                first.unwrap_or('?'),
                self.cur.pos
            )));
        }
        Ok(())
    }

    fn class_atom(&mut self, c: char, at: usize) -> Result<ClassAtom, RegexError> {
        let cp = if c == '\\' && !self.backslash_is_literal(true) {
            match self.class_escape(at)? {
                ClassAtom::Single(cp) => cp,
                set => return Ok(set),
            }
        } else {
            u32::from(c)
        };
        scalar(cp, at)?;
        if !self.flags.unicode && cp > 0xFFFF {
            // Without `u`, a JS class holds the two surrogate halves as separate members.
            return Err(split_astral(cp, at, "is inside a character class"));
        }
        Ok(ClassAtom::Single(cp))
    }

    fn class_escape(&mut self, at: usize) -> Result<ClassAtom, RegexError> {
        let Some(e) = self.cur.bump() else {
            return Err(invalid(format!("pattern ends with a lone \"\\\" at offset {at}")));
        };
        Ok(ClassAtom::Single(match e {
            'd' | 'D' | 'w' | 'W' | 's' | 'S' => {
                let set = class_escape_set(e, self.flags);
                return Ok(ClassAtom::Set(if e.is_ascii_uppercase() { complement(set) } else { set.to_vec() }));
            }
            'b' => 0x08,
            'p' | 'P' if self.flags.unicode || self.cur.peek() == Some('{') => {
                let text = self.escape_text(e, '}');
                return Err(unsupported("unsupported_unicode_property", "Unicode property escape", &text, at));
            }
            'k' if self.flags.unicode || self.named_groups => {
                return Err(invalid(format!("escape \"\\k\" at offset {at} is not valid inside a character class")));
            }
            _ => self.char_escape(e, at, true)?,
        }))
    }
}

fn add_atom(literals: &mut Ranges, escapes: &mut Ranges, atom: ClassAtom) {
    match atom {
        ClassAtom::Set(ranges) => escapes.extend(ranges),
        ClassAtom::Single(cp) => literals.push((cp, cp)),
    }
}

/// Whether `\c` may be followed by `l`; Annex B also allows digits and `_` inside classes.
fn is_control_letter(l: char, legacy_class: bool) -> bool {
    l.is_ascii_alphabetic() || (legacy_class && (l.is_ascii_digit() || l == '_'))
}

fn class_escape_set(c: char, flags: Flags) -> &'static [(u32, u32)] {
    match c.to_ascii_lowercase() {
        'd' => DIGIT,
        'w' if flags.ignore_case && flags.unicode => WORD_IU,
        'w' => WORD,
        _ => SPACE,
    }
}

/// The complement of sorted, disjoint ranges within 0..=0x10FFFF.
fn complement(ranges: &[(u32, u32)]) -> Ranges {
    let mut out = Vec::new();
    let mut next = 0u32;
    for &(lo, hi) in ranges {
        if lo > next {
            out.push((next, lo - 1));
        }
        next = hi + 1;
    }
    if next <= 0x10FFFF {
        out.push((next, 0x10FFFF));
    }
    out
}

fn split_astral(cp: u32, at: usize, context: &str) -> RegexError {
    let message = format!(
        "astral character U+{cp:X} at offset {at} {context}, where JavaScript without the u flag sees two lone surrogate halves; add the u flag"
    );
    RegexError::new("lone_surrogate", message)
}

fn scalar(cp: u32, at: usize) -> Result<char, RegexError> {
    char::from_u32(cp).ok_or_else(|| {
        let message =
            format!("escape at offset {at} denotes the lone surrogate U+{cp:04X}, which no Rust string can contain");
        RegexError::new("lone_surrogate", message)
    })
}

/// Case-insensitive equivalence classes with more than one member, as (key, member) pairs
/// sorted by key and as (member, key) pairs sorted by member.
struct CaseClasses {
    by_key: Vec<(u32, u32)>,
    by_member: Vec<(u32, u32)>,
}

/// The key two characters share when JS `i` makes them equal. Without `u` that is
/// Canonicalize (ECMA-262 22.2.2.7.3): the single-character upper case, except that a
/// non-ASCII char never maps onto ASCII. With `u` it approximates simple case folding (which
/// Rust's std does not expose) as lower(upper(c)), so `ſ`, `s` and `S` share a key.
fn fold_key(c: char, unicode: bool) -> char {
    let upper = single(c.to_uppercase()).unwrap_or(c);
    if unicode {
        single(upper.to_lowercase()).unwrap_or(upper)
    } else if !c.is_ascii() && upper.is_ascii() {
        c
    } else {
        upper
    }
}

/// Built once per mode on first use (a scan of the planes that have cased letters).
fn case_classes(unicode: bool) -> &'static CaseClasses {
    static LEGACY: OnceLock<CaseClasses> = OnceLock::new();
    static UNICODE: OnceLock<CaseClasses> = OnceLock::new();
    let cell = if unicode { &UNICODE } else { &LEGACY };
    cell.get_or_init(|| {
        let mut by_key = Vec::new();
        for c in (0..=0x1FFFF).filter_map(char::from_u32) {
            let key = fold_key(c, unicode);
            if key != c {
                by_key.extend([(u32::from(key), u32::from(c)), (u32::from(key), u32::from(key))]);
            }
        }
        by_key.sort_unstable();
        by_key.dedup();
        let mut by_member: Vec<(u32, u32)> = by_key.iter().map(|&(k, m)| (m, k)).collect();
        by_member.sort_unstable();
        CaseClasses { by_key, by_member }
    })
}

/// Adds to `set` every character that JS `i` equates with a member of `range`.
fn widen(set: &mut Ranges, (lo, hi): (u32, u32), unicode: bool) {
    let classes = case_classes(unicode);
    let first = classes.by_member.partition_point(|&(m, _)| m < lo);
    let members = classes.by_member.get(first..).unwrap_or_default();
    for &(_, key) in members.iter().take_while(|&&(m, _)| m <= hi) {
        let start = classes.by_key.partition_point(|&(k, _)| k < key);
        let class = classes.by_key.get(start..).unwrap_or_default();
        for &(_, other) in class.iter().take_while(|&&(k, _)| k == key) {
            if other < lo || other > hi {
                set.push((other, other));
            }
        }
    }
}

fn single(mut chars: impl Iterator<Item = char>) -> Option<char> {
    let c = chars.next()?;
    chars.next().is_none().then_some(c)
}

/// Emits one code point; ASCII alphanumerics stay raw because under `(?i)` regex_lite turns an
/// escaped letter into a folded class, which it then refuses as a range endpoint.
fn push_code(out: &mut String, cp: u32) {
    match char::from_u32(cp) {
        Some(c) if c.is_ascii_alphanumeric() => out.push(c),
        _ => out.push_str(&format!("\\x{{{cp:X}}}")),
    }
}

fn push_class(out: &mut String, negate: bool, ranges: &[(u32, u32)]) {
    out.push_str(if negate { "[^" } else { "[" });
    for &(lo, hi) in ranges {
        push_code(out, lo);
        if hi != lo {
            out.push('-');
            push_code(out, hi);
        }
    }
    out.push(']');
}
