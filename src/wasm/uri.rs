//! The URI module's exports (built with `--features uri-module`; `src/wasm/mod.rs`): a resource
//! read's canonical URI and the resource serving it (`crate::uri`), and resource URI templates
//! checked when a resource is made (`crate::matcher::UriTemplate`). A module of its own, loaded
//! by pages that make or read resources only: a page of tools downloads none of it. Stateless:
//! each answer is one wire buffer, `{ ok, … }` or `{ ok: false, error }`.

use alloc::string::String;
use alloc::vec::Vec;
use core::cell::RefCell;

use wasm_bindgen::__rt::LazyCell;
use wasm_bindgen::prelude::*;

use crate::error::ConfigError;
use crate::uri::Templates;
use crate::value::Value;

/// The templates of the page's resources, compiled once (a `LazyCell`: `crate::pattern` says
/// why this cell).
static TEMPLATES: LazyCell<RefCell<Templates>> = LazyCell::new(|| RefCell::new(Templates::default()));

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

/// The keys of the last read, as sent and decoded: most reads look among the same resources.
static LAST_KEYS: LazyCell<RefCell<(Vec<u8>, Vec<Value>)>> = LazyCell::new(|| RefCell::new((Vec::new(), Vec::new())));

/// The URI `raw` read: `parsed` says whether the platform's `URL` could parse it, and `href` is
/// what it made of it when that differs from `raw` (most URIs read are already as it writes
/// them: one string crosses); `keys` are the registered resources' URIs and templates in order,
/// as a wire array. Answers `crate::uri::resolve` as lines (every read crosses here, and one
/// string decodes faster than a wire object): `+<index>` (empty for none), the canonical URI,
/// then each variable's name and value; or `-<code>` and the message. No line can hold a line
/// break: a URI with a control character is refused before any of its text is quoted,
/// canonical URIs and the variables read from them hold none, and variable names are
/// `A-Z a-z 0-9 _ . %`.
#[wasm_bindgen(js_name = resolveUri)]
pub fn resolve_uri(raw: &str, parsed: bool, href: Option<String>, keys: &[u8]) -> String {
    let href = match (parsed, href.as_deref()) {
        (false, _) => None,
        (true, Some(href)) => Some(href),
        (true, None) => Some(raw),
    };
    // Nothing here calls back into JS, so neither cell is ever borrowed already; if one were,
    // the keys are decoded again and a set of templates of its own compiles them again.
    let mut own_keys = (Vec::new(), Vec::new());
    let mut last_keys = LAST_KEYS.try_borrow_mut();
    let last = last_keys.as_deref_mut().unwrap_or(&mut own_keys);
    if last.0.as_slice() != keys {
        last.1 = match crate::wire::decode(keys) {
            Ok(Value::Array(keys)) => keys,
            _ => Vec::new(),
        };
        last.0 = keys.to_vec();
    }
    let mut own = Templates::default();
    let mut kept = TEMPLATES.try_borrow_mut();
    let templates = kept.as_deref_mut().unwrap_or(&mut own);
    match crate::uri::resolve(raw, href, &last.1, templates) {
        Ok(resolved) => {
            let mut out = String::from("+");
            if let Some(index) = resolved.index {
                crate::strs::push_decimal(&mut out, u64::try_from(index).unwrap_or(u64::MAX));
            }
            out.push('\n');
            out.push_str(&resolved.uri);
            for (name, value) in resolved.params.iter() {
                out.push('\n');
                out.push_str(name);
                out.push('\n');
                out.push_str(value.as_str().unwrap_or_default());
            }
            out
        }
        Err(error) => crate::strs::cat!["-", error.code, "\n", error.message],
    }
}

/// A resource's URI template checked: `{ sample }`, an instance with `x` for each variable, which
/// the TS layer checks is canonical (else the template could never match).
#[wasm_bindgen(js_name = uriTemplate)]
pub fn uri_template(template: &str) -> Vec<u8> {
    answer(crate::matcher::UriTemplate::compile(template).map(|template| crate::object! { "sample" => template.sample() }))
}
