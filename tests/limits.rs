//! Limits: the shared fixture `fixtures/policy-limits.json` driven through the core's call
//! machine with the limits module's logic (`Limits`, `LimitBook`) glued in as the TS layer glues
//! them (`pkg-js/src/limits.ts`), and what only Rust can show (pruning, the cap on keys, counts
//! kept across policy changes, dry runs, lint).
//!
//! The fixture is `[{ name, policy, approver?: "once" | "always", calls: [step] }]`, a step being
//! `{ at, tool, principal?, costs?: { "<handle>": number | "fail" }, hold?: true | "approval",
//! expect }` (a call at `at` ms on the clock; `hold` keeps it in flight at the tool, or at its
//! approver, until a later `{ "end": <step index> }` ends it) or `{ end }`. `expect` is the
//! decision the call ends with, as `{ effect, reason?, rule?, limit?, explanationContains? }`
//! (`rule` and `limit` compared member by member). A cost function is asked at most once per
//! call, and only when `costs` names it. The JS runner is `pkg-js/test/limits.test.mjs`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::arithmetic_side_effects)]

mod support;

use std::collections::HashMap;

use serde_json::{json, Value as Json};
use support::{from_fixture, to_json, v};
use webmcp_warden::call::{Action, Op, PolicyFacts, Signal, StepReport, LIMITS_FIRST};
use webmcp_warden::engine::{CallFlags, Engine};
use webmcp_warden::policy::{lint, Held, LimitBook, LimitFacts, Limits, Verdict, MAX_KEYS};
use webmcp_warden::returns::ReturnFacts;
use webmcp_warden::value::Value;

/// The page the fixture's calls run on: an engine with the fixture's policy, its tools, and
/// the limits module's state for it.
struct Page {
    engine: Engine,
    tools: HashMap<String, u32>,
    approver: Option<String>,
    limits: Limits,
    book: LimitBook,
}

impl Page {
    fn new(policy: &Json, approver: Option<&str>) -> Page {
        let mut engine = Engine::new();
        let spec = from_fixture(policy);
        engine.governor_mut().set_policy(&spec).unwrap_or_else(|err| panic!("policy refused: {err}"));
        let limits = Limits::compile(spec.get("limits").unwrap_or(&Value::Null)).unwrap_or_else(|err| panic!("limits refused: {err}"));
        let mut book = LimitBook::new();
        book.align(limits.list());
        Page { engine, tools: HashMap::new(), approver: approver.map(str::to_owned), limits, book }
    }

    fn tool(&mut self, name: &str) -> u32 {
        let next = u32::try_from(self.tools.len()).unwrap() + 1;
        let engine = &mut self.engine;
        *self.tools.entry(name.to_owned()).or_insert_with(|| {
            engine.define_tool(next, support::definition(&json!({ "name": name, "description": "x" })), None, Vec::new(), name).unwrap();
            next
        })
    }
}

/// A call in progress: its handle, the action it waits at, and what it was asked and holds.
struct Running {
    call: u32,
    tool: String,
    action: Action,
    principal: Option<String>,
    at: f64,
    decision: Option<Json>,
    asked_costs: Vec<u32>,
    held: Vec<Held>,
}

