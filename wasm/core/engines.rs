//! The engines of this wasm instance (one per client object), and the answer encoding.

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::cell::RefCell;

use wasm_bindgen::__rt::LazyCell;

use webmcp_warden::engine::Engine;
use webmcp_warden::error::ConfigError;
use webmcp_warden::strs::{cat, decimal_usize};
use webmcp_warden::value::{Map, Value};

/// The engines, by id. Boxed, so that lending an engine out of the table ([`with`]) moves a
/// pointer. A `LazyCell` rather than `thread_local!`, which the `no_std` core module does not
/// have (`webmcp_warden::pattern` says why this cell).
static ENGINES: LazyCell<RefCell<Vec<Option<Box<Engine>>>>> = LazyCell::new(|| RefCell::new(Vec::new()));

/// Creates an engine; answers its id.
pub(super) fn create() -> u32 {
    let mut engines = warden_wasm::borrow(&ENGINES);
    let slot = engines.iter().position(Option::is_none).unwrap_or(engines.len());
    if slot == engines.len() {
        engines.push(Some(Box::new(Engine::new())));
    } else if let Some(entry) = engines.get_mut(slot) {
        *entry = Some(Box::new(Engine::new()));
    }
    u32::try_from(slot).unwrap_or(u32::MAX)
}

/// Forgets an engine.
pub(super) fn remove(id: u32) {
    let mut engines = warden_wasm::borrow(&ENGINES);
    if let Some(entry) = engines.get_mut(id as usize) {
        *entry = None;
    }
    while matches!(engines.last(), Some(None)) {
        engines.pop();
    }
}

/// Runs `f` on engine `id`; `None` when there is no such engine (the TS layer's misuse, which
/// its caller turns into a thrown error).
///
/// The engine is lent out of the table for the call and put back after ([`take`], [`put`]), so
/// the table's borrow is code of two functions instead of a copy inside each of the
/// instances of this one (one per export). Nothing runs `f` re-entrantly: the
/// core never calls back into JS that could call it again.
pub(super) fn with<R>(id: u32, f: impl FnOnce(&mut Engine) -> R) -> Option<R> {
    let mut engine = take(id)?;
    let out = f(&mut engine);
    put(id, engine);
    Some(out)
}

/// Takes engine `id` out of its slot.
#[inline(never)]
fn take(id: u32) -> Option<Box<Engine>> {
    warden_wasm::borrow(&ENGINES).get_mut(id as usize).and_then(Option::take)
}

/// Puts engine `id` back into its slot.
#[inline(never)]
fn put(id: u32, engine: Box<Engine>) {
    if let Some(slot) = warden_wasm::borrow(&ENGINES).get_mut(id as usize) {
        *slot = Some(engine);
    }
}

/// `{ ok: true, ...fields }` or `{ ok: false, error: { code, message, path? } }`, encoded.
pub(super) fn answer(result: Result<Value, ConfigError>) -> Vec<u8> {
    let value = match result {
        Ok(Value::Object(fields)) => {
            let mut map = Map::new();
            map.insert("ok", true.into());
            for (key, item) in fields {
                map.insert(key, item);
            }
            Value::Object(map)
        }
        Ok(other) => webmcp_warden::object! { "ok" => true, "value" => other },
        Err(error) => webmcp_warden::object! { "ok" => false, "error" => error.to_value() },
    };
    webmcp_warden::wire::encode(&value)
}

/// Decodes a wire buffer from the TS layer; a buffer it cannot have written is misuse.
pub(super) fn decode(bytes: &[u8]) -> Result<Value, ConfigError> {
    webmcp_warden::wire::decode(bytes).map_err(|err| ConfigError::new("invalid_wire", cat!["the core could not read its input: ", err.reason, " at byte ", decimal_usize(err.at)]))
}

/// The answer for an unknown engine id.
pub(super) fn no_engine() -> Vec<u8> {
    answer(Err(ConfigError::new("unknown_engine", "this webmcp-warden client was disposed".into())))
}
