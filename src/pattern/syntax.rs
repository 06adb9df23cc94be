//! ECMAScript regular expression syntax, read into a tree that the pattern deciders share.
//!
//! The page's own `RegExp` says whether a pattern is valid (the boundary compiles every pattern
//! with it first); this parser reads a pattern the engine accepted, to decide how it may run
//! (`super::cost`) and, in the linear-engine module, to translate it. It follows ECMA-262's
//! grammar with and without the `u` / `v` flags, Annex B's web-compatibility forms included
//! (a lone `{` or `]` is a character, `\8` is `8`, `\07` an octal escape, quantified
//! look-aheads). Where the tree cannot say exactly what a form matches (a `v`-mode class with
//! set operations, a `\p{…}` property), it says so ([`Item::Any`], [`Item::Property`]) and the
//! deciders treat it as "could be any character", which only makes them more careful.

use alloc::boxed::Box;
use alloc::vec::Vec;

/// The most nodes a pattern may have; a longer pattern is not analysed (it is judged by the
/// rule for patterns the deciders cannot read).
pub const MAX_NODES: usize = 4_096;

/// How deeply groups may nest before the parser stops (the tree is walked recursively).
pub const MAX_DEPTH: u32 = 64;

/// The flags that change what a pattern means.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Flags {
    /// `i`: letters match either case.
    pub ignore_case: bool,
    /// `m`: `^` and `$` also match at line terminators.
    pub multiline: bool,
    /// `s`: `.` also matches line terminators.
    pub dot_all: bool,
    /// `u` or `v`: code points, strict escapes.
    pub unicode: bool,
    /// `v`: class set syntax (nested classes, `&&`, `--`, `\q{…}`).
    pub sets: bool,
}

impl Flags {
    /// The flags of a JS flag string (`"iu"`); unknown letters are ignored (the page's engine
    /// has already refused them).
    #[must_use]
    pub fn parse(flags: &str) -> Flags {
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
        parsed
    }
}

/// One part of a character class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    /// The code points `from..=to`.
    Range(u32, u32),
    /// `\d` (`true`: `\D`).
    Digit(bool),
    /// `\w` (`true`: `\W`).
    Word(bool),
    /// `\s` (`true`: `\S`).
    Space(bool),
    /// `\p{…}` (`true`: `\P{…}`); the property itself is not kept.
    Property(bool),
    /// `.`: any character but line terminators (any at all with the `s` flag).
    Dot,
    /// Something the tree does not describe exactly (a `v`-mode nested class or set operation,
    /// `\q{…}`): any character, as far as the deciders know.
    Any,
}

/// A node of the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// Matches the empty string.
    Empty,
    /// One character of a class (`negated`: one character that is not).
    Class {
        /// `[^…]`.
        negated: bool,
        /// The class's members.
        items: Vec<Item>,
    },
    /// `^`.
    Start,
    /// `$`.
    End,
    /// `\b` (`true`: `\B`).
    WordBoundary(bool),
    /// Each node in turn.
    Seq(Vec<Node>),
    /// The first alternative that leads to a match.
    Alt(Vec<Node>),
    /// `node` between `min` and `max` times ([`UNBOUNDED`]: no upper bound).
    Repeat {
        /// What repeats.
        node: Box<Node>,
        /// At least this many times.
        min: u32,
        /// At most this many times.
        max: u32,
        /// Greedy (`*`) or lazy (`*?`).
        greedy: bool,
    },
    /// `(?=…)`, `(?!…)`, `(?<=…)`, `(?<!…)`.
    Look {
        /// Look-behind.
        behind: bool,
        /// Negative.
        negative: bool,
        /// What is looked for.
        node: Box<Node>,
    },
    /// A capturing group; `index` counts from 1 in source order.
    Capture {
        /// The group's number.
        index: u32,
        /// Its contents.
        node: Box<Node>,
    },
    /// `\1`, `\k<name>`.
    Backref,
    /// `(?i:…)`, `(?-i:…)` and the other modifiers: `ignore_case` is what the `i` flag is inside.
    Modified {
        /// Whether letters match either case inside.
        ignore_case: Option<bool>,
        /// Whether `.` matches line terminators inside.
        dot_all: Option<bool>,
        /// Whether `^`/`$` match at line terminators inside.
        multiline: Option<bool>,
        /// The group's contents.
        node: Box<Node>,
    },
}

