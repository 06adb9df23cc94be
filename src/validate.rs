//! JSON Schema validation of tool arguments and structured results (`docs/behaviour.md`, "Validation").
//!
//! A tool's `inputSchema` (and `outputSchema`) is compiled once into a [`SchemaCache`], which hands
//! back a `u32` handle; every call then validates the arguments against that handle. The wasm
//! module takes schemas and arguments in the wire format ([`SchemaCache::compile_wire`],
//! [`SchemaCache::validate_wire`]: JSON values whose numbers are the page's doubles, nothing
//! parsed); the JSON text API ([`SchemaCache::compile`], [`SchemaCache::validate`]) serves the
//! native tests and tools, and answers the same diagnostics. Problems come back as data:
//! a schema that cannot be compiled is a [`SchemaProblem`] (code `invalid_schema`), an instance
//! that does not validate is a list of [`Diagnostic`]s, and [`summary`] turns that list into the one
//! line the agent reads after `Error: `.
//!
//! The engine is `boon` 0.6.1, vendored under `vendor/boon/` and patched so that regular
//! expressions are not compiled by the `regex` crates (which would make up most of the module)
//! but by an engine this crate installs: in the browser the page's own `RegExp` (installed by
//! `wasm/validate/lib.rs`), natively `regress`, an ECMAScript engine in Rust. `vendor/boon/README.md`
//! lists every change. Unpatched, boon passes the JSON-Schema-Test-Suite's required tests of both
//! dialects, and so does this build (`tests/json_schema_suite.rs`, natively; the package's
//! `pkg-js/test/json-schema-suite.test.mjs`, through the built module and the JS `RegExp`).
//!
//! # Dialects
//!
//! A schema with no `$schema` is JSON Schema **2020-12**, as MCP defines it since 2025-11-25. A
//! schema whose `$schema` names draft-07 (`http://json-schema.org/draft-07/schema#`, with or without
//! the `#`, `http` or `https`) is draft-07, and the 2020-12 URL
//! (`https://json-schema.org/draft/2020-12/schema`, the same variants) is 2020-12. Any other
//! `$schema` (draft-04, draft-06, 2019-09, a custom meta-schema) is `invalid_schema`, naming the URL
//! and the two supported dialects: guessing would validate with rules the author did not write.
//!
//! # `$ref`
//!
//! Only references that resolve inside the schema itself are followed (`#/$defs/x`,
//! `#/definitions/x`, anchors, `$id`-based references to embedded resources, and the bundled
//! meta-schemas of the two dialects). Anything else is `invalid_schema` "external $ref ... is not
//! fetched": every compile installs a loader that refuses every URL, so no `$ref` can cause
//! network or file I/O.
//!
//! # Patterns
//!
//! `pattern`, `patternProperties` and `format: "regex"` are ECMA-262 regular expressions by the
//! specification, and they mean what they mean there: with the `u` flag (as ajv does by default)
//! and exactly as written. Look-around and back-references work (Zod 4 emits look-aheads for
//! `z.email()`, `z.iso.duration()`, `z.hostname()`); a pattern the engine refuses makes the
//! schema `invalid_schema`, and a `format: "regex"` value it refuses is invalid (such a value is
//! read as a pattern, never run). Each pattern is compiled once, when its schema is compiled.
//!
//! The page's engine (and `regress`, natively) backtracks, so a pattern can take time exponential
//! or polynomial in the length of an agent's string. So each schema pattern is one of the crate's
//! judged patterns ([`crate::pattern`]; `docs/behaviour.md`, "Patterns"): it runs on the page's
//! engine where its bound allows, on the linear-time engine above, or it is refused
//! (`unsafe_pattern`, naming its location) unless the page opted in; every test is paid from the
//! validation's pattern budget. The compile records where each slow pattern is
//! ([`SchemaCache::notes`]), for the warnings `register()` writes. A string (or, for
//! `patternProperties`, a property name) longer than [`MAX_PATTERN_INPUT_CHARS`] characters is
//! not tested at all, nor one over the budget or one the engine fails on: the instance is invalid
//! (keyword `pattern`, or `patternProperties`, at that location), whatever keyword the pattern
//! sits under (`not`, `anyOf`, `if`: an unchecked string never counts as matching or as not
//! matching).
//!
//! # `format`
//!
//! **`format` is asserted in both dialects.** Draft-07 asserts it by default; 2020-12 makes it an
//! annotation unless a meta-schema opts in, which is how the JSON-Schema-Test-Suite's required
//! `draft2020-12/format.json` expects it. We deliberately deviate for 2020-12:
//!
//! - a page author who writes `"format": "email"` on a tool parameter means "this must be an
//!   email"; letting `"not-an-email"` through to the tool turns a precise error the agent can fix
//!   into whatever the tool does with bad input;
//! - one rule for both dialects is easier to explain than one that flips on whether the schema
//!   happens to carry a `$schema` line (most tool schemas have none, or have it only because a
//!   generator added it);
//! - the JS tooling pages use agrees: ajv with `ajv-formats` asserts formats in every draft, and
//!   Zod validates its string formats at run time anyway.
//!
//! Formats the engine does not know (`"format": "textarea"`) are ignored, as the specification
//! allows. `idn-hostname` and `idn-email` are ignored too: checking them needs Unicode IDNA
//! tables (ICU, heavy: bench/RESULTS.md) that this module leaves out; `iri` and `iri-reference` are checked
//! by RFC 3987 syntax, which needs none. `contentEncoding` / `contentMediaType` are asserted in
//! draft-07 (which allows it) and are annotations in 2020-12 (which requires that). The test
//! suite harness (`tests/json_schema_suite.rs`) runs the 2020-12
//! `format.json` tests whose description says "only an annotation by default" with the
//! expectation inverted, listed in `tests/json-schema-test-suite/known-failures.json`.
//!
//! # Limits
//!
//! [`SchemaCache::validate_with_limits`] rejects instance text longer than
//! [`Limits::max_bytes`] (keyword `size`) and nesting deeper than [`Limits::max_depth`] arrays and
//! objects (keyword `depth`; `{}` is depth 1, `[[1]]` depth 2, a scalar depth 0) before parsing
//! it. [`SchemaCache::validate`] uses [`Limits::default`]: 1 MiB and depth 64. Independently of
//! `max_depth`, the JSON parser refuses more than 127 levels, which is also reported as `depth`.
//! [`SchemaCache::validate_wire`] limits the depth the same way (and the wire format to 160
//! levels); the size of bytes already in memory is its caller's to limit (the TS layer measures
//! the JSON text, `maxArgumentBytes`).
//!
//! # Diagnostics
//!
//! At most [`MAX_DIAGNOSTICS`] per validation. `path` is the JSON Pointer of the instance location
//! (`""` for the root). Two keywords are reported at the offending property rather than at its
//! parent object, because that is where a small model has to look: `additionalProperties` /
//! `unevaluatedProperties` give one diagnostic per unexpected property, at that property
//! (`/extra`, `is not allowed`). `required` stays at the parent (`""`, `is required: "q"`, one
//! diagnostic per missing property, also for `dependentRequired` and draft-07 `dependencies`),
//! and [`summary`] renders it as `/q is required`. Messages never quote instance values
//! (arguments may hold secrets), only property names and values taken from the schema.


// A module of std (boon, serde_json and regress need it; the crate links std wherever this
// module is built, `src/lib.rs`): its prelude and macros, in the crate's `no_std` prelude.
use std::prelude::rust_2021::*;
use std::{format, thread_local, vec};

use std::cell::Cell;
use std::fmt::Write as _;

