//! How much work the page's backtracking `RegExp` can be made to do by a pattern, as a function
//! of the length of the text an agent sends.
//!
//! A backtracking engine tries the ways a pattern can match one after another, and an agent
//! chooses the text. The work explodes where the same text can be matched in many ways: a
//! repetition whose iterations can split a text in several places (`(a+)+`, `(a|a)*`:
//! exponential), or a repetition that can hand characters to what follows it (`.*a.*b`:
//! polynomial, one degree per such hand-over), or an unanchored pattern retried at every
//! position. This module bounds that work from the pattern's structure, conservatively:
//!
//! - each node gets the characters it can start with (`first`), the characters it can read
//!   after its first (`tail`), whether it can match nothing, and its length range;
//! - walking the tree with what may follow each node, a node's *survivors* are the ways it can
//!   end that what follows could continue from: one, when no character the node could still
//!   read can start what follows (the agent cannot make both a longer and a shorter match of the
//!   node go on), else as many as its lengths;
//! - the work of a sequence is its first node's work plus its survivors times the rest's work;
//!   a repetition whose iterations cannot be told apart, unbounded, is exponential.
//!
//! Characters are tracked exactly for ASCII and as one class for everything else, and anything
//! the analysis cannot read precisely counts as "any character", so an answer can be too
//! careful (a safe pattern sent to the linear engine) but not too trusting. The bound is checked
//! against a step-counting backtracking matcher in the tests (`tests/pattern_cost.rs`).

use super::syntax::{Flags, Item, Node, UNBOUNDED};

/// A set of characters: ASCII exactly, every other character as one member.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Chars {
    ascii: u128,
    other: bool,
    /// What follows may run a look-around or a back-reference before it reads a character, so a
    /// character it cannot start with does not stop it early.
    probe: bool,
}

impl Chars {
    const ALL: Chars = Chars { ascii: u128::MAX, other: true, probe: false };

    fn range(from: u32, to: u32) -> Chars {
        let mut ascii = 0u128;
        if from < 128 {
            let top = to.min(127);
            let mut code = from;
            while code <= top {
                ascii |= 1u128 << code;
                code = code.saturating_add(1);
            }
        }
        Chars { ascii, other: to >= 128, probe: false }
    }

    fn union(self, other: Chars) -> Chars {
        Chars { ascii: self.ascii | other.ascii, other: self.other || other.other, probe: self.probe || other.probe }
    }

    fn meets(self, other: Chars) -> bool {
        self.ascii & other.ascii != 0 || (self.other && other.other)
    }

    fn complement(self) -> Chars {
        Chars { ascii: !self.ascii, other: true, probe: false }
    }

    fn is_empty(self) -> bool {
        self.ascii == 0 && !self.other
    }

    /// With the `i` flag: both cases of every ASCII letter, and the non-ASCII characters that
    /// fold onto ASCII ones (U+017F, U+212A) both ways.
    fn fold_case(mut self) -> Chars {
        const UPPER: u128 = ((1u128 << 26) - 1) << 65;
        const LOWER: u128 = ((1u128 << 26) - 1) << 97;
        let letters = (self.ascii & UPPER) << 32 | (self.ascii & LOWER) >> 32;
        self.ascii |= letters;
        if self.ascii & (UPPER | LOWER) != 0 {
            self.other = true;
        }
        if self.other {
            self = self.union(Chars::range(u32::from('K'), u32::from('K')));
            self = self.union(Chars::range(u32::from('S'), u32::from('S')));
            self = self.union(Chars::range(u32::from('k'), u32::from('k')));
            self = self.union(Chars::range(u32::from('s'), u32::from('s')));
        }
        self
    }
}

/// `\d`.
const DIGITS: Chars = Chars { ascii: ((1u128 << 10) - 1) << 48, other: false, probe: false };
/// `\w` in ASCII.
const WORD: Chars = Chars {
    ascii: DIGITS.ascii | ((1u128 << 26) - 1) << 65 | ((1u128 << 26) - 1) << 97 | 1u128 << 95,
    other: false,
    probe: false,
};
/// `\s`: TAB to CR, space, and (as the one non-ASCII member) the rest.
const SPACE: Chars = Chars { ascii: ((1u128 << 5) - 1) << 9 | 1u128 << 32, other: true, probe: false };
/// Line terminators `.` does not match without `s` (the non-ASCII ones are in `other`).
const LINE_BREAKS: u128 = 1u128 << 10 | 1u128 << 13;

