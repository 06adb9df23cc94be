//! Policy: an arbitrary policy (mostly policy-shaped: rules with matchers, ids, reasons and every
//! kind of predicate, function predicates included; sometimes any value) through
//! `Policy::compile` and `policy::lint`, and a compiled one through `decide` on arbitrary call
//! facts with arbitrary answers from its function predicates.
//!
//! Never a panic. A compile error has a code and a message that starts with its path, and lint
//! reports it too; a policy that compiles lints only with lint's own findings (never fire, ids
//! twice, unknown hints, slow patterns). A decision
//! explains itself, names a rule that exists, takes its list's effect when a rule decided,
//! asks only for the policy's own functions, each at most once, and the step-by-step
//! `Evaluation` decides exactly as `decide` does.
#![no_main]

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use webmcp_warden::policy::{lint, CallFacts, EvalStep, Evaluation, FingerprintState, Policy, PredicateResult, Reason};
use webmcp_warden::value::{Map, Value};
use webmcp_warden_fuzz::{pick, text, value};

const MATCHERS: [&str; 10] = ["*", "shop/*", "shop/search", "search", "*/get_*", "fs/*", "delete_*", "", "a/b/c", "shop/bad name"];
const NAMES: [&str; 4] = ["search", "get_item", "delete-item", "Checkout"];
const SERVERS: [&str; 3] = ["shop", "fs", "page"];
const HINTS: [&str; 4] = ["readOnlyHint", "destructiveHint", "openWorldHint", "readonlyHint"];
const LISTS: [&str; 4] = ["deny", "ask", "allow", "maybe"];
const EFFECTS: [&str; 4] = ["allow", "ask", "deny", "never"];
const ORIGINS: [&str; 2] = ["https://agent.example", "https://other.example"];

fn predicate(u: &mut Unstructured<'_>, next: &mut u32) -> Result<Value> {
    use webmcp_warden::object as o;
    Ok(match u.int_in_range(0..=10)? {
        0 => {
            *next += 1;
            Value::Function(*next)
        }
        1 => Value::from("tainted"),
        2 => o! { "tainted" => o! { "ignore" => Value::Array(vec![Value::from(*pick(u, &SERVERS)?)]) } },
        3 => o! { "annotation" => o! { *pick(u, &HINTS)? => u.arbitrary::<bool>()? } },
        4 => o! { "principal" => *pick(u, &["alice", "bob"])? },
        5 => o! { "arg" => *pick(u, &["/n", "/q", "/a/0", "", "n"])?, *pick(u, &["max", "min", "equals", "exists", "in"])? => value(u, 1, 2)? },
        6 => o! { "arg" => "/q", "matches" => *pick(u, &["^a", "x+", "(", "^[a-z]+$", "a{2,}"])? },
        7 => o! { "arg" => "/q", "matches" => Value::Regex { source: text(u)?, flags: (*pick(u, &["", "i", "g"])?).to_owned() } },
        8 => o! { "exposedTo" => if u.arbitrary()? { Value::Bool(true) } else { Value::from(*pick(u, &ORIGINS)?) } },
        _ => value(u, 2, 3)?,
    })
}

fn rule(u: &mut Unstructured<'_>, next: &mut u32) -> Result<Value> {
    if u.ratio(1, 3)? {
        return Ok(Value::from(*pick(u, &MATCHERS)?));
    }
    if u.ratio(1, 10)? {
        return value(u, 2, 3);
    }
    let mut map = Map::new();
    map.insert("match", if u.ratio(1, 8)? { value(u, 1, 2)? } else { Value::from(*pick(u, &MATCHERS)?) });
    if u.arbitrary()? {
        map.insert("id", Value::from(*pick(u, &["a", "b", ""])?));
    }
    if u.ratio(1, 4)? {
        map.insert("reason", Value::from(text(u)?));
    }
    if u.ratio(3, 4)? {
        let mut when = Vec::new();
        for _ in 0..u.int_in_range(0..=3)? {
            when.push(predicate(u, next)?);
        }
        map.insert("when", if u.ratio(1, 6)? { when.pop().unwrap_or(Value::Null) } else { Value::Array(when) });
    }
    Ok(Value::Object(map))
}

fn policy(u: &mut Unstructured<'_>) -> Result<Value> {
    if u.ratio(1, 10)? {
        return value(u, 3, 4);
    }
    let mut next = 0;
    let mut map = Map::new();
    for _ in 0..u.int_in_range(0..=4)? {
        let list = *pick(u, &LISTS)?;
        let mut rules = Vec::new();
        for _ in 0..u.int_in_range(0..=4)? {
            rules.push(rule(u, &mut next)?);
        }
        map.insert(list, Value::Array(rules));
    }
    for key in ["default", "pin", "allowNewTools"] {
        if u.ratio(1, 3)? {
            let item = match u.int_in_range(0..=3)? {
                0 => Value::Bool(u.arbitrary()?),
                1 => value(u, 1, 1)?,
                _ => Value::from(*pick(u, &EFFECTS)?),
            };
            map.insert(key, item);
        }
    }
    Ok(Value::Object(map))
}

