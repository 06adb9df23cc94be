//! The validator module's exports: compile a JSON Schema once, validate JSON values against it.
//!
//! A module of its own because the JSON Schema engine outweighs the rest of the core; pages load
//! it only when a tool with a schema is first registered or called (`docs/behaviour.md`, "JSON Schema").
//!
//! Free functions over one table of compiled schemas, with integer handles, and no exported
//! class: when the module traps (a bug, or running out of stack), the page replaces the instance,
//! and a class's `FinalizationRegistry` would later free stale pointers into the new one.
//! Schemas and instances come in the wire format (`webmcp_warden::wire::decode_json`): numbers cross as
//! the page's doubles, exactly, and the module links no float parser (serde_json's exact one,
//! `float_roundtrip`, was most of a parser's weight: bench/RESULTS.md). Answers go out as JSON text,
//! and every answer is data:
//!
//! - `compile(schema, allowUnsafe)` → `{ "ok": true, "handle": 1, "notes": [{ code, message, path }] }`
//!   (the schema's slow patterns, `SchemaCache::notes`) or `{ "ok": false, "error": { code, message, path? } }`
//!   (`unsafe_pattern` for a pattern refused for its running time);
//! - `validate(handle, instance, maxDepth)` → nothing (an empty string) when the instance is
//!   valid, the hot path of every validated call, with nothing to parse;
//!   `{ "ok": true, "valid": false, "diagnostics", "summary" }` or `{ "ok": false, "error" }`
//!   (`unknown_handle`) otherwise; the instance's size is the caller's to limit
//!   (`pkg-js/src/validator/validation.ts` checks it on the JSON text);
//! - `dropSchema(handle)`.
//!
//! An answer with error code `validator_broken` means the table is unusable (a call died half
//! way, which only a trap or a stack overflow can do): the loader then replaces the instance.
//!
//! Patterns are the core's judged patterns (`webmcp_warden::pattern`): compiled on the page's `RegExp`,
//! judged and, where the judgement says, tested on the linear engine, through
//! `pkg-js/src/validator-host.js` (see the module docs of `webmcp_warden::validate`, "Patterns"). The
//! imports that can throw are declared `catch`, so a JS exception comes back as an error value
//! instead of unwinding through wasm.
//!
//! The module carries the shaping module's exports too (`warden_shape`), and with the `judge`
//! feature the pattern judgement's (`warden_patterns`): one download instead of two or three
//! (`ARCHITECTURE.md`, "Crates"). It links std (boon, serde_json) and keeps std's allocator.

#![cfg(target_arch = "wasm32")]
#![forbid(unsafe_code)]

// Linked for their exports.
#[cfg(feature = "judge")]
use warden_patterns as _;
use warden_shape as _;

use std::cell::RefCell;

use boon::JsonParser;
use wasm_bindgen::prelude::*;

use webmcp_warden::validate::{install_pattern_engine, summary, Diagnostic, SchemaCache, SchemaProblem};

#[wasm_bindgen(raw_module = "./validator-host.js")]
extern "C" {
    #[wasm_bindgen(catch, js_name = patternCompile)]
    fn pattern_compile(source: &str, flags: &str) -> Result<u32, JsValue>;

    /// The first word of pattern `id`'s judgement, `u32::MAX` while the judgement is not loaded
    /// (`webmcp_warden::pattern::Judgement::to_words`).
    #[wasm_bindgen(js_name = patternJudge)]
    fn pattern_judge(id: u32, source: &str, flags: &str, allow_unsafe: bool) -> u32;

    /// The other words of the judgement `patternJudge` answered last.
    #[wasm_bindgen(js_name = judgementWord)]
    fn judgement_word(index: u32) -> u32;

    #[wasm_bindgen(catch, js_name = patternTest)]
    fn pattern_test(id: u32, text: &str, linear: bool) -> Result<bool, JsValue>;

    #[wasm_bindgen(catch, js_name = patternRelease)]
    fn pattern_release(id: u32) -> Result<(), JsValue>;

    #[wasm_bindgen(catch, js_name = jsonParse)]
    fn json_parse(text: &str) -> Result<Vec<u8>, JsValue>;
}