use boon::{
    CompileError, CompiledPattern, Compiler, Draft, ErrorKind, PatternEngine, PatternFailure, SchemaIndex,
    Schemas, Type, UrlLoader, ValidationError,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The most diagnostics one validation returns; the rest are dropped.
pub const MAX_DIAGNOSTICS: usize = 20;

/// The most diagnostics [`summary`] spells out before `; … (N more)`.
pub const SUMMARY_ITEMS: usize = 5;

/// The longest string (or property name), in characters, that is tested against a pattern;
/// a longer one fails validation (see the module docs, "Patterns").
pub const MAX_PATTERN_INPUT_CHARS: usize = 10_000;

/// The deepest nesting of arrays and objects accepted in a schema's text (`{}` is 1). Checking a
/// schema against its meta-schema recurses once per level and more; measured in Node (whose
/// stack is about as deep as a browser's main thread), every keyword compiles at 100 levels and
/// the deepest-recursing ones (`if`, `contains`...) ran out of stack past 107. (Should a smaller
/// stack run out anyway, the loader replaces the module and the schema is refused.)
pub const MAX_SCHEMA_DEPTH: usize = 100;

/// The URL of the draft-07 meta-schema, as draft-07 schemas spell it.
pub const DRAFT_07_URL: &str = "http://json-schema.org/draft-07/schema#";
/// The URL of the 2020-12 meta-schema.
pub const DRAFT_2020_12_URL: &str = "https://json-schema.org/draft/2020-12/schema";

/// Where a compiled schema lives for the engine: its base URI when it has no `$id`. Relative
/// `$ref`s resolve against it (and are then refused as external); messages show them without it.
const SCHEMA_URL: &str = "json-schema:///";

/// A JSON Schema dialect this module supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Dialect {
    /// JSON Schema draft-07.
    #[serde(rename = "draft-07")]
    Draft7,
    /// JSON Schema 2020-12, the default.
    #[serde(rename = "2020-12")]
    Draft202012,
}

impl Dialect {
    fn engine_draft(self) -> Draft {
        match self {
            Dialect::Draft7 => Draft::V7,
            Dialect::Draft202012 => Draft::V2020_12,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Dialect::Draft7 => "draft-07",
            Dialect::Draft202012 => "2020-12",
        }
    }
}

/// Why a schema could not be compiled, or why a handle was refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SchemaProblem {
    /// `invalid_schema` (the schema cannot be used), `unknown_handle` (no schema has this handle,
    /// or it was dropped), or `too_many_schemas` (the handle counter ran out).
    pub code: &'static str,
    /// One sentence saying what is wrong.
    pub message: String,
    /// Where in the schema the problem is, as a JSON Pointer; empty when it is the whole schema.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub path: String,
}

impl SchemaProblem {
    fn invalid(message: String) -> SchemaProblem {
        SchemaProblem { code: "invalid_schema", message, path: String::new() }
    }
}

impl std::fmt::Display for SchemaProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SchemaProblem {}

/// One reason an instance failed validation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// JSON Pointer of the instance location; `""` is the root.
    pub path: String,
    /// The JSON Schema keyword that failed (`type`, `required`, `minimum`, ...), or `json`, `size`
    /// or `depth` when the text was refused before validation.
    pub keyword: String,
    /// A short message meant to be read after the path: `must be number`, `is required: "q"`.
    pub message: String,
}

impl Diagnostic {
    fn new(path: impl Into<String>, keyword: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic { path: path.into(), keyword: keyword.into(), message: message.into() }
    }
}

/// Limits on the instance text, checked before it is parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Limits {
    /// Longest accepted JSON text, in UTF-8 bytes.
    pub max_bytes: usize,
    /// Deepest accepted nesting of arrays and objects (a scalar is 0, `{}` is 1).
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_bytes: 1024 * 1024, max_depth: 64 }
    }
}

// ---- patterns ---------------------------------------------------------------------------------

thread_local! {
    /// Set when a string could not be tested against a pattern during the current validation
    /// (validation runs on one thread, start to end, so a thread-local is per validation).
    static PATTERN_UNCHECKED: Cell<Option<PatternFailure>> = const { Cell::new(None) };
    /// The pattern work the current validation may still do (`crate::pattern::Budget`).
    static PATTERN_BUDGET: crate::pattern::Budget = crate::pattern::Budget::default();
    /// The notes of the schema being compiled ([`SchemaCache::notes`]), made as its patterns are.
    static NOTES: Cell<Vec<PatternNote>> = const { Cell::new(Vec::new()) };
}

/// The prefix of a compile error for a pattern refused for its running time, which
/// [`compile_problem`] reports as `unsafe_pattern`.
const UNSAFE_MARK: &str = "unsafe: ";

/// Installs the pattern engine: the crate's judged patterns ([`crate::pattern`]), so schema
/// patterns run where the judgement says (the page's `RegExp`, the linear engine, or refused)
/// and every test is paid from the validation's budget. Strings over
/// [`MAX_PATTERN_INPUT_CHARS`] are never tested, and every string not tested is recorded for
/// [`SchemaCache::validate_with_limits`]. Once per process; later calls are ignored.
pub fn install_pattern_engine() {
    boon::set_pattern_engine(Box::new(Judged));
}

struct Judged;

impl PatternEngine for Judged {
    fn compile(&self, source: &str, location: &str) -> Result<Box<dyn CompiledPattern>, String> {
        let allow_unsafe = crate::pattern::unsafe_allowed();
        match crate::pattern::compile_judged(source, "u", allow_unsafe) {
            Ok((handle, judgement)) => {
                let pattern = JudgedPattern { handle, source: source.to_owned(), allow_unsafe, words: Default::default() };
                if let Some(judgement) = judgement {
                    note(source, location, judgement);
                    pattern.keep(judgement);
                }
                Ok(Box::new(pattern))
            }
            Err(crate::pattern::PatternError::Invalid(reason)) => Err(reason),
            Err(crate::pattern::PatternError::Unsafe(why)) => Err(format!("{UNSAFE_MARK}{why}")),
        }
    }

    /// `format: "regex"` reads a pattern without judging it: its meta-schema check comes before
    /// the schema's own compilation (which judges its patterns, where they are), and an instance's
    /// string is never run.
    fn check(&self, source: &str) -> Result<(), String> {
        crate::pattern::check_syntax(source, "u")
    }
}

/// Records the note of a slow pattern of the schema being compiled ([`SchemaCache::notes`]): where
/// it is (`location`'s fragment), what makes it slow and where it runs instead.
fn note(source: &str, location: &str, judgement: crate::pattern::Judgement) {
    let (code, short, how) = match judgement.route {
        Some(crate::pattern::Route::Split { short }) => ("pattern_linear", short, "longer strings are tested on the linear-time engine"),
        Some(crate::pattern::Route::Unsafe { short }) => ("pattern_unsafe", short, "it runs only because the page opted in (unsafePatterns), and a longer string is not tested (the instance is invalid)"),
        _ => return,
    };
    let path = fragment_of(location);
    // A split pattern too slow for any string runs on the linear-time engine alone.
    let engine = if short == 0 && code == "pattern_linear" {
        String::from("so every string is tested on the linear-time engine")
    } else {
        format!("on the page's backtracking engine, which tests strings of at most {short} characters; {how}")
    };
    let message = format!("{} has the pattern {} that {} {engine}", at_schema(&path), quote(&clip(source, 120)), judgement.slowness().unwrap_or_default());
    NOTES.with(|notes| {
        let mut all = notes.take();
        all.push(PatternNote { path, code, message });
        notes.set(all);
    });
}

