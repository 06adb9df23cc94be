//! Patterns: the page's regular expressions, compiled and run by the host's own engine.
//!
//! Matchers take a JS `RegExp` (`/^get_/i`) and policy predicates a pattern source
//! (`matches: '^[a-z]+$'`). Both mean ECMAScript regular expressions, and the page already has
//! that engine; a second one in the core would cost more bytes than the rest of it and would
//! still differ from the page in corner cases. So the core keeps patterns as handles: in the
//! browser and Node the boundary installs a [`Host`] that compiles each pattern once with
//! `new RegExp(source, flags)` and tests strings against it (`src/wasm/host.rs`, which imports
//! the global `RegExp`, so no JS file ships for it); natively (`cargo test`, fuzzing) a small
//! linear-time engine stands in.
//!
//! This is the one place where the core calls into JavaScript during a decision. It calls only
//! a `RegExp` the package built itself from a source string: never a user's function, and the
//! host never calls back into the core.
//!
//! The page's engine backtracks: a pathological pattern can take exponential time on a crafted
//! string. Strings longer than [`INPUT_LIMIT`] UTF-16 units are not tested at all; the result
//! is "could not test", which every caller treats as failing closed (a deny rule applies, an
//! allow rule does not).

use alloc::borrow::ToOwned;
use alloc::rc::Rc;
use alloc::string::String;

/// The longest string, in UTF-16 code units, a pattern is tested against.
pub const INPUT_LIMIT: usize = 65_536;

/// The functions the host offers for patterns. The boundary installs one at start-up.
#[derive(Debug)]
pub struct Host {
    /// Compiles `source` with `flags` (JS flag letters); answers a handle, or why the engine
    /// refused the pattern.
    pub compile: fn(&str, &str) -> Result<u32, String>,
    /// Tests `text` against the pattern; `None` when it could not be tested.
    pub test: fn(u32, &str) -> Option<bool>,
    /// Forgets a compiled pattern.
    pub release: fn(u32),
}

/// The engine the boundary installed in a wasm module (the core module's, at start-up; the
/// validator module installs none). A `static` must be `Sync`, and std's `thread_local!` is not
/// there in the `no_std` core module: once_cell's `OnceRef` is a set-once reference on an atomic
/// pointer, safe and `Sync` (and outside the boundary module, which alone imports wasm-bindgen).
#[cfg(target_arch = "wasm32")]
static INSTALLED: once_cell::race::OnceRef<'static, Host> = once_cell::race::OnceRef::new();

/// Installs the host's pattern engine (the boundary does this once, at start-up; a second
/// install keeps the first engine).
#[cfg(target_arch = "wasm32")]
pub fn install(host: &'static Host) {
    let _ = INSTALLED.set(host);
}

#[cfg(target_arch = "wasm32")]
fn host() -> Option<&'static Host> {
    INSTALLED.get()
}

#[cfg(not(target_arch = "wasm32"))]
fn host() -> Option<&'static Host> {
    Some(&native::NATIVE)
}

/// A compiled pattern. Clones share one compiled pattern; the last one dropped releases it.
#[derive(Debug, Clone)]
pub struct Pattern {
    inner: Rc<Compiled>,
}

#[derive(Debug)]
struct Compiled {
    handle: u32,
    source: String,
    flags: String,
}

impl Drop for Compiled {
    fn drop(&mut self) {
        if let Some(host) = host() {
            (host.release)(self.handle);
        }
    }
}

impl Pattern {
    /// Compiles a pattern with JS `flags` (`g` and `y` carry state between tests, so they are
    /// dropped: a pattern here answers the same for the same text every time).
    ///
    /// # Errors
    /// The engine's reason, such as `Invalid regular expression: /(/: Unterminated group`.
    pub fn compile(source: &str, flags: &str) -> Result<Pattern, String> {
        let flags = without_gy(flags);
        let host = host().ok_or_else(|| "no pattern engine is installed".to_owned())?;
        let handle = (host.compile)(source, &flags)?;
        Ok(Pattern { inner: Rc::new(Compiled { handle, source: source.to_owned(), flags }) })
    }