/// Drives `running` until it ends or reaches what `hold` holds it at; at its end, the calls in
/// flight it holds end too.
fn drive(page: &mut Page, running: &mut Running, step: &Json, hold: Option<&str>) -> bool {
    loop {
        if running.action.decided {
            running.decision = page.engine.call(running.call).and_then(|c| c.decision()).map(|d| to_json(&d.to_value()));
        }
        let call = running.call;
        let action = match running.action.op {
            Op::EvaluatePolicy => {
                let facts = PolicyFacts { arguments: Value::Null, principal: running.principal.clone(), taint: Vec::new(), now_ms: running.at, args_digest: None, exposed_to: Vec::new() };
                page.engine.policy_facts(call, &facts, Signal::Live).unwrap()
            }
            Op::Limits => match check_limits(page, running, step) {
                None => page.engine.step(call, StepReport::Valid, ReturnFacts::default(), &Value::Null, Signal::Live, 0.0).unwrap(),
                Some(hit) => page.engine.step(call, StepReport::Invalid, ReturnFacts::default(), &hit, Signal::Live, 0.0).unwrap(),
            },
            // The limits first (what the TS layer does): within them, the action is performed
            // with nothing reported; past one, the core decides again.
            Op::RunTool | Op::Approve if running.action.handle == LIMITS_FIRST => match check_limits(page, running, step) {
                None => Action { handle: 0, decided: false, ..running.action },
                Some(hit) => page.engine.step(call, StepReport::Limited, ReturnFacts::default(), &hit, Signal::Live, 0.0).unwrap(),
            },
            Op::Approve if hold == Some("approval") => return false,
            Op::Approve => {
                let answer = v(json!({ "allow": page.approver.as_deref().expect("an ask with no approver") }));
                let (facts, payload) = ReturnFacts::of_answer(&answer);
                let next = page.engine.step(call, StepReport::Returned, facts, &payload, Signal::Live, 0.0).unwrap();
                if next.accepted {
                    page.engine.record_grant(call, running.principal.as_deref(), running.at, 86_400_000.0, None).expect("a grant");
                }
                next
            }
            Op::RunTool if hold == Some("tool") => return false,
            Op::RunTool => page.engine.step(call, StepReport::ToolReturned, ReturnFacts::default(), &Value::Null, Signal::Live, 0.0).unwrap(),
            Op::FinishOk | Op::FinishError => {
                if running.action.handle != webmcp_warden::engine::ENDED_QUIETLY || running.action.op == Op::FinishError {
                    page.engine.end(call).expect("the call ends once");
                }
                page.book.release(&running.held);
                return true;
            }
            other => panic!("the fixture's calls have no {other:?}"),
        };
        running.action = action;
    }
}

/// Checks `running`'s call against the page's limits and counts it, with the cost functions'
/// answers from `step` until done: `None` within them (what it holds is kept), or the decision
/// of the limit it would pass, as the limits module writes it.
fn check_limits(page: &mut Page, running: &mut Running, step: &Json) -> Option<Value> {
    let matched = page.limits.matching("page", &running.tool);
    let mut costs = Vec::new();
    loop {
        let facts = LimitFacts { principal: running.principal.as_deref(), tool: &running.tool, now_ms: running.at };
        match page.book.check(page.limits.list(), &matched, &facts, &costs, true) {
            Verdict::NeedCost(handle) => {
                assert!(!running.asked_costs.contains(&handle), "cost function {handle} asked twice in one call");
                running.asked_costs.push(handle);
                let answer = step.get("costs").and_then(|costs| costs.get(handle.to_string())).unwrap_or_else(|| panic!("cost function {handle} asked, and the step gives no answer"));
                costs.push((handle, answer.as_f64().filter(|cost| *cost >= 0.0)));
            }
            Verdict::Pass(held) => {
                running.held = held;
                return None;
            }
            Verdict::Exceeded(hit) => return Some(hit.to_value()),
        }
    }
}

/// Whether `actual` holds every member `expected` gives, equal.
fn holds(actual: &Json, expected: &Json) -> bool {
    match (actual, expected) {
        (Json::Object(actual), Json::Object(expected)) => expected.iter().all(|(key, want)| actual.get(key).is_some_and(|got| holds(got, want))),
        _ => actual == expected,
    }
}

fn check(name: &str, index: usize, decision: Option<&Json>, expect: &Json, problems: &mut Vec<String>) {
    let Some(decision) = decision else {
        problems.push(format!("{name}, call {index}: no decision"));
        return;
    };
    for key in ["effect", "reason", "rule", "limit"] {
        if let Some(want) = expect.get(key) {
            if !decision.get(key).is_some_and(|got| holds(got, want)) {
                problems.push(format!("{name}, call {index}: {key} is {}, expected {want}", decision.get(key).unwrap_or(&Json::Null)));
            }
        }
    }
    if let Some(text) = expect.get("explanationContains").and_then(Json::as_str) {
        let said = decision["explanation"].as_str().unwrap_or_default();
        if !said.contains(text) {
            problems.push(format!("{name}, call {index}: explanation {said:?} lacks {text:?}"));
        }
    }
}

