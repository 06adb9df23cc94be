//! The limits module's exports: the policy's `limits`, compiled, counted and decided (`webmcp_warden::policy::Limits`, `LimitBook`). A
//! module of its own, which a page compiles when it imports `webmcp-warden/limits`: the core a
//! page downloads at import carries none of it (`docs/behaviour.md`, "Limits").
//!
//! One state per client, by the id its TS layer chose: the compiled limits, their counts, which
//! limits select each tool (found once per tool), the keys each call in flight holds (by a
//! token the call gives back when it ends), and the last limit a check found passed. The hot path
//! crosses with scalars: a check answers one number; the decision of a passed limit is read only
//! then.

#![cfg(target_arch = "wasm32")]
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

// Linked for what it does when the module starts: the page's pattern engines.
use warden_host as _;
use warden_wasm::borrow;

use alloc::string::String;
use alloc::vec::Vec;
use core::cell::RefCell;

use wasm_bindgen::__rt::LazyCell;
use wasm_bindgen::prelude::*;

use webmcp_warden::policy::{Held, LimitBook, LimitFacts, Limits, Verdict};
use webmcp_warden::value::Value;

/// One client's limits and counts.
#[derive(Default)]
struct Client {
    limits: Limits,
    book: LimitBook,
    /// `(server, tool, the limits selecting it)`, by the number the TS layer knows it by: one
    /// entry per tool of the page a call reached (names the page defines, never the agent).
    tools: Vec<(String, String, Vec<usize>)>,
    /// The keys each call in flight holds, by token.
    held: Vec<(u32, Vec<Held>)>,
    /// The emptied vectors of ended calls, for the next calls to hold their keys in.
    spare: Vec<Vec<Held>>,
    next_token: u32,
    /// The decision of the limit the last check found passed.
    hit: Option<Value>,
    /// The principal the last check was given (`None`: none): a check of the same one does not
    /// send it again.
    principal: Option<String>,
}

/// How many emptied vectors a client keeps for its next calls.
const SPARE: usize = 8;

/// The clients, by id (a `LazyCell`: `webmcp_warden::pattern` says why this cell).
static CLIENTS: LazyCell<RefCell<Vec<Option<Client>>>> = LazyCell::new(|| RefCell::new(Vec::new()));

/// Runs `f` on client `id`'s state, made when `make` says so and it has none.
fn with<R>(id: u32, make: bool, f: impl FnOnce(&mut Client) -> R) -> Option<R> {
    let mut clients = borrow(&CLIENTS);
    let index = id as usize;
    while make && clients.len() <= index {
        clients.push(None);
    }
    let slot = clients.get_mut(index)?;
    if make && slot.is_none() {
        *slot = Some(Client::default());
    }
    slot.as_mut().map(f)
}

/// Compiles client `id`'s limits (the policy's `limits` member, wire-encoded; `null`: none),
/// keeping the counts of the limits it had that are still there. Answers `{ ok: true }`, or
/// `{ ok: false, error: { code, message, path } }`, the limits unchanged.
#[wasm_bindgen(js_name = limitsSet)]
pub fn limits_set(id: u32, spec: &[u8]) -> Vec<u8> {
    let compiled = webmcp_warden::wire::decode(spec).map_err(|_| webmcp_warden::error::ConfigError::new("invalid_wire", "the limits module could not read its input".into())).and_then(|spec| Limits::compile(&spec));
    let answer = match compiled {
        Ok(limits) => {
            with(id, true, |client| {
                client.book.align(limits.list());
                // The tools keep their numbers; which limits select them is found again.
                for (server, tool, matched) in &mut client.tools {
                    *matched = limits.matching(server, tool);
                }
                client.limits = limits;
            });
            webmcp_warden::object! { "ok" => true }
        }
        Err(error) => webmcp_warden::object! { "ok" => false, "error" => error.to_value() },
    };
    webmcp_warden::wire::encode(&answer)
}

/// Forgets client `id`: its limits and counts.
#[wasm_bindgen(js_name = limitsDrop)]
pub fn limits_drop(id: u32) {
    let mut clients = borrow(&CLIENTS);
    if let Some(slot) = clients.get_mut(id as usize) {
        *slot = None;
    }
}