/// The characters one class item matches.
fn item_chars(item: Item, flags: Flags) -> Chars {
    match item {
        Item::Range(from, to) => Chars::range(from, to),
        Item::Digit(negated) => negate(DIGITS, negated),
        Item::Word(negated) => {
            // With `i` and `u`, `\w` also holds U+017F and U+212A.
            let word = Chars { other: flags.ignore_case && flags.unicode, ..WORD };
            negate(word, negated)
        }
        Item::Space(negated) => negate(SPACE, negated),
        Item::Dot if !flags.dot_all => Chars { ascii: !LINE_BREAKS, other: true, probe: false },
        Item::Property(_) | Item::Dot | Item::Any => Chars::ALL,
    }
}

fn negate(chars: Chars, negated: bool) -> Chars {
    if negated {
        // Not every non-ASCII character is in `\s`, so `\S` still holds some.
        chars.complement()
    } else {
        chars
    }
}

/// The characters a class matches.
fn class_chars(negated: bool, items: &[Item], flags: Flags) -> Chars {
    let mut chars = Chars::default();
    for &item in items {
        chars = chars.union(item_chars(item, flags));
    }
    if flags.ignore_case {
        chars = chars.fold_case();
    }
    if negated {
        chars = chars.complement();
        if flags.ignore_case {
            chars = chars.fold_case();
        }
    }
    chars
}

/// What a node can match, as far as the work bound needs.
#[derive(Debug, Clone, Copy)]
struct Shape {
    /// Characters a non-empty match can start with.
    first: Chars,
    /// Characters a match can read after its first.
    tail: Chars,
    /// It can match the empty string.
    nullable: bool,
    /// Its shortest match, in characters.
    min: u32,
    /// Its longest ([`UNBOUNDED`]: no bound).
    max: u32,
}

const ZERO_WIDTH: Shape = Shape { first: Chars { ascii: 0, other: false, probe: false }, tail: Chars { ascii: 0, other: false, probe: false }, nullable: true, min: 0, max: 0 };

fn add_len(a: u32, b: u32) -> u32 {
    if a == UNBOUNDED || b == UNBOUNDED {
        UNBOUNDED
    } else {
        a.saturating_add(b).min(UNBOUNDED.saturating_sub(1))
    }
}

fn mul_len(a: u32, b: u32) -> u32 {
    if a == 0 || b == 0 {
        0
    } else if a == UNBOUNDED || b == UNBOUNDED {
        UNBOUNDED
    } else {
        a.saturating_mul(b).min(UNBOUNDED.saturating_sub(1))
    }
}

/// `a` then `b`.
fn then(a: Shape, b: Shape) -> Shape {
    let mut first = a.first;
    if a.nullable {
        first = first.union(b.first);
    }
    let mut tail = a.tail.union(b.tail);
    if a.max > 0 {
        tail = tail.union(b.first);
    }
    Shape { first, tail, nullable: a.nullable && b.nullable, min: add_len(a.min, b.min), max: add_len(a.max, b.max) }
}

fn shape(node: &Node, flags: Flags) -> Shape {
    match node {
        Node::Empty | Node::Start | Node::End | Node::WordBoundary(_) | Node::Look { .. } => ZERO_WIDTH,
        Node::Class { negated, items } => {
            let chars = class_chars(*negated, items, flags);
            Shape { first: chars, tail: Chars::default(), nullable: false, min: 1, max: 1 }
        }
        Node::Backref => Shape { first: Chars::ALL, tail: Chars::ALL, nullable: true, min: 0, max: UNBOUNDED },
        Node::Seq(nodes) => {
            let mut whole = ZERO_WIDTH;
            for node in nodes {
                whole = then(whole, shape(node, flags));
            }
            whole
        }
        Node::Alt(nodes) => {
            let mut whole: Option<Shape> = None;
            for node in nodes {
                let one = shape(node, flags);
                whole = Some(match whole {
                    None => one,
                    Some(so_far) => Shape {
                        first: so_far.first.union(one.first),
                        tail: so_far.tail.union(one.tail),
                        nullable: so_far.nullable || one.nullable,
                        min: so_far.min.min(one.min),
                        max: so_far.max.max(one.max),
                    },
                });
            }
            whole.unwrap_or(ZERO_WIDTH)
        }
        Node::Repeat { node, min, max, .. } => {
            let body = shape(node, flags);
            let mut tail = body.tail;
            if *max > 1 && body.max > 0 {
                tail = tail.union(body.first);
            }
            let first = if *max == 0 { Chars::default() } else { body.first };
            Shape { first, tail, nullable: *min == 0 || body.nullable, min: mul_len(body.min, *min), max: mul_len(body.max, *max) }
        }
        Node::Capture { node, .. } => shape(node, flags),
        Node::Modified { ignore_case, dot_all, multiline, node } => shape(node, modified(flags, *ignore_case, *dot_all, *multiline)),
    }
}