#[test]
fn limit_fixtures() {
    let mut problems = Vec::new();
    for case in support::load_json("policy-limits.json").as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let mut page = Page::new(&case["policy"], case.get("approver").and_then(Json::as_str));
        let mut held: HashMap<usize, (Running, Json)> = HashMap::new();
        for (index, step) in case["calls"].as_array().unwrap().iter().enumerate() {
            if let Some(end) = step.get("end").and_then(Json::as_u64) {
                let (mut running, step) = held.remove(&(end as usize)).unwrap_or_else(|| panic!("{name}: step {end} is not held"));
                assert!(drive(&mut page, &mut running, &step, None), "{name}: the held call ends");
                continue;
            }
            let name = step["tool"].as_str().unwrap();
            let tool = page.tool(name);
            let flags = CallFlags::LIMITS | if page.approver.is_some() { CallFlags::APPROVER } else { 0 };
            let call = page.engine.begin(tool, 0, CallFlags(flags)).unwrap();
            let action = page.engine.step(call, StepReport::Start, ReturnFacts::default(), &Value::Null, Signal::Live, 0.0).unwrap();
            let mut running = Running { call, tool: name.to_owned(), action, principal: step.get("principal").and_then(Json::as_str).map(str::to_owned), at: step["at"].as_f64().unwrap(), decision: None, asked_costs: Vec::new(), held: Vec::new() };
            let hold = match step.get("hold") {
                Some(Json::Bool(true)) => Some("tool"),
                Some(Json::String(at)) => Some(at.as_str()),
                _ => None,
            };
            let ended = drive(&mut page, &mut running, step, hold);
            check(name, index, running.decision.as_ref(), &step["expect"], &mut problems);
            if !ended {
                held.insert(index, (running, step.clone()));
            }
        }
        assert!(held.is_empty(), "{name}: every held call is ended");
        assert_eq!(page.engine.counts()[5], 0, "{name}: no call left in progress");
    }
    assert!(problems.is_empty(), "{} problem(s):\n{}", problems.len(), problems.join("\n"));
}

fn limits(json: Json) -> Limits {
    Limits::compile(&v(json)).unwrap()
}

/// Counts one call of `principal` at `now` against `limits` in `book`.
fn count(book: &mut LimitBook, limits: &Limits, principal: &str, now: f64) -> Verdict {
    let matched = limits.matching("page", "t");
    let facts = LimitFacts { principal: Some(principal), tool: "t", now_ms: now };
    book.check(limits.list(), &matched, &facts, &[], true)
}

#[test]
fn keys_whose_window_passed_are_pruned() {
    let policy = limits(json!([{ "per": "principal", "max": 1, "window": 100 }]));
    let mut book = LimitBook::new();
    book.align(policy.list());
    // A million calls, each of a new principal, on a clock that moves 1 ms per call: the book
    // never holds more than the keys of the last window and a prune's slack.
    let mut most = 0;
    for i in 0..1_000_000u32 {
        assert!(matches!(count(&mut book, &policy, &format!("p{i}"), f64::from(i)), Verdict::Pass(_)));
        most = most.max(book.len());
    }
    assert!(most <= 2048, "the book grew to {most} keys");
    assert!(book.prune(2_000_000.0) > 0);
    assert_eq!(book.len(), 0, "every key's window passed");
}

