//! Exports of governance: policy, pins, the tool filter, grants and lint.
//!
//! TRANSITION: these still take JSON text; they move to wire buffers with the policy slice.

use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

use super::engines;
use crate::policy::{lint, read_grants, revoke_matches, Grant};

fn to_json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| r#"{"ok":false,"error":{"code":"internal","message":"could not encode the answer"}}"#.to_owned())
}

fn answer(result: Result<(), crate::error::ConfigError>) -> String {
    match result {
        Ok(()) => r#"{"ok":true}"#.to_owned(),
        Err(error) => to_json(&json!({ "ok": false, "error": error })),
    }
}

fn parse(spec: &str) -> Result<Value, crate::error::ConfigError> {
    serde_json::from_str(spec).map_err(|err| crate::error::ConfigError::new("invalid_json", format!("the core could not read its input: {err}")))
}

/// Sets the policy (JSON; `null` removes it); answers `{ ok }` or the first problem.
#[wasm_bindgen(js_name = setPolicy)]
pub fn set_policy(engine: u32, spec: &str) -> String {
    engines::with(engine, |e| answer(parse(spec).and_then(|spec| e.governor_mut().set_policy(&spec)))).unwrap_or_default()
}

/// Sets the explicit approved fingerprints (JSON object; `null` removes them).
#[wasm_bindgen(js_name = setApprovedFingerprints)]
pub fn set_approved_fingerprints(engine: u32, spec: &str) -> String {
    engines::with(engine, |e| answer(parse(spec).and_then(|spec| e.governor_mut().set_approved(&spec)))).unwrap_or_default()
}

/// Sets the static tool filter `{ include?, exclude? }` (JSON; `null` removes it).
#[wasm_bindgen(js_name = setToolFilter)]
pub fn set_tool_filter(engine: u32, spec: &str) -> String {
    engines::with(engine, |e| answer(parse(spec).and_then(|spec| e.governor_mut().set_filter(&spec)))).unwrap_or_default()
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

/// Replaces the grants the engine holds with the store's (JSON array; entries that are not
/// grants are skipped).
#[wasm_bindgen(js_name = loadGrants)]
pub fn load_grants(engine: u32, grants: &str) {
    let stored: Value = serde_json::from_str(grants).unwrap_or(Value::Null);
    engines::with(engine, |e| e.governor_mut().set_grants(read_grants(&stored)));
}

/// The grants the engine holds, as JSON, for the store.
#[wasm_bindgen(js_name = grantsSnapshot)]
pub fn grants_snapshot(engine: u32) -> String {
    engines::with(engine, |e| to_json(&e.governor().grants())).unwrap_or_else(|| "[]".to_owned())
}

/// Diagnostics of a policy (JSON), as JSON `[{ code, message, path }]`.
#[wasm_bindgen(js_name = lintPolicy)]
pub fn lint_policy(spec: &str) -> String {
    match serde_json::from_str::<Value>(spec) {
        Ok(spec) => to_json(&lint(&spec)),
        Err(err) => to_json(&json!([{ "code": "invalid_policy", "message": format!("the policy cannot be read: {err}"), "path": "" }])),
    }
}

/// Which grants (JSON array) a revoke filter (JSON `{ principal?, server?, tool? }`) removes.
#[wasm_bindgen(js_name = revokeMatches)]
pub fn revoke_matches_json(grants: &str, filter: &str) -> String {
    let grants: Value = serde_json::from_str(grants).unwrap_or(Value::Null);
    let filter: Value = serde_json::from_str(filter).unwrap_or(Value::Null);
    to_json(&revoke_matches(&grants, &filter))
}

/// Whether a grant (JSON) is live at `now_ms`.
#[wasm_bindgen(js_name = isGrantLive)]
pub fn is_grant_live(grant: &str, now_ms: f64) -> bool {
    serde_json::from_str::<Grant>(grant).is_ok_and(|grant| grant.is_live(now_ms))
}