/// No upper bound on a [`Node::Repeat`].
pub const UNBOUNDED: u32 = u32::MAX;

/// Why a pattern could not be read (the page's engine accepted it, so this means a form this
/// parser does not know, or a pattern past [`MAX_NODES`] or [`MAX_DEPTH`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unreadable;

/// Reads `source` under `flags`.
///
/// # Errors
/// [`Unreadable`] when the pattern uses a form this parser does not know or is too large.
pub fn parse(source: &str, flags: Flags) -> Result<Node, Unreadable> {
    let chars: Vec<char> = source.chars().collect();
    let mut parser = Parser {
        groups: count_groups(&chars),
        has_names: has_group_names(&chars),
        chars,
        at: 0,
        flags,
        nodes: 0,
        next_group: 0,
    };
    let node = parser.disjunction(0)?;
    if parser.at == parser.chars.len() {
        Ok(node)
    } else {
        Err(Unreadable)
    }
}

struct Parser {
    chars: Vec<char>,
    at: usize,
    flags: Flags,
    /// How many capturing groups the pattern has (a `\N` beyond it is not a back-reference
    /// without `u`).
    groups: u32,
    /// Whether some group is named (then `\k` is always a back-reference).
    has_names: bool,
    nodes: usize,
    next_group: u32,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.at.saturating_add(offset)).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at = self.at.saturating_add(1);
        Some(c)
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.at = self.at.saturating_add(1);
            true
        } else {
            false
        }
    }

    fn node(&mut self, node: Node) -> Result<Node, Unreadable> {
        self.nodes = self.nodes.saturating_add(1);
        if self.nodes > MAX_NODES {
            return Err(Unreadable);
        }
        Ok(node)
    }

    fn disjunction(&mut self, depth: u32) -> Result<Node, Unreadable> {
        if depth > MAX_DEPTH {
            return Err(Unreadable);
        }
        let mut alternatives = Vec::new();
        loop {
            alternatives.push(self.alternative(depth)?);
            if !self.eat('|') {
                break;
            }
        }
        if alternatives.len() == 1 {
            return Ok(alternatives.pop().unwrap_or(Node::Empty));
        }
        self.node(Node::Alt(alternatives))
    }

    fn alternative(&mut self, depth: u32) -> Result<Node, Unreadable> {
        let mut terms = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let term = self.term(depth)?;
            terms.push(term);
        }
        match terms.len() {
            0 => Ok(Node::Empty),
            1 => Ok(terms.pop().unwrap_or(Node::Empty)),
            _ => self.node(Node::Seq(terms)),
        }
    }

    fn term(&mut self, depth: u32) -> Result<Node, Unreadable> {
        let Some(c) = self.bump() else { return Err(Unreadable) };
        let (atom, quantifiable) = match c {
            '^' => (Node::Start, false),
            '$' => (Node::End, false),
            '(' => self.group(depth)?,
            '.' => (Node::Class { negated: false, items: alloc::vec![Item::Dot] }, true),
            '[' => (self.class()?, true),
            '\\' => self.escape()?,
            '*' | '+' | '?' => return Err(Unreadable),
            '{' if !self.flags.unicode => (literal(u32::from('{')), true),
            ')' => return Err(Unreadable),
            '{' | '}' | ']' if self.flags.unicode => return Err(Unreadable),
            other => (literal(u32::from(other)), true),
        };
        let atom = self.node(atom)?;
        match self.quantifier()? {
            Some((min, max, greedy)) if quantifiable || !self.flags.unicode => {
                self.node(Node::Repeat { node: Box::new(atom), min, max, greedy })
            }
            Some(_) => Err(Unreadable),
            None => Ok(atom),
        }
    }

    /// After `(`: a group, a look-around, or a modifier group. The flag says whether it may be
    /// quantified (look-aheads only without `u`, look-behinds never).
    fn group(&mut self, depth: u32) -> Result<(Node, bool), Unreadable> {
        let inner = depth.saturating_add(1);
        if !self.eat('?') {
            self.next_group = self.next_group.saturating_add(1);
            let index = self.next_group;
            let node = self.disjunction(inner)?;
            self.close()?;
            return Ok((Node::Capture { index, node: Box::new(node) }, true));
        }
        match self.bump() {
            Some(':') => {
                let node = self.disjunction(inner)?;
                self.close()?;
                Ok((node, true))
            }
            Some(look @ ('=' | '!')) => {
                let node = self.disjunction(inner)?;
                self.close()?;
                let node = Node::Look { behind: false, negative: look == '!', node: Box::new(node) };
                Ok((node, !self.flags.unicode))
            }
            Some('<') if matches!(self.peek(), Some('=' | '!')) => {
                let negative = self.bump() == Some('!');
                let node = self.disjunction(inner)?;
                self.close()?;
                Ok((Node::Look { behind: true, negative, node: Box::new(node) }, false))
            }
            Some('<') => {
                while let Some(c) = self.bump() {
                    if c == '>' {
                        self.next_group = self.next_group.saturating_add(1);
                        let index = self.next_group;
                        let node = self.disjunction(inner)?;
                        self.close()?;
                        return Ok((Node::Capture { index, node: Box::new(node) }, true));
                    }
                }
                Err(Unreadable)
            }
            Some(first) => self.modifiers(first, inner),
            None => Err(Unreadable),
        }
    }

    /// `(?ims-ims:…)`, after the first flag letter or `-`.
    fn modifiers(&mut self, first: char, depth: u32) -> Result<(Node, bool), Unreadable> {
        let (mut ignore_case, mut dot_all, mut multiline) = (None, None, None);
        let mut on = true;
        let mut c = first;
        loop {
            match c {
                'i' => ignore_case = Some(on),
                's' => dot_all = Some(on),
                'm' => multiline = Some(on),
                '-' if on => on = false,
                ':' => break,
                _ => return Err(Unreadable),
            }
            c = self.bump().ok_or(Unreadable)?;
        }
        let node = self.disjunction(depth)?;
        self.close()?;
        Ok((Node::Modified { ignore_case, dot_all, multiline, node: Box::new(node) }, true))
    }

    fn close(&mut self) -> Result<(), Unreadable> {
        if self.eat(')') {
            Ok(())
        } else {
            Err(Unreadable)
        }
    }

    /// A quantifier, if one follows: `(min, max, greedy)`. Without `u`, a `{` that does not
    /// start a well-formed quantifier is a character (Annex B), so it is left unread.
    fn quantifier(&mut self) -> Result<Option<(u32, u32, bool)>, Unreadable> {
        let (min, max) = match self.peek() {
            Some('*') => (0, UNBOUNDED),
            Some('+') => (1, UNBOUNDED),
            Some('?') => (0, 1),
            Some('{') => match self.braces() {
                Some((min, max, end)) => {
                    if max < min {
                        return Err(Unreadable);
                    }
                    self.at = end.saturating_sub(1);
                    (min, max)
                }
                None if self.flags.unicode => return Err(Unreadable),
                None => return Ok(None),
            },
            _ => return Ok(None),
        };
        self.at = self.at.saturating_add(1);
        let greedy = !self.eat('?');
        Ok(Some((min, max, greedy)))
    }

    /// `{n}`, `{n,}`, `{n,m}` at the cursor: the bounds and the index after `}`.
    fn braces(&self) -> Option<(u32, u32, usize)> {
        let mut at = self.at.checked_add(1)?;
        let (min, next) = self.number(at)?;
        at = next;
        let max = match self.chars.get(at) {
            Some('}') => min,
            Some(',') => {
                at = at.checked_add(1)?;
                if self.chars.get(at) == Some(&'}') {
                    UNBOUNDED
                } else {
                    let (max, next) = self.number(at)?;
                    at = next;
                    max
                }
            }
            _ => return None,
        };
        if self.chars.get(at) != Some(&'}') {
            return None;
        }
        Some((min, max, at.checked_add(1)?))
    }

    /// Decimal digits at `at` (saturating at [`UNBOUNDED`] − 1): the value and the index after.
    fn number(&self, mut at: usize) -> Option<(u32, usize)> {
        let start = at;
        let mut value: u32 = 0;
        while let Some(digit) = self.chars.get(at).and_then(|c| c.to_digit(10)) {
            value = value.saturating_mul(10).saturating_add(digit).min(UNBOUNDED.saturating_sub(1));
            at = at.checked_add(1)?;
        }
        (at > start).then_some((value, at))
    }

    /// After `\` outside a class.
    fn escape(&mut self) -> Result<(Node, bool), Unreadable> {
        let c = self.peek().ok_or(Unreadable)?;
        match c {
            'b' | 'B' => {
                self.at = self.at.saturating_add(1);
                Ok((Node::WordBoundary(c == 'B'), false))
            }
            '1'..='9' => {
                let start = self.at;
                let (number, end) = self.number(start).ok_or(Unreadable)?;
                if number <= self.groups {
                    self.at = end;
                    return Ok((Node::Backref, true));
                }
                if self.flags.unicode {
                    return Err(Unreadable);
                }
                // Annex B: a legacy octal escape, or `\8` / `\9` meaning the digit.
                Ok((literal(self.legacy_octal_or_identity()), true))
            }
            'k' if self.flags.unicode || self.has_names => {
                self.at = self.at.saturating_add(1);
                if !self.eat('<') {
                    return Err(Unreadable);
                }
                while let Some(c) = self.bump() {
                    if c == '>' {
                        return Ok((Node::Backref, true));
                    }
                }
                Err(Unreadable)
            }
            _ => {
                let item = self.class_escape(false)?;
                Ok((Node::Class { negated: false, items: alloc::vec![item] }, true))
            }
        }
    }

    /// `\0`–`\7…` (octal, up to 0o377) or `\8`/`\9`, at the cursor (after the `\`).
    fn legacy_octal_or_identity(&mut self) -> u32 {
        let mut value = 0u32;
        let mut read = 0u32;
        while read < 3 {
            match self.peek().and_then(|c| c.to_digit(8)) {
                Some(digit) if value.saturating_mul(8).saturating_add(digit) <= 0o377 => {
                    value = value.saturating_mul(8).saturating_add(digit);
                    self.at = self.at.saturating_add(1);
                    read = read.saturating_add(1);
                }
                _ => break,
            }
        }
        if read == 0 {
            // `\8` or `\9`.
            return self.bump().map_or(0, u32::from);
        }
        value
    }

    /// An escape that stands for characters (after `\`, the cursor on the escape's letter), in
    /// or out of a class. `in_class`: `\b` is a backspace and `\-` a hyphen there.
    fn class_escape(&mut self, in_class: bool) -> Result<Item, Unreadable> {
        let c = self.bump().ok_or(Unreadable)?;
        let single = |code: u32| Ok(Item::Range(code, code));
        match c {
            'd' | 'D' => Ok(Item::Digit(c == 'D')),
            'w' | 'W' => Ok(Item::Word(c == 'W')),
            's' | 'S' => Ok(Item::Space(c == 'S')),
            'p' | 'P' if self.flags.unicode => {
                if !self.eat('{') {
                    return Err(Unreadable);
                }
                while let Some(c) = self.bump() {
                    if c == '}' {
                        return Ok(Item::Property(c == 'P'));
                    }
                }
                Err(Unreadable)
            }
            't' => single(0x09),
            'n' => single(0x0A),
            'v' => single(0x0B),
            'f' => single(0x0C),
            'r' => single(0x0D),
            'b' if in_class => single(0x08),
            '-' if in_class => single(u32::from('-')),
            'c' => match self.peek() {
                Some(letter) if letter.is_ascii_alphabetic() => {
                    self.at = self.at.saturating_add(1);
                    single(u32::from(letter) % 32)
                }
                // Annex B: in a class, `\c` followed by a digit or `_` is that control too.
                Some(other) if in_class && !self.flags.unicode && (other.is_ascii_digit() || other == '_') => {
                    self.at = self.at.saturating_add(1);
                    single(u32::from(other) % 32)
                }
                _ if self.flags.unicode => Err(Unreadable),
                // Annex B: `\c` is a backslash, and the `c` is read again as itself.
                _ => {
                    self.at = self.at.saturating_sub(1);
                    single(u32::from('\\'))
                }
            },
            '0' if !self.peek().is_some_and(|d| d.is_ascii_digit()) => single(0),
            '0'..='9' if !self.flags.unicode => {
                self.at = self.at.saturating_sub(1);
                single(self.legacy_octal_or_identity())
            }
            'x' => match self.hex(2) {
                Some(code) => single(code),
                None if self.flags.unicode => Err(Unreadable),
                None => single(u32::from('x')),
            },
            'u' => match self.unicode_escape() {
                Some(code) => single(code),
                None if self.flags.unicode => Err(Unreadable),
                None => single(u32::from('u')),
            },
            other if self.flags.unicode && !is_syntax_character(other) && other != '/' => Err(Unreadable),
            other => single(u32::from(other)),
        }
    }

    /// `count` hex digits at the cursor (consumed only when all are there).
    fn hex(&mut self, count: usize) -> Option<u32> {
        let mut value = 0u32;
        for offset in 0..count {
            let digit = self.peek_at(offset)?.to_digit(16)?;
            value = value.checked_mul(16)?.checked_add(digit)?;
        }
        self.at = self.at.saturating_add(count);
        Some(value)
    }

    /// After `\u`: `XXXX` (a surrogate pair `\uD83D\uDE00` with `u` is one character), or
    /// `{X…}` with `u`.
    fn unicode_escape(&mut self) -> Option<u32> {
        if self.flags.unicode && self.peek() == Some('{') {
            let mut at = self.at.checked_add(1)?;
            let mut value = 0u32;
            let start = at;
            while let Some(digit) = self.chars.get(at).and_then(|c| c.to_digit(16)) {
                value = value.checked_mul(16)?.checked_add(digit)?;
                at = at.checked_add(1)?;
            }
            if at == start || self.chars.get(at) != Some(&'}') || value > 0x10_FFFF {
                return None;
            }
            self.at = at.checked_add(1)?;
            return Some(value);
        }
        let high = self.hex(4)?;
        if self.flags.unicode && (0xD800..0xDC00).contains(&high) && self.peek() == Some('\\') && self.peek_at(1) == Some('u') {
            let saved = self.at;
            self.at = self.at.saturating_add(2);
            match self.hex(4) {
                Some(low) if (0xDC00..0xE000).contains(&low) => {
                    return Some(0x1_0000u32.saturating_add(high.saturating_sub(0xD800) << 10).saturating_add(low.saturating_sub(0xDC00)));
                }
                _ => self.at = saved,
            }
        }
        Some(high)
    }

    /// After `[`: a class.
    fn class(&mut self) -> Result<Node, Unreadable> {
        let negated = self.eat('^');
        let mut items = Vec::new();
        if self.flags.sets {
            // `v` mode: nested classes and set operations are read as "any character".
            let mut depth = 1u32;
            let mut exact = true;
            while depth > 0 {
                match self.peek().ok_or(Unreadable)? {
                    '[' => {
                        self.at = self.at.saturating_add(1);
                        depth = depth.saturating_add(1);
                        exact = false;
                    }
                    ']' => {
                        self.at = self.at.saturating_add(1);
                        depth = depth.saturating_sub(1);
                    }
                    '\\' if self.peek_at(1) == Some('q') => {
                        exact = false;
                        while self.bump().ok_or(Unreadable)? != '}' {}
                    }
                    '&' | '-' if self.peek_at(1) == self.peek() => {
                        exact = false;
                        self.at = self.at.saturating_add(2);
                    }
                    _ if depth > 1 => {
                        if self.bump() == Some('\\') {
                            self.bump();
                        }
                    }
                    _ => {
                        let item = self.class_atom()?;
                        if self.peek() == Some('-') && self.peek_at(1) != Some('-') && self.peek_at(1) != Some(']') {
                            self.at = self.at.saturating_add(1);
                            let end = self.class_atom()?;
                            items.push(range(item, end)?);
                        } else {
                            items.push(item);
                        }
                    }
                }
            }
            if !exact {
                items = alloc::vec![Item::Any];
            }
            return Ok(Node::Class { negated, items });
        }
        loop {
            if self.eat(']') {
                return Ok(Node::Class { negated, items });
            }
            let first = self.class_atom()?;
            if self.peek() == Some('-') && self.peek_at(1).is_some_and(|c| c != ']') {
                self.at = self.at.saturating_add(1);
                let second = self.class_atom()?;
                match range(first, second) {
                    Ok(item) => items.push(item),
                    // Annex B: `[\d-z]` is `\d`, `-` and `z`.
                    Err(_) if !self.flags.unicode => {
                        items.push(first);
                        items.push(Item::Range(u32::from('-'), u32::from('-')));
                        items.push(second);
                    }
                    Err(error) => return Err(error),
                }
            } else {
                items.push(first);
            }
        }
    }

    /// One member of a class: a character or an escape.
    fn class_atom(&mut self) -> Result<Item, Unreadable> {
        match self.bump().ok_or(Unreadable)? {
            '\\' => self.class_escape(true),
            c => Ok(Item::Range(u32::from(c), u32::from(c))),
        }
    }
}

