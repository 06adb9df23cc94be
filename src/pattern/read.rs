//! A pattern read for its judgement: the tree [`super::cost`] bounds, with each character
//! class reduced to what the bound needs ([`Chars`]).
//!
//! The page's `RegExp` has already accepted the pattern, so this reader only has to follow
//! ECMA-262's grammar (with and without `u` / `v`, Annex B's forms included) to find the
//! structure: groups, alternatives, repetitions, look-arounds, back-references. Characters are
//! read as bytes: the bound tells ASCII characters apart and counts every other one as one
//! member, so a non-ASCII character never needs decoding. What it cannot describe exactly (a
//! `\p{…}` property, a `v`-mode class set operation) is "any character", and noted as a form the
//! linear engine lacks. The linear-engine module reads patterns exactly, with
//! [`super::syntax`]; the tests hold the two readings to the same structure.

use alloc::boxed::Box;
use alloc::vec::Vec;

/// A set of characters: ASCII exactly, every other character as one member.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Chars {
    pub(crate) ascii: u128,
    pub(crate) other: bool,
    /// In a follow set: what follows may run a look-around or a back-reference before it reads
    /// a character, so a character it cannot start with does not stop it early.
    pub(crate) probe: bool,
}

impl Chars {
    /// Every character.
    pub const ALL: Chars = Chars { ascii: u128::MAX, other: true, probe: false };
    /// No character.
    pub const NONE: Chars = Chars { ascii: 0, other: false, probe: false };

    /// The one character `code` (any non-ASCII code is the one non-ASCII member).
    fn one(code: u32) -> Chars {
        Chars::range(code, code)
    }

    /// The characters `from..=to`.
    pub(crate) fn range(from: u32, to: u32) -> Chars {
        let mut ascii = 0u128;
        let mut code = from;
        while code <= to.min(127) {
            ascii |= 1u128 << code;
            code = code.saturating_add(1);
        }
        Chars { ascii, other: to >= 128, probe: false }
    }

    /// Both sets.
    #[must_use]
    pub fn union(self, other: Chars) -> Chars {
        Chars { ascii: self.ascii | other.ascii, other: self.other || other.other, probe: self.probe || other.probe }
    }

    /// Whether the sets share a character.
    #[must_use]
    pub fn meets(self, other: Chars) -> bool {
        self.ascii & other.ascii != 0 || (self.other && other.other)
    }

    /// Every character not in the set (not every non-ASCII character is in a set that holds
    /// some, so the complement keeps the non-ASCII member).
    fn complement(self) -> Chars {
        Chars { ascii: !self.ascii, other: true, probe: false }
    }

    /// With the `i` flag: both cases of every ASCII letter, and the non-ASCII characters that
    /// fold onto ASCII ones (U+017F onto `s`, U+212A onto `k`) both ways.
    fn fold_case(mut self) -> Chars {
        const UPPER: u128 = ((1u128 << 26) - 1) << 65;
        const LOWER: u128 = ((1u128 << 26) - 1) << 97;
        self.ascii |= (self.ascii & UPPER) << 32 | (self.ascii & LOWER) >> 32;
        if self.ascii & (UPPER | LOWER) != 0 {
            self.other = true;
        }
        if self.other {
            self.ascii |= 1u128 << b'K' | 1u128 << b'S' | 1u128 << b'k' | 1u128 << b's';
        }
        self
    }
}

const DIGITS: Chars = Chars { ascii: ((1u128 << 10) - 1) << 48, other: false, probe: false };
const WORD: Chars = Chars { ascii: DIGITS.ascii | ((1u128 << 26) - 1) << 65 | ((1u128 << 26) - 1) << 97 | 1u128 << 95, other: false, probe: false };
/// `\s`: TAB to CR, space, and (as the one non-ASCII member) the Unicode spaces.
const SPACE: Chars = Chars { ascii: ((1u128 << 5) - 1) << 9 | 1u128 << 32, other: true, probe: false };
/// `.` without `s`: all but LF and CR (U+2028/9 are among the non-ASCII member's).
const DOT: Chars = Chars { ascii: !(1u128 << 10 | 1u128 << 13), other: true, probe: false };

