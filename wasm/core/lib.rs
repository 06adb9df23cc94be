//! The core module: the bindings of the decision core (`webmcp_warden`) that a page compiles
//! synchronously at its first `webmcp()`. Converts between JS values and core types; every
//! export reads as "decode → ask the core → encode".
//!
//! Crossing strategy (`ARCHITECTURE.md`, "Crossing the boundary"): the per-call hot path crosses
//! with scalars only (`begin`, `step`, `end` take and return integers); configuration, facts and
//! answers cross as one wire buffer (`webmcp_warden::wire`). Problems come back as data
//! (`{ ok: false, error }`); nothing here throws for bad user input.
//!
//! There are no `#[wasm_bindgen]` classes: engines live in a table ([`engines`]) and exports take
//! an engine id, so the TS layer can replace an instance that trapped without a finalizer of the
//! old instance freeing pointers in the new one.
//!
//! The exports here are engines, hook sets, tools, scopes, calls and listings. Defining them is
//! a step of `configure` ([`configure`]); dropping them, calls and listings take scalars here.
//! Patterns run on the page's engines (`warden_host`).

#![cfg(target_arch = "wasm32")]
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

// Linked for what they do when the module starts or allocates: the page's pattern engines and the allocator.
use warden_host as _;
use warden_wasm as _;

mod configure;
mod engines;
mod governance;

use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec::Vec;

use wasm_bindgen::prelude::*;

use webmcp_warden::call::{PolicyFacts, Signal, StepReport};
use webmcp_warden::engine::CallFlags;
use webmcp_warden::returns::{Contract, ReturnFacts};
use webmcp_warden::value::Value;
use webmcp_warden::wire::{Control, Read};

/// Creates an engine (one per client object); answers its id.
#[wasm_bindgen(js_name = engineNew)]
pub fn engine_new() -> u32 {
    engines::create()
}

/// Runs control step `step` (`wire::Control`) on engine `engine` with its one argument.
#[wasm_bindgen]
pub fn control(engine: u32, step: u32, arg: u32) -> u32 {
    let Some(step) = Control::from_code(step) else { return 0 };
    if step == Control::EngineDrop {
        engines::remove(engine);
        return 0;
    }
    engines::with(engine, |e| {
        match step {
            Control::EngineDrop => {}
            Control::DropHookSet => e.drop_hook_set(arg),
            Control::DropTool => e.drop_tool(arg),
            Control::DropScope => e.drop_scope(arg),
            Control::SetHookReturns => e.set_contract(if arg == 1 { Contract::Strict } else { Contract::Lenient }),
            Control::SealBaseline => e.seal_baseline(),
            Control::RecordBaseline => e.record_baseline(arg),
            Control::ClearGrants => e.governor_mut().grants_mut().clear(),
            Control::IsVisible => return u32::from(e.is_visible(arg)),
            Control::SetUnsafePatterns => e.set_unsafe_patterns(arg == 1),
            Control::SetRebaseline => e.governor_mut().set_rebaseline(arg == 1),
        }
        0
    })
    .unwrap_or(0)
}

/// What `what` (`wire::Read`) says about call or listing `id` of engine `engine`, encoded
/// (`null` for an unknown engine, call or listing).
#[wasm_bindgen]
pub fn read(engine: u32, what: u32, id: u32) -> Vec<u8> {
    let value = Read::from_code(what).and_then(|what| {
        engines::with(engine, |e| match what {
            Read::CallError => e.call(id).and_then(|call| call.error()).map(webmcp_warden::call::CallError::to_value),
            Read::CallDecision => e.call(id).and_then(|call| call.decision()).map(webmcp_warden::call::decision_value),
            Read::AskFacts => e.ask_facts(id).map(|facts| webmcp_warden::object! { "serverId" => facts.server_id, "name" => facts.name, "fingerprint" => facts.fingerprint }),
            Read::EndListing => e.end_listing(id),
            Read::CurrentHookId => e.call(id).and_then(|call| call.current_hook_id()).map(Value::from),
            Read::LastHookId => e.call(id).and_then(|call| call.last_hook_id()).map(Value::from),
            Read::ListingHookId => e.listing(id).and_then(|listing| listing.current_hook_id()).map(Value::from),
        })
        .flatten()
    });
    webmcp_warden::wire::encode(&value.unwrap_or(Value::Null))
}

/// Back to defaults (`resetWebMCP()`), keeping tools; answers the hook sets it forgot.
#[wasm_bindgen(js_name = engineReset)]
pub fn engine_reset(engine: u32) -> Vec<u32> {
    engines::with(engine, webmcp_warden::engine::Engine::reset).unwrap_or_default()
}

/// How many hook sets, hooks, tools, scopes, plans, calls and listings an engine holds.
#[wasm_bindgen(js_name = engineCounts)]
pub fn engine_counts(engine: u32) -> Vec<u32> {
    engines::with(engine, |e| {
        // Loops rather than `map(..).collect()` in this file: each collect is a generic
        // instance of its own (with its extend path) in the module.
        let mut counts = Vec::new();
        for n in &e.counts() {
            counts.push(u32::try_from(*n).unwrap_or(u32::MAX));
        }
        counts
    })
    .unwrap_or_default()
}

/// Removes every global hook; answers the sets removed.
#[wasm_bindgen(js_name = clearGlobal)]
pub fn clear_global(engine: u32) -> Vec<u32> {
    engines::with(engine, webmcp_warden::engine::Engine::clear_global).unwrap_or_default()
}

