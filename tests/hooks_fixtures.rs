//! The hook fixtures of `tests/fixtures/hooks/`, run against the core directly.
//!
//! The same files drive `pkg-js/test/hooks-fixtures.test.mjs` through the built package; see
//! `tests/fixtures/hooks/README.md` for the format. Here a fixture hook set becomes the hooks
//! object the TS layer sends (functions replaced by handles), and each call is driven through
//! `begin` / `step` / `end`: a fixture hook's behaviour becomes the facts the TS layer would
//! report ([`ReturnFacts::of`] its value, a throw, a timeout, an abort), the values stay on this
//! side and take effect only when the core accepts them. The core does every judging: what a
//! return means, where an abort stops the call, which failure it ends with and what the agent
//! reads. What is asserted: the order in which hooks (and the tool) ran, ok or the error, the
//! text, what the tool got, and what hooks saw.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::arithmetic_side_effects)]

mod common;

use std::collections::HashMap;

use common::{json_to_value, template_to_value};
use serde_json::{json, Map, Value as Json};
use webmcp_warden::call::{Op, Signal, StepReport, Verdict};
use webmcp_warden::engine::{CallFlags, Engine};
use webmcp_warden::error::ConfigError;
use webmcp_warden::digest::FieldTexts;
use webmcp_warden::governor::Definition;
use webmcp_warden::hooks::{Event, Subject};
use webmcp_warden::returns::{Contract, ReturnFacts};
use webmcp_warden::value::Value;

const ORDER: &str = include_str!("fixtures/hooks/order.json");
const RETURNS: &str = include_str!("fixtures/hooks/returns.json");
const FAILURES: &str = include_str!("fixtures/hooks/failures.json");
const MATCHERS: &str = include_str!("fixtures/hooks/matchers.json");
const CONFIG: &str = include_str!("fixtures/hooks/config.json");
const SUBJECTS: &str = include_str!("fixtures/hooks/subjects.json");

fn cases(text: &str) -> Vec<Json> {
    let file: Json = serde_json::from_str(text).expect("fixture file is JSON");
    let cases = file["cases"].as_array().expect("fixture file has cases").clone();
    assert!(!cases.is_empty(), "a fixture file without cases tests nothing");
    cases
}

const OPTION_KEYS: [&str; 4] = ["match", "id", "timeout", "onError"];

/// A fixture matcher as a value (`{ "regex": {…} }` is a RegExp).
fn fixture_matcher(m: &Json) -> Value {
    let regex = |r: &Json| Value::Regex { source: r["source"].as_str().unwrap().to_owned(), flags: r["flags"].as_str().unwrap_or_default().to_owned() };
    match m {
        Json::Object(map) if map.contains_key("regex") => regex(&map["regex"]),
        Json::Object(map) => Value::Object(
            map.iter().map(|(key, value)| (key.clone(), value.get("regex").map_or_else(|| json_to_value(value), regex))).collect(),
        ),
        other => json_to_value(other),
    }
}

fn definition(name: &str) -> Definition {
    let name_text = serde_json::to_string(name).unwrap();
    let texts = FieldTexts::from_pairs([("name", name_text.as_str()), ("description", "\"x\"")]).unwrap();
    Definition::new(name, Value::Null, &texts)
}

// ------------------------------------------------------------------ the page

/// One fixture hook as the simulated TS layer holds it.
#[derive(Debug, Clone)]
struct FixtureHook {
    label: String,
    event: Event,
    does: Json,
}

/// An engine configured from a case, with the fixture hook behind each handle.
struct Page {
    engine: Engine,
    hooks: HashMap<u32, FixtureHook>,
    next: u32,
}

impl Page {
    fn new(case: &Json) -> Page {
        let mut engine = Engine::new();
        if let Some(server) = case.pointer("/config/serverId").and_then(Json::as_str) {
            engine.set_server_id(server);
        }
        if case.pointer("/config/hookReturns").and_then(Json::as_str) == Some("strict") {
            engine.set_contract(Contract::Strict);
        }
        Page { engine, hooks: HashMap::new(), next: 0 }
    }

    fn handle(&mut self) -> u32 {
        self.next += 1;
        self.next
    }

