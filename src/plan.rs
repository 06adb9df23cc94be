//! Plans: the hooks that apply to one tool, merged in onion order, computed once per configuration.
//!
//! Order: scope first (global → scoped → tool), then matcher level (all → server →
//! tool), then declaration order. `after`, `error` and `denied` run the scopes and the levels in
//! reverse while keeping declaration order inside each level, as simple-webmcp's
//! `mergeHooksOrdered` does for `after: [a, b]`.

use alloc::string::String;
use alloc::vec::Vec;

use crate::error::ConfigError;
use crate::hooks::{Event, Hook, HookSet, OnError, Subject};
use crate::matcher::Level;
use crate::strs::{cat, decimal_usize};

/// One hook as it runs in a plan.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedHook {
    /// The handle of the hook's function in the TS layer.
    pub handle: u32,
    /// Its id: the one given, else `"<event>:<position in this plan's list>"`.
    pub id: String,
    /// What a failure does.
    pub on_error: OnError,
}

/// The merged hooks of one tool, per event, in run order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    lists: [Vec<PlannedHook>; 7],
}

/// The three scopes a plan merges, each a list of hook sets in declaration order.
#[derive(Debug, Clone, Copy)]
pub struct Scopes<'a> {
    /// Global hooks, in the order `configureWebMCP` added them.
    pub global: &'a [&'a HookSet],
    /// Scoped hooks (React providers), outer to inner.
    pub scoped: &'a [&'a HookSet],
    /// The tool's own hooks, in the order re-wrapping concatenated them.
    pub tool: &'a [&'a HookSet],
}

const LEVELS: [Level; 3] = [Level::All, Level::Server, Level::Tool];

impl Plan {
    /// Merges the hooks of `scopes` that match the tool `name` on `server`.
    ///
    /// # Errors
    /// `duplicate_hook_id` when two hooks of the merged set share an id.
    pub fn build(scopes: Scopes<'_>, server: &str, name: &str) -> Result<Plan, ConfigError> {
        Plan::build_for(Subject::Tool, scopes, server, name)
    }

    /// Merges the hooks of the events `subject`'s calls run that match `name` on `server`: a
    /// tool's name, a resource's URI (the one read), a prompt's name.
    ///
    /// # Errors
    /// `duplicate_hook_id` when two hooks of the merged set share an id.
    pub fn build_for(subject: Subject, scopes: Scopes<'_>, server: &str, name: &str) -> Result<Plan, ConfigError> {
        let mut plan = Plan::default();
        let mut ids: Vec<&str> = Vec::new();
        for (slot, &event) in plan.lists.iter_mut().zip(&Event::ALL) {
            if !subject.runs(event) {
                continue;
            }
            let ordered = ordered_hooks(scopes, event, Some(server), name);
            for (position, hook) in ordered.into_iter().enumerate() {
                let id = hook.id.clone().unwrap_or_else(|| cat![event.name(), ":", decimal_usize(position)]);
                slot.push(PlannedHook { handle: hook.handle, id, on_error: hook.on_error });
            }
        }
        for list in &plan.lists {
            for hook in list {
                if ids.contains(&hook.id.as_str()) {
                    return Err(ConfigError::new(
                        "duplicate_hook_id",
                        cat!["hook id \"", hook.id, "\" is used twice among the hooks of ", subject.noun(), " \"", name, "\""],
                    ));
                }
                ids.push(&hook.id);
            }
        }
        Ok(plan)
    }

    /// The hooks of `event`, in run order.
    pub fn hooks(&self, event: Event) -> &[PlannedHook] {
        self.lists.get(event as usize).map_or(&[], Vec::as_slice)
    }

    /// The hook at `position` in `event`'s list.
    pub fn hook(&self, event: Event, position: usize) -> Option<&PlannedHook> {
        self.hooks(event).get(position)
    }

    /// Whether any hook of the plan has one of `handles`.
    pub fn holds_any(&self, handles: &[u32]) -> bool {
        // Loops rather than `flatten().any(..)`: each adapter is a generic instance of its own
        // in the wasm module.
        for list in &self.lists {
            for hook in list {
                if handles.contains(&hook.handle) {
                    return true;
                }
            }
        }
        false
    }

    /// Whether the plan has no hook at all.
    pub fn is_empty(&self) -> bool {
        for list in &self.lists {
            if !list.is_empty() {
                return false;
            }
        }
        true
    }
}

/// The hooks of one event that match the tool `name` on `server`, in run order; with no server,
/// every hook of the event (a listing orders global hooks before knowing which tools they get).
pub(crate) fn ordered_hooks<'a>(scopes: Scopes<'a>, event: Event, server: Option<&str>, name: &str) -> Vec<&'a Hook> {
    let mut scope_order = [scopes.global, scopes.scoped, scopes.tool];
    let mut level_order = LEVELS;
    if event.runs_reversed() {
        scope_order.reverse();
        level_order.reverse();
    }
    let mut ordered = Vec::new();
    let mut matching: Vec<&Hook> = Vec::new();
    for &sets in &scope_order {
        matching.clear();
        for set in sets {
            for hook in &set.hooks {
                if hook.event == event && server.is_none_or(|server| hook.matcher.matches(server, name)) {
                    matching.push(hook);
                }
            }
        }
        for &level in &level_order {
            for hook in &matching {
                if hook.matcher.level() == level {
                    ordered.push(*hook);
                }
            }
        }
    }
    ordered
}
