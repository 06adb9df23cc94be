//! The judgement of a pattern: read it, bound its backtracking cost, and pick its route (see the
//! parent module's docs). Linked into the patterns wasm module (`wasm/patterns/`),
//! which a page loads only when it has patterns, and natively.

use super::read::{self, Tree};
use super::{cost, Judgement, Route, INPUT_LIMIT, LINEAR_MAX_SIZE, SAFE_STEPS, SHORT_STEPS, UNSAFE_FLOOR};

/// Judges a pattern: how it may run, or why it is refused. `allow_unsafe` is the page's opt-in
/// for patterns neither engine can be trusted with.
#[must_use]
pub fn judge(source: &str, flags: &str, allow_unsafe: bool) -> Judgement {
    let reading = read::read(source, flags);
    let cost = reading.as_ref().map(|reading| cost::pattern_cost(&reading.tree));
    let (not_linear, linear_size) = match &reading {
        None => (Some(0), 0),
        Some(reading) if reading.inexact => (Some(1), 0),
        Some(reading) => match linear_capable(&reading.tree) {
            Ok(size) => (None, size),
            Err(code) => (Some(code), 0),
        },
    };
    let route = match cost {
        Some(cost) if cost.steps(INPUT_LIMIT as u64) <= SAFE_STEPS => Some(Route::Page),
        _ => {
            let short = cost.map_or(0, |cost| longest_within(cost, SHORT_STEPS));
            if not_linear.is_none() {
                Some(Route::Split { short })
            } else if allow_unsafe {
                Some(Route::Unsafe { short: short.max(UNSAFE_FLOOR) })
            } else {
                None
            }
        }
    };
    Judgement { cost, not_linear, linear_size, route }
}

/// The longest length whose bound stays within `steps` (0 for an exponential bound).
fn longest_within(cost: super::Cost, steps: u64) -> u32 {
    if cost.is_exponential() || cost.steps(1) > steps {
        return 0;
    }
    // The bound grows with the length: a binary search over 1..=INPUT_LIMIT.
    let (mut low, mut high) = (1u64, INPUT_LIMIT as u64);
    while low < high {
        let middle = low.saturating_add(high.saturating_sub(low).saturating_add(1) / 2);
        if cost.steps(middle) <= steps {
            low = middle;
        } else {
            high = middle.saturating_sub(1);
        }
    }
    u32::try_from(low).unwrap_or(u32::MAX)
}

/// Whether the linear engine can run a pattern read as `tree`: the size of its program, or why
/// not (a code of the parent module's `NOT_LINEAR` phrases). It runs classes, groups,
/// alternation, repetition, anchors and word boundaries; look-aheads only at the very start of
/// an anchored pattern (`^(?=…)(?!…)…`, each tested on its own); no back-references and no
/// other look-around (and no `\\p{…}` properties or `v`-mode set operations, which
/// [`read::Reading::inexact`] says).
///
/// # Errors
/// The code of what the linear engine lacks.
pub fn linear_capable(tree: &Tree) -> Result<u32, u8> {
    let size = match tree {
        Tree::Seq(trees) if matches!(trees.first(), Some(Tree::Anchor)) => {
            let mut size = 0u32;
            let mut leading = true;
            for tree in trees.get(1..).unwrap_or(&[]) {
                size = size.saturating_add(match tree {
                    Tree::Look { behind: false, body } if leading => linear_size(body)?,
                    other => {
                        leading = false;
                        linear_size(other)?
                    }
                });
            }
            size
        }
        other => linear_size(other)?,
    };
    if size > LINEAR_MAX_SIZE {
        return Err(4);
    }
    Ok(size.max(1))
}

/// The linear engine's program size for a tree, or the code of what it lacks.
fn linear_size(tree: &Tree) -> Result<u32, u8> {
    Ok(match tree {
        Tree::Set(_) | Tree::Anchor | Tree::Assert => 1,
        Tree::Backref => return Err(2),
        Tree::Look { .. } => return Err(3),
        Tree::Seq(trees) | Tree::Alt(trees) => {
            let mut size = 1u32;
            for tree in trees {
                size = size.saturating_add(linear_size(tree)?);
            }
            size
        }
        Tree::Rep { body, min, max } => {
            let copies = if *max == read::UNBOUNDED { (*min).max(1) } else { *max };
            linear_size(body)?.saturating_mul(copies).saturating_add(1)
        }
    })
}
