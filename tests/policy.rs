//! Tests for `webmcp_warden::policy`: the shared fixtures, the evaluation protocol, grants,
//! patterns that cannot be tested (fail closed) and the decision's JSON shape.
//!
//! The fixtures are shared with the JS tests:
//!
//! - `fixtures/policy.json`: `[{ name, policy, call, expect }]`. `call` is `{ server, name,
//!   annotations?, principal?, taint?, arguments, fingerprint?: "unchanged" | "new" |
//!   { previous, current, changed }, hasApprover? (default true), liveGrant? (default false),
//!   predicates?: { "<handle>": true | false | "fail" } }`. The decision is the evaluation's,
//!   then, if it asks, settled as the call would before `onAsk`: by a live grant
//!   (`settle_with_grant`), else with no approver (`settle_without_approver`). `expect` is
//!   `{ effect, reason, rule?: { list, index, id? } | null, explanationContains?: string,
//!   denialText?: string, pin?: { previous, current, changed }, askedPredicates?: [handles] }`;
//!   `askedPredicates` defaults to `[]` (no function asked), and every handle asked must be in
//!   `predicates`.
//! - `fixtures/policy-subjects.json`: the same shape plus `subject: "resource" | "prompt" |
//!   "tool"`, decided by the policy's part for that subject (`Policy::for_subject`): the
//!   `resources` or `prompts` section, whose rules match the URI read or the prompt's name.
//! - `fixtures/policy-invalid.json`: `[{ name, policy, expect: { code, path, messageContains? } }]`:
//!   the first error `compile` reports; `lint` must report the same code and path.
//! - `fixtures/policy-lint.json`: `[{ name, policy, expect: [{ code, path, messageContains? }] }]`:
//!   everything `lint` reports, in any order.
//!
//! JS values in fixtures are markers (`{"$fn": n}`, `{"$regex": …}`, `{"$invalid": …}`), read by
//! `support::from_fixture` as the core's function, RegExp and unsupported values.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod support;

use serde_json::{json, Value as Json};
use support::{from_fixture, to_json, v};
use webmcp_warden::policy::{
    lint, settle_with_grant, settle_without_approver, CallFacts, Decision, Effect, EvalStep,
    Evaluation, FingerprintState, Grant, GrantBook, List, Policy, PredicateResult, Reason,
    RevokeFilter, RuleRef,
};
use webmcp_warden::hooks::Subject;
use webmcp_warden::value::Value;

fn load(name: &str) -> Vec<Json> {
    support::load_json(name).as_array().unwrap().clone()
}

/// A fixture's call, owned, so `CallFacts` can borrow from it.
struct Call {
    server: String,
    name: String,
    annotations: Value,
    principal: Option<String>,
    taint: Vec<String>,
    exposed_to: Vec<String>,
    arguments: Value,
    fingerprint: FingerprintState,
    has_approver: bool,
    live_grant: bool,
    predicates: serde_json::Map<String, Json>,
}