/// `a-b` in a class: both ends single characters, in order.
fn range(from: Item, to: Item) -> Result<Item, Unreadable> {
    match (from, to) {
        (Item::Range(a, a2), Item::Range(b, b2)) if a == a2 && b == b2 && a <= b => Ok(Item::Range(a, b)),
        _ => Err(Unreadable),
    }
}

fn literal(code: u32) -> Node {
    Node::Class { negated: false, items: alloc::vec![Item::Range(code, code)] }
}

/// ECMA-262's SyntaxCharacter: what `\` may escape in `u` mode (with `/`).
fn is_syntax_character(c: char) -> bool {
    matches!(c, '^' | '$' | '\\' | '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|')
}

/// How many capturing groups `chars` opens (`(` not followed by `?`, or `(?<name>`), outside
/// classes and escapes.
fn count_groups(chars: &[char]) -> u32 {
    let mut count = 0u32;
    scan_groups(chars, |named| {
        let _ = named;
        count = count.saturating_add(1);
    });
    count
}

/// Whether a group is named.
fn has_group_names(chars: &[char]) -> bool {
    let mut named = false;
    scan_groups(chars, |is_named| named |= is_named);
    named
}

/// Calls `found(named)` for each capturing group's `(`.
fn scan_groups(chars: &[char], mut found: impl FnMut(bool)) {
    let mut at = 0usize;
    let mut in_class = false;
    while let Some(&c) = chars.get(at) {
        match c {
            '\\' => at = at.saturating_add(1),
            '[' => in_class = true,
            ']' => in_class = false,
            '(' if !in_class => match (chars.get(at.saturating_add(1)), chars.get(at.saturating_add(2))) {
                (Some('?'), Some('<')) => {
                    if !matches!(chars.get(at.saturating_add(3)), Some('=' | '!')) {
                        found(true);
                    }
                }
                (Some('?'), _) => {}
                _ => found(false),
            },
            _ => {}
        }
        at = at.saturating_add(1);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    use super::*;

    fn ok(source: &str, flags: &str) -> Node {
        parse(source, Flags::parse(flags)).unwrap_or_else(|_| panic!("/{source}/{flags} should parse"))
    }

    #[test]
    fn reads_the_common_forms() {
        for (source, flags) in [
            ("^[a-z0-9-]+$", "u"),
            ("^(?=.{1,253}\\.?$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\\.[a-z0-9](?:[-0-9a-z]{0,61}[0-9a-z])?)*$", "u"),
            ("^(?!\\.)(?!.*\\.\\.)([A-Za-z0-9_'+\\-\\.]*)[A-Za-z0-9_+-]@([A-Za-z0-9][A-Za-z0-9\\-]*\\.)+[A-Za-z]{2,}$", "u"),
            ("(?<year>\\d{4})-\\k<year>", "u"),
            ("\\p{L}+\\P{Lu}", "u"),
            ("a{,5}]{x}", ""),
            ("\\8\\07\\cZ[\\c1]\\c", ""),
            ("(?=a)*b", ""),
            ("[\\p{L}--[a-z]]&&x", "v"),
            ("(?i:a)(?-s:.)", ""),
            ("\\u{1F600}\\uD83D\\uDE00", "u"),
            ("[\\d-z]", ""),
        ] {
            ok(source, flags);
        }
    }

    #[test]
    fn refuses_what_it_cannot_read() {
        for (source, flags) in [("(", ""), ("a**", ""), ("\\p", "u"), ("x{2,1}", ""), ("[\\d-z]", "u")] {
            assert!(parse(source, Flags::parse(flags)).is_err(), "/{source}/{flags}");
        }
        let deep = "(".repeat(100) + &")".repeat(100);
        assert!(parse(&deep, Flags::default()).is_err());
    }

    #[test]
    fn back_references_and_octal_escapes() {
        assert_eq!(ok("(a)\\1", ""), Node::Seq(alloc::vec![
            Node::Capture { index: 1, node: Box::new(literal(u32::from('a'))) },
            Node::Backref
        ]));
        // No second group: `\2` is an octal escape without `u`.
        assert_eq!(ok("(a)\\2", ""), Node::Seq(alloc::vec![
            Node::Capture { index: 1, node: Box::new(literal(u32::from('a'))) },
            literal(2)
        ]));
        assert!(parse("(a)\\2", Flags::parse("u")).is_err());
    }
}
