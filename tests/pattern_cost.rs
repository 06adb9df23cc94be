//! The pattern judgement (`src/pattern/`): every corpus pattern takes the route the fixture
//! says, the cost bound holds against a step-counting backtracking matcher on hostile texts,
//! and the linear engine answers what the page's ECMAScript engine answers.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::arithmetic_side_effects)]

#[path = "support/backtrack.rs"]
mod backtrack;

use proptest::prelude::*;
use serde_json::Value as Json;
use webmcp_warden::pattern::linear::Linear;
use webmcp_warden::pattern::syntax::{self, Flags};
use webmcp_warden::pattern::judge::judge;
use webmcp_warden::pattern::{Route, INPUT_LIMIT, SAFE_STEPS};

/// How many more steps the matcher may take than the bound says (the bound counts in units of
/// its own; a constant factor between the two is expected, a growing one is a bug).
const SLACK: u64 = 16;

struct Case {
    pattern: String,
    flags: String,
    route: String,
    prefix: String,
    pump: String,
    suffix: String,
    note: String,
}

fn corpus() -> Vec<Case> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/patterns.json")).unwrap();
    let json: Json = serde_json::from_str(&text).unwrap();
    json["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|case| {
            let s = |key: &str| case[key].as_str().unwrap().to_owned();
            let attack = &case["attack"];
            let a = |key: &str| attack[key].as_str().unwrap().to_owned();
            Case { pattern: s("pattern"), flags: s("flags"), route: s("route"), prefix: a("prefix"), pump: a("pump"), suffix: a("suffix"), note: s("note") }
        })
        .collect()
}

fn attack(case: &Case, length: usize) -> String {
    let mut text = case.prefix.clone();
    while text.chars().count() + case.pump.chars().count() + case.suffix.chars().count() <= length {
        text.push_str(&case.pump);
    }
    text.push_str(&case.suffix);
    text
}

/// Runs `f` on a thread with a large stack: the matcher recurses once per step it takes.
fn deep<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new().stack_size(512 << 20).spawn(f).unwrap().join().unwrap()
}

#[test]
fn corpus_patterns_take_their_routes() {
    let cases = corpus();
    assert!(cases.iter().filter(|case| case.route == "linear" || case.route == "split").count() >= 30);
    for case in &cases {
        let judgement = judge(&case.pattern, &case.flags, false);
        let label = format!("/{}/{} ({}): {judgement:?}", case.pattern, case.flags, case.note);
        match case.route.as_str() {
            "page" => assert_eq!(judgement.route, Some(Route::Page), "{label}"),
            "split" => assert!(matches!(judgement.route, Some(Route::Split { short }) if short >= 64), "{label}"),
            "linear" => assert!(matches!(judgement.route, Some(Route::Split { .. })), "{label}"),
            "refused" => {
                assert_eq!(judgement.route, None, "{label}");
                assert!(judgement.refusal().is_some(), "{label}");
                let opted = judge(&case.pattern, &case.flags, true);
                assert!(matches!(opted.route, Some(Route::Unsafe { .. })), "{label}: {opted:?}");
            }
            other => panic!("unknown route {other}"),
        }
    }
}

#[test]
fn the_bound_holds_on_hostile_texts() {
    deep(|| {
        for case in corpus() {
            let flags = Flags::parse(&case.flags);
            let Ok(tree) = syntax::parse(&case.pattern, flags) else { panic!("/{}/ does not parse", case.pattern) };
            let judgement = judge(&case.pattern, &case.flags, false);
            let cost = judgement.cost.unwrap();
            // Long texts in optimized builds only: the matcher recurses once per step.
            let page_longest = if cfg!(debug_assertions) { 1024 } else { 4096 };
            let longest = match judgement.route {
                Some(Route::Page) => page_longest,
                Some(Route::Split { short }) => short as usize,
                _ => continue,
            };
            for length in [16usize, 64, 256, 1024, 4096] {
                if length > longest {
                    break;
                }
                let text = attack(&case, length);
                let allowed = cost.steps(text.chars().count() as u64).saturating_mul(SLACK).saturating_add(1_000);
                let run = backtrack::run(&tree, flags, &text, allowed.saturating_add(1).min(1 << 32));
                assert!(
                    run.steps <= allowed,
                    "/{}/{} ({}) took {} steps on {} characters; the bound {cost:?} allows {allowed}",
                    case.pattern,
                    case.flags,
                    case.note,
                    run.steps,
                    text.chars().count()
                );
            }
        }
    });
}

#[test]
fn the_slowness_phrase_names_the_growth() {
    let phrase = |source: &str| judge(source, "", false).slowness().unwrap_or_default();
    assert!(phrase("^(a+)+$").contains("exponential time"), "{}", phrase("^(a+)+$"));
    assert!(phrase("\\d+$").contains("quadratic time"), "{}", phrase("\\d+$"));
    // Degree one, slow only by its factor: never called "constant".
    let factor = phrase("^(.*a){12}$");
    assert!(factor.contains("linear but with a large factor"), "{factor}");
    assert_eq!(judge("^[a-z]+$", "", false).slowness(), None);
}

