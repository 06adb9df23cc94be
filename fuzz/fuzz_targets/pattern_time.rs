//! The pattern judgement against a step-counting backtracking matcher: patterns built from the
//! constructs that make backtracking slow (alternation, nested and adjacent repetition,
//! look-aheads, anchors), and hostile texts pumped from the fuzzer's pieces.
//!
//! Never a panic; whenever the judgement lets the page's backtracking engine test a text (the
//! page route, or a split route's short strings), the matcher's steps on it stay within the
//! judgement's bound times a constant; a pattern the judgement calls linear-capable translates,
//! and the linear engine answers what the backtracking matcher answers (ECMAScript's semantics;
//! `regress` is no reference here: it mis-answers some nested bounded repetitions that V8 gets
//! right).
#![no_main]

#[path = "../../tests/support/backtrack.rs"]
mod backtrack;

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use webmcp_warden::pattern::judge::judge;
use webmcp_warden::pattern::linear::Linear;
use webmcp_warden::pattern::syntax::{self, Flags};
use webmcp_warden::pattern::Route;
use webmcp_warden_fuzz::pick;

/// How many more steps the matcher may take than the bound says (`tests/pattern_cost.rs`).
const SLACK: u64 = 16;

const LEAVES: [&str; 8] = ["a", "b", "[ab]", ".", "\\w", "\\s", "a?", "[^a]"];

fn pattern(u: &mut Unstructured<'_>, depth: u32) -> arbitrary::Result<String> {
    if depth == 0 || u.ratio(1, 3)? {
        return Ok((*pick(u, &LEAVES)?).to_owned());
    }
    let a = pattern(u, depth - 1)?;
    Ok(match u.int_in_range(0..=8)? {
        0 => format!("{a}{}", pattern(u, depth - 1)?),
        1 => format!("(?:{a}|{})", pattern(u, depth - 1)?),
        2 => format!("(?:{a})*"),
        3 => format!("(?:{a})+"),
        4 => format!("(?:{a}){{{},{}}}", u.int_in_range(0..=2)?, u.int_in_range(2..=4)?),
        5 => format!("(?=a){a}"),
        6 => format!("({a})\\1"),
        7 => format!("(?:{a})+{}", pattern(u, depth - 1)?),
        _ => format!("(?:(?:{a})*{})*", pattern(u, depth - 1)?),
    })
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(body) = pattern(&mut u, 4) else { return };
    let anchored = u.ratio(1, 2).unwrap_or(false);
    let source = if anchored { format!("^{body}$") } else { body };
    let pump: String = (0..u.int_in_range(1..=3).unwrap_or(1)).map(|_| *pick(&mut u, &['a', 'b', ' ']).unwrap_or(&'a')).collect();
    let suffix = *pick(&mut u, &["", "!", "b", "\n"]).unwrap_or(&"");

    let judgement = judge(&source, "", false);
    let tree = syntax::parse(&source, Flags::default()).expect("the corpus's own syntax parses");
    let longest = match judgement.route {
        Some(Route::Page) => 200,
        Some(Route::Split { short }) => (short as usize).min(200),
        _ => 0,
    };
    if longest >= 4 {
        let cost = judgement.cost.expect("a routed pattern was read");
        let mut text = String::new();
        while text.chars().count() + pump.chars().count() + suffix.len() <= longest {
            text.push_str(&pump);
        }
        text.push_str(suffix);
        let allowed = cost.steps(text.chars().count() as u64).saturating_mul(SLACK).saturating_add(1_000);
        let run = backtrack::run(&tree, Flags::default(), &text, allowed.saturating_add(1).min(1 << 28));
        assert!(run.steps <= allowed, "/{source}/ took {} steps on {text:?}; the bound {cost:?} allows {allowed}", run.steps);
    }
    if judgement.not_linear.is_none() {
        let linear = Linear::new(&source, "").expect("a linear-capable pattern translates");
        let short: String = pump.chars().cycle().take(6).chain(suffix.chars()).collect();
        let reference = backtrack::run(&tree, Flags::default(), &short, 1 << 22);
        if !reference.capped {
            assert_eq!(linear.is_match(&short), reference.matched, "/{source}/ on {short:?}");
        }
    }
});
