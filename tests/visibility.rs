//! What the core decides for the page's view of its governor (`docs/behaviour.md`, "Suspending
//! agents", "Development mode"): the kill switch (`suspendAgents`), and development mode, where a
//! changed definition becomes the baseline instead of asking.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod support;

use serde_json::json;
use support::{definition, to_json, v};
use webmcp_warden::call::{Action, Op, Signal, StepReport};
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

fn step(engine: &mut Engine, call: u32, outcome: StepReport, payload: &Value) -> Action {
    engine.step(call, outcome, ReturnFacts::default(), payload, Signal::Live, 0.0).unwrap()
}

#[test]
fn a_suspended_page_denies_every_call_with_its_reason_before_anything_runs() {
    let mut engine = page();
    engine.suspend(Some("Maintenance until noon".into()));
    let call = engine.begin(3, 0, CallFlags(CallFlags::OBSERVED)).unwrap();
    let action = step(&mut engine, call, StepReport::Start, &Value::Null);
    // No before-hook, no tool: the denied hook observes the denial, as for every denial.
    assert_eq!((action.op, action.handle), (Op::CallHook, 2), "{action:?}");
    assert!(action.failed_now, "{action:?}");
    assert_eq!(step(&mut engine, call, StepReport::Returned, &Value::Null).op, Op::FinishError);
    let ended = to_json(&engine.end(call).unwrap());
    assert_eq!(ended["text"], "Denied: Maintenance until noon");
    assert_eq!(ended["error"]["kind"], "denied");
    assert_eq!(ended["error"]["reason"], "suspended");
    assert_eq!(ended["error"]["message"], "Maintenance until noon");
    let record = ended["record"].as_array().unwrap();
    assert_eq!(record.len(), 1, "only the denied hook ran: {ended}");
    assert_eq!(record[0]["hookId"], "seen");
}

#[test]
fn resuming_and_resetting_let_calls_through() {
    let mut engine = page();
    engine.suspend(Some("stop".into()));
    // A dry run explains the policy as it decides once the agents are resumed.
    let dry = engine.begin(3, 0, CallFlags(CallFlags::EXPLAIN)).unwrap();
    assert_eq!(step(&mut engine, dry, StepReport::Start, &Value::Null).op, Op::FinishOk);
    assert_eq!(to_json(&engine.end(dry).unwrap())["effect"], "allow");
    engine.suspend(None);
    let call = engine.begin(3, 0, CallFlags(0)).unwrap();
    assert_eq!(step(&mut engine, call, StepReport::Start, &Value::Null), Action { op: Op::CallHook, handle: 4, accepted: false, failed_now: false, verdict: webmcp_warden::call::Verdict::None, decided: false });
    // A reset resumes the page's agents too (everything back to defaults).
    engine.suspend(Some("stop".into()));
    engine.reset();
    let call = engine.begin(3, 0, CallFlags(0)).unwrap();
    assert_eq!(step(&mut engine, call, StepReport::Start, &Value::Null).op, Op::RunTool);
}

#[test]
fn a_call_that_started_before_the_suspension_goes_on() {
    let mut engine = page();
    let call = engine.begin(3, 0, CallFlags(0)).unwrap();
    assert_eq!(step(&mut engine, call, StepReport::Start, &Value::Null).op, Op::CallHook);
    engine.suspend(Some("stop".into()));
    assert_eq!(step(&mut engine, call, StepReport::Returned, &Value::Null).op, Op::RunTool);
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