/// A schema's pattern: the host's handle and the pattern's judgement (atomics rather than the
/// core's `Pattern`, because the engine wants its patterns `Send + Sync`; rather than a
/// `OnceLock`, whose `Once` machinery the module would link for this alone).
struct JudgedPattern {
    handle: u32,
    source: String,
    allow_unsafe: bool,
    /// The judgement's words (`Judgement::to_words`) and, last, whether they are set: at compile
    /// time, or at the first test when the judgement had not loaded yet.
    words: [std::sync::atomic::AtomicU32; 5],
}

impl JudgedPattern {
    fn kept(&self) -> Option<crate::pattern::Judgement> {
        use std::sync::atomic::Ordering::Relaxed;
        let [a, b, c, d, set] = &self.words;
        (set.load(Relaxed) == 1).then(|| crate::pattern::Judgement::from_words([a.load(Relaxed), b.load(Relaxed), c.load(Relaxed), d.load(Relaxed)]))
    }

    fn keep(&self, judgement: crate::pattern::Judgement) {
        use std::sync::atomic::Ordering::Relaxed;
        for (slot, word) in self.words.iter().zip(judgement.to_words().into_iter().chain([1])) {
            slot.store(word, Relaxed);
        }
    }
}

impl Drop for JudgedPattern {
    fn drop(&mut self) {
        crate::pattern::release(self.handle);
    }
}

impl CompiledPattern for JudgedPattern {
    fn is_match(&self, text: &str) -> Result<bool, PatternFailure> {
        // Bytes bound characters from above, so most strings skip the count.
        let answer = if text.len() > MAX_PATTERN_INPUT_CHARS && text.chars().count() > MAX_PATTERN_INPUT_CHARS {
            Err(PatternFailure::TooLong { max_chars: MAX_PATTERN_INPUT_CHARS })
        } else {
            let judgement = self.kept().or_else(|| {
                let judgement = crate::pattern::judge_later(self.handle, &self.source, "u", self.allow_unsafe)?;
                self.keep(judgement);
                Some(judgement)
            });
            PATTERN_BUDGET.with(|budget| crate::pattern::test_judged(self.handle, judgement, text, budget)).map_err(|why| match why {
                crate::pattern::Untested::Engine => PatternFailure::Engine,
                other => PatternFailure::Declined(other.phrase()),
            })
        };
        if let Err(failure) = &answer {
            PATTERN_UNCHECKED.with(|cell| cell.set(Some(failure.clone())));
        }
        answer
    }
}

/// Natively, the engine reads its bundled meta-schemas (and `application/json` contents) with
/// serde_json; the wasm module installs the page's `JSON.parse` instead, and links no parser.
#[cfg(not(target_arch = "wasm32"))]
struct SerdeJson;

#[cfg(not(target_arch = "wasm32"))]
use boon::JsonParser;

#[cfg(not(target_arch = "wasm32"))]
impl JsonParser for SerdeJson {
    fn parse(&self, text: &str) -> Result<Value, Box<dyn std::error::Error>> {
        Ok(serde_json::from_str(text)?)
    }
}

// ---- references -------------------------------------------------------------------------------

/// The loader every compile installs: it refuses every URL, so no `$ref` can cause I/O. (The
/// engine serves the meta-schemas of the two dialects from copies compiled into it.)
struct RefuseLoader;

impl UrlLoader for RefuseLoader {
    fn load(&self, _url: &str) -> Result<Value, Box<dyn std::error::Error>> {
        Err("external references are not fetched".into())
    }
}

// ---- the cache --------------------------------------------------------------------------------

struct Entry {
    handle: u32,
    schemas: Schemas,
    index: SchemaIndex,
    /// How many `compile` calls returned this handle and were not yet dropped.
    refs: u32,
    /// What the schema was compiled from (JSON text, or the wire format when `wire`), with or
    /// without the page's opt-in to unsafe patterns: compiling the same again shares the entry.
    source: Vec<u8>,
    wire: bool,
    allow_unsafe: bool,
    /// What the schema's slow patterns are routed to ([`SchemaCache::notes`]).
    notes: Vec<PatternNote>,
}

/// A pattern of a schema that the page's backtracking engine cannot run on every string, and
/// where it runs instead (`docs/behaviour.md`, "Patterns"): the package warns once per pattern
/// when a tool with the schema is registered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternNote {
    /// Where the pattern is in the schema, as a JSON Pointer (`/properties/host/pattern`, or
    /// `/patternProperties/<key>` for a key that is a pattern).
    pub path: String,
    /// `pattern_linear` (long strings run on the linear-time engine) or `pattern_unsafe` (the
    /// page opted in; long strings are not tested and the instance is invalid).
    pub code: &'static str,
    /// One sentence for a person, starting with the location.
    pub message: String,
}

/// Compiled validators by handle.
///
/// Compiling is the expensive part (validating the schema against its meta-schema, compiling its
/// patterns), so a schema is compiled once and validated against many times. Compiling the same
/// text again returns the same handle and counts a reference; each `compile` should be matched by
/// one [`SchemaCache::drop_schema`]. Each schema is compiled on its own (nothing it defines is
/// visible to another), so dropping it frees everything it holds, its patterns included.
pub struct SchemaCache {
    /// In handle order. A page compiles a schema per tool, tens at most: a scan costs less than
    /// hashing, and a map per key type would add its own code to the module.
    entries: Vec<Entry>,
    next_handle: u32,
    default_dialect: Dialect,
    /// Documents handed in up front (conformance tests only); never fetched.
    documents: Vec<(String, Value)>,
}

impl Default for SchemaCache {
    fn default() -> Self {
        SchemaCache::new()
    }
}

impl SchemaCache {
    /// An empty cache.
    pub fn new() -> Self {
        #[cfg(not(target_arch = "wasm32"))]
        install_pattern_engine();
        #[cfg(not(target_arch = "wasm32"))]
        boon::set_json_parser(Box::new(SerdeJson));
        SchemaCache {
            entries: Vec::new(),
            next_handle: 1,
            default_dialect: Dialect::Draft202012,
            documents: Vec::new(),
        }
    }

    /// For the JSON-Schema-Test-Suite harness only; not part of the supported API.
    ///
    /// `default_dialect` applies to schemas without `$schema` (the suite's draft7 folder has
    /// none). `documents` are `(uri, document)` pairs made resolvable by `$ref` and, when named
    /// by `$schema`, usable as custom meta-schemas; they are read by the caller, so this still
    /// does no I/O, and any other external reference is still refused.
    #[doc(hidden)]
    pub fn for_conformance_suite(default_dialect: Dialect, documents: Vec<(String, Value)>) -> Self {
        SchemaCache { default_dialect, documents, ..SchemaCache::new() }
    }

    /// How many distinct compiled schemas the cache holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the cache holds no compiled schema.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Compiles a schema given as JSON text; draft 2020-12 unless `$schema` says draft-07.
    ///
    /// Returns a handle for [`SchemaCache::validate`]; the same text compiled again returns the
    /// same handle (see the type's docs on references).
    ///
    /// # Errors
    ///
    /// `invalid_schema` when the text is not JSON or nests deeper than [`MAX_SCHEMA_DEPTH`]
    /// levels, the schema breaks its meta-schema (the message
    /// names the location inside the schema), `$schema` names an unsupported dialect, a `pattern`
    /// is not a valid regular expression, or a `$ref` does not resolve inside the schema
    /// (external references are never fetched). `too_many_schemas` when the handles ran out.
    pub fn compile(&mut self, schema_json: &str) -> Result<u32, SchemaProblem> {
        self.compile_from(schema_json.as_bytes(), false, || parse_schema(schema_json))
    }

