//! The core module's `Core` object: hooks, tools, plans and the call step machine.
//!
//! Crossing strategy (measured, see `reference/toolchain.md`): the per-call hot path crosses
//! with scalars only (`begin`, `step`, `end` take and return integers), because a serde object
//! walk costs ~2 µs against ~0.2 µs for a scalar call. Configuration, which happens rarely, and
//! plans, which the TS layer caches, cross as JSON strings. Problems come back as data
//! (`{ ok: false, error }`); nothing here throws for bad user input.

use serde::Serialize;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

use crate::call::Outcome;
use crate::engine::Engine;
use crate::error::ConfigError;
use crate::hooks::Event;

/// The page's core, owned by the TS layer (one per page).
#[wasm_bindgen]
pub struct Core {
    pub(super) engine: Engine,
}

/// `{"ok":true, ...fields}` or `{"ok":false,"error":{code,message,path}}` as a JSON string.
pub(super) fn answer(result: Result<Value, ConfigError>) -> String {
    let value = match result {
        Ok(Value::Object(mut fields)) => {
            fields.insert("ok".into(), Value::Bool(true));
            Value::Object(fields)
        }
        Ok(other) => json!({ "ok": true, "value": other }),
        Err(error) => json!({ "ok": false, "error": error }),
    };
    to_json(&value)
}

pub(super) fn to_json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value)
        .unwrap_or_else(|_| r#"{"ok":false,"error":{"code":"internal","message":"could not encode the answer"}}"#.to_owned())
}

pub(super) fn parse(spec: &str) -> Result<Value, ConfigError> {
    serde_json::from_str(spec).map_err(|err| ConfigError::new("invalid_json", format!("the core could not read its input: {err}")))
}

