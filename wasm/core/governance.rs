//! Exports of governance that take scalars: the baseline, the tool filter's verdict, grants
//! forgotten or cleared. Setting the policy, pins, the filter and grants, and lint, are steps
//! of `configure` (`configure.rs`).

use wasm_bindgen::prelude::*;

use super::engines;
use webmcp_warden::policy::Grant;

/// Removes a grant the store could not keep, if the book holds exactly it.
#[wasm_bindgen(js_name = forgetGrant)]
pub fn forget_grant(engine: u32, grant: &[u8]) -> bool {
    let grant = webmcp_warden::wire::decode(grant).ok().as_ref().and_then(Grant::from_value);
    engines::with(engine, |e| grant.is_some_and(|grant| e.governor_mut().grants_mut().forget(&grant))).unwrap_or(false)
}

