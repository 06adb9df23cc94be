//! Helpers the Rust tests share: JSON fixtures as core values and back.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::arithmetic_side_effects)]

use serde_json::Value as Json;
use webmcp_warden::value::{Map, Value};

/// A JSON value as the core's value (what the TS layer would send for the same data).
pub fn json_to_value(json: &Json) -> Value {
    match json {
        Json::Null => Value::Null,
        Json::Bool(flag) => Value::Bool(*flag),
        Json::Number(n) => Value::Number(n.as_f64().unwrap()),
        Json::String(text) => Value::String(text.clone()),
        Json::Array(items) => Value::Array(items.iter().map(json_to_value).collect()),
        Json::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), json_to_value(v))).collect()),
    }
}

/// A core value as JSON (functions, RegExps and unsupported values become descriptive strings).
pub fn value_to_json(value: &Value) -> Json {
    match value {
        Value::Null => Json::Null,
        Value::Bool(flag) => Json::Bool(*flag),
        Value::Number(n) => serde_json::Number::from_f64(*n).map_or(Json::Null, |n| {
            // Whole numbers print as integers, as JS would.
            if n.as_f64().is_some_and(|f| f.fract() == 0.0 && f.abs() < 9.0e15) { Json::from(n.as_f64().unwrap() as i64) } else { Json::Number(n) }
        }),
        Value::String(text) => Json::String(text.clone()),
        Value::Array(items) => Json::Array(items.iter().map(value_to_json).collect()),
        Value::Object(map) => Json::Object(map.iter().map(|(k, v)| (k.clone(), value_to_json(v))).collect()),
        Value::Function(handle) => Json::String(format!("<function {handle}>")),
        Value::Regex { source, flags } => Json::String(format!("/{source}/{flags}")),
        Value::Unsupported(kind) => Json::String(format!("<{kind}>")),
    }
}

/// A JS value template of the fixtures as the TS layer would encode it: the string `"$fn"` is
/// a function (a fresh handle from `next`), `{ "$regex": { source, flags } }` a RegExp.
pub fn template_to_value(json: &Json, next: &mut u32) -> Value {
    match json {
        Json::String(text) if text == "$fn" => {
            *next += 1;
            Value::Function(*next)
        }
        Json::Object(map) if map.contains_key("$regex") => {
            let regex = &map["$regex"];
            Value::Regex { source: regex["source"].as_str().unwrap().to_owned(), flags: regex["flags"].as_str().unwrap_or_default().to_owned() }
        }
        Json::Array(items) => Value::Array(items.iter().map(|item| template_to_value(item, next)).collect()),
        Json::Object(map) => {
            let mut out = Map::new();
            for (key, item) in map {
                out.insert(key.clone(), template_to_value(item, next));
            }
            Value::Object(out)
        }
        other => json_to_value(other),
    }
}