/// The page's `JSON.parse`, for the JSON text the engine reads itself: its bundled meta-schemas
/// (at the first compile) and `application/json` contents. The value comes back in the wire
/// format, so this module links no JSON parser.
struct PageJson;

impl JsonParser for PageJson {
    fn parse(&self, text: &str) -> Result<serde_json::Value, Box<dyn std::error::Error>> {
        let bytes = json_parse(text).map_err(|thrown| thrown.as_string().unwrap_or_else(|| "the page's JSON.parse refused it".to_owned()))?;
        webmcp_warden::wire::decode_json(&bytes, webmcp_warden::wire::MAX_DEPTH).map_err(|e| e.reason.into())
    }
}

/// The pattern engines of this module, through `validator-host.js`: the page's `RegExp`, the
/// judgement and the linear engine.
fn host_compile(source: &str, flags: &str) -> Result<u32, String> {
    pattern_compile(source, flags).map_err(|thrown| thrown.as_string().unwrap_or_else(|| "the page's RegExp refused it".to_owned()))
}

fn host_judge(id: u32, source: &str, flags: &str, allow_unsafe: bool) -> Option<[u32; 4]> {
    let first = pattern_judge(id, source, flags, allow_unsafe);
    (first != u32::MAX).then(|| [first, judgement_word(1), judgement_word(2), judgement_word(3)])
}

fn host_test(id: u32, text: &str, linear: bool) -> Option<bool> {
    pattern_test(id, text, linear).ok()
}

fn host_release(id: u32) {
    // Forgetting an id cannot fail in the host; nothing to report if it did.
    let _ = pattern_release(id);
}

static HOST: webmcp_warden::pattern::Host = webmcp_warden::pattern::Host { compile: host_compile, judge: host_judge, test: host_test, release: host_release };

thread_local! {
    /// The compiled schemas of this instance; created (and the pattern engine installed) on
    /// first use.
    static CACHE: RefCell<Option<SchemaCache>> = const { RefCell::new(None) };
}

/// Runs `f` on the table, or answers `validator_broken` when a previous call died holding it.
fn with_cache(f: impl FnOnce(&mut SchemaCache) -> String) -> String {
    let answer = CACHE.with(|cell| {
        let mut slot = cell.try_borrow_mut().ok()?;
        let cache = slot.get_or_insert_with(|| {
            webmcp_warden::pattern::install(&HOST);
            install_pattern_engine();
            boon::set_json_parser(Box::new(PageJson));
            SchemaCache::new()
        });
        Some(f(cache))
    });
    answer.unwrap_or_else(|| {
        r#"{"error":{"code":"validator_broken","message":"the validator module must be reloaded"},"ok":false}"#.to_owned()
    })
}

// ---- answers ----------------------------------------------------------------------------------
//
// Written by hand rather than through `serde_json::json!` and serde's derives, which link a
// second serializer (into a `Value`) and the map building behind it. Keys are in the order
// serde_json wrote them (sorted), so the text is the same as before, byte for byte.

/// `text` as a JSON string literal.
fn push_string(out: &mut String, text: &str) {
    out.push_str(&webmcp_warden::validate::quote(text));
}

