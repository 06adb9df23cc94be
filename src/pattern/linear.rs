//! The linear-time engine: an ECMAScript pattern translated to `regex-lite`, whose matcher (a
//! Pike VM) takes time proportional to the text times the pattern, whatever the text.
//!
//! Built into the linear-engine wasm module (`wasm/linear/`),
//! which a page loads only when one of its patterns is not safe on its own backtracking engine
//! ([`super::Route::Split`]), and natively, where it stands in for that module in `cargo test` and
//! the fuzz targets. It reads the pattern with the same parser as the core's judgement
//! ([`super::syntax`]), so a pattern the judgement calls linear-capable
//! ([`super::linear_capable`]) always translates.
//!
//! The translation keeps JavaScript's meaning where `regex-lite` differs: every class is
//! written as explicit code point ranges (JS's `\s` holds Unicode spaces, `regex-lite`'s only
//! ASCII), case-insensitivity is applied to the ranges here (`regex-lite` folds ASCII only), `.`
//! excludes JS's four line terminators, `^`/`$` without `m` are the text's ends. Look-aheads at
//! the start of an anchored pattern (`^(?=…)(?!…)rest`) become tests of their own, each anchored
//! at the start, combined with the rest. Known differences, all outside the JSON Schema and
//! policy patterns seen in practice: without `u`, JS matches UTF-16 code units and this engine
//! code points (`/^.$/` accepts one emoji here); with `m`, `^` and `$` do not treat U+2028 and
//! U+2029 as line ends; `\b` does not count U+017F and U+212A as word characters under `iu`.

use alloc::string::String;
use alloc::vec::Vec;
use std::sync::OnceLock;

use super::syntax::{self, Flags, Item, Node, UNBOUNDED};

/// Inclusive code point ranges.
type Ranges = Vec<(u32, u32)>;

const MAX_CHAR: u32 = 0x10_FFFF;
const DIGIT: &[(u32, u32)] = &[(0x30, 0x39)];
const WORD: &[(u32, u32)] = &[(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)];
/// With `i` and `u`, `\w` also holds U+017F and U+212A, which fold onto `s` and `k`.
const WORD_IU: &[(u32, u32)] = &[(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A), (0x17F, 0x17F), (0x212A, 0x212A)];
/// JS `\s`: WhiteSpace and LineTerminator.
const SPACE: &[(u32, u32)] = &[
    (0x09, 0x0D),
    (0x20, 0x20),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
    (0xFEFF, 0xFEFF),
];
/// What `.` does not match without `s`.
const LINE_TERMINATORS: &[(u32, u32)] = &[(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)];

/// A pattern compiled for the linear engine.
#[derive(Debug, Clone)]
pub struct Linear {
    /// Look-aheads at the start: each must match (`true`: must not).
    starts: Vec<(bool, regex_lite::Regex)>,
    main: regex_lite::Regex,
}

impl Linear {
    /// Translates and compiles a JS pattern.
    ///
    /// # Errors
    /// Why the linear engine cannot run it (the judgement refuses such patterns first).
    pub fn new(source: &str, flags: &str) -> Result<Linear, String> {
        let (starts, main) = translate(source, flags)?;
        let build = |text: &str| {
            regex_lite::RegexBuilder::new(text)
                .size_limit(64 << 20)
                .build()
                .map_err(|error| alloc::format!("the linear engine refused the translation: {error}"))
        };
        let mut compiled = Vec::with_capacity(starts.len());
        for (negative, text) in starts {
            compiled.push((negative, build(&text)?));
        }
        Ok(Linear { starts: compiled, main: build(&main)? })
    }

    /// `RegExp.prototype.test` on the text.
    #[must_use]
    pub fn is_match(&self, text: &str) -> bool {
        for (negative, start) in &self.starts {
            if start.is_match(text) == *negative {
                return false;
            }
        }
        self.main.is_match(text)
    }
}