fn modified(flags: Flags, ignore_case: Option<bool>, dot_all: Option<bool>, multiline: Option<bool>) -> Flags {
    Flags {
        ignore_case: ignore_case.unwrap_or(flags.ignore_case),
        dot_all: dot_all.unwrap_or(flags.dot_all),
        multiline: multiline.unwrap_or(flags.multiline),
        ..flags
    }
}

/// A bound on work: `coef × nᵈᵉᵍ` steps for a text of `n` characters, or exponential.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cost {
    /// The degree of the polynomial; [`Cost::EXPONENTIAL`]'s is `u8::MAX`.
    pub deg: u8,
    /// Its leading coefficient (saturating).
    pub coef: u32,
}

impl Cost {
    /// Exponential in the text's length.
    pub const EXPONENTIAL: Cost = Cost { deg: u8::MAX, coef: u32::MAX };
    const ONE: Cost = Cost { deg: 0, coef: 1 };
    const ZERO: Cost = Cost { deg: 0, coef: 0 };
    /// Once per character of the text.
    const LINEAR: Cost = Cost { deg: 1, coef: 1 };

    fn constant(coef: u32) -> Cost {
        Cost { deg: 0, coef }
    }

    /// Whether it is exponential.
    #[must_use]
    pub fn is_exponential(self) -> bool {
        self.deg == u8::MAX
    }

    fn plus(self, other: Cost) -> Cost {
        if self.deg == other.deg {
            Cost { deg: self.deg, coef: self.coef.saturating_add(other.coef) }
        } else if self.deg > other.deg {
            self
        } else {
            other
        }
    }

    fn times(self, other: Cost) -> Cost {
        if self.coef == 0 || other.coef == 0 {
            return Cost::ZERO;
        }
        if self.is_exponential() || other.is_exponential() {
            return Cost::EXPONENTIAL;
        }
        match self.deg.checked_add(other.deg) {
            Some(deg) if deg < u8::MAX => Cost { deg, coef: self.coef.saturating_mul(other.coef) },
            _ => Cost::EXPONENTIAL,
        }
    }

    fn more_than_one(self) -> bool {
        self.deg > 0 || self.coef > 1
    }

    /// `self` multiplied by itself `times` times (saturating; a polynomial of degree > 0 raised
    /// to a large power is as good as exponential).
    fn power(self, times: u32) -> Cost {
        let mut result = Cost::ONE;
        let mut left = times;
        while left > 0 {
            result = result.times(self);
            if result.is_exponential() || (result.deg == 0 && result.coef == u32::MAX) {
                break;
            }
            left = left.saturating_sub(1);
        }
        result
    }

    /// The steps for a text of `length` characters (saturating at `u64::MAX`).
    #[must_use]
    pub fn steps(self, length: u64) -> u64 {
        if self.is_exponential() {
            return if length <= 1 { u64::from(self.coef) } else { u64::MAX };
        }
        let mut steps = u64::from(self.coef);
        let mut left = self.deg;
        while left > 0 {
            steps = steps.saturating_mul(length.max(1));
            left = left.saturating_sub(1);
        }
        steps
    }
}

/// The cost of a node in context: the work it does, and how many ways it can match the same text.
struct Walk {
    work: Cost,
    ambiguity: Cost,
    /// The work stays within the text the node finally matches (and the character after it):
    /// no look-around or back-reference, and no part of it that ends in several places. The
    /// iterations of a repetition of such a node then share the text between them, so their
    /// work adds up to one pass rather than one pass each.
    local: bool,
}

