//! Governance settings and stored grants as the TS layer hands them over: the tool filter's
//! shape, `approvedFingerprints` (a map or `'first_listing'`), and grant stores holding entries
//! that are not grants (a corrupted or tampered `localStorage`), which must never fail a call,
//! hide good grants, or approve anything.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod support;

use serde_json::{json, Value as Json};
use support::{definition, v};
use webmcp_warden::governor::Governor;
use webmcp_warden::policy::{FingerprintState, GrantBook, RevokeFilter};
use webmcp_warden::value::Value;

#[test]
fn the_tool_filter_is_an_object_or_null() {
    let mut governor = Governor::default();
    governor.set_filter(&v(json!({ "exclude": ["admin_*"] }))).unwrap();
    assert!(!governor.is_visible("page", "admin_wipe"));
    assert!(governor.is_visible("page", "get_item"));
    for bad in [json!(42), json!("admin_*"), json!(["admin_*"]), json!(true)] {
        let error = governor.set_filter(&v(bad.clone())).unwrap_err();
        assert_eq!((error.code, error.path.as_str()), ("invalid_config", "tools"), "{bad}");
        assert!(error.message.starts_with("tools: "), "{}", error.message);
        assert!(!governor.is_visible("page", "admin_wipe"), "a rejected filter leaves the previous one: {bad}");
    }
    governor.set_filter(&Value::Null).unwrap();
    assert!(governor.is_visible("page", "admin_wipe"), "null removes the filter");
}

#[test]
fn the_filter_names_the_entry_at_fault() {
    let mut governor = Governor::default();
    let error = governor.set_filter(&v(json!({ "exclude": ["ok", 42] }))).unwrap_err();
    assert_eq!(error.path, "tools.exclude[1]");
    let error = governor.set_filter(&v(json!({ "exlude": [] }))).unwrap_err();
    assert_eq!(error.path, "tools");
}

#[test]
fn a_filter_regexp_that_cannot_test_a_name_hides_the_tool() {
    let long = "a".repeat(webmcp_warden::pattern::INPUT_LIMIT + 1);
    let mut governor = Governor::default();
    governor.set_filter(&v(json!({ "include": [{ "$regex": { "source": "^a", "flags": "" } }] }))).unwrap();
    assert!(governor.is_visible("page", "abc"));
    assert!(!governor.is_visible("page", &long), "an include that cannot tell does not include");
    governor.set_filter(&v(json!({ "exclude": [{ "$regex": { "source": "^z", "flags": "" } }] }))).unwrap();
    assert!(governor.is_visible("page", "abc"));
    assert!(!governor.is_visible("page", &long), "an exclude that cannot tell excludes");
}

fn tool(name: &str, description: &str) -> webmcp_warden::governor::Definition {
    definition(&json!({ "name": name, "description": description }))
}

#[test]
fn by_default_each_tool_is_baselined_at_first_sight() {
    let mut governor = Governor::default();
    assert_eq!(governor.fingerprint_state(&tool("a", "one")), FingerprintState::Unchanged);
    // A tool first seen much later is baselined then, not new.
    assert_eq!(governor.fingerprint_state(&tool("late", "x")), FingerprintState::Unchanged);
    let FingerprintState::Changed { changed, .. } = governor.fingerprint_state(&tool("a", "two")) else { panic!("a rug pull is a change") };
    assert_eq!(changed, ["description"]);
    // Sealing means nothing in this mode.
    governor.seal_baseline();
    assert_eq!(governor.fingerprint_state(&tool("later", "x")), FingerprintState::Unchanged);
}

#[test]
fn first_listing_seals_the_baseline() {
    let mut governor = Governor::default();
    governor.set_approved(&v(json!("first_listing"))).unwrap();
    governor.record_baseline(&tool("registered", "r"));
    // Before the seal, a tool seen at its first policy evaluation joins the baseline.
    assert_eq!(governor.fingerprint_state(&tool("early", "e")), FingerprintState::Unchanged);
    governor.seal_baseline();
    assert_eq!(governor.fingerprint_state(&tool("registered", "r")), FingerprintState::Unchanged);
    assert_eq!(governor.fingerprint_state(&tool("early", "e")), FingerprintState::Unchanged);
    // After it, a tool never seen is new, and stays new: registering it records nothing.
    governor.record_baseline(&tool("newcomer", "n"));
    assert_eq!(governor.fingerprint_state(&tool("newcomer", "n")), FingerprintState::New);
    assert_eq!(governor.peek_fingerprint_state(&tool("newcomer", "n")), FingerprintState::New);
    // A baselined tool still meets the pin when its definition changes.
    assert!(matches!(governor.fingerprint_state(&tool("registered", "changed")), FingerprintState::Changed { .. }));
    // Configuring the mode again starts unsealed.
    governor.set_approved(&v(json!("first_listing"))).unwrap();
    assert_eq!(governor.fingerprint_state(&tool("newcomer", "n")), FingerprintState::Unchanged);
}

