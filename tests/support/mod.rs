//! Helpers shared by the Rust tests (a module of each test crate that declares `mod support;`,
//! not a test crate of its own).
//!
//! The shared fixtures are JSON files; JS values JSON cannot say are written there as markers,
//! which the JS tests turn into real values and [`from_fixture`] turns into the core's
//! [`Value`] variants: `{"$fn": n}` a function handle, `{"$regex": {source, flags}}` a RegExp,
//! `{"$invalid": "<typeof>"}` an unsupported value named as the TS encoder names it.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use webmcp_warden::digest::FieldTexts;
use webmcp_warden::governor::Definition;
use webmcp_warden::value::{Map, Value};

/// A fixture's JSON as the core's value, markers decoded (see the module docs).
pub fn from_fixture(json: &serde_json::Value) -> Value {
    match json {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(flag) => Value::Bool(*flag),
        serde_json::Value::Number(number) => Value::Number(number.as_f64().unwrap()),
        serde_json::Value::String(text) => Value::String(text.clone()),
        serde_json::Value::Array(items) => Value::Array(items.iter().map(from_fixture).collect()),
        serde_json::Value::Object(map) => {
            if map.len() == 1 {
                if let Some(regex) = map.get("$regex") {
                    return Value::Regex { source: regex["source"].as_str().unwrap().into(), flags: regex["flags"].as_str().unwrap().into() };
                }
                if let Some(kind) = map.get("$invalid").and_then(serde_json::Value::as_str) {
                    return Value::Unsupported(type_name_of(kind).into());
                }
                if let Some(handle) = map.get("$fn").and_then(serde_json::Value::as_u64) {
                    return Value::Function(u32::try_from(handle).unwrap());
                }
            }
            Value::Object(map.iter().map(|(key, item)| (key.clone(), from_fixture(item))).collect::<Map>())
        }
    }
}

/// How `pkg-js/src/boundary/wire.ts` (`typeName`) names a JS type in an unsupported value.
fn type_name_of(kind: &str) -> &str {
    match kind {
        "symbol" => "a symbol",
        "bigint" => "a BigInt",
        "function" => "a function",
        other => other,
    }
}

/// Parses JSON text (a fixture, a test's literal) into the core's value.
pub fn parse(text: &str) -> Value {
    from_fixture(&serde_json::from_str(text).unwrap())
}

/// A value written with `serde_json::json!`.
pub fn v(json: serde_json::Value) -> Value {
    from_fixture(&json)
}

/// A shared fixture file (`tests/fixtures/<name>`), parsed as JSON.
pub fn load_json(name: &str) -> serde_json::Value {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{path}: {error}"));
    serde_json::from_str(&text).unwrap()
}

/// The canonical JSON of a fixture value as the TS layer writes it (`canonicalJson`): keys
/// sorted by UTF-16 code units, strings and numbers as `JSON.stringify` writes them. Only for
/// the plain definitions tests build (integers and ASCII-safe strings); the real rules live in
/// `pkg-js/src/util/canonical.ts` and its fixture `tests/fixtures/canonical.json`.
pub fn canonical(json: &serde_json::Value) -> String {
    match json {
        serde_json::Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
            let members: Vec<String> = keys.iter().map(|key| format!("{}:{}", serde_json::to_string(key).unwrap(), canonical(&map[*key]))).collect();
            format!("{{{}}}", members.join(","))
        }
        serde_json::Value::Array(items) => format!("[{}]", items.iter().map(canonical).collect::<Vec<_>>().join(",")),
        serde_json::Value::Number(number) => {
            assert!(number.is_i64() || number.is_u64(), "tests canonicalize integers only: {number}");
            number.to_string()
        }
        other => serde_json::to_string(other).unwrap(),
    }
}

/// A tool definition from its JS shape (`{ name, title?, description?, inputSchema?,
/// outputSchema?, annotations? }`), with each field's canonical text made as the TS layer
/// makes it.
pub fn definition(json: &serde_json::Value) -> Definition {
    let mut canonical_fields = Map::new();
    for field in webmcp_warden::digest::FIELD_NAMES {
        if let Some(value) = json.get(field).filter(|value| !value.is_null()) {
            canonical_fields.insert(field, Value::String(canonical(value)));
        }
    }
    let mut spec = Map::new();
    spec.insert("name", v(json["name"].clone()));
    if let Some(annotations) = json.get("annotations") {
        spec.insert("annotations", v(annotations.clone()));
    }
    spec.insert("canonical", Value::Object(canonical_fields));
    Definition::from_value(&Value::Object(spec)).unwrap()
}

/// The field texts of a definition, as [`definition`] makes them.
pub fn field_texts(json: &serde_json::Value) -> FieldTexts {
    let pairs: Vec<(String, String)> = webmcp_warden::digest::FIELD_NAMES
        .iter()
        .filter_map(|field| json.get(*field).filter(|value| !value.is_null()).map(|value| ((*field).to_owned(), canonical(value))))
        .collect();
    FieldTexts::from_pairs(pairs.iter().map(|(key, text)| (key.as_str(), text.as_str()))).unwrap()
}

/// The core's value as JSON, to compare with fixture expectations (functions as their
/// handle, RegExps as `{ source, flags }`, unsupported values as their description).
pub fn to_json(value: &Value) -> serde_json::Value {
    match value {
        Value::Null => serde_json::Value::Null,
        Value::Bool(flag) => serde_json::Value::Bool(*flag),
        // Whole numbers as integers, so they compare equal to the fixtures' `0`, `3`, …
        #[allow(clippy::cast_possible_truncation, clippy::float_cmp)]
        Value::Number(number) if number.fract() == 0.0 && number.abs() < 9e15 => serde_json::json!(*number as i64),
        Value::Number(number) => serde_json::json!(number),
        Value::String(text) => serde_json::Value::String(text.clone()),
        Value::Array(items) => serde_json::Value::Array(items.iter().map(to_json).collect()),
        Value::Object(map) => serde_json::Value::Object(map.iter().map(|(key, item)| (key.clone(), to_json(item))).collect()),
        Value::Function(handle) => serde_json::json!(handle),
        Value::Regex { source, flags } => serde_json::json!({ "source": source, "flags": flags }),
        Value::Unsupported(kind) => serde_json::Value::String(kind.clone()),
    }
}
