//! Grants: what `{ allow: 'always' }` records, and the book the core keeps them in.
//!
//! The book is the one place grants are decided: which grant is live for a call (a lookup by
//! principal, server, tool and fingerprint, O(log n)), which ones a revoke filter removes, and
//! which have expired. The TS layer's pluggable `grantStore` only persists: it is read into the
//! book once and written from it after each change (`docs/behaviour.md`, "Grants"). The clock
//! is the TS layer's too: every function here takes `now_ms`, so tests move time without
//! sleeping.
//!
//! Scopes: a grant covers every argument of its tool (`scope: 'tool'`), or only calls whose
//! arguments have the digest the person approved (`scope: 'arguments'`, keyed by it too). A
//! session grant (`{ allow: 'session' }`) lasts as long as the book (the client), and at most
//! `grantTtl` as any grant, and never reaches the store: [`GrantBook::to_value`] leaves it out of
//! what is saved, and [`Grant::from_value`] refuses a stored entry that claims to be one.

use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec::Vec;

use crate::vec_map::VecMap;

use crate::value::{Map, Value};

/// A standing approval for one principal, one tool and one exact definition (fingerprint).
#[derive(Debug, Clone, PartialEq)]
pub struct Grant {
    /// Who it is for; `None` is the call without a principal, kept apart from every named one.
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
    /// The digest of the approved arguments, for a grant of `scope: 'arguments'`.
    pub args_digest: Option<String>,
    /// It lasts as long as the client (`{ allow: 'session' }`, and at most `grantTtl`) and is
    /// never stored.
    pub session: bool,
}

impl Grant {
    /// The grant `{ allow: 'always' }` records at `now_ms`, lasting `ttl_ms` (`grantTtl`).
    pub fn new(principal: Option<&str>, server: &str, tool: &str, fingerprint: &str, now_ms: f64, ttl_ms: f64) -> Grant {
        Grant {
            principal: principal.map(str::to_owned),
            server: server.to_owned(),
            tool: tool.to_owned(),
            fingerprint: fingerprint.to_owned(),
            // Floating point: no overflow (a sum past f64::MAX is +Infinity, which never expires).
            #[allow(clippy::arithmetic_side_effects)]
            expires_at: now_ms + ttl_ms,
            granted_at: now_ms,
            args_digest: None,
            session: false,
        }
    }

    /// The grant `{ allow: 'session', scope? }` records: never stored.
    pub fn for_session(mut self) -> Grant {
        self.session = true;
        self
    }

    /// Whether the grant still counts at `now_ms`: until `expiresAt`, not at it.
    pub fn is_live(&self, now_ms: f64) -> bool {
        self.expires_at > now_ms
    }

    /// Reads one stored entry `{ principal?, server, tool, fingerprint, expiresAt, grantedAt,
    /// scope?, argsDigest?, session? }` (`principal` a string, `null` or absent; `scope` absent
    /// or `'tool'`, or `'arguments'` with its `argsDigest`). `None` for anything else, such as a
    /// corrupted or tampered `localStorage` entry, and for one marked `session: true`, which is
    /// never stored: it never counts as an approval.
    pub fn from_value(value: &Value) -> Option<Grant> {
        let map = value.as_object()?;
        let text = |key: &str| map.get(key).and_then(Value::as_str).map(str::to_owned);
        let principal = match map.get("principal") {
            None | Some(Value::Null) => None,
            Some(Value::String(principal)) => Some(principal.clone()),
            Some(_) => return None,
        };
        let args_digest = match map.get("scope").map(Value::as_str) {
            None | Some(Some("tool")) => None,
            Some(Some("arguments")) => Some(text("argsDigest")?),
            Some(_) => return None,
        };
        if !matches!(map.get("session"), None | Some(Value::Bool(false))) {
            return None;
        }
        Some(Grant {
            principal,
            server: text("server")?,
            tool: text("tool")?,
            fingerprint: text("fingerprint")?,
            expires_at: map.get("expiresAt")?.as_f64()?,
            granted_at: map.get("grantedAt")?.as_f64()?,
            args_digest,
            session: false,
        })
    }

    /// `{ principal, server, tool, fingerprint, expiresAt, grantedAt, scope, argsDigest?,
    /// session }` (`principal: null` for a grant without one), as `listGrants()` answers and the
    /// store keeps it.
    pub fn to_value(&self) -> Value {
        let mut map = Map::new();
        map.insert("principal", self.principal.as_deref().into());
        map.insert("server", self.server.as_str().into());
        map.insert("tool", self.tool.as_str().into());
        map.insert("fingerprint", self.fingerprint.as_str().into());
        map.insert("expiresAt", self.expires_at.into());
        map.insert("grantedAt", self.granted_at.into());
        map.insert("scope", if self.args_digest.is_some() { "arguments" } else { "tool" }.into());
        map.insert_some("argsDigest", self.args_digest.as_deref());
        map.insert("session", self.session.into());
        Value::Object(map)
    }