/// A pattern's structure, as the judgement reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tree {
    /// One character of the set.
    Set(Chars),
    /// `^` at the text's start (no `m` flag in effect).
    Anchor,
    /// Another zero-width assertion (`^`/`$` with or without `m`, `\b`, `\B`).
    Assert,
    /// `\1`, `\k<name>`.
    Backref,
    /// A look-ahead or look-behind.
    Look {
        /// Look-behind.
        behind: bool,
        /// What is looked for.
        body: Box<Tree>,
    },
    /// Each in turn.
    Seq(Vec<Tree>),
    /// The first that leads to a match.
    Alt(Vec<Tree>),
    /// `body` between `min` and `max` times ([`UNBOUNDED`]: no upper bound).
    Rep {
        /// What repeats.
        body: Box<Tree>,
        /// At least.
        min: u32,
        /// At most.
        max: u32,
    },
}

/// No upper bound on a [`Tree::Rep`].
pub const UNBOUNDED: u32 = u32::MAX;

/// The most nodes a pattern may have for the judgement to read it.
pub const MAX_NODES: usize = 4_096;
/// How deeply groups may nest.
const MAX_DEPTH: u32 = 64;

/// A pattern as read: its tree, whether `m` was in effect for the whole of it, and the forms in
/// it the linear engine lacks that the tree does not show.
#[derive(Debug, Clone)]
pub struct Reading {
    /// The structure.
    pub tree: Tree,
    /// A `\p{…}` property or a `v`-mode class set operation: what the linear engine cannot run
    /// (the tree counts them as any character).
    pub inexact: bool,
}

/// The flags of a JS flag string that change what the judgement reads.
#[derive(Debug, Clone, Copy, Default)]
struct Flags {
    ignore_case: bool,
    multiline: bool,
    dot_all: bool,
    unicode: bool,
    sets: bool,
}

/// Reads `source` under JS `flags`; `None` when it uses a form this reader does not know or
/// is too large or too deep.
#[must_use]
pub fn read(source: &str, flags: &str) -> Option<Reading> {
    let mut parsed = Flags::default();
    for flag in flags.bytes() {
        match flag {
            b'i' => parsed.ignore_case = true,
            b'm' => parsed.multiline = true,
            b's' => parsed.dot_all = true,
            b'u' => parsed.unicode = true,
            b'v' => {
                parsed.unicode = true;
                parsed.sets = true;
            }
            _ => {}
        }
    }
    let bytes = source.as_bytes();
    let (groups, named) = count_groups(bytes);
    let mut reader = Reader { src: bytes, at: 0, flags: parsed, groups, named, nodes: 0, inexact: false };
    let tree = reader.disjunction(0)?;
    (reader.at == bytes.len()).then_some(Reading { tree, inexact: reader.inexact })
}

