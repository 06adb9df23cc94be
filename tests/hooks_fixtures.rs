//! The hook fixtures of `tests/fixtures/hooks/` (issue 3), run against the core directly.
//!
//! The same files drive `pkg-js/test/hooks-fixtures.test.mjs` through the built package; see
//! `tests/fixtures/hooks/README.md` for the format. Here each hook set is described exactly as
//! `describeHooks` in `pkg-js/src/hookset.ts` describes it, compiled by the [`Engine`], and each
//! call is driven through `begin`/`step`/`end` the way `runCall` in `pkg-js/src/pipeline.ts`
//! drives it: a hook's behaviour becomes the `Outcome` `shapeOf` would report, the values stay
//! on this side and take effect only when the core accepts them, aborts are checked before
//! before/after hooks and the tool, and the final text is built as `failed()` builds it. What
//! is asserted: the order in which hooks (and the tool) ran, ok or the error's kind, reason,
//! message, hookId, cause and code, the core-provided text, and what hooks saw.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod support;

use std::collections::HashMap;

use serde_json::{json, Map, Value};
use webmcp_warden::call::{Action, CallError, Outcome};
use webmcp_warden::engine::{is_listed_subset, Engine};
use webmcp_warden::error::ConfigError;
use webmcp_warden::hooks::Event;

const ORDER: &str = include_str!("fixtures/hooks/order.json");
const RETURNS: &str = include_str!("fixtures/hooks/returns.json");
const FAILURES: &str = include_str!("fixtures/hooks/failures.json");
const MATCHERS: &str = include_str!("fixtures/hooks/matchers.json");
const CONFIG: &str = include_str!("fixtures/hooks/config.json");

fn cases(text: &str) -> Vec<Value> {
    let file: Value = serde_json::from_str(text).expect("fixture file is JSON");
    let cases = file["cases"].as_array().expect("fixture file has cases").clone();
    assert!(!cases.is_empty(), "a fixture file without cases tests nothing");
    cases
}

const EVENTS: [Event; 5] = Event::ALL;
const OPTION_KEYS: [&str; 4] = ["match", "id", "timeout", "onError"];

// ------------------------------------------------------------------ describing hooks

