//! The pattern judgement's module: how a pattern may run on agent text
//! (`webmcp_warden::pattern`, `webmcp_warden::pattern::judge`). Stateless; a page loads it when it
//! first has a pattern, and the core and the validator ask it through `pkg-js/src/pattern-host.js`.
//! The validator module that judges its own patterns links this export too (its `judge` feature).

#![cfg(target_arch = "wasm32")]
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

// The module's own allocator; the validator module, which links this export, keeps std's.
#[cfg(feature = "allocator")]
use warden_wasm as _;

use alloc::vec::Vec;

use wasm_bindgen::prelude::*;

use webmcp_warden::pattern::judge;

/// The judgement of `source` with JS `flags` (`allowUnsafe`: the page's opt-in), as the four
/// words of `webmcp_warden::pattern::Judgement::to_words`.
#[wasm_bindgen]
pub fn judge(source: &str, flags: &str, allow_unsafe: bool) -> Vec<u32> {
    judge::judge(source, flags, allow_unsafe).to_words().to_vec()
}
