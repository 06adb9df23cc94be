//! TRANSITION (removed when the policy slice reads [`Value`]): the policy, governor and
//! matcher modules still read `serde_json` values with `$regex` / `$fn` / `$invalid` markers.

use crate::value::Value;

/// A [`Value`] in the legacy form the policy modules read.
pub(crate) fn to_legacy(value: &Value) -> serde_json::Value {
    use serde_json::json;
    match value {
        Value::Null => serde_json::Value::Null,
        Value::Function(handle) => json!({ "$fn": handle }),
        Value::Regex { source, flags } => json!({ "$regex": { "source": source, "flags": flags } }),
        Value::Unsupported(kind) => json!({ "$invalid": kind }),
        Value::Bool(flag) => serde_json::Value::Bool(*flag),
        Value::Number(number) => serde_json::Number::from_f64(*number).map_or(serde_json::Value::Null, serde_json::Value::Number),
        Value::String(text) => serde_json::Value::String(text.clone()),
        Value::Array(items) => serde_json::Value::Array(items.iter().map(to_legacy).collect()),
        Value::Object(map) => serde_json::Value::Object(map.iter().map(|(k, v)| (k.clone(), to_legacy(v))).collect()),
    }
}
