//! Exports of the core module: engines, hook sets, tools, scopes, calls and listings.

use wasm_bindgen::prelude::*;

use super::engines::{self, answer, decode, no_engine};
use crate::call::{Outcome, PolicyFacts, Signal};
use crate::engine::CallFlags;
use crate::returns::{Contract, ReturnFacts};
use crate::value::Value;

/// Creates an engine (one per client object); answers its id.
#[wasm_bindgen(js_name = engineNew)]
pub fn engine_new() -> u32 {
    engines::create()
}

/// Disposes of an engine and everything it holds.
#[wasm_bindgen(js_name = engineDrop)]
pub fn engine_drop(engine: u32) {
    engines::remove(engine);
}

/// Back to defaults (`resetWebMCP()`), keeping tools; answers the hook sets it forgot.
#[wasm_bindgen(js_name = engineReset)]
pub fn engine_reset(engine: u32) -> Vec<u32> {
    engines::with(engine, crate::engine::Engine::reset).unwrap_or_default()
}

/// How many hook sets, hooks, tools, scopes, plans, calls and listings an engine holds.
#[wasm_bindgen(js_name = engineCounts)]
pub fn engine_counts(engine: u32) -> Vec<u32> {
    engines::with(engine, |e| e.counts().iter().map(|n| u32::try_from(*n).unwrap_or(u32::MAX)).collect()).unwrap_or_default()
}

/// Checks and stores a hook set; answers `{ ok, hooks: [[handle, event, timeout | null]] }`.
#[wasm_bindgen(js_name = defineHookSet)]
pub fn define_hook_set(engine: u32, set: u32, spec: &[u8], label: &str) -> Vec<u8> {
    engines::with(engine, |e| {
        answer(decode(spec).and_then(|spec| {
            e.define_hook_set(set, &spec, label)?;
            let hooks = e
                .set_hooks(set)
                .into_iter()
                .map(|(handle, event, timeout)| Value::Array(vec![handle.into(), (event as u32).into(), timeout.into()]))
                .collect();
            Ok(crate::object! { "hooks" => Value::Array(hooks) })
        }))
    })
    .unwrap_or_else(no_engine)
}

/// Forgets a hook set.
#[wasm_bindgen(js_name = dropHookSet)]
pub fn drop_hook_set(engine: u32, set: u32) {
    engines::with(engine, |e| e.drop_hook_set(set));
}

/// Adds a set to the global hooks (or makes it the only one); answers `{ ok, replaced }`.
#[wasm_bindgen(js_name = addGlobal)]
pub fn add_global(engine: u32, set: u32, replace: bool, label: &str) -> Vec<u8> {
    engines::with(engine, |e| answer(e.add_global(set, replace, label).map(|replaced| crate::object! { "replaced" => replaced })))
        .unwrap_or_else(no_engine)
}

/// Removes every global hook; answers the sets removed.
#[wasm_bindgen(js_name = clearGlobal)]
pub fn clear_global(engine: u32) -> Vec<u32> {
    engines::with(engine, crate::engine::Engine::clear_global).unwrap_or_default()
}

/// Sets the default server id.
#[wasm_bindgen(js_name = setServerId)]
pub fn set_server_id(engine: u32, server_id: &str) {
    engines::with(engine, |e| e.set_server_id(server_id));
}

/// Sets the hook return contract: `strict` (ConduitMCP's) or not (simple-webmcp's meaning).
#[wasm_bindgen(js_name = setHookReturns)]
pub fn set_hook_returns(engine: u32, strict: bool) {
    engines::with(engine, |e| e.set_contract(if strict { Contract::Strict } else { Contract::Lenient }));
}

