//! Tests for `webmcp_warden::policy`: the shared fixtures, the evaluation protocol, grants,
//! linear-time patterns and the decision's JSON shape.
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
//! - `fixtures/policy-invalid.json`: `[{ name, policy, expect: { code, path, messageContains? } }]`:
//!   the first error `compile` reports; `lint` must report the same code and path.
//! - `fixtures/policy-lint.json`: `[{ name, policy, expect: [{ code, path, messageContains? }] }]`:
//!   everything `lint` reports, in any order.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use serde_json::{json, Value};
use webmcp_warden::policy::{
    grant_matches_revoke, lint, live_grant, new_grant, settle_with_grant, settle_without_approver,
    CallFacts, Decision, Effect, EvalStep, Evaluation, FingerprintState, Grant, List, Policy,
    PredicateResult, Reason, RuleRef,
};

fn load(name: &str) -> Vec<Value> {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{path}: {error}"));
    serde_json::from_str::<Value>(&text)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// A fixture's call, owned, so `CallFacts` can borrow from it.
struct Call {
    server: String,
    name: String,
    annotations: Value,
    principal: Option<String>,
    taint: Vec<String>,
    arguments: Value,
    fingerprint: FingerprintState,
    has_approver: bool,
    live_grant: bool,
    predicates: serde_json::Map<String, Value>,
}

impl Call {
    fn from_fixture(call: &Value) -> Call {
        let fingerprint = match call.get("fingerprint") {
            None => FingerprintState::Unchanged,
            Some(Value::String(state)) if state == "unchanged" => FingerprintState::Unchanged,
            Some(Value::String(state)) if state == "new" => FingerprintState::New,
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
            annotations: call.get("annotations").cloned().unwrap_or(Value::Null),
            principal: call
                .get("principal")
                .and_then(Value::as_str)
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
            arguments: call["arguments"].clone(),
            fingerprint,
            has_approver: call
                .get("hasApprover")
                .and_then(Value::as_bool)
                .unwrap_or(true),
            live_grant: call
                .get("liveGrant")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            predicates: call
                .get("predicates")
                .and_then(Value::as_object)
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
            arguments: &self.arguments,
            fingerprint: self.fingerprint.clone(),
            live_grant: self.live_grant,
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
                        Some(Value::Bool(true)) => PredicateResult::True,
                        Some(Value::Bool(false)) => PredicateResult::False,
                        Some(Value::String(fail)) if fail == "fail" => PredicateResult::Failed,
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
            (Effect::Ask, true, _) => settle_with_grant(&decision),
            (Effect::Ask, false, false) => settle_without_approver(&decision),
            _ => decision,
        };
        Ok((settled, asked))
    }
}

/// Compares one decision fixture; returns what differs.
fn check_decision(case: &Value) -> Vec<String> {
    let policy = match Policy::compile(&case["policy"]) {
        Ok(policy) => policy,
        Err(error) => return vec![format!("policy does not compile: {error}")],
    };
    let call = Call::from_fixture(&case["call"]);
    let (decision, asked) = match call.run(&policy) {
        Ok(outcome) => outcome,
        Err(problem) => return vec![problem],
    };
    let expect = &case["expect"];
    let shown = serde_json::to_value(&decision).unwrap();
    let mut problems = Vec::new();
    let mut differs = |what: &str, expected: &Value, actual: &Value| {
        if expected != actual {
            problems.push(format!(
                "{what}: expected {expected}, got {actual} (decision {shown})"
            ));
        }
    };
    differs("effect", &expect["effect"], &shown["effect"]);
    differs("reason", &expect["reason"], &shown["reason"]);
    if let Some(rule) = expect.get("rule") {
        differs("rule", rule, shown.get("rule").unwrap_or(&Value::Null));
    }
    if let Some(pin) = expect.get("pin") {
        differs("pin", pin, shown.get("pin").unwrap_or(&Value::Null));
    }
    let asked_expected = expect
        .get("askedPredicates")
        .cloned()
        .unwrap_or_else(|| json!([]));
    differs("askedPredicates", &asked_expected, &json!(asked));
    if let Some(text) = expect.get("denialText") {
        differs("denialText", text, &json!(decision.denial_text()));
    }
    if let Some(part) = expect.get("explanationContains").and_then(Value::as_str) {
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
fn invalid_fixtures() {
    let mut failures = Vec::new();
    for case in load("policy-invalid.json") {
        let name = case["name"].as_str().unwrap();
        let expect = &case["expect"];
        match Policy::compile(&case["policy"]) {
            Ok(_) => failures.push(format!("{name}: compiled")),
            Err(error) => {
                if error.code != expect["code"] || error.path != expect["path"] {
                    failures.push(format!(
                        "{name}: expected {} at {:?}, got {} at {:?} ({})",
                        expect["code"], expect["path"], error.code, error.path, error.message
                    ));
                }
                if let Some(part) = expect.get("messageContains").and_then(Value::as_str) {
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
                let linted = lint(&case["policy"]);
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
        let found = lint(&case["policy"]);
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
            let Some(part) = want.get("messageContains").and_then(Value::as_str) else {
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
        for diagnostic in lint(&case["policy"]) {
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
        arguments,
        fingerprint: FingerprintState::Unchanged,
        live_grant: false,
    }
}

#[test]
fn a_pending_request_repeats_until_answered() {
    let policy = Policy::compile(
        &json!({ "deny": [{ "match": "*", "when": { "$fn": 9 }, "id": "guard" }] }),
    )
    .unwrap();
    let args = json!({});
    let mut evaluation = Evaluation::new(&policy, facts("shop", "x", &args));
    let expected = EvalStep::NeedPredicate {
        handle: 9,
        rule: RuleRef {
            list: List::Deny,
            index: 0,
            id: Some("guard".into()),
        },
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
    let policy = Policy::compile(&json!({
        "deny": [{ "match": "*", "when": [{ "$fn": 1 }, { "$fn": 2 }] }],
        "allow": [{ "match": "*", "when": { "$fn": 2 } }],
    }))
    .unwrap();
    let args = json!({});
    let mut asked = Vec::new();
    let decision = policy.decide(facts("shop", "x", &args), |handle, rule| {
        asked.push((handle, rule.to_string()));
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
    let policy = Policy::compile(&json!({
        "deny": [{ "when": [{ "$fn": 3 }, { "$fn": 1 }] }],
        "allow": [{ "when": { "$fn": 3 } }, "*"],
    }))
    .unwrap();
    assert!(policy.has_function_predicates());
    assert_eq!(policy.function_handles(), vec![3, 1]);
    let plain = Policy::compile(&json!({ "allow": ["*"] })).unwrap();
    assert!(!plain.has_function_predicates());
    assert!(plain.function_handles().is_empty());
}

#[test]
fn settings_and_counts() {
    let policy = Policy::compile(&json!({ "deny": ["a"], "ask": [], "allow": ["b", "c"], "default": "deny", "pin": false, "allowNewTools": "ask" })).unwrap();
    assert_eq!(policy.default_effect(), Effect::Deny);
    assert_eq!(policy.pin(), None);
    assert_eq!(policy.allow_new_tools(), Some(Effect::Ask));
    assert_eq!(
        [List::Deny, List::Ask, List::Allow].map(|list| policy.rule_count(list)),
        [1, 0, 2]
    );
    let defaults = Policy::compile(&json!({})).unwrap();
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

// --- the decision as data

#[test]
fn the_decision_serializes_as_the_js_api_shows_it() {
    let policy =
        Policy::compile(&json!({ "deny": [{ "match": "*", "id": "no", "reason": "closed" }] }))
            .unwrap();
    let args = json!({});
    let decision = policy.decide(facts("shop", "x", &args), |_, _| PredicateResult::True);
    assert_eq!(
        serde_json::to_value(&decision).unwrap(),
        json!({
            "effect": "deny",
            "reason": "rule",
            "rule": { "list": "deny", "index": 0, "id": "no" },
            "explanation": "Denied by deny[0] (\"no\"): closed."
        })
    );
    assert_eq!(decision.rule_reason.as_deref(), Some("closed"));
    assert_eq!(decision.denial_text(), "Denied: closed");

    let pinned = Policy::compile(&json!({})).unwrap();
    let mut call = facts("shop", "search", &args);
    call.fingerprint = FingerprintState::Changed {
        previous: "p".into(),
        current: "c".into(),
        changed: vec!["title".into()],
    };
    assert_eq!(
        serde_json::to_value(pinned.decide(call, |_, _| PredicateResult::True)).unwrap(),
        json!({
            "effect": "ask",
            "reason": "fingerprint_changed",
            "explanation": "The definition of \"search\" changed (title) since it was approved; pin is ask.",
            "pin": { "previous": "p", "current": "c", "changed": ["title"] }
        })
    );
}

#[test]
fn names_match_their_serialized_form() {
    for effect in [Effect::Allow, Effect::Ask, Effect::Deny] {
        assert_eq!(serde_json::to_value(effect).unwrap(), json!(effect.name()));
    }
    for reason in [
        Reason::Rule,
        Reason::Default,
        Reason::NoRule,
        Reason::FingerprintChanged,
        Reason::NewTool,
        Reason::Grant,
        Reason::NoApprover,
    ] {
        assert_eq!(serde_json::to_value(reason).unwrap(), json!(reason.name()));
    }
    for list in List::ALL {
        assert_eq!(serde_json::to_value(list).unwrap(), json!(list.name()));
        assert_eq!(list.effect().name(), list.name());
    }
}

#[test]
fn settling_leaves_other_decisions_alone() {
    let policy = Policy::compile(&json!({ "allow": ["*"] })).unwrap();
    let args = json!({});
    let allowed = policy.decide(facts("shop", "x", &args), |_, _| PredicateResult::True);
    assert_eq!(settle_without_approver(&allowed), allowed);
    assert_eq!(settle_with_grant(&allowed), allowed);
}

// --- linear-time patterns

#[test]
fn a_hostile_pattern_runs_in_linear_time() {
    // `^(a+)+$` against "aaaa…a!" takes exponential time in a backtracking engine; this test
    // finishing at all is the assertion.
    let policy = Policy::compile(&json!({ "deny": [{ "match": "*", "when": { "arg": "/q", "matches": "^(a+)+$" } }], "default": "allow" })).unwrap();
    let hostile = format!("{}!", "a".repeat(50_000));
    let args = json!({ "q": hostile });
    let decision = policy.decide(facts("shop", "search", &args), |_, _| PredicateResult::True);
    assert_eq!(
        (decision.effect, decision.reason),
        (Effect::Allow, Reason::Default)
    );
    let matching = json!({ "q": "a".repeat(50_000) });
    let decision = policy.decide(facts("shop", "search", &matching), |_, _| {
        PredicateResult::True
    });
    assert_eq!(decision.effect, Effect::Deny);
}

#[test]
fn deeply_nested_arguments_compare_without_recursion() {
    let mut deep = json!(1);
    for _ in 0..20_000 {
        // `json!` would serialize `deep` again (recursively); build the array directly.
        deep = Value::Array(vec![deep]);
    }
    let policy = Policy::compile(
        &json!({ "deny": [{ "when": { "arg": "/x", "equals": [[1]] } }], "default": "allow" }),
    )
    .unwrap();
    let args = Value::Object([("x".to_owned(), deep)].into_iter().collect());
    let decision = policy.decide(facts("shop", "x", &args), |_, _| PredicateResult::True);
    assert_eq!(decision.effect, Effect::Allow);
    // serde_json drops nested values recursively; leak this one so the test measures only us.
    std::mem::forget(args);
}

// --- grants

const DAY: f64 = 86_400_000.0;

fn grant(principal: Option<&str>, tool: &str, fingerprint: &str, now: f64) -> Grant {
    new_grant(principal, "shop", tool, fingerprint, now, DAY)
}

#[test]
fn new_grant_records_when_and_until() {
    let g = new_grant(Some("alice"), "shop", "checkout", "f1", 1_000.0, DAY);
    assert_eq!(g.principal.as_deref(), Some("alice"));
    assert_eq!(
        (g.server.as_str(), g.tool.as_str(), g.fingerprint.as_str()),
        ("shop", "checkout", "f1")
    );
    assert_eq!((g.granted_at, g.expires_at), (1_000.0, 1_000.0 + DAY));
}

#[test]
fn a_live_grant_needs_the_exact_principal_tool_and_fingerprint() {
    let grants = vec![
        grant(Some("alice"), "checkout", "f1", 0.0),
        grant(None, "search", "f9", 0.0),
    ];
    assert!(live_grant(&grants, Some("alice"), "shop", "checkout", "f1", 10.0).is_some());
    // Principals are kept apart, and no principal is a principal of its own.
    assert!(live_grant(&grants, Some("bob"), "shop", "checkout", "f1", 10.0).is_none());
    assert!(live_grant(&grants, None, "shop", "checkout", "f1", 10.0).is_none());
    assert!(live_grant(&grants, None, "shop", "search", "f9", 10.0).is_some());
    assert!(live_grant(&grants, Some("alice"), "shop", "search", "f9", 10.0).is_none());
    // A changed definition is not covered by the grant for the old one.
    assert!(live_grant(&grants, Some("alice"), "shop", "checkout", "f2", 10.0).is_none());
    assert!(live_grant(&grants, Some("alice"), "blog", "checkout", "f1", 10.0).is_none());
    assert!(live_grant(&grants, Some("alice"), "shop", "Checkout", "f1", 10.0).is_none());
}

#[test]
fn expired_grants_are_never_used() {
    let grants = vec![grant(Some("alice"), "checkout", "f1", 0.0)];
    assert!(live_grant(&grants, Some("alice"), "shop", "checkout", "f1", DAY - 1.0).is_some());
    assert!(live_grant(&grants, Some("alice"), "shop", "checkout", "f1", DAY).is_none());
    assert!(live_grant(&grants, Some("alice"), "shop", "checkout", "f1", DAY * 2.0).is_none());
    let mut unreadable = grants[0].clone();
    unreadable.expires_at = f64::NAN;
    assert!(!unreadable.is_live(0.0));
    assert!(live_grant(&[unreadable], Some("alice"), "shop", "checkout", "f1", 0.0).is_none());
}

#[test]
fn the_longest_lasting_live_grant_is_returned() {
    let grants = vec![
        grant(None, "x", "f", 0.0),
        grant(None, "x", "f", 5_000.0),
        grant(None, "x", "f", 1_000.0),
    ];
    assert_eq!(
        live_grant(&grants, None, "shop", "x", "f", 10.0)
            .unwrap()
            .granted_at,
        5_000.0
    );
}

#[test]
fn revoke_matches_every_given_field() {
    let alice = grant(Some("alice"), "checkout", "f1", 0.0);
    let anonymous = grant(None, "checkout", "f1", 0.0);
    assert!(
        grant_matches_revoke(&alice, None, None, None),
        "an empty filter revokes all"
    );
    assert!(grant_matches_revoke(
        &alice,
        Some(Some("alice")),
        None,
        None
    ));
    assert!(!grant_matches_revoke(
        &anonymous,
        Some(Some("alice")),
        None,
        None
    ));
    assert!(grant_matches_revoke(&anonymous, Some(None), None, None));
    assert!(!grant_matches_revoke(&alice, Some(None), None, None));
    assert!(grant_matches_revoke(
        &alice,
        None,
        Some("shop"),
        Some("checkout")
    ));
    assert!(!grant_matches_revoke(
        &alice,
        None,
        Some("shop"),
        Some("search")
    ));
    assert!(!grant_matches_revoke(
        &alice,
        Some(Some("alice")),
        Some("blog"),
        None
    ));
}

#[test]
fn grants_cross_as_camel_case_json() {
    let g = new_grant(None, "shop", "checkout", "f1", 1.0, 2.0);
    let shown = serde_json::to_value(&g).unwrap();
    assert_eq!(
        shown,
        json!({ "principal": null, "server": "shop", "tool": "checkout", "fingerprint": "f1", "expiresAt": 3.0, "grantedAt": 1.0 })
    );
    let read: Grant = serde_json::from_value(json!({ "server": "shop", "tool": "checkout", "fingerprint": "f1", "expiresAt": 3.0, "grantedAt": 1.0 })).unwrap();
    assert_eq!(read, g);
}

/// A grant recorded after an ask opens the pin for that fingerprint, end to end.
#[test]
fn a_recorded_grant_opens_the_pin_for_its_principal_only() {
    let policy = Policy::compile(&json!({ "allow": ["*"] })).unwrap();
    let grants = vec![new_grant(
        Some("alice"),
        "shop",
        "search",
        "new-fp",
        0.0,
        DAY,
    )];
    let args = json!({});
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
        call.live_grant = live_grant(&grants, principal, "shop", "search", "new-fp", 1.0).is_some();
        assert_eq!(
            policy.decide(call, |_, _| PredicateResult::True).effect,
            expected,
            "{principal:?}"
        );
    }
}
