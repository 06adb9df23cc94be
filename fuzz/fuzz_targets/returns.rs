//! Hook-return judgement: an arbitrary value (as a hook or the approver could return it) through
//! `ReturnFacts::of`, `judge_hook` for every event under both contracts, and `judge_approval`;
//! and arbitrary fact bits, as a faulty reader could send them.
//!
//! Never a panic; a return that tries to allow (an `allow` key, or `action: 'allow'`) is always
//! `Bad`; strict never accepts what lenient rejects; the approver is satisfied only by exactly
//! `{ allow: 'once' }`, `{ allow: 'always' | 'session', scope?: 'tool' | 'arguments' }`,
//! `{ deny: text, code?: text }` or `{ deny: text, code?: text, halt: true }`.
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use webmcp_warden::hooks::Event;
use webmcp_warden::returns::{bits, judge_approval, judge_hook, Action, Approval, Contract, Judged, ReturnFacts};
use webmcp_warden::value::Value;
use webmcp_warden_fuzz::value;

fn is_undefined(value: Option<&Value>) -> bool {
    matches!(value, Some(Value::Unsupported(kind)) if kind == "undefined")
}

/// What an approver's answer must be for each judgement, read from the value itself.
fn check_approval(value: &Value, (approval, arguments): (Approval, bool)) {
    let map = match value {
        Value::Object(map) => Some(map),
        _ => None,
    };
    // Its own keys are exactly `keys`, plus those of `optional` it has.
    let only = |keys: &[&str], optional: &[&str]| {
        map.is_some_and(|map| keys.iter().all(|key| map.contains_key(key)) && map.keys().all(|key| keys.contains(&key.as_str()) || optional.contains(&key.as_str())))
    };
    let text = |key: &str| map.and_then(|map| map.get(key)).and_then(Value::as_str).is_some();
    let scope = value.get("scope").and_then(Value::as_str);
    let allow = value.get("allow").and_then(Value::as_str);
    match approval {
        Approval::Once => assert!(only(&["allow"], &[]) && allow == Some("once"), "{value:?} approved once"),
        Approval::Always => assert!(only(&["allow"], &["scope"]) && allow == Some("always"), "{value:?} approved always"),
        Approval::Session => assert!(only(&["allow"], &["scope"]) && allow == Some("session"), "{value:?} approved for the session"),
        Approval::Deny => assert!(only(&["deny"], &["code"]) && text("deny"), "{value:?} judged a deny"),
        Approval::DenyHalt => assert!(only(&["deny", "halt"], &["code"]) && text("deny") && value.get("halt") == Some(&Value::Bool(true)), "{value:?} judged a deny-halt"),
        Approval::Bad => {}
    }
    if arguments {
        assert!(matches!(approval, Approval::Always | Approval::Session) && scope == Some("arguments"), "{value:?} judged a grant for exact arguments");
    }
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(returned) = value(&mut u, 3, 6) else { return };
    let raw = ReturnFacts(u.arbitrary::<u32>().unwrap_or_default());
    let facts = ReturnFacts::of(&returned);

    let tries_to_allow = returned.as_object().is_some_and(|map| map.contains_key("allow"))
        || returned.get("action").and_then(Value::as_str) == Some("allow");
    for event in Event::ALL {
        let lenient = judge_hook(event, Contract::Lenient, facts);
        let strict = judge_hook(event, Contract::Strict, facts);
        if tries_to_allow {
            assert_eq!(lenient, Judged::Bad, "lenient {event:?} let {returned:?} allow");
            assert_eq!(strict, Judged::Bad, "strict {event:?} let {returned:?} allow");
        }
        if lenient == Judged::Bad {
            assert_eq!(strict, Judged::Bad, "strict {event:?} accepts {returned:?}, which lenient rejects");
        }
        // A value the hook did not return (`undefined`) never has an effect.
        if is_undefined(Some(&returned)) || returned.is_null() {
            assert_eq!(lenient, Judged::Nothing);
            assert_eq!(strict, Judged::Nothing);
        }

        // Whatever bits a reader sends: an allow bit is never anything but a bad return.
        let raw_allows = raw.0 & bits::ALLOW_IN != 0 || raw.action() == Action::Allow;
        for contract in [Contract::Lenient, Contract::Strict] {
            let judged = judge_hook(event, contract, raw);
            if raw_allows && raw.kind() == webmcp_warden::returns::Kind::Object {
                assert_eq!(judged, Judged::Bad, "{contract:?} {event:?} accepted allow bits {:#x}", raw.0);
            }
        }
    }
    let (answer_facts, payload) = ReturnFacts::of_answer(&returned);
    check_approval(&returned, judge_approval(answer_facts, &payload));
    // A hook's reader sees `scope` as an unknown key, and a faulty reader sends any bits.
    let (approval, _) = judge_approval(facts, &Value::Null);
    if returned.as_object().is_some_and(|map| map.contains_key("scope")) {
        assert_eq!(approval, Approval::Bad);
    }
    let _ = judge_approval(raw, &payload);
});