/// Defines a tool from its definition (`{ name, annotations?, canonical: { name, title?,
/// description?, inputSchema?, outputSchema?, annotations? } }`, each member of `canonical` the
/// RFC 8785 text of that field, written by the TS layer); answers `{ ok, fingerprint }`.
#[wasm_bindgen(js_name = defineTool)]
pub fn define_tool(engine: u32, tool: u32, definition: &[u8], server: Option<String>, sets: &[u32], label: &str) -> Vec<u8> {
    engines::with(engine, |e| {
        answer(decode(definition).and_then(|definition| {
            let definition = crate::governor::Definition::from_value(&definition)?;
            let fingerprint = definition.fingerprint.clone();
            e.define_tool(tool, definition, server, sets.to_vec(), label)?;
            Ok(crate::object! { "fingerprint" => fingerprint })
        }))
    })
    .unwrap_or_else(no_engine)
}

/// Defines a resource (`subject` 1, its definition named by its URI or URI template) or a
/// prompt (`subject` 2) as `defineTool` does a tool (`subject` 0); answers `{ ok, fingerprint }`.
#[wasm_bindgen(js_name = defineSubject)]
pub fn define_subject(engine: u32, id: u32, subject: u32, definition: &[u8], server: Option<String>, sets: &[u32], label: &str) -> Vec<u8> {
    engines::with(engine, |e| {
        answer(decode(definition).and_then(|definition| {
            let subject = crate::hooks::Subject::from_code(subject).ok_or_else(|| crate::error::ConfigError::new("invalid_wire", "an unknown subject".into()))?;
            let definition = crate::governor::Definition::from_value(&definition)?;
            let fingerprint = definition.fingerprint.clone();
            e.define_subject(id, subject, definition, server, sets.to_vec(), label)?;
            Ok(crate::object! { "fingerprint" => fingerprint })
        }))
    })
    .unwrap_or_else(no_engine)
}

/// Defines a tool that runs its own hook sets only; answers `{ ok }`.
#[wasm_bindgen(js_name = defineStandaloneTool)]
pub fn define_standalone_tool(engine: u32, tool: u32, name: &str, sets: &[u32], label: &str) -> Vec<u8> {
    engines::with(engine, |e| answer(e.define_standalone_tool(tool, name, sets.to_vec(), label).map(|()| crate::object! {}))).unwrap_or_else(no_engine)
}

/// Forgets a tool.
#[wasm_bindgen(js_name = dropTool)]
pub fn drop_tool(engine: u32, tool: u32) {
    engines::with(engine, |e| e.drop_tool(tool));
}

/// Adds a provider scope; answers `{ ok }`.
#[wasm_bindgen(js_name = defineScope)]
pub fn define_scope(engine: u32, scope: u32, parent: u32, set: Option<u32>, label: &str) -> Vec<u8> {
    engines::with(engine, |e| answer(e.define_scope(scope, parent, set, label).map(|()| crate::object! {}))).unwrap_or_else(no_engine)
}

/// Forgets a provider scope.
#[wasm_bindgen(js_name = dropScope)]
pub fn drop_scope(engine: u32, scope: u32) {
    engines::with(engine, |e| e.drop_scope(scope));
}

/// Starts a call (flags: see `CallFlags`) and takes its first step, in one crossing: answers
/// `call * 2^32 + action` (the call's handle and its first action, packed; exact in a double,
/// calls being fewer than 2^20), or `-1` when the tool's hooks cannot be planned (read why
/// with `planError`).
#[wasm_bindgen]
pub fn begin(engine: u32, tool: u32, scope: u32, flags: u32, signal: u32) -> f64 {
    engines::with(engine, |e| {
        let call = e.begin(tool, scope, CallFlags(flags)).ok();
        started(e, call, signal)
    })
    .flatten()
    .unwrap_or(-1.0)
}

/// The call `begin` made, stepped to its first action and packed as `begin` answers.
fn started(engine: &mut crate::engine::Engine, call: Option<u32>, signal: u32) -> Option<f64> {
    let call = call?;
    let action = engine.step(call, Outcome::Start, ReturnFacts::default(), &Value::Null, Signal::from_code(signal), 0.0)?;
    Some(f64::from(call) * 4_294_967_296.0 + f64::from(action.encode()))
}

