//! The page's pattern engines for the core's patterns (`webmcp_warden::pattern`), installed when
//! a module that links this crate starts (the core, lint and limits modules): JS's
//! own `RegExp`, imported as a global, and, through `pkg-js/src/pattern-host.js`, the pattern
//! judgement and the linear-time engine, wasm modules of their own the page loads when it first
//! has a pattern (the judgement) and when a pattern first needs the linear engine.
//!
//! Compiled patterns are kept here as JS objects in a slot table; the core refers to them by
//! slot, and the linear engine knows a pattern by the same slot. Only `new RegExp(source,
//! flags)`, `RegExp.prototype.test` and the linear engine's functions are called: never a
//! user's function, and nothing here calls back into the core.
//!
//! `pattern-host.js` is imported as `./pattern-host.js` (`raw_module`): pkg-js/build.mjs puts it
//! beside the glue, where the package's own modules import the same instance.

#![cfg(target_arch = "wasm32")]
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::RefCell;

use wasm_bindgen::__rt::LazyCell;
use wasm_bindgen::prelude::*;

use warden_wasm::borrow;
use webmcp_warden::pattern::{self, Host};

#[wasm_bindgen]
extern "C" {
    /// The global `RegExp`.
    type RegExp;

    #[wasm_bindgen(constructor, catch)]
    fn new(source: &str, flags: &str) -> Result<RegExp, JsValue>;

    #[wasm_bindgen(method, catch)]
    fn test(this: &RegExp, text: &str) -> Result<bool, JsValue>;

    /// The global `String`, to read what `new RegExp` threw.
    #[wasm_bindgen(js_name = String)]
    fn js_string(value: &JsValue) -> String;
}

#[wasm_bindgen(raw_module = "./pattern-host.js")]
extern "C" {
    /// The judgement of pattern `slot` (its first word: `webmcp_warden::pattern::Judgement::to_words`),
    /// or `u32::MAX` while the judgement's module is not loaded (asking starts loading it). The
    /// host prepares the linear engine for the slot when its route needs it.
    #[wasm_bindgen(js_name = judgePattern)]
    fn judge_pattern(slot: u32, source: &str, flags: &str, allow_unsafe: bool) -> u32;

    /// The other words of the judgement `judgePattern` answered last.
    #[wasm_bindgen(js_name = judgementWord)]
    fn judgement_word(index: u32) -> u32;

    /// Tests `text` on the linear engine; throws when the engine is not loaded or failed.
    #[wasm_bindgen(catch, js_name = linearTest)]
    fn linear_test(slot: u32, text: &str) -> Result<bool, JsValue>;

    /// Forgets pattern `slot` in the linear engine.
    #[wasm_bindgen(js_name = linearRelease)]
    fn linear_release(slot: u32);
}

/// The compiled patterns, by slot (a `LazyCell`: `webmcp_warden::pattern` says why).
static TABLE: LazyCell<RefCell<Vec<Option<RegExp>>>> = LazyCell::new(|| RefCell::new(Vec::new()));

fn compile(source: &str, flags: &str) -> Result<u32, String> {
    let regex = RegExp::new(source, flags).map_err(|thrown| {
        let text = js_string(&thrown);
        text.strip_prefix("SyntaxError: ").map(str::to_owned).unwrap_or(text)
    })?;
    let mut table = borrow(&TABLE);
    let slot = table.iter().position(Option::is_none).unwrap_or(table.len());
    match table.get_mut(slot) {
        Some(entry) => *entry = Some(regex),
        None => table.push(Some(regex)),
    }
    u32::try_from(slot).map_err(|_| "too many patterns".to_owned())
}

fn judge(slot: u32, source: &str, flags: &str, allow_unsafe: bool) -> Option<[u32; 4]> {
    let first = judge_pattern(slot, source, flags, allow_unsafe);
    (first != u32::MAX).then(|| [first, judgement_word(1), judgement_word(2), judgement_word(3)])
}

fn test(handle: u32, text: &str, linear: bool) -> Option<bool> {
    // A throw (a stack overflow deep in the engine, the linear engine not loaded) is "could not
    // test": callers fail closed.
    if linear {
        return linear_test(handle, text).ok();
    }
    borrow(&TABLE).get(usize::try_from(handle).ok()?)?.as_ref()?.test(text).ok()
}

fn release(handle: u32) {
    let taken = usize::try_from(handle).ok().and_then(|slot| borrow(&TABLE).get_mut(slot).and_then(Option::take));
    // Dropped outside the borrow: dropping a JS object crosses the boundary.
    drop(taken);
    linear_release(handle);
}

static HOST: Host = Host { compile, judge, test, release };

/// Runs when the module is instantiated: patterns from now on use the page's engine.
#[wasm_bindgen(start)]
pub fn install_patterns() {
    pattern::install(&HOST);
}
