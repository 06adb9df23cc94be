//! The URI module's exports (built with `--features uri-module`; `src/wasm/mod.rs`): a resource
//! read's canonical URI and the resource serving it (`crate::uri`), and resource URI templates
//! checked when a resource is made (`crate::matcher::UriTemplate`). A module of its own, loaded
//! by pages that make or read resources only: a page of tools downloads none of it. Stateless:
//! each answer is one wire buffer, `{ ok, … }` or `{ ok: false, error }`.

use alloc::string::String;
use alloc::vec::Vec;

use wasm_bindgen::prelude::*;

use crate::error::ConfigError;
use crate::value::Value;

/// `{ ok: true, ...fields }` or `{ ok: false, error: { code, message } }`, encoded.
fn answer(result: Result<Value, ConfigError>) -> Vec<u8> {
    let value = match result {
        Ok(Value::Object(mut fields)) => {
            fields.insert("ok", true.into());
            Value::Object(fields)
        }
        Ok(other) => other,
        Err(error) => crate::object! { "ok" => false, "error" => error.to_value() },
    };
    crate::wire::encode(&value)
}

/// The URI `raw` read: `href` is what the platform's `URL` made of it (`undefined` when it
/// threw), `keys` the registered resources' URIs and templates in order, as a wire array.
/// Answers `crate::uri::resolve`'s `{ uri, index, params }`.
#[wasm_bindgen(js_name = resolveUri)]
pub fn resolve_uri(raw: &str, href: Option<String>, keys: &[u8]) -> Vec<u8> {
    let keys = match crate::wire::decode(keys) {
        Ok(Value::Array(keys)) => keys,
        _ => Vec::new(),
    };
    answer(crate::uri::resolve(raw, href.as_deref(), &keys))
}

/// A resource's URI template checked: `{ sample }`, an instance with `x` for each variable, which
/// the TS layer checks is canonical (else the template could never match).
#[wasm_bindgen(js_name = uriTemplate)]
pub fn uri_template(template: &str) -> Vec<u8> {
    answer(crate::matcher::UriTemplate::compile(template).map(|template| crate::object! { "sample" => template.sample() }))
}
