//! Defects the fuzz targets (`fuzz/`) found in the core, each as the test that would have
//! caught it.
//!
//! **Configuration that changes while a call or a listing is in flight** (`step_machine`). The
//! TS layer frees a dropped hook set's handles (and a dropped tool's) at once and hands them to
//! whatever it defines next, last freed first. A call keeps the plan it started with, so it
//! went on asking for the dropped hooks by handle: the TS layer either no longer held them or
//! called another hook now under the same handle; and a call whose tool was dropped was
//! decided, and shown to the approver, as the tool that took its handle.
//!
//! **A dry run that called error hooks** (`step_machine`): arguments JSON cannot carry,
//! reported at the policy step of a dry run, failed it like a real call, error hooks included.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::arithmetic_side_effects)]

use webmcp_warden::call::{Action, Op, PolicyFacts, Signal, StepReport};
use webmcp_warden::engine::{CallFlags, Engine};
use webmcp_warden::digest::FieldTexts;
use webmcp_warden::governor::Definition;
use webmcp_warden::object;
use webmcp_warden::returns::ReturnFacts;
use webmcp_warden::value::Value;

fn definition(name: &str) -> Definition {
    let name_text = format!("\"{name}\"");
    let texts = FieldTexts::from_pairs([("name", name_text.as_str()), ("description", "\"x\"")]).unwrap();
    Definition::new(name, Value::Null, &texts)
}

/// A policy of string rules only: `{ list: [matchers] }`.
fn policy(lists: &[(&str, &[&str])]) -> Value {
    let mut map = webmcp_warden::value::Map::new();
    for (list, matchers) in lists {
        map.insert(*list, Value::Array(matchers.iter().map(|m| Value::from(*m)).collect()));
    }
    Value::Object(map)
}

fn hooks(event: &str, entries: Vec<Value>) -> Value {
    let mut map = webmcp_warden::value::Map::new();
    map.insert(event, Value::Array(entries));
    Value::Object(map)
}

fn step(engine: &mut Engine, call: u32, outcome: StepReport) -> Action {
    engine.step(call, outcome, ReturnFacts::default(), &Value::Null, Signal::Live, 0.0).unwrap()
}

fn start(engine: &mut Engine, call: u32) -> Action {
    step(engine, call, StepReport::Start)
}

/// Global hooks: set 1 holds `event` hook 2; tool 3 has no hooks of its own.
fn page(event: &str, entry: Value) -> Engine {
    let mut engine = Engine::new();
    engine.define_hook_set(1, &hooks(event, vec![entry]), "hooks").unwrap();
    engine.add_global(1, false, "hooks").unwrap();
    engine.define_tool(3, definition("search"), None, Vec::new(), "tool hooks").unwrap();
    engine
}

/// `configureWebMCP({ hooks, replace: true })` while the call waits: the old set is dropped
/// and the new set's hook takes the freed handle 2 (the TS layer reuses the last freed first).
fn replace_globals(engine: &mut Engine, event: &str) {
    let replaced = engine.add_global(1, true, "hooks").unwrap();
    assert_eq!(replaced, vec![1]);
    engine.clear_global();
    engine.drop_hook_set(1);
    engine.define_hook_set(4, &hooks(event, vec![Value::Function(2)]), "hooks").unwrap();
    engine.add_global(4, false, "hooks").unwrap();
}

#[test]
fn an_error_hook_dropped_while_the_tool_runs_is_not_asked_for() {
    let mut engine = page("error", Value::Function(2));
    let call = engine.begin(3, 0, CallFlags(CallFlags::OBSERVED)).unwrap();
    assert_eq!(start(&mut engine, call).op, Op::RunTool);
    replace_globals(&mut engine, "before");
    // The tool throws: error hooks run, but the one planned is gone, and handle 2 is now a
    // before-hook of another set.
    let action = engine.step(call, StepReport::ToolThrew, ReturnFacts::default(), &object! { "message" => "boom" }, Signal::Live, 0.0).unwrap();
    assert_eq!(action.op, Op::FinishError, "the call asked for {action:?}");
    assert!(action.failed_now);
    let ended = engine.end(call).unwrap();
    assert_eq!(ended.get("error").and_then(|e| e.get("reason")).and_then(Value::as_str), Some("tool_error"), "{ended:?}");
    let record = ended.get("record").and_then(Value::as_array).unwrap();
    assert!(record.iter().any(|step| step.get("outcome").and_then(Value::as_str) == Some("removed")), "{record:?}");
}