    /// [`SchemaCache::compile`] for a schema in the wire format (`crate::wire`, JSON values
    /// only), as the validator module receives it: its numbers are the page's doubles exactly,
    /// and nothing is parsed.
    ///
    /// # Errors
    ///
    /// As [`SchemaCache::compile`]; bytes that are not a JSON value in the wire format are
    /// `invalid_schema` too.
    pub fn compile_wire(&mut self, schema: &[u8]) -> Result<u32, SchemaProblem> {
        self.compile_from(schema, true, || match crate::wire::decode_json(schema, MAX_SCHEMA_DEPTH) {
            Ok(value) => Ok(value),
            Err(e) if e.reason == crate::wire::TOO_DEEP => Err(schema_too_deep()),
            Err(e) => Err(SchemaProblem::invalid(format!("the schema could not be read: {} at byte {}", e.reason, e.at))),
        })
    }

    fn compile_from(
        &mut self,
        source: &[u8],
        wire: bool,
        read: impl FnOnce() -> Result<Value, SchemaProblem>,
    ) -> Result<u32, SchemaProblem> {
        let allow_unsafe = crate::pattern::unsafe_allowed();
        if let Some(entry) = self.entries.iter_mut().find(|e| e.wire == wire && e.allow_unsafe == allow_unsafe && e.source == source) {
            entry.refs = entry.refs.saturating_add(1);
            return Ok(entry.handle);
        }
        let schema = read()?;
        NOTES.with(Cell::take);
        let built = self.build(&schema);
        let notes = NOTES.with(Cell::take);
        let (schemas, index) = built?;
        let handle = self.next_handle;
        self.next_handle = handle.checked_add(1).ok_or_else(|| SchemaProblem {
            code: "too_many_schemas",
            message: "no schema handles are left in this cache".to_owned(),
            path: String::new(),
        })?;
        self.entries.push(Entry { handle, schemas, index, refs: 1, source: source.to_vec(), wire, allow_unsafe, notes });
        Ok(handle)
    }

    /// The notes of compiled schema `handle`: each of its patterns that the page's backtracking
    /// engine cannot run on every string (`pattern`, a `patternProperties` key, in any
    /// subschema), where it is and where it runs instead. Empty for an unknown handle, and for
    /// patterns compiled while the judgement was not loaded (they are judged at their first test).
    pub fn notes(&self, handle: u32) -> &[PatternNote] {
        self.entries.iter().find(|e| e.handle == handle).map_or(&[], |e| e.notes.as_slice())
    }

    /// Releases one reference to `handle`; the compiled schema goes with the last one. An unknown
    /// handle is ignored.
    pub fn drop_schema(&mut self, handle: u32) {
        let Some(at) = self.entries.iter().position(|e| e.handle == handle) else { return };
        if let Some(entry) = self.entries.get_mut(at) {
            entry.refs = entry.refs.saturating_sub(1);
            if entry.refs == 0 {
                self.entries.remove(at);
            }
        }
    }

    /// Validates an instance given as JSON text, with [`Limits::default`].
    ///
    /// Returns every problem found, at most [`MAX_DIAGNOSTICS`]; an empty list means valid.
    /// Text that is not JSON (including a string escape holding a lone UTF-16 surrogate) gives
    /// one diagnostic with keyword `json`.
    ///
    /// # Errors
    ///
    /// `unknown_handle` when no schema has this handle.
    pub fn validate(&self, handle: u32, instance_json: &str) -> Result<Vec<Diagnostic>, SchemaProblem> {
        self.validate_with_limits(handle, instance_json, Limits::default())
    }

    /// [`SchemaCache::validate`] with explicit limits on the instance text.
    ///
    /// # Errors
    ///
    /// `unknown_handle` when no schema has this handle.
    pub fn validate_with_limits(
        &self,
        handle: u32,
        instance_json: &str,
        limits: Limits,
    ) -> Result<Vec<Diagnostic>, SchemaProblem> {
        let entry = self.entry(handle)?;
        Ok(match parse_instance(instance_json, limits) {
            Ok(instance) => validate_entry(entry, &instance),
            Err(diagnostic) => vec![diagnostic],
        })
    }

    /// [`SchemaCache::validate`] for an instance in the wire format (`crate::wire`, JSON values
    /// only), as the validator module receives it, nested at most `max_depth` deep (keyword
    /// `depth` beyond). Its size is the caller's to limit: the bytes are already in memory.
    ///
    /// # Errors
    ///
    /// `unknown_handle` when no schema has this handle.
    pub fn validate_wire(&self, handle: u32, instance: &[u8], max_depth: usize) -> Result<Vec<Diagnostic>, SchemaProblem> {
        let entry = self.entry(handle)?;
        Ok(match crate::wire::decode_json(instance, max_depth) {
            Ok(instance) => validate_entry(entry, &instance),
            Err(e) if e.reason == crate::wire::TOO_DEEP => vec![depth_diagnostic(max_depth)],
            Err(e) => vec![Diagnostic::new("", "json", format!("could not be read: {} at byte {}", e.reason, e.at))],
        })
    }

    fn entry(&self, handle: u32) -> Result<&Entry, SchemaProblem> {
        self.entries.iter().find(|e| e.handle == handle).ok_or_else(|| SchemaProblem {
            code: "unknown_handle",
            message: format!("no compiled schema has handle {handle}"),
            path: String::new(),
        })
    }

    fn build(&self, schema: &Value) -> Result<(Schemas, SchemaIndex), SchemaProblem> {
        let dialect = match schema {
            Value::Bool(_) => Some(self.default_dialect),
            Value::Object(map) => match map.get("$schema") {
                None => Some(self.default_dialect),
                Some(Value::String(url)) => match dialect_of_url(url) {
                    Some(dialect) => Some(dialect),
                    None if self.documents.iter().any(|(u, _)| u.trim_end_matches('#') == url.trim_end_matches('#')) => {
                        None
                    }
                    None => return Err(SchemaProblem::invalid(unsupported_dialect(url))),
                },
                Some(_) => {
                    return Err(SchemaProblem {
                        code: "invalid_schema",
                        message: "\"$schema\" must be a URL string".to_owned(),
                        path: "/$schema".to_owned(),
                    })
                }
            },
            other => {
                return Err(SchemaProblem::invalid(format!(
                    "a schema must be a JSON object or a boolean, not {}",
                    json_type(other)
                )))
            }
        };
        let dialect_name = dialect.map_or("(custom meta-schema)", Dialect::name);
        let mut compiler = Compiler::new();
        compiler.set_default_draft(self.default_dialect.engine_draft());
        compiler.enable_format_assertions();
        compiler.use_loader(Box::new(RefuseLoader));
        if dialect == Some(Dialect::Draft7) {
            // Draft-07 lets validators assert contentEncoding / contentMediaType, and the
            // previous engine did; 2020-12 makes them annotations only (its required tests say so).
            compiler.enable_content_assertions();
        }
        for (uri, document) in &self.documents {
            compiler
                .add_resource(uri, document.clone())
                .map_err(|_| SchemaProblem::invalid(format!("document {uri} cannot be used: its URI is not absolute")))?;
        }
        let problem = |e: CompileError| compile_problem(&e, schema, dialect_name);
        compiler.add_resource(SCHEMA_URL, schema.clone()).map_err(problem)?;
        let mut schemas = Schemas::new();
        let index = compiler.compile(SCHEMA_URL, &mut schemas).map_err(problem)?;
        Ok((schemas, index))
    }
}

