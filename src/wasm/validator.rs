//! The validator module's exports: compile a JSON Schema once, validate JSON text against it.
//!
//! A module of its own because the JSON Schema crate outweighs the rest of the core several
//! times; pages load it only when a tool with a schema is first called (SPEC §2, §6).

use serde_json::json;
use wasm_bindgen::prelude::*;

use crate::validate::{summary, Limits, SchemaCache};

/// Compiled schemas, one per page.
#[wasm_bindgen]
pub struct Validator {
    cache: SchemaCache,
}

#[wasm_bindgen]
impl Validator {
    /// A validator with no schemas.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Validator {
        Validator { cache: SchemaCache::new() }
    }

    /// Compiles a schema (JSON text); answers `{ ok, handle }` or `{ ok: false, error }`.
    pub fn compile(&mut self, schema: &str) -> String {
        let answer = match self.cache.compile(schema) {
            Ok(handle) => json!({ "ok": true, "handle": handle }),
            Err(problem) => json!({ "ok": false, "error": problem }),
        };
        answer.to_string()
    }

    /// Forgets a compiled schema.
    #[wasm_bindgen(js_name = dropSchema)]
    pub fn drop_schema(&mut self, handle: u32) {
        self.cache.drop_schema(handle);
    }

    /// Validates JSON text; answers `{ ok: true, valid, diagnostics, summary }` or `{ ok:
    /// false, error }` for an unknown handle.
    pub fn validate(&self, handle: u32, instance: &str, max_bytes: u32, max_depth: u32) -> String {
        let limits = Limits {
            max_bytes: usize::try_from(max_bytes).unwrap_or(usize::MAX),
            max_depth: usize::try_from(max_depth).unwrap_or(usize::MAX),
        };
        let answer = match self.cache.validate_with_limits(handle, instance, limits) {
            Ok(diagnostics) => json!({
                "ok": true,
                "valid": diagnostics.is_empty(),
                "summary": if diagnostics.is_empty() { String::new() } else { summary(&diagnostics) },
                "diagnostics": diagnostics,
            }),
            Err(problem) => json!({ "ok": false, "error": problem }),
        };
        answer.to_string()
    }
}

impl Default for Validator {
    fn default() -> Self {
        Validator::new()
    }
}