struct Reader<'a> {
    src: &'a [u8],
    at: usize,
    flags: Flags,
    /// Capturing groups in the pattern (`\N` beyond them is not a back-reference without `u`).
    groups: u32,
    /// Some group is named (then `\k` is a back-reference).
    named: bool,
    nodes: usize,
    inexact: bool,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.src.get(self.at).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<u8> {
        self.src.get(self.at.saturating_add(offset)).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let byte = self.peek()?;
        self.at = self.at.saturating_add(1);
        Some(byte)
    }

    fn eat(&mut self, byte: u8) -> bool {
        let hit = self.peek() == Some(byte);
        if hit {
            self.at = self.at.saturating_add(1);
        }
        hit
    }

    /// Counts a node; `None` past [`MAX_NODES`].
    fn count(&mut self) -> Option<()> {
        self.nodes = self.nodes.saturating_add(1);
        (self.nodes <= MAX_NODES).then_some(())
    }

    fn disjunction(&mut self, depth: u32) -> Option<Tree> {
        if depth > MAX_DEPTH {
            return None;
        }
        let mut alternatives = Vec::new();
        loop {
            let mut terms = Vec::new();
            while !matches!(self.peek(), None | Some(b'|' | b')')) {
                terms.push(self.term(depth)?);
            }
            alternatives.push(if terms.len() == 1 { terms.pop()? } else { Tree::Seq(terms) });
            if !self.eat(b'|') {
                break;
            }
        }
        self.count()?;
        Some(if alternatives.len() == 1 { alternatives.pop()? } else { Tree::Alt(alternatives) })
    }

    fn term(&mut self, depth: u32) -> Option<Tree> {
        self.count()?;
        let flags = self.flags;
        let byte = self.bump()?;
        // The atom, and whether a quantifier may follow it (look-aheads only without `u`).
        let (atom, quantifiable) = match byte {
            b'^' if !flags.multiline => (Tree::Anchor, false),
            b'^' | b'$' => (Tree::Assert, false),
            b'(' => self.group(depth)?,
            b'.' => (Tree::Set(if flags.dot_all { Chars::ALL } else { DOT }), true),
            b'[' => (Tree::Set(self.class()?), true),
            b'\\' => self.escape()?,
            b'*' | b'+' | b'?' | b')' => return None,
            b'{' | b'}' | b']' if flags.unicode => return None,
            _ => {
                let code = self.code(byte);
                (Tree::Set(self.fold(Chars::one(code))), true)
            }
        };
        let Some((min, max)) = self.quantifier()? else { return Some(atom) };
        (quantifiable || !flags.unicode).then(|| Tree::Rep { body: Box::new(atom), min, max })
    }

    /// A character read from its first byte: an ASCII one as itself, a non-ASCII one (its
    /// continuation bytes skipped) as 128, the non-ASCII member: the judgement only asks
    /// whether a character or a range reaches past ASCII.
    fn code(&mut self, byte: u8) -> u32 {
        if byte < 0x80 {
            return u32::from(byte);
        }
        while self.peek().is_some_and(|next| next & 0xC0 == 0x80) {
            self.at = self.at.saturating_add(1);
        }
        128
    }

    fn fold(&self, chars: Chars) -> Chars {
        if self.flags.ignore_case {
            chars.fold_case()
        } else {
            chars
        }
    }

    /// After `(`.
    fn group(&mut self, depth: u32) -> Option<(Tree, bool)> {
        let inner = depth.saturating_add(1);
        let saved = self.flags;
        let mut look = None;
        if self.eat(b'?') {
            match self.bump()? {
                b':' => {}
                b'=' | b'!' => look = Some(false),
                b'<' if matches!(self.peek(), Some(b'=' | b'!')) => {
                    self.at = self.at.saturating_add(1);
                    look = Some(true);
                }
                b'<' => {
                    while self.bump()? != b'>' {}
                }
                first => {
                    // Modifiers: `(?ims-ims:…)`.
                    let mut on = true;
                    let mut flag = first;
                    while flag != b':' {
                        match flag {
                            b'i' => self.flags.ignore_case = on,
                            b's' => self.flags.dot_all = on,
                            b'm' => self.flags.multiline = on,
                            b'-' if on => on = false,
                            _ => return None,
                        }
                        flag = self.bump()?;
                    }
                }
            }
        }
        let body = self.disjunction(inner)?;
        self.flags = saved;
        if !self.eat(b')') {
            return None;
        }
        Some(match look {
            Some(behind) => (Tree::Look { behind, body: Box::new(body) }, !behind && !self.flags.unicode),
            None => (body, true),
        })
    }

    /// A quantifier at the cursor, if one is there: `Some(None)` when none is. Without `u`, a
    /// `{` that does not start a well-formed quantifier is a character (Annex B).
    #[allow(clippy::option_option)]
    fn quantifier(&mut self) -> Option<Option<(u32, u32)>> {
        let bounds = match self.peek() {
            Some(b'*') => (0, UNBOUNDED),
            Some(b'+') => (1, UNBOUNDED),
            Some(b'?') => (0, 1),
            Some(b'{') => {
                let start = self.at;
                self.at = self.at.saturating_add(1);
                let braces = self.number().and_then(|min| {
                    let max = if self.eat(b',') { if self.peek() == Some(b'}') { UNBOUNDED } else { self.number()? } } else { min };
                    (self.peek() == Some(b'}') && min <= max).then_some((min, max))
                });
                match braces {
                    Some(bounds) => bounds,
                    None if self.flags.unicode => return None,
                    None => {
                        self.at = start;
                        return Some(None);
                    }
                }
            }
            _ => return Some(None),
        };
        self.at = self.at.saturating_add(1);
        self.eat(b'?');
        Some(Some(bounds))
    }

    /// Decimal digits (saturating below [`UNBOUNDED`]).
    fn number(&mut self) -> Option<u32> {
        let start = self.at;
        let mut value = 0u32;
        while let Some(digit @ b'0'..=b'9') = self.peek() {
            value = value.saturating_mul(10).saturating_add(u32::from(digit.saturating_sub(b'0'))).min(UNBOUNDED.saturating_sub(1));
            self.at = self.at.saturating_add(1);
        }
        (self.at > start).then_some(value)
    }

    /// After `\` outside a class: an assertion, a back-reference, or characters.
    fn escape(&mut self) -> Option<(Tree, bool)> {
        match self.peek()? {
            b'b' | b'B' => {
                self.at = self.at.saturating_add(1);
                Some((Tree::Assert, false))
            }
            b'1'..=b'9' => {
                let start = self.at;
                if self.number()? <= self.groups {
                    return Some((Tree::Backref, true));
                }
                if self.flags.unicode {
                    return None;
                }
                // Annex B: a legacy octal escape, or `\8` / `\9` as the digit.
                self.at = start;
                Some((Tree::Set(Chars::one(self.octal())), true))
            }
            b'k' if self.flags.unicode || self.named => {
                self.at = self.at.saturating_add(1);
                if !self.eat(b'<') {
                    return None;
                }
                while self.bump()? != b'>' {}
                Some((Tree::Backref, true))
            }
            _ => {
                let (chars, _) = self.class_escape(false)?;
                Some((Tree::Set(self.fold(chars)), true))
            }
        }
    }

    /// A legacy octal escape (up to `\377`) or `\8` / `\9`, at the cursor: its code.
    fn octal(&mut self) -> u32 {
        let mut value = 0u32;
        let mut read = 0u32;
        while let Some(digit @ b'0'..=b'7') = self.peek() {
            let next = value.saturating_mul(8).saturating_add(u32::from(digit.saturating_sub(b'0')));
            if read == 3 || next > 0o377 {
                break;
            }
            value = next;
            read = read.saturating_add(1);
            self.at = self.at.saturating_add(1);
        }
        if read == 0 {
            return self.bump().map_or(0, u32::from);
        }
        value
    }

    /// An escape that stands for characters (the cursor after the `\`): its characters, and
    /// its code when it is one character (a range's end). In a class, `\b` is a backspace and
    /// `\-` a hyphen.
    fn class_escape(&mut self, in_class: bool) -> Option<(Chars, Option<u32>)> {
        let unicode = self.flags.unicode;
        let byte = self.bump()?;
        let set = |chars: Chars| Some((chars, None));
        let code = match byte {
            b'd' => return set(DIGITS),
            b'D' => return set(DIGITS.complement()),
            b'w' | b'W' => {
                // With `i` and `u`, `\w` also holds U+017F and U+212A.
                let word = Chars { other: self.flags.ignore_case && unicode, ..WORD };
                return set(if byte == b'W' { word.complement() } else { word });
            }
            b's' => return set(SPACE),
            b'S' => return set(SPACE.complement()),
            b'p' | b'P' if unicode => {
                if !self.eat(b'{') {
                    return None;
                }
                while self.bump()? != b'}' {}
                self.inexact = true;
                return set(Chars::ALL);
            }
            b't' => 9,
            b'n' => 10,
            b'v' => 11,
            b'f' => 12,
            b'r' => 13,
            b'b' if in_class => 8,
            b'c' => match self.peek() {
                Some(letter) if letter.is_ascii_alphabetic() || (in_class && !unicode && (letter.is_ascii_digit() || letter == b'_')) => {
                    self.at = self.at.saturating_add(1);
                    u32::from(letter % 32)
                }
                _ if unicode => return None,
                // Annex B: `\c` is a backslash, and the letter after it is read as itself.
                _ => {
                    self.at = self.at.saturating_sub(1);
                    u32::from(b'\\')
                }
            },
            b'0' if !self.peek().is_some_and(|next| next.is_ascii_digit()) => 0,
            b'0'..=b'9' if !unicode => {
                self.at = self.at.saturating_sub(1);
                self.octal()
            }
            b'x' => match self.hex(2) {
                Some(code) => code,
                None if unicode => return None,
                None => u32::from(b'x'),
            },
            b'u' if unicode && self.eat(b'{') => {
                let code = self.hex_run()?;
                if !self.eat(b'}') {
                    return None;
                }
                code
            }
            b'u' => match self.hex(4) {
                Some(code) => code,
                None if unicode => return None,
                None => u32::from(b'u'),
            },
            b'-' if in_class => u32::from(b'-'),
            other if unicode && !b"^$\\.*+?()[]{}|/".contains(&other) && !(in_class && self.flags.sets) => return None,
            other => self.code(other),
        };
        Some((Chars::one(code), Some(code)))
    }

    /// Exactly `count` hex digits at the cursor, consumed only when all are there.
    fn hex(&mut self, count: usize) -> Option<u32> {
        let mut value = 0u32;
        for offset in 0..count {
            let digit = char::from(self.peek_at(offset)?).to_digit(16)?;
            value = value.checked_mul(16)?.checked_add(digit)?;
        }
        self.at = self.at.saturating_add(count);
        Some(value)
    }

    /// One or more hex digits at the cursor (`\u{…}`).
    fn hex_run(&mut self) -> Option<u32> {
        let mut value = 0u32;
        let start = self.at;
        while let Some(digit) = self.peek().and_then(|byte| char::from(byte).to_digit(16)) {
            value = value.checked_mul(16)?.checked_add(digit)?;
            self.at = self.at.saturating_add(1);
        }
        (self.at > start).then_some(value)
    }

    /// After `[`: the class's characters.
    fn class(&mut self) -> Option<Chars> {
        let negated = self.eat(b'^');
        let mut chars = Chars::NONE;
        let mut depth = 1u32;
        let mut set_operations = false;
        loop {
            let byte = self.bump()?;
            match byte {
                b']' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        break;
                    }
                }
                // `v` mode: nested classes, `\q{…}` and the `&&` / `--` operators are read as
                // "any character".
                b'[' if self.flags.sets => {
                    depth = depth.saturating_add(1);
                    set_operations = true;
                }
                b'&' | b'-' if self.flags.sets && self.peek() == Some(byte) => {
                    self.at = self.at.saturating_add(1);
                    set_operations = true;
                }
                b'\\' if self.flags.sets && self.peek() == Some(b'q') => {
                    while self.bump()? != b'}' {}
                    set_operations = true;
                }
                _ => {
                    let (first, code) = self.class_atom(byte)?;
                    let range = self.peek() == Some(b'-') && !matches!(self.peek_at(1), None | Some(b']' | b'-'));
                    if range {
                        self.at = self.at.saturating_add(1);
                        let next = self.bump()?;
                        let (second, end) = self.class_atom(next)?;
                        chars = chars.union(match (code, end) {
                            (Some(from), Some(to)) if from <= to => Chars::range(from, to),
                            // Annex B: `[\d-z]` is `\d`, `-` and `z`.
                            _ if !self.flags.unicode => first.union(second).union(Chars::one(u32::from(b'-'))),
                            _ => return None,
                        });
                    } else {
                        chars = chars.union(first);
                    }
                }
            }
        }
        if set_operations {
            self.inexact = true;
            chars = Chars::ALL;
        }
        let chars = self.fold(chars);
        Some(if negated { self.fold(chars.complement()) } else { chars })
    }

    /// One member of a class from its first byte: its characters, and its code when it is a
    /// single character.
    fn class_atom(&mut self, byte: u8) -> Option<(Chars, Option<u32>)> {
        if byte == b'\\' {
            return self.class_escape(true);
        }
        let code = self.code(byte);
        Some((Chars::one(code), Some(code)))
    }
}

/// How many capturing groups the pattern opens, and whether one is named (outside classes
/// and escapes).
fn count_groups(bytes: &[u8]) -> (u32, bool) {
    let (mut groups, mut named, mut in_class, mut at) = (0u32, false, false, 0usize);
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'\\' => at = at.saturating_add(1),
            b'[' => in_class = true,
            b']' => in_class = false,
            b'(' if !in_class => {
                let next = bytes.get(at.saturating_add(1)).copied();
                let after = bytes.get(at.saturating_add(2)).copied();
                let third = bytes.get(at.saturating_add(3)).copied();
                if next != Some(b'?') {
                    groups = groups.saturating_add(1);
                } else if after == Some(b'<') && !matches!(third, Some(b'=' | b'!')) {
                    groups = groups.saturating_add(1);
                    named = true;
                }
            }
            _ => {}
        }
        at = at.saturating_add(1);
    }
    (groups, named)
}