/// Reads schema text for [`SchemaCache::compile`]: at most [`MAX_SCHEMA_DEPTH`] levels deep.
fn parse_schema(schema_json: &str) -> Result<Value, SchemaProblem> {
    if nesting_exceeds(schema_json, MAX_SCHEMA_DEPTH) {
        return Err(schema_too_deep());
    }
    serde_json::from_str(schema_json).map_err(|e| {
        let detail = e.to_string();
        SchemaProblem::invalid(if detail.starts_with("recursion limit exceeded") {
            "the schema nests arrays and objects deeper than 127 levels".to_owned()
        } else {
            format!("the schema is not valid JSON: {detail}")
        })
    })
}

fn schema_too_deep() -> SchemaProblem {
    SchemaProblem::invalid(format!("the schema nests arrays and objects deeper than {MAX_SCHEMA_DEPTH} levels"))
}

/// Validates `instance` against a compiled entry (see [`SchemaCache::validate`]).
fn validate_entry(entry: &Entry, instance: &Value) -> Vec<Diagnostic> {
    PATTERN_UNCHECKED.with(|cell| cell.set(None));
    PATTERN_BUDGET.with(crate::pattern::Budget::reset);
    let result = entry.schemas.validate(instance, entry.index);
    let unchecked = PATTERN_UNCHECKED.with(Cell::take);
    let mut out = Vec::new();
    if let Err(error) = &result {
        push_diagnostics(&mut out, error, instance);
        out.truncate(MAX_DIAGNOSTICS);
        if out.is_empty() {
            // Every failure the engine reports has a leaf; never report "valid" here.
            out.push(Diagnostic::new("", "schema", "does not match the schema"));
        }
    }
    if let Some(failure) = unchecked {
        // Fail closed: a string that was not tested may have been taken as "not matching"
        // under `not`, `anyOf`, `if`..., which could have made the instance pass.
        if !out.iter().any(|d| d.keyword == "pattern" || d.keyword == "patternProperties") {
            out.truncate(MAX_DIAGNOSTICS.saturating_sub(1));
            let message = format!("has a string that was not tested against a pattern: {}", failure_text(&failure));
            out.push(Diagnostic::new("", "pattern", message));
        }
    }
    out
}

fn failure_text(failure: &PatternFailure) -> String {
    match failure {
        PatternFailure::TooLong { max_chars } => {
            format!("it is longer than {max_chars} characters, the most a pattern is tested against")
        }
        PatternFailure::Engine => "the regular expression engine failed".to_owned(),
        PatternFailure::Declined(reason) => (*reason).to_owned(),
    }
}

fn dialect_of_url(url: &str) -> Option<Dialect> {
    let bare = url.strip_suffix('#').unwrap_or(url);
    let bare = bare.strip_prefix("https://").or_else(|| bare.strip_prefix("http://"))?;
    match bare {
        "json-schema.org/draft-07/schema" => Some(Dialect::Draft7),
        "json-schema.org/draft/2020-12/schema" => Some(Dialect::Draft202012),
        _ => None,
    }
}

fn unsupported_dialect(url: &str) -> String {
    format!(
        "unsupported \"$schema\" {}: the supported dialects are JSON Schema 2020-12 (\"{DRAFT_2020_12_URL}\", \
         also assumed when \"$schema\" is absent) and draft-07 (\"{DRAFT_07_URL}\")",
        quote(url)
    )
}

// ---- compile errors ---------------------------------------------------------------------------

/// Turns a compile error into a [`SchemaProblem`]. `schema` is the schema as given, to show an
/// external `$ref` as its author wrote it.
fn compile_problem(error: &CompileError, schema: &Value, dialect: &str) -> SchemaProblem {
    let (path, message) = match error {
        CompileError::ValidationError { src, .. } => meta_schema_problem(src, schema, dialect),
        CompileError::LoadUrlError { url, .. } | CompileError::UnsupportedUrlScheme { url } => (
            String::new(),
            format!(
                "external $ref {} is not fetched: only references inside the schema itself are resolved \
                 (put shared definitions under \"$defs\" and use \"#/$defs/...\")",
                quote(&written_ref(schema, url))
            ),
        ),
        CompileError::JsonPointerNotFound(loc) => {
            (String::new(), format!("$ref {} points to nothing in the schema", quote(display_url(loc))))
        }
        CompileError::AnchorNotFound { reference, .. } => (
            String::new(),
            format!("$ref {} names an anchor the schema does not define", quote(display_url(reference))),
        ),
        CompileError::InvalidRegex { url, regex, src } if src.to_string().starts_with(UNSAFE_MARK) => {
            let path = fragment_of(url);
            let why = src.to_string();
            let message = format!(
                "{} has a pattern that {}",
                at_schema(&path),
                clip(why.strip_prefix(UNSAFE_MARK).unwrap_or(&why), 400)
            );
            return SchemaProblem { code: "unsafe_pattern", message: clip(&message, 600), path };
        }
        CompileError::InvalidRegex { url, regex, src } => {
            let path = fragment_of(url);
            let message = format!(
                "{} has a regular expression that is not valid (ECMAScript, u flag): {} ({})",
                at_schema(&path),
                quote(&clip(regex, 120)),
                clip(&src.to_string(), 200)
            );
            (path, message)
        }
        CompileError::UnsupportedDraft { url } | CompileError::InvalidMetaSchemaUrl { url, .. } => {
            (String::new(), unsupported_dialect(display_url(url)))
        }
        // Written here rather than with the engine's `Display`, which would link its
        // formatting of every error kind into the module.
        CompileError::ParseUrlError { url, src } => {
            (String::new(), format!("{} is not a valid URI reference ({src})", quote(display_url(url))))
        }
        CompileError::ParseIdError { loc } => {
            (fragment_of(loc), format!("{} has an \"$id\" that is not a valid URI reference", at_schema(&fragment_of(loc))))
        }
        CompileError::ParseAnchorError { loc } => {
            (fragment_of(loc), format!("{} has an anchor that cannot be parsed", at_schema(&fragment_of(loc))))
        }
        CompileError::DuplicateId { id, ptr1, ptr2, .. } => (
            ptr2.clone(),
            format!("\"$id\" {} is used twice, at {} and {}", quote(display_url(id)), quote(ptr1), quote(ptr2)),
        ),
        CompileError::DuplicateAnchor { anchor, ptr1, ptr2, .. } => (
            ptr2.clone(),
            format!("the anchor {} is defined twice, at {} and {}", quote(anchor), quote(ptr1), quote(ptr2)),
        ),
        CompileError::InvalidJsonPointer(loc) => {
            (String::new(), format!("$ref {} is not a valid JSON Pointer", quote(display_url(loc))))
        }
        CompileError::MetaSchemaCycle { url } => {
            (String::new(), format!("the meta-schema {} refers to itself through \"$schema\"", quote(display_url(url))))
        }
        CompileError::UnsupportedVocabulary { vocabulary, .. } => {
            (String::new(), format!("the meta-schema requires the unsupported vocabulary {}", quote(vocabulary)))
        }
        CompileError::Bug(src) => (String::new(), format!("the schema cannot be compiled ({src})")),
    };
    SchemaProblem { code: "invalid_schema", message: clip(&message, 600), path }
}