#[test]
fn a_before_hook_dropped_before_its_turn_fails_the_call_closed() {
    let mut engine = Engine::new();
    // Two before-hooks in separate global sets: the second set is dropped while the first runs.
    engine.define_hook_set(1, &hooks("before", vec![Value::Function(2)]), "hooks").unwrap();
    engine.define_hook_set(5, &hooks("before", vec![object! { "run" => Value::Function(6), "id" => "guard" }]), "hooks").unwrap();
    engine.add_global(1, false, "hooks").unwrap();
    engine.add_global(5, false, "hooks").unwrap();
    engine.define_tool(3, definition("search"), None, Vec::new(), "tool hooks").unwrap();
    let call = engine.begin(3, 0, CallFlags(0)).unwrap();
    assert_eq!(start(&mut engine, call), Action { op: Op::CallHook, handle: 2, ..start_action() });
    engine.drop_hook_set(5);
    engine.define_hook_set(7, &hooks("after", vec![Value::Function(6)]), "hooks").unwrap();
    let action = step(&mut engine, call, StepReport::Returned);
    assert_ne!(action.op, Op::RunTool, "the tool ran without the guard");
    assert_eq!(action.op, Op::FinishError, "the call asked for {action:?}");
    assert!(action.failed_now);
    let ended = engine.end(call).unwrap();
    let error = ended.get("error").unwrap();
    assert_eq!(error.get("reason").and_then(Value::as_str), Some("hook_failed"));
    assert_eq!(error.get("cause").and_then(Value::as_str), Some("removed"));
    assert_eq!(error.get("hookId").and_then(Value::as_str), Some("guard"));
}

fn start_action() -> Action {
    Action { op: Op::CallHook, handle: 0, accepted: false, failed_now: false, verdict: webmcp_warden::call::Verdict::None, decided: false }
}

#[test]
fn an_after_hook_dropped_while_the_tool_runs_withholds_the_result_unless_ignored() {
    for (on_error, ok) in [("fail", false), ("ignore", true)] {
        let mut engine = page("after", object! { "run" => Value::Function(2), "onError" => on_error });
        // Observed, so that a success is not ended quietly by the core and `end` answers it.
        let call = engine.begin(3, 0, CallFlags(CallFlags::OBSERVED)).unwrap();
        assert_eq!(start(&mut engine, call).op, Op::RunTool);
        replace_globals(&mut engine, "before");
        let action = step(&mut engine, call, StepReport::ToolReturned);
        assert_eq!(action.op, if ok { Op::FinishOk } else { Op::FinishError }, "onError {on_error}: {action:?}");
        assert_eq!(action.failed_now, !ok);
        assert_eq!(engine.end(call).unwrap().get("ok"), Some(&Value::Bool(ok)));
    }
}

#[test]
fn a_listing_hook_dropped_before_its_turn_fails_the_listing() {
    let mut engine = Engine::new();
    engine.define_hook_set(1, &hooks("toolsListed", vec![Value::Function(2), Value::Function(4)]), "hooks").unwrap();
    engine.add_global(1, false, "hooks").unwrap();
    engine.define_hook_set(5, &hooks("toolsListed", vec![Value::Function(6)]), "hooks").unwrap();
    engine.add_global(5, false, "hooks").unwrap();
    engine.define_tool(3, definition("search"), None, Vec::new(), "tool hooks").unwrap();
    let listing = engine.begin_listing(&[(3, 0)]).unwrap();
    let action = engine.listing_step(listing, StepReport::Start, ReturnFacts::default(), &Value::Null, 0.0).unwrap();
    assert_eq!((action.op, action.handle), (Op::CallHook, 2));
    engine.drop_hook_set(5);
    engine.define_hook_set(7, &hooks("toolsListed", vec![Value::Function(6)]), "hooks").unwrap();
    let action = engine.listing_step(listing, StepReport::Returned, ReturnFacts::default(), &Value::Null, 0.0).unwrap();
    assert_eq!((action.op, action.handle), (Op::CallHook, 4), "the first set's second hook is still there");
    let action = engine.listing_step(listing, StepReport::Returned, ReturnFacts::default(), &Value::Null, 0.0).unwrap();
    assert_eq!(action.op, Op::FinishError, "the listing asked for {action:?}");
    let ended = engine.end_listing(listing).unwrap();
    assert_eq!(ended.get("error").and_then(|e| e.get("cause")).and_then(Value::as_str), Some("removed"), "{ended:?}");
}