/// How many distinct ends of `node` (shape `node_shape`) can go on into `follow`.
fn ends(node_shape: Shape, follow: Chars) -> Cost {
    let stopped = !follow.probe
        && !node_shape.tail.meets(follow)
        && (!node_shape.nullable || !node_shape.first.meets(follow));
    if stopped || node_shape.min == node_shape.max {
        Cost::ONE
    } else if node_shape.max == UNBOUNDED {
        Cost::LINEAR
    } else {
        Cost::constant(node_shape.max.saturating_sub(node_shape.min).saturating_add(1))
    }
}

/// In how many places a text matched by `a` then `b` can be split between them.
fn splits(a: Shape, b: Shape) -> Cost {
    let unique = a.min == a.max
        || b.min == b.max
        || (!a.tail.meets(b.first) && (!a.nullable || !a.first.meets(b.first)));
    if unique {
        Cost::ONE
    } else if a.max == UNBOUNDED && b.max == UNBOUNDED {
        Cost::LINEAR
    } else {
        let range = |s: Shape| if s.max == UNBOUNDED { u32::MAX } else { s.max.saturating_sub(s.min) };
        Cost::constant(range(a).min(range(b)).saturating_add(1))
    }
}

fn walk(node: &Node, follow: Chars, flags: Flags) -> Walk {
    let simple = Walk { work: Cost::ONE, ambiguity: Cost::ONE, local: true };
    match node {
        Node::Empty | Node::Start | Node::End | Node::WordBoundary(_) | Node::Class { .. } => simple,
        // Compares up to the whole text with what the group captured.
        Node::Backref => Walk { work: Cost::LINEAR, ambiguity: Cost::ONE, local: false },
        Node::Look { behind, node, .. } => {
            // A look-ahead's body ends where it first succeeds; a look-behind is matched
            // backwards, which this forward walk does not model, so everything may follow it.
            let after = if *behind { Chars::ALL } else { Chars::default() };
            let inner = walk(node, after, flags);
            Walk { work: inner.work.plus(Cost::ONE), ambiguity: Cost::ONE, local: false }
        }
        Node::Capture { node, .. } => walk(node, follow, flags),
        Node::Modified { ignore_case, dot_all, multiline, node } => {
            walk(node, follow, modified(flags, *ignore_case, *dot_all, *multiline))
        }
        Node::Seq(nodes) => walk_seq(nodes, follow, flags),
        Node::Alt(nodes) => {
            let mut work = Cost::ZERO;
            let mut sum = Cost::ZERO;
            let mut widest = Cost::ONE;
            let mut seen = Chars::default();
            let mut disjoint = true;
            let mut nullable = 0u32;
            let mut local = true;
            for node in nodes {
                let inner = walk(node, follow, flags);
                local &= inner.local;
                let node_shape = shape(node, flags);
                work = work.plus(inner.work);
                sum = sum.plus(inner.ambiguity);
                if inner.ambiguity.deg > widest.deg || (inner.ambiguity.deg == widest.deg && inner.ambiguity.coef > widest.coef) {
                    widest = inner.ambiguity;
                }
                disjoint &= !seen.meets(node_shape.first);
                seen = seen.union(node_shape.first);
                if node_shape.nullable {
                    nullable = nullable.saturating_add(1);
                }
            }
            let ambiguity = if disjoint && nullable <= 1 { widest } else { sum };
            Walk { work, ambiguity, local }
        }
        Node::Repeat { node, min, max, .. } => walk_repeat(node, *min, *max, follow, flags),
    }
}

