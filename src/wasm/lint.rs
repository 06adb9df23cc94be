//! The lint module's export (built with `--features lint-module`; `src/wasm/mod.rs`):
//! `lintPolicy`, every problem of a policy (`crate::policy::lint`). A module of its own, compiled
//! by pages that call `lintPolicy()` only: the core a page downloads at import carries none of
//! the lint (`ARCHITECTURE.md`, "Loading"). Stateless; patterns run on the page's `RegExp`, as
//! in the core (`super::host`).

use alloc::vec::Vec;

use wasm_bindgen::prelude::*;

use crate::value::Value;

/// The diagnostics of a policy given in the wire format: `{ ok: true, diagnostics: [{ code,
/// message, path }] }`, or `{ ok: false, error }` when the bytes do not decode.
#[wasm_bindgen(js_name = lintPolicy)]
pub fn lint_policy(bytes: &[u8]) -> Vec<u8> {
    let answer = match crate::wire::decode(bytes) {
        Ok(spec) => {
            let mut diagnostics = Vec::new();
            for found in crate::policy::lint(&spec) {
                diagnostics.push(found.to_value());
            }
            crate::object! { "ok" => true, "diagnostics" => Value::Array(diagnostics) }
        }
        Err(_) => crate::object! { "ok" => false, "error" => crate::object! { "code" => "invalid_wire", "message" => "the lint module could not read its input" } },
    };
    crate::wire::encode(&answer)
}