impl Call {
    fn from_fixture(call: &Json) -> Call {
        let fingerprint = match call.get("fingerprint") {
            None => FingerprintState::Unchanged,
            Some(Json::String(state)) if state == "unchanged" => FingerprintState::Unchanged,
            Some(Json::String(state)) if state == "new" => FingerprintState::New,
            Some(changed) => FingerprintState::Changed {
                previous: changed["previous"].as_str().unwrap().to_owned(),
                current: changed["current"].as_str().unwrap().to_owned(),
                changed: changed["changed"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|f| f.as_str().unwrap().to_owned())
                    .collect(),
            },
        };
        Call {
            server: call["server"].as_str().unwrap().to_owned(),
            name: call["name"].as_str().unwrap().to_owned(),
            annotations: call.get("annotations").map_or(Value::Null, from_fixture),
            principal: call
                .get("principal")
                .and_then(Json::as_str)
                .map(str::to_owned),
            taint: call
                .get("taint")
                .map(|taint| {
                    taint
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|s| s.as_str().unwrap().to_owned())
                        .collect()
                })
                .unwrap_or_default(),
            exposed_to: call
                .get("exposedTo")
                .map(|origins| origins.as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_owned()).collect())
                .unwrap_or_default(),
            arguments: from_fixture(&call["arguments"]),
            fingerprint,
            has_approver: call
                .get("hasApprover")
                .and_then(Json::as_bool)
                .unwrap_or(true),
            live_grant: call
                .get("liveGrant")
                .and_then(Json::as_bool)
                .unwrap_or(false),
            predicates: call
                .get("predicates")
                .and_then(Json::as_object)
                .cloned()
                .unwrap_or_default(),
        }
    }

    fn facts(&self) -> CallFacts<'_> {
        CallFacts {
            server: &self.server,
            name: &self.name,
            annotations: &self.annotations,
            principal: self.principal.as_deref(),
            taint: &self.taint,
            exposed_to: &self.exposed_to,
            arguments: &self.arguments,
            fingerprint: self.fingerprint.clone(),
            live_grant: self.live_grant,
            pattern_budget: Default::default(),
        }
    }

    /// Runs the evaluation step by step, answering from `predicates`; returns the settled
    /// decision and the handles asked, in order.
    fn run(&self, policy: &Policy) -> Result<(Decision, Vec<u32>), String> {
        let mut evaluation = Evaluation::new(policy, self.facts());
        let mut asked = Vec::new();
        let decision = loop {
            match evaluation.step() {
                EvalStep::Decided(decision) => break decision,
                EvalStep::NeedPredicate { handle, .. } => {
                    if asked.contains(&handle) {
                        return Err(format!("handle {handle} asked twice"));
                    }
                    asked.push(handle);
                    let result = match self.predicates.get(&handle.to_string()) {
                        Some(Json::Bool(true)) => PredicateResult::True,
                        Some(Json::Bool(false)) => PredicateResult::False,
                        Some(Json::String(fail)) if fail == "fail" => PredicateResult::Failed,
                        other => {
                            return Err(format!("handle {handle} asked, fixture answers {other:?}"))
                        }
                    };
                    if !evaluation.predicate_result(handle, result) {
                        return Err(format!("answer for {handle} refused"));
                    }
                }
            }
        };
        let settled = match (decision.effect, self.live_grant, self.has_approver) {
            (Effect::Ask, true, _) => settle_with_grant(&decision, (false, false)),
            (Effect::Ask, false, false) => settle_without_approver(&decision),
            _ => decision,
        };
        Ok((settled, asked))
    }
}

/// Compares one decision fixture; returns what differs.
fn check_decision(case: &Json) -> Vec<String> {
    let policy = match Policy::compile(&from_fixture(&case["policy"])) {
        Ok(policy) => policy,
        Err(error) => return vec![format!("policy does not compile: {error}")],
    };
    let call = Call::from_fixture(&case["call"]);
    // `policy-subjects.json` names what the call is about; `policy.json`'s are tool calls.
    let subject = match case.get("subject").and_then(Json::as_str) {
        None | Some("tool") => Subject::Tool,
        Some("resource") => Subject::Resource,
        Some("prompt") => Subject::Prompt,
        Some(other) => return vec![format!("unknown subject {other}")],
    };
    let (decision, asked) = match call.run(policy.for_subject(subject)) {
        Ok(outcome) => outcome,
        Err(problem) => return vec![problem],
    };
    let expect = &case["expect"];
    let shown = to_json(&decision.to_value());
    let mut problems = Vec::new();
    let mut differs = |what: &str, expected: &Json, actual: &Json| {
        if expected != actual {
            problems.push(format!(
                "{what}: expected {expected}, got {actual} (decision {shown})"
            ));
        }
    };
    differs("effect", &expect["effect"], &shown["effect"]);
    differs("reason", &expect["reason"], &shown["reason"]);
    if let Some(rule) = expect.get("rule") {
        differs("rule", rule, shown.get("rule").unwrap_or(&Json::Null));
    }
    if let Some(pin) = expect.get("pin") {
        differs("pin", pin, shown.get("pin").unwrap_or(&Json::Null));
    }
    let asked_expected = expect
        .get("askedPredicates")
        .cloned()
        .unwrap_or_else(|| json!([]));
    differs("askedPredicates", &asked_expected, &json!(asked));
    if let Some(text) = expect.get("denialText") {
        differs("denialText", text, &json!(decision.denial_text()));
    }
    if let Some(part) = expect.get("explanationContains").and_then(Json::as_str) {
        if !decision.explanation.contains(part) {
            problems.push(format!(
                "explanation {:?} lacks {part:?}",
                decision.explanation
            ));
        }
    }
    problems
}

