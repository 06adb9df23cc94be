//! The URI module's exports: a resource
//! read's canonical URI and the resource serving it (`webmcp_warden::uri`), and resource URI templates
//! checked when a resource is made (`webmcp_warden::matcher::UriTemplate`). A module of its own, loaded
//! by pages that make or read resources only: a page of tools downloads none of it.
//!
//! Answers cross as lines of one string rather than in the wire format: every read crosses
//! here, one string decodes faster than a wire object, and the module then needs neither the
//! wire format nor values. No line can hold a line break: a URI with a control character is
//! refused before any of its text is quoted, canonical URIs and the variables read from them
//! hold none, variable names are `A-Z a-z 0-9 _ . %`, and a resource's key (its canonical URI,
//! or a template whose literal text a canonical URI could hold) holds none either.

#![cfg(target_arch = "wasm32")]
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

// The allocator.
use warden_wasm as _;

use alloc::string::String;
use alloc::vec::Vec;
use core::cell::RefCell;

use wasm_bindgen::__rt::LazyCell;
use wasm_bindgen::prelude::*;

use webmcp_warden::error::ConfigError;
use webmcp_warden::uri::Templates;

/// The templates of the page's resources, compiled once (a `LazyCell`: `webmcp_warden::pattern` says
/// why this cell).
static TEMPLATES: LazyCell<RefCell<Templates>> = LazyCell::new(|| RefCell::new(Templates::default()));

/// The resources' keys of the last read: the TS layer sends them only when they change.
static KEYS: LazyCell<RefCell<String>> = LazyCell::new(|| RefCell::new(String::new()));

/// `-<code>`, then the message.
fn refusal(error: &ConfigError) -> String {
    webmcp_warden::strs::cat!["-", error.code, "\n", error.message]
}

/// The URI `raw` read: `parsed` says whether the platform's `URL` could parse it, and `href` is
/// what it made of it when that differs from `raw` (most URIs read are already as it writes
/// them: one string crosses); `keys` are the registered resources' URIs and templates in order,
/// one a line, sent when they differ from the last read's (`undefined`: the same). Answers
/// `webmcp_warden::uri::resolve`: `+<index>` (empty for none), the canonical URI, then each variable's
/// name and value, one a line; or a refusal.
#[wasm_bindgen(js_name = resolveUri)]
pub fn resolve_uri(raw: &str, parsed: bool, href: Option<String>, keys: Option<String>) -> String {
    let href = match (parsed, href.as_deref()) {
        (false, _) => None,
        (true, Some(href)) => Some(href),
        (true, None) => Some(raw),
    };
    // Nothing here calls back into JS, so the cells are never borrowed already; if one were,
    // the read has no keys (it finds no resource) or a set of its own compiles the templates.
    let mut kept_keys = KEYS.try_borrow_mut();
    if let (Ok(kept), Some(keys)) = (kept_keys.as_deref_mut(), keys) {
        *kept = keys;
    }
    let keys = match kept_keys.as_deref() {
        Ok(keys) if !keys.is_empty() => webmcp_warden::strs::split_bytes(keys, b'\n'),
        _ => Vec::new(),
    };
    let mut own = Templates::default();
    let mut kept = TEMPLATES.try_borrow_mut();
    let templates = kept.as_deref_mut().unwrap_or(&mut own);
    match webmcp_warden::uri::resolve(raw, href, &keys, templates) {
        Ok(resolved) => {
            let mut out = String::from("+");
            if let Some(index) = resolved.index {
                webmcp_warden::strs::push_decimal(&mut out, u64::try_from(index).unwrap_or(u64::MAX));
            }
            out.push('\n');
            out.push_str(&resolved.uri);
            for (name, value) in &resolved.params {
                out.push('\n');
                out.push_str(name);
                out.push('\n');
                out.push_str(value);
            }
            out
        }
        Err(error) => refusal(&error),
    }
}

/// A resource's URI template checked: `+`, then an instance with `x` for each variable, which
/// the TS layer checks is canonical (else the template could never match); or a refusal (its
/// message may quote the template, line breaks and all: it is the rest of the answer).
#[wasm_bindgen(js_name = uriTemplate)]
pub fn uri_template(template: &str) -> String {
    match webmcp_warden::matcher::UriTemplate::compile(template) {
        Ok(template) => webmcp_warden::strs::cat!["+", template.sample()],
        Err(error) => refusal(&error),
    }
}