    /// Its scope as `decision.grant` says it: `(for these exact arguments, for the session)`.
    pub fn scope(&self) -> (bool, bool) {
        (self.args_digest.is_some(), self.session)
    }

    fn key(&self) -> String {
        let mut key = key(self.principal.as_deref(), &self.server, &self.tool, &self.fingerprint);
        if let Some(digest) = &self.args_digest {
            push_part(&mut key, digest);
        }
        key
    }
}

/// The book's key: each part with its length in front, so no choice of strings can make two
/// different grants share a key, and "no principal" differs from every principal.
fn key(principal: Option<&str>, server: &str, tool: &str, fingerprint: &str) -> String {
    let mut out = String::with_capacity(server.len().saturating_add(tool.len()).saturating_add(fingerprint.len()).saturating_add(32));
    match principal {
        None => out.push('-'),
        Some(principal) => push_part(&mut out, principal),
    }
    for part in &[server, tool, fingerprint] {
        push_part(&mut out, part);
    }
    out
}

fn push_part(out: &mut String, part: &str) {
    crate::strs::push_decimal(out, u64::try_from(part.len()).unwrap_or(u64::MAX));
    out.push(':');
    out.push_str(part);
}

/// What `revokeGrant({ principal?, server?, tool? })` removes: every grant matching all the
/// fields given, so an empty filter revokes every grant.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RevokeFilter {
    /// `Some(None)` selects the grants recorded without a principal; `None` leaves the
    /// principal out of the filter.
    pub principal: Option<Option<String>>,
    /// The server id, when given.
    pub server: Option<String>,
    /// The tool's name, when given.
    pub tool: Option<String>,
}

impl RevokeFilter {
    /// Reads `{ principal?, server?, tool? }` (`null` for "no filter" too). `None` when a field
    /// has the wrong type (say `principal: 5`), or when it is not an object: such a filter
    /// revokes nothing, rather than being read as "not given" and revoking more than meant.
    pub fn from_value(value: &Value) -> Option<RevokeFilter> {
        let map = match value {
            Value::Null => return Some(RevokeFilter::default()),
            Value::Object(map) => map,
            _ => return None,
        };
        let text = |key: &str| -> Result<Option<String>, ()> {
            match map.get(key) {
                None => Ok(None),
                Some(Value::String(value)) => Ok(Some(value.clone())),
                Some(_) => Err(()),
            }
        };
        let principal = match map.get("principal") {
            None => None,
            Some(Value::Null) => Some(None),
            Some(Value::String(value)) => Some(Some(value.clone())),
            Some(_) => return None,
        };
        Some(RevokeFilter { principal, server: text("server").ok()?, tool: text("tool").ok()? })
    }

    /// Whether the filter selects `grant`. Principals compare exactly, `None` only with `None`.
    pub fn matches(&self, grant: &Grant) -> bool {
        self.principal.as_ref().is_none_or(|principal| grant.principal == *principal)
            && self.server.as_ref().is_none_or(|server| grant.server == *server)
            && self.tool.as_ref().is_none_or(|tool| grant.tool == *tool)
    }
}

/// The page's grants, one per (principal, server, tool, fingerprint).
#[derive(Debug, Clone, Default)]
pub struct GrantBook {
    grants: VecMap<String, Grant>,
}

impl GrantBook {
    /// An empty book.
    pub fn new() -> GrantBook {
        GrantBook::default()
    }

    /// Adds what a store holds (an array of stored grants) to the book; returns how many
    /// entries were grants. Entries that are not grants are skipped: they never count as an
    /// approval, and they never hide the good grants beside them. Anything but an array holds
    /// no grants. Of two grants for the same key, the one that lasts longer is kept.
    pub fn load(&mut self, stored: &Value) -> usize {
        let Some(items) = stored.as_array() else { return 0 };
        let mut read = 0usize;
        for item in items {
            if let Some(grant) = Grant::from_value(item) {
                read = read.saturating_add(1);
                self.keep_longer(grant);
            }
        }
        read
    }

    fn keep_longer(&mut self, grant: Grant) {
        let key = grant.key();
        match self.grants.get(&key) {
            Some(held) if held.expires_at >= grant.expires_at => {}
            _ => {
                self.grants.insert(key, grant);
            }
        }
    }