#[test]
fn a_full_book_refuses_new_keys_and_keeps_counting_the_ones_it_has() {
    let policy = limits(json!([{ "per": "principal", "max": 2, "window": 1000 }]));
    let mut book = LimitBook::new();
    book.align(policy.list());
    for i in 0..MAX_KEYS {
        assert!(matches!(count(&mut book, &policy, &format!("p{i}"), 0.0), Verdict::Pass(_)));
    }
    assert_eq!(book.len(), MAX_KEYS);
    // A new key fails closed (evicting one would reset its count) …
    let Verdict::Exceeded(hit) = count(&mut book, &policy, "new", 1.0) else { panic!("a new key passed a full book") };
    assert_eq!(hit.kind, "keys");
    // … a key it holds is still counted …
    assert!(matches!(count(&mut book, &policy, "p7", 2.0), Verdict::Pass(_)));
    assert!(matches!(count(&mut book, &policy, "p7", 3.0), Verdict::Exceeded(_)));
    // … and once the windows passed, the book is pruned and takes new keys again.
    assert!(matches!(count(&mut book, &policy, "new", 3000.0), Verdict::Pass(_)));
    assert_eq!(book.len(), 1);
}

#[test]
fn counts_carry_over_to_the_same_limits_of_a_new_policy() {
    let mut book = LimitBook::new();
    let first = limits(json!([{ "max": 1, "window": 1000, "id": "a" }, { "max": 1, "window": 1000 }]));
    book.align(first.list());
    assert!(matches!(count(&mut book, &first, "p", 0.0), Verdict::Pass(_)));
    // The same policy configured again (a component that renders twice): still counted.
    book.align(first.list());
    assert!(matches!(count(&mut book, &first, "p", 1.0), Verdict::Exceeded(_)));
    // A limit with another window starts afresh; one with the same id keeps its count.
    let second = limits(json!([{ "max": 5, "window": 2000 }, { "max": 1, "window": 1000, "id": "a" }]));
    book.align(second.list());
    let Verdict::Exceeded(hit) = count(&mut book, &second, "p", 2.0) else { panic!("the id kept no count") };
    assert_eq!((hit.index, hit.id.as_deref()), (1, Some("a")));
}

#[test]
fn a_dry_run_counts_nothing() {
    let policy = limits(json!([{ "max": 2, "window": 1000, "concurrency": 1 }, { "budget": 5, "cost": 2, "window": 1000, "id": "b" }]));
    let mut book = LimitBook::new();
    book.align(policy.list());
    let matched = policy.matching("page", "t");
    let facts = LimitFacts { principal: Some("p"), tool: "t", now_ms: 1.0 };
    for _ in 0..10 {
        assert_eq!(book.check(policy.list(), &matched, &facts, &[], false), Verdict::Pass(Vec::new()));
    }
    assert!(book.is_empty(), "a dry run makes no key");
    // Counted once, the next call would pass `max`'s room? No: 1 of 2 calls, 2 of 5 spent,
    // and the call in flight fills the concurrency of 1.
    let Verdict::Pass(held) = count(&mut book, &policy, "p", 1.0) else { panic!() };
    let Verdict::Exceeded(hit) = book.check(policy.list(), &matched, &facts, &[], false) else { panic!("the dry run sees the call in flight") };
    assert_eq!((hit.kind, hit.used, hit.max), ("concurrency", 1.0, 1.0));
    book.release(&held);
    assert_eq!(book.check(policy.list(), &matched, &facts, &[], false), Verdict::Pass(Vec::new()));
}

/// What a limit's decision says (`Hit::to_value`), as the core reads it back.
#[test]
fn a_limit_decision_reads_back_in_the_core() {
    let policy = limits(json!([{ "per": "principal", "max": 1, "window": 1000, "id": "one", "onExceeded": "ask" }]));
    let mut book = LimitBook::new();
    book.align(policy.list());
    assert!(matches!(count(&mut book, &policy, "p", 0.0), Verdict::Pass(_)));
    let Verdict::Exceeded(hit) = count(&mut book, &policy, "p", 1.0) else { panic!() };
    assert_eq!(
        to_json(&hit.to_value()),
        json!({ "ask": true, "index": 0, "id": "one", "explanation": "Asked by limits[0] (\"one\"): 1 of 1 calls used per principal.", "limit": { "kind": "calls", "per": "principal", "used": 1, "max": 1 } })
    );
    let decision = webmcp_warden::policy::Decision::by_limit(&hit.to_value()).unwrap();
    assert_eq!(
        to_json(&decision.to_value()),
        json!({ "effect": "ask", "reason": "limit", "rule": { "list": "limits", "index": 0, "id": "one" }, "explanation": "Asked by limits[0] (\"one\"): 1 of 1 calls used per principal.", "limit": { "kind": "calls", "per": "principal", "used": 1, "max": 1 } })
    );
    for junk in [json!(null), json!({ "ask": "yes", "index": 0, "explanation": "x" }), json!({ "ask": true, "index": -1, "explanation": "x" }), json!({ "ask": true, "index": 0 })] {
        assert!(webmcp_warden::policy::Decision::by_limit(&v(junk)).is_none());
    }
}