/// Starts a call about `target` (the URI a resource read reads): its hooks and policy rules
/// match that URI. Answers as `begin`.
#[wasm_bindgen(js_name = beginAt)]
pub fn begin_at(engine: u32, tool: u32, scope: u32, flags: u32, target: &str, signal: u32) -> f64 {
    engines::with(engine, |e| {
        let call = e.begin_at(tool, scope, CallFlags(flags), Some(target)).ok();
        started(e, call, signal)
    })
    .flatten()
    .unwrap_or(-1.0)
}

/// Why a tool's hooks cannot be planned under a scope: `{ ok }` or `{ ok: false, error }`.
#[wasm_bindgen(js_name = planError)]
pub fn plan_error(engine: u32, tool: u32, scope: u32) -> Vec<u8> {
    engines::with(engine, |e| answer(e.plan(tool, scope).map(|_| crate::object! {}))).unwrap_or_else(no_engine)
}

/// Feeds an outcome (no payload); answers the next action, packed (`0`: unknown call).
#[wasm_bindgen]
pub fn step(engine: u32, call: u32, outcome: u32, facts: u32, signal: u32, duration_ms: f64) -> u32 {
    step_with(engine, call, outcome, facts, signal, duration_ms, &[])
}

/// Feeds an outcome with its payload (a wire buffer); answers the next action, packed.
#[wasm_bindgen(js_name = stepWith)]
pub fn step_with(engine: u32, call: u32, outcome: u32, facts: u32, signal: u32, duration_ms: f64, payload: &[u8]) -> u32 {
    let payload = if payload.is_empty() { Value::Null } else { crate::wire::decode(payload).unwrap_or(Value::Null) };
    let Some(outcome) = Outcome::from_code(outcome) else { return 0 };
    engines::with(engine, |e| e.step(call, outcome, ReturnFacts(facts), &payload, Signal::from_code(signal), duration_ms))
        .flatten()
        .map_or(0, |action| action.encode())
}

/// Runs the policy step on its facts (`{ arguments?, principal?, taint, nowMs, argsDigest? }`);
/// answers the next action, packed.
#[wasm_bindgen(js_name = policyFacts)]
pub fn policy_facts(engine: u32, call: u32, facts: &[u8], signal: u32) -> u32 {
    let facts = crate::wire::decode(facts).unwrap_or(Value::Null);
    let facts = PolicyFacts {
        arguments: facts.get("arguments").cloned().unwrap_or(Value::Null),
        principal: facts.get("principal").and_then(Value::as_str).map(str::to_owned),
        taint: facts.get("taint").and_then(Value::as_array).map(|items| items.iter().filter_map(Value::as_str).map(str::to_owned).collect()).unwrap_or_default(),
        now_ms: facts.get("nowMs").and_then(Value::as_f64).unwrap_or(0.0),
        args_digest: facts.get("argsDigest").and_then(Value::as_str).map(str::to_owned),
    };
    engines::with(engine, |e| e.policy_facts(call, &facts, Signal::from_code(signal))).flatten().map_or(0, |action| action.encode())
}

/// The id of the hook a call is at (for telemetry).
#[wasm_bindgen(js_name = currentHookId)]
pub fn current_hook_id(engine: u32, call: u32) -> Option<String> {
    engines::with(engine, |e| e.call(call).and_then(|call| call.current_hook_id()).map(str::to_owned)).flatten()
}

/// A call's failure so far (`null` when it has none), for error and denied hooks.
#[wasm_bindgen(js_name = callError)]
pub fn call_error(engine: u32, call: u32) -> Vec<u8> {
    let error = engines::with(engine, |e| e.call(call).and_then(|call| call.error()).map(crate::call::CallError::to_value)).flatten();
    crate::wire::encode(&error.unwrap_or(Value::Null))
}

/// A call's policy decision (`null` before there is one).
#[wasm_bindgen(js_name = callDecision)]
pub fn call_decision(engine: u32, call: u32) -> Vec<u8> {
    let decision = engines::with(engine, |e| e.call(call).and_then(|call| call.decision()).map(crate::call::decision_value)).flatten();
    crate::wire::encode(&decision.unwrap_or(Value::Null))
}