#[test]
fn a_tool_dropped_while_its_call_waits_is_never_decided_as_the_tool_that_took_its_handle() {
    let mut engine = page("before", Value::Function(2));
    engine.governor_mut().set_policy(&policy(&[("deny", &["delete_everything"]), ("ask", &["*"])])).unwrap();
    engine.drop_tool(3);
    engine.define_tool(3, definition("delete_everything"), None, Vec::new(), "tool hooks").unwrap();
    let call = engine.begin(3, 0, CallFlags(CallFlags::APPROVER)).unwrap();
    assert_eq!(start(&mut engine, call).op, Op::CallHook);
    // While the before-hook runs, the page unregisters the tool and registers another, which
    // the TS layer gives the freed handle 3.
    engine.drop_tool(3);
    engine.define_tool(3, definition("search"), None, Vec::new(), "tool hooks").unwrap();
    let action = step(&mut engine, call, StepReport::Returned);
    assert_eq!(action.op, Op::EvaluatePolicy);
    let facts = PolicyFacts { arguments: object! {}, principal: None, taint: Vec::new(), now_ms: 0.0, args_digest: None, exposed_to: Vec::new() };
    let action = engine.policy_facts(call, &facts, Signal::Live).unwrap();
    assert_ne!(action.op, Op::Approve, "the approver would be asked about \"search\" for a call of \"delete_everything\"");
    assert_eq!(action.op, Op::FinishError);
    assert!(engine.ask_facts(call).is_none());
    let ended = engine.end(call).unwrap();
    assert_eq!(ended.get("ok"), Some(&Value::Bool(false)));
}

#[test]
fn a_predicate_handle_an_action_cannot_carry_fails_closed_and_never_names_another_function() {
    let mut engine = page("before", Value::Function(2));
    let too_large = webmcp_warden::call::MAX_HANDLE + 1;
    let spec = object! {
        "deny" => Value::Array(vec![object! { "when" => Value::Function(too_large) }]),
        "allow" => Value::Array(vec!["*".into()]),
    };
    engine.governor_mut().set_policy(&spec).unwrap();
    let call = engine.begin(3, 0, CallFlags(0)).unwrap();
    assert_eq!(start(&mut engine, call).op, Op::CallHook);
    assert_eq!(step(&mut engine, call, StepReport::Returned).op, Op::EvaluatePolicy);
    let facts = PolicyFacts { arguments: object! {}, principal: None, taint: Vec::new(), now_ms: 0.0, args_digest: None, exposed_to: Vec::new() };
    let action = engine.policy_facts(call, &facts, Signal::Live).unwrap();
    assert_ne!(action.op, Op::Predicate, "handle {too_large} would be packed as {}", action.handle);
    assert_eq!(action.op, Op::FinishError, "the deny rule's predicate failed, so the rule applies");
    let ended = engine.end(call).unwrap();
    assert_eq!(ended.get("ok"), Some(&Value::Bool(false)));
}

#[test]
fn a_dry_run_with_arguments_json_cannot_carry_calls_no_hook() {
    let mut engine = page("error", Value::Function(2));
    engine.governor_mut().set_policy(&policy(&[("allow", &["*"])])).unwrap();
    let call = engine.begin(3, 0, CallFlags(CallFlags::EXPLAIN)).unwrap();
    assert_eq!(start(&mut engine, call).op, Op::EvaluatePolicy);
    let diagnostics = object! { "diagnostics" => Value::Array(vec![object! { "path" => "/x", "message" => "is a BigInt" }]) };
    let action = engine.step(call, StepReport::Invalid, ReturnFacts::default(), &diagnostics, Signal::Live, 0.0).unwrap();
    assert_eq!(action.op, Op::EvaluatePolicy, "a dry run asked for {action:?}");
    let facts = PolicyFacts { arguments: Value::Null, principal: None, taint: Vec::new(), now_ms: 0.0, args_digest: None, exposed_to: Vec::new() };
    let action = engine.policy_facts(call, &facts, Signal::Live).unwrap();
    assert_eq!(action.op, Op::FinishOk);
    let explained = engine.end(call).unwrap();
    assert_eq!(explained.get("effect").and_then(Value::as_str), Some("allow"));
    assert!(explained.get("explanation").and_then(Value::as_str).unwrap().starts_with("Validation would fail first"), "{explained:?}");
}

