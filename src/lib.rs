//! # webmcp_warden
//!
//! The core of `webmcp-warden`: everything that decides how an AI agent's call to a page's
//! WebMCP tool is governed, as a pure Rust library.
//!
//! Rust decides, TypeScript performs. The core never calls user JavaScript and never awaits.
//! A call is a step machine ([`call::Call`]): the TS layer starts it, the core answers with the
//! next action (call hook N, validate, evaluate the policy, ask the approver, check the
//! arguments, run the tool, finish), the TS layer performs it with its timers and abort signals
//! and feeds back what happened.
//!
//! | module | decides |
//! |---|---|
//! | [`hooks`], [`matcher`], [`plan`], [`pattern`] | which hooks apply to a tool, in which order, with which contract |
//! | [`call`], [`engine`] | what each step report means and what comes next; the page's tools and cached plans |
//! | [`policy`], [`governor`] | deny > pin > ask > allow > default, grants, fingerprint pins, the tool filter |
//! | [`digest`] | SHA-256 fingerprints and argument digests over the canonical JSON the TS layer writes |
//! | `validate` | JSON Schema validation (the `validate` feature, which the validator module links) |
//! | [`shape`] | what a result looks like once shaped for a model |
//!
//! No module here knows about JavaScript: the wasm modules' bindings are crates of their own
//! (`wasm/`, `ARCHITECTURE.md`, "Crates"); everything here is plain Rust, tested with `cargo test`.
//!
//! The core must never panic: a panic kills the wasm instance for the whole page. Hence the
//! lints of the `[lints]` table in `Cargo.toml` (no unwrap, expect, panic, indexing or
//! unchecked arithmetic outside tests), and problems returned as data
//! ([`error::ConfigError`], [`call::CallError`]).

#![forbid(unsafe_code)]
// `no_std` always, with `std` linked back where it is wanted, rather than `no_std` only for the
// core module: every build then sees the same prelude (core's), so a `std::` path or a missing
// `alloc` import fails `cargo test` and native clippy too, not only the core module's build.
// The wasm modules built without `validate` and `linear` are the builds without std: their panics
// trap (the handler below) instead of linking std's panic machinery, thread-locals and most of
// `core::fmt` (bench/RESULTS.md, "Build choices, measured"). The validator and linear-engine
// modules (boon, serde_json and regex-lite need std), native builds and tests keep std.
#![no_std]

extern crate alloc;
#[cfg(any(feature = "validate", feature = "linear", test, not(target_arch = "wasm32")))]
extern crate std;

/// The panic handler of the wasm modules without std: a trap, with no message to format. The
/// core never panics by design (the lints in `Cargo.toml`); a panic that slips through (an
/// allocation failure, a bug) kills the instance either way, and the TS layer replaces it
/// (`pkg-js/src/boundary/core.ts`).
#[cfg(all(target_arch = "wasm32", not(feature = "validate"), not(feature = "linear"), not(test)))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    core::arch::wasm32::unreachable()
}

pub mod answers;
pub mod call;
pub mod digest;
pub mod engine;
pub mod error;
pub mod governor;
pub mod hooks;
pub mod listing;
pub mod matcher;
pub mod pattern;
pub mod plan;
pub mod shape;
pub mod policy;
pub mod returns;
pub mod strs;
pub mod uri;
pub mod value;
pub mod vec_map;
pub mod wire;
#[cfg(feature = "validate")]
pub mod validate;
