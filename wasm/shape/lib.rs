//! The shaping module's exports: results shaped for a model. Stateless; a page without a JSON
//! Schema loads it before its first call, and the validator module links these exports too (a
//! page with a schema loads that one instead, `ARCHITECTURE.md`, "Crates").
//! Boundary of shaping: text crosses only when it may change, edits come back as positions, and
//! a whole result crosses as one wire buffer each way (never JSON text).

#![cfg(target_arch = "wasm32")]
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

// The module's own allocator; the validator module, which links these exports, keeps std's.
#[cfg(feature = "allocator")]
use warden_wasm as _;

use alloc::string::String;
use alloc::vec::Vec;

use wasm_bindgen::prelude::*;

use webmcp_warden::shape::{self, Flags, Request};
use webmcp_warden::value::Value;
use webmcp_warden::wire;

/// The edits of one well-formed string: `[flagBits, start0, end0, class0, …]` in UTF-16 units,
/// a start with `shape::NEWLINE_MARK` set when its unit becomes LF, each edit with the flag bit of
/// its class (`shape::Scan`).
#[wasm_bindgen(js_name = scanText)]
pub fn scan_text(text: &str) -> Vec<u32> {
    shape::scan_str(text).flat
}

/// The names of the flag bits, in bit order, joined by commas (bit 7, `truncated`, is reported
/// apart). One string rather than an array: a `Vec<String>` return links wasm-bindgen's
/// string-array conversion for this one call; the names are identifiers.
#[wasm_bindgen(js_name = shapeFlagNames)]
pub fn shape_flag_names() -> String {
    webmcp_warden::strs::join(&Flags::NAMES, ",")
}

/// What the TS layer needs before it sends anything, in one crossing: the limits it applies
/// (`maxBlocks, structuredSlack, maxMimeBytes, maxDepth`), then the ranges of characters shaping
/// may remove or replace (`shape::candidate_ranges`), from which it writes its candidate regex.
/// One export rather than two: each costs argument glue on both sides of the boundary.
#[wasm_bindgen(js_name = shapeLimits)]
pub fn shape_limits() -> Vec<u32> {
    let mut limits = Vec::new();
    for &n in &[shape::MAX_BLOCKS, shape::STRUCTURED_SLACK, shape::MAX_MIME_BYTES, shape::MAX_DEPTH] {
        limits.push(u32::try_from(n).unwrap_or(u32::MAX));
    }
    limits.extend(shape::candidate_ranges());
    limits
}

/// Which kept lists a `mimeType` is in: bit 0 images, bit 1 audio.
#[wasm_bindgen(js_name = shapeMediaKinds)]
pub fn shape_media_kinds(mime: &str) -> u32 {
    shape::kept_media_kinds(mime)
}

/// Shapes a result: a wire-encoded request in (`shape::request` says what it holds), the
/// wire-encoded shaped result out. A buffer that does not decode is shaped as an invalid result.
#[wasm_bindgen(js_name = shapeResult)]
pub fn shape_result(request: &[u8]) -> Vec<u8> {
    let request = Request::from_value(wire::decode(request).unwrap_or(Value::Null));
    let shaped = shape::shape_with(&request.result, &request.options, &request.hints);
    wire::encode(&shaped.result)
}

/// Aborts the instance with a wasm trap, as an out-of-memory would: for the tests that prove a
/// trapped shaping instance is replaced. Never called by the package.
#[wasm_bindgen(js_name = __testTrap)]
pub fn test_trap() {
    core::arch::wasm32::unreachable();
}
