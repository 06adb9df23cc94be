//! The linear-time pattern engine's module: patterns the page's backtracking `RegExp` cannot be
//! trusted with, translated to `regex-lite` (`webmcp_warden::pattern::linear`). A page loads it
//! only when a pattern's judgement routes long strings to it; `pkg-js/src/pattern-host.js` drives
//! it, by slots it chooses.

#![cfg(target_arch = "wasm32")]
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

use warden_wasm::borrow;

use alloc::vec::Vec;
use core::cell::RefCell;

use wasm_bindgen::__rt::LazyCell;
use wasm_bindgen::prelude::*;

use webmcp_warden::pattern::linear::Linear;

/// The compiled patterns, by slot (a `LazyCell`: `webmcp_warden::pattern` says why).
static TABLE: LazyCell<RefCell<Vec<Option<Linear>>>> = LazyCell::new(|| RefCell::new(Vec::new()));

/// Compiles `source` with JS `flags` into `slot`; `false` when the engine cannot run it (the
/// judgement refuses such patterns first, so this is a bug the host reports as "could not test").
#[wasm_bindgen]
pub fn compile(slot: u32, source: &str, flags: &str) -> bool {
    let Ok(linear) = Linear::new(source, flags) else { return false };
    let mut table = borrow(&TABLE);
    let index = slot as usize;
    if table.len() <= index {
        table.resize_with(index.saturating_add(1), || None);
    }
    match table.get_mut(index) {
        Some(place) => {
            *place = Some(linear);
            true
        }
        None => false,
    }
}

/// Whether pattern `slot` matches somewhere in `text`: 1 or 0, or -1 when no pattern is in the
/// slot.
#[wasm_bindgen]
pub fn test(slot: u32, text: &str) -> i32 {
    match borrow(&TABLE).get(slot as usize) {
        Some(Some(linear)) => i32::from(linear.is_match(text)),
        _ => -1,
    }
}

/// Empties `slot`.
#[wasm_bindgen]
pub fn release(slot: u32) {
    let taken = borrow(&TABLE).get_mut(slot as usize).and_then(Option::take);
    drop(taken);
}