/// The `regex-lite` texts of a pattern: its leading look-aheads (negative or not) and the rest.
///
/// # Errors
/// Why the pattern cannot be translated.
pub fn translate(source: &str, flags: &str) -> Result<(Vec<(bool, String)>, String), String> {
    let flags = Flags::parse(flags);
    let tree = syntax::parse(source, flags).map_err(|_| String::from("the pattern could not be read"))?;
    capable(&tree, flags)?;
    let mut starts = Vec::new();
    let mut main = String::new();
    match &tree {
        Node::Seq(nodes) if !flags.multiline && matches!(nodes.first(), Some(Node::Start)) => {
            let mut rest = nodes.get(1..).unwrap_or(&[]);
            while let Some((Node::Look { behind: false, negative, node }, after)) = rest.split_first() {
                let mut text = String::from(r"\A(?:");
                emit(node, flags, &mut text)?;
                text.push(')');
                starts.push((*negative, text));
                rest = after;
            }
            main.push_str(r"\A(?:");
            for node in rest {
                emit(node, flags, &mut main)?;
            }
            main.push(')');
        }
        other => emit(other, flags, &mut main)?,
    }
    Ok((starts, main))
}

/// What the judgement checks on its own reading ([`super::linear_capable`]), on the exact one:
/// look-arounds only at the start of an anchored pattern, no back-references.
fn capable(tree: &Node, flags: Flags) -> Result<(), String> {
    fn inner(node: &Node) -> Result<(), String> {
        match node {
            Node::Look { .. } => Err(String::from("a look-around")),
            Node::Backref => Err(String::from("a back-reference")),
            Node::Seq(nodes) | Node::Alt(nodes) => nodes.iter().try_for_each(inner),
            Node::Repeat { node, .. } | Node::Capture { node, .. } | Node::Modified { node, .. } => inner(node),
            _ => Ok(()),
        }
    }
    match tree {
        Node::Seq(nodes) if !flags.multiline && matches!(nodes.first(), Some(Node::Start)) => {
            let mut leading = true;
            for node in nodes.get(1..).unwrap_or(&[]) {
                match node {
                    Node::Look { behind: false, node, .. } if leading => inner(node)?,
                    other => {
                        leading = false;
                        inner(other)?;
                    }
                }
            }
            Ok(())
        }
        other => inner(other),
    }
}

fn emit(node: &Node, flags: Flags, out: &mut String) -> Result<(), String> {
    match node {
        Node::Empty => out.push_str("(?:)"),
        Node::Start if flags.multiline => out.push_str("(?mR:^)"),
        Node::Start => out.push_str(r"\A"),
        // CRLF mode makes `\r` a line end too; with plain `(?m:$)` it also matches before the
        // `\n` of `\r\n`, as JS does.
        Node::End if flags.multiline => out.push_str("(?:(?m:$)|(?mR:$))"),
        Node::End => out.push_str(r"\z"),
        Node::WordBoundary(false) => out.push_str(r"\b"),
        Node::WordBoundary(true) => out.push_str(r"\B"),
        Node::Class { negated, items } => push_class(out, &class_ranges(*negated, items, flags)?),
        Node::Seq(nodes) => {
            out.push_str("(?:");
            for node in nodes {
                emit(node, flags, out)?;
            }
            out.push(')');
        }
        Node::Alt(nodes) => {
            out.push_str("(?:");
            for (index, node) in nodes.iter().enumerate() {
                if index > 0 {
                    out.push('|');
                }
                emit(node, flags, out)?;
            }
            out.push(')');
        }
        Node::Repeat { node, min, max, .. } => {
            out.push_str("(?:");
            emit(node, flags, out)?;
            out.push(')');
            if *max == UNBOUNDED {
                out.push_str(&alloc::format!("{{{min},}}"));
            } else {
                out.push_str(&alloc::format!("{{{min},{max}}}"));
            }
        }
        Node::Capture { node, .. } => emit(node, flags, out)?,
        Node::Modified { ignore_case, dot_all, multiline, node } => {
            let inner = Flags {
                ignore_case: ignore_case.unwrap_or(flags.ignore_case),
                dot_all: dot_all.unwrap_or(flags.dot_all),
                multiline: multiline.unwrap_or(flags.multiline),
                ..flags
            };
            emit(node, inner, out)?;
        }
        Node::Look { .. } => return Err(String::from("a look-around")),
        Node::Backref => return Err(String::from("a back-reference")),
    }
    Ok(())
}

