//! What the core decides for the page's view of its governor (`docs/behaviour.md`, "Approvals",
//! "Suspending agents", "Development mode"): the kill switch (`suspendAgents`), an ask withdrawn
//! before anyone answered it (`ask.cancel`), the rule a failing function predicate belongs to,
//! and development mode, where a changed definition becomes the baseline instead of asking.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod support;

use serde_json::json;
use support::{definition, to_json, v};
use webmcp_warden::call::{Action, Op, Outcome, PolicyFacts, Signal};
use webmcp_warden::engine::{CallFlags, Engine};
use webmcp_warden::governor::Governor;
use webmcp_warden::object;
use webmcp_warden::policy::FingerprintState;
use webmcp_warden::returns::ReturnFacts;
use webmcp_warden::value::Value;

fn tool(name: &str, description: &str) -> webmcp_warden::governor::Definition {
    definition(&json!({ "name": name, "description": description }))
}

/// A page with one denied-hook observer (hook 2), one before-hook (hook 4) and the tool 3.
fn page() -> Engine {
    let mut engine = Engine::new();
    let hooks = object! {
        "before" => Value::Array(vec![object! { "run" => Value::Function(4), "id" => "audit" }]),
        "denied" => Value::Array(vec![object! { "run" => Value::Function(2), "id" => "seen" }]),
    };
    engine.define_hook_set(1, &hooks, "hooks").unwrap();
    engine.add_global(1, false, "hooks").unwrap();
    engine.define_tool(3, tool("search", "Searches."), None, Vec::new(), "tool hooks").unwrap();
    engine
}

fn step(engine: &mut Engine, call: u32, outcome: Outcome, payload: &Value) -> Action {
    engine.step(call, outcome, ReturnFacts::default(), payload, Signal::Live, 0.0).unwrap()
}

fn facts() -> PolicyFacts {
    PolicyFacts { arguments: object! {}, principal: None, taint: Vec::new(), now_ms: 0.0, args_digest: None }
}

#[test]
fn a_suspended_page_denies_every_call_with_its_reason_before_anything_runs() {
    let mut engine = page();
    engine.suspend(Some("Maintenance until noon".into()));
    let call = engine.begin(3, 0, CallFlags(CallFlags::OBSERVED)).unwrap();
    let action = step(&mut engine, call, Outcome::Start, &Value::Null);
    // No before-hook, no tool: the denied hook observes the denial, as for every denial.
    assert_eq!((action.op, action.handle), (Op::CallHook, 2), "{action:?}");
    assert!(action.failed_now && action.decided, "{action:?}");
    assert_eq!(step(&mut engine, call, Outcome::Returned, &Value::Null).op, Op::FinishError);
    let ended = to_json(&engine.end(call).unwrap());
    assert_eq!(ended["text"], "Denied: Maintenance until noon");
    assert_eq!(ended["error"]["kind"], "denied");
    assert_eq!(ended["error"]["reason"], "suspended");
    assert_eq!(ended["error"]["message"], "Maintenance until noon");
    assert_eq!(ended["error"]["decision"]["effect"], "deny");
    assert_eq!(ended["error"]["decision"]["explanation"], "Agents are suspended: Maintenance until noon.");
    assert_eq!(ended["record"][0]["step"], "policy", "{ended}");
}

#[test]
fn resuming_lets_calls_through_and_a_dry_run_says_what_a_suspended_call_gets() {
    let mut engine = page();
    engine.suspend(Some("stop".into()));
    let dry = engine.begin(3, 0, CallFlags(CallFlags::EXPLAIN)).unwrap();
    assert_eq!(step(&mut engine, dry, Outcome::Start, &Value::Null).op, Op::FinishOk);
    let explained = to_json(&engine.end(dry).unwrap());
    assert_eq!((explained["effect"].as_str(), explained["reason"].as_str()), (Some("deny"), Some("suspended")), "{explained}");
    engine.suspend(None);
    let call = engine.begin(3, 0, CallFlags(0)).unwrap();
    assert_eq!(step(&mut engine, call, Outcome::Start, &Value::Null), Action { op: Op::CallHook, handle: 4, accepted: false, failed_now: false, verdict: webmcp_warden::call::Verdict::None, decided: false });
    // A reset resumes the page's agents too (everything back to defaults).
    engine.suspend(Some("stop".into()));
    engine.reset();
    let call = engine.begin(3, 0, CallFlags(0)).unwrap();
    assert_eq!(step(&mut engine, call, Outcome::Start, &Value::Null).op, Op::RunTool);
}

#[test]
fn a_call_that_started_before_the_suspension_goes_on() {
    let mut engine = page();
    let call = engine.begin(3, 0, CallFlags(0)).unwrap();
    assert_eq!(step(&mut engine, call, Outcome::Start, &Value::Null).op, Op::CallHook);
    engine.suspend(Some("stop".into()));
    assert_eq!(step(&mut engine, call, Outcome::Returned, &Value::Null).op, Op::RunTool);
}