    /// Compiles one fixture hook set, remembering which fixture hook each handle stands for.
    fn compile(&mut self, set: &Json, label: &str) -> u32 {
        let mut events = webmcp_warden::value::Map::new();
        for event in Event::ALL {
            let Some(entries) = set.get(event.name()).and_then(Json::as_array) else { continue };
            let mut described = Vec::new();
            for hook in entries {
                let handle = self.handle();
                self.hooks.insert(
                    handle,
                    FixtureHook { label: hook["label"].as_str().expect("every fixture hook has a label").to_owned(), event, does: hook.get("do").cloned().unwrap_or(json!("nothing")) },
                );
                let object_form = hook.get("form").and_then(Json::as_str) == Some("object") || OPTION_KEYS.iter().any(|key| hook.get(key).is_some());
                if !object_form {
                    described.push(Value::Function(handle));
                    continue;
                }
                let mut entry = webmcp_warden::value::Map::new();
                entry.insert("run", Value::Function(handle));
                for key in OPTION_KEYS {
                    if let Some(value) = hook.get(key) {
                        entry.insert(key, if key == "match" { fixture_matcher(value) } else { json_to_value(value) });
                    }
                }
                described.push(Value::Object(entry));
            }
            events.insert(event.name(), Value::Array(described));
        }
        let id = self.handle();
        self.engine.define_hook_set(id, &Value::Object(events), label).unwrap_or_else(|err| panic!("fixture hook set does not compile: {err}"));
        id
    }

    fn add_globals(&mut self, case: &Json) {
        for set in case.get("global").and_then(Json::as_array).into_iter().flatten() {
            let id = self.compile(set, "hooks");
            self.engine.add_global(id, false, "hooks").unwrap_or_else(|err| panic!("global hooks refused: {err}"));
        }
    }

    fn define_tool(&mut self, tool: &Json) -> u32 {
        let name = tool["name"].as_str().unwrap();
        let label = format!("tool \"{name}\" hooks");
        let sets: Vec<u32> = tool.get("hooks").and_then(Json::as_array).into_iter().flatten().map(|set| self.compile(set, &label)).collect();
        let server = tool.get("server").and_then(Json::as_str).map(str::to_owned);
        let id = self.handle();
        self.engine.define_tool(id, definition(name), server, sets, &label).unwrap_or_else(|err| panic!("tool refused: {err}"));
        id
    }
}

/// `normalizeResult(value).content[0].text` for the values fixtures use. Objects print with
/// sorted keys here (serde_json), so fixtures write object keys in sorted order.
fn normalized_text(value: &Json) -> String {
    match value {
        Json::Null => String::new(),
        Json::String(text) if text == "$undefined" => String::new(),
        Json::String(text) => text.clone(),
        Json::Number(n) => n.to_string(),
        Json::Bool(b) => b.to_string(),
        Json::Object(map) if map.get("content").is_some_and(Json::is_array) => value.pointer("/content/0/text").and_then(Json::as_str).unwrap_or_default().to_owned(),
        other => serde_json::to_string_pretty(other).unwrap(),
    }
}

// ------------------------------------------------------------------ running a call

/// What a simulated call ended with, in the shape `invokeTool` answers.
#[derive(Debug)]
struct Ran {
    order: Vec<String>,
    ok: bool,
    text: String,
    error: Option<Json>,
    tool_input: Option<Json>,
    seen: HashMap<String, Json>,
    /// The ids of the hooks whose return the core judged a bad return, in order.
    bad_returns: Vec<String>,
    /// The ctx each error hook got, in order.
    error_ctxs: Vec<Json>,
    /// What the call ended with (`Engine::end`), as JSON.
    ended: Json,
}

/// What a fixture hook does, as the TS layer would report it: the outcome, the value it
/// returned (kept here), and whether it aborted the call's signal.
fn perform(does: &Json, label: &str) -> (StepReport, Option<Json>, bool) {
    match does {
        Json::String(does) => match does.as_str() {
            "nothing" => (StepReport::Returned, None, false),
            "throw" | "reject" => (StepReport::Raised, Some(json!(format!("SECRET-{label}"))), false),
            "hang" => (StepReport::TimedOut, None, false),
            "abort" => (StepReport::Returned, None, true),
            "abortAndHang" => (StepReport::Aborted, None, true),
            other => panic!("unknown hook behaviour {other}"),
        },
        Json::Object(does) => (StepReport::Returned, Some(does.get("return").or_else(|| does.get("resolve")).expect("return or resolve").clone()), false),
        other => panic!("unknown hook behaviour {other}"),
    }
}

