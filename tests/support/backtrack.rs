//! A step-counting backtracking matcher over the core's pattern tree: the judge of the cost
//! bound (`src/pattern/cost.rs`). It explores alternatives the way ECMAScript's backtracking
//! engines do (greedy repetition first, an empty iteration ends a repetition, a look-ahead stops
//! at its first success, every start position of an unanchored pattern in turn) and counts a
//! step per node it enters, so a pattern's measured steps on a hostile text can be held against
//! the bound the core computed. Shared by `tests/pattern_cost.rs` and the `pattern_time` fuzz
//! target (included by path).
#![allow(dead_code, clippy::unwrap_used, clippy::indexing_slicing, clippy::arithmetic_side_effects)]

use webmcp_warden::pattern::syntax::{Flags, Item, Node, UNBOUNDED};

/// Steps taken, and whether the matcher gave up at the cap.
pub struct Run {
    pub steps: u64,
    pub capped: bool,
    pub matched: bool,
}

struct Matcher<'a> {
    text: &'a [char],
    steps: u64,
    cap: u64,
}

/// Runs `test` of `root` (flags `flags`) on `text`, counting steps up to `cap`.
pub fn run(root: &Node, flags: Flags, text: &str, cap: u64) -> Run {
    let chars: Vec<char> = text.chars().collect();
    let mut matcher = Matcher { text: &chars, steps: 0, cap };
    let mut matched = false;
    // An engine tries an anchored pattern at the start only.
    let starts = if anchored(root, flags) { 0 } else { chars.len() };
    for start in 0..=starts {
        if matcher.steps >= cap {
            break;
        }
        if matcher.node(root, flags, start, &mut |_, _| true) {
            matched = true;
            break;
        }
    }
    Run { steps: matcher.steps, capped: matcher.steps >= cap, matched }
}

fn anchored(node: &Node, flags: Flags) -> bool {
    !flags.multiline
        && match node {
            Node::Start => true,
            Node::Seq(nodes) => nodes.first().is_some_and(|first| anchored(first, flags)),
            Node::Alt(nodes) => !nodes.is_empty() && nodes.iter().all(|node| anchored(node, flags)),
            Node::Capture { node, .. } => anchored(node, flags),
            _ => false,
        }
}

type Cont<'c> = dyn FnMut(&mut Matcher<'_>, usize) -> bool + 'c;

impl Matcher<'_> {
    fn tick(&mut self) -> bool {
        self.steps += 1;
        self.steps < self.cap
    }

    fn node(&mut self, node: &Node, flags: Flags, at: usize, k: &mut Cont<'_>) -> bool {
        if !self.tick() {
            return false;
        }
        match node {
            Node::Empty => k(self, at),
            Node::Start => (at == 0 || (flags.multiline && is_line_end(self.text[at - 1]))) && k(self, at),
            Node::End => (at == self.text.len() || (flags.multiline && is_line_end(self.text[at]))) && k(self, at),
            Node::WordBoundary(negated) => {
                let before = at > 0 && is_word(self.text[at - 1]);
                let after = at < self.text.len() && is_word(self.text[at]);
                ((before != after) != *negated) && k(self, at)
            }
            Node::Class { negated, items } => {
                match self.text.get(at) {
                    Some(&c) if class_has(*negated, items, flags, c) => k(self, at + 1),
                    _ => false,
                }
            }
            Node::Backref => k(self, at),
            Node::Capture { node, .. } => self.node(node, flags, at, k),
            Node::Modified { ignore_case, dot_all, multiline, node } => {
                let inner = Flags {
                    ignore_case: ignore_case.unwrap_or(flags.ignore_case),
                    dot_all: dot_all.unwrap_or(flags.dot_all),
                    multiline: multiline.unwrap_or(flags.multiline),
                    ..flags
                };
                self.node(node, inner, at, k)
            }
            Node::Look { behind, negative, node } => {
                let found = if *behind {
                    // Tried from every earlier start: a look-behind reads backwards, and this
                    // over-counts rather than under-counts its work.
                    (0..=at).rev().any(|from| self.node(node, flags, from, &mut |_, end| end == at))
                } else {
                    self.node(node, flags, at, &mut |_, _| true)
                };
                found != *negative && k(self, at)
            }
            Node::Alt(nodes) => {
                for node in nodes {
                    if self.node(node, flags, at, k) {
                        return true;
                    }
                    if self.steps >= self.cap {
                        return false;
                    }
                }
                false
            }
            Node::Seq(nodes) => self.seq(nodes, flags, at, k),
            Node::Repeat { node, min, max, greedy } => self.repeat(node, *min, *max, *greedy, flags, 0, at, k),
        }
    }

    fn seq(&mut self, nodes: &[Node], flags: Flags, at: usize, k: &mut Cont<'_>) -> bool {
        match nodes.split_first() {
            None => k(self, at),
            Some((first, rest)) => self.node(first, flags, at, &mut |m: &mut Matcher<'_>, next| m.seq(rest, flags, next, k)),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn repeat(&mut self, node: &Node, min: u32, max: u32, greedy: bool, flags: Flags, count: u32, at: usize, k: &mut Cont<'_>) -> bool {
        if !self.tick() {
            return false;
        }
        let more = count < max || max == UNBOUNDED;
        if !greedy && count >= min && k(self, at) {
            return true;
        }
        if more {
            let mut again = |m: &mut Matcher<'_>, next: usize| {
                // An iteration that read nothing ends the repetition (ECMAScript's empty check).
                if next == at && count >= min {
                    return false;
                }
                m.repeat(node, min, max, greedy, flags, count.saturating_add(1), next, &mut *k)
            };
            if self.node(node, flags, at, &mut again) {
                return true;
            }
        }
        greedy && count >= min && self.steps < self.cap && k(self, at)
    }
}

fn is_line_end(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn is_space(c: char) -> bool {
    matches!(c, '\t'..='\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{feff}')
}

fn item_has(item: Item, flags: Flags, c: char) -> bool {
    match item {
        Item::Range(from, to) => {
            let code = u32::from(c);
            (from..=to).contains(&code)
                || (flags.ignore_case && {
                    let lower = u32::from(c.to_ascii_lowercase());
                    let upper = u32::from(c.to_ascii_uppercase());
                    (from..=to).contains(&lower) || (from..=to).contains(&upper)
                })
        }
        Item::Digit(negated) => c.is_ascii_digit() != negated,
        Item::Word(negated) => is_word(c) != negated,
        Item::Space(negated) => is_space(c) != negated,
        Item::Dot => flags.dot_all || !is_line_end(c),
        Item::Property(negated) => c.is_alphabetic() != negated,
        Item::Any => true,
    }
}

fn class_has(negated: bool, items: &[Item], flags: Flags, c: char) -> bool {
    items.iter().any(|&item| item_has(item, flags, c)) != negated
}