#[test]
fn approved_fingerprints_is_a_map_first_listing_or_null() {
    let mut governor = Governor::default();
    let known = tool("a", "one");
    governor.set_approved(&v(json!({ "a": known.fingerprint.to_ascii_uppercase() }))).unwrap();
    assert_eq!(governor.fingerprint_state(&known), FingerprintState::Unchanged, "fingerprints compare in lower case");
    assert_eq!(governor.fingerprint_state(&tool("b", "x")), FingerprintState::New);
    for bad in [json!("first-listing"), json!(true), json!(["a"]), json!({ "a": 1 })] {
        let error = governor.set_approved(&v(bad.clone())).unwrap_err();
        assert_eq!((error.code, error.path.as_str()), ("invalid_config", "approvedFingerprints"), "{bad}");
    }
    governor.set_approved(&Value::Null).unwrap();
    assert_eq!(governor.fingerprint_state(&tool("b", "x")), FingerprintState::Unchanged);
}

fn grant(principal: Json, expires_at: Json) -> Json {
    json!({ "principal": principal, "server": "shop", "tool": "checkout", "fingerprint": "f1", "expiresAt": expires_at, "grantedAt": 0 })
}

#[test]
fn entries_that_are_not_grants_are_skipped() {
    let good = grant(json!("alice"), json!(1000));
    let stored = v(json!([null, 42, "grant", { "tool": "checkout" }, grant(json!("alice"), json!("never")), grant(json!(5), json!(1000)), good]));
    let mut book = GrantBook::new();
    assert_eq!(book.load(&stored), 1);
    assert_eq!(book.iter().next().unwrap().principal.as_deref(), Some("alice"));
    assert!(book.live(Some("alice"), "shop", "checkout", "f1", None, 999.0).is_some());
    assert!(book.live(Some("alice"), "shop", "checkout", "f1", None, 1000.0).is_none(), "expired at expiresAt");
    for not_a_store in [json!(null), json!({}), json!("[]"), json!(7)] {
        let mut empty = GrantBook::new();
        assert_eq!(empty.load(&v(not_a_store)), 0);
        assert!(empty.is_empty());
    }
    // What the book saves back holds the grants only, each with its scope.
    let mut saved = grant(json!("alice"), json!(1000));
    saved["scope"] = json!("tool");
    saved["session"] = json!(false);
    assert_eq!(support::to_json(&book.to_value(false)), json!([saved]));
}

#[test]
fn revoking_matches_every_given_field() {
    let mut book = GrantBook::new();
    book.load(&v(json!([grant(json!("alice"), json!(10)), grant(json!(null), json!(10)), "garbage", { "server": "shop", "tool": "checkout", "fingerprint": "f2", "principal": "bob", "expiresAt": 10, "grantedAt": 0 }])));
    let filter = |value: Json| RevokeFilter::from_value(&v(value)).unwrap();
    assert_eq!(book.revoke(&filter(json!({ "tool": "other" }))), 0);
    assert_eq!(book.revoke(&filter(json!({ "principal": null }))), 1);
    assert_eq!(book.revoke(&filter(json!({ "principal": "alice" }))), 1);
    assert_eq!(book.revoke(&filter(json!({ "tool": "checkout", "server": "shop" }))), 1);
    assert!(book.is_empty());
}

#[test]
fn a_live_grant_is_found_among_many() {
    let mut book = GrantBook::new();
    let stored: Vec<Value> = (0..10_000)
        .map(|i| v(json!({ "principal": format!("p{i}"), "server": "shop", "tool": "checkout", "fingerprint": "f1", "expiresAt": 1e15, "grantedAt": 0 })))
        .collect();
    assert_eq!(book.load(&Value::Array(stored)), 10_000);
    for i in (0..10_000).step_by(997) {
        assert!(book.live(Some(&format!("p{i}")), "shop", "checkout", "f1", None, 1.0).is_some());
    }
    assert!(book.live(Some("nobody"), "shop", "checkout", "f1", None, 1.0).is_none());
    assert!(book.live(None, "shop", "checkout", "f1", None, 1.0).is_none());
}