#[test]
fn concurrency_is_released_when_a_call_ends_under_another_policy() {
    let policy = limits(json!([{ "concurrency": 1, "id": "c" }]));
    let mut book = LimitBook::new();
    book.align(policy.list());
    let Verdict::Pass(held) = count(&mut book, &policy, "p", 0.0) else { panic!() };
    assert!(matches!(count(&mut book, &policy, "p", 0.0), Verdict::Exceeded(_)));
    // The same policy compiled again (a page that configures it on every render).
    let again = limits(json!([{ "concurrency": 1, "id": "c" }]));
    book.align(again.list());
    assert!(matches!(count(&mut book, &again, "p", 0.0), Verdict::Exceeded(_)), "the call in flight still counts");
    book.release(&held);
    let Verdict::Pass(held) = count(&mut book, &again, "p", 0.0) else { panic!("released") };
    book.release(&held);
    assert!(matches!(count(&mut book, &policy, "p", 0.0), Verdict::Pass(_)));
    // Releasing what no state holds any more changes nothing.
    book.clear();
    book.release(&held);
    assert!(book.is_empty());
}

#[test]
fn limits_are_checked_by_lint() {
    let diagnostics = |json: Json| lint(&v(json)).into_iter().map(|d| (d.code, d.path)).collect::<Vec<_>>();
    let at = |code: &'static str, path: &str| (code, path.to_owned());
    assert_eq!(diagnostics(json!({ "limits": [{ "max": 0, "window": 1000 }] })), vec![at("invalid_limit", "limits[0].max")]);
    // The core's own policy compile leaves `limits` to the limits module: no error there.
    assert!(webmcp_warden::policy::Policy::compile(&v(json!({ "limits": [{ "max": 0 }] }))).is_ok());
    assert_eq!(diagnostics(json!({ "limits": [{ "max": 1, "window": -5 }] })), vec![at("invalid_limit", "limits[0].window")]);
    assert_eq!(diagnostics(json!({ "limits": [{ "max": 1 }] })), vec![at("invalid_limit", "limits[0].window")]);
    assert_eq!(diagnostics(json!({ "limits": [{ "maxx": 1, "window": 10, "max": 1 }] })), vec![at("unknown_limit_key", "limits[0].maxx")]);
    assert_eq!(
        diagnostics(json!({ "limits": [{ "id": "a", "concurrency": 1 }, { "id": "a", "concurrency": 2 }] })),
        vec![at("duplicate_limit_id", "limits[1].id")]
    );
    assert_eq!(
        diagnostics(json!({ "limits": [{ "match": "cart_*", "max": 5, "window": 1000 }, { "match": "cart_add", "max": 10, "window": 1000 }] })),
        vec![at("shadowed_limit", "limits[1]")]
    );
    // Not shadowed: another window, another key, a looser earlier bound, an ask before a deny.
    for (earlier, later) in [
        (json!({ "max": 5, "window": 1000 }), json!({ "max": 10, "window": 2000 })),
        (json!({ "max": 5, "window": 1000, "per": "tool" }), json!({ "max": 10, "window": 1000 })),
        (json!({ "max": 20, "window": 1000 }), json!({ "max": 10, "window": 1000 })),
        (json!({ "max": 5, "window": 1000, "onExceeded": "ask" }), json!({ "max": 10, "window": 1000 })),
        (json!({ "match": "cart_add", "max": 5, "window": 1000 }), json!({ "match": "cart_*", "max": 10, "window": 1000 })),
    ] {
        assert_eq!(diagnostics(json!({ "limits": [earlier, later] })), vec![]);
    }
}