/// The first problem the meta-schema found, with its location inside the schema.
fn meta_schema_problem(error: &ValidationError<'_, '_>, schema: &Value, dialect: &str) -> (String, String) {
    let leaf = first_leaf(error);
    let path = leaf.instance_location.to_string();
    let message = match &leaf.kind {
        ErrorKind::Format { want: "regex", err, .. } => format!(
            "{} is not a valid regular expression (ECMAScript, u flag): {}",
            at_schema(&path),
            clip(&err.to_string(), 200)
        ),
        ErrorKind::PropertyName { prop }
            if leaf.causes.first().is_some_and(|c| matches!(first_leaf(c).kind, ErrorKind::Format { want: "regex", .. })) =>
        {
            format!(
                "{} has a key that is not a valid regular expression (ECMAScript, u flag): {}",
                at_schema(&path),
                quote(&clip(prop, 120))
            )
        }
        kind => format!(
            "the schema is not valid JSON Schema {dialect}: {} {} (meta-schema keyword \"{}\")",
            at_schema(&path),
            short_message(leaf, schema),
            keyword_of(kind)
        ),
    };
    (path, message)
}

/// The `$ref` of `schema` (as written) that names `url`, the document the engine tried to load;
/// `url` itself, shown without the engine's base, when none does.
fn written_ref(schema: &Value, url: &str) -> String {
    let wanted = display_url(url);
    let mut stack = vec![schema];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                for (key, member) in map {
                    if let (true, Value::String(reference)) = (key == "$ref" || key == "$dynamicRef", member) {
                        let document = reference.split('#').next().unwrap_or_default();
                        if document == wanted || document == url {
                            return reference.clone();
                        }
                    }
                    stack.push(member);
                }
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    wanted.to_owned()
}

/// A URL as the schema's author wrote it: without the engine's base for schemas without `$id`.
fn display_url(url: &str) -> &str {
    url.strip_prefix(SCHEMA_URL).unwrap_or(url)
}

/// The JSON Pointer in a URL's fragment (`json-schema:///#/a/pattern` gives `/a/pattern`).
fn fragment_of(url: &str) -> String {
    let fragment = url.split_once('#').map_or("", |(_, f)| f);
    percent_decode(fragment)
}