/// The code points a class matches, case-widened and negated as JS would.
fn class_ranges(negated: bool, items: &[Item], flags: Flags) -> Result<Ranges, String> {
    let mut set = Ranges::new();
    for item in items {
        match *item {
            Item::Range(from, to) => set.push((from, to)),
            Item::Digit(negate) => set.extend(maybe_complement(DIGIT, negate)),
            Item::Word(negate) => {
                let word = if flags.ignore_case && flags.unicode { WORD_IU } else { WORD };
                set.extend(maybe_complement(word, negate));
            }
            Item::Space(negate) => set.extend(maybe_complement(SPACE, negate)),
            Item::Dot if flags.dot_all => set.push((0, MAX_CHAR)),
            Item::Dot => set.extend(complement(LINE_TERMINATORS)),
            Item::Property(_) => return Err(String::from("a \\p{…} property")),
            Item::Any => return Err(String::from("a class set operation")),
        }
    }
    if flags.ignore_case {
        for range in normalize(set.clone()) {
            widen(&mut set, range, flags.unicode);
        }
    }
    let set = normalize(set);
    Ok(if negated { complement(&set) } else { set })
}

fn maybe_complement(ranges: &[(u32, u32)], negate: bool) -> Ranges {
    if negate {
        complement(ranges)
    } else {
        ranges.to_vec()
    }
}

/// Sorted, merged ranges.
fn normalize(mut ranges: Ranges) -> Ranges {
    ranges.sort_unstable();
    let mut merged: Ranges = Vec::with_capacity(ranges.len());
    for (from, to) in ranges {
        match merged.last_mut() {
            Some(last) if from <= last.1.saturating_add(1) => last.1 = last.1.max(to),
            _ => merged.push((from, to)),
        }
    }
    merged
}

/// Everything outside sorted, merged `ranges`.
fn complement(ranges: &[(u32, u32)]) -> Ranges {
    let mut out = Vec::new();
    let mut next = 0u32;
    for &(from, to) in &normalize(ranges.to_vec()) {
        if from > next {
            out.push((next, from.saturating_sub(1)));
        }
        next = to.saturating_add(1);
    }
    if next <= MAX_CHAR {
        out.push((next, MAX_CHAR));
    }
    out
}

/// JS's case-equivalence classes: with `u`, simple case folding; without, `toUpperCase`
/// (ECMA-262's Canonicalize), which never maps a non-ASCII character onto an ASCII one.
struct CaseClasses {
    /// (class key, member), sorted.
    by_key: Vec<(u32, u32)>,
    /// (member, class key), sorted.
    by_member: Vec<(u32, u32)>,
}

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

fn case_classes(unicode: bool) -> &'static CaseClasses {
    static LEGACY: OnceLock<CaseClasses> = OnceLock::new();
    static UNICODE: OnceLock<CaseClasses> = OnceLock::new();
    let cell = if unicode { &UNICODE } else { &LEGACY };
    cell.get_or_init(|| {
        let mut by_key = Vec::new();
        for code in 0..=0x1_FFFFu32 {
            let Some(c) = char::from_u32(code) else { continue };
            let key = fold_key(c, unicode);
            if key != c {
                by_key.push((u32::from(key), code));
                by_key.push((u32::from(key), u32::from(key)));
            }
        }
        by_key.sort_unstable();
        by_key.dedup();
        let mut by_member: Vec<(u32, u32)> = by_key.iter().map(|&(key, member)| (member, key)).collect();
        by_member.sort_unstable();
        CaseClasses { by_key, by_member }
    })
}

