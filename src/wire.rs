//! The wire format: how a [`Value`] crosses the boundary, as one byte buffer each way.
//!
//! Measured against JSON text (see `ARCHITECTURE.md`, "Crossing the boundary"): a JSON
//! parser and serializer with float parsing and formatting cost more bytes than the rest of the
//! core, while this format carries numbers as raw `f64` (nothing to parse or format), strings as
//! UTF-8 with their length (nothing to escape), and JS functions and RegExps as typed tokens
//! (no `$fn`-style markers that user data could forge). `pkg-js/src/boundary/wire.ts` is the other half.
//!
//! ```text
//! value   = 0x00 null | 0x01 false | 0x02 true
//!         | 0x03 f64 (8 bytes, little endian)
//!         | 0x04 string
//!         | 0x05 count value*              array
//!         | 0x06 count (string value)*     object
//!         | 0x07 count                     function handle
//!         | 0x08 string string             RegExp source, flags
//!         | 0x09 string                    unsupported value, described
//! string  = count UTF-8 bytes
//! count   = unsigned LEB128, at most 32 bits
//! ```
//!
//! Decoding never panics and never trusts a count: a buffer that ends early, a count larger
//! than what is left, invalid UTF-8, an unknown tag, nesting deeper than [`MAX_DEPTH`] or
//! trailing bytes is an error.

use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec::Vec;

use crate::value::{Map, Value};

/// Deepest nesting of arrays and objects a buffer may hold. Decoding recurses once per level,
/// and the wasm stack is small; arguments are limited to far less (`maxArgumentDepth`).
pub const MAX_DEPTH: usize = 160;

const NULL: u8 = 0;
const FALSE: u8 = 1;
const TRUE: u8 = 2;
const NUMBER: u8 = 3;
const STRING: u8 = 4;
const ARRAY: u8 = 5;
const OBJECT: u8 = 6;
const FUNCTION: u8 = 7;
const REGEX: u8 = 8;
const UNSUPPORTED: u8 = 9;

/// Why a buffer could not be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WireError {
    /// What was wrong.
    pub reason: &'static str,
    /// The byte offset where it was found.
    pub at: usize,
}

/// Decodes one value that fills the whole buffer.
///
/// # Errors
/// A [`WireError`] for any buffer the TS encoder cannot have written.
pub fn decode(bytes: &[u8]) -> Result<Value, WireError> {
    let mut reader = Reader { bytes, at: 0 };
    let value = reader.value(0)?;
    if reader.at != bytes.len() {
        return Err(reader.error("trailing bytes"));
    }
    Ok(value)
}

/// Decodes the value at the start of `bytes`; answers it with the bytes after it (a request
/// of the boundary's `configure`: its arguments, then its payload as the TS layer encoded it).
///
/// # Errors
/// As [`decode`], but bytes past the value are the rest, not an error.
pub fn decode_head(bytes: &[u8]) -> Result<(Value, &[u8]), WireError> {
    let mut reader = Reader { bytes, at: 0 };
    let value = reader.value(0)?;
    Ok((value, bytes.get(reader.at..).unwrap_or_default()))
}

/// Why [`decode_json`] refused a buffer that nests deeper than it was allowed to.
#[cfg(feature = "validate")]
pub const TOO_DEEP: &str = "nesting deeper than allowed";

/// Decodes one JSON value that fills the whole buffer into a `serde_json::Value`: what the
/// validator module receives instead of JSON text, so that it parses no numbers (a double
/// crosses as its eight bytes, exactly) and links no float parser. Nesting deeper than
/// `max_depth` arrays and objects (`{}` is 1) is an error whose reason is [`TOO_DEEP`].
///
/// A number becomes what serde_json reads from the text `JSON.stringify` writes for it: an
/// integer below 2^64 (written as plain digits) a `u64`, a negative one down to -2^63 an `i64`,
/// anything else an `f64`. Messages and equality then treat it as they would have.
///
/// # Errors
/// As [`decode`], and for anything JSON cannot hold (a function, a RegExp, an unsupported
/// value, a number that is not finite).
#[cfg(feature = "validate")]
pub fn decode_json(bytes: &[u8], max_depth: usize) -> Result<serde_json::Value, WireError> {
    let mut reader = Reader { bytes, at: 0 };
    let value = reader.json(0, max_depth.min(MAX_DEPTH))?;
    if reader.at != bytes.len() {
        return Err(reader.error("trailing bytes"));
    }
    Ok(value)
}