/// What the approver and predicates are shown of a call: `{ serverId, name, fingerprint }`.
#[wasm_bindgen(js_name = askFacts)]
pub fn ask_facts(engine: u32, call: u32) -> Vec<u8> {
    let facts = engines::with(engine, |e| e.ask_facts(call)).flatten();
    let value = facts.map_or(Value::Null, |facts| crate::object! { "serverId" => facts.server_id, "name" => facts.name, "fingerprint" => facts.fingerprint });
    crate::wire::encode(&value)
}

/// Ends a call: `{ ok, error?, text?, decision?, record? }`, or a dry run's explanation.
#[wasm_bindgen]
pub fn end(engine: u32, call: u32) -> Vec<u8> {
    let value = engines::with(engine, |e| e.end(call)).flatten();
    crate::wire::encode(&value.unwrap_or(Value::Null))
}

/// Starts a listing of `tools` under `scopes` (same length); `-1` when too many are open.
#[wasm_bindgen(js_name = beginListing)]
pub fn begin_listing(engine: u32, tools: &[u32], scopes: &[u32]) -> i32 {
    let pairs: Vec<(u32, u32)> = tools.iter().copied().zip(scopes.iter().copied()).collect();
    engines::with(engine, |e| e.begin_listing(&pairs).ok().and_then(|listing| i32::try_from(listing).ok())).flatten().unwrap_or(-1)
}

/// Feeds a listing hook's outcome (payload: `{ names }` for an array); answers the next action.
#[wasm_bindgen(js_name = listingStep)]
pub fn listing_step(engine: u32, listing: u32, outcome: u32, facts: u32, duration_ms: f64, payload: &[u8]) -> u32 {
    let payload = if payload.is_empty() { Value::Null } else { crate::wire::decode(payload).unwrap_or(Value::Null) };
    let Some(outcome) = Outcome::from_code(outcome) else { return 0 };
    engines::with(engine, |e| e.listing_step(listing, outcome, ReturnFacts(facts), &payload, duration_ms)).flatten().map_or(0, |action| action.encode())
}

/// The tools (indexes) the current listing hook is given.
#[wasm_bindgen(js_name = listingGiven)]
pub fn listing_given(engine: u32, listing: u32) -> Vec<u32> {
    engines::with(engine, |e| e.listing(listing).map(crate::listing::Listing::given)).flatten().unwrap_or_default()
}

/// The id of the current listing hook.
#[wasm_bindgen(js_name = listingHookId)]
pub fn listing_hook_id(engine: u32, listing: u32) -> Option<String> {
    engines::with(engine, |e| e.listing(listing).and_then(|l| l.current_hook_id()).map(str::to_owned)).flatten()
}

/// Ends a listing: `{ ok, listed }` or `{ ok: false, error }`.
#[wasm_bindgen(js_name = endListing)]
pub fn end_listing(engine: u32, listing: u32) -> Vec<u8> {
    let value = engines::with(engine, |e| e.end_listing(listing)).flatten();
    crate::wire::encode(&value.unwrap_or(Value::Null))
}

/// Aborts the instance with a wasm trap, as an out-of-memory would: for the tests that prove a
/// trapped instance is replaced and its configuration restored. Never called by the package.
#[wasm_bindgen(js_name = __testTrap)]
pub fn test_trap() {
    std::process::abort();
}

/// Lowercase hex SHA-256 of a text's UTF-8 bytes (the TS layer hashes canonical JSON with it).
#[wasm_bindgen(js_name = sha256Hex)]
pub fn sha256_hex(text: &str) -> String {
    crate::digest::sha256_hex(text.as_bytes())
}

/// The explanation of a dry run for a tool no agent can see.
#[wasm_bindgen(js_name = explainUnknown)]
pub fn explain_unknown(name: &str) -> Vec<u8> {
    crate::wire::encode(&crate::call::unknown_tool_explanation(name))
}

/// The id of the last hook whose outcome a call reported (for the TS layer's warnings).
#[wasm_bindgen(js_name = lastHookId)]
pub fn last_hook_id(engine: u32, call: u32) -> Option<String> {
    engines::with(engine, |e| e.call(call).and_then(|call| call.last_hook_id()).map(str::to_owned)).flatten()
}