/// Undoes the engine's percent-encoding of fragments (which it applies to a few ASCII
/// characters only); anything malformed is kept as it is. (Indices stay within a string's
/// length, far below `usize::MAX`: the saturating adds here never saturate.)
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0usize;
    while let Some(&b) = bytes.get(i) {
        let decoded = if b == b'%' {
            bytes
                .get(i.saturating_add(1)..i.saturating_add(3))
                .and_then(|hex| std::str::from_utf8(hex).ok())
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
        } else {
            None
        };
        match decoded {
            Some(byte) => {
                out.push(byte);
                i = i.saturating_add(3);
            }
            None => {
                out.push(b);
                i = i.saturating_add(1);
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

fn at_schema(path: &str) -> String {
    if path.is_empty() {
        "the schema root".to_owned()
    } else {
        format!("schema location {path}")
    }
}

// ---- instance text ----------------------------------------------------------------------------

/// Parses instance text after checking the limits, or says why it cannot be validated.
fn parse_instance(text: &str, limits: Limits) -> Result<Value, Diagnostic> {
    if text.len() > limits.max_bytes {
        return Err(Diagnostic::new(
            "",
            "size",
            format!("is {} bytes of JSON, over the limit of {} bytes", text.len(), limits.max_bytes),
        ));
    }
    if nesting_exceeds(text, limits.max_depth) {
        return Err(depth_diagnostic(limits.max_depth));
    }
    serde_json::from_str(text).map_err(|e| {
        let detail = e.to_string();
        if detail.starts_with("recursion limit exceeded") {
            depth_diagnostic(127)
        } else if has_lone_surrogate_escape(text) {
            Diagnostic::new(
                "",
                "json",
                format!(
                    "is not valid JSON: a string holds a lone UTF-16 surrogate, which JSON text cannot carry \
                     (line {} column {})",
                    e.line(),
                    e.column()
                ),
            )
        } else {
            Diagnostic::new("", "json", format!("is not valid JSON: {detail}"))
        }
    })
}

/// Whether a string escape in `text` holds a UTF-16 surrogate without its partner, as
/// `JSON.stringify` writes a lone surrogate (`"\ud800"`); serde_json cannot hold one in a `String`.
fn has_lone_surrogate_escape(text: &str) -> bool {
    let bytes = text.as_bytes();
    let hex_at = |i: usize| -> Option<u32> {
        let digits = bytes.get(i..i.checked_add(4)?)?;
        u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
    };
    let mut i = 0usize;
    while let Some(&b) = bytes.get(i) {
        if b != b'\\' {
            i = i.saturating_add(1);
            continue;
        }
        if bytes.get(i.saturating_add(1)) != Some(&b'u') {
            i = i.saturating_add(2); // any other escape, including `\\`
            continue;
        }
        let Some(unit) = hex_at(i.saturating_add(2)) else { return false };
        i = i.saturating_add(6);
        if (0xDC00..0xE000).contains(&unit) {
            return true;
        }
        if (0xD800..0xDC00).contains(&unit) {
            let low =
                if bytes.get(i) == Some(&b'\\') && bytes.get(i.saturating_add(1)) == Some(&b'u') { hex_at(i.saturating_add(2)) } else { None };
            match low {
                Some(low) if (0xDC00..0xE000).contains(&low) => i = i.saturating_add(6),
                _ => return true,
            }
        }
    }
    false
}

fn depth_diagnostic(max_depth: usize) -> Diagnostic {
    Diagnostic::new("", "depth", format!("is nested deeper than {max_depth} levels of arrays and objects"))
}

/// Whether arrays and objects nest deeper than `max_depth`, scanning the text without parsing it
/// (brackets inside strings do not count). Malformed text is left to the parser.
fn nesting_exceeds(text: &str, max_depth: usize) -> bool {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for byte in text.bytes() {
        if in_string {
            if escaped {
                escaped = false;
            } else if byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                in_string = false;
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth = depth.saturating_add(1);
                if depth > max_depth {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

// ---- diagnostics ------------------------------------------------------------------------------

/// Appends the diagnostics for one engine error: the engine reports a tree (a node per schema
/// or `$ref` it went through); the diagnostics are its leaves, one per failed keyword, except
/// that `anyOf` / `oneOf` stay one diagnostic (with hints from their alternatives), and
/// `additionalProperties` / `required` give one per property. `root` is the whole instance, to
/// read the arrays the engine only points at.
fn push_diagnostics(out: &mut Vec<Diagnostic>, error: &ValidationError<'_, '_>, root: &Value) {
    if out.len() >= MAX_DIAGNOSTICS {
        return;
    }
    let path = error.instance_location.to_string();
    match &error.kind {
        ErrorKind::Group | ErrorKind::Schema { .. } | ErrorKind::Reference { .. } | ErrorKind::AllOf => {
            for cause in &error.causes {
                push_diagnostics(out, cause, root);
            }
        }
        ErrorKind::AdditionalProperties { got } => {
            for name in got {
                out.push(Diagnostic::new(pointer_child(&path, name), "additionalProperties", "is not allowed"));
            }
        }
        ErrorKind::Required { want } => {
            for name in want {
                out.push(Diagnostic::new(&path, "required", format!("is required: {}", quote(name))));
            }
        }
        ErrorKind::Dependency { missing, .. } | ErrorKind::DependentRequired { missing, .. } => {
            for name in missing {
                out.push(Diagnostic::new(&path, "required", format!("is required: {}", quote(name))));
            }
        }
        ErrorKind::PatternNotChecked { prop: Some(name), why, .. } => out.push(Diagnostic::new(
            pointer_child(&path, name),
            "patternProperties",
            format!("has a name that was not tested against a pattern: {}", failure_text(why)),
        )),
        ErrorKind::FalseSchema => {
            let keyword = false_schema_keyword(error.schema_url);
            out.push(Diagnostic::new(path, keyword.unwrap_or("falseSchema"), "is not allowed"));
        }
        kind => out.push(Diagnostic::new(&path, keyword_of(kind), short_message(error, root))),
    }
    out.truncate(MAX_DIAGNOSTICS);
}

/// For a false schema, the keyword whose value was `false` (`items`, `propertyNames`, ...), when
/// its location ends in one; `None` for `false` at the root or under `properties`.
fn false_schema_keyword(schema_url: &str) -> Option<&'static str> {
    const KEYWORDS: [&str; 8] = [
        "items",
        "additionalItems",
        "additionalProperties",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
        "contains",
        "not",
    ];
    const MAPS: [&str; 6] =
        ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"];
    let fragment = schema_url.split_once('#').map_or("", |(_, f)| f);
    let mut segments = fragment.rsplit('/');
    let last = segments.next()?;
    let before = segments.next();
    if before.is_some_and(|b| MAPS.contains(&b)) {
        return None;
    }
    KEYWORDS.into_iter().find(|k| *k == last)
}

/// The keyword a (leaf) error is about.
fn keyword_of(kind: &ErrorKind<'_, '_>) -> &'static str {
    match kind {
        ErrorKind::Type { .. } => "type",
        ErrorKind::Enum { .. } => "enum",
        ErrorKind::Const { .. } => "const",
        ErrorKind::Format { .. } => "format",
        ErrorKind::MinProperties { .. } => "minProperties",
        ErrorKind::MaxProperties { .. } => "maxProperties",
        ErrorKind::PropertyName { .. } => "propertyNames",
        ErrorKind::MinItems { .. } => "minItems",
        ErrorKind::MaxItems { .. } => "maxItems",
        ErrorKind::Contains => "contains",
        ErrorKind::MinContains { .. } => "minContains",
        ErrorKind::MaxContains { .. } => "maxContains",
        ErrorKind::UniqueItems { .. } => "uniqueItems",
        ErrorKind::AdditionalItems { .. } => "additionalItems",
        ErrorKind::MinLength { .. } => "minLength",
        ErrorKind::MaxLength { .. } => "maxLength",
        ErrorKind::Pattern { .. } | ErrorKind::PatternNotChecked { .. } => "pattern",
        ErrorKind::ContentEncoding { .. } => "contentEncoding",
        ErrorKind::ContentMediaType { .. } => "contentMediaType",
        ErrorKind::ContentSchema => "contentSchema",
        ErrorKind::Minimum { .. } => "minimum",
        ErrorKind::Maximum { .. } => "maximum",
        ErrorKind::ExclusiveMinimum { .. } => "exclusiveMinimum",
        ErrorKind::ExclusiveMaximum { .. } => "exclusiveMaximum",
        ErrorKind::MultipleOf { .. } => "multipleOf",
        ErrorKind::Not => "not",
        ErrorKind::AnyOf => "anyOf",
        ErrorKind::OneOf(_) => "oneOf",
        ErrorKind::RefCycle { .. } => "$ref",
        ErrorKind::AdditionalProperties { .. } => "additionalProperties",
        ErrorKind::Required { .. } | ErrorKind::Dependency { .. } | ErrorKind::DependentRequired { .. } => "required",
        ErrorKind::FalseSchema => "falseSchema",
        ErrorKind::AllOf => "allOf",
        ErrorKind::Group | ErrorKind::Schema { .. } | ErrorKind::Reference { .. } => "schema",
    }
}

/// A short message for a small model, read after the path. Never quotes instance values.
fn short_message(error: &ValidationError<'_, '_>, root: &Value) -> String {
    match &error.kind {
        ErrorKind::Type { want, .. } => {
            // `null` last: "must be string or null" reads as the schema author meant it.
            let mut names: Vec<String> = want.iter().filter(|t| *t != Type::Null).map(|t| t.to_string()).collect();
            if want.contains(Type::Null) {
                names.push("null".to_owned());
            }
            format!("must be {}", or_list(&names))
        }
        ErrorKind::Enum { want } => enum_message(want),
        ErrorKind::Const { want } => format!("must be {}", short_json(want, 80)),
        ErrorKind::Format { want, .. } => format!("must be a valid {want}"),
        ErrorKind::MinProperties { want, .. } => {
            format!("must have at least {want} propert{}", if *want == 1 { "y" } else { "ies" })
        }
        ErrorKind::MaxProperties { want, .. } => {
            format!("must have at most {want} propert{}", if *want == 1 { "y" } else { "ies" })
        }
        ErrorKind::AdditionalProperties { got } => {
            format!("has properties that are not allowed: {}", got.iter().map(|n| quote(n)).collect::<Vec<_>>().join(", "))
        }
        ErrorKind::Required { want } => {
            format!("is required: {}", want.iter().map(|n| quote(n)).collect::<Vec<_>>().join(", "))
        }
        ErrorKind::Dependency { missing, .. } | ErrorKind::DependentRequired { missing, .. } => {
            format!("is required: {}", missing.iter().map(|n| quote(n)).collect::<Vec<_>>().join(", "))
        }
        ErrorKind::MinItems { want, .. } => format!("must have at least {want} item{}", plural(*want)),
        ErrorKind::MaxItems { want, .. } => format!("must have at most {want} item{}", plural(*want)),
        ErrorKind::AdditionalItems { got } => {
            // The engine counts the extra items; the schema's limit is what the author wrote.
            let length = match root_pointer(root, &error.instance_location.to_string()) {
                Some(Value::Array(items)) => items.len(),
                _ => 0,
            };
            let limit = length.saturating_sub(*got);
            format!("must have at most {limit} item{}", plural(limit))
        }
        ErrorKind::UniqueItems { .. } => "must not contain duplicate items".to_owned(),
        ErrorKind::Contains => "must contain at least one item matching \"contains\"".to_owned(),
        ErrorKind::MinContains { want, .. } => {
            format!("must contain at least {want} item{} matching \"contains\"", plural(*want))
        }
        ErrorKind::MaxContains { want, .. } => {
            format!("must contain at most {want} item{} matching \"contains\"", plural(*want))
        }
        ErrorKind::MinLength { want, .. } => format!("must have at least {want} character{}", plural(*want)),
        ErrorKind::MaxLength { want, .. } => format!("must have at most {want} character{}", plural(*want)),
        ErrorKind::Pattern { want, .. } => format!("must match the pattern {}", clip(want, 160)),
        ErrorKind::PatternNotChecked { why, .. } => {
            format!("was not tested against its pattern: {}", failure_text(why))
        }
        ErrorKind::Minimum { want, .. } => format!("must be >= {want}"),
        ErrorKind::Maximum { want, .. } => format!("must be <= {want}"),
        ErrorKind::ExclusiveMinimum { want, .. } => format!("must be > {want}"),
        ErrorKind::ExclusiveMaximum { want, .. } => format!("must be < {want}"),
        ErrorKind::MultipleOf { want, .. } => format!("must be a multiple of {want}"),
        ErrorKind::Not => "must not match the schema in \"not\"".to_owned(),
        ErrorKind::AnyOf => alternatives_message("must match at least one of the anyOf alternatives", error, root),
        ErrorKind::OneOf(None) => alternatives_message("must match exactly one of the oneOf alternatives", error, root),
        ErrorKind::OneOf(Some(_)) => {
            "must match exactly one of the oneOf alternatives, but matches more than one".to_owned()
        }
        ErrorKind::PropertyName { prop } => {
            let inner = error.causes.first().map(first_leaf);
            match inner.map(|e| &e.kind) {
                Some(ErrorKind::FalseSchema) => "must have no properties".to_owned(),
                Some(_) => format!(
                    "has an invalid property name {}: {}",
                    quote(prop),
                    inner.map(|e| short_message(e, root)).unwrap_or_default()
                ),
                None => format!("has an invalid property name {}", quote(prop)),
            }
        }
        ErrorKind::RefCycle { .. } => "cannot be validated: the schema's references loop without end".to_owned(),
        ErrorKind::FalseSchema => "is not allowed".to_owned(),
        ErrorKind::ContentEncoding { want, .. } | ErrorKind::ContentMediaType { want, .. } => {
            format!("must be valid {want}")
        }
        ErrorKind::ContentSchema => "has content that does not match \"contentSchema\"".to_owned(),
        ErrorKind::Group | ErrorKind::Schema { .. } | ErrorKind::Reference { .. } | ErrorKind::AllOf => {
            "does not match the schema".to_owned()
        }
    }
}

/// The first leaf below an error: what a wrapper node (a `$ref`, a schema, a group) reports first.
fn first_leaf<'e, 's, 'v>(mut error: &'e ValidationError<'s, 'v>) -> &'e ValidationError<'s, 'v> {
    while matches!(
        error.kind,
        ErrorKind::Group | ErrorKind::Schema { .. } | ErrorKind::Reference { .. } | ErrorKind::AllOf
    ) {
        match error.causes.first() {
            Some(cause) => error = cause,
            None => break,
        }
    }
    error
}

/// `must match ... alternatives: must be string or must be number`, hinting with each
/// alternative's first problem when it is at the same location (at most 3).
fn alternatives_message(head: &str, error: &ValidationError<'_, '_>, root: &Value) -> String {
    let here = error.instance_location.to_string();
    let mut hints: Vec<String> = Vec::new();
    // One alternative failing is reported by the engine as that failure itself.
    for branch in &error.causes {
        let first = first_leaf(branch);
        if first.instance_location.to_string() == here
            && !matches!(first.kind, ErrorKind::AnyOf | ErrorKind::OneOf(_) | ErrorKind::Group)
        {
            let hint = short_message(first, root);
            if !hints.contains(&hint) {
                hints.push(hint);
            }
        }
    }
    if hints.is_empty() {
        return head.to_owned();
    }
    let extra = hints.len().saturating_sub(3);
    hints.truncate(3);
    let mut message = format!("{head}: {}", hints.join(" or "));
    if extra > 0 {
        let _ = write!(message, " or … ({extra} more)");
    }
    message
}

/// The value at a JSON Pointer of `root`.
fn root_pointer<'v>(root: &'v Value, pointer: &str) -> Option<&'v Value> {
    root.pointer(pointer)
}

fn enum_message(options: &[Value]) -> String {
    const SHOWN: usize = 8;
    if let [only] = options {
        return format!("must be {}", short_json(only, 80));
    }
    let shown: Vec<String> = options.iter().take(SHOWN).map(|v| short_json(v, 40)).collect();
    let mut message = format!("must be one of {}", shown.join(", "));
    if options.len() > SHOWN {
        let _ = write!(message, ", … ({} more)", options.len().saturating_sub(SHOWN));
    }
    message
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn or_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// A string as a JSON string literal.
pub fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\""))
}