/// `n` as the `serde_json::Number` serde_json reads from `JSON.stringify(n)` (see [`decode_json`]).
#[cfg(feature = "validate")]
fn json_number(n: f64) -> Option<serde_json::Number> {
    /// 2^64 and -2^63, exactly representable as doubles.
    const U64_END: f64 = 18_446_744_073_709_551_616.0;
    const I64_MIN: f64 = -9_223_372_036_854_775_808.0;
    if crate::value::is_whole(n) {
        // INVARIANT: `n` is integral and within the target type's range, so the casts are exact.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        if (0.0..U64_END).contains(&n) {
            return Some(serde_json::Number::from(n as u64));
        }
        #[allow(clippy::cast_possible_truncation)]
        if (I64_MIN..0.0).contains(&n) {
            return Some(serde_json::Number::from(n as i64));
        }
    }
    serde_json::Number::from_f64(n)
}

/// Generates a code enum of the boundary: its variants numbered from 1, `ALL` and `from_code`.
macro_rules! codes {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name {
            $($(#[$vdoc])* $variant,)*
        }

        impl $name {
            /// Every code, in wire order (code 1 first).
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            /// Decodes a wire code.
            pub fn from_code(code: u32) -> Option<$name> {
                let index = usize::try_from(code.checked_sub(1)?).ok()?;
                $name::ALL.get(index).copied()
            }

            /// The wire code.
            pub fn code(self) -> u32 {
                // INVARIANT: fewer than 2^32 variants.
                #[allow(clippy::cast_possible_truncation)]
                let index = self as u32;
                index.saturating_add(1)
            }
        }
    };
}

codes! {
    /// What a request of the boundary's `configure` export asks. The configuration steps
    /// cross through one export rather than one each: every export costs its own argument glue
    /// on both sides of the boundary (~300 bytes of wasm each, and JS). After each step, the
    /// request's arguments (a wire array) and what follows them.
    Request {
        /// `[set, label]`, then the hook set's spec.
        DefineHookSet,
        /// `[set, replace, label]`.
        AddGlobal,
        /// `[id, subject, server | null, [sets], label]`, then the definition.
        DefineSubject,
        /// `[tool, name, [sets], label]`.
        DefineStandaloneTool,
        /// `[scope, parent, set | null, label]`.
        DefineScope,
        /// `[tool, scope]`.
        PlanError,
        /// `[]`, then the policy (`null` removes it).
        SetPolicy,
        /// `[]`, then `approvedFingerprints`.
        SetApprovedFingerprints,
        /// `[]`, then the tool filter.
        SetToolFilter,
        /// `[call, principal | null, nowMs, ttlMs, argsDigest | null]`.
        RecordGrant,
        /// `[]`, then what the grant store holds.
        LoadGrants,
        /// `[nowMs]`.
        ListGrants,
        /// `[]`, then the revoke filter.
        RevokeGrants,
        /// `[]`.
        StoredGrants,
        /// `[source, flags, allowUnsafe]`: compiles a pattern and answers whether it may run
        /// (`unsafe_pattern` when its judgement refuses it); no engine needed.
        CheckPattern,
        /// `[reason | null]`: suspends the engine's agents with that reason, or resumes them.
        Suspend,
    }
}

codes! {
    /// What the boundary's `control` export does to an engine (scalars in, a `u32` out: `1` for
    /// yes where the step answers a question, `0` otherwise). One export for these steps rather
    /// than one each: each export costs its own glue on both sides of the boundary.
    Control {
        /// Disposes of the engine and everything it holds.
        EngineDrop,
        /// Forgets hook set `arg`.
        DropHookSet,
        /// Forgets tool `arg`.
        DropTool,
        /// Forgets provider scope `arg`.
        DropScope,
        /// Hook returns follow the strict contract (`arg` 1) or the lenient one (`arg` 0).
        SetHookReturns,
        /// Seals a `'first_listing'` baseline.
        SealBaseline,
        /// Records tool `arg`'s baseline definition.
        RecordBaseline,
        /// Removes every grant from the book.
        ClearGrants,
        /// Whether the static tool filter lets agents see tool `arg`.
        IsVisible,
        /// Patterns compiled from now on may (`arg` 1) or may not (`arg` 0) run although
        /// neither engine can be trusted with them (`unsafePatterns`).
        SetUnsafePatterns,
        /// Development mode (`hotReload`) on (`arg` 1) or off (`arg` 0): a changed definition
        /// becomes the tool's baseline instead of meeting the pin.
        SetRebaseline,
    }
}

codes! {
    /// What the boundary's `read` export answers about call or listing `id`, wire-encoded.
    Read {
        /// A call's failure so far (`null` when it has none).
        CallError,
        /// A call's policy decision (`null` before there is one).
        CallDecision,
        /// What the approver and predicates are shown of a call: `{ serverId, name, fingerprint }`.
        AskFacts,
        /// Ends a listing: `{ ok, listed }` or `{ ok: false, error }`.
        EndListing,
        /// The id of the hook a call is at (a string, or `null`).
        CurrentHookId,
        /// The id of the last hook whose outcome a call reported.
        LastHookId,
        /// The id of a listing's current hook.
        ListingHookId,
    }
}

/// Encodes a value. Nesting deeper than [`MAX_DEPTH`] is written as `null` (the core never
/// builds such values; the bound only keeps the recursion safe).
pub fn encode(value: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    write_value(&mut out, value, 0);
    out
}

/// Appends the encoding of `value` to `out`.
pub fn encode_into(out: &mut Vec<u8>, value: &Value) {
    write_value(out, value, 0);
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn error(&self, reason: &'static str) -> WireError {
        WireError { reason, at: self.at }
    }

    fn byte(&mut self) -> Result<u8, WireError> {
        let byte = *self.bytes.get(self.at).ok_or_else(|| self.error("the buffer ends early"))?;
        self.at = self.at.saturating_add(1);
        Ok(byte)
    }

    fn count(&mut self) -> Result<usize, WireError> {
        let mut value: u32 = 0;
        for shift in [0u32, 7, 14, 21, 28] {
            let byte = self.byte()?;
            let bits = u32::from(byte & 0x7f);
            if shift == 28 && bits > 0x0f {
                return Err(self.error("a count over 32 bits"));
            }
            value |= bits << shift;
            if byte & 0x80 == 0 {
                return usize::try_from(value).map_err(|_| self.error("a count over usize"));
            }
        }
        Err(self.error("a count over 32 bits"))
    }

    fn take(&mut self, len: usize) -> Result<&[u8], WireError> {
        let end = self.at.checked_add(len).ok_or_else(|| self.error("a length past the buffer"))?;
        let slice = self.bytes.get(self.at..end).ok_or_else(|| self.error("a length past the buffer"))?;
        self.at = end;
        Ok(slice)
    }

    fn string(&mut self) -> Result<String, WireError> {
        let len = self.count()?;
        let start = self.at;
        let bytes = self.take(len)?;
        match core::str::from_utf8(bytes) {
            Ok(text) => Ok(text.to_owned()),
            Err(_) => Err(WireError { reason: "a string that is not UTF-8", at: start }),
        }
    }

    fn number(&mut self) -> Result<f64, WireError> {
        let bytes = self.take(8)?;
        let array: [u8; 8] = bytes.try_into().map_err(|_| self.error("a number past the buffer"))?;
        Ok(f64::from_le_bytes(array))
    }

    fn value(&mut self, depth: usize) -> Result<Value, WireError> {
        let tag = self.byte()?;
        Ok(match tag {
            NULL => Value::Null,
            FALSE => Value::Bool(false),
            TRUE => Value::Bool(true),
            NUMBER => {
                let number = self.number()?;
                if number.is_finite() {
                    Value::Number(number)
                } else {
                    Value::Unsupported(non_finite_name(number).to_owned())
                }
            }
            STRING => Value::String(self.string()?),
            ARRAY => {
                let depth = self.deeper(depth)?;
                let count = self.count()?;
                // Never trust a count for an allocation: every item takes at least one byte.
                let mut items = Vec::with_capacity(count.min(self.bytes.len().saturating_sub(self.at)));
                for _ in 0..count {
                    items.push(self.value(depth)?);
                }
                Value::Array(items)
            }
            OBJECT => {
                let depth = self.deeper(depth)?;
                let count = self.count()?;
                let mut map = Map::new();
                for _ in 0..count {
                    let key = self.string()?;
                    let value = self.value(depth)?;
                    map.insert(key, value);
                }
                Value::Object(map)
            }
            FUNCTION => {
                let handle = self.count()?;
                Value::Function(u32::try_from(handle).map_err(|_| self.error("a handle over 32 bits"))?)
            }
            REGEX => {
                let source = self.string()?;
                let flags = self.string()?;
                Value::Regex { source, flags }
            }
            UNSUPPORTED => Value::Unsupported(self.string()?),
            _ => {
                self.at = self.at.saturating_sub(1);
                return Err(self.error("an unknown tag"));
            }
        })
    }

    /// A JSON value at nesting `depth` (see [`decode_json`]).
    #[cfg(feature = "validate")]
    fn json(&mut self, depth: usize, max_depth: usize) -> Result<serde_json::Value, WireError> {
        use serde_json::Value as Json;
        let start = self.at;
        let tag = self.byte()?;
        Ok(match tag {
            NULL => Json::Null,
            FALSE => Json::Bool(false),
            TRUE => Json::Bool(true),
            NUMBER => {
                let number = self.number()?;
                Json::Number(json_number(number).ok_or(WireError { reason: "a number that is not finite", at: start })?)
            }
            STRING => Json::String(self.string()?),
            ARRAY | OBJECT => {
                if depth >= max_depth {
                    return Err(WireError { reason: TOO_DEEP, at: start });
                }
                let depth = depth.saturating_add(1);
                let count = self.count()?;
                if tag == ARRAY {
                    // Never trust a count for an allocation: every item takes at least one byte.
                    let mut items = Vec::with_capacity(count.min(self.bytes.len().saturating_sub(self.at)));
                    for _ in 0..count {
                        items.push(self.json(depth, max_depth)?);
                    }
                    Json::Array(items)
                } else {
                    let mut map = serde_json::Map::new();
                    for _ in 0..count {
                        let key = self.string()?;
                        let value = self.json(depth, max_depth)?;
                        map.insert(key, value);
                    }
                    Json::Object(map)
                }
            }
            FUNCTION | REGEX | UNSUPPORTED => return Err(WireError { reason: "a value JSON cannot carry", at: start }),
            _ => return Err(WireError { reason: "an unknown tag", at: start }),
        })
    }

    fn deeper(&self, depth: usize) -> Result<usize, WireError> {
        if depth >= MAX_DEPTH {
            return Err(self.error("nesting deeper than the wire allows"));
        }
        Ok(depth.saturating_add(1))
    }
}

fn non_finite_name(number: f64) -> &'static str {
    if number.is_nan() {
        "NaN"
    } else if number > 0.0 {
        "Infinity"
    } else {
        "-Infinity"
    }
}