/// Sets the default server id.
#[wasm_bindgen(js_name = setServerId)]
pub fn set_server_id(engine: u32, server_id: &str) {
    engines::with(engine, |e| e.set_server_id(server_id));
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
fn started(engine: &mut webmcp_warden::engine::Engine, call: Option<u32>, signal: u32) -> Option<f64> {
    let call = call?;
    let action = engine.step(call, StepReport::Start, ReturnFacts::default(), &Value::Null, Signal::from_code(signal), 0.0)?;
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

/// Feeds a report (no payload); answers the next action, packed (`0`: unknown call).
#[wasm_bindgen]
pub fn step(engine: u32, call: u32, report: u32, facts: u32, signal: u32, duration_ms: f64) -> u32 {
    step_with(engine, call, report, facts, signal, duration_ms, &[])
}

/// Feeds a report with its payload (a wire buffer); answers the next action, packed.
#[wasm_bindgen(js_name = stepWith)]
pub fn step_with(engine: u32, call: u32, report: u32, facts: u32, signal: u32, duration_ms: f64, payload: &[u8]) -> u32 {
    let payload = if payload.is_empty() { Value::Null } else { webmcp_warden::wire::decode(payload).unwrap_or(Value::Null) };
    let Some(report) = StepReport::from_code(report) else { return 0 };
    engines::with(engine, |e| e.step(call, report, ReturnFacts(facts), &payload, Signal::from_code(signal), duration_ms))
        .flatten()
        .map_or(0, |action| action.encode())
}

/// Runs the policy step on its facts (`{ arguments?, principal?, taint, nowMs, argsDigest?,
/// exposedTo? }`);
/// answers the next action, packed.
#[wasm_bindgen(js_name = policyFacts)]
pub fn policy_facts(engine: u32, call: u32, facts: &[u8], signal: u32) -> u32 {
    let facts = webmcp_warden::wire::decode(facts).unwrap_or(Value::Null);
    let facts = PolicyFacts {
        arguments: facts.get("arguments").cloned().unwrap_or(Value::Null),
        principal: facts.get("principal").and_then(Value::as_str).map(str::to_owned),
        taint: strings(facts.get("taint")),
        now_ms: facts.get("nowMs").and_then(Value::as_f64).unwrap_or(0.0),
        args_digest: facts.get("argsDigest").and_then(Value::as_str).map(str::to_owned),
        exposed_to: strings(facts.get("exposedTo")),
    };
    engines::with(engine, |e| e.policy_facts(call, &facts, Signal::from_code(signal))).flatten().map_or(0, |action| action.encode())
}

/// The strings of an array, in order (other items skipped); none for anything else.
fn strings(value: Option<&Value>) -> Vec<String> {
    let mut texts = Vec::new();
    for item in value.and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default() {
        if let Some(text) = item.as_str() {
            texts.push(text.to_owned());
        }
    }
    texts
}

/// Ends a call: `{ ok, error?, text?, decision?, record? }`, or a dry run's explanation.
#[wasm_bindgen]
pub fn end(engine: u32, call: u32) -> Vec<u8> {
    let value = engines::with(engine, |e| e.end(call)).flatten();
    webmcp_warden::wire::encode(&value.unwrap_or(Value::Null))
}

/// Starts a listing of `tools` under `scopes` (same length); `-1` when too many are open.
#[wasm_bindgen(js_name = beginListing)]
pub fn begin_listing(engine: u32, tools: &[u32], scopes: &[u32]) -> i32 {
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for (tool, scope) in tools.iter().zip(scopes) {
        pairs.push((*tool, *scope));
    }
    engines::with(engine, |e| e.begin_listing(&pairs).ok().and_then(|listing| i32::try_from(listing).ok())).flatten().unwrap_or(-1)
}

/// Feeds a listing hook's report (payload: `{ names }` for an array); answers the next action.
#[wasm_bindgen(js_name = listingStep)]
pub fn listing_step(engine: u32, listing: u32, report: u32, facts: u32, duration_ms: f64, payload: &[u8]) -> u32 {
    let payload = if payload.is_empty() { Value::Null } else { webmcp_warden::wire::decode(payload).unwrap_or(Value::Null) };
    let Some(report) = StepReport::from_code(report) else { return 0 };
    engines::with(engine, |e| e.listing_step(listing, report, ReturnFacts(facts), &payload, duration_ms)).flatten().map_or(0, |action| action.encode())
}

/// The tools (indexes) the current listing hook is given.
#[wasm_bindgen(js_name = listingGiven)]
pub fn listing_given(engine: u32, listing: u32) -> Vec<u32> {
    engines::with(engine, |e| e.listing(listing).map(webmcp_warden::listing::Listing::given)).flatten().unwrap_or_default()
}

/// Aborts the instance with a wasm trap, as an out-of-memory would: for the tests that prove a
/// trapped instance is replaced and its configuration restored. Never called by the package.
#[wasm_bindgen(js_name = __testTrap)]
pub fn test_trap() {
    core::arch::wasm32::unreachable();
}

/// Lowercase hex SHA-256 of a text's UTF-8 bytes (the TS layer hashes canonical JSON with it).
#[wasm_bindgen(js_name = sha256Hex)]
pub fn sha256_hex(text: &str) -> String {
    webmcp_warden::digest::sha256_hex(text.as_bytes())
}

/// The explanation of a dry run for a tool no agent can see.
#[wasm_bindgen(js_name = explainUnknown)]
pub fn explain_unknown(name: &str) -> Vec<u8> {
    webmcp_warden::wire::encode(&webmcp_warden::call::unknown_tool_explanation(name))
}