#[test]
fn decision_fixtures() {
    let cases = load("policy.json");
    assert!(cases.len() >= 100, "only {} decision fixtures", cases.len());
    let failures: Vec<String> = cases
        .iter()
        .flat_map(|case| {
            let name = case["name"].as_str().unwrap().to_owned();
            check_decision(case)
                .into_iter()
                .map(move |problem| format!("{name}: {problem}"))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} problem(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn subject_fixtures() {
    let cases = load("policy-subjects.json");
    assert!(cases.len() >= 15, "only {} subject fixtures", cases.len());
    let failures: Vec<String> = cases
        .iter()
        .flat_map(|case| {
            let name = case["name"].as_str().unwrap().to_owned();
            check_decision(case).into_iter().map(move |problem| format!("{name}: {problem}"))
        })
        .collect();
    assert!(failures.is_empty(), "{} problem(s):\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn invalid_fixtures() {
    let mut failures = Vec::new();
    for case in load("policy-invalid.json") {
        let name = case["name"].as_str().unwrap();
        let expect = &case["expect"];
        let policy = from_fixture(&case["policy"]);
        match Policy::compile(&policy) {
            Ok(_) => failures.push(format!("{name}: compiled")),
            Err(error) => {
                if error.code != expect["code"] || error.path != expect["path"] {
                    failures.push(format!(
                        "{name}: expected {} at {:?}, got {} at {:?} ({})",
                        expect["code"], expect["path"], error.code, error.path, error.message
                    ));
                }
                if let Some(part) = expect.get("messageContains").and_then(Json::as_str) {
                    if !error.message.contains(part) {
                        failures.push(format!(
                            "{name}: message {:?} lacks {part:?}",
                            error.message
                        ));
                    }
                }
                // The message starts with the path, so a thrown ConfigurationError names the place.
                if !error.path.is_empty()
                    && !error.message.starts_with(&format!("{}: ", error.path))
                {
                    failures.push(format!(
                        "{name}: message {:?} does not start with its path",
                        error.message
                    ));
                }
                let linted = lint(&policy);
                if !linted
                    .iter()
                    .any(|d| d.code == error.code && d.path == error.path)
                {
                    failures.push(format!("{name}: lint does not report it: {linted:?}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn lint_fixtures() {
    let mut failures = Vec::new();
    for case in load("policy-lint.json") {
        let name = case["name"].as_str().unwrap();
        let found = lint(&from_fixture(&case["policy"]));
        let mut actual: Vec<(String, String)> = found
            .iter()
            .map(|d| (d.code.to_owned(), d.path.clone()))
            .collect();
        let mut expected: Vec<(String, String)> = case["expect"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                (
                    d["code"].as_str().unwrap().to_owned(),
                    d["path"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        actual.sort();
        expected.sort();
        if actual != expected {
            failures.push(format!("{name}: expected {expected:?}, got {found:#?}"));
            continue;
        }
        for want in case["expect"].as_array().unwrap() {
            let Some(part) = want.get("messageContains").and_then(Json::as_str) else {
                continue;
            };
            let diagnostic = found
                .iter()
                .find(|d| d.code == want["code"] && d.path == want["path"])
                .unwrap();
            if !diagnostic.message.contains(part) {
                failures.push(format!(
                    "{name}: message {:?} lacks {part:?}",
                    diagnostic.message
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every decision fixture's policy compiles, so lint must not report a compile error for it.
#[test]
fn lint_agrees_with_compile_on_valid_policies() {
    let compile_codes = [
        "invalid_policy",
        "unknown_policy_key",
        "invalid_rule",
        "unknown_rule_key",
        "invalid_matcher",
        "invalid_predicate",
        "unknown_predicate",
        "invalid_pattern",
    ];
    for case in load("policy.json") {
        for diagnostic in lint(&from_fixture(&case["policy"])) {
            assert!(
                !compile_codes.contains(&diagnostic.code),
                "{}: {diagnostic:?}",
                case["name"]
            );
        }
    }
}

// --- the evaluation protocol

fn facts<'a>(server: &'a str, name: &'a str, arguments: &'a Value) -> CallFacts<'a> {
    CallFacts {
        server,
        name,
        annotations: &Value::Null,
        principal: None,
        taint: &[],
        exposed_to: &[],
        arguments,
        fingerprint: FingerprintState::Unchanged,
        live_grant: false,
        pattern_budget: Default::default(),
    }
}

fn compile(policy: Json) -> Policy {
    Policy::compile(&v(policy)).unwrap()
}

#[test]
fn a_pending_request_repeats_until_answered() {
    let policy = compile(json!({ "deny": [{ "match": "*", "when": { "$fn": 9 }, "id": "guard" }] }));
    let args = v(json!({}));
    let mut evaluation = Evaluation::new(&policy, facts("shop", "x", &args));
    let expected = EvalStep::NeedPredicate {
        handle: 9,
        rule: RuleRef::new(List::Deny, 0, Some("guard".into())),
    };
    assert_eq!(evaluation.step(), expected);
    assert_eq!(evaluation.step(), expected);
    // An answer for a handle that was not asked for changes nothing.
    assert!(!evaluation.predicate_result(8, PredicateResult::True));
    assert_eq!(evaluation.step(), expected);
    assert!(evaluation.predicate_result(9, PredicateResult::True));
    // A second answer for the same request is refused too.
    assert!(!evaluation.predicate_result(9, PredicateResult::False));
    let EvalStep::Decided(decision) = evaluation.step() else {
        panic!("not decided")
    };
    assert_eq!(
        (decision.effect, decision.reason),
        (Effect::Deny, Reason::Rule)
    );
    // Once decided, the decision is repeated.
    assert_eq!(evaluation.step(), EvalStep::Decided(decision));
}

#[test]
fn decide_drives_the_evaluation() {
    let policy = compile(json!({
        "deny": [{ "match": "*", "when": [{ "$fn": 1 }, { "$fn": 2 }] }],
        "allow": [{ "match": "*", "when": { "$fn": 2 } }],
    }));
    let args = v(json!({}));
    let mut asked = Vec::new();
    let decision = policy.decide(facts("shop", "x", &args), |handle, rule| {
        asked.push((handle, rule.path()));
        if handle == 1 {
            PredicateResult::True
        } else {
            PredicateResult::False
        }
    });
    assert_eq!(
        asked,
        vec![(1, "deny[0]".to_owned()), (2, "deny[0]".to_owned())]
    );
    assert_eq!(
        (decision.effect, decision.reason),
        (Effect::Ask, Reason::Default)
    );
}

#[test]
fn function_handles_are_listed_once() {
    let policy = compile(json!({
        "deny": [{ "when": [{ "$fn": 3 }, { "$fn": 1 }] }],
        "allow": [{ "when": { "$fn": 3 } }, "*"],
    }));
    assert!(policy.has_function_predicates());
    assert_eq!(policy.function_handles(), vec![3, 1]);
    let plain = compile(json!({ "allow": ["*"] }));
    assert!(!plain.has_function_predicates());
    assert!(plain.function_handles().is_empty());
}

#[test]
fn settings_and_counts() {
    let policy = compile(json!({ "deny": ["a"], "ask": [], "allow": ["b", "c"], "default": "deny", "pin": false, "allowNewTools": "ask" }));
    assert_eq!(policy.default_effect(), Effect::Deny);
    assert_eq!(policy.pin(), None);
    assert_eq!(policy.allow_new_tools(), Some(Effect::Ask));
    assert_eq!(
        [List::Deny, List::Ask, List::Allow].map(|list| policy.rule_count(list)),
        [1, 0, 2]
    );
    let defaults = compile(json!({}));
    assert_eq!(
        (
            defaults.default_effect(),
            defaults.pin(),
            defaults.allow_new_tools()
        ),
        (Effect::Ask, Some(Effect::Ask), None)
    );
}

#[test]
fn predicate_result_codes() {
    assert_eq!(PredicateResult::from_code(0), Some(PredicateResult::False));
    assert_eq!(PredicateResult::from_code(1), Some(PredicateResult::True));
    assert_eq!(PredicateResult::from_code(2), Some(PredicateResult::Failed));
    assert_eq!(PredicateResult::from_code(3), None);
}

// --- matchers and values the wire carries

#[test]
fn any_matches_every_tool_like_star_and_all() {
    let args = v(json!({}));
    for every in ["*", "all", "any"] {
        let policy = compile(json!({ "deny": [{ "match": every, "id": "closed" }], "default": "allow" }));
        for (server, name) in [("shop", "checkout"), ("page", "Any-Tool"), ("x", "y")] {
            let decision = policy.decide(facts(server, name, &args), |_, _| PredicateResult::True);
            assert_eq!(decision.effect, Effect::Deny, "{every} on {server}/{name}");
        }
    }
    // Lint knows 'any' covers everything too.
    let found = lint(&v(json!({ "deny": ["any"], "allow": ["shop/get_item"] })));
    assert_eq!(found.iter().map(|d| (d.code, d.path.as_str())).collect::<Vec<_>>(), [("shadowed_rule", "allow[0]")]);
}

#[test]
fn a_proto_key_is_an_ordinary_member() {
    // JSON.parse makes `__proto__` an own key; the wire carries it as one, and so does the core.
    let policy = compile(json!({ "deny": [{ "when": { "arg": "/__proto__/isAdmin", "equals": true }, "reason": "no smuggling" }], "default": "allow" }));
    let smuggled = support::parse(r#"{"__proto__":{"isAdmin":true},"q":"x"}"#);
    assert_eq!(policy.decide(facts("s", "t", &smuggled), |_, _| PredicateResult::True).effect, Effect::Deny);
    let plain = v(json!({ "q": "x" }));
    assert_eq!(policy.decide(facts("s", "t", &plain), |_, _| PredicateResult::True).effect, Effect::Allow);
    // A policy object holding a `__proto__` key: reported as the unknown key it is.
    let found = lint(&support::parse(r#"{"__proto__":{"deny":["*"]},"allow":["*"]}"#));
    assert_eq!(found.iter().map(|d| (d.code, d.path.as_str())).collect::<Vec<_>>(), [("unknown_policy_key", "__proto__")]);
}

#[test]
fn a_marker_object_names_no_function() {
    // Only the wire's function token is a function: `{ "$fn": 0 }` written as data is an
    // object with an unknown key.
    let mut map = webmcp_warden::value::Map::new();
    map.insert("$fn", Value::Number(0.0));
    let policy = webmcp_warden::object! { "deny" => Value::Array(vec![webmcp_warden::object! { "when" => Value::Object(map) }]) };
    let error = Policy::compile(&policy).unwrap_err();
    assert_eq!((error.code, error.path.as_str()), ("unknown_predicate", "deny[0].when"));
}

// --- the decision as data

#[test]
fn the_decision_as_the_js_api_shows_it() {
    let policy = compile(json!({ "deny": [{ "match": "*", "id": "no", "reason": "closed" }] }));
    let args = v(json!({}));
    let decision = policy.decide(facts("shop", "x", &args), |_, _| PredicateResult::True);
    assert_eq!(
        to_json(&decision.to_value()),
        json!({
            "effect": "deny",
            "reason": "rule",
            "rule": { "list": "deny", "index": 0, "id": "no" },
            "explanation": "Denied by deny[0] (\"no\"): closed."
        })
    );
    assert_eq!(decision.rule_reason.as_deref(), Some("closed"));
    assert_eq!(decision.denial_text(), "Denied: closed");

    let pinned = compile(json!({}));
    let mut call = facts("shop", "search", &args);
    call.fingerprint = FingerprintState::Changed {
        previous: "p".into(),
        current: "c".into(),
        changed: vec!["title".into()],
    };
    assert_eq!(
        to_json(&pinned.decide(call, |_, _| PredicateResult::True).to_value()),
        json!({
            "effect": "ask",
            "reason": "fingerprint_changed",
            "explanation": "The definition of \"search\" changed (title) since it was approved; pin is ask.",
            "pin": { "previous": "p", "current": "c", "changed": ["title"] }
        })
    );
}

#[test]
fn names_are_the_js_apis() {
    let effects = [Effect::Allow, Effect::Ask, Effect::Deny].map(Effect::name);
    assert_eq!(effects, ["allow", "ask", "deny"]);
    let reasons = [
        Reason::Rule,
        Reason::Default,
        Reason::NoRule,
        Reason::FingerprintChanged,
        Reason::NewTool,
        Reason::Grant,
        Reason::NoApprover,
    ]
    .map(Reason::name);
    assert_eq!(reasons, ["rule", "default", "no_rule", "fingerprint_changed", "new_tool", "grant", "no_approver"]);
    for list in List::ALL {
        assert_eq!(list.effect().name(), list.name());
    }
}

#[test]
fn settling_leaves_other_decisions_alone() {
    let policy = compile(json!({ "allow": ["*"] }));
    let args = v(json!({}));
    let allowed = policy.decide(facts("shop", "x", &args), |_, _| PredicateResult::True);
    assert_eq!(settle_without_approver(&allowed), allowed);
    assert_eq!(settle_with_grant(&allowed, (false, false)), allowed);
}

// --- patterns

#[test]
fn a_pathological_pattern_on_a_long_argument_answers() {
    // Natively patterns run on regex-lite (linear time); in the package they run on the page's
    // RegExp, where the length limit below is what bounds an agent's input.
    let policy = compile(json!({ "deny": [{ "match": "*", "when": { "arg": "/q", "matches": "^(a+)+$" } }], "default": "allow" }));
    let hostile = v(json!({ "q": format!("{}!", "a".repeat(50_000)) }));
    let decision = policy.decide(facts("shop", "search", &hostile), |_, _| PredicateResult::True);
    assert_eq!((decision.effect, decision.reason), (Effect::Allow, Reason::Default));
    let matching = v(json!({ "q": "a".repeat(50_000) }));
    let decision = policy.decide(facts("shop", "search", &matching), |_, _| PredicateResult::True);
    assert_eq!(decision.effect, Effect::Deny);
}

#[test]
fn a_string_too_long_to_test_fails_closed() {
    let too_long = v(json!({ "q": "b".repeat(webmcp_warden::pattern::INPUT_LIMIT + 1) }));
    let short = v(json!({ "q": "b" }));
    // Deny: a pattern that cannot test the argument counts as matching, and says so.
    let deny = compile(json!({ "deny": [{ "when": { "arg": "/q", "matches": "^a" }, "id": "no-a" }], "default": "allow" }));
    let decision = deny.decide(facts("s", "t", &too_long), |_, _| PredicateResult::True);
    assert_eq!((decision.effect, decision.reason), (Effect::Deny, Reason::Rule));
    assert!(decision.explanation.contains("failing closed because a pattern could not test the argument"), "{}", decision.explanation);
    assert_eq!(deny.decide(facts("s", "t", &short), |_, _| PredicateResult::True).effect, Effect::Allow);
    // Ask likewise.
    let ask = compile(json!({ "ask": [{ "when": { "arg": "/q", "matches": "^a" } }], "default": "allow" }));
    assert_eq!(ask.decide(facts("s", "t", &too_long), |_, _| PredicateResult::True).effect, Effect::Ask);
    // Allow: it does not match, so the default decides.
    let allow = compile(json!({ "allow": [{ "when": { "arg": "/q", "matches": "^b" } }], "default": "deny" }));
    let decision = allow.decide(facts("s", "t", &too_long), |_, _| PredicateResult::True);
    assert_eq!((decision.effect, decision.reason), (Effect::Deny, Reason::Default));
    assert_eq!(allow.decide(facts("s", "t", &short), |_, _| PredicateResult::True).effect, Effect::Allow);
    // A predicate that is false for sure still wins over one that cannot tell.
    let both = compile(json!({ "deny": [{ "when": [{ "arg": "/q", "matches": "^a" }, { "arg": "/n", "exists": true }] }], "default": "allow" }));
    assert_eq!(both.decide(facts("s", "t", &too_long), |_, _| PredicateResult::True).effect, Effect::Allow);
}

#[test]
fn a_regexp_matcher_that_cannot_test_a_name_fails_closed() {
    let name = "a".repeat(webmcp_warden::pattern::INPUT_LIMIT + 1);
    let args = v(json!({}));
    let deny = compile(json!({ "deny": [{ "$regex": { "source": "^z", "flags": "" } }], "default": "allow" }));
    assert_eq!(deny.decide(facts("s", &name, &args), |_, _| PredicateResult::True).effect, Effect::Deny);
    let allow = compile(json!({ "allow": [{ "$regex": { "source": "^a", "flags": "" } }], "default": "deny" }));
    let decision = allow.decide(facts("s", &name, &args), |_, _| PredicateResult::True);
    assert_eq!((decision.effect, decision.reason), (Effect::Deny, Reason::Default));
}

#[test]
fn an_invalid_pattern_names_the_engines_reason_once() {
    let error = Policy::compile(&v(json!({ "deny": [{ "when": { "arg": "/q", "matches": "(" } }] }))).unwrap_err();
    assert_eq!((error.code, error.path.as_str()), ("invalid_pattern", "deny[0].when"));
    assert!(error.message.starts_with("deny[0].when: `matches` pattern /(/ is not a valid pattern: "), "{}", error.message);
    assert!(!error.message.contains("Invalid regular expression"), "{}", error.message);
}

#[test]
fn deeply_nested_arguments_compare_without_recursion() {
    let mut deep = Value::Number(1.0);
    for _ in 0..20_000 {
        deep = Value::Array(vec![deep]);
    }
    let policy = compile(json!({ "deny": [{ "when": { "arg": "/x", "equals": [[1]] } }], "default": "allow" }));
    let args = webmcp_warden::object! { "x" => deep };
    let decision = policy.decide(facts("shop", "x", &args), |_, _| PredicateResult::True);
    assert_eq!(decision.effect, Effect::Allow);
    // Values drop recursively; leak this one so the test measures only the comparison.
    std::mem::forget(args);
}

// --- grants

const DAY: f64 = 86_400_000.0;

fn grant(principal: Option<&str>, tool: &str, fingerprint: &str, now: f64) -> Grant {
    Grant::new(principal, "shop", tool, fingerprint, now, DAY)
}

fn book(grants: impl IntoIterator<Item = Grant>) -> GrantBook {
    let mut book = GrantBook::new();
    book.load(&Value::Array(grants.into_iter().map(|grant| grant.to_value()).collect()));
    book
}

#[test]
fn a_new_grant_records_when_and_until() {
    let g = Grant::new(Some("alice"), "shop", "checkout", "f1", 1_000.0, DAY);
    assert_eq!(g.principal.as_deref(), Some("alice"));
    assert_eq!(
        (g.server.as_str(), g.tool.as_str(), g.fingerprint.as_str()),
        ("shop", "checkout", "f1")
    );
    assert_eq!((g.granted_at, g.expires_at), (1_000.0, 1_000.0 + DAY));
}

#[test]
fn a_live_grant_needs_the_exact_principal_tool_and_fingerprint() {
    let grants = book([
        grant(Some("alice"), "checkout", "f1", 0.0),
        grant(None, "search", "f9", 0.0),
    ]);
    assert!(grants.live(Some("alice"), "shop", "checkout", "f1", None, 10.0).is_some());
    // Principals are kept apart, and no principal is a principal of its own.
    assert!(grants.live(Some("bob"), "shop", "checkout", "f1", None, 10.0).is_none());
    assert!(grants.live(None, "shop", "checkout", "f1", None, 10.0).is_none());
    assert!(grants.live(None, "shop", "search", "f9", None, 10.0).is_some());
    assert!(grants.live(Some("alice"), "shop", "search", "f9", None, 10.0).is_none());
    // A changed definition is not covered by the grant for the old one.
    assert!(grants.live(Some("alice"), "shop", "checkout", "f2", None, 10.0).is_none());
    assert!(grants.live(Some("alice"), "blog", "checkout", "f1", None, 10.0).is_none());
    assert!(grants.live(Some("alice"), "shop", "Checkout", "f1", None, 10.0).is_none());
}

#[test]
fn expired_grants_are_never_used() {
    let grants = book([grant(Some("alice"), "checkout", "f1", 0.0)]);
    assert!(grants.live(Some("alice"), "shop", "checkout", "f1", None, DAY - 1.0).is_some());
    assert!(grants.live(Some("alice"), "shop", "checkout", "f1", None, DAY).is_none());
    assert!(grants.live(Some("alice"), "shop", "checkout", "f1", None, DAY * 2.0).is_none());
}

#[test]
fn of_two_stored_grants_for_one_key_the_longer_lasting_is_kept() {
    let grants = book([grant(None, "x", "f", 0.0), grant(None, "x", "f", 5_000.0), grant(None, "x", "f", 1_000.0)]);
    assert_eq!(grants.len(), 1);
    assert_eq!(grants.live(None, "shop", "x", "f", None, 10.0).unwrap().granted_at, 5_000.0);
}

#[test]
fn recording_prunes_expired_grants_and_replaces_the_same_one() {
    let mut grants = book([grant(Some("a"), "x", "f", 0.0), grant(Some("b"), "x", "f", 0.0), grant(Some("c"), "y", "f", DAY)]);
    assert_eq!(grants.len(), 3);
    // At DAY the grants of a and b have expired: recording drops them.
    grants.record(grant(Some("c"), "y", "f", DAY + 5.0), DAY);
    assert_eq!(grants.iter().map(|g| (g.principal.clone(), g.granted_at)).collect::<Vec<_>>(), [(Some("c".to_owned()), DAY + 5.0)]);
    // Pruning answers how many it dropped.
    assert_eq!(grants.prune(DAY * 2.0 + 4.0), 0);
    assert_eq!(grants.prune(DAY * 2.0 + 5.0), 1);
    assert!(grants.is_empty());
}

#[test]
fn forgetting_removes_only_that_exact_grant() {
    let kept = grant(None, "x", "f", 0.0);
    let mut grants = book([kept.clone()]);
    assert!(!grants.forget(&grant(None, "x", "f", 1.0)), "another grant for the same key");
    assert!(grants.forget(&kept));
    assert!(grants.is_empty());
}

#[test]
fn revoke_matches_every_given_field() {
    let filter = |value: Json| RevokeFilter::from_value(&v(value));
    let alice = grant(Some("alice"), "checkout", "f1", 0.0);
    let anonymous = grant(None, "checkout", "f1", 0.0);
    assert!(filter(json!({})).unwrap().matches(&alice), "an empty filter revokes all");
    assert!(filter(json!(null)).unwrap().matches(&alice), "so does none");
    assert!(filter(json!({ "principal": "alice" })).unwrap().matches(&alice));
    assert!(!filter(json!({ "principal": "alice" })).unwrap().matches(&anonymous));
    assert!(filter(json!({ "principal": null })).unwrap().matches(&anonymous));
    assert!(!filter(json!({ "principal": null })).unwrap().matches(&alice));
    assert!(filter(json!({ "server": "shop", "tool": "checkout" })).unwrap().matches(&alice));
    assert!(!filter(json!({ "server": "shop", "tool": "search" })).unwrap().matches(&alice));
    assert!(!filter(json!({ "principal": "alice", "server": "blog" })).unwrap().matches(&alice));
    for wrong in [json!({ "principal": 5 }), json!({ "tool": null }), json!({ "server": ["shop"] }), json!("alice"), json!([])] {
        assert_eq!(filter(wrong.clone()), None, "{wrong}: matches nothing");
    }
    let mut grants = book([alice, anonymous, grant(Some("bob"), "search", "f1", 0.0)]);
    assert_eq!(grants.revoke(&filter(json!({ "tool": "checkout" })).unwrap()), 2);
    assert_eq!(grants.len(), 1);
}

#[test]
fn grants_cross_as_the_js_api_shows_them() {
    let g = Grant::new(None, "shop", "checkout", "f1", 1.0, 2.0);
    assert_eq!(
        to_json(&g.to_value()),
        json!({ "principal": null, "server": "shop", "tool": "checkout", "fingerprint": "f1", "expiresAt": 3, "grantedAt": 1, "scope": "tool", "session": false })
    );
    let exact = Grant { args_digest: Some("d".into()), ..g.clone() };
    assert_eq!(
        to_json(&exact.to_value()),
        json!({ "principal": null, "server": "shop", "tool": "checkout", "fingerprint": "f1", "expiresAt": 3, "grantedAt": 1, "scope": "arguments", "argsDigest": "d", "session": false })
    );
    // A stored grant without a principal member reads as one without a principal.
    let read = Grant::from_value(&v(json!({ "server": "shop", "tool": "checkout", "fingerprint": "f1", "expiresAt": 3.0, "grantedAt": 1.0 })));
    assert_eq!(read, Some(g));
}

/// A recorded grant opens the pin for that fingerprint, for its principal only.
#[test]
fn a_recorded_grant_opens_the_pin_for_its_principal_only() {
    let policy = compile(json!({ "allow": ["*"] }));
    let grants = book([Grant::new(Some("alice"), "shop", "search", "new-fp", 0.0, DAY)]);
    let args = v(json!({}));
    for (principal, expected) in [
        (Some("alice"), Effect::Allow),
        (Some("bob"), Effect::Ask),
        (None, Effect::Ask),
    ] {
        let mut call = facts("shop", "search", &args);
        call.principal = principal;
        call.fingerprint = FingerprintState::Changed {
            previous: "old-fp".into(),
            current: "new-fp".into(),
            changed: vec![],
        };
        call.live_grant = grants.live(principal, "shop", "search", "new-fp", None, 1.0).is_some();
        assert_eq!(
            policy.decide(call, |_, _| PredicateResult::True).effect,
            expected,
            "{principal:?}"
        );
    }
}
