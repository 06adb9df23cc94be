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

use super::read::{Chars, Tree, UNBOUNDED};
use super::Cost;

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

const ZERO_WIDTH: Shape = Shape { first: Chars::NONE, tail: Chars::NONE, nullable: true, min: 0, max: 0 };

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

fn shape(tree: &Tree) -> Shape {
    match tree {
        Tree::Anchor | Tree::Assert | Tree::Look { .. } => ZERO_WIDTH,
        Tree::Set(chars) => Shape { first: *chars, tail: Chars::NONE, nullable: false, min: 1, max: 1 },
        Tree::Backref => Shape { first: Chars::ALL, tail: Chars::ALL, nullable: true, min: 0, max: UNBOUNDED },
        Tree::Seq(trees) => {
            let mut whole = ZERO_WIDTH;
            for tree in trees {
                whole = then(whole, shape(tree));
            }
            whole
        }
        Tree::Alt(trees) => {
            let mut whole: Option<Shape> = None;
            for tree in trees {
                let one = shape(tree);
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
        Tree::Rep { body, min, max } => {
            let body = shape(body);
            let mut tail = body.tail;
            if *max > 1 && body.max > 0 {
                tail = tail.union(body.first);
            }
            let first = if *max == 0 { Chars::NONE } else { body.first };
            Shape { first, tail, nullable: *min == 0 || body.nullable, min: mul_len(body.min, *min), max: mul_len(body.max, *max) }
        }
    }
}

/// The arithmetic of bounds (the type itself is [`Cost`], in the parent module, because the
/// core applies a judgement it does not compute).
impl Cost {
    pub(crate) const ONE: Cost = Cost { deg: 0, coef: 0, base: 1 };
    pub(crate) const ZERO: Cost = Cost { deg: 0, coef: 0, base: 0 };
    /// Once per character of the text.
    pub(crate) const LINEAR: Cost = Cost { deg: 1, coef: 1, base: 0 };

    fn constant(base: u32) -> Cost {
        Cost { deg: 0, coef: 0, base }
    }

    /// The growing term alone, as `(deg, coef)` (`(0, 0)` when there is none).
    fn term(self) -> (u8, u32) {
        if self.coef == 0 {
            (0, 0)
        } else {
            (self.deg, self.coef)
        }
    }

    /// Two growing terms as one, bounded by the higher degree (`c·nᵈ ≤ c·nᵉ` for `d ≤ e`, `n ≥ 1`).
    fn merge(a: (u8, u32), b: (u8, u32)) -> (u8, u32) {
        match (a.1, b.1) {
            (0, _) => b,
            (_, 0) => a,
            _ => (a.0.max(b.0), a.1.saturating_add(b.1)),
        }
    }

    fn plus(self, other: Cost) -> Cost {
        if self.is_exponential() || other.is_exponential() {
            return Cost::EXPONENTIAL;
        }
        let (deg, coef) = Cost::merge(self.term(), other.term());
        Cost { deg, coef, base: self.base.saturating_add(other.base) }
    }

    /// The product: `(a + b·nᵈ)(c + e·nᶠ) = ac + ae·nᶠ + bc·nᵈ + be·nᵈ⁺ᶠ`.
    fn times(self, other: Cost) -> Cost {
        if self.is_exponential() || other.is_exponential() {
            let zero = |cost: Cost| cost.coef == 0 && cost.base == 0;
            return if zero(self) || zero(other) { Cost::ZERO } else { Cost::EXPONENTIAL };
        }
        let (a_deg, a_coef) = self.term();
        let (b_deg, b_coef) = other.term();
        let mut term = Cost::merge((b_deg, self.base.saturating_mul(b_coef)), (a_deg, a_coef.saturating_mul(other.base)));
        if a_coef != 0 && b_coef != 0 {
            match a_deg.checked_add(b_deg) {
                Some(deg) if deg < u8::MAX => term = Cost::merge(term, (deg, a_coef.saturating_mul(b_coef))),
                _ => return Cost::EXPONENTIAL,
            }
        }
        Cost { deg: term.0, coef: term.1, base: self.base.saturating_mul(other.base) }
    }

    fn more_than_one(self) -> bool {
        self.coef > 0 || self.base > 1
    }

    /// `self` multiplied by itself `times` times (saturating).
    fn power(self, times: u32) -> Cost {
        let mut result = Cost::ONE;
        let mut left = times;
        while left > 0 {
            result = result.times(self);
            if result.is_exponential() || (result.coef == 0 && result.base == u32::MAX) {
                break;
            }
            left = left.saturating_sub(1);
        }
        result
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

fn walk(tree: &Tree, follow: Chars) -> Walk {
    match tree {
        Tree::Anchor | Tree::Assert | Tree::Set(_) => Walk { work: Cost::ONE, ambiguity: Cost::ONE, local: true },
        // Compares up to the whole text with what the group captured.
        Tree::Backref => Walk { work: Cost::LINEAR, ambiguity: Cost::ONE, local: false },
        Tree::Look { behind, body } => {
            // A look-ahead's body ends where it first succeeds; a look-behind is matched
            // backwards, which this forward walk does not model, so everything may follow it.
            let after = if *behind { Chars::ALL } else { Chars::NONE };
            let inner = walk(body, after);
            Walk { work: inner.work.plus(Cost::ONE), ambiguity: Cost::ONE, local: false }
        }
        Tree::Seq(trees) => walk_seq(trees, follow),
        Tree::Alt(trees) => {
            let mut work = Cost::ZERO;
            let mut sum = Cost::ZERO;
            let mut widest = Cost::ONE;
            let mut seen = Chars::NONE;
            let mut disjoint = true;
            let mut nullable = 0u32;
            let mut local = true;
            for tree in trees {
                let inner = walk(tree, follow);
                let tree_shape = shape(tree);
                local &= inner.local;
                work = work.plus(inner.work);
                sum = sum.plus(inner.ambiguity);
                if (inner.ambiguity.deg, inner.ambiguity.coef, inner.ambiguity.base) > (widest.deg, widest.coef, widest.base) {
                    widest = inner.ambiguity;
                }
                disjoint &= !seen.meets(tree_shape.first);
                seen = seen.union(tree_shape.first);
                nullable = nullable.saturating_add(u32::from(tree_shape.nullable));
            }
            let ambiguity = if disjoint && nullable <= 1 { widest } else { sum };
            Walk { work, ambiguity, local }
        }
        Tree::Rep { body, min, max } => walk_repeat(body, *min, *max, follow),
    }
}

fn walk_seq(nodes: &[Tree], follow: Chars) -> Walk {
    // Right to left: what may follow each node is known once the nodes after it are.
    let mut rest = follow;
    let mut work = Cost::ZERO;
    let mut walks = alloc::vec::Vec::with_capacity(nodes.len());
    let mut local = true;
    for node in nodes.iter().rev() {
        let node_shape = shape(node);
        let inner = walk(node, rest);
        let survivors = inner.ambiguity.times(ends(node_shape, rest));
        local &= inner.local && !survivors.more_than_one();
        work = inner.work.plus(survivors.times(work));
        walks.push((node_shape, inner.ambiguity));
        let probes = matches!(node, Tree::Look { .. } | Tree::Backref);
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

fn walk_repeat(node: &Tree, min: u32, max: u32, follow: Chars) -> Walk {
    let body = shape(node);
    if max == 0 {
        return Walk { work: Cost::ONE, ambiguity: Cost::ONE, local: true };
    }
    if max == 1 {
        let inner = walk(node, follow);
        let extra = if min == 0 && body.nullable { Cost::ONE } else { Cost::ZERO };
        return Walk { work: inner.work.plus(Cost::ONE), ambiguity: inner.ambiguity.plus(extra), local: inner.local };
    }
    if body.max == 0 {
        // Only zero-width: an iteration that reads nothing ends the repetition.
        let inner = walk(node, follow);
        return Walk { work: inner.work.times(Cost::constant(2)), ambiguity: Cost::ONE, local: inner.local };
    }
    let mut next = body.first;
    next.probe = follow.probe;
    let inner = walk(node, next.union(follow));
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
    let work = if inner.local && inner.work.coef > 0 {
        // Each iteration's constant, once per iteration; its growing term, once over the text.
        iterations.times(Cost::constant(inner.work.base.saturating_add(1))).plus(Cost { base: 0, ..inner.work })
    } else {
        iterations.times(inner.work).plus(Cost::ONE)
    };
    Walk { work, ambiguity: Cost::ONE, local: inner.local }
}

/// The work a test of the whole pattern can take, for a text of `n` characters: the walk from
/// the start, times `n` start positions unless every alternative is anchored at the text's
/// start (`^` without the `m` flag).
#[must_use]
pub fn pattern_cost(root: &Tree) -> Cost {
    let work = walk(root, Chars::NONE).work;
    if anchored(root) {
        work
    } else {
        Cost::LINEAR.times(work)
    }
}

/// Whether every match must start at the text's start.
pub(crate) fn anchored(tree: &Tree) -> bool {
    match tree {
        Tree::Anchor => true,
        Tree::Seq(trees) => trees.first().is_some_and(anchored),
        Tree::Alt(trees) => !trees.is_empty() && trees.iter().all(anchored),
        _ => false,
    }
}
