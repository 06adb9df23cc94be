//! Transition glue between `serde_json::Value` and [`Value`], for the modules that still take
//! or answer JSON text (hook sets, the call step machine's answers, the `Core` boundary in
//! `src/wasm/core.rs`) while they move to the wire format (`docs/architecture.md`). Delete it
//! once nothing calls it.
//!
//! [`from_json`] reads the markers the TS layer still writes in JSON descriptions:
//! `{"$regex": {source, flags}}` for a `RegExp`, `{"$invalid": "<description>"}` for a value
//! JSON cannot say, and `{"$fn": <handle>}` for a function.

use crate::value::{Map, Value};

/// A JSON value as a [`Value`], decoding the markers above (an object with more keys, or a
/// marker of the wrong shape, stays an ordinary object).
pub fn from_json(json: &serde_json::Value) -> Value {
    match json {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(flag) => Value::Bool(*flag),
        serde_json::Value::Number(number) => number.as_f64().map_or(Value::Null, Value::Number),
        serde_json::Value::String(text) => Value::String(text.clone()),
        serde_json::Value::Array(items) => Value::Array(items.iter().map(from_json).collect()),
        serde_json::Value::Object(map) => {
            if map.len() == 1 {
                if let Some(marker) = marker(map) {
                    return marker;
                }
            }
            Value::Object(map.iter().map(|(key, item)| (key.clone(), from_json(item))).collect::<Map>())
        }
    }
}

fn marker(map: &serde_json::Map<String, serde_json::Value>) -> Option<Value> {
    if let Some(regex) = map.get("$regex") {
        let source = regex.get("source")?.as_str()?.to_owned();
        let flags = regex.get("flags")?.as_str()?.to_owned();
        return Some(Value::Regex { source, flags });
    }
    if let Some(kind) = map.get("$invalid") {
        return Some(Value::Unsupported(kind.as_str()?.to_owned()));
    }
    let handle = map.get("$fn")?.as_u64()?;
    Some(Value::Function(u32::try_from(handle).ok()?))
}

/// A [`Value`] as JSON, for answers still written with `serde_json`. Functions become their
/// handle, RegExps `{ source, flags }` and unsupported values their description (answers hold
/// none of these).
pub fn to_json(value: &Value) -> serde_json::Value {
    match value {
        Value::Null => serde_json::Value::Null,
        Value::Bool(flag) => serde_json::Value::Bool(*flag),
        Value::Number(number) => serde_json::Number::from_f64(*number).map_or(serde_json::Value::Null, serde_json::Value::Number),
        Value::String(text) => serde_json::Value::String(text.clone()),
        Value::Array(items) => serde_json::Value::Array(items.iter().map(to_json).collect()),
        Value::Object(map) => serde_json::Value::Object(map.iter().map(|(key, item)| (key.clone(), to_json(item))).collect()),
        Value::Function(handle) => serde_json::Value::from(*handle),
        Value::Regex { source, flags } => serde_json::json!({ "source": source, "flags": flags }),
        Value::Unsupported(kind) => serde_json::Value::String(kind.clone()),
    }
}

/// The JSON type name of a value, for messages (what `matcher::json_type` was).
pub fn json_type(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}