/// **A dry run under limits, aborted at the limits step** (`step_machine`): the abort ran the
/// error hooks, which a dry run never calls.
#[test]
fn a_dry_run_aborted_at_its_limits_calls_no_hook() {
    let mut engine = page("error", Value::Function(2));
    engine.governor_mut().set_policy(&policy(&[("allow", &["*"])])).unwrap();
    let call = engine.begin(3, 0, CallFlags(CallFlags::EXPLAIN | CallFlags::LIMITS)).unwrap();
    assert_eq!(start(&mut engine, call).op, Op::EvaluatePolicy);
    let facts = PolicyFacts { arguments: object! {}, principal: None, taint: Vec::new(), now_ms: 0.0, args_digest: None, exposed_to: Vec::new() };
    assert_eq!(engine.policy_facts(call, &facts, Signal::Live).unwrap().op, Op::Limits);
    let action = step(&mut engine, call, StepReport::Aborted);
    assert_eq!(action.op, Op::FinishError, "a dry run asked for {action:?}");
    assert!(engine.end(call).is_some());
}

/// **A dropped set still named by a tool or a scope** (`step_machine`): the tool's cached plan
/// kept the dropped hooks, and a set given the freed id joined the tool's or scope's hooks.
#[test]
fn a_set_dropped_under_a_live_tool_or_scope_leaves_them() {
    let mut engine = Engine::new();
    engine.define_hook_set(1, &hooks("before", vec![Value::Function(2)]), "tool hooks").unwrap();
    engine.define_hook_set(4, &hooks("after", vec![Value::Function(5)]), "provider hooks").unwrap();
    engine.define_tool(3, definition("search"), None, vec![1], "tool hooks").unwrap();
    engine.define_scope(6, 0, Some(4), "provider hooks").unwrap();
    // Plan and cache it, then drop both sets; new sets take the freed ids and handles.
    let call = engine.begin(3, 6, CallFlags(0)).unwrap();
    engine.end(call);
    engine.drop_hook_set(1);
    engine.drop_hook_set(4);
    engine.define_hook_set(4, &hooks("before", vec![Value::Function(5)]), "hooks").unwrap();
    engine.define_hook_set(1, &hooks("before", vec![Value::Function(2)]), "hooks").unwrap();
    let call = engine.begin(3, 6, CallFlags(0)).unwrap();
    let action = start(&mut engine, call);
    assert_eq!(action.op, Op::RunTool, "the call ran hooks of sets its tool and scope never had: {action:?}");
    engine.end(call);
    assert_eq!(engine.counts()[5], 0);
}

/// **A tool dropped while its predicate or approver runs** (`step_machine`): the approver was
/// shown no tool at all (the TS layer then failed reading it), or the tool that took the
/// handle. What predicates and the approver are shown is now fixed at the policy step.
#[test]
fn a_tool_dropped_while_its_approver_is_asked_is_still_the_one_shown() {
    let mut engine = page("before", Value::Function(2));
    let rule = object! { "match" => "*", "when" => Value::Array(vec![Value::Function(9)]) };
    let mut spec = webmcp_warden::value::Map::new();
    spec.insert("ask", Value::Array(vec![rule]));
    engine.governor_mut().set_policy(&Value::Object(spec)).unwrap();
    engine.drop_tool(3);
    engine.define_tool(3, definition("delete_everything"), None, Vec::new(), "tool hooks").unwrap();
    let call = engine.begin(3, 0, CallFlags(CallFlags::APPROVER)).unwrap();
    assert_eq!(start(&mut engine, call).op, Op::CallHook);
    assert_eq!(step(&mut engine, call, StepReport::Returned).op, Op::EvaluatePolicy);
    let facts = PolicyFacts { arguments: object! {}, principal: None, taint: Vec::new(), now_ms: 0.0, args_digest: None, exposed_to: Vec::new() };
    let action = engine.policy_facts(call, &facts, Signal::Live).unwrap();
    assert_eq!((action.op, action.handle), (Op::Predicate, 9));
    engine.drop_tool(3);
    engine.define_tool(3, definition("search"), None, Vec::new(), "tool hooks").unwrap();
    assert_eq!(engine.ask_facts(call).map(|facts| facts.name).as_deref(), Some("delete_everything"), "the predicate is shown another tool");
    let action = step(&mut engine, call, StepReport::PredicateTrue);
    assert_eq!(action.op, Op::Approve);
    assert_eq!(engine.ask_facts(call).map(|facts| facts.name).as_deref(), Some("delete_everything"), "the approver is shown another tool");
}
