//! JSON Schema validation of tool arguments and structured results (SPEC §6).
//!
//! A tool's `inputSchema` (and `outputSchema`) is compiled once into a [`SchemaCache`], which hands
//! back a `u32` handle; every call then validates the arguments, given as JSON text (what
//! `JSON.stringify` produced on the JS side), against that handle. Problems come back as data:
//! a schema that cannot be compiled is a [`SchemaProblem`] (code `invalid_schema`), an instance
//! that does not validate is a list of [`Diagnostic`]s, and [`summary`] turns that list into the one
//! line the agent reads after `Error: `.
//!
//! The engine is the `jsonschema` crate (0.61.2, pinned, default features off); see
//! `shared/reference/jsonschema-crates.md` for why, and for its measured conformance.
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
//! meta-schemas). Anything else is `invalid_schema` "external $ref ... is not fetched". The
//! library never does network or file I/O: default features are off (no HTTP or file resolver is
//! even compiled in), and every compile also installs a retriever that refuses every URI.
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
//! Formats this engine does not know (`"format": "textarea"`, `idn-email`, `idn-hostname`:
//! the `idna` feature is off to save ~45 KB) are ignored, as the specification allows. The test
//! suite harness (`tests/json_schema_suite.rs`) runs the 2020-12 `format.json` tests whose
//! description says "only an annotation by default" with the expectation inverted, listed in
//! `tests/json-schema-test-suite/known-failures.json`.
//!
//! # Limits
//!
//! [`SchemaCache::validate_with_limits`] rejects instance text longer than
//! [`Limits::max_bytes`] (keyword `size`) and nesting deeper than [`Limits::max_depth`] arrays and
//! objects (keyword `depth`; `{}` is depth 1, `[[1]]` depth 2, a scalar depth 0) before parsing
//! it. [`SchemaCache::validate`] uses [`Limits::default`]: 1 MiB and depth 64. Independently of
//! `max_depth`, the JSON parser refuses more than 127 levels, which is also reported as `depth`.
//!
//! # Diagnostics
//!
//! At most [`MAX_DIAGNOSTICS`] per validation. `path` is the JSON Pointer of the instance location
//! (`""` for the root). Two keywords are reported at the offending property rather than at its
//! parent object, because that is where a small model has to look: `additionalProperties` /
//! `unevaluatedProperties` give one diagnostic per unexpected property, at that property
//! (`/extra`, `is not allowed`). `required` stays at the parent (`""`, `is required: "q"`), and
//! [`summary`] renders it as `/q is required`. Messages never quote instance values (arguments
//! may hold secrets), only property names and values taken from the schema.

use std::collections::HashMap;
use std::fmt::Write as _;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{Draft, ReferencingError, Retrieve, Uri, ValidationError, Validator};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The most diagnostics one validation returns; the rest are dropped.
pub const MAX_DIAGNOSTICS: usize = 20;

/// The most diagnostics [`summary`] spells out before `; … (N more)`.
pub const SUMMARY_ITEMS: usize = 5;

/// The URL of the draft-07 meta-schema, as draft-07 schemas spell it.
pub const DRAFT_07_URL: &str = "http://json-schema.org/draft-07/schema#";
/// The URL of the 2020-12 meta-schema.
pub const DRAFT_2020_12_URL: &str = "https://json-schema.org/draft/2020-12/schema";

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
            Dialect::Draft7 => Draft::Draft7,
            Dialect::Draft202012 => Draft::Draft202012,
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

/// The retriever every compile installs: it refuses every URI, so no `$ref` can cause I/O.
struct RefuseRetrieval;

/// The error [`RefuseRetrieval`] returns (the compile error is then reported as an external `$ref`).
#[derive(Debug)]
struct NotFetched;

impl std::fmt::Display for NotFetched {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("external references are not fetched")
    }
}

impl std::error::Error for NotFetched {}

