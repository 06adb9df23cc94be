//! What policy may look at for one call: the facts the engine gathers before a decision, read
//! by the evaluation and by the data predicates alike (so neither imports the other for them).

use alloc::string::String;
use alloc::vec::Vec;

use crate::pattern::Budget;
use crate::value::Value;

/// Whether the called tool's definition is the approved one (`docs/behaviour.md`, "Fingerprint baselines").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FingerprintState {
    /// The current fingerprint is the approved one (or no baseline applies).
    Unchanged,
    /// The definition changed since it was approved.
    Changed {
        /// The approved fingerprint.
        previous: String,
        /// The current fingerprint.
        current: String,
        /// The fields that differ, such as `["description"]`.
        changed: Vec<String>,
    },
    /// The tool was first seen after the baseline was recorded.
    New,
}

/// What policy may look at for one call. Arguments are the final ones (after before-hooks and
/// validation).
#[derive(Debug, Clone)]
pub struct CallFacts<'a> {
    /// The server id the call goes to.
    pub server: &'a str,
    /// The tool's name.
    pub name: &'a str,
    /// The tool's annotations: an object, or `Null` when it has none.
    pub annotations: &'a Value,
    /// Who the call is for, when the host says.
    pub principal: Option<&'a str>,
    /// Server ids whose output entered the current turn.
    pub taint: &'a [String],
    /// The origins beyond its own the tool is exposed to (its `exposedTo` option; empty when
    /// none).
    pub exposed_to: &'a [String],
    /// The final arguments.
    pub arguments: &'a Value,
    /// The tool's fingerprint against its approved one.
    pub fingerprint: FingerprintState,
    /// A live grant exists for (principal, server/tool, current fingerprint): it counts as an
    /// approved fingerprint, so neither the pin nor the new-tool gate applies.
    pub live_grant: bool,
    /// What the `matches` predicates of this decision may still spend on pattern tests.
    pub pattern_budget: Budget,
}

