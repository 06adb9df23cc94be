//! The lint module's export: `lintPolicy`, every problem of a policy
//! (`webmcp_warden::policy::lint`). A module of its own, compiled by pages that call
//! `lintPolicy()` only: the core a page downloads at import carries none of the lint
//! (`ARCHITECTURE.md`, "Loading"). Stateless; patterns run on the page's `RegExp`, as in the core
//! (`warden_host`).

#![cfg(target_arch = "wasm32")]
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

// Linked for what they do when the module starts or allocates: the page's pattern engines and the allocator.
use warden_host as _;
use warden_wasm as _;

use alloc::vec::Vec;

use wasm_bindgen::prelude::*;

use webmcp_warden::value::Value;

/// The diagnostics of a policy given in the wire format: `{ ok: true, diagnostics: [{ code,
/// message, path }] }`, or `{ ok: false, error }` when the bytes do not decode.
#[wasm_bindgen(js_name = lintPolicy)]
pub fn lint_policy(bytes: &[u8]) -> Vec<u8> {
    let answer = match webmcp_warden::wire::decode(bytes) {
        Ok(spec) => {
            let mut diagnostics = Vec::new();
            for found in webmcp_warden::policy::lint(&spec) {
                diagnostics.push(found.to_value());
            }
            webmcp_warden::object! { "ok" => true, "diagnostics" => Value::Array(diagnostics) }
        }
        Err(_) => webmcp_warden::object! { "ok" => false, "error" => webmcp_warden::object! { "code" => "invalid_wire", "message" => "the lint module could not read its input" } },
    };
    webmcp_warden::wire::encode(&answer)
}