fn facts_state(u: &mut Unstructured<'_>) -> Result<FingerprintState> {
    Ok(match u.int_in_range(0..=3)? {
        0 => FingerprintState::New,
        1 => FingerprintState::Changed { previous: "a".repeat(64), current: "b".repeat(64), changed: vec!["description".to_owned()] },
        _ => FingerprintState::Unchanged,
    })
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(spec) = policy(&mut u) else { return };
    let found = lint(&spec);
    let policy = match Policy::compile(&spec) {
        Err(err) => {
            assert!(!err.code.is_empty(), "an error without a code: {err:?}");
            if !err.path.is_empty() {
                assert!(err.message.starts_with(&format!("{}: ", err.path)), "message {:?} does not start with its path", err.message);
            }
            assert!(found.iter().any(|d| d.code == err.code && d.path == err.path), "lint misses the compile error {err:?}: {found:?}");
            return;
        }
        Ok(policy) => policy,
    };
    for diagnostic in &found {
        // What lint finds beyond compile errors: rules that never fire, ids given twice, unknown hints,
        // and patterns that run on the linear engine (or, opted in, only on short strings).
        assert!(["shadowed_rule", "duplicate_rule_id", "unknown_annotation", "pattern_linear", "pattern_unsafe"].contains(&diagnostic.code), "a policy that compiles lints with {diagnostic:?}");
        assert!(diagnostic.message.starts_with(&diagnostic.path), "{diagnostic:?}");
    }

    let functions = policy.function_handles();
    let (Ok(server), Ok(name)) = (pick(&mut u, &SERVERS), pick(&mut u, &NAMES)) else { return };
    let mut annotations = Map::new();
    for hint in HINTS {
        if u.ratio(1, 3).unwrap_or(false) {
            annotations.insert(hint, Value::Bool(u.arbitrary().unwrap_or(false)));
        }
    }
    let annotations = Value::Object(annotations);
    let arguments = value(&mut u, 3, 3).unwrap_or(Value::Null);
    let taint: Vec<String> = if u.arbitrary().unwrap_or(false) { vec!["fs".to_owned()] } else { Vec::new() };
    let principal = if u.arbitrary().unwrap_or(false) { Some("alice") } else { None };
    let fingerprint = facts_state(&mut u).unwrap_or(FingerprintState::Unchanged);
    let live_grant = u.arbitrary().unwrap_or(false);
    let exposed_to: Vec<String> = if u.arbitrary().unwrap_or(false) { vec![ORIGINS[0].to_owned()] } else { Vec::new() };
    let answers: Vec<u8> = (0..16).map(|_| u.int_in_range(0..=2).unwrap_or(0)).collect();
    let answer = |i: usize| match answers.get(i % answers.len()) {
        Some(0) => PredicateResult::True,
        Some(1) => PredicateResult::False,
        _ => PredicateResult::Failed,
    };
    let facts = || CallFacts { server, name, annotations: &annotations, principal, taint: &taint, exposed_to: &exposed_to, arguments: &arguments, fingerprint: fingerprint.clone(), live_grant, pattern_budget: Default::default() };

    let mut asked = Vec::new();
    let decision = policy.decide(facts(), |handle, _| {
        asked.push(handle);
        answer(asked.len() - 1)
    });
    for handle in &asked {
        assert!(functions.contains(handle), "asked for function {handle}, not one of the policy's {functions:?}");
    }
    let mut unique = asked.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), asked.len(), "a function asked twice: {asked:?}");
    assert!(!decision.explanation.is_empty());
    if let Some(rule) = &decision.rule {
        assert!(rule.index < policy.rule_count(rule.list), "{rule:?} does not exist");
    }
    if decision.reason == Reason::Rule {
        let rule = decision.rule.as_ref().unwrap_or_else(|| panic!("a rule decided without naming it: {decision:?}"));
        assert_eq!(decision.effect, rule.list.effect(), "{decision:?}");
    }

    let mut evaluation = Evaluation::new(&policy, facts());
    let mut stepped = 0;
    let by_steps = loop {
        match evaluation.step() {
            EvalStep::NeedPredicate { handle, .. } => {
                assert_eq!(asked.get(stepped), Some(&handle), "the evaluation asks in another order than decide");
                evaluation.predicate_result(handle, answer(stepped));
                stepped += 1;
                assert!(stepped <= functions.len() * 4 + 1, "the evaluation does not end");
            }
            EvalStep::Decided(decision) => break decision,
        }
    };
    assert_eq!(by_steps, decision, "step by step and in one go decide differently");
});
