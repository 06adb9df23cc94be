//! Boundary of governance: policy, pins, the tool filter, approvals, grants, dry runs and lint.

use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

use super::core::{answer, parse, to_json, Core};
use crate::engine::PolicyInput;
use crate::policy::{lint, read_grants, revoke_matches, Grant};

/// The facts the TS layer sends with a policy step, as JSON.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Facts {
    arguments: Value,
    #[serde(default)]
    principal: Option<String>,
    #[serde(default)]
    taint: Vec<String>,
    #[serde(default, deserialize_with = "lenient_grants")]
    grants: Vec<Grant>,
    now_ms: f64,
    #[serde(default)]
    has_approver: bool,
}

/// The store's grants, skipping entries that are not grants (see `read_grants`).
fn lenient_grants<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<Grant>, D::Error> {
    use serde::Deserialize;
    Value::deserialize(deserializer).map(|stored| read_grants(&stored))
}

impl Facts {
    fn input(&self) -> PolicyInput<'_> {
        PolicyInput {
            arguments: &self.arguments,
            principal: self.principal.as_deref(),
            taint: &self.taint,
            grants: &self.grants,
            now_ms: self.now_ms,
            has_approver: self.has_approver,
        }
    }
}

#[wasm_bindgen]
impl Core {
    /// Sets the policy (JSON; `null` removes it); answers `{ ok }` or the first problem.
    #[wasm_bindgen(js_name = setPolicy)]
    pub fn set_policy(&mut self, spec: &str) -> String {
        answer(parse(spec).and_then(|spec| self.engine.governor_mut().set_policy(&spec)).map(|()| json!({})))
    }

    /// Sets the explicit approved fingerprints (JSON object; `null` removes them).
    #[wasm_bindgen(js_name = setApprovedFingerprints)]
    pub fn set_approved_fingerprints(&mut self, spec: &str) -> String {
        answer(parse(spec).and_then(|spec| self.engine.governor_mut().set_approved(&spec)).map(|()| json!({})))
    }

    /// Sets the static tool filter `{ include?, exclude? }` (JSON; `null` removes it).
    #[wasm_bindgen(js_name = setToolFilter)]
    pub fn set_tool_filter(&mut self, spec: &str) -> String {
        answer(parse(spec).and_then(|spec| self.engine.governor_mut().set_filter(&spec)).map(|()| json!({})))
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

    /// Runs the policy step of a call on its facts (JSON, see `Facts`); returns the next
    /// action, packed. Facts that do not parse fail the call as invalid arguments.
    #[wasm_bindgen(js_name = policyStart)]
    pub fn policy_start(&mut self, call: u32, facts: &str) -> u32 {
        let action = match serde_json::from_str::<Facts>(facts) {
            Ok(facts) => self.engine.policy_start(call, facts.input()),
            Err(_) => self.engine.step(call, crate::call::Outcome::Invalid).map(|(action, _)| action),
        };
        action.map_or(0, |action| action.encode(false))
    }

    /// Compares the arguments about to reach the tool (JSON) with the digest policy saw;
    /// returns the next action, packed.
    #[wasm_bindgen(js_name = checkArgs)]
    pub fn check_args(&mut self, call: u32, arguments: &str) -> u32 {
        let arguments: Option<Value> = serde_json::from_str(arguments).ok();
        self.engine.check_args(call, arguments.as_ref()).map_or(0, |action| action.encode(false))
    }

    /// What the approver is shown of a call, as JSON `{ serverId, name, fingerprint,
    /// argsDigest, decision }`.
    #[wasm_bindgen(js_name = askFacts)]
    pub fn ask_facts(&mut self, call: u32) -> Option<String> {
        self.engine.ask_facts(call).map(|facts| to_json(&facts))
    }

    /// The grant `{ allow: 'always' }` records for a call, as JSON.
    #[wasm_bindgen(js_name = grantFor)]
    pub fn grant_for(&self, call: u32, principal: Option<String>, now_ms: f64, ttl_ms: f64) -> Option<String> {
        self.engine.grant_for(call, principal.as_deref(), now_ms, ttl_ms).map(|grant| to_json(&grant))
    }

    /// A dry run of the policy for a tool on facts (JSON); answers `{ ok, serverId,
    /// fingerprint, argsDigest, decision, functionPredicates }`.
    pub fn explain(&self, tool: u32, facts: &str) -> String {
        let explained = serde_json::from_str::<Facts>(facts)
            .ok()
            .and_then(|facts| self.engine.explain(tool, facts.input()))
            .and_then(|explained| serde_json::to_value(explained).ok());
        match explained {
            Some(value) => answer(Ok(value)),
            None => answer(Err(crate::error::ConfigError::new("invalid_input", "the dry run could not read its input".into()))),
        }
    }

    /// Diagnostics of a policy (JSON), as JSON `[{ code, message, path }]`.
    #[wasm_bindgen(js_name = lintPolicy)]
    pub fn lint_policy(spec: &str) -> String {
        match serde_json::from_str::<Value>(spec) {
            Ok(spec) => to_json(&lint(&spec)),
            Err(err) => to_json(&json!([{ "code": "invalid_policy", "message": format!("the policy cannot be read: {err}"), "path": "" }])),
        }
    }

    /// Which grants (JSON array) a revoke filter (JSON `{ principal?, server?, tool? }`, where
    /// `principal: null` selects grants without one) removes: a JSON array of booleans.
    #[wasm_bindgen(js_name = revokeMatches)]
    pub fn revoke_matches(grants: &str, filter: &str) -> String {
        let grants: Value = serde_json::from_str(grants).unwrap_or(Value::Null);
        let filter: Value = serde_json::from_str(filter).unwrap_or(Value::Null);
        to_json(&revoke_matches(&grants, &filter))
    }

    /// Whether a grant (JSON) is live at `now_ms`.
    #[wasm_bindgen(js_name = isGrantLive)]
    pub fn is_grant_live(grant: &str, now_ms: f64) -> bool {
        serde_json::from_str::<Grant>(grant).is_ok_and(|grant| grant.is_live(now_ms))
    }
}