    /// Whether `text` matches; `None` when it could not be tested (longer than
    /// [`INPUT_LIMIT`], or the engine failed), which callers treat as failing closed.
    pub fn test(&self, text: &str) -> Option<bool> {
        // A UTF-16 unit is at least one byte of UTF-8, so a short UTF-8 text is short enough.
        if text.len() > INPUT_LIMIT && utf16_len(text) > INPUT_LIMIT {
            return None;
        }
        (host()?.test)(self.inner.handle, text)
    }

    /// The pattern's source, as given.
    pub fn source(&self) -> &str {
        &self.inner.source
    }

    /// Its flags, without `g` and `y`.
    pub fn flags(&self) -> &str {
        &self.inner.flags
    }
}

/// How many UTF-16 units `text` is, counted on its UTF-8 bytes: one per character (every byte
/// but a continuation byte starts one), two for a character past U+FFFF (a 4-byte sequence,
/// lead byte 0xF0 or above). What `encode_utf16().count()` answers, without linking the encoder.
fn utf16_len(text: &str) -> usize {
    let mut units = 0usize;
    for &byte in text.as_bytes() {
        units = units.saturating_add(usize::from(byte & 0xC0 != 0x80)).saturating_add(usize::from(byte >= 0xF0));
    }
    units
}

/// `flags` without `g` and `y`: the flags a pattern is compiled with. A loop, shared with
/// [`crate::matcher::pattern_error`], rather than a `filter(..).collect()` at each place (each a
/// generic instance of its own in the wasm module).
pub(crate) fn without_gy(flags: &str) -> String {
    let mut kept = String::new();
    for flag in flags.chars() {
        if flag != 'g' && flag != 'y' {
            kept.push(flag);
        }
    }
    kept
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Pattern) -> bool {
        self.inner.source == other.inner.source && self.inner.flags == other.inner.flags
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    //! The stand-in engine off wasm: `regex-lite`, with JS's `i`, `m` and `s` flags mapped to
    //! inline flags. Enough for the shared fixtures and fuzzing; the package's tests exercise
    //! the real engine.

    use alloc::borrow::ToOwned;
    use alloc::string::{String, ToString};
    use alloc::vec::Vec;
    use core::cell::RefCell;

    use super::Host;
    use crate::strs::cat;

    std::thread_local! {
        static TABLE: RefCell<Vec<Option<regex_lite::Regex>>> = const { RefCell::new(Vec::new()) };
    }

    fn compile(source: &str, flags: &str) -> Result<u32, String> {
        let inline: String = flags.chars().filter(|flag| matches!(flag, 'i' | 'm' | 's')).collect();
        let pattern = if inline.is_empty() { source.to_owned() } else { cat!["(?", inline, ")", source] };
        // `regex_lite::Error` says its reason only through `Display`; this engine is not in the
        // wasm module, so that `core::fmt` use costs the page nothing.
        let regex = regex_lite::Regex::new(&pattern).map_err(|err| cat!["Invalid regular expression: /", source, "/", flags, ": ", err.to_string()])?;
        TABLE.with(|table| {
            let mut table = table.borrow_mut();
            let slot = table.iter().position(Option::is_none).unwrap_or(table.len());
            if slot == table.len() {
                table.push(Some(regex));
            } else if let Some(entry) = table.get_mut(slot) {
                *entry = Some(regex);
            }
            u32::try_from(slot).map_err(|_| "too many patterns".to_owned())
        })
    }

    fn test(handle: u32, text: &str) -> Option<bool> {
        TABLE.with(|table| table.borrow().get(handle as usize)?.as_ref().map(|regex| regex.is_match(text)))
    }

    fn release(handle: u32) {
        TABLE.with(|table| {
            if let Some(entry) = table.borrow_mut().get_mut(handle as usize) {
                *entry = None;
            }
        });
    }

    pub(super) fn live() -> usize {
        TABLE.with(|table| table.borrow().iter().filter(|entry| entry.is_some()).count())
    }

    pub(super) static NATIVE: Host = Host { compile, test, release };
}

/// How many patterns are compiled right now by the native engine (for leak tests).
#[cfg(not(target_arch = "wasm32"))]
pub fn live_native_patterns() -> usize {
    native::live()
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_utf16_units_like_encode_utf16() {
        for text in ["", "a", "é", "€", "😀", "a😀é€\u{10FFFF}\u{FFFF}"] {
            assert_eq!(super::utf16_len(text), text.encode_utf16().count(), "{text:?}");
        }
    }
}