/// `{"error":{"code","message","path"?},"ok":false}`.
fn problem_answer(problem: &SchemaProblem) -> String {
    let mut out = String::from(r#"{"error":{"code":"#);
    push_string(&mut out, problem.code);
    out.push_str(r#","message":"#);
    push_string(&mut out, &problem.message);
    if !problem.path.is_empty() {
        out.push_str(r#","path":"#);
        push_string(&mut out, &problem.path);
    }
    out.push_str(r#"},"ok":false}"#);
    out
}

/// Nothing for a valid instance; `{"diagnostics":[…],"ok":true,"summary":"…","valid":false}`
/// otherwise.
fn diagnostics_answer(diagnostics: &[Diagnostic]) -> String {
    if diagnostics.is_empty() {
        return String::new();
    }
    let mut out = String::from(r#"{"diagnostics":["#);
    for (i, d) in diagnostics.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(r#"{"keyword":"#);
        push_string(&mut out, &d.keyword);
        out.push_str(r#","message":"#);
        push_string(&mut out, &d.message);
        out.push_str(r#","path":"#);
        push_string(&mut out, &d.path);
        out.push('}');
    }
    out.push_str(r#"],"ok":true,"summary":"#);
    push_string(&mut out, &summary(diagnostics));
    out.push_str(r#","valid":false}"#);
    out
}

/// Compiles a schema (a JSON value in the wire format); answers `{ ok, handle }` or `{ ok: false, error }`.
/// `allow_unsafe`: the page opted in to patterns neither engine can be trusted with
/// (`unsafePatterns`).
#[wasm_bindgen]
pub fn compile(schema: &[u8], allow_unsafe: bool) -> String {
    with_cache(|cache| match webmcp_warden::pattern::with_unsafe_allowed(allow_unsafe, || cache.compile_wire(schema)) {
        Ok(handle) => {
            let mut out = format!(r#"{{"handle":{handle},"notes":["#);
            for (i, note) in cache.notes(handle).iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(r#"{"code":"#);
                push_string(&mut out, note.code);
                out.push_str(r#","message":"#);
                push_string(&mut out, &note.message);
                out.push_str(r#","path":"#);
                push_string(&mut out, &note.path);
                out.push('}');
            }
            out.push_str(r#"],"ok":true}"#);
            out
        }
        Err(problem) => problem_answer(&problem),
    })
}

/// How many compiled schemas the cache holds (for the tests that show unused ones are freed).
#[wasm_bindgen(js_name = schemaCount)]
pub fn schema_count() -> u32 {
    CACHE.with(|cell| cell.try_borrow().ok().and_then(|slot| slot.as_ref().map(|cache| u32::try_from(cache.len()).unwrap_or(u32::MAX))).unwrap_or(0))
}

/// Forgets one reference to a compiled schema (see `SchemaCache::drop_schema`).
#[wasm_bindgen(js_name = dropSchema)]
pub fn drop_schema(handle: u32) {
    CACHE.with(|cell| {
        if let Ok(mut slot) = cell.try_borrow_mut() {
            if let Some(cache) = slot.as_mut() {
                cache.drop_schema(handle);
            }
        }
    });
}

/// Validates an instance (a JSON value in the wire format, at most `max_depth` levels deep);
/// answers nothing when it is valid, else `{ ok: true, valid: false, diagnostics, summary }`, or
/// `{ ok: false, error }` for an unknown handle.
#[wasm_bindgen]
pub fn validate(handle: u32, instance: &[u8], max_depth: u32) -> String {
    let max_depth = usize::try_from(max_depth).unwrap_or(usize::MAX);
    with_cache(|cache| match cache.validate_wire(handle, instance, max_depth) {
        Ok(diagnostics) => diagnostics_answer(&diagnostics),
        Err(problem) => problem_answer(&problem),
    })
}

/// For the package's JSON-Schema-Test-Suite run only (`pkg-js/test/json-schema-suite.test.mjs`):
/// replaces the table, dropping every compiled schema, with one where schemas without `$schema`
/// are `dialect` (`"draft-07"`, else 2020-12) and `$ref`s may name `documents` (a JSON object, URI
/// to document, in the wire format), as `tests/json_schema_suite.rs` sets it up natively.
/// Answers `{ ok }` or `{ ok: false, error }`. Only in the test build (the `suite-export` feature).
#[cfg(feature = "suite-export")]
#[wasm_bindgen(js_name = __test_conformance_suite)]
pub fn test_conformance_suite(dialect: &str, documents: &[u8]) -> String {
    use webmcp_warden::validate::Dialect;
    let dialect = if dialect == "draft-07" { Dialect::Draft7 } else { Dialect::Draft202012 };
    let documents = match webmcp_warden::wire::decode_json(documents, webmcp_warden::wire::MAX_DEPTH) {
        Ok(serde_json::Value::Object(map)) => map.into_iter().collect(),
        _ => {
            return r#"{"error":{"code":"invalid_documents","message":"the documents are not an object in the wire format"},"ok":false}"#
                .to_owned()
        }
    };
    with_cache(|cache| {
        *cache = SchemaCache::for_conformance_suite(dialect, documents);
        r#"{"ok":true}"#.to_owned()
    })
}

/// For tests only: traps (`unreachable`), as a bug would, so the loader's recovery can be tested.
#[wasm_bindgen(js_name = __test_trap)]
pub fn test_trap() {
    core::arch::wasm32::unreachable()
}