fn walk_seq(nodes: &[Node], follow: Chars, flags: Flags) -> Walk {
    // Right to left: what may follow each node is known once the nodes after it are.
    let mut rest = follow;
    let mut work = Cost::ZERO;
    let mut walks = alloc::vec::Vec::with_capacity(nodes.len());
    let mut local = true;
    for node in nodes.iter().rev() {
        let node_shape = shape(node, flags);
        let inner = walk(node, rest, flags);
        let survivors = inner.ambiguity.times(ends(node_shape, rest));
        local &= inner.local && !survivors.more_than_one();
        work = inner.work.plus(survivors.times(work));
        walks.push((node_shape, inner.ambiguity));
        let probes = matches!(node, Node::Look { .. } | Node::Backref);
        let mut before = node_shape.first;
        before.probe = probes;
        rest = if node_shape.nullable { before.union(rest) } else { before };
        if probes {
            rest.probe = true;
        }
    }
    // Left to right: the ways the same text can be matched, split by split.
    let mut ambiguity = Cost::ONE;
    let mut prefix: Option<Shape> = None;
    for (node_shape, node_ambiguity) in walks.into_iter().rev() {
        ambiguity = ambiguity.times(node_ambiguity);
        prefix = Some(match prefix {
            None => node_shape,
            Some(so_far) => {
                ambiguity = ambiguity.times(splits(so_far, node_shape));
                then(so_far, node_shape)
            }
        });
    }
    Walk { work, ambiguity, local }
}

fn walk_repeat(node: &Node, min: u32, max: u32, follow: Chars, flags: Flags) -> Walk {
    let body = shape(node, flags);
    if max == 0 {
        return Walk { work: Cost::ONE, ambiguity: Cost::ONE, local: true };
    }
    if max == 1 {
        let inner = walk(node, follow, flags);
        let extra = if min == 0 && body.nullable { Cost::ONE } else { Cost::ZERO };
        return Walk { work: inner.work.plus(Cost::ONE), ambiguity: inner.ambiguity.plus(extra), local: inner.local };
    }
    if body.max == 0 {
        // Only zero-width: an iteration that reads nothing ends the repetition.
        let inner = walk(node, follow, flags);
        return Walk { work: inner.work.times(Cost::constant(2)), ambiguity: Cost::ONE, local: inner.local };
    }
    let mut next = body.first;
    next.probe = follow.probe;
    let inner = walk(node, next.union(follow), flags);
    let iterations = if max == UNBOUNDED { Cost::LINEAR } else { Cost::constant(max) };
    // Where one iteration ends and the next begins is not fixed by the text.
    let blurred = body.nullable || (body.min != body.max && body.tail.meets(body.first));
    if inner.ambiguity.more_than_one() || blurred {
        if max == UNBOUNDED {
            return Walk { work: Cost::EXPONENTIAL, ambiguity: Cost::EXPONENTIAL, local: false };
        }
        let per_iteration = if blurred {
            let range = if body.max == UNBOUNDED { u32::MAX } else { body.max.saturating_sub(body.min).saturating_add(1) };
            inner.ambiguity.times(Cost::constant(range.max(2)))
        } else {
            inner.ambiguity
        };
        let ambiguity = per_iteration.power(max);
        return Walk { work: ambiguity.times(inner.work).times(iterations), ambiguity, local: false };
    }
    let _ = min;
    // Iterations split the text: local work adds up to the work of one pass over it.
    let work = if inner.local && inner.work.deg > 0 { inner.work.plus(iterations) } else { iterations.times(inner.work).plus(Cost::ONE) };
    Walk { work, ambiguity: Cost::ONE, local: inner.local }
}

/// The work a test of the whole pattern can take, for a text of `n` characters: the walk from
/// the start, times `n` start positions unless every alternative is anchored at the text's
/// start (`^` without the `m` flag).
#[must_use]
pub fn pattern_cost(root: &Node, flags: Flags) -> Cost {
    let end = Chars::default();
    let work = walk(root, end, flags).work;
    if anchored(root, flags) {
        work
    } else {
        Cost::LINEAR.times(work)
    }
}

/// Whether every match must start at the text's start.
fn anchored(node: &Node, flags: Flags) -> bool {
    if flags.multiline {
        return false;
    }
    match node {
        Node::Start => true,
        Node::Seq(nodes) => nodes.first().is_some_and(|first| anchored(first, flags)),
        Node::Alt(nodes) => !nodes.is_empty() && nodes.iter().all(|node| anchored(node, flags)),
        Node::Capture { node, .. } => anchored(node, flags),
        Node::Modified { multiline, node, .. } => anchored(node, modified(flags, None, None, *multiline)),
        _ => false,
    }
}

/// Whether `chars` is empty (for tests of the character model).
#[cfg(test)]
pub(crate) fn class_is_empty(negated: bool, items: &[Item], flags: Flags) -> bool {
    class_chars(negated, items, flags).is_empty()
}
