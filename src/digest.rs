//! Digests: SHA-256 of canonical JSON, tool fingerprints and which definition fields changed.
//!
//! RFC 8785 canonical JSON is written by the TS layer (`pkg-js/src/util/canonical.ts`): sorted keys
//! plus `JSON.stringify` for every string and number, which is exactly the ECMAScript number
//! and string output RFC 8785 asks for. Writing it here would need a JSON serializer with float
//! formatting, most of a small wasm module (`ARCHITECTURE.md`, "Crossing the boundary"). The core keeps the hashing:
//!
//! - the args digest is the SHA-256 of the canonical text of the final arguments;
//! - a tool's fingerprint is the SHA-256 of the canonical text of `{ annotations, description,
//!   inputSchema, name, outputSchema, title }` (absent members omitted), which the core
//!   assembles from the canonical text of each member ([`FieldTexts`]): an object's canonical
//!   text is its members' texts in key order, so the result is exactly the RFC 8785 text of the
//!   whole definition and fingerprints are what they were when the core canonicalized;
//! - which fields changed is decided by comparing per-field digests, so a definition is kept
//!   as six hashes, not as its schemas.

use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec::Vec;

use sha2::{Digest as _, Sha256};

use crate::strs::cat;
use crate::value::Value;

/// The fingerprinted fields of a tool definition, in the order [`changed_fields`] reports them.
pub const FIELD_NAMES: [&str; 6] = ["name", "title", "description", "inputSchema", "outputSchema", "annotations"];

/// Indexes into [`FIELD_NAMES`] in RFC 8785 member order (UTF-16 code units; these names are
/// ASCII): annotations, description, inputSchema, name, outputSchema, title.
const CANONICAL_ORDER: [usize; 6] = [5, 2, 3, 0, 4, 1];

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The args digest: lowercase hex SHA-256 of the canonical JSON text of the final arguments.
pub fn args_digest(canonical: &str) -> String {
    sha256_hex(canonical.as_bytes())
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len().saturating_mul(2));
    for byte in bytes {
        // Arrays are iterated by reference in the core: iterating one by value instantiates
        // core's array `IntoIter` for each element type (~100 bytes of wasm each).
        for &nibble in &[byte >> 4, byte & 0x0f] {
            out.push(char::from(DIGITS.get(usize::from(nibble)).copied().unwrap_or(b'0')));
        }
    }
    out
}

/// The canonical JSON text of each fingerprinted field of one definition (`None`: absent).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldTexts {
    texts: [Option<String>; 6],
}

impl FieldTexts {
    /// Reads `{ name: text, title?: text, … }` as the TS layer sends it, each value the RFC
    /// 8785 text of that member of the definition.
    ///
    /// # Errors
    /// A sentence naming what is wrong: not an object, an unknown field, a value that is not a
    /// string, or no `name`.
    pub fn from_value(value: &Value) -> Result<FieldTexts, String> {
        let Some(map) = value.as_object() else {
            return Err(cat!["the canonical fields are an object, not ", value.type_name()]);
        };
        let mut texts: [Option<String>; 6] = Default::default();
        for (key, text) in map.iter() {
            let slot = FIELD_NAMES
                .iter()
                .position(|name| name == key)
                .and_then(|index| texts.get_mut(index))
                .ok_or_else(|| cat!["\"", key, "\" is not a fingerprinted field"])?;
            let Some(text) = text.as_str() else {
                return Err(cat!["the canonical text of \"", key, "\" is a string, not ", text.type_name()]);
            };
            *slot = Some(text.to_owned());
        }
        if texts.first().is_none_or(Option::is_none) {
            return Err("a definition needs a name".to_owned());
        }
        Ok(FieldTexts { texts })
    }

    /// Builds the texts from `(field, canonical text)` pairs (for tests and native callers).
    ///
    /// # Errors
    /// As [`FieldTexts::from_value`].
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<FieldTexts, String> {
        let map = pairs.into_iter().map(|(key, text)| (key.to_owned(), Value::from(text))).collect();
        FieldTexts::from_value(&Value::Object(map))
    }

    /// The RFC 8785 text of the whole definition object.
    pub fn canonical_definition(&self) -> String {
        let mut out = String::from("{");
        for &index in &CANONICAL_ORDER {
            let (Some(name), Some(Some(text))) = (FIELD_NAMES.get(index), self.texts.get(index)) else { continue };
            if out.len() > 1 {
                out.push(',');
            }
            out.push('"');
            out.push_str(name);
            out.push_str("\":");
            out.push_str(text);
        }
        out.push('}');
        out
    }

    /// The definition's fingerprint: lowercase hex SHA-256 of [`FieldTexts::canonical_definition`].
    pub fn fingerprint(&self) -> String {
        sha256_hex(self.canonical_definition().as_bytes())
    }

    /// The SHA-256 of each field's text, for telling later which fields changed.
    pub fn digests(&self) -> FieldDigests {
        let mut digests = [None; 6];
        for (digest, text) in digests.iter_mut().zip(&self.texts) {
            if let Some(text) = text {
                *digest = Some(Sha256::digest(text.as_bytes()).into());
            }
        }
        FieldDigests(digests)
    }
}

/// The SHA-256 of each fingerprinted field's canonical text (`None`: absent).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldDigests([Option<[u8; 32]>; 6]);

/// Which fingerprinted fields differ between two definitions, in the fixed order `name`,
/// `title`, `description`, `inputSchema`, `outputSchema`, `annotations`. Fields compare by
/// canonical form, so reordered object members or `1.0` against `1` are not a change.
pub fn changed_fields(previous: &FieldDigests, current: &FieldDigests) -> Vec<String> {
    let mut changed = Vec::new();
    for (name, (before, after)) in FIELD_NAMES.iter().zip(previous.0.iter().zip(current.0.iter())) {
        if before != after {
            changed.push((*name).to_owned());
        }
    }
    changed
}