    /// The live grant for this principal, tool and exact fingerprint, if any: one for every
    /// argument, else, given the call's `args_digest`, one for exactly those arguments.
    /// Principals compare exactly, `None` only with `None`. One or two map lookups: the book is
    /// never walked.
    pub fn live(&self, principal: Option<&str>, server: &str, tool: &str, fingerprint: &str, args_digest: Option<&str>, now_ms: f64) -> Option<&Grant> {
        let mut key = key(principal, server, tool, fingerprint);
        if let Some(grant) = self.grants.get(&key).filter(|grant| grant.is_live(now_ms)) {
            return Some(grant);
        }
        push_part(&mut key, args_digest?);
        self.grants.get(&key).filter(|grant| grant.is_live(now_ms))
    }

    /// Whether the book holds a grant for exactly some arguments of this tool (`(server, tool)`)
    /// or of any tool (`None`): its calls then need their arguments' digest to find it.
    pub fn has_argument_grants(&self, tool: Option<(&str, &str)>) -> bool {
        for grant in self.grants.values() {
            if grant.args_digest.is_some() && tool.is_none_or(|(server, tool)| grant.tool == tool && grant.server == server) {
                return true;
            }
        }
        false
    }

    /// Records a grant, replacing the one for the same key, and drops expired grants first so
    /// the book (and the store it is saved to) does not grow forever.
    pub fn record(&mut self, grant: Grant, now_ms: f64) {
        self.prune(now_ms);
        self.grants.insert(grant.key(), grant);
    }

    /// Removes `grant` if the book holds exactly it; returns whether it did. For a grant the
    /// store could not keep: a broken store approves nothing beyond the call that asked.
    pub fn forget(&mut self, grant: &Grant) -> bool {
        let key = grant.key();
        if self.grants.get(&key) == Some(grant) {
            self.grants.remove(&key);
            return true;
        }
        false
    }

    /// Removes the grants `filter` selects; returns how many.
    pub fn revoke(&mut self, filter: &RevokeFilter) -> usize {
        let before = self.grants.len();
        self.grants.retain(|_, grant| !filter.matches(grant));
        before.saturating_sub(self.grants.len())
    }

    /// Removes every grant.
    pub fn clear(&mut self) {
        self.grants.clear();
    }

    /// Drops the grants that expired by `now_ms`; returns how many.
    pub fn prune(&mut self, now_ms: f64) -> usize {
        let before = self.grants.len();
        self.grants.retain(|_, grant| grant.is_live(now_ms));
        before.saturating_sub(self.grants.len())
    }

    /// Every grant in the book, in key order (what the store is given to keep).
    pub fn iter(&self) -> impl Iterator<Item = &Grant> {
        self.grants.values()
    }

    /// How many grants the book holds, expired ones not yet pruned included.
    pub fn len(&self) -> usize {
        self.grants.len()
    }

    /// Whether the book is empty.
    pub fn is_empty(&self) -> bool {
        self.grants.is_empty()
    }

    /// The grants as `listGrants()` shows them (`with_session`), or as the store keeps them
    /// (without session grants): an array of [`Grant::to_value`].
    pub fn to_value(&self, with_session: bool) -> Value {
        let mut grants = Vec::with_capacity(self.grants.len());
        for (_, grant) in self.grants.entries() {
            if with_session || !grant.session {
                grants.push(grant.to_value());
            }
        }
        Value::Array(grants)
    }
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects)]
mod tests {
    use super::*;

    #[test]
    fn keys_cannot_collide() {
        assert_ne!(key(Some("a"), "b:c", "d", "e"), key(Some("a:b"), "c", "d", "e"));
        assert_ne!(key(None, "s", "t", "f"), key(Some(""), "s", "t", "f"));
        assert_ne!(key(Some("-"), "s", "t", "f"), key(None, "s", "t", "f"));
    }

    #[test]
    fn a_stored_grant_round_trips() {
        let grant = Grant::new(None, "shop", "checkout", "f1", 1.0, 2.0);
        assert_eq!(Grant::from_value(&grant.to_value()), Some(grant.clone()));
        let exact = Grant { args_digest: Some("d1".into()), ..grant };
        assert_eq!(Grant::from_value(&exact.to_value()), Some(exact.clone()));
        // A stored entry claiming to be a session grant was never written by the book.
        assert_eq!(Grant::from_value(&exact.for_session().to_value()), None);
    }

    #[test]
    fn session_grants_are_listed_but_never_stored() {
        let mut book = GrantBook::new();
        book.record(Grant::new(Some("p"), "s", "t", "f", 0.0, 10.0).for_session(), 0.0);
        book.record(Grant::new(Some("p"), "s", "u", "f", 0.0, 10.0), 0.0);
        assert_eq!(book.to_value(true).as_array().map(Vec::len), Some(2));
        assert_eq!(book.to_value(false).as_array().map(Vec::len), Some(1));
        assert!(book.live(Some("p"), "s", "t", "f", None, 9.0).is_some());
        assert!(book.live(Some("p"), "s", "t", "f", None, 10.0).is_none(), "at most grantTtl");
    }
}