/// `fixtures/policy-limits-invalid.json`: `[{ name, limits, expect: { code, path,
/// messageContains? } }]`, the first error `Limits::compile` reports for a policy's `limits`;
/// lint reports the same code and path for a policy with those limits.
#[test]
fn invalid_limit_fixtures() {
    let mut problems = Vec::new();
    for case in support::load_json("policy-limits-invalid.json").as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let expect = &case["expect"];
        let spec = from_fixture(&case["limits"]);
        match Limits::compile(&spec) {
            Ok(_) => problems.push(format!("{name}: compiled")),
            Err(error) => {
                if error.code != expect["code"] || error.path != expect["path"] {
                    problems.push(format!("{name}: {} at {}, expected {} at {}", error.code, error.path, expect["code"], expect["path"]));
                }
                if let Some(text) = expect.get("messageContains").and_then(Json::as_str) {
                    if !error.message.contains(text) {
                        problems.push(format!("{name}: message {:?} lacks {text:?}", error.message));
                    }
                }
            }
        }
        let mut policy = webmcp_warden::value::Map::new();
        policy.insert("limits", spec);
        let found = lint(&Value::Object(policy));
        if !found.iter().any(|d| d.code == expect["code"] && d.path == expect["path"]) {
            problems.push(format!("{name}: lint reports {:?}", found.iter().map(|d| (d.code, d.path.as_str())).collect::<Vec<_>>()));
        }
    }
    assert!(problems.is_empty(), "{} problem(s):\n{}", problems.len(), problems.join("\n"));
}

/// A call begun with limits on a page whose policy lets its tool through, at its policy step's
/// answer: the tool run flagged `LIMITS_FIRST`.
fn limited_call(flags: u32) -> (Page, u32, Action) {
    let mut page = Page::new(&json!({ "default": "allow", "limits": [{ "max": 1, "window": 1000 }] }), None);
    let tool = page.tool("t");
    let call = page.engine.begin(tool, 0, CallFlags(CallFlags::LIMITS | flags)).unwrap();
    let mut action = page.engine.step(call, StepReport::Start, ReturnFacts::default(), &Value::Null, Signal::Live, 0.0).unwrap();
    if action.op == Op::EvaluatePolicy {
        let facts = PolicyFacts { arguments: Value::Null, principal: None, taint: Vec::new(), now_ms: 0.0, args_digest: None, exposed_to: Vec::new() };
        action = page.engine.policy_facts(call, &facts, Signal::Live).unwrap();
    }
    assert_eq!((action.op, action.handle, action.decided), (Op::RunTool, LIMITS_FIRST, true), "the tool, with its limits first");
    (page, call, action)
}

/// The limits are folded into the action after the policy step: within them nothing is
/// reported (the tool's outcome is the next step); past one, `Limited` makes the core decide
/// again, and the record holds the limit's decision only.
#[test]
fn a_limit_checked_first_replaces_the_decision_it_refuses() {
    let hit = json!({ "ask": false, "index": 0, "explanation": "Denied by limits[0]: 1 of 1 calls used.", "limit": { "kind": "calls", "per": "page", "used": 1, "max": 1 } });
    let (mut page, call, _) = limited_call(CallFlags::OBSERVED);
    let next = page.engine.step(call, StepReport::Limited, ReturnFacts::default(), &v(hit), Signal::Live, 0.0).unwrap();
    assert!(next.decided && next.failed_now, "denied by the limit: {next:?}");
    let decisions: Vec<Json> = page.engine.call(call).unwrap().record().iter().map(to_json).filter(|step| step["step"] == "policy").collect();
    assert_eq!(decisions.len(), 1, "one policy step in the record: {decisions:?}");
    assert_eq!(decisions[0]["decision"]["reason"], "limit");
    assert_eq!(to_json(&page.engine.call(call).unwrap().decision().unwrap().to_value())["rule"]["list"], "limits");

    // Within the limits: the tool's own outcome is the next step.
    let (mut page, call, _) = limited_call(0);
    let next = page.engine.step(call, StepReport::ToolReturned, ReturnFacts::default(), &Value::Null, Signal::Live, 0.0).unwrap();
    assert_eq!(next.op, Op::FinishOk);
}

