//! What every wasm module of the package links but the validator: its allocator, and the borrow
//! of the tables an instance keeps (engines, compiled patterns, limits). The validator keeps
//! std's allocator (`ARCHITECTURE.md`, "Crates" says why each module links what).
//!
//! A module links this crate by naming it (`use warden_wasm as _;` where nothing else of it is
//! used): the allocator is a `#[global_allocator]`, which applies to the whole module.

#![cfg(target_arch = "wasm32")]
#![no_std]
#![forbid(unsafe_code)]

/// The allocator: talc, smaller than std's dlmalloc at the same speed (bench/RESULTS.md, "Build
/// choices, measured"). Its heap grows the module's memory as dlmalloc's did, and only this
/// module (one instance per page, single-threaded) allocates from it.
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// A table of this instance (engines, compiled patterns), borrowed for a moment. A failed
/// borrow would be a re-entrant call, which cannot happen (nothing here calls back into JS that
/// could call the module again); it traps, as `RefCell::borrow_mut`'s panic would, but without
/// linking that panic's message (`BorrowMutError`'s `Display`, and with it `core::fmt`'s padding).
pub fn borrow<T>(cell: &::core::cell::RefCell<T>) -> ::core::cell::RefMut<'_, T> {
    match cell.try_borrow_mut() {
        Ok(borrowed) => borrowed,
        Err(_) => ::core::arch::wasm32::unreachable(),
    }
}
