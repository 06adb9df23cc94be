//! Governance settings and stored grants as the TS layer hands them over: the tool filter's
//! shape, and grant stores holding entries that are not grants (a corrupted or tampered
//! `localStorage`), which must never fail a call, hide good grants, or approve anything.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use serde_json::{json, Value};
use webmcp_warden::governor::Governor;
use webmcp_warden::policy::{live_grant, read_grants, revoke_matches};

#[test]
fn the_tool_filter_is_an_object_or_null() {
    let mut governor = Governor::default();
    governor.set_filter(&json!({ "exclude": ["admin_*"] })).unwrap();
    assert!(!governor.is_visible("page", "admin_wipe"));
    assert!(governor.is_visible("page", "get_item"));
    for bad in [json!(42), json!("admin_*"), json!(["admin_*"]), json!(true)] {
        let error = governor.set_filter(&bad).unwrap_err();
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
    let error = governor.set_filter(&json!({ "exclude": ["ok", 42] })).unwrap_err();
    assert_eq!(error.path, "tools.exclude[1]");
    let error = governor.set_filter(&json!({ "exlude": [] })).unwrap_err();
    assert_eq!(error.path, "tools");
}

fn grant(principal: Value, expires_at: Value) -> Value {
    json!({ "principal": principal, "server": "shop", "tool": "checkout", "fingerprint": "f1", "expiresAt": expires_at, "grantedAt": 0 })
}

#[test]
fn entries_that_are_not_grants_are_skipped() {
    let good = grant(json!("alice"), json!(1000));
    let stored = json!([null, 42, "grant", { "tool": "checkout" }, grant(json!("alice"), json!("never")), grant(json!(5), json!(1000)), good]);
    let grants = read_grants(&stored);
    assert_eq!(grants.len(), 1);
    assert_eq!(grants[0].principal.as_deref(), Some("alice"));
    assert!(live_grant(&grants, Some("alice"), "shop", "checkout", "f1", 999.0).is_some());
    assert!(live_grant(&grants, Some("alice"), "shop", "checkout", "f1", 1000.0).is_none(), "expired at expiresAt");
    for not_a_store in [json!(null), json!({}), json!("[]"), json!(7)] {
        assert!(read_grants(&not_a_store).is_empty());
    }
}

#[test]
fn revoke_matches_every_given_field_and_garbage_only_with_no_filter() {
    let stored = json!([grant(json!("alice"), json!(10)), grant(json!(null), json!(10)), "garbage", grant(json!("bob"), json!(10))]);
    assert_eq!(revoke_matches(&stored, &json!({ "principal": "alice" })), [true, false, false, false]);
    assert_eq!(revoke_matches(&stored, &json!({ "principal": null })), [false, true, false, false]);
    assert_eq!(revoke_matches(&stored, &json!({ "tool": "checkout", "server": "shop" })), [true, true, false, true]);
    assert_eq!(revoke_matches(&stored, &json!({ "tool": "other" })), [false, false, false, false]);
    assert_eq!(revoke_matches(&stored, &json!({})), [true, true, true, true]);
    assert_eq!(revoke_matches(&stored, &Value::Null), [true, true, true, true]);
    assert!(revoke_matches(&json!({ "not": "an array" }), &json!({})).is_empty());
    for wrong in [json!({ "principal": 5 }), json!({ "tool": null }), json!({ "server": ["shop"] }), json!("alice"), json!([])] {
        assert_eq!(revoke_matches(&stored, &wrong), [false, false, false, false], "{wrong}");
    }
}