/// The string [`quote`] wrote `literal` from, or `None` for anything else. Not a JSON parser:
/// `quote` escapes `"`, `\\` and control characters only (as `\n`-style escapes or `\u00XX`),
/// which is all this undoes. (The module links no JSON parser: see `crate::wire::decode_json`.)
#[doc(hidden)]
pub fn unquote(literal: &str) -> Option<String> {
    let inner = literal.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return None,
            '\\' => out.push(match chars.next()? {
                '"' => '"',
                '\\' => '\\',
                '/' => '/',
                'b' => '\u{8}',
                'f' => '\u{c}',
                'n' => '\n',
                'r' => '\r',
                't' => '\t',
                'u' => {
                    let hex: String = chars.by_ref().take(4).collect();
                    if hex.len() != 4 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                        return None;
                    }
                    char::from_u32(u32::from_str_radix(&hex, 16).ok()?).filter(|c| c.is_control())?
                }
                _ => return None,
            }),
            _ => out.push(c),
        }
    }
    Some(out)
}

/// Compact JSON, cut to about `max` characters.
fn short_json(value: &Value, max: usize) -> String {
    clip(&value.to_string(), max)
}

/// `s` cut to at most `max` characters, ending with `…` when cut.
fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}


/// `parent` + `/name`, escaping `~` and `/` as JSON Pointer requires.
fn pointer_child(parent: &str, name: &str) -> String {
    let mut out = String::with_capacity(parent.len().saturating_add(name.len()).saturating_add(1));
    out.push_str(parent);
    out.push('/');
    for c in name.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
    out
}

/// The line the agent reads after `Error: `:
/// `Validation failed: /a must be number; /q is required`.
///
/// Each item is the path followed by the message; the root is shown as `(root)` (a bare `/` would
/// name the property whose name is empty). A `required` problem is shown at the missing property
/// (`/q is required`) rather than at its parent. At most [`SUMMARY_ITEMS`] items, then
/// `; … (N more)`. An empty list gives `Validation failed`.
pub fn summary(diagnostics: &[Diagnostic]) -> String {
    let mut out = String::from("Validation failed");
    for (i, d) in diagnostics.iter().take(SUMMARY_ITEMS).enumerate() {
        out.push_str(if i == 0 { ": " } else { "; " });
        out.push_str(&summary_item(d));
    }
    if diagnostics.len() > SUMMARY_ITEMS {
        let _ = write!(out, "; … ({} more)", diagnostics.len().saturating_sub(SUMMARY_ITEMS));
    }
    out
}

fn summary_item(d: &Diagnostic) -> String {
    if d.keyword == "required" {
        if let Some(name) = d.message.strip_prefix("is required: ").and_then(unquote) {
            return format!("{} is required", pointer_child(&d.path, &name));
        }
    }
    let place = if d.path.is_empty() { "(root)" } else { d.path.as_str() };
    format!("{place} {}", d.message)
}

/// The JSON type name of a value, for messages.
fn json_type(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_scan_ignores_brackets_in_strings() {
        assert!(!nesting_exceeds(r#"{"a":"[[[[[[["}"#, 1));
        assert!(nesting_exceeds("[[1]]", 1));
        assert!(!nesting_exceeds("[[1]]", 2));
        assert!(!nesting_exceeds(r#"["\"[[["]"#, 1));
    }

    #[test]
    fn dialect_urls() {
        assert_eq!(dialect_of_url("http://json-schema.org/draft-07/schema#"), Some(Dialect::Draft7));
        assert_eq!(dialect_of_url("http://json-schema.org/draft-07/schema"), Some(Dialect::Draft7));
        assert_eq!(dialect_of_url("https://json-schema.org/draft/2020-12/schema"), Some(Dialect::Draft202012));
        assert_eq!(dialect_of_url("http://json-schema.org/draft-04/schema#"), None);
    }

    #[test]
    fn lone_surrogates() {
        assert!(has_lone_surrogate_escape(r#""\ud800""#));
        assert!(has_lone_surrogate_escape(r#""\udc00x""#));
        assert!(has_lone_surrogate_escape(r#""\uD800\u0041""#));
        assert!(!has_lone_surrogate_escape(r#""\ud83d\ude00""#));
        assert!(!has_lone_surrogate_escape(r#""\\ud800""#));
        assert!(!has_lone_surrogate_escape(r#""\u00e9""#));
    }

    #[test]
    fn pointer_escaping() {
        assert_eq!(pointer_child("", "a/b~c"), "/a~1b~0c");
    }
}
