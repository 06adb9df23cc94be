//! The boundary: converts between JS values and core types; the only module that uses
//! wasm-bindgen. Every export reads as "decode → ask the core → encode".
//!
//! Crossing strategy (measured; `ARCHITECTURE.md`, "Crossing the boundary"): the per-call hot path crosses with
//! scalars only (`begin`, `step`, `end` take and return integers); configuration, facts and
//! answers cross as one wire buffer ([`crate::wire`]). Problems come back as data
//! (`{ ok: false, error }`); nothing here throws for bad user input.
//!
//! There are no `#[wasm_bindgen]` classes: engines live in a table here and exports take an
//! engine id, so the TS layer can replace an instance that trapped without a finalizer of the
//! old instance freeing pointers in the new one.
//!
//! Six modules are built from this crate: the core (default, `--no-default-features`), which
//! a page compiles synchronously at its first `webmcp()`; shaping (`--features shape-module`),
//! stateless, which it loads before its first call; the JSON Schema validator (`--features
//! validator-module`, built with shaping in it, and once more with the pattern judgement too),
//! which it loads only when a tool with a schema is first registered or called; resource URIs
//! (`--features uri-module`), stateless, which only a page that makes or reads resources
//! compiles; the pattern judgement (`--features patterns-module`) and the linear-time pattern
//! engine (`--features linear-module`), which it loads only when it has patterns, and patterns
//! the linear engine must run (`crate::pattern`); policy lint (`--features lint-module`),
//! stateless, which only a page that calls `lintPolicy()` compiles; and limits (`--features
//! limits-module`), which only a page that imports `webmcp-warden/limits` compiles. Shaping is a module of its own because it needs no configuration: moving it out of
//! the core takes 8.2 KB (gzip) off the core as shipped, which a page downloads at import
//! (`ARCHITECTURE.md`).

/// The allocator of the core, shaping and URI modules: talc, smaller than std's dlmalloc at the
/// same speed (measured; Cargo.toml). Its heap grows the module's memory as dlmalloc's did, and
/// only this module (one instance per page, single-threaded) allocates from it.
#[cfg(not(feature = "validator-module"))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// A table of this instance (engines, compiled patterns), borrowed for a moment. A failed
/// borrow would be a re-entrant call, which cannot happen (nothing here calls back into JS that
/// could call the module again); it traps, as `RefCell::borrow_mut`'s panic would, but without
/// linking that panic's message (`BorrowMutError`'s `Display`, and with it `core::fmt`'s padding:
/// ~0.8 KB of wasm).
#[cfg(not(any(feature = "validator-module", feature = "shape-module", feature = "uri-module", feature = "patterns-module")))]
fn borrow<T>(cell: &::core::cell::RefCell<T>) -> ::core::cell::RefMut<'_, T> {
    match cell.try_borrow_mut() {
        Ok(borrowed) => borrowed,
        Err(_) => ::core::arch::wasm32::unreachable(),
    }
}

#[cfg(not(any(feature = "validator-module", feature = "shape-module", feature = "uri-module", feature = "patterns-module", feature = "linear-module", feature = "lint-module", feature = "limits-module")))]
mod configure;
#[cfg(not(any(feature = "validator-module", feature = "shape-module", feature = "uri-module", feature = "patterns-module", feature = "linear-module", feature = "lint-module", feature = "limits-module")))]
mod core;
#[cfg(not(any(feature = "validator-module", feature = "shape-module", feature = "uri-module", feature = "patterns-module", feature = "linear-module", feature = "lint-module", feature = "limits-module")))]
mod engines;
#[cfg(not(any(feature = "validator-module", feature = "shape-module", feature = "uri-module", feature = "patterns-module", feature = "linear-module", feature = "lint-module", feature = "limits-module")))]
mod governance;
#[cfg(not(any(feature = "validator-module", feature = "shape-module", feature = "uri-module", feature = "patterns-module", feature = "linear-module")))]
mod host;
#[cfg(feature = "linear-module")]
mod linear;
#[cfg(feature = "patterns-module")]
mod patterns;
#[cfg(feature = "shape-module")]
mod shape;
#[cfg(feature = "uri-module")]
mod uri;
#[cfg(feature = "lint-module")]
mod lint;
#[cfg(feature = "limits-module")]
mod limits;
#[cfg(feature = "validator-module")]
mod validator;
