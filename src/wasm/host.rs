//! The page's pattern engine for [`crate::pattern`]: JS's own `RegExp`, imported as a global
//! (no JS file of ours: a snippet would have to ship beside the glue), and installed when the
//! module starts.
//!
//! Compiled patterns are kept here as JS objects in a slot table; the core refers to them by
//! slot. Only `new RegExp(source, flags)` and `RegExp.prototype.test` are called: never a
//! user's function, and nothing here calls back into the core.

use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::RefCell;

use wasm_bindgen::__rt::LazyCell;
use wasm_bindgen::prelude::*;

use crate::pattern::{self, Host};

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

/// The compiled patterns, by slot (a `LazyCell`: `crate::pattern` says why).
static TABLE: LazyCell<RefCell<Vec<Option<RegExp>>>> = LazyCell::new(|| RefCell::new(Vec::new()));

fn compile(source: &str, flags: &str) -> Result<u32, String> {
    let regex = RegExp::new(source, flags).map_err(|thrown| {
        let text = js_string(&thrown);
        text.strip_prefix("SyntaxError: ").map(str::to_owned).unwrap_or(text)
    })?;
    let mut table = super::borrow(&TABLE);
    let slot = table.iter().position(Option::is_none).unwrap_or(table.len());
    match table.get_mut(slot) {
        Some(entry) => *entry = Some(regex),
        None => table.push(Some(regex)),
    }
    u32::try_from(slot).map_err(|_| "too many patterns".to_owned())
}

fn test(handle: u32, text: &str) -> Option<bool> {
    // A throw (a stack overflow deep in the engine) is "could not test": callers fail closed.
    super::borrow(&TABLE).get(usize::try_from(handle).ok()?)?.as_ref()?.test(text).ok()
}

fn release(handle: u32) {
    let taken = usize::try_from(handle).ok().and_then(|slot| super::borrow(&TABLE).get_mut(slot).and_then(Option::take));
    // Dropped outside the borrow: dropping a JS object crosses the boundary.
    drop(taken);
}

static HOST: Host = Host { compile, test, release };

/// Runs when the module is instantiated: patterns from now on use the page's engine.
#[wasm_bindgen(start)]
pub fn install_patterns() {
    pattern::install(&HOST);
}
