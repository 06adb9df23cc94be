//! Boundary of governance: policy, pins, the tool filter, approvals, grants, dry runs and lint.
//!
//! Every export here is "decode → call the core → encode": values cross as wire buffers
//! (`src/wire.rs`), and answers are `{ ok: true, … }` or `{ ok: false, error: { code,
//! message, path? } }`. Scalars cross as scalars.

use wasm_bindgen::prelude::*;

use super::core::Core;
use crate::engine::{AskFacts, Explained, PolicyInput};
use crate::error::ConfigError;
use crate::policy::{lint, Grant, RevokeFilter};
use crate::value::{Map, Value};
use crate::wire;

/// `{ ok: true, …fields }` or `{ ok: false, error }`, encoded.
fn reply(result: Result<Map, ConfigError>) -> Vec<u8> {
    let mut map = Map::new();
    match result {
        Ok(fields) => {
            map.insert("ok", true.into());
            for (key, value) in fields {
                map.insert(key, value);
            }
        }
        Err(error) => {
            map.insert("ok", false.into());
            map.insert("error", error.to_value());
        }
    }
    wire::encode(&Value::Object(map))
}

/// `{ ok: true }`, or the error.
fn done(result: Result<(), ConfigError>) -> Vec<u8> {
    reply(result.map(|()| Map::new()))
}

/// One field, as a map for [`reply`].
fn field(key: &str, value: impl Into<Value>) -> Map {
    let mut map = Map::new();
    map.insert(key, value.into());
    map
}

/// A wire buffer the TS encoder wrote.
fn read(bytes: &[u8]) -> Result<Value, ConfigError> {
    wire::decode(bytes).map_err(|error| {
        ConfigError::new("invalid_input", format!("the core could not read its input ({} at byte {})", error.reason, error.at))
    })
}

/// The facts the TS layer sends with a policy step or a dry run: `{ arguments, canonical?,
/// principal?, taint?, nowMs, hasApprover? }`.
struct Facts {
    value: Value,
    taint: Vec<String>,
    now_ms: f64,
}

impl Facts {
    fn read(bytes: &[u8]) -> Option<Facts> {
        let value = wire::decode(bytes).ok()?;
        let taint = match value.get("taint") {
            None => Vec::new(),
            Some(list) => list.as_array()?.iter().map(|item| item.as_str().map(str::to_owned)).collect::<Option<_>>()?,
        };
        let now_ms = value.get("nowMs")?.as_f64()?;
        Some(Facts { value, taint, now_ms })
    }

    fn input(&self) -> PolicyInput<'_> {
        PolicyInput {
            arguments: self.value.get("arguments").unwrap_or(&Value::Null),
            canonical: self.value.get("canonical").and_then(Value::as_str),
            principal: self.value.get("principal").and_then(Value::as_str),
            taint: &self.taint,
            now_ms: self.now_ms,
            has_approver: self.value.get("hasApprover").and_then(Value::as_bool).unwrap_or(false),
        }
    }
}

fn ask_facts(facts: AskFacts) -> Map {
    let mut map = Map::new();
    map.insert("serverId", facts.server_id.into());
    map.insert("name", facts.name.into());
    map.insert("fingerprint", facts.fingerprint.into());
    map.insert("argsDigest", facts.args_digest.into());
    map.insert_some("decision", facts.decision.map(|decision| decision.to_value()));
    map
}

fn explained(explained: Explained) -> Map {
    let mut map = Map::new();
    map.insert("serverId", explained.server_id.into());
    map.insert("fingerprint", explained.fingerprint.into());
    map.insert("argsDigest", explained.args_digest.into());
    map.insert("decision", explained.decision.map(|decision| decision.to_value()).into());
    map.insert("functionPredicates", Value::Array(explained.function_predicates.into_iter().map(Value::from).collect()));
    map
}

fn unknown(what: &str) -> ConfigError {
    ConfigError::new("unknown_handle", format!("no {what} with this handle"))
}

#[wasm_bindgen]
impl Core {
    /// Sets the policy (`null` removes it); answers `{ ok }` or the first problem.
    #[wasm_bindgen(js_name = setPolicy)]
    pub fn set_policy(&mut self, spec: &[u8]) -> Vec<u8> {
        done(read(spec).and_then(|spec| self.engine.governor_mut().set_policy(&spec)))
    }

    /// Sets `approvedFingerprints`: a `{ name: fingerprint }` map, `'first_listing'`, or `null`.
    #[wasm_bindgen(js_name = setApprovedFingerprints)]
    pub fn set_approved_fingerprints(&mut self, spec: &[u8]) -> Vec<u8> {
        done(read(spec).and_then(|spec| self.engine.governor_mut().set_approved(&spec)))
    }

    /// Seals a `'first_listing'` baseline: called at the first listing and the first agent call.
    #[wasm_bindgen(js_name = sealBaseline)]
    pub fn seal_baseline(&mut self) {
        self.engine.seal_baseline();
    }

    /// Sets the static tool filter `{ include?, exclude? }` (`null` removes it).
    #[wasm_bindgen(js_name = setToolFilter)]
    pub fn set_tool_filter(&mut self, spec: &[u8]) -> Vec<u8> {
        done(read(spec).and_then(|spec| self.engine.governor_mut().set_filter(&spec)))
    }

    /// Whether the static tool filter lets agents see the tool.
    #[wasm_bindgen(js_name = isVisible)]
    pub fn is_visible(&self, tool: u32) -> bool {
        self.engine.is_visible(tool)
    }