#[test]
fn the_page_route_is_fast_at_the_cap() {
    for case in corpus().iter().filter(|case| case.route == "page") {
        let cost = judge(&case.pattern, &case.flags, false).cost.unwrap();
        assert!(cost.steps(INPUT_LIMIT as u64) <= SAFE_STEPS, "/{}/: {cost:?}", case.pattern);
    }
}

#[test]
fn the_linear_engine_agrees_with_the_page_engine_on_the_corpus() {
    for case in corpus().iter().filter(|case| case.route != "refused") {
        let linear = Linear::new(&case.pattern, &case.flags).unwrap_or_else(|error| panic!("/{}/: {error}", case.pattern));
        let page = regress::Regex::with_flags(&case.pattern, case.flags.as_str()).unwrap();
        for length in [0usize, 1, 3, 8, 20] {
            let text = attack(case, length);
            assert_eq!(linear.is_match(&text), page.find(&text).is_some(), "/{}/ on {text:?}", case.pattern);
        }
        let long = attack(case, 20_000);
        let _ = linear.is_match(&long);
    }
}

/// Small patterns over a two-letter alphabet, built from the constructs that make backtracking
/// slow.
fn pattern_strategy() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![Just("a".to_owned()), Just("b".to_owned()), Just("[ab]".to_owned()), Just(".".to_owned()), Just("\\w".to_owned())];
    leaf.prop_recursive(5, 40, 4, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a}{b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("(?:{a}|{b})")),
            inner.clone().prop_map(|a| format!("(?:{a})*")),
            inner.clone().prop_map(|a| format!("(?:{a})+")),
            inner.clone().prop_map(|a| format!("(?:{a})?")),
            inner.clone().prop_map(|a| format!("(?:{a}){{1,3}}")),
            inner.clone().prop_map(|a| format!("(?:{a}){{2,}}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("(?:{a})+(?:{b})+")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("(?:(?:{a})*{b})*")),
            inner.prop_map(|a| format!("(?=a){a}")),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// Whatever the pattern, a route that puts a text on the backtracking engine keeps the
    /// matcher within the bound on pumped hostile texts.
    #[test]
    fn the_bound_holds_for_generated_patterns(
        body in pattern_strategy(),
        anchored in any::<bool>(),
        pump in "[ab]{1,3}",
        suffix in "[ab!]?",
    ) {
        let source = if anchored { format!("^{body}$") } else { body };
        let judgement = judge(&source, "", false);
        let longest = match judgement.route {
            Some(Route::Page) => 300,
            Some(Route::Split { short }) => (short as usize).min(300),
            _ => 0,
        };
        if longest >= 8 {
            let cost = judgement.cost.unwrap();
            let case = Case { pattern: source.clone(), flags: String::new(), route: String::new(), prefix: String::new(), pump, suffix, note: String::new() };
            for length in [longest / 4, longest] {
                let text = attack(&case, length);
                let tree = syntax::parse(&source, Flags::default()).unwrap();
                let allowed = cost.steps(text.chars().count() as u64).saturating_mul(SLACK).saturating_add(1_000);
                let run = deep(move || backtrack::run(&tree, Flags::default(), &text, allowed.saturating_add(1).min(1 << 30)));
                prop_assert!(run.steps <= allowed, "/{}/ took {} steps on {} characters; the bound {:?} allows {}", source, run.steps, length, cost, allowed);
            }
        }
    }

    /// The linear engine answers what the backtracking matcher answers (ECMAScript's semantics;
    /// `regress` mis-answers some nested bounded repetitions, so it is not the reference here).
    #[test]
    fn the_linear_engine_agrees_on_generated_patterns(body in pattern_strategy(), text in "[ab!\\n]{0,12}", flags in prop_oneof![Just(""), Just("s")]) {
        let source = format!("^{body}");
        if let Ok(linear) = Linear::new(&source, flags) {
            let parsed = Flags::parse(flags);
            let tree = syntax::parse(&source, parsed).unwrap();
            let reference = backtrack::run(&tree, parsed, &text, 1 << 22);
            if !reference.capped {
                prop_assert_eq!(linear.is_match(&text), reference.matched, "/{}/{} on {:?}", source, flags, text);
            }
        }
    }
}

#[test]
#[ignore = "prints the corpus's judgements"]
fn print_corpus() {
    for case in corpus() {
        let j = judge(&case.pattern, &case.flags, false);
        println!("{:<10} {:?} short={:?} size={} {}", case.route, j.cost, j.route, j.linear_size, case.pattern);
    }
}