/// A fixture matcher in the form the TS layer sends (`describeMatcher`).
fn describe_fixture_matcher(m: &Value) -> Value {
    match m {
        Value::Object(map) if map.contains_key("regex") => json!({ "$regex": map["regex"] }),
        Value::Object(map) => {
            let mut out = Map::new();
            for (key, value) in map {
                let described = match value.get("regex") {
                    Some(regex) => json!({ "$regex": regex }),
                    None => value.clone(),
                };
                out.insert(key.clone(), described);
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

/// Whether a fixture hook becomes `{ run, ...options }` rather than a bare function.
fn is_object_form(hook: &Value) -> bool {
    hook.get("form").and_then(Value::as_str) == Some("object") || OPTION_KEYS.iter().any(|key| hook.get(key).is_some())
}

/// A fixture hook set in the form `describeHooks` sends.
fn describe_fixture_set(set: &Value) -> Value {
    let mut out = Map::new();
    for event in EVENTS {
        let Some(entries) = set.get(event.name()).and_then(Value::as_array) else { continue };
        let described = entries
            .iter()
            .map(|hook| {
                if !is_object_form(hook) {
                    return json!({ "$fn": true });
                }
                let mut keys = vec![json!("run")];
                let mut entry = Map::new();
                entry.insert("$object".into(), json!(true));
                entry.insert("run".into(), json!("function"));
                for key in OPTION_KEYS {
                    if let Some(value) = hook.get(key) {
                        keys.push(json!(key));
                        let value = if key == "match" { describe_fixture_matcher(value) } else { value.clone() };
                        entry.insert(key.into(), value);
                    }
                }
                entry.insert("keys".into(), Value::Array(keys));
                Value::Object(entry)
            })
            .collect();
        out.insert(event.name().into(), Value::Array(described));
    }
    Value::Object(out)
}

/// The JS value a config template stands for, by its `typeName` (`hookset.ts`).
fn template_type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::String(s) if s == "$fn" => "a function",
        Value::String(_) => "a string",
        Value::Number(_) => "a number",
        Value::Bool(_) => "a boolean",
        Value::Array(_) => "an array",
        Value::Object(map) if map.contains_key("$regex") => "a RegExp",
        Value::Object(_) => "an object",
    }
}

/// `typeof` of a template value.
fn template_typeof(value: Option<&Value>) -> &'static str {
    match value {
        None => "undefined",
        Some(Value::String(s)) if s == "$fn" => "function",
        Some(Value::String(_)) => "string",
        Some(Value::Number(_)) => "number",
        Some(Value::Bool(_)) => "boolean",
        Some(_) => "object",
    }
}

fn is_plain_template_object(value: &Value) -> bool {
    matches!(value, Value::Object(map) if !map.contains_key("$regex"))
}

fn template_jsonish(value: &Value) -> Value {
    match value {
        Value::String(s) if s == "$fn" => json!({ "$invalid": "a function" }),
        Value::String(_) | Value::Bool(_) | Value::Null | Value::Number(_) => value.clone(),
        other => json!({ "$invalid": template_type_name(other) }),
    }
}

fn template_matcher(m: &Value) -> Value {
    match m {
        Value::String(s) if s != "$fn" => m.clone(),
        Value::Object(map) if map.contains_key("$regex") => m.clone(),
        Value::Object(map) => {
            let mut out = Map::new();
            for (key, value) in map {
                let described = if value.get("$regex").is_some() { value.clone() } else { template_jsonish(value) };
                out.insert(key.clone(), described);
            }
            Value::Object(out)
        }
        other => json!({ "$invalid": template_type_name(other) }),
    }
}

/// A port of `describeHooks` over a config template (`"$fn"` is a function, `{"$regex"}` a RegExp).
fn describe_template(hooks: &Value) -> Value {
    let Value::Object(events) = hooks else { return json!({ "$invalid": template_type_name(hooks) }) };
    if events.contains_key("$regex") {
        return json!({ "$invalid": "a RegExp" });
    }
    let mut out = Map::new();
    for (key, entries) in events {
        let described = match entries {
            Value::Array(entries) => Value::Array(entries.iter().map(template_entry).collect()),
            other => json!({ "$invalid": template_type_name(other) }),
        };
        out.insert(key.clone(), described);
    }
    Value::Object(out)
}

fn template_entry(entry: &Value) -> Value {
    if entry.as_str() == Some("$fn") {
        return json!({ "$fn": true });
    }
    if !is_plain_template_object(entry) {
        return json!({ "$invalid": template_type_name(entry) });
    }
    let map = entry.as_object().unwrap();
    let mut out = Map::new();
    out.insert("$object".into(), json!(true));
    out.insert("keys".into(), Value::Array(map.keys().map(|k| json!(k)).collect()));
    out.insert("run".into(), json!(template_typeof(map.get("run"))));
    if let Some(m) = map.get("match") {
        out.insert("match".into(), template_matcher(m));
    }
    for key in ["id", "timeout", "onError"] {
        if let Some(value) = map.get(key) {
            out.insert(key.into(), template_jsonish(value));
        }
    }
    Value::Object(out)
}

// ------------------------------------------------------------------ the page

/// One fixture hook as the simulated TS layer holds it.
#[derive(Debug, Clone)]
struct FixtureHook {
    label: String,
    event: Event,
    does: Value,
}

/// An engine configured from a case, with the fixture hook behind each handle.
struct Page {
    engine: Engine,
    hooks: HashMap<u32, FixtureHook>,
}

impl Page {
    fn new(case: &Value) -> Page {
        let mut engine = Engine::new();
        if let Some(server) = case.pointer("/config/serverId").and_then(Value::as_str) {
            engine.set_server_id(server);
        }
        Page { engine, hooks: HashMap::new() }
    }

    /// Compiles one fixture hook set, remembering which fixture hook each handle stands for.
    fn compile(&mut self, set: &Value, label: &str) -> u32 {
        let (id, handles) = self
            .engine
            .compile_hook_set(&describe_fixture_set(set), label)
            .unwrap_or_else(|err| panic!("fixture hook set does not compile: {err}"));
        let fixture_hooks: Vec<FixtureHook> = EVENTS
            .iter()
            .flat_map(|event| {
                set.get(event.name()).and_then(Value::as_array).into_iter().flatten().map(move |hook| FixtureHook {
                    label: hook["label"].as_str().expect("every fixture hook has a label").to_owned(),
                    event: *event,
                    does: hook.get("do").cloned().unwrap_or(json!("nothing")),
                })
            })
            .collect();
        assert_eq!(handles.len(), fixture_hooks.len(), "one handle per hook");
        for (handle, hook) in handles.into_iter().zip(fixture_hooks) {
            self.hooks.insert(handle, hook);
        }
        id
    }

    fn add_globals(&mut self, case: &Value) {
        for set in case.get("global").and_then(Value::as_array).into_iter().flatten() {
            let id = self.compile(set, "hooks");
            self.engine.add_global(id, false, "hooks").unwrap_or_else(|err| panic!("global hooks refused: {err}"));
        }
    }

    fn define_tool(&mut self, tool: &Value) -> u32 {
        let name = tool["name"].as_str().unwrap();
        let label = format!("tool \"{name}\" hooks");
        let sets: Vec<u32> = tool.get("hooks").and_then(Value::as_array).into_iter().flatten().map(|set| self.compile(set, &label)).collect();
        let server = tool.get("server").and_then(Value::as_str).map(str::to_owned);
        self.engine.define_tool(support::definition(&json!({ "name": name, "description": "x" })), server, sets, &label).unwrap_or_else(|err| panic!("tool refused: {err}"))
    }
}

// ------------------------------------------------------------------ what a hook returned

/// `shapeOf` from `pipeline.ts`, over JSON.
fn shape_of(value: &Value) -> Outcome {
    let map = match value {
        Value::Null => return Outcome::Nothing,
        Value::Object(map) => map,
        _ => return Outcome::BadReturn,
    };
    let keys: Vec<&str> = map.keys().map(String::as_str).collect();
    let action = map.get("action").and_then(Value::as_str);
    if map.contains_key("allow") || action == Some("allow") {
        return Outcome::Allow;
    }
    if keys == ["input"] {
        return Outcome::Input;
    }
    if keys == ["output"] {
        return Outcome::Output;
    }
    if action == Some("deny") && keys.iter().all(|k| matches!(*k, "action" | "message" | "code")) {
        let string_or_absent = |key: &str| map.get(key).is_none_or(Value::is_string);
        return if string_or_absent("message") && string_or_absent("code") { Outcome::Deny } else { Outcome::BadReturn };
    }
    if keys.len() == 2 && map.contains_key("result") {
        match action {
            Some("halt") => return Outcome::Halt,
            Some("recover") => return Outcome::Recover,
            _ => {}
        }
    }
    Outcome::BadReturn
}

#[test]
fn shape_of_port_agrees_with_the_returns_table() {
    assert_eq!(shape_of(&Value::Null), Outcome::Nothing);
    assert_eq!(shape_of(&json!({ "input": 1 })), Outcome::Input);
    assert_eq!(shape_of(&json!({ "output": 1 })), Outcome::Output);
    assert_eq!(shape_of(&json!({ "action": "deny" })), Outcome::Deny);
    assert_eq!(shape_of(&json!({ "action": "deny", "message": 1 })), Outcome::BadReturn);
    assert_eq!(shape_of(&json!({ "action": "halt", "result": 1 })), Outcome::Halt);
    assert_eq!(shape_of(&json!({ "action": "recover", "result": 1 })), Outcome::Recover);
    assert_eq!(shape_of(&json!({ "allow": true, "input": 1 })), Outcome::Allow);
    assert_eq!(shape_of(&json!([1])), Outcome::BadReturn);
}

/// `normalizeResult(value).content[0].text` for the values fixtures use. Objects print with
/// sorted keys here (serde_json), so fixtures write object keys in sorted order.
fn normalized_text(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(text) => text.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Object(map) if map.get("content").is_some_and(Value::is_array) => {
            value.pointer("/content/0/text").and_then(Value::as_str).unwrap_or_default().to_owned()
        }
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
    error: Option<Value>,
    tool_input: Option<Value>,
    seen: HashMap<String, Value>,
}

/// Runs a call case: configure, plan, then the step loop of `runCall`.
fn run_call(case: &Value) -> Ran {
    let mut page = Page::new(case);
    let tool_first = case.get("toolFirst").and_then(Value::as_bool).unwrap_or(false);
    if !tool_first {
        page.add_globals(case);
    }
    let tool = page.define_tool(&case["tool"]);
    if tool_first {
        page.add_globals(case);
    }
    let mut scope = 0;
    for set in case.get("scoped").and_then(Value::as_array).into_iter().flatten() {
        let id = page.compile(set, "provider hooks");
        scope = page.engine.add_scope(scope, id, "provider hooks").unwrap();
    }
    let call = page.engine.begin(tool, scope, 0).unwrap_or_else(|err| panic!("no plan: {err}"));

    let mut input = case.get("input").cloned().unwrap_or(json!({ "q": 1 }));
    let mut output = Value::Null;
    let mut deny_message: Option<String> = None;
    let mut deny_code: Option<String> = None;
    let mut thrown: Option<String> = None;
    let mut aborted = case.get("abortBefore").and_then(Value::as_bool).unwrap_or(false);
    let mut failure: Option<Value> = None;
    let mut order = Vec::new();
    let mut seen = HashMap::new();
    let mut tool_input = None;
    let mut pending: Option<(Outcome, Value)> = None;

    let (mut action, mut accepted) = page.engine.step(call, Outcome::Start).unwrap();
    let mut steps = 0;
    loop {
        steps += 1;
        assert!(steps < 1000, "the call does not end");
        if accepted {
            let (shape, value) = pending.take().expect("the core accepted a value no hook returned");
            match shape {
                Outcome::Input => input = value["input"].clone(),
                Outcome::Output => output = value["output"].clone(),
                Outcome::Halt | Outcome::Recover => output = value["result"].clone(),
                Outcome::Deny => {
                    deny_message = value.get("message").and_then(Value::as_str).map(str::to_owned);
                    deny_code = value.get("code").and_then(Value::as_str).map(str::to_owned);
                }
                other => panic!("the core accepted a {other:?}"),
            }
        }
        pending = None;
        let next = match action {
            Action::CallHook { event, handle } => {
                if matches!(event, Event::Before | Event::After) && aborted {
                    page.engine.step(call, Outcome::Aborted)
                } else {
                    let hook = page.hooks.get(&handle).unwrap_or_else(|| panic!("the core named an unknown handle {handle}")).clone();
                    assert_eq!(hook.event, event, "hook {} called for the wrong event", hook.label);
                    order.push(hook.label.clone());
                    let mut ctx = json!({ "input": input.clone() });
                    match event {
                        Event::After => ctx["output"] = output.clone(),
                        Event::Error => {
                            let error = match &thrown {
                                Some(message) => json!({ "kind": "thrown", "message": message }),
                                None => failure
                                    .get_or_insert_with(|| {
                                        let record = page.engine.call(call).and_then(|c| c.error()).cloned().expect("an error hook runs on an error");
                                        json!({ "kind": record.kind, "message": message_of(&record) })
                                    })
                                    .clone(),
                            };
                            ctx["error"] = error;
                        }
                        Event::Denied => {
                            ctx["reason"] = json!(deny_message);
                            ctx["code"] = json!(deny_code);
                        }
                        _ => {}
                    }
                    seen.insert(hook.label.clone(), ctx);
                    let outcome = match &hook.does {
                        Value::String(does) => match does.as_str() {
                            "nothing" => Outcome::Nothing,
                            "throw" | "reject" => Outcome::Raise,
                            "hang" => Outcome::Timeout,
                            "abort" => {
                                aborted = true;
                                Outcome::Nothing
                            }
                            "abortAndHang" => {
                                aborted = true;
                                Outcome::Aborted
                            }
                            other => panic!("unknown hook behaviour {other}"),
                        },
                        Value::Object(does) => {
                            let value = does.get("return").or_else(|| does.get("resolve")).expect("return or resolve").clone();
                            let shape = shape_of(&value);
                            pending = Some((shape, value));
                            shape
                        }
                        other => panic!("unknown hook behaviour {other}"),
                    };
                    page.engine.step(call, outcome)
                }
            }
            Action::RunTool => {
                if aborted {
                    page.engine.step(call, Outcome::Aborted)
                } else {
                    order.push("tool".to_owned());
                    tool_input = Some(input.clone());
                    let does = case.get("toolDoes").cloned().unwrap_or(json!("echo"));
                    let outcome = if does == "echo" {
                        output = input.clone();
                        Outcome::ToolReturned
                    } else if does == "abortAndHang" {
                        aborted = true;
                        Outcome::Aborted
                    } else if let Some(value) = does.get("return") {
                        output = value.clone();
                        Outcome::ToolReturned
                    } else if let Some(message) = does.get("throw").or_else(|| does.get("reject")).and_then(Value::as_str) {
                        thrown = Some(message.to_owned());
                        Outcome::ToolThrew
                    } else {
                        panic!("unknown tool behaviour {does}")
                    };
                    page.engine.step(call, outcome)
                }
            }
            Action::Finish { ok: true } => {
                assert_eq!(page.engine.calls_in_progress(), 0, "a call that finished well is ended by step");
                return Ran { order, ok: true, text: normalized_text(&output), error: None, tool_input, seen };
            }
            Action::Finish { ok: false } => {
                let (record, _decision) = page.engine.end(call).expect("a failed call has an error");
                assert_eq!(page.engine.calls_in_progress(), 0, "end frees the call");
                let (text, message) = match (&record.text, record.kind, &thrown) {
                    (Some(text), _, _) => (text.clone(), strip_prefix(text)),
                    (None, "denied", _) => {
                        let message = deny_message.clone().unwrap_or_else(|| "Tool execution denied".to_owned());
                        (format!("Denied: {message}"), message)
                    }
                    (None, _, Some(thrown)) => (format!("Error: {thrown}"), thrown.clone()),
                    (None, _, None) => (format!("Error: {}", record.reason), record.reason.to_owned()),
                };
                let mut error = json!({ "kind": record.kind, "reason": record.reason, "message": message });
                if let Some(id) = &record.hook_id {
                    error["hookId"] = json!(id);
                }
                if let Some(cause) = record.cause {
                    error["cause"] = json!(cause);
                }
                if let (Some(code), "denied") = (&deny_code, record.kind) {
                    error["code"] = json!(code);
                }
                return Ran { order, ok: false, text, error: Some(error), tool_input, seen };
            }
            // These fixtures configure no schema and no policy (the plan flags are 0), so the
            // governance steps never come up.
            other => panic!("unexpected governance step {other:?} in a hooks-only call"),
        };
        (action, accepted) = next.expect("the call is known");
    }
}

fn strip_prefix(text: &str) -> String {
    text.strip_prefix("Error: ").or_else(|| text.strip_prefix("Denied: ")).unwrap_or(text).to_owned()
}

/// The message an error hook's `ctx.error` carries for a core error (`failureOf`).
fn message_of(record: &CallError) -> String {
    record.text.as_deref().map_or_else(|| record.reason.to_owned(), strip_prefix)
}

fn check_call(case: &Value) -> Result<(), String> {
    let ran = run_call(case);
    let expect = &case["expect"];
    let mut problems = Vec::new();
    let order: Vec<Value> = ran.order.iter().map(|l| json!(l)).collect();
    if Value::Array(order) != expect["order"] {
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
    for (label, want) in expect.get("seen").and_then(Value::as_object).into_iter().flatten() {
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
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

// ------------------------------------------------------------------ listings

fn run_listing(case: &Value) -> Result<(), String> {
    let mut page = Page::new(case);
    page.add_globals(case);
    let specs = case["tools"].as_array().unwrap();
    let tools: Vec<(u32, u32)> = specs.iter().map(|tool| (page.define_tool(tool), 0)).collect();
    let mut names: Vec<String> = specs.iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect();
    let all_names = names.clone();
    let mut annotations: Map<String, Value> = Map::new();
    let mut order = Vec::new();
    let mut failed: Option<String> = None;
    for step in page.engine.list_plan(&tools) {
        let selected: Vec<&String> = step.tools.iter().map(|i| &all_names[*i as usize]).collect();
        let given: Vec<String> = names.iter().filter(|n| selected.contains(n)).cloned().collect();
        if given.is_empty() {
            continue;
        }
        let hook = page.hooks[&step.handle].clone();
        assert_eq!(hook.event, Event::ToolsListed);
        order.push(hook.label.clone());
        // What the hook answered as tool names (None: nothing), or Err: the listing fails.
        let answer: Result<Option<Vec<Value>>, ()> = match &hook.does {
            Value::String(s) if s == "nothing" => Ok(None),
            Value::String(_) => Err(()),
            Value::Object(does) => {
                if let Some(keep) = does.get("keep").and_then(Value::as_array) {
                    Ok(Some(given.iter().filter(|n| keep.contains(&json!(n))).map(|n| json!(n)).collect()))
                } else if let Some(extra) = does.get("annotate") {
                    for name in &given {
                        annotations.insert(name.clone(), extra.clone());
                    }
                    Ok(Some(given.iter().map(|n| json!(n)).collect()))
                } else {
                    match does.get("return").or_else(|| does.get("resolve")).unwrap() {
                        Value::Null => Ok(None),
                        Value::Array(items) => Ok(Some(items.iter().map(|item| item.get("name").cloned().unwrap_or(Value::Null)).collect())),
                        _ => Err(()),
                    }
                }
            }
            other => panic!("unknown behaviour {other}"),
        };
        let returned = match answer {
            Ok(None) => continue,
            Ok(Some(returned)) => returned,
            Err(()) => {
                failed = Some(step.id.clone());
                break;
            }
        };
        let returned_names: Option<Vec<String>> = returned.iter().map(|v| v.as_str().map(str::to_owned)).collect();
        match returned_names {
            Some(returned) if is_listed_subset(&given, &returned) => names.retain(|n| !given.contains(n) || returned.contains(n)),
            _ => {
                failed = Some(step.id.clone());
                break;
            }
        }
    }
    let expect = &case["expect"];
    let mut problems = Vec::new();
    if json!(order) != expect["order"] {
        problems.push(format!("order {order:?}, expected {}", expect["order"]));
    }
    match (&failed, expect.get("fails")) {
        (Some(id), Some(want)) if json!(id) == *want => {}
        (None, None) => {
            if json!(names) != expect["names"] {
                problems.push(format!("names {names:?}, expected {}", expect["names"]));
            }
            if let Some(want) = expect.get("annotations") {
                if Value::Object(annotations) != *want {
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
        let result = if case.get("kind").and_then(Value::as_str) == Some("listing") { run_listing(case) } else { check_call(case) };
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
fn matcher_call(case: &Value) -> Value {
    let hooks = case["hooks"].as_array().unwrap();
    let after: Vec<Value> = hooks
        .iter()
        .map(|h| {
            let mut h = h.clone();
            h["label"] = json!(format!("{}@after", h["label"].as_str().unwrap()));
            h
        })
        .collect();
    let mut order: Vec<Value> = case["run"].as_array().unwrap().clone();
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
fn run_config(case: &Value) -> Result<(), ConfigError> {
    let mut engine = Engine::new();
    let tool_label = "tool \"cfg\" hooks";
    let hooks = describe_template(&case["hooks"]);
    let first = case.get("first").map(describe_template);
    match case["at"].as_str().unwrap() {
        "webmcp" => {
            let (set, _) = engine.compile_hook_set(&hooks, tool_label)?;
            engine.define_tool(support::definition(&json!({ "name": "cfg" })), None, vec![set], tool_label)?;
        }
        "configure" => {
            let (set, _) = engine.compile_hook_set(&hooks, "hooks")?;
            engine.add_global(set, false, "hooks")?;
        }
        "configureTwice" => {
            let (set, _) = engine.compile_hook_set(&first.unwrap(), "hooks")?;
            engine.add_global(set, false, "hooks").expect("the first configure is valid");
            let (set, _) = engine.compile_hook_set(&hooks, "hooks")?;
            engine.add_global(set, false, "hooks")?;
        }
        "globalThenTool" => {
            let (set, _) = engine.compile_hook_set(&first.unwrap(), "hooks")?;
            engine.add_global(set, false, "hooks").expect("the global hooks are valid");
            let (set, _) = engine.compile_hook_set(&hooks, tool_label)?;
            engine.define_tool(support::definition(&json!({ "name": "cfg" })), None, vec![set], tool_label)?;
        }
        "toolThenGlobal" => {
            let (set, _) = engine.compile_hook_set(&first.unwrap(), tool_label)?;
            engine.define_tool(support::definition(&json!({ "name": "cfg" })), None, vec![set], tool_label).expect("the tool is valid");
            let (set, _) = engine.compile_hook_set(&hooks, "hooks")?;
            engine.add_global(set, false, "hooks")?;
        }
        "rewrap" => {
            let (old, _) = engine.compile_hook_set(&first.unwrap(), tool_label)?;
            engine.define_tool(support::definition(&json!({ "name": "cfg" })), None, vec![old], tool_label).expect("the first tool is valid");
            let (new, _) = engine.compile_hook_set(&hooks, tool_label)?;
            engine.define_tool(support::definition(&json!({ "name": "cfg" })), None, vec![old, new], tool_label)?;
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
        if case.get("jsOnly").and_then(Value::as_bool) == Some(true) {
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
                } else {
                    assert!(!err.code.is_empty());
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

/// The description port must send what `describeHooks` sends for the shapes fixtures use.
#[test]
fn template_description_matches_describe_hooks() {
    let described = describe_template(&json!({ "before": ["$fn", { "run": "$fn", "match": { "$regex": { "source": "a", "flags": "i" } }, "id": "x" }], "after": "$fn" }));
    assert_eq!(
        described,
        json!({
            "before": [{ "$fn": true }, { "$object": true, "keys": ["id", "match", "run"], "run": "function", "match": { "$regex": { "source": "a", "flags": "i" } }, "id": "x" }],
            "after": { "$invalid": "a function" }
        })
    );
    let fixture = describe_fixture_set(&json!({ "error": [{ "label": "e", "onError": "ignore", "match": { "server": "fs", "name": { "regex": { "source": "x", "flags": "" } } } }, { "label": "f" }] }));
    assert_eq!(
        fixture,
        json!({ "error": [
            { "$object": true, "keys": ["run", "match", "onError"], "run": "function", "onError": "ignore", "match": { "server": "fs", "name": { "$regex": { "source": "x", "flags": "" } } } },
            { "$fn": true }
        ] })
    );
}

/// Every fixture case name is unique, so a failure names one case.
#[test]
fn fixture_names_are_unique() {
    for (file, text) in [("order", ORDER), ("returns", RETURNS), ("failures", FAILURES), ("matchers", MATCHERS), ("config", CONFIG)] {
        let mut names: Vec<String> = cases(text).iter().map(|c| c["name"].as_str().unwrap().to_owned()).collect();
        let count = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), count, "duplicate case names in {file}.json");
    }
}