/// The value a fixture return stands for, `undefined` when the hook returned nothing; the
/// string `"$undefined"` inside it is `undefined` too.
fn returned_value(value: Option<&Json>) -> Value {
    fn convert(json: &Json) -> Value {
        match json {
            Json::String(text) if text == "$undefined" => Value::Unsupported("undefined".into()),
            Json::Array(items) => Value::Array(items.iter().map(convert).collect()),
            Json::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), convert(v))).collect()),
            other => json_to_value(other),
        }
    }
    value.map_or_else(|| Value::Unsupported("undefined".into()), convert)
}

/// The payload the TS layer sends with a returned value: a deny's message and code.
fn deny_payload(value: &Json) -> Value {
    let mut map = webmcp_warden::value::Map::new();
    for key in ["message", "code"] {
        if let Some(Json::String(text)) = value.get(key) {
            map.insert(key, Value::from(text.as_str()));
        }
    }
    Value::Object(map)
}

/// Runs a call case: configure, plan, then the step loop of the TS layer.
fn run_call(case: &Json) -> Ran {
    let mut page = Page::new(case);
    let tool_first = case.get("toolFirst").and_then(Json::as_bool).unwrap_or(false);
    if !tool_first {
        page.add_globals(case);
    }
    let tool = page.define_tool(&case["tool"]);
    if tool_first {
        page.add_globals(case);
    }
    let mut scope = 0;
    for set in case.get("scoped").and_then(Json::as_array).into_iter().flatten() {
        let id = page.compile(set, "provider hooks");
        let next = page.handle();
        page.engine.define_scope(next, scope, Some(id), "provider hooks").unwrap();
        scope = next;
    }
    let call = page.engine.begin(tool, scope, CallFlags(CallFlags::OBSERVED)).unwrap_or_else(|err| panic!("no plan: {err}"));

    let mut input = case.get("input").cloned().unwrap_or(json!({ "q": 1 }));
    let mut output = Json::Null;
    let mut signal = if case.get("abortBefore").and_then(Json::as_bool).unwrap_or(false) { Signal::Aborted } else { Signal::Live };
    let mut thrown: Option<Json> = None;
    let mut call_error: Option<Json> = None;
    let mut order = Vec::new();
    let mut seen = HashMap::new();
    let mut bad_returns = Vec::new();
    let mut error_ctxs = Vec::new();
    let mut tool_input = None;
    let mut pending: Option<Json> = None;
    let mut pending_event = Event::Before;

    let mut action = page.engine.step(call, StepReport::Start, ReturnFacts::default(), &Value::Null, signal, 0.0).unwrap();
    let mut steps = 0;
    loop {
        steps += 1;
        assert!(steps < 1000, "the call does not end");
        if action.accepted {
            let value = pending.take().expect("the core accepted a value no hook returned");
            match action.verdict {
                Verdict::Rewrite if pending_event == Event::Before => input = value["input"].clone(),
                Verdict::Rewrite => output = value["output"].clone(),
                Verdict::Halt | Verdict::Recover => output = value["result"].clone(),
                Verdict::Deny => {}
                other => panic!("the core accepted a {other:?}"),
            }
        }
        if action.failed_now {
            // What the failing step threw is the call's error; else the core's failure.
            call_error = Some(match thrown.take() {
                Some(thrown) => json!({ "kind": "thrown", "message": thrown }),
                None => {
                    let error = page.engine.call(call).and_then(|c| c.error()).cloned().expect("a failed call has an error");
                    json!({ "kind": error.kind, "message": error.message })
                }
            });
        }
        thrown = None;
        pending = None;
        action = match action.op {
            Op::CallHook => {
                let hook = page.hooks.get(&action.handle).unwrap_or_else(|| panic!("the core named an unknown handle {}", action.handle)).clone();
                order.push(hook.label.clone());
                let mut ctx = json!({ "input": input.clone() });
                match hook.event {
                    Event::After => ctx["output"] = output.clone(),
                    Event::Error => ctx["error"] = call_error.clone().unwrap_or(Json::Null),
                    Event::Denied => {
                        let error = page.engine.call(call).and_then(|c| c.error()).cloned().expect("a denial");
                        ctx["reason"] = json!(error.message);
                        ctx["code"] = json!(error.code.clone().unwrap_or_else(|| error.reason.to_owned()));
                    }
                    _ => {}
                }
                if hook.event == Event::Error {
                    error_ctxs.push(ctx.clone());
                }
                seen.insert(hook.label.clone(), ctx);
                let (outcome, value, aborts) = perform(&hook.does, &hook.label);
                if aborts {
                    signal = Signal::Aborted;
                }
                let facts = if outcome == StepReport::Returned { ReturnFacts::of(&returned_value(value.as_ref())) } else { ReturnFacts::default() };
                let payload = value.as_ref().map_or(Value::Null, deny_payload);
                if outcome == StepReport::Raised {
                    thrown = value.clone();
                }
                pending = value;
                pending_event = hook.event;
                let next = page.engine.step(call, outcome, facts, &payload, signal, 1.0).unwrap();
                if outcome == StepReport::Returned && next.verdict == Verdict::Failed {
                    bad_returns.push(page.engine.call(call).and_then(|c| c.last_hook_id()).expect("a judged hook has an id").to_owned());
                }
                next
            }
            Op::RunTool => {
                order.push("tool".to_owned());
                tool_input = Some(input.clone());
                let does = case.get("toolDoes").cloned().unwrap_or(json!("echo"));
                let (outcome, payload) = if does == "echo" {
                    output = input.clone();
                    (StepReport::ToolReturned, Value::Null)
                } else if does == "abortAndHang" {
                    signal = Signal::Aborted;
                    (StepReport::Aborted, Value::Null)
                } else if let Some(value) = does.get("return") {
                    output = value.clone();
                    (StepReport::ToolReturned, Value::Null)
                } else if let Some(message) = does.get("throw").or_else(|| does.get("reject")).and_then(Json::as_str) {
                    thrown = Some(json!(message));
                    (StepReport::ToolThrew, webmcp_warden::object! { "message" => message })
                } else {
                    panic!("unknown tool behaviour {does}")
                };
                page.engine.step(call, outcome, ReturnFacts::default(), &payload, signal, 1.0).unwrap()
            }
            Op::FinishOk | Op::FinishError => {
                let ended = common::value_to_json(&page.engine.end(call).expect("the call ends once"));
                assert_eq!(page.engine.counts()[5], 0, "end frees the call");
                let ok = ended["ok"] == json!(true);
                assert_eq!(ok, action.op == Op::FinishOk, "the op and the outcome agree");
                let text = if ok { normalized_text(&output) } else { ended["text"].as_str().unwrap().to_owned() };
                let error = ended.get("error").cloned();
                let record = ended.get("record").and_then(Json::as_array).cloned().unwrap_or_default();
                assert!(!record.is_empty() || order.is_empty(), "an observed call keeps its record");
                return Ran { order, ok, text, error, tool_input, seen, bad_returns, error_ctxs, ended };
            }
            other => panic!("unexpected governance step {other:?} in a hooks-only call"),
        };
    }
}