/// A page whose policy asks about every call, with an approver.
fn asking_page() -> (Engine, u32) {
    let mut engine = Engine::new();
    engine.define_tool(3, tool("checkout", "Checks out."), None, Vec::new(), "tool hooks").unwrap();
    engine.governor_mut().set_policy(&v(json!({ "ask": [{ "match": "*", "label": "Checkout" }] }))).unwrap();
    let call = engine.begin(3, 0, CallFlags(CallFlags::APPROVER | CallFlags::OBSERVED)).unwrap();
    assert_eq!(step(&mut engine, call, Outcome::Start, &Value::Null).op, Op::EvaluatePolicy);
    assert_eq!(engine.policy_facts(call, &facts(), Signal::Live).unwrap().op, Op::Approve);
    (engine, call)
}

#[test]
fn a_cancelled_ask_denies_the_call_as_a_failed_approval_saying_why() {
    let (mut engine, call) = asking_page();
    let action = step(&mut engine, call, Outcome::Cancelled, &object! { "deny" => "the dialog was closed" });
    assert_eq!(action.op, Op::FinishError);
    let ended = to_json(&engine.end(call).unwrap());
    assert_eq!(ended["error"]["reason"], "ask_failed");
    assert_eq!(ended["error"]["cause"], "cancelled");
    assert_eq!(ended["text"], "Denied: the approval was cancelled (the dialog was closed)");
    assert_eq!(ended["error"]["decision"]["rule"]["label"], "Checkout");
    let approval = ended["record"].as_array().unwrap().iter().find(|step| step["step"] == "approval").unwrap().clone();
    assert_eq!(approval["outcome"], "cancelled");
    // Without a reason, the cause alone.
    let (mut engine, call) = asking_page();
    step(&mut engine, call, Outcome::Cancelled, &Value::Null);
    assert_eq!(to_json(&engine.end(call).unwrap())["text"], "Denied: the approval failed (cancelled)");
}

#[test]
fn the_rule_of_the_function_predicate_asked_for_is_readable() {
    let mut engine = Engine::new();
    engine.define_tool(3, tool("search", "Searches."), None, Vec::new(), "tool hooks").unwrap();
    let spec = object! {
        "allow" => Value::Array(vec![object! { "when" => Value::Function(9), "id" => "trusted", "label" => "Trusted callers" }]),
    };
    engine.governor_mut().set_policy(&spec).unwrap();
    let call = engine.begin(3, 0, CallFlags(0)).unwrap();
    assert!(engine.call(call).unwrap().predicate_rule().is_none(), "no predicate asked yet");
    assert_eq!(step(&mut engine, call, Outcome::Start, &Value::Null).op, Op::EvaluatePolicy);
    let action = engine.policy_facts(call, &facts(), Signal::Live).unwrap();
    assert_eq!((action.op, action.handle), (Op::Predicate, 9));
    let rule = to_json(&engine.call(call).unwrap().predicate_rule().unwrap().to_value());
    assert_eq!(rule, json!({ "list": "allow", "index": 0, "id": "trusted", "label": "Trusted callers" }));
}

#[test]
fn development_mode_makes_a_changed_definition_the_baseline_instead_of_asking() {
    let mut governor = Governor::default();
    assert_eq!(governor.fingerprint_state(&tool("a", "one")), FingerprintState::Unchanged);
    governor.set_rebaseline(true);
    // Hot reload edited the description: the new definition is the baseline now.
    assert_eq!(governor.fingerprint_state(&tool("a", "two")), FingerprintState::Unchanged);
    assert_eq!(governor.fingerprint_state(&tool("a", "two")), FingerprintState::Unchanged);
    governor.set_rebaseline(false);
    // Out of development mode the pin holds again, against the last baseline.
    let FingerprintState::Changed { changed, .. } = governor.fingerprint_state(&tool("a", "three")) else { panic!("a change is a change") };
    assert_eq!(changed, ["description"]);
    assert_eq!(governor.fingerprint_state(&tool("a", "two")), FingerprintState::Unchanged);
}

#[test]
fn development_mode_never_rewrites_an_explicit_map_and_records_nothing_in_a_dry_run() {
    let mut governor = Governor::default();
    let known = tool("a", "one");
    governor.set_approved(&v(json!({ "a": known.fingerprint }))).unwrap();
    governor.set_rebaseline(true);
    assert!(matches!(governor.fingerprint_state(&tool("a", "two")), FingerprintState::Changed { .. }), "the map is the page's statement");
    let mut governor = Governor::default();
    governor.set_rebaseline(true);
    governor.fingerprint_state(&tool("b", "one"));
    assert!(matches!(governor.peek_fingerprint_state(&tool("b", "two")), FingerprintState::Changed { .. }), "a dry run reports the change and records nothing");
    assert_eq!(governor.fingerprint_state(&tool("b", "two")), FingerprintState::Unchanged);
}