impl Retrieve for RefuseRetrieval {
    fn retrieve(&self, _uri: &Uri<String>) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        Err(Box::new(NotFetched))
    }
}

struct Entry {
    validator: Validator,
    /// How many `compile` calls returned this handle and were not yet dropped.
    refs: u32,
    /// The schema text, to remove the dedup entry when the last reference goes.
    text: String,
}

/// Compiled validators by handle.
///
/// Compiling is the expensive part (0.3-2 ms per schema in wasm, mostly validating the schema
/// against its meta-schema), so a schema is compiled once and validated against many times.
/// Compiling the same text again returns the same handle and counts a reference; each `compile`
/// should be matched by one [`SchemaCache::drop_schema`].
pub struct SchemaCache {
    entries: HashMap<u32, Entry>,
    by_text: HashMap<String, u32>,
    next_handle: u32,
    default_dialect: Dialect,
    /// Documents handed in up front (conformance tests only); never fetched.
    registry: Option<jsonschema::Registry<'static>>,
    /// URIs of `registry`'s documents, which may then be named by `$schema`.
    preloaded: Vec<String>,
}

impl Default for SchemaCache {
    fn default() -> Self {
        SchemaCache::new()
    }
}

impl SchemaCache {
    /// An empty cache.
    pub fn new() -> Self {
        SchemaCache {
            entries: HashMap::new(),
            by_text: HashMap::new(),
            next_handle: 1,
            default_dialect: Dialect::Draft202012,
            registry: None,
            preloaded: Vec::new(),
        }
    }