    /// Records a tool's baseline definition (at registration or first listing).
    #[wasm_bindgen(js_name = recordBaseline)]
    pub fn record_baseline(&mut self, tool: u32) {
        self.engine.record_baseline(tool);
    }

    /// Runs the policy step of a call on its facts (see `Facts`); returns the next action,
    /// packed. Facts that cannot be read fail the call as invalid arguments.
    #[wasm_bindgen(js_name = policyStart)]
    pub fn policy_start(&mut self, call: u32, facts: &[u8]) -> u32 {
        let action = match Facts::read(facts) {
            Some(facts) => self.engine.policy_start(call, facts.input()),
            None => self.engine.step(call, crate::call::Outcome::Invalid).map(|(action, _)| action),
        };
        action.map_or(0, |action| action.encode(false))
    }

    /// Compares the canonical text of the arguments about to reach the tool (`undefined`: JSON
    /// cannot carry them) with the one policy saw (`atPolicy`, if the call was not sent it
    /// yet); returns the next action, packed.
    #[wasm_bindgen(js_name = checkArgs)]
    pub fn check_args(&mut self, call: u32, canonical: Option<String>, at_policy: Option<String>) -> u32 {
        self.engine.check_args(call, canonical.as_deref(), at_policy.as_deref()).map_or(0, |action| action.encode(false))
    }

    /// What the approver is shown of a call: `{ ok, serverId, name, fingerprint, argsDigest,
    /// decision? }`. `canonical` is the canonical text of the arguments policy saw, which the
    /// call needs once for the digest (`argsDigest` is empty until it was sent).
    #[wasm_bindgen(js_name = askFacts)]
    pub fn ask_facts(&mut self, call: u32, canonical: Option<String>) -> Vec<u8> {
        reply(self.engine.ask_facts(call, canonical.as_deref()).map(ask_facts).ok_or_else(|| unknown("call")))
    }

    /// Records the grant `{ allow: 'always' }` makes for a call in the core's book; answers
    /// `{ ok, grant }` (the TS layer then saves the book).
    #[wasm_bindgen(js_name = recordGrant)]
    pub fn record_grant(&mut self, call: u32, principal: Option<String>, now_ms: f64, ttl_ms: f64) -> Vec<u8> {
        let grant = self.engine.record_grant(call, principal.as_deref(), now_ms, ttl_ms);
        reply(grant.map(|grant| field("grant", grant.to_value())).ok_or_else(|| unknown("call")))
    }

    /// Removes a grant the store could not keep, if the book holds exactly it.
    #[wasm_bindgen(js_name = forgetGrant)]
    pub fn forget_grant(&mut self, grant: &[u8]) -> bool {
        let grant = wire::decode(grant).ok().as_ref().and_then(Grant::from_value);
        grant.is_some_and(|grant| self.engine.grants_mut().forget(&grant))
    }

    /// Adds what the grant store holds (an array) to the book; answers `{ ok, read }`, how many
    /// entries were grants (the others are skipped).
    #[wasm_bindgen(js_name = loadGrants)]
    pub fn load_grants(&mut self, stored: &[u8]) -> Vec<u8> {
        reply(read(stored).map(|stored| field("read", self.engine.grants_mut().load(&stored))))
    }

    /// The live grants at `now_ms`, after dropping the expired ones: `{ ok, grants, pruned }`.
    #[wasm_bindgen(js_name = listGrants)]
    pub fn list_grants(&mut self, now_ms: f64) -> Vec<u8> {
        let book = self.engine.grants_mut();
        let pruned = book.prune(now_ms);
        let mut map = field("grants", book.to_value());
        map.insert("pruned", pruned.into());
        reply(Ok(map))
    }

    /// Revokes the grants matching a filter `{ principal?, server?, tool? }` (`principal: null`
    /// selects grants without one; a field of the wrong type matches nothing): `{ ok, removed }`.
    #[wasm_bindgen(js_name = revokeGrants)]
    pub fn revoke_grants(&mut self, filter: &[u8]) -> Vec<u8> {
        reply(read(filter).map(|filter| {
            let removed = RevokeFilter::from_value(&filter).map_or(0, |filter| self.engine.grants_mut().revoke(&filter));
            field("removed", removed)
        }))
    }

    /// Removes every grant from the book.
    #[wasm_bindgen(js_name = clearGrants)]
    pub fn clear_grants(&mut self) {
        self.engine.grants_mut().clear();
    }

    /// Every grant in the book, as the store keeps them: `{ ok, grants }`.
    #[wasm_bindgen(js_name = storedGrants)]
    pub fn stored_grants(&self) -> Vec<u8> {
        reply(Ok(field("grants", self.engine.governor().grants().to_value())))
    }

    /// A dry run of the policy for a tool on facts (see `Facts`); answers `{ ok, serverId,
    /// fingerprint, argsDigest, decision, functionPredicates }`.
    pub fn explain(&self, tool: u32, facts: &[u8]) -> Vec<u8> {
        let facts = Facts::read(facts).ok_or_else(|| ConfigError::new("invalid_input", "the dry run could not read its facts".into()));
        reply(facts.and_then(|facts| self.engine.explain(tool, facts.input()).map(explained).ok_or_else(|| unknown("tool"))))
    }

    /// Diagnostics of a policy: `{ ok, diagnostics: [{ code, message, path }] }`.
    #[wasm_bindgen(js_name = lintPolicy)]
    pub fn lint_policy(spec: &[u8]) -> Vec<u8> {
        reply(read(spec).map(|spec| field("diagnostics", Value::Array(lint(&spec).iter().map(|found| found.to_value()).collect()))))
    }
}
