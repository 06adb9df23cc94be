//! The boundary: converts between JS values and core types; the only module that uses wasm-bindgen.
//!
//! Crossing strategy (measured, see `reference/toolchain.md`): the per-call hot path crosses
//! with scalars only (`begin`, `step`, `end` take and return integers), because a serde object
//! walk costs ~2 µs against ~0.2 µs for a scalar call. Configuration, which happens rarely, and
//! plans, which the TS layer caches, cross as JSON strings; so do arguments, only when a policy
//! or a schema needs them. Problems come back as data (`{ ok: false, error }`); nothing here
//! throws for bad user input.
//!
//! Two modules are built from this crate: the core (default, `--no-default-features`) and
//! the JSON Schema validator (`--features validator-module`), which pages load only when a
//! tool with a schema is first called.

#[cfg(not(feature = "validator-module"))]
mod core;
#[cfg(not(feature = "validator-module"))]
mod governance;
#[cfg(not(feature = "validator-module"))]
mod host;
#[cfg(not(feature = "validator-module"))]
mod shape;
#[cfg(feature = "validator-module")]
mod validator;