fn check_call(case: &Json) -> Result<(), String> {
    let ran = run_call(case);
    let expect = &case["expect"];
    let mut problems = Vec::new();
    let order: Vec<Json> = ran.order.iter().map(|l| json!(l)).collect();
    if Json::Array(order) != expect["order"] {
        problems.push(format!("order {:?}, expected {}", ran.order, expect["order"]));
    }
    if json!(ran.ok) != expect["ok"] {
        problems.push(format!("ok {}, expected {}", ran.ok, expect["ok"]));
    }
    if json!(ran.text) != expect["text"] {
        problems.push(format!("text {:?}, expected {}", ran.text, expect["text"]));
    }
    match (&ran.error, expect.get("error")) {
        (None, None) => {}
        (Some(got), Some(want)) if got == want => {}
        (got, want) => problems.push(format!("error {got:?}, expected {want:?}")),
    }
    if let Some(want) = expect.get("toolInput") {
        if ran.tool_input.as_ref() != Some(want) {
            problems.push(format!("tool input {:?}, expected {want}", ran.tool_input));
        }
    }
    for (label, want) in expect.get("seen").and_then(Json::as_object).into_iter().flatten() {
        let Some(got) = ran.seen.get(label) else {
            problems.push(format!("hook {label} did not run, so saw nothing"));
            continue;
        };
        for (key, value) in want.as_object().unwrap() {
            if got.get(key) != Some(value) {
                problems.push(format!("{label} saw {key} = {:?}, expected {value}", got.get(key)));
            }
        }
    }
    if let Some(want) = expect.get("badReturns") {
        if json!(ran.bad_returns) != *want {
            problems.push(format!("bad returns {:?}, expected {want}", ran.bad_returns));
        }
    }
    // Neither the outcome (text, error, decision record) nor an error hook's ctx holds what
    // must stay withheld.
    for absent in expect.get("absent").and_then(Json::as_array).into_iter().flatten() {
        let absent = absent.as_str().unwrap();
        if ran.text.contains(absent) || ran.ended.to_string().contains(absent) {
            problems.push(format!("{absent} leaked into the outcome"));
        }
        if let Some(ctx) = ran.error_ctxs.iter().find(|ctx| ctx.to_string().contains(absent)) {
            problems.push(format!("{absent} reached an error hook: {ctx}"));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

// ------------------------------------------------------------------ resources and prompts

/// Runs a resource or prompt case (`subjects.json`): the same machine, its gate event in place
/// of the before-hooks, the read or the get in place of the tool.
fn run_subject(case: &Json) -> Ran {
    let mut page = Page::new(case);
    page.add_globals(case);
    let (subject, spec, what) = match case["kind"].as_str().unwrap() {
        "resource" => (Subject::Resource, &case["resource"], "read"),
        "prompt" => (Subject::Prompt, &case["prompt"], "get"),
        other => panic!("unknown subject kind {other}"),
    };
    let name = spec.get("uri").or_else(|| spec.get("name")).and_then(Json::as_str).unwrap();
    let label = format!("{} \"{name}\" hooks", subject.noun());
    let sets: Vec<u32> = spec.get("hooks").and_then(Json::as_array).into_iter().flatten().map(|set| page.compile(set, &label)).collect();
    let server = spec.get("server").and_then(Json::as_str).map(str::to_owned);
    let id = page.handle();
    page.engine.define_subject(id, subject, definition(name), server, sets, &label).unwrap_or_else(|err| panic!("refused: {err}"));
    let mut scope = 0;
    for set in case.get("scoped").and_then(Json::as_array).into_iter().flatten() {
        let set = page.compile(set, "provider hooks");
        let next = page.handle();
        page.engine.define_scope(next, scope, Some(set), "provider hooks").unwrap();
        scope = next;
    }
    let target = case.get("read").and_then(Json::as_str);
    let call = page.engine.begin_at(id, scope, CallFlags(CallFlags::OBSERVED), target).unwrap_or_else(|err| panic!("no plan: {err}"));
    let mut args = case.get("args").cloned().unwrap_or(json!({}));
    let mut signal = Signal::Live;
    let mut order = Vec::new();
    let mut seen = HashMap::new();
    let mut got = None;
    let mut pending: Option<Json> = None;
    let mut action = page.engine.step(call, StepReport::Start, ReturnFacts::default(), &Value::Null, signal, 0.0).unwrap();
    for _ in 0..1000 {
        if action.accepted {
            let value = pending.take().expect("the core accepted a value no hook returned");
            match action.verdict {
                Verdict::Rewrite => args = value["args"].clone(),
                Verdict::Deny => {}
                other => panic!("the core accepted a {other:?} for a {}", subject.noun()),
            }
        }
        pending = None;
        action = match action.op {
            Op::CallHook => {
                let hook = page.hooks[&action.handle].clone();
                assert_eq!(hook.event, subject.gate(), "only the gate event runs");
                order.push(hook.label.clone());
                seen.insert(hook.label.clone(), json!({ "args": args.clone() }));
                let (outcome, value, aborts) = perform(&hook.does, &hook.label);
                if aborts {
                    signal = Signal::Aborted;
                }
                let facts = if outcome == StepReport::Returned { ReturnFacts::of(&returned_value(value.as_ref())) } else { ReturnFacts::default() };
                let payload = value.as_ref().map_or(Value::Null, deny_payload);
                pending = value;
                page.engine.step(call, outcome, facts, &payload, signal, 1.0).unwrap()
            }
            Op::RunTool => {
                order.push(what.to_owned());
                got = Some(args.clone());
                let (outcome, payload) = match case.get("subjectDoes").and_then(|d| d.get("throw")).and_then(Json::as_str) {
                    Some(message) => (StepReport::ToolThrew, webmcp_warden::object! { "message" => message }),
                    None => (StepReport::ToolReturned, Value::Null),
                };
                page.engine.step(call, outcome, ReturnFacts::default(), &payload, signal, 1.0).unwrap()
            }
            Op::FinishOk | Op::FinishError => {
                let ended = common::value_to_json(&page.engine.end(call).expect("the call ends once"));
                let ok = ended["ok"] == json!(true);
                let text = ended.get("text").and_then(Json::as_str).unwrap_or_default().to_owned();
                return Ran { order, ok, text, error: ended.get("error").cloned(), tool_input: got, seen, bad_returns: Vec::new(), error_ctxs: Vec::new(), ended };
            }
            other => panic!("unexpected step {other:?} in a hooks-only {}", subject.noun()),
        };
    }
    panic!("the call does not end");
}

fn check_subject(case: &Json) -> Result<(), String> {
    let ran = run_subject(case);
    let expect = &case["expect"];
    let mut problems = Vec::new();
    if json!(ran.order) != expect["order"] {
        problems.push(format!("order {:?}, expected {}", ran.order, expect["order"]));
    }
    if json!(ran.ok) != expect["ok"] {
        problems.push(format!("ok {}, expected {}", ran.ok, expect["ok"]));
    }
    if let Some(text) = expect.get("text") {
        if json!(ran.text) != *text {
            problems.push(format!("text {:?}, expected {text}", ran.text));
        }
    }
    if ran.error.as_ref() != expect.get("error") {
        problems.push(format!("error {:?}, expected {:?}", ran.error, expect.get("error")));
    }
    if let Some(args) = expect.get("args") {
        if ran.tool_input.as_ref() != Some(args) {
            problems.push(format!("the get received {:?}, expected {args}", ran.tool_input));
        }
    }
    for (label, want) in expect.get("seen").and_then(Json::as_object).into_iter().flatten() {
        if ran.seen.get(label) != Some(want) {
            problems.push(format!("{label} saw {:?}, expected {want}", ran.seen.get(label)));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

#[test]
fn subject_fixtures() {
    let mut failures = Vec::new();
    let all = cases(SUBJECTS);
    for case in &all {
        if let Err(problem) = check_subject(case) {
            failures.push(format!("subjects.json: {}: {problem}", case["name"].as_str().unwrap()));
        }
    }
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), all.len(), failures.join("\n"));
}

// ------------------------------------------------------------------ listings

fn run_listing(case: &Json) -> Result<(), String> {
    let mut page = Page::new(case);
    page.add_globals(case);
    let specs = case["tools"].as_array().unwrap();
    let tools: Vec<(u32, u32)> = specs.iter().map(|tool| (page.define_tool(tool), 0)).collect();
    let names: Vec<String> = specs.iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect();
    let mut annotations: Map<String, Json> = Map::new();
    let mut order = Vec::new();
    let listing = page.engine.begin_listing(&tools).unwrap();
    let mut action = page.engine.listing_step(listing, StepReport::Start, ReturnFacts::default(), &Value::Null, 0.0).unwrap();
    let mut failed: Option<String> = None;
    loop {
        match action.op {
            Op::CallHook => {
                let hook = page.hooks[&action.handle].clone();
                assert_eq!(hook.event, Event::ToolsListed);
                order.push(hook.label.clone());
                let given: Vec<String> = page.engine.listing(listing).unwrap().given().iter().map(|i| names[*i as usize].clone()).collect();
                let id = page.engine.listing(listing).unwrap().current_hook_id().unwrap().to_owned();
                // What the hook answered (None: `undefined`), or an outcome other than a return.
                let (outcome, returned): (StepReport, Option<Json>) = match &hook.does {
                    Json::String(s) if s == "nothing" => (StepReport::Returned, None),
                    Json::String(s) if s == "hang" => (StepReport::TimedOut, None),
                    Json::String(_) => (StepReport::Raised, None),
                    Json::Object(does) => {
                        if let Some(keep) = does.get("keep").and_then(Json::as_array) {
                            (StepReport::Returned, Some(json!(given.iter().filter(|n| keep.contains(&json!(n))).map(|n| json!({ "name": n })).collect::<Vec<_>>())))
                        } else if let Some(extra) = does.get("annotate") {
                            for name in &given {
                                annotations.insert(name.clone(), extra.clone());
                            }
                            (StepReport::Returned, Some(json!(given.iter().map(|n| json!({ "name": n })).collect::<Vec<_>>())))
                        } else {
                            (StepReport::Returned, Some(does.get("return").or_else(|| does.get("resolve")).unwrap().clone()))
                        }
                    }
                    other => panic!("unknown behaviour {other}"),
                };
                let value = returned_value(returned.as_ref());
                let facts = if outcome == StepReport::Returned { ReturnFacts::of(&value) } else { ReturnFacts::default() };
                // The TS layer reports the names of what an array holds (`name` of each object).
                let payload = match &returned {
                    Some(Json::Array(items)) => webmcp_warden::object! { "names" => Value::Array(items.iter().map(|item| item.get("name").map_or(Value::Null, json_to_value)).collect()) },
                    _ => Value::Null,
                };
                action = page.engine.listing_step(listing, outcome, facts, &payload, 1.0).unwrap();
                if action.op == Op::FinishError {
                    failed = Some(id);
                }
            }
            Op::FinishOk | Op::FinishError => break,
            other => panic!("unexpected op {other:?} in a listing"),
        }
    }
    let ended = common::value_to_json(&page.engine.end_listing(listing).unwrap());
    let listed: Vec<String> = ended.get("listed").and_then(Json::as_array).into_iter().flatten().map(|i| names[i.as_u64().unwrap() as usize].clone()).collect();
    let expect = &case["expect"];
    let mut problems = Vec::new();
    if json!(order) != expect["order"] {
        problems.push(format!("order {order:?}, expected {}", expect["order"]));
    }
    match (&failed, expect.get("fails")) {
        (Some(id), Some(want)) if json!(id) == *want => {
            if ended["error"]["hookId"] != *want {
                problems.push(format!("the listing's error names {}, expected {want}", ended["error"]["hookId"]));
            }
        }
        (None, None) => {
            if json!(listed) != expect["names"] {
                problems.push(format!("names {listed:?}, expected {}", expect["names"]));
            }
            if let Some(want) = expect.get("annotations") {
                if Json::Object(annotations) != *want {
                    problems.push("annotations differ".to_owned());
                }
            }
        }
        (got, want) => problems.push(format!("listing failed with {got:?}, expected {want:?}")),
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

// ------------------------------------------------------------------ drivers

fn check_all(file: &str, text: &str) {
    let mut failures = Vec::new();
    let all = cases(text);
    for case in &all {
        let name = case["name"].as_str().unwrap();
        let result = if case.get("kind").and_then(Json::as_str) == Some("listing") { run_listing(case) } else { check_call(case) };
        if let Err(problem) = result {
            failures.push(format!("{file}: {name}: {problem}"));
        }
    }
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), all.len(), failures.join("\n"));
}

#[test]
fn order_fixtures() {
    check_all("order.json", ORDER);
}

#[test]
fn returns_fixtures() {
    check_all("returns.json", RETURNS);
}

#[test]
fn failures_fixtures() {
    check_all("failures.json", FAILURES);
}

/// A matcher case as a call case: the matchers as global before- and after-hooks.
fn matcher_call(case: &Json) -> Json {
    let hooks = case["hooks"].as_array().unwrap();
    let after: Vec<Json> = hooks
        .iter()
        .map(|h| {
            let mut h = h.clone();
            h["label"] = json!(format!("{}@after", h["label"].as_str().unwrap()));
            h
        })
        .collect();
    let mut order: Vec<Json> = case["run"].as_array().unwrap().clone();
    order.push(json!("tool"));
    order.extend(case["after"].as_array().unwrap().iter().map(|l| json!(format!("{}@after", l.as_str().unwrap()))));
    json!({
        "name": case["name"],
        "config": case.get("config").cloned().unwrap_or(json!({})),
        "global": [{ "before": hooks, "after": after }],
        "tool": case["tool"],
        "expect": { "order": order, "ok": true, "text": "{\n  \"q\": 1\n}" }
    })
}

#[test]
fn matcher_fixtures() {
    let mut failures = Vec::new();
    for case in cases(MATCHERS) {
        if let Err(problem) = check_call(&matcher_call(&case)) {
            failures.push(format!("{}: {problem}", case["name"]));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Runs a config case against the engine; `Ok` means it was accepted (which is a failure).
fn run_config(case: &Json) -> Result<(), ConfigError> {
    let mut engine = Engine::new();
    let mut next = 0;
    let tool_label = "tool \"cfg\" hooks";
    let mut set = |engine: &mut Engine, hooks: &Json, label: &str| -> Result<u32, ConfigError> {
        let value = template_to_value(hooks, &mut next);
        next += 1;
        engine.define_hook_set(next, &value, label)?;
        Ok(next)
    };
    let hooks = &case["hooks"];
    let first = case.get("first");
    match case["at"].as_str().unwrap() {
        "webmcp" => {
            let id = set(&mut engine, hooks, tool_label)?;
            engine.define_tool(1_000_000, definition("cfg"), None, vec![id], tool_label)?;
        }
        "configure" => {
            let id = set(&mut engine, hooks, "hooks")?;
            engine.add_global(id, false, "hooks")?;
        }
        "configureTwice" => {
            let id = set(&mut engine, first.unwrap(), "hooks")?;
            engine.add_global(id, false, "hooks").expect("the first configure is valid");
            let id = set(&mut engine, hooks, "hooks")?;
            engine.add_global(id, false, "hooks")?;
        }
        "globalThenTool" => {
            let id = set(&mut engine, first.unwrap(), "hooks")?;
            engine.add_global(id, false, "hooks").expect("the global hooks are valid");
            let id = set(&mut engine, hooks, tool_label)?;
            engine.define_tool(1_000_000, definition("cfg"), None, vec![id], tool_label)?;
        }
        "toolThenGlobal" => {
            let id = set(&mut engine, first.unwrap(), tool_label)?;
            engine.define_tool(1_000_000, definition("cfg"), None, vec![id], tool_label).expect("the tool is valid");
            let id = set(&mut engine, hooks, "hooks")?;
            engine.add_global(id, false, "hooks")?;
        }
        "rewrap" => {
            let old = set(&mut engine, first.unwrap(), tool_label)?;
            engine.define_tool(1_000_000, definition("cfg"), None, vec![old], tool_label).expect("the first tool is valid");
            let new = set(&mut engine, hooks, tool_label)?;
            engine.define_tool(1_000_001, definition("cfg"), None, vec![old, new], tool_label)?;
        }
        other => panic!("unknown config case kind {other}"),
    }
    Ok(())
}

#[test]
fn config_fixtures() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for case in cases(CONFIG) {
        if case.get("jsOnly").and_then(Json::as_bool) == Some(true) {
            continue;
        }
        checked += 1;
        let name = case["name"].as_str().unwrap();
        let expect = &case["expect"];
        match run_config(&case) {
            Ok(()) => failures.push(format!("{name}: accepted")),
            Err(err) => {
                if let Some(code) = expect.get("code") {
                    if json!(err.code) != *code {
                        failures.push(format!("{name}: code {}, expected {code}", err.code));
                    }
                }
                if json!(err.path) != expect["path"] {
                    failures.push(format!("{name}: path {:?}, expected {}", err.path, expect["path"]));
                }
                let fragment = expect["message"].as_str().unwrap();
                if !err.message.contains(fragment) || !err.message.starts_with(&format!("{}: ", err.path)) {
                    failures.push(format!("{name}: message {:?} lacks {fragment:?}", err.message));
                }
            }
        }
    }
    assert!(checked > 40, "only {checked} config cases ran");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every fixture case name is unique, so a failure names one case.
#[test]
fn fixture_names_are_unique() {
    for (file, text) in [("order", ORDER), ("returns", RETURNS), ("failures", FAILURES), ("matchers", MATCHERS), ("config", CONFIG), ("subjects", SUBJECTS)] {
        let mut names: Vec<String> = cases(text).iter().map(|c| c["name"].as_str().unwrap().to_owned()).collect();
        let count = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), count, "duplicate case names in {file}.json");
    }
}
