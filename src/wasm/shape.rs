//! Boundary of shaping: text crosses only when it may change, and edits come back as positions.

use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

use crate::shape::{self, Flags, Scan, ShapeOptions};

fn flat(scan: &Scan) -> Vec<u32> {
    std::iter::once(scan.flags.bits()).chain(scan.removals_flat()).collect()
}

/// Removal ranges of one well-formed string: `[flagBits, start0, end0, …]` in UTF-16 units.
#[wasm_bindgen(js_name = scanText)]
pub fn scan_text(text: &str) -> Vec<u32> {
    flat(&shape::scan_str(text))
}

/// The same for a string's UTF-16 code units (for strings holding lone surrogates).
#[wasm_bindgen(js_name = scanUnits)]
pub fn scan_units(units: &[u16]) -> Vec<u32> {
    flat(&shape::scan_utf16(units))
}

/// A JS regex source matching every code unit that may start a removable character.
#[wasm_bindgen(js_name = shapeCandidatePattern)]
pub fn shape_candidate_pattern() -> String {
    shape::CANDIDATE_PATTERN_JS.to_owned()
}

/// The names of the flag bits, in bit order (bit 6, `truncated`, is reported apart).
#[wasm_bindgen(js_name = shapeFlagNames)]
pub fn shape_flag_names() -> Vec<String> {
    Flags::NAMES.iter().map(|name| (*name).to_owned()).collect()
}

/// Shapes a whole result given as JSON (SPEC §7); answers `{ result, flags, truncated }` as
/// JSON. Text that does not parse as JSON is shaped as an invalid result.
#[wasm_bindgen(js_name = shapeResult)]
pub fn shape_result(result: &str, server_id: &str, max_bytes: u32) -> String {
    let value: Value = serde_json::from_str(result).unwrap_or(Value::Null);
    let max_bytes = usize::try_from(max_bytes).unwrap_or(shape::DEFAULT_MAX_BYTES);
    let shaped = shape::shape_result(&value, &ShapeOptions { server_id: server_id.to_owned(), max_bytes });
    let answer = json!({ "result": shaped.result, "flags": shaped.flags.names(), "truncated": shaped.truncated });
    serde_json::to_string(&answer).unwrap_or_else(|_| "null".to_owned())
}