fn write_count(out: &mut Vec<u8>, count: usize) {
    // Counts on the wire are u32; the core never holds 2^32 of anything it sends.
    let mut value = u32::try_from(count).unwrap_or(u32::MAX);
    loop {
        // INVARIANT: masked to 7 bits, so the cast keeps every bit.
        #[allow(clippy::cast_possible_truncation)]
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn write_string(out: &mut Vec<u8>, text: &str) {
    write_count(out, text.len());
    out.extend_from_slice(text.as_bytes());
}

fn write_value(out: &mut Vec<u8>, value: &Value, depth: usize) {
    if depth > MAX_DEPTH {
        out.push(NULL);
        return;
    }
    let deeper = depth.saturating_add(1);
    match value {
        Value::Null => out.push(NULL),
        Value::Bool(false) => out.push(FALSE),
        Value::Bool(true) => out.push(TRUE),
        Value::Number(number) => {
            out.push(NUMBER);
            out.extend_from_slice(&number.to_le_bytes());
        }
        Value::String(text) => {
            out.push(STRING);
            write_string(out, text);
        }
        Value::Array(items) => {
            out.push(ARRAY);
            write_count(out, items.len());
            for item in items {
                write_value(out, item, deeper);
            }
        }
        Value::Object(map) => {
            out.push(OBJECT);
            write_count(out, map.len());
            for (key, item) in map.iter() {
                write_string(out, key);
                write_value(out, item, deeper);
            }
        }
        Value::Function(handle) => {
            out.push(FUNCTION);
            write_count(out, usize::try_from(*handle).unwrap_or(usize::MAX));
        }
        Value::Regex { source, flags } => {
            out.push(REGEX);
            write_string(out, source);
            write_string(out, flags);
        }
        Value::Unsupported(kind) => {
            out.push(UNSUPPORTED);
            write_string(out, kind);
        }
    }
}

#[cfg(test)]
mod tests {
    use alloc::vec;

    use super::*;
    use crate::object;

    #[test]
    fn round_trips_every_kind() {
        let value = object! {
            "null" => Value::Null,
            "yes" => true,
            "n" => -1.5,
            "big" => 1e300,
            "text" => "héllo \u{1F600}",
            "list" => Value::Array(vec![Value::Null, Value::Function(7), Value::Regex { source: "^a$".into(), flags: "i".into() }]),
            "odd" => Value::Unsupported("a BigInt".into()),
            "long" => "x".repeat(300),
        };
        assert_eq!(decode(&encode(&value)), Ok(value));
    }

    #[test]
    fn refuses_what_no_encoder_writes() {
        assert_eq!(decode(&[]).map_err(|e| e.reason), Err("the buffer ends early"));
        assert_eq!(decode(&[42]).map_err(|e| e.reason), Err("an unknown tag"));
        assert_eq!(decode(&[NULL, NULL]).map_err(|e| e.reason), Err("trailing bytes"));
        // A string claiming four billion bytes.
        assert_eq!(decode(&[STRING, 0xff, 0xff, 0xff, 0xff, 0x0f]).map_err(|e| e.reason), Err("a length past the buffer"));
        // An array claiming four billion items does not allocate them.
        assert_eq!(decode(&[ARRAY, 0xff, 0xff, 0xff, 0xff, 0x0f]).map_err(|e| e.reason), Err("the buffer ends early"));
        assert_eq!(decode(&[STRING, 1, 0xff]).map_err(|e| e.reason), Err("a string that is not UTF-8"));
        assert_eq!(decode(&[FUNCTION, 0xff, 0xff, 0xff, 0xff, 0x7f]).map_err(|e| e.reason), Err("a count over 32 bits"));
        let deep: Vec<u8> = std::iter::repeat_n([ARRAY, 1], MAX_DEPTH + 1).flatten().chain([NULL]).collect();
        assert_eq!(decode(&deep).map_err(|e| e.reason), Err("nesting deeper than the wire allows"));
    }

    #[test]
    fn non_finite_numbers_are_unsupported() {
        let mut bytes = vec![NUMBER];
        bytes.extend_from_slice(&f64::NAN.to_le_bytes());
        assert_eq!(decode(&bytes), Ok(Value::Unsupported("NaN".into())));
        // Found by the wire_decode fuzz target: a non-finite number re-encodes as the unsupported
        // value it names, which is longer than its 9 bytes, and decodes to that same value.
        let mut bytes = vec![ARRAY, 2, NUMBER];
        bytes.extend_from_slice(&f64::NEG_INFINITY.to_le_bytes());
        bytes.extend_from_slice(&[ARRAY, 0]);
        let value = Value::Array(vec![Value::Unsupported("-Infinity".into()), Value::Array(vec![])]);
        assert_eq!(decode(&bytes), Ok(value.clone()));
        let again = encode(&value);
        assert!(again.len() > bytes.len() && again.len() <= bytes.len() + bytes.len() / 4);
        assert_eq!(decode(&again), Ok(value));
    }
}