/// `Limited` with no limit's decision: the check was aborted (the call fails as aborted) or
/// the report is junk (an internal error, never the tool).
#[test]
fn a_limits_check_aborted_or_junk_never_reaches_the_tool() {
    let (mut page, call, _) = limited_call(0);
    let next = page.engine.step(call, StepReport::Limited, ReturnFacts::default(), &Value::Null, Signal::Aborted, 0.0).unwrap();
    assert_ne!(next.op, Op::RunTool);
    let ended = to_json(&page.engine.end(call).unwrap_or(Value::Null));
    assert_eq!(ended["error"]["kind"], "aborted", "{ended}");

    let (mut page, call, _) = limited_call(0);
    let next = page.engine.step(call, StepReport::Limited, ReturnFacts::default(), &v(json!({ "ask": "no" })), Signal::Live, 0.0).unwrap();
    assert_eq!(next.op, Op::FinishError);
    let ended = to_json(&page.engine.end(call).unwrap_or(Value::Null));
    assert_eq!(ended["error"]["reason"], "internal_error", "{ended}");

    // Not flagged: `Limited` is junk at any step.
    let mut page = Page::new(&json!({ "default": "allow" }), None);
    let tool = page.tool("t");
    let call = page.engine.begin(tool, 0, CallFlags(0)).unwrap();
    let first = page.engine.step(call, StepReport::Start, ReturnFacts::default(), &Value::Null, Signal::Live, 0.0).unwrap();
    assert_ne!((first.op, first.handle), (Op::RunTool, LIMITS_FIRST), "no limits, no flag");
    let next = page.engine.step(call, StepReport::Limited, ReturnFacts::default(), &Value::Null, Signal::Live, 0.0).unwrap();
    assert_eq!(next.op, Op::FinishError);
}

/// A check of the same limits, principal and tool reuses the places the check before found; a
/// key inserted before them moves them, and both the next check and the release of a call
/// counted before the move still reach the principal's own counters.
#[test]
fn places_found_before_follow_keys_that_moved() {
    let policy = limits(json!([{ "per": "principal", "concurrency": 1, "id": "c" }, { "per": "principal", "max": 3, "window": 1000, "id": "r" }]));
    let mut book = LimitBook::new();
    book.align(policy.list());
    let Verdict::Pass(first) = count(&mut book, &policy, "p", 0.0) else { panic!("p's first call") };
    let Verdict::Exceeded(hit) = count(&mut book, &policy, "p", 1.0) else { panic!("p's call in flight holds its one place") };
    assert_eq!((hit.kind, hit.used), ("concurrency", 1.0));
    // "a" sorts before "p": p's counters move one place on.
    let Verdict::Pass(other) = count(&mut book, &policy, "a", 2.0) else { panic!("a has places of its own") };
    let Verdict::Exceeded(hit) = count(&mut book, &policy, "p", 3.0) else { panic!("p's call is still in flight") };
    assert_eq!((hit.kind, hit.used), ("concurrency", 1.0));
    // Released where p's counter is now, not where it was when the call was counted.
    book.release(&first);
    let Verdict::Pass(second) = count(&mut book, &policy, "p", 4.0) else { panic!("p's place was freed") };
    book.release(&second);
    let Verdict::Pass(third) = count(&mut book, &policy, "p", 5.0) else { panic!("p's third call") };
    book.release(&third);
    let Verdict::Exceeded(hit) = count(&mut book, &policy, "p", 6.0) else { panic!("three calls of p counted") };
    assert_eq!((hit.kind, hit.used, hit.max), ("calls", 3.0, 3.0), "p's count is its own, not a's");
    // a's call still holds its place; released, a may call again.
    assert!(matches!(count(&mut book, &policy, "a", 7.0), Verdict::Exceeded(_)));
    book.release(&other);
    assert!(matches!(count(&mut book, &policy, "a", 8.0), Verdict::Pass(_)));
}
