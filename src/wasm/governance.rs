//! Exports of governance: policy, pins, the tool filter, grants and lint.
//!
//! Every export is "decode → call the core → encode": values cross as wire buffers
//! (`src/wire.rs`), answers are `{ ok: true, … }` or `{ ok: false, error: { code, message,
//! path? } }`, scalars cross as scalars.

use wasm_bindgen::prelude::*;

use super::engines::{self, answer, decode, no_engine};
use crate::policy::{lint, Grant, RevokeFilter};
use crate::value::Value;

/// Sets the policy (`null` removes it); answers `{ ok }` or the first problem.
#[wasm_bindgen(js_name = setPolicy)]
pub fn set_policy(engine: u32, spec: &[u8]) -> Vec<u8> {
    engines::with(engine, |e| answer(decode(spec).and_then(|spec| e.governor_mut().set_policy(&spec)).map(|()| crate::object! {}))).unwrap_or_else(no_engine)
}

/// Sets `approvedFingerprints`: a `{ name: fingerprint }` map, `'first_listing'`, or `null`.
#[wasm_bindgen(js_name = setApprovedFingerprints)]
pub fn set_approved_fingerprints(engine: u32, spec: &[u8]) -> Vec<u8> {
    engines::with(engine, |e| answer(decode(spec).and_then(|spec| e.governor_mut().set_approved(&spec)).map(|()| crate::object! {}))).unwrap_or_else(no_engine)
}

/// Seals a `'first_listing'` baseline: called at the first listing and the first agent call.
#[wasm_bindgen(js_name = sealBaseline)]
pub fn seal_baseline(engine: u32) {
    engines::with(engine, crate::engine::Engine::seal_baseline);
}

/// Sets the static tool filter `{ include?, exclude? }` (`null` removes it).
#[wasm_bindgen(js_name = setToolFilter)]
pub fn set_tool_filter(engine: u32, spec: &[u8]) -> Vec<u8> {
    engines::with(engine, |e| answer(decode(spec).and_then(|spec| e.governor_mut().set_filter(&spec)).map(|()| crate::object! {}))).unwrap_or_else(no_engine)
}

/// Whether the static tool filter lets agents see the tool.
#[wasm_bindgen(js_name = isVisible)]
pub fn is_visible(engine: u32, tool: u32) -> bool {
    engines::with(engine, |e| e.is_visible(tool)).unwrap_or(false)
}

/// Records a tool's baseline definition (at registration or first listing).
#[wasm_bindgen(js_name = recordBaseline)]
pub fn record_baseline(engine: u32, tool: u32) {
    engines::with(engine, |e| e.record_baseline(tool));
}

/// Records the grant `{ allow: 'always' }` makes for a call in the book; answers `{ ok,
/// grant }` (the TS layer then saves the book).
#[wasm_bindgen(js_name = recordGrant)]
pub fn record_grant(engine: u32, call: u32, principal: Option<String>, now_ms: f64, ttl_ms: f64) -> Vec<u8> {
    engines::with(engine, |e| {
        let grant = e.record_grant(call, principal.as_deref(), now_ms, ttl_ms);
        answer(grant.map(|grant| crate::object! { "grant" => grant.to_value() }).ok_or_else(|| crate::error::ConfigError::new("unknown_handle", "no call with this handle".into())))
    })
    .unwrap_or_else(no_engine)
}

/// Removes a grant the store could not keep, if the book holds exactly it.
#[wasm_bindgen(js_name = forgetGrant)]
pub fn forget_grant(engine: u32, grant: &[u8]) -> bool {
    let grant = crate::wire::decode(grant).ok().as_ref().and_then(Grant::from_value);
    engines::with(engine, |e| grant.is_some_and(|grant| e.governor_mut().grants_mut().forget(&grant))).unwrap_or(false)
}

/// Adds what the grant store holds (an array) to the book; answers `{ ok, read }`, how many
/// entries were grants (the others are skipped).
#[wasm_bindgen(js_name = loadGrants)]
pub fn load_grants(engine: u32, stored: &[u8]) -> Vec<u8> {
    engines::with(engine, |e| answer(decode(stored).map(|stored| crate::object! { "read" => e.governor_mut().grants_mut().load(&stored) }))).unwrap_or_else(no_engine)
}

/// The live grants at `now_ms`, after dropping the expired ones: `{ ok, grants, pruned }`.
#[wasm_bindgen(js_name = listGrants)]
pub fn list_grants(engine: u32, now_ms: f64) -> Vec<u8> {
    engines::with(engine, |e| {
        let book = e.governor_mut().grants_mut();
        let pruned = book.prune(now_ms);
        answer(Ok(crate::object! { "grants" => book.to_value(), "pruned" => pruned }))
    })
    .unwrap_or_else(no_engine)
}

/// Revokes the grants matching a filter `{ principal?, server?, tool? }` (`principal: null`
/// selects grants without one; a field of the wrong type matches nothing): `{ ok, removed }`.
#[wasm_bindgen(js_name = revokeGrants)]
pub fn revoke_grants(engine: u32, filter: &[u8]) -> Vec<u8> {
    engines::with(engine, |e| {
        answer(decode(filter).map(|filter| {
            let removed = RevokeFilter::from_value(&filter).map_or(0, |filter| e.governor_mut().grants_mut().revoke(&filter));
            crate::object! { "removed" => removed }
        }))
    })
    .unwrap_or_else(no_engine)
}

/// Removes every grant from the book.
#[wasm_bindgen(js_name = clearGrants)]
pub fn clear_grants(engine: u32) {
    engines::with(engine, |e| e.governor_mut().grants_mut().clear());
}

/// Every grant in the book, as the store keeps them: `{ ok, grants }`.
#[wasm_bindgen(js_name = storedGrants)]
pub fn stored_grants(engine: u32) -> Vec<u8> {
    engines::with(engine, |e| answer(Ok(crate::object! { "grants" => e.governor().grants().to_value() }))).unwrap_or_else(no_engine)
}

/// Diagnostics of a policy: `{ ok, diagnostics: [{ code, message, path }] }`.
#[wasm_bindgen(js_name = lintPolicy)]
pub fn lint_policy(spec: &[u8]) -> Vec<u8> {
    answer(decode(spec).map(|spec| crate::object! { "diagnostics" => Value::Array(lint(&spec).iter().map(|found| found.to_value()).collect()) }))
}
