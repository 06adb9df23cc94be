//! Limits: arbitrary `limits` (mostly limit-shaped: every bound, window, `per`, cost numbers and
//! functions, ids, matchers; sometimes any value) through `Limits::compile`, and a compiled list
//! driven through a book by arbitrary calls: checks (counted or dry, any principal, tool, time
//! (clocks that go back, NaN), cost answers), releases of what calls held, prunes, and the
//! same or other limits aligned in between.
//!
//! Never a panic. Two books go through the same operations: one as a page drives it, reusing
//! the places its last check found; one whose places are found afresh before every check
//! (`align` to the same limits keeps counts). They answer the same every time. A passed limit
//! is one of the call's matched limits; a cost asked for is one of the limits' functions.
#![no_main]

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use webmcp_warden::policy::{Held, LimitBook, LimitFacts, Limits, Verdict};
use webmcp_warden::value::Value;
use webmcp_warden_fuzz::{number, pick, value};

const MATCHERS: [&str; 5] = ["*", "a*", "page/b", "beta", "page/*"];
const TOOLS: [&str; 4] = ["alpha", "beta", "apex", "b"];
const PRINCIPALS: [&str; 5] = ["p", "a", "zed", "", "m"];
const PER: [&str; 4] = ["principal", "tool", "page", "other"];

fn limit(u: &mut Unstructured<'_>, index: u32) -> Result<Value> {
    if u.ratio(1, 16)? {
        return value(u, 2, 3);
    }
    let mut map = webmcp_warden::value::Map::new();
    if u.arbitrary()? {
        map.insert("match", Value::from(*pick(u, &MATCHERS)?));
    }
    if u.ratio(7, 8)? {
        map.insert("per", Value::from(*pick(u, &PER)?));
    }
    let bounded = |u: &mut Unstructured<'_>| -> Result<Value> { Ok(Value::from(if u.ratio(7, 8)? { f64::from(u.int_in_range(1u32..=6)?) } else { number(u)? })) };
    match u.int_in_range(0..=3)? {
        0 => {
            map.insert("max", bounded(u)?);
            map.insert("window", Value::from(f64::from(u.int_in_range(1u32..=2000)?)));
        }
        1 => {
            map.insert("budget", bounded(u)?);
            map.insert("window", Value::from(f64::from(u.int_in_range(1u32..=2000)?)));
            if u.arbitrary()? {
                map.insert("cost", if u.arbitrary()? { Value::Function(index) } else { Value::from(number(u)?) });
            }
        }
        2 => {
            map.insert("concurrency", bounded(u)?);
        }
        _ => {
            map.insert("concurrency", bounded(u)?);
            map.insert("max", bounded(u)?);
            map.insert("window", Value::from(f64::from(u.int_in_range(1u32..=2000)?)));
        }
    }
    if u.arbitrary()? {
        map.insert("onExceeded", Value::from(*pick(u, &["deny", "ask"])?));
    }
    if u.ratio(1, 3)? {
        map.insert("id", Value::from(*pick(u, &["rate", "busy", "spend"])?));
    }
    Ok(Value::Object(map))
}

fn limits(u: &mut Unstructured<'_>) -> Result<Value> {
    let count = u.int_in_range(0..=6)?;
    let mut list = Vec::new();
    for index in 0..count {
        list.push(limit(u, index)?);
    }
    Ok(Value::Array(list))
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(spec) = limits(&mut u) else { return };
    let Ok(mut compiled) = Limits::compile(&spec) else { return };
    let (mut reused, mut afresh) = (LimitBook::new(), LimitBook::new());
    reused.align(compiled.list());
    afresh.align(compiled.list());
    let mut held: Vec<(Vec<Held>, Vec<Held>)> = Vec::new();
    let mut now = 0.0f64;
    for _ in 0..64 {
        let Ok(op) = u.int_in_range(0u8..=15) else { break };
        match op {
            0..=1 => {
                if held.is_empty() {
                    continue;
                }
                let Ok(at) = u.choose_index(held.len()) else { break };
                let (a, b) = held.swap_remove(at);
                reused.release(&a);
                afresh.release(&b);
            }
            2 => assert_eq!(reused.prune(now), afresh.prune(now), "the same keys pruned"),
            3 => {
                // Limits configured again: the same ones (counts kept) or others.
                let next = if u.arbitrary().unwrap_or(true) { Limits::compile(&spec) } else { limits(&mut u).map_or(Ok(Limits::default()), |spec| Limits::compile(&spec)) };
                if let Ok(next) = next {
                    compiled = next;
                    reused.align(compiled.list());
                    afresh.align(compiled.list());
                }
            }
            _ => {
                now = match u.int_in_range(0u8..=9).unwrap_or(0) {
                    0 => now - 100.0,
                    1 => f64::NAN,
                    2..=5 => now,
                    _ => now + f64::from(u.int_in_range(0u32..=700).unwrap_or(0)),
                };
                let principal = if u.ratio(1, 8).unwrap_or(false) { None } else { pick(&mut u, &PRINCIPALS).ok().copied() };
                let tool = pick(&mut u, &TOOLS).map_or("alpha", |tool| *tool);
                let matched = compiled.matching("page", tool);
                let mut costs = Vec::new();
                for handle in compiled.function_handles() {
                    if u.arbitrary().unwrap_or(false) {
                        costs.push((handle, u.arbitrary::<Option<u8>>().ok().flatten().map(f64::from)));
                    }
                }
                let count = u.ratio(4, 5).unwrap_or(true);
                let facts = LimitFacts { principal, tool, now_ms: now };
                afresh.align(compiled.list());
                let a = reused.check(compiled.list(), &matched, &facts, &costs, count);
                let b = afresh.check(compiled.list(), &matched, &facts, &costs, count);
                match (&a, &b) {
                    (Verdict::Pass(x), Verdict::Pass(y)) => assert_eq!(x.len(), y.len(), "the same places held"),
                    _ => assert_eq!(a, b, "the same verdict"),
                }
                match a {
                    Verdict::Pass(x) => {
                        if let Verdict::Pass(y) = b {
                            if !x.is_empty() {
                                held.push((x, y));
                            }
                        }
                    }
                    Verdict::Exceeded(hit) => assert!(matched.contains(&hit.index), "a passed limit selects the tool"),
                    Verdict::NeedCost(handle) => {
                        assert!(compiled.function_handles().contains(&handle), "a cost asked for is a limit's function");
                        assert!(!costs.iter().any(|(known, _)| *known == handle), "a cost already answered is not asked again");
                    }
                }
            }
        }
    }
    for (a, b) in &held {
        reused.release(a);
        afresh.release(b);
    }
});
