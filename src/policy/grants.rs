//! Grants: what `{ allow: 'always' }` records, and the questions asked of them.
//!
//! Storage is the TS layer's (pluggable `grantStore`), and so is the clock: every function here
//! takes `now_ms`, so tests move time without sleeping.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A standing approval for one principal, one tool and one exact definition (fingerprint).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Grant {
    /// Who it is for; `None` is the call without a principal, kept apart from every named one.
    #[serde(default)]
    pub principal: Option<String>,
    /// The server id of the tool.
    pub server: String,
    /// The tool's name.
    pub tool: String,
    /// The fingerprint of the definition that was approved.
    pub fingerprint: String,
    /// When it stops counting, in milliseconds since the epoch.
    pub expires_at: f64,
    /// When it was recorded, in milliseconds since the epoch.
    pub granted_at: f64,
}

impl Grant {
    /// Whether the grant still counts at `now_ms`. A grant whose expiry is not a number never
    /// counts: an unreadable expiry must not become an endless approval.
    pub fn is_live(&self, now_ms: f64) -> bool {
        self.expires_at > now_ms
    }
}

/// The live grant for this principal, tool and exact fingerprint, if any (the one that lasts
/// longest when several do). Principals compare exactly, `None` only with `None`.
pub fn live_grant<'a>(
    grants: &'a [Grant],
    principal: Option<&str>,
    server: &str,
    tool: &str,
    fingerprint: &str,
    now_ms: f64,
) -> Option<&'a Grant> {
    grants
        .iter()
        .filter(|grant| {
            grant.principal.as_deref() == principal
                && grant.server == server
                && grant.tool == tool
                && grant.fingerprint == fingerprint
                && grant.is_live(now_ms)
        })
        .max_by(|a, b| a.expires_at.total_cmp(&b.expires_at))
}

/// The grant `{ allow: 'always' }` records at `now_ms`, lasting `ttl_ms` (`grantTtl`).
pub fn new_grant(
    principal: Option<&str>,
    server: &str,
    tool: &str,
    fingerprint: &str,
    now_ms: f64,
    ttl_ms: f64,
) -> Grant {
    Grant {
        principal: principal.map(str::to_owned),
        server: server.to_owned(),
        tool: tool.to_owned(),
        fingerprint: fingerprint.to_owned(),
        expires_at: now_ms + ttl_ms,
        granted_at: now_ms,
    }
}

/// Whether `revokeGrant({ principal?, server?, tool? })` removes `grant`: it matches every field
/// given, so an empty filter revokes every grant. `principal: Some(None)` selects the grants
/// recorded without a principal; `None` leaves the principal out of the filter.
pub fn grant_matches_revoke(
    grant: &Grant,
    principal: Option<Option<&str>>,
    server: Option<&str>,
    tool: Option<&str>,
) -> bool {
    principal.is_none_or(|principal| grant.principal.as_deref() == principal)
        && server.is_none_or(|server| grant.server == server)
        && tool.is_none_or(|tool| grant.tool == tool)
}

/// Reads the grants a store holds (a JSON array). An entry that is not a grant (a corrupted or
/// tampered store) is skipped: it never counts as an approval, and it never fails the call or
/// hides the good grants beside it.
pub fn read_grants(stored: &Value) -> Vec<Grant> {
    match stored {
        Value::Array(items) => items.iter().filter_map(|item| Grant::deserialize(item).ok()).collect(),
        _ => Vec::new(),
    }
}

/// Which entries of a store (a JSON array) `revokeGrant(filter)` removes, one boolean per entry.
/// `filter` is `{ principal?, server?, tool? }`, where `principal: null` selects grants recorded
/// without one. An entry that is not a grant matches only the empty filter (`revokeGrant()`
/// clears the store); a field of the wrong type (say `principal: 5`) matches nothing, rather
/// than being read as "not given" or "no principal", and so does a filter that is not an object;
/// anything but an array has no entries.
pub fn revoke_matches(stored: &Value, filter: &Value) -> Vec<bool> {
    let Value::Array(items) = stored else { return Vec::new() };
    if !(filter.is_object() || filter.is_null()) {
        return vec![false; items.len()];
    }
    let text = |key: &str| -> Result<Option<&str>, ()> {
        match filter.get(key) {
            None => Ok(None),
            Some(Value::String(value)) => Ok(Some(value)),
            Some(_) => Err(()),
        }
    };
    let principal = match filter.get("principal") {
        None => Ok(None),
        Some(Value::Null) => Ok(Some(None)),
        Some(Value::String(value)) => Ok(Some(Some(value.as_str()))),
        Some(_) => Err(()),
    };
    let (Ok(principal), Ok(server), Ok(tool)) = (principal, text("server"), text("tool")) else {
        return vec![false; items.len()];
    };
    let empty = principal.is_none() && server.is_none() && tool.is_none();
    items
        .iter()
        .map(|item| match Grant::deserialize(item) {
            Ok(grant) => grant_matches_revoke(&grant, principal, server, tool),
            Err(_) => empty,
        })
        .collect()
}
