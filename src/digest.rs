//! RFC 8785 (JCS) canonical JSON, SHA-256 args digests and tool-definition fingerprints (SPEC §5).

use std::fmt;
use std::fmt::Write as _;

use serde::Deserialize;
use serde_json::{Map, Value};
use sha2::{Digest as _, Sha256};

/// Deepest nesting of arrays and objects that [`canonical_json`] accepts.
///
/// A bare scalar has depth 0 and `[]` has depth 1, so `[[…]]` with 128 pairs of brackets
/// is accepted and 129 is rejected with `too_deep`. The limit exists because the
/// serializer underneath recurses once per level, and a wasm32 stack is small: the check
/// itself walks the value with an explicit stack, so a 10,000-deep value is refused
/// without recursing into it.
pub const MAX_DEPTH: usize = 128;

/// Why a value could not be canonicalized.
///
/// `code` is stable and machine-readable; `message` is for people.
#[derive(Debug, Clone, PartialEq)]
pub struct DigestError {
    /// One of `non_finite_number`, `too_deep`, or `canonicalize_failed`.
    ///
    /// `canonicalize_failed` wraps an error from the JCS serializer that the pre-checks did
    /// not foresee; with `serde_json::Value` input it is not expected to occur.
    pub code: &'static str,
    /// Human-readable explanation.
    pub message: String,
}

impl DigestError {
    fn new(code: &'static str, message: String) -> Self {
        Self { code, message }
    }
}

impl fmt::Display for DigestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for DigestError {}

/// The parts of a tool definition that make up its fingerprint (SPEC §5).
///
/// Deserializes from the JS shape (`inputSchema`, `outputSchema`); other members such as
/// `execute` are ignored, and a member that is `null` counts as absent.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolDefinition {
    /// The tool's name.
    pub name: String,
    /// Optional human-readable title.
    pub title: Option<String>,
    /// Optional description shown to the model.
    pub description: Option<String>,
    /// Optional JSON Schema of the arguments.
    pub input_schema: Option<Value>,
    /// Optional JSON Schema of the structured result.
    pub output_schema: Option<Value>,
    /// Optional annotations (`readOnlyHint`, `destructiveHint`, …).
    pub annotations: Option<Value>,
}

/// Names of the fingerprinted fields, in the order [`changed_fields`] reports them.
const FIELD_NAMES: [&str; 6] = [
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
];

impl ToolDefinition {
    /// The six fingerprinted members as JSON, in [`FIELD_NAMES`] order (`None` = absent).
    fn fields(&self) -> [Option<Value>; 6] {
        [
            Some(Value::String(self.name.clone())),
            self.title.clone().map(Value::String),
            self.description.clone().map(Value::String),
            self.input_schema.clone(),
            self.output_schema.clone(),
            self.annotations.clone(),
        ]
    }
}

/// Serializes `value` as RFC 8785 canonical JSON.
///
/// Object members are sorted by the UTF-16 code units of their names, numbers are written
/// as ECMAScript `Number.prototype.toString` would (`1e+21`, `1e-7`, `-0` → `0`), strings
/// are escaped exactly as `JSON.stringify` does, and there is no whitespace. The result is
/// byte-for-byte what a JS JCS implementation produces for the same value.
///
/// # Errors
///
/// `too_deep` if arrays and objects nest deeper than [`MAX_DEPTH`]; `non_finite_number` if a
/// number is NaN or infinite (only reachable when serde_json's `arbitrary_precision` is on);
/// `canonicalize_failed` if the serializer fails for another reason.
pub fn canonical_json(value: &Value) -> Result<String, DigestError> {
    precheck(value)?;
    // serde_json_canonicalizer does the JCS work: ryu-js for ECMAScript number formatting,
    // UTF-16 key order, JSON.stringify escaping. It also turns on serde_json's
    // `float_roundtrip`, without which `333333333.33333329` parses one ulp off.
    serde_json_canonicalizer::to_string(value)
        .map_err(|err| DigestError::new("canonicalize_failed", err.to_string()))
}