/// The number client `id` knows tool `tool` on `server` by (made at first sight; it stays while
/// the client does, across limits set again), doubled, plus 1 when a limit selects the tool:
/// checks name tools by that number, and a call of a tool no limit selects needs no check.
#[wasm_bindgen(js_name = limitsTool)]
#[allow(clippy::arithmetic_side_effects)] // floating point, of a `u32`: exact
pub fn limits_tool(id: u32, server: &str, tool: &str) -> f64 {
    with(id, true, |client| {
        let mut at = client.tools.len();
        for (index, (known_server, known_tool, _)) in client.tools.iter().enumerate() {
            if known_server == server && known_tool == tool {
                at = index;
            }
        }
        if at == client.tools.len() {
            client.tools.push((server.into(), tool.into(), client.limits.matching(server, tool)));
        }
        let selected = client.tools.get(at).is_some_and(|(_, _, matched)| !matched.is_empty());
        f64::from(u32::try_from(at).unwrap_or(u32::MAX)) * 2.0 + f64::from(u8::from(selected))
    })
    .unwrap_or(0.0)
}

/// Checks a call of tool number `tool` (`limitsTool`) for `principal` at `now` (ms) against
/// client `id`'s limits, counting it when `count` is set (not in a dry run). With `same` set,
/// the principal is the one the client's last check was given and `principal` is not read
/// (the TS layer sends a principal only when it changes). `costs` are the
/// answers of the cost functions asked so far, as pairs `handle, cost` (anything but a finite
/// number of 0 or more, `NaN` say, counts as a failure). Answers: `0` or more, the call is
/// within every limit (and counted), and that number is the token it ends its calls in flight
/// with (`0`: it holds none); `-1`, it would pass a limit (read its decision with `limitsHit`);
/// `-2 - handle`, the cost function `handle` must be asked first. `ended` is the token of a call
/// that ended since (0: none): its calls in flight end first, as `limitsRelease` would.
#[wasm_bindgen(js_name = limitsCheck)]
#[allow(clippy::too_many_arguments)] // scalars: the hot path crosses nothing else
pub fn limits_check(id: u32, tool: u32, principal: Option<String>, same: bool, now: f64, count: bool, costs: Option<Vec<f64>>, ended: u32) -> f64 {
    with(id, false, |client| {
        if ended != 0 {
            release(client, ended);
        }
        if !same {
            client.principal = principal;
        }
        let Some((_, name, matched)) = client.tools.get(tool as usize) else { return 0.0 };
        let mut answers = Vec::new();
        for pair in costs.as_deref().unwrap_or_default().chunks_exact(2) {
            if let [handle, cost] = pair {
                answers.push((*handle as u32, Some(*cost).filter(|cost| cost.is_finite() && *cost >= 0.0)));
            }
        }
        let facts = LimitFacts { principal: client.principal.as_deref(), tool: name, now_ms: now };
        let buffer = client.spare.pop().unwrap_or_default();
        match client.book.check_into(client.limits.list(), matched, &facts, &answers, count, buffer) {
            Verdict::Pass(held) if held.is_empty() => {
                client.spare.push(held);
                0.0
            }
            Verdict::Pass(held) => {
                client.next_token = client.next_token.checked_add(1).unwrap_or(1);
                client.held.push((client.next_token, held));
                f64::from(client.next_token)
            }
            Verdict::Exceeded(hit) => {
                client.hit = Some(hit.to_value());
                -1.0
            }
            Verdict::NeedCost(handle) => -2.0 - f64::from(handle),
        }
    })
    // No limits for this client (a policy changed while the call was in flight): within them.
    .unwrap_or(0.0)
}

/// The decision of the limit client `id`'s last check found passed (wire-encoded: `{ ask,
/// index, id?, explanation, limit }`).
#[wasm_bindgen(js_name = limitsHit)]
pub fn limits_hit(id: u32) -> Vec<u8> {
    webmcp_warden::wire::encode(&with(id, false, |client| client.hit.take()).flatten().unwrap_or(Value::Null))
}

/// Ends the calls in flight of the call that holds `token`.
#[wasm_bindgen(js_name = limitsRelease)]
pub fn limits_release(id: u32, token: u32) {
    with(id, false, |client| release(client, token));
}

/// Ends the calls in flight of client `client`'s call that holds `token`.
fn release(client: &mut Client, token: u32) {
    let mut index = 0;
    while index < client.held.len() {
        if client.held.get(index).is_some_and(|(held, _)| *held == token) {
            let (_, mut keys) = client.held.swap_remove(index);
            client.book.release(&keys);
            // Kept for a next call, as many as calls were in flight at once, at most a few.
            if client.spare.len() < SPARE {
                keys.clear();
                client.spare.push(keys);
            }
        } else {
            index = index.saturating_add(1);
        }
    }
}
