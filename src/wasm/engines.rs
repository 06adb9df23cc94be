//! The engines of this wasm instance (one per client object), and the answer encoding.

use std::cell::RefCell;

use crate::engine::Engine;
use crate::error::ConfigError;
use crate::value::{Map, Value};

thread_local! {
    static ENGINES: RefCell<Vec<Option<Engine>>> = const { RefCell::new(Vec::new()) };
}

/// Creates an engine; answers its id.
pub(super) fn create() -> u32 {
    ENGINES.with(|engines| {
        let mut engines = engines.borrow_mut();
        let slot = engines.iter().position(Option::is_none).unwrap_or(engines.len());
        if slot == engines.len() {
            engines.push(Some(Engine::new()));
        } else if let Some(entry) = engines.get_mut(slot) {
            *entry = Some(Engine::new());
        }
        u32::try_from(slot).unwrap_or(u32::MAX)
    })
}

/// Forgets an engine.
pub(super) fn remove(id: u32) {
    ENGINES.with(|engines| {
        let mut engines = engines.borrow_mut();
        if let Some(entry) = engines.get_mut(id as usize) {
            *entry = None;
        }
        while matches!(engines.last(), Some(None)) {
            engines.pop();
        }
    });
}

/// Runs `f` on engine `id`; `None` when there is no such engine (the TS layer's misuse, which
/// its caller turns into a thrown error).
pub(super) fn with<R>(id: u32, f: impl FnOnce(&mut Engine) -> R) -> Option<R> {
    ENGINES.with(|engines| engines.borrow_mut().get_mut(id as usize).and_then(Option::as_mut).map(f))
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
        Ok(other) => crate::object! { "ok" => true, "value" => other },
        Err(error) => crate::object! { "ok" => false, "error" => error.to_value() },
    };
    crate::wire::encode(&value)
}

/// Decodes a wire buffer from the TS layer; a buffer it cannot have written is misuse.
pub(super) fn decode(bytes: &[u8]) -> Result<Value, ConfigError> {
    crate::wire::decode(bytes).map_err(|err| ConfigError::new("invalid_wire", format!("the core could not read its input: {} at byte {}", err.reason, err.at)))
}

/// The answer for an unknown engine id.
pub(super) fn no_engine() -> Vec<u8> {
    answer(Err(ConfigError::new("unknown_engine", "this webmcp-warden client was disposed".into())))
}