/// Walks `value` with an explicit stack, enforcing [`MAX_DEPTH`] and finite numbers.
///
/// This runs before the (recursive) serializer so that the serializer never sees a value
/// deep enough to exhaust the stack.
fn precheck(value: &Value) -> Result<(), DigestError> {
    // Each entry is a value and the number of containers enclosing it.
    let mut stack: Vec<(&Value, usize)> = vec![(value, 0)];
    while let Some((current, enclosing)) = stack.pop() {
        match current {
            Value::Array(items) => {
                let depth = container_depth(enclosing)?;
                stack.extend(items.iter().map(|child| (child, depth)));
            }
            Value::Object(members) => {
                let depth = container_depth(enclosing)?;
                stack.extend(members.values().map(|child| (child, depth)));
            }
            Value::Number(number) => {
                // With default serde_json features a Number is always finite; this guards
                // an `arbitrary_precision` build, where "1e400" would otherwise reach the
                // serializer as infinity.
                if !number.as_f64().is_some_and(f64::is_finite) {
                    return Err(DigestError::new(
                        "non_finite_number",
                        format!("number {number} is not a finite IEEE 754 double"),
                    ));
                }
            }
            Value::Null | Value::Bool(_) | Value::String(_) => {}
        }
    }
    Ok(())
}

/// The depth of a container enclosed by `enclosing` others, or `too_deep` past [`MAX_DEPTH`].
fn container_depth(enclosing: usize) -> Result<usize, DigestError> {
    let depth = enclosing.saturating_add(1);
    if depth > MAX_DEPTH {
        return Err(DigestError::new(
            "too_deep",
            format!("arrays and objects nest deeper than {MAX_DEPTH} levels"),
        ));
    }
    Ok(depth)
}

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let mut hex = String::with_capacity(hash.len().saturating_mul(2));
    for byte in hash.iter() {
        // Writing to a String cannot fail, so the fmt::Result carries no information.
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

/// The args digest of SPEC §5: lowercase hex SHA-256 of the canonical JSON of `value`.
///
/// # Errors
///
/// As [`canonical_json`].
pub fn digest(value: &Value) -> Result<String, DigestError> {
    canonical_json(value).map(|canonical| sha256_hex(canonical.as_bytes()))
}

/// The fingerprint of a tool definition (SPEC §5).
///
/// Hashes the canonical JSON of `{name, title, description, inputSchema, outputSchema,
/// annotations}` with absent members omitted, so member order in the schemas does not matter.
///
/// # Errors
///
/// As [`canonical_json`]; the wrapping object counts as one level of nesting, so the
/// schemas and annotations may nest at most `MAX_DEPTH - 1` levels.
pub fn tool_fingerprint(def: &ToolDefinition) -> Result<String, DigestError> {
    let mut object = Map::new();
    for (name, field) in FIELD_NAMES.iter().zip(def.fields()) {
        if let Some(value) = field {
            object.insert((*name).to_owned(), value);
        }
    }
    digest(&Value::Object(object))
}

/// Which fingerprinted fields differ between two definitions, in the fixed order `name`,
/// `title`, `description`, `inputSchema`, `outputSchema`, `annotations`.
///
/// Fields are compared by canonical form, so reordered object members or `1.0` vs `1` are
/// not a change. If a field cannot be canonicalized (too deep), it is compared structurally
/// instead, so the answer is still usable for showing what changed.
pub fn changed_fields(previous: &ToolDefinition, current: &ToolDefinition) -> Vec<&'static str> {
    FIELD_NAMES
        .iter()
        .zip(previous.fields().iter().zip(current.fields().iter()))
        .filter(|(_, (before, after))| !same_field(before.as_ref(), after.as_ref()))
        .map(|(name, _)| *name)
        .collect()
}

/// Whether two optional field values have the same canonical form.
fn same_field(before: Option<&Value>, after: Option<&Value>) -> bool {
    match (before, after) {
        (None, None) => true,
        (Some(before), Some(after)) => match (canonical_json(before), canonical_json(after)) {
            (Ok(before), Ok(after)) => before == after,
            _ => before == after,
        },
        _ => false,
    }
}