    /// For the JSON-Schema-Test-Suite harness only; not part of the supported API.
    ///
    /// `default_dialect` applies to schemas without `$schema` (the suite's draft7 folder has
    /// none). `documents` are `(uri, json text)` pairs made resolvable by `$ref` and, when named
    /// by `$schema`, usable as custom meta-schemas; they are read by the caller, so this still
    /// does no I/O, and any other external reference is still refused.
    ///
    /// # Errors
    ///
    /// `invalid_schema` when a document is not JSON or the set cannot be indexed.
    #[doc(hidden)]
    pub fn for_conformance_suite(
        default_dialect: Dialect,
        documents: Vec<(String, String)>,
    ) -> Result<Self, SchemaProblem> {
        let mut preloaded = Vec::with_capacity(documents.len());
        let mut parsed = Vec::with_capacity(documents.len());
        for (uri, text) in documents {
            let value: Value = serde_json::from_str(&text)
                .map_err(|e| SchemaProblem::invalid(format!("document {uri} is not JSON: {e}")))?;
            preloaded.push(uri.trim_end_matches('#').to_owned());
            parsed.push((uri, value));
        }
        let registry = jsonschema::Registry::new()
            .retriever(RefuseRetrieval)
            .draft(default_dialect.engine_draft())
            .extend(parsed)
            .and_then(jsonschema::RegistryBuilder::prepare)
            .map_err(|e| SchemaProblem::invalid(format!("documents cannot be indexed: {e}")))?;
        Ok(SchemaCache { default_dialect, registry: Some(registry), preloaded, ..SchemaCache::new() })
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
    /// `invalid_schema` when the text is not JSON, the schema breaks its meta-schema (the message
    /// names the location inside the schema), `$schema` names an unsupported dialect, a `pattern`
    /// is not a valid regular expression, or a `$ref` does not resolve inside the schema
    /// (external references are never fetched). `too_many_schemas` when the handles ran out.
    pub fn compile(&mut self, schema_json: &str) -> Result<u32, SchemaProblem> {
        if let Some(&handle) = self.by_text.get(schema_json) {
            if let Some(entry) = self.entries.get_mut(&handle) {
                entry.refs = entry.refs.saturating_add(1);
                return Ok(handle);
            }
        }
        let validator = self.build(schema_json)?;
        let handle = self.next_handle;
        self.next_handle = handle.checked_add(1).ok_or_else(|| SchemaProblem {
            code: "too_many_schemas",
            message: "no schema handles are left in this cache".to_owned(),
            path: String::new(),
        })?;
        self.entries.insert(handle, Entry { validator, refs: 1, text: schema_json.to_owned() });
        self.by_text.insert(schema_json.to_owned(), handle);
        Ok(handle)
    }

    /// Releases one reference to `handle`; the compiled schema goes with the last one. An unknown
    /// handle is ignored.
    pub fn drop_schema(&mut self, handle: u32) {
        let Some(entry) = self.entries.get_mut(&handle) else { return };
        entry.refs = entry.refs.saturating_sub(1);
        if entry.refs == 0 {
            if let Some(entry) = self.entries.remove(&handle) {
                self.by_text.remove(&entry.text);
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
        let entry = self.entries.get(&handle).ok_or_else(|| SchemaProblem {
            code: "unknown_handle",
            message: format!("no compiled schema has handle {handle}"),
            path: String::new(),
        })?;
        let instance = match parse_instance(instance_json, limits) {
            Ok(instance) => instance,
            Err(diagnostic) => return Ok(vec![diagnostic]),
        };
        if entry.validator.is_valid(&instance) {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        for error in entry.validator.iter_errors(&instance) {
            push_diagnostics(&mut out, &error, &instance);
            if out.len() >= MAX_DIAGNOSTICS {
                break;
            }
        }
        out.truncate(MAX_DIAGNOSTICS);
        if out.is_empty() {
            // `is_valid` and `iter_errors` never disagreed in the suite; never report "valid" here.
            out.push(Diagnostic::new("", "schema", "does not match the schema"));
        }
        Ok(out)
    }

    fn build(&self, schema_json: &str) -> Result<Validator, SchemaProblem> {
        let schema: Value = serde_json::from_str(schema_json).map_err(|e| {
            let detail = e.to_string();
            SchemaProblem::invalid(if detail.starts_with("recursion limit exceeded") {
                "the schema nests arrays and objects deeper than 127 levels".to_owned()
            } else {
                format!("the schema is not valid JSON: {detail}")
            })
        })?;
        let dialect = match &schema {
            Value::Bool(_) => Some(self.default_dialect),
            Value::Object(map) => match map.get("$schema") {
                None => Some(self.default_dialect),
                Some(Value::String(url)) => match dialect_of_url(url) {
                    Some(dialect) => Some(dialect),
                    None if self.preloaded.iter().any(|u| u == url.trim_end_matches('#')) => None,
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
        let mut options = jsonschema::options()
            .with_retriever(RefuseRetrieval)
            .should_validate_formats(true)
            .should_ignore_unknown_formats(true);
        if let Some(dialect) = dialect {
            options = options.with_draft(dialect.engine_draft());
        }
        if let Some(registry) = &self.registry {
            options = options.with_registry(registry);
        }
        let dialect_name = dialect.map_or("(custom meta-schema)", Dialect::name);
        options.build(&schema).map_err(|e| compile_problem(&e, dialect_name))
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

/// Turns a compile error into a [`SchemaProblem`].
fn compile_problem(error: &ValidationError<'_>, dialect: &str) -> SchemaProblem {
    let path = error.instance_path().as_str().to_owned();
    let message = match error.kind() {
        ValidationErrorKind::Referencing(reference) => referencing_message(reference),
        ValidationErrorKind::Format { format } if format == "regex" => {
            format!("{} is not a valid regular expression", at_schema(&path))
        }
        ValidationErrorKind::BacktrackLimitExceeded { .. } | ValidationErrorKind::RegexEngineFailure { .. } => {
            format!(
                "{} has a regular expression that cannot be compiled: {}",
                at_schema(&path),
                clip(&error.to_string(), 200)
            )
        }
        _ => {
            let detail = short_message(error);
            let keyword = error.kind().keyword();
            format!(
                "the schema is not valid JSON Schema {dialect}: {} {detail} (meta-schema keyword \"{keyword}\")",
                at_schema(&path)
            )
        }
    };
    SchemaProblem { code: "invalid_schema", message: clip(&message, 600), path }
}

fn at_schema(path: &str) -> String {
    if path.is_empty() {
        "the schema root".to_owned()
    } else {
        format!("schema location {path}")
    }
}

fn referencing_message(error: &ReferencingError) -> String {
    match error {
        ReferencingError::Unretrievable { uri, .. } => format!(
            "external $ref {} is not fetched: only references inside the schema itself are resolved \
             (put shared definitions under \"$defs\" and use \"#/$defs/...\")",
            quote(display_uri(uri))
        ),
        ReferencingError::PointerToNowhere { pointer } => {
            let reference = if pointer.starts_with('/') { format!("#{pointer}") } else { pointer.clone() };
            format!("$ref {} points to nothing in the schema", quote(&reference))
        }
        ReferencingError::NoSuchAnchor { anchor } => {
            format!("$ref names the anchor {}, which the schema does not define", quote(anchor))
        }
        ReferencingError::UnknownSpecification { specification } => unsupported_dialect(specification),
        other => format!("a $ref cannot be resolved: {other}"),
    }
}

/// URIs relative to no `$id` are resolved against `json-schema:///`; show them as written.
fn display_uri(uri: &str) -> &str {
    uri.strip_prefix("json-schema:///").unwrap_or(uri)
}

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
            i += 1;
            continue;
        }
        if bytes.get(i + 1) != Some(&b'u') {
            i += 2; // any other escape, including `\\`
            continue;
        }
        let Some(unit) = hex_at(i + 2) else { return false };
        i += 6;
        if (0xDC00..0xE000).contains(&unit) {
            return true;
        }
        if (0xD800..0xDC00).contains(&unit) {
            let low =
                if bytes.get(i) == Some(&b'\\') && bytes.get(i + 1) == Some(&b'u') { hex_at(i + 2) } else { None };
            match low {
                Some(low) if (0xDC00..0xE000).contains(&low) => i += 6,
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

/// Appends the diagnostics for one engine error (one, or one per unexpected property).
/// `root` is the whole instance, to list the properties of an object the engine only points at.
fn push_diagnostics(out: &mut Vec<Diagnostic>, error: &ValidationError<'_>, root: &Value) {
    let path = error.instance_path().as_str();
    match error.kind() {
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            let keyword = error.kind().keyword();
            for name in unexpected {
                out.push(Diagnostic::new(pointer_child(path, name), keyword, "is not allowed"));
            }
        }
        // `additionalProperties: false` with no `properties`/`patternProperties` is reported as a
        // false schema at the object (not at the property), for its first member only: every
        // member is unexpected there, so list them all.
        ValidationErrorKind::FalseSchema if false_schema_keyword(error) == Some("additionalProperties") => {
            match root.pointer(path) {
                Some(Value::Object(members)) if !members.is_empty() => {
                    for name in members.keys() {
                        out.push(Diagnostic::new(pointer_child(path, name), "additionalProperties", "is not allowed"));
                    }
                }
                _ => out.push(Diagnostic::new(path, "additionalProperties", "must have no properties")),
            }
        }
        _ => out.push(Diagnostic::new(path, keyword_of(error), short_message(error))),
    }
}

/// For a false-schema error, the keyword whose value was `false` (`items`, `propertyNames`, ...),
/// when the schema path ends in one; `None` for `false` at the root or under `properties`.
fn false_schema_keyword<'e>(error: &'e ValidationError<'_>) -> Option<&'e str> {
    const KEYWORDS: [&str; 7] = [
        "items",
        "additionalItems",
        "additionalProperties",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
        "contains",
    ];
    const MAPS: [&str; 6] =
        ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"];
    let mut segments = error.schema_path().as_str().rsplit('/');
    let last = segments.next()?;
    let before = segments.next();
    if KEYWORDS.contains(&last) && !before.is_some_and(|b| MAPS.contains(&b)) {
        Some(last)
    } else {
        None
    }
}

/// The keyword to report: the engine's, refined for `minContains`/`maxContains`.
fn keyword_of(error: &ValidationError<'_>) -> String {
    if matches!(error.kind(), ValidationErrorKind::FalseSchema) {
        if let Some(keyword) = false_schema_keyword(error) {
            return keyword.to_owned();
        }
    }
    if matches!(error.kind(), ValidationErrorKind::Contains) {
        if let Some(last) = last_segment(error.schema_path().as_str()) {
            if last == "minContains" || last == "maxContains" {
                return last.to_owned();
            }
        }
    }
    error.kind().keyword().to_owned()
}

fn last_segment(pointer: &str) -> Option<&str> {
    pointer.rsplit('/').next()
}

/// A short message for a small model, read after the path. Never quotes instance values.
fn short_message(error: &ValidationError<'_>) -> String {
    match error.kind() {
        ValidationErrorKind::Type { kind } => match kind {
            TypeKind::Single(ty) => format!("must be {ty}"),
            TypeKind::Multiple(set) => {
                // `null` last: "must be string or null" reads as the schema author meant it.
                let mut names: Vec<&str> = set.iter().map(|t| t.as_str()).filter(|t| *t != "null").collect();
                if set.iter().any(|t| t.as_str() == "null") {
                    names.push("null");
                }
                format!("must be {}", or_list(&names))
            }
        },
        ValidationErrorKind::Required { property } => format!("is required: {}", short_json(property, 80)),
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            format!("has properties that are not allowed: {}", quoted_names(unexpected))
        }
        ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            format!("has properties that are not allowed: {}", quoted_names(unexpected))
        }
        ValidationErrorKind::UnevaluatedItems { unexpected } => {
            let n = unexpected.len();
            format!("has {n} item{} that no schema allows", if n == 1 { "" } else { "s" })
        }
        ValidationErrorKind::AdditionalItems { limit } => {
            format!("must have at most {limit} item{}", if *limit == 1 { "" } else { "s" })
        }
        ValidationErrorKind::Enum { options } => enum_message(options),
        ValidationErrorKind::Constant { expected_value } => format!("must be {}", short_json(expected_value, 80)),
        ValidationErrorKind::Minimum { limit } => format!("must be >= {limit}"),
        ValidationErrorKind::Maximum { limit } => format!("must be <= {limit}"),
        ValidationErrorKind::ExclusiveMinimum { limit } => format!("must be > {limit}"),
        ValidationErrorKind::ExclusiveMaximum { limit } => format!("must be < {limit}"),
        ValidationErrorKind::MultipleOf { multiple_of } => format!("must be a multiple of {multiple_of}"),
        ValidationErrorKind::MinLength { limit } => {
            format!("must have at least {limit} character{}", plural(*limit))
        }
        ValidationErrorKind::MaxLength { limit } => {
            format!("must have at most {limit} character{}", plural(*limit))
        }
        ValidationErrorKind::MinItems { limit } => format!("must have at least {limit} item{}", plural(*limit)),
        ValidationErrorKind::MaxItems { limit } => format!("must have at most {limit} item{}", plural(*limit)),
        ValidationErrorKind::MinProperties { limit } => {
            format!("must have at least {limit} propert{}", if *limit == 1 { "y" } else { "ies" })
        }
        ValidationErrorKind::MaxProperties { limit } => {
            format!("must have at most {limit} propert{}", if *limit == 1 { "y" } else { "ies" })
        }
        ValidationErrorKind::UniqueItems => "must not contain duplicate items".to_owned(),
        ValidationErrorKind::Pattern { pattern } => format!("must match the pattern {}", clip(pattern, 160)),
        ValidationErrorKind::BacktrackLimitExceeded { .. } | ValidationErrorKind::RegexEngineFailure { .. } => {
            "could not be checked against its pattern (the regular expression is too costly)".to_owned()
        }
        ValidationErrorKind::Format { format } => format!("must be a valid {format}"),
        ValidationErrorKind::Contains => match last_segment(error.schema_path().as_str()) {
            Some("minContains") => "has too few items matching \"contains\"".to_owned(),
            Some("maxContains") => "has too many items matching \"contains\"".to_owned(),
            _ => "must contain at least one item matching \"contains\"".to_owned(),
        },
        ValidationErrorKind::Not { .. } => "must not match the schema in \"not\"".to_owned(),
        ValidationErrorKind::FalseSchema => match false_schema_keyword(error) {
            Some("propertyNames") => "must have no properties".to_owned(),
            _ => "is not allowed".to_owned(),
        },
        ValidationErrorKind::AnyOf { context } => {
            alternatives_message("must match at least one of the anyOf alternatives", error, context)
        }
        ValidationErrorKind::OneOfNotValid { context } => {
            alternatives_message("must match exactly one of the oneOf alternatives", error, context)
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => {
            "must match exactly one of the oneOf alternatives, but matches more than one".to_owned()
        }
        ValidationErrorKind::PropertyNames { error: inner } => match inner.instance().as_ref() {
            Value::String(name) => format!("has an invalid property name {}: {}", quote(name), short_message(inner)),
            _ => format!("has an invalid property name: {}", short_message(inner)),
        },
        ValidationErrorKind::ContentEncoding { content_encoding } => format!("must be valid {content_encoding}"),
        ValidationErrorKind::FromUtf8 { .. } => "must decode to valid UTF-8".to_owned(),
        ValidationErrorKind::ContentMediaType { content_media_type } => {
            format!("must be valid {content_media_type}")
        }
        ValidationErrorKind::Custom { message, .. } => clip(message, 200),
        ValidationErrorKind::Referencing(reference) => clip(&referencing_message(reference), 200),
    }
}

/// `must match ... alternatives: must be string or must be number`, hinting with each
/// alternative's first problem when it is at the same location (at most 3).
fn alternatives_message(head: &str, error: &ValidationError<'_>, context: &[Vec<ValidationError<'static>>]) -> String {
    let here = error.instance_path().as_str();
    let mut hints: Vec<String> = Vec::new();
    for branch in context {
        if let Some(first) = branch.first() {
            if first.instance_path().as_str() == here
                && !matches!(
                    first.kind(),
                    ValidationErrorKind::AnyOf { .. } | ValidationErrorKind::OneOfNotValid { .. }
                )
            {
                let hint = short_message(first);
                if !hints.contains(&hint) {
                    hints.push(hint);
                }
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

fn enum_message(options: &Value) -> String {
    const SHOWN: usize = 8;
    let Value::Array(items) = options else {
        return format!("must be one of {}", short_json(options, 120));
    };
    if let [only] = items.as_slice() {
        return format!("must be {}", short_json(only, 80));
    }
    let shown: Vec<String> = items.iter().take(SHOWN).map(|v| short_json(v, 40)).collect();
    let mut message = format!("must be one of {}", shown.join(", "));
    if items.len() > SHOWN {
        let _ = write!(message, ", … ({} more)", items.len().saturating_sub(SHOWN));
    }
    message
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn or_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

fn quoted_names(names: &[String]) -> String {
    names.iter().map(|n| quote(n)).collect::<Vec<_>>().join(", ")
}

/// A string as a JSON string literal.
fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\""))
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
    let mut out = String::with_capacity(parent.len() + name.len() + 1);
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
        if let Some(name) =
            d.message.strip_prefix("is required: ").and_then(|rest| serde_json::from_str::<String>(rest).ok())
        {
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