/// Adds to `set` every character case-equivalent to one in `from..=to`.
fn widen(set: &mut Ranges, (from, to): (u32, u32), unicode: bool) {
    let classes = case_classes(unicode);
    let first = classes.by_member.partition_point(|&(member, _)| member < from);
    for &(member, key) in classes.by_member.get(first..).unwrap_or_default() {
        if member > to {
            break;
        }
        let start = classes.by_key.partition_point(|&(k, _)| k < key);
        for &(k, other) in classes.by_key.get(start..).unwrap_or_default() {
            if k != key {
                break;
            }
            if other < from || other > to {
                set.push((other, other));
            }
        }
    }
}

fn single(mut chars: impl Iterator<Item = char>) -> Option<char> {
    let c = chars.next()?;
    chars.next().is_none().then_some(c)
}

/// A class of `regex-lite` syntax; surrogates (no Rust string holds one) are left out.
fn push_class(out: &mut String, ranges: &Ranges) {
    let mut parts = Vec::new();
    for &(from, to) in ranges {
        if to < 0xD800 || from > 0xDFFF {
            parts.push((from, to));
        } else {
            if from < 0xD800 {
                parts.push((from, 0xD7FF));
            }
            if to > 0xDFFF {
                parts.push((0xE000, to));
            }
        }
    }
    if parts.is_empty() {
        // No character: a class `regex-lite` compiles to a state that never matches.
        out.push_str(r"[^\x{0}-\x{10FFFF}]");
        return;
    }
    out.push('[');
    for (from, to) in parts {
        out.push_str(&alloc::format!("\\x{{{from:X}}}"));
        if to != from {
            out.push_str(&alloc::format!("-\\x{{{to:X}}}"));
        }
    }
    out.push(']');
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    use super::*;

    fn test(source: &str, flags: &str, text: &str) -> bool {
        Linear::new(source, flags).unwrap_or_else(|error| panic!("/{source}/{flags}: {error}")).is_match(text)
    }

    #[test]
    fn means_what_javascript_means() {
        assert!(test("^\\s$", "u", "\u{3000}"));
        assert!(!test("^\\S$", "u", "\u{A0}"));
        assert!(test("^[a-z]+$", "i", "ABC"));
        assert!(test("^\\u{212A}$", "iu", "k"));
        assert!(!test("^\\u{212A}$", "i", "k"));
        assert!(!test("^.$", "", "\n"));
        assert!(test("^.$", "s", "\u{2028}"));
        assert!(test("a$", "", "ba"));
        assert!(!test("a$", "", "a\n"));
        assert!(test("^a$", "m", "b\na\nc"));
        assert!(test("^(?=.{1,5}$)[a-z]+$", "", "abc"));
        assert!(!test("^(?=.{1,5}$)[a-z]+$", "", "abcdef"));
        assert!(!test("^(?!x)[a-z]+$", "", "xyz"));
        assert!(test("[^]", "", "x"));
        assert!(!test("[]", "", "x"));
        assert!(test("(?i:a)B", "", "AB"));
        assert!(!test("(?i:a)B", "", "Ab"));
    }

    #[test]
    fn linear_on_the_classic_catastrophes() {
        let long = "a".repeat(20_000) + "!";
        assert!(!test("^(a+)+$", "", &long));
        assert!(!test("^(a|aa)*$", "", &long));
        assert!(!test("(.*a){12}b", "", &long));
    }

    #[test]
    fn refuses_what_it_cannot_run() {
        for (source, flags) in [("(a)\\1", ""), ("(?<=a)b", ""), ("\\p{L}", "u"), ("a(?=b)", "")] {
            assert!(Linear::new(source, flags).is_err(), "/{source}/{flags}");
        }
    }
}
