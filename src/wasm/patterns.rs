//! The pattern judgement's module (`--features patterns-module`): how a pattern may run on agent
//! text (`crate::pattern`, `crate::pattern::judge`). Stateless; a page loads it when it first
//! has a pattern, and the core and the validator ask it through `pkg-js/src/pattern-host.js`.

use alloc::vec::Vec;

use wasm_bindgen::prelude::*;

use crate::pattern::judge;

/// The judgement of `source` with JS `flags` (`allowUnsafe`: the page's opt-in), as the four
/// words of `crate::pattern::Judgement::to_words`.
#[wasm_bindgen]
pub fn judge(source: &str, flags: &str, allow_unsafe: bool) -> Vec<u32> {
    judge::judge(source, flags, allow_unsafe).to_words().to_vec()
}