#[wasm_bindgen]
impl Core {
    /// A new core with no hooks and no tools.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Core {
        Core { engine: Engine::new() }
    }

    /// Checks and compiles a hook set description; answers `{ ok, set, handles }`.
    #[wasm_bindgen(js_name = compileHookSet)]
    pub fn compile_hook_set(&mut self, spec: &str, label: &str) -> String {
        answer(parse(spec).and_then(|spec| {
            let (set, handles) = self.engine.compile_hook_set(&spec, label)?;
            Ok(json!({ "set": set, "handles": handles }))
        }))
    }

    /// Forgets a hook set.
    #[wasm_bindgen(js_name = dropHookSet)]
    pub fn drop_hook_set(&mut self, set: u32) {
        self.engine.drop_hook_set(set);
    }

    /// Adds a set to the global hooks; answers `{ ok }`.
    #[wasm_bindgen(js_name = addGlobal)]
    pub fn add_global(&mut self, set: u32, replace: bool, label: &str) -> String {
        answer(self.engine.add_global(set, replace, label).map(|()| json!({})))
    }

    /// Removes every global hook.
    #[wasm_bindgen(js_name = clearGlobal)]
    pub fn clear_global(&mut self) {
        self.engine.clear_global();
    }

    /// Sets the default server id.
    #[wasm_bindgen(js_name = setServerId)]
    pub fn set_server_id(&mut self, server_id: &str) {
        self.engine.set_server_id(server_id);
    }

    /// Defines a tool from its definition (wire: `{ name, annotations?, canonical: { name,
    /// title?, description?, inputSchema?, outputSchema?, annotations? } }`, each member of
    /// `canonical` the RFC 8785 text of that field); answers `{ ok, tool, fingerprint }`.
    #[wasm_bindgen(js_name = defineTool)]
    pub fn define_tool(&mut self, definition: &[u8], server: Option<String>, sets: Vec<u32>, label: &str) -> String {
        let definition = crate::wire::decode(definition)
            .map_err(|_| ConfigError::new("invalid_definition", "the core could not read the tool definition".into()))
            .and_then(|definition| crate::governor::Definition::from_value(&definition));
        answer(definition.and_then(|definition| {
            let tool = self.engine.define_tool(definition, server, sets, label)?;
            Ok(json!({ "tool": tool, "fingerprint": self.engine.fingerprint(tool) }))
        }))
    }

    /// Defines a tool that runs its own hook sets only (no global or scoped hooks); answers
    /// `{ ok, tool }`.
    #[wasm_bindgen(js_name = defineStandaloneTool)]
    pub fn define_standalone_tool(&mut self, name: &str, sets: Vec<u32>, label: &str) -> String {
        answer(self.engine.define_standalone_tool(name, sets, label).map(|tool| json!({ "tool": tool })))
    }

    /// Forgets a tool.
    #[wasm_bindgen(js_name = dropTool)]
    pub fn drop_tool(&mut self, tool: u32) {
        self.engine.drop_tool(tool);
    }

    /// Adds a provider scope; answers `{ ok, scope }`.
    #[wasm_bindgen(js_name = addScope)]
    pub fn add_scope(&mut self, parent: u32, set: u32, label: &str) -> String {
        answer(self.engine.add_scope(parent, set, label).map(|scope| json!({ "scope": scope })))
    }

    /// Forgets a provider scope.
    #[wasm_bindgen(js_name = dropScope)]
    pub fn drop_scope(&mut self, scope: u32) {
        self.engine.drop_scope(scope);
    }

    /// The plan of a tool under a scope; answers `{ ok, plan, hooks: [{ handle, id, event }] }`
    /// for the TS layer to cache until it changes the configuration.
    pub fn plan(&mut self, tool: u32, scope: u32) -> String {
        answer(self.engine.plan(tool, scope).map(|plan_id| {
            let hooks: Vec<Value> = self
                .engine
                .plan_by_id(plan_id)
                .map(|plan| {
                    Event::ALL
                        .into_iter()
                        .flat_map(|event| {
                            plan.hooks(event)
                                .iter()
                                .map(move |hook| json!({ "handle": hook.handle, "id": hook.id, "event": event.name() }))
                        })
                        .collect()
                })
                .unwrap_or_default();
            json!({ "plan": plan_id, "hooks": hooks })
        }))
    }

    /// The `toolsListed` hooks of a listing of `tools` under `scopes` (same length); answers
    /// `[{ handle, id, tools }]` as JSON.
    #[wasm_bindgen(js_name = listPlan)]
    pub fn list_plan(&self, tools: Vec<u32>, scopes: Vec<u32>) -> String {
        let pairs: Vec<(u32, u32)> = tools.into_iter().zip(scopes).collect();
        to_json(&self.engine.list_plan(&pairs))
    }

    /// Whether a `toolsListed` hook's answer (JSON array of names) is a subset of the names it
    /// was given (JSON array).
    #[wasm_bindgen(js_name = isListedSubset)]
    pub fn is_listed_subset(given: &str, returned: &str) -> bool {
        let read = |text: &str| serde_json::from_str::<Vec<String>>(text).ok();
        match (read(given), read(returned)) {
            (Some(given), Some(returned)) => crate::engine::is_listed_subset(&given, &returned),
            _ => false,
        }
    }

    /// Starts a call of `tool` under `scope` (`flags`: bit 0 input schema, bit 1 output
    /// schema, bit 2 an approver); `-1` when the tool's hooks cannot be planned (read why with
    /// `plan`).
    pub fn begin(&mut self, tool: u32, scope: u32, flags: u32) -> i32 {
        self.engine.begin(tool, scope, flags).ok().and_then(|call| i32::try_from(call).ok()).unwrap_or(-1)
    }

    /// The id of the hook the call's last action named (for telemetry).
    #[wasm_bindgen(js_name = currentHookId)]
    pub fn current_hook_id(&self, call: u32) -> Option<String> {
        self.engine.call(call).and_then(|call| call.current_hook_id()).map(str::to_owned)
    }

    /// Feeds an outcome (see `Outcome`) and returns the next action packed as a number; `0`
    /// for an unknown call or outcome code, which the TS layer treats as misuse.
    pub fn step(&mut self, call: u32, outcome: u32) -> u32 {
        Outcome::from_code(outcome)
            .and_then(|outcome| self.engine.step(call, outcome))
            .map_or(0, |(action, accepted)| action.encode(accepted))
    }

    /// The error of a call that is failing or failed, as JSON, without ending it.
    #[wasm_bindgen(js_name = callError)]
    pub fn call_error(&self, call: u32) -> Option<String> {
        self.engine.call(call).and_then(|call| call.error()).map(to_json)
    }

    /// Ends a call; returns `{ error, decision }` as JSON when it failed.
    pub fn end(&mut self, call: u32) -> Option<String> {
        self.engine.end(call).map(|(error, decision)| {
            let decision = decision.map(|decision| crate::legacy_json::to_json(&decision.to_value()));
            to_json(&json!({ "error": error, "decision": decision }))
        })
    }

    /// How many calls are in progress.
    #[wasm_bindgen(js_name = callsInProgress)]
    pub fn calls_in_progress(&self) -> u32 {
        u32::try_from(self.engine.calls_in_progress()).unwrap_or(u32::MAX)
    }

    /// Back to defaults (global hooks, scopes, server id), keeping tool definitions.
    pub fn reset(&mut self) {
        self.engine.reset();
    }
}

impl Default for Core {
    fn default() -> Self {
        Core::new()
    }
}
