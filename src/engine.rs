//! The engine: one page's (one client's) hook sets, tools and provider scopes, the plans cached
//! from them, its governance, and the calls and listings in progress.
//!
//! Handles of hook sets, hooks, tools and scopes are chosen by the TS layer (from its free
//! lists) and given to the engine, which refuses one already in use or above
//! [`crate::call::MAX_HANDLE`]. That keeps an action packable into one `u32` by construction,
//! and lets the TS layer rebuild an engine after a wasm trap by replaying its live
//! configuration with the same handles. Calls and listings are transient and numbered here.
//! Plans are cached per (tool, scope) and dropped whenever the configuration changes; calls in
//! flight keep the plan they started with.
//!
//! Resources and prompts are kept beside the tools, each with its [`Subject`]: one table, one
//! call machine. A resource read is planned for the URI it reads (a template's instances match
//! different hooks), so its plan is built per read and not cached.

use alloc::borrow::ToOwned;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use crate::call::{Action, AskFacts, Call, CallSpec, InputCheck, Mode, PolicyFacts, Signal, StepReport, MAX_HANDLE};
use crate::error::ConfigError;
use crate::governor::{Definition, Governor};
use crate::hooks::{Event, Hook, HookSet, Subject};
use crate::listing::Listing;
use crate::plan::{Plan, Scopes};
use crate::policy::{CallFacts, Evaluation, FingerprintState, Grant, MatchedRules};
use crate::returns::{Contract, ReturnFacts};
use crate::strs::{cat, decimal, decimal_usize};
use crate::vec_map::VecMap;
use crate::value::Value;

/// The default server id of tools that name none.
pub const DEFAULT_SERVER_ID: &str = "page";

/// A table of what the TS layer gave handles to, kept sorted by handle: it holds what is live and
/// nothing more, however far apart the handles are. A page that unregisters tools keeps their
/// handles taken while the tool objects live (the TS layer takes them out of the engine at once,
/// docs/behaviour.md, "Clients and lifecycle"), so handles can grow far past what the engine
/// holds; a table indexed by handle grew with them, and every walk of it with it.
#[derive(Debug)]
struct Table<T> {
    items: Vec<(u32, T)>,
}

impl<T> Default for Table<T> {
    fn default() -> Self {
        Table { items: Vec::new() }
    }
}

impl<T> Table<T> {
    /// Where `id` is, or where it would go.
    fn at(&self, id: u32) -> Result<usize, usize> {
        self.items.binary_search_by(|(key, _)| key.cmp(&id))
    }

    fn get(&self, id: u32) -> Option<&T> {
        self.at(id).ok().and_then(|at| self.items.get(at)).map(|(_, item)| item)
    }

    fn contains(&self, id: u32) -> bool {
        self.at(id).is_ok()
    }

    /// Stores `item` under `id`. Caller checks `id` is free and within bounds.
    fn put(&mut self, id: u32, item: T) {
        match self.at(id) {
            Ok(at) => {
                if let Some(slot) = self.items.get_mut(at) {
                    slot.1 = item;
                }
            }
            // INVARIANT: `at` is where the search says `id` goes, at most the length.
            Err(at) => self.items.insert(at, (id, item)),
        }
    }

    fn remove(&mut self, id: u32) -> Option<T> {
        // INVARIANT: `at` is where the search found `id`, below the length.
        self.at(id).ok().map(|at| self.items.remove(at).1)
    }

    fn len(&self) -> usize {
        self.items.len()
    }
}

/// How many slots hold something (one loop for every table, instead of a `flatten().count()`
/// per table type).
fn count_some<T>(items: &[Option<T>]) -> usize {
    let mut count = 0usize;
    for item in items {
        if item.is_some() {
            count = count.saturating_add(1);
        }
    }
    count
}

/// Slots numbered by the engine (calls and listings), reused when freed.
#[derive(Debug)]
struct Slots<T> {
    items: Vec<Option<T>>,
    free: Vec<u32>,
}

impl<T> Default for Slots<T> {
    fn default() -> Self {
        Slots { items: Vec::new(), free: Vec::new() }
    }
}

impl<T> Slots<T> {
    fn insert(&mut self, item: T) -> Option<u32> {
        if let Some(id) = self.free.pop() {
            if let Some(slot) = self.items.get_mut(id as usize) {
                *slot = Some(item);
                return Some(id);
            }
        }
        let id = u32::try_from(self.items.len()).ok().filter(|id| *id <= MAX_HANDLE)?;
        self.items.push(Some(item));
        Some(id)
    }

    fn get_mut(&mut self, id: u32) -> Option<&mut T> {
        self.items.get_mut(id as usize).and_then(Option::as_mut)
    }

    fn get(&self, id: u32) -> Option<&T> {
        self.items.get(id as usize).and_then(Option::as_ref)
    }

    fn remove(&mut self, id: u32) -> Option<T> {
        let item = self.items.get_mut(id as usize).and_then(Option::take);
        if item.is_some() {
            self.free.push(id);
        }
        item
    }

    fn len(&self) -> usize {
        count_some(&self.items)
    }
}

#[derive(Debug)]
struct Tool {
    name: String,
    server: Option<String>,
    sets: Vec<u32>,
    /// What the tool's fingerprint covers; `None` for standalone tools.
    definition: Option<Definition>,
    /// Runs its own sets only, with no global or scoped hooks (`createHookedExecute`, whose
    /// `getHooks` already returns the whole merged set).
    standalone: bool,
    /// A tool, a resource (`name` is its URI or URI template) or a prompt.
    subject: Subject,
}

#[derive(Debug, Clone, Copy)]
struct Scope {
    parent: u32,
    set: Option<u32>,
}

/// What the TS layer says about a call when it starts (the bits of `flags` on the wire).
#[derive(Debug, Clone, Copy, Default)]
pub struct CallFlags(pub u32);

impl CallFlags {
    /// The tool has a JSON Schema for its input.
    pub const JSON_INPUT: u32 = 1;
    /// The tool has a Standard Schema for its input.
    pub const STANDARD_INPUT: u32 = 1 << 1;
    /// The tool has an output schema.
    pub const OUTPUT_SCHEMA: u32 = 1 << 2;
    /// An approver settles this call's asks.
    pub const APPROVER: u32 = 1 << 3;
    /// Someone listens to telemetry: keep the decision record.
    pub const OBSERVED: u32 = 1 << 4;
    /// Payloads may appear in telemetry.
    pub const CAPTURE: u32 = 1 << 5;
    /// A dry run.
    pub const EXPLAIN: u32 = 1 << 6;
    /// The page's policy has limits: a call policy lets through waits for them
    /// (`docs/behaviour.md`, "Limits").
    pub const LIMITS: u32 = 1 << 7;

    fn has(self, bit: u32) -> bool {
        self.0 & bit != 0
    }
}

/// The name a grant records for a subject called `name`: a tool's name, the URI a resource read
/// read (a grant covers that URI, not every instance of a template), `prompt:<name>` for a
/// prompt. No tool name holds a `:`, so none of them can be mistaken for another's.
pub fn grant_name(subject: Subject, name: &str) -> String {
    match subject {
        Subject::Prompt => cat!["prompt:", name],
        Subject::Tool | Subject::Resource => name.to_owned(),
    }
}

/// The id a `toolsListed` hook is known by: its own, else `toolsListed:<step>`.
fn listed_hook_id(hook: &Hook, step: usize) -> String {
    hook.id.clone().unwrap_or_else(|| cat!["toolsListed:", decimal_usize(step)])
}

/// Appends the hooks of `set` to `out` (a loop, rather than an `extend` instance).
fn push_hooks<'a>(out: &mut Vec<&'a Hook>, set: &'a HookSet) {
    for hook in &set.hooks {
        out.push(hook);
    }
}

/// The core's state for one client.
#[derive(Debug, Default)]
pub struct Engine {
    sets: Table<HookSet>,
    /// Which set holds each live hook handle.
    hook_owner: Table<u32>,
    global: Vec<u32>,
    tools: Table<Tool>,
    scopes: Table<Scope>,
    server_id: Option<String>,
    plans: VecMap<(u32, u32), Rc<Plan>>,
    calls: Slots<Call>,
    listings: Slots<Listing>,
    governor: Governor,
    contract: Contract,
    /// Per (tool, policy): which rules' matchers select the tool. Cleared with the plans.
    matched_rules: VecMap<(u32, usize), Rc<MatchedRules>>,
    /// The page opted in to patterns neither engine can be trusted with (`unsafePatterns`):
    /// configuration steps compile their patterns under [`crate::pattern::with_unsafe_allowed`].
    unsafe_patterns: bool,
    /// Why the page suspended its agents (`suspendAgents(reason)`); `None` while they may act.
    suspended: Option<String>,
}

fn check_handle(id: u32, what: &str) -> Result<(), ConfigError> {
    if id == 0 || id > MAX_HANDLE {
        return Err(ConfigError::new("too_many_handles", cat![what, " handle ", decimal(id), " is out of range (1 to ", decimal(MAX_HANDLE), ")"]));
    }
    Ok(())
}

/// How many calls may be in progress at once (far beyond any page; the bound lets the boundary
/// pack a call's handle with its first action, see `begin` in `wasm/core/lib.rs`).
pub const MAX_CALLS: u32 = 1 << 20;

/// The handle of a `FinishOk` action whose call already ended: it succeeded with nothing to
/// record, so there is no answer to read (see [`Engine::step`]).
pub const ENDED_QUIETLY: u32 = 1;

impl Engine {
    /// An engine with no hooks, no tools and the default server id.
    pub fn new() -> Engine {
        Engine::default()
    }

    /// The server id of tools that name none.
    pub fn server_id(&self) -> &str {
        self.server_id.as_deref().unwrap_or(DEFAULT_SERVER_ID)
    }

    /// Checks and stores the hook set `id`: a hooks object whose functions are the hook
    /// handles the TS layer chose.
    ///
    /// # Errors
    /// The first invalid entry, with its path under `label`; `too_many_handles` or
    /// `handle_in_use` for a handle the engine cannot take (misuse by the TS layer).
    pub fn define_hook_set(&mut self, id: u32, spec: &Value, label: &str) -> Result<(), ConfigError> {
        check_handle(id, "hook set")?;
        if self.sets.contains(id) {
            return Err(ConfigError::new("handle_in_use", cat!["hook set handle ", decimal(id), " is in use"]));
        }
        let set = HookSet::compile(spec, label)?;
        for hook in &set.hooks {
            check_handle(hook.handle, "hook")?;
            if self.hook_owner.contains(hook.handle) {
                return Err(ConfigError::new("handle_in_use", cat!["hook handle ", decimal(hook.handle), " is in use"]));
            }
        }
        for hook in &set.hooks {
            self.hook_owner.put(hook.handle, id);
        }
        self.sets.put(id, set);
        Ok(())
    }

    /// The hooks of a set, for the TS layer to file its functions: `(handle, event, timeout)`.
    pub fn set_hooks(&self, id: u32) -> Vec<(u32, Event, Option<f64>)> {
        let mut hooks = Vec::new();
        if let Some(set) = self.sets.get(id) {
            for hook in &set.hooks {
                hooks.push((hook.handle, hook.event, hook.timeout_ms));
            }
        }
        hooks
    }

    /// Forgets a hook set, its hooks' handles and its place among the global hooks.
    ///
    /// Calls and listings in flight keep the plan they started with, but the TS layer frees the
    /// set's hook handles now and may give them to other hooks: they are told the hooks are
    /// gone, so no action ever names a handle the TS layer no longer holds for that hook.
    pub fn drop_hook_set(&mut self, id: u32) {
        if let Some(set) = self.sets.remove(id) {
            let mut handles: Vec<u32> = Vec::new();
            for hook in &set.hooks {
                self.hook_owner.remove(hook.handle);
                handles.push(hook.handle);
            }
            // The tables' slots are walked with `let … else` rather than `flatten()`: each
            // flatten is a generic instance of its own in the wasm module.
            for call in &mut self.calls.items {
                let Some(call) = call else { continue };
                call.forget_hooks(&handles);
            }
            for listing in &mut self.listings.items {
                let Some(listing) = listing else { continue };
                listing.forget_hooks(&handles);
            }
            // Tools and scopes that still name the set lose it, and no cached plan holds its
            // hooks: the TS layer may give the set's id and its hooks' handles to others.
            for (_, tool) in &mut self.tools.items {
                tool.sets.retain(|set| *set != id);
            }
            for (_, scope) in &mut self.scopes.items {
                if scope.set == Some(id) {
                    scope.set = None;
                }
            }
            self.plans.retain(|_, plan| !plan.holds_any(&handles));
        }
        if self.global.contains(&id) {
            self.global.retain(|set| *set != id);
            self.changed();
        }
    }

    /// Adds a set to the global hooks (`configureWebMCP({ hooks })`), or makes it the only one
    /// (`replace: true`); answers the sets it replaced, for the TS layer to drop.
    ///
    /// # Errors
    /// `duplicate_hook_id` when one of its ids is already used by a global or a tool hook.
    pub fn add_global(&mut self, set: u32, replace: bool, label: &str) -> Result<Vec<u32>, ConfigError> {
        let mut others: Vec<&Hook> = Vec::new();
        if !replace {
            self.hooks_of(&self.global, &mut others);
        }
        for (_, tool) in &self.tools.items {
            if !tool.standalone {
                self.hooks_of(&tool.sets, &mut others);
            }
        }
        match self.sets.get(set) {
            Some(new) => new.check_unique_ids(&others, label)?,
            None => return Err(ConfigError::new("unknown_handle", cat!["no hook set with handle ", decimal(set)])),
        }
        let replaced = if replace { core::mem::take(&mut self.global) } else { Vec::new() };
        self.global.push(set);
        self.changed();
        Ok(replaced)
    }

    /// Removes every global hook; answers the sets it removed.
    pub fn clear_global(&mut self) -> Vec<u32> {
        self.changed();
        core::mem::take(&mut self.global)
    }

    /// Sets the server id of tools that name none.
    pub fn set_server_id(&mut self, server_id: &str) {
        self.server_id = (server_id != DEFAULT_SERVER_ID).then(|| server_id.to_owned());
        self.changed();
    }

    /// Suspends the page's agents (`Some(reason)`): every call, read and get that starts is
    /// denied with that reason, until `None` resumes them. Calls already running go on.
    pub fn suspend(&mut self, reason: Option<String>) {
        self.suspended = reason;
    }

    /// Sets which contract hook returns follow (`hookReturns`).
    pub fn set_contract(&mut self, contract: Contract) {
        self.contract = contract;
    }

    /// Whether patterns compiled from now on may run although neither engine can be trusted
    /// with them (`configureWebMCP({ unsafePatterns })`; `docs/behaviour.md`, "Patterns").
    /// Patterns compiled before keep the judgement they had.
    pub fn set_unsafe_patterns(&mut self, allowed: bool) {
        self.unsafe_patterns = allowed;
    }

    /// Whether the page opted in to unsafe patterns ([`Engine::set_unsafe_patterns`]).
    pub fn unsafe_patterns(&self) -> bool {
        self.unsafe_patterns
    }

    /// Defines tool `id` (`webmcp()`): its definition, its own server if it has one, and its
    /// hook sets (oldest first).
    ///
    /// # Errors
    /// `duplicate_hook_id` when a tool hook reuses a global hook's id; handle misuse.
    pub fn define_tool(&mut self, id: u32, definition: Definition, server: Option<String>, sets: Vec<u32>, label: &str) -> Result<(), ConfigError> {
        self.define_subject(id, Subject::Tool, definition, server, sets, label)
    }

    /// Defines tool, resource or prompt `id`, as [`Engine::define_tool`] does a tool. A
    /// resource's definition is named by its URI (or URI template), a prompt's by its name.
    ///
    /// # Errors
    /// `duplicate_hook_id` when one of its hooks reuses a global hook's id; handle misuse.
    pub fn define_subject(&mut self, id: u32, subject: Subject, definition: Definition, server: Option<String>, sets: Vec<u32>, label: &str) -> Result<(), ConfigError> {
        check_handle(id, "tool")?;
        if self.tools.contains(id) {
            return Err(ConfigError::new("handle_in_use", cat!["tool handle ", decimal(id), " is in use"]));
        }
        let mut seen: Vec<&Hook> = Vec::new();
        self.hooks_of(&self.global, &mut seen);
        for set in &sets {
            let set = self.sets.get(*set).ok_or_else(|| ConfigError::new("unknown_handle", cat!["no hook set with handle ", decimal(*set)]))?;
            set.check_unique_ids(&seen, label)?;
            push_hooks(&mut seen, set);
        }
        let name = definition.name.clone();
        self.tools.put(id, Tool { name, server, sets, definition: Some(definition), standalone: false, subject });
        Ok(())
    }

    /// Defines a tool whose plan holds its own sets only: no global and no scoped hooks
    /// (`createHookedExecute`, whose `getHooks` already merged the global ones in).
    ///
    /// # Errors
    /// `duplicate_hook_id` when two of its hooks share an id; handle misuse.
    pub fn define_standalone_tool(&mut self, id: u32, name: &str, sets: Vec<u32>, label: &str) -> Result<(), ConfigError> {
        check_handle(id, "tool")?;
        if self.tools.contains(id) {
            return Err(ConfigError::new("handle_in_use", cat!["tool handle ", decimal(id), " is in use"]));
        }
        let mut seen: Vec<&Hook> = Vec::new();
        for set in &sets {
            if let Some(set) = self.sets.get(*set) {
                set.check_unique_ids(&seen, label)?;
                push_hooks(&mut seen, set);
            }
        }
        self.tools.put(id, Tool { name: name.to_owned(), server: None, sets, definition: None, standalone: true, subject: Subject::Tool });
        Ok(())
    }

    /// Forgets a tool (its sets are the TS layer's to drop). Its calls in flight are told, so
    /// that another tool given the same handle later never decides them.
    pub fn drop_tool(&mut self, id: u32) {
        if self.tools.remove(id).is_some() {
            self.plans.retain(|(tool, _), _| *tool != id);
            self.matched_rules.retain(|(tool, _), _| *tool != id);
            for call in &mut self.calls.items {
                let Some(call) = call else { continue };
                if call.tool == id {
                    call.forget_tool();
                }
            }
        }
    }

    /// Adds provider scope `id` under `parent` (0 for none) holding `set`.
    ///
    /// # Errors
    /// `duplicate_hook_id` when the set reuses an id of the global hooks or of an outer
    /// provider; handle misuse.
    pub fn define_scope(&mut self, id: u32, parent: u32, set: Option<u32>, label: &str) -> Result<(), ConfigError> {
        check_handle(id, "scope")?;
        if self.scopes.contains(id) {
            return Err(ConfigError::new("handle_in_use", cat!["scope handle ", decimal(id), " is in use"]));
        }
        let mut others: Vec<&Hook> = Vec::new();
        self.hooks_of(&self.global, &mut others);
        let chain = self.scope_sets(parent);
        self.hooks_of(&chain, &mut others);
        if let Some(new) = set.and_then(|set| self.sets.get(set)) {
            new.check_unique_ids(&others, label)?;
        }
        self.scopes.put(id, Scope { parent, set });
        Ok(())
    }

    /// Forgets a provider scope.
    pub fn drop_scope(&mut self, id: u32) {
        if self.scopes.remove(id).is_some() {
            self.plans.retain(|(_, scope), _| *scope != id);
        }
    }

    /// The sets of a scope chain, outer to inner.
    fn scope_sets(&self, scope: u32) -> Vec<u32> {
        let mut inner_first = Vec::new();
        let mut current = scope;
        // A chain is at most as long as the number of scopes; the bound also guards a cycle.
        // (A half-open range, `push` and popping into a second vector rather than `0..=n`,
        // `extend` and `reverse`: each of those was a generic instance of its own.)
        for _ in 0..self.scopes.items.len().saturating_add(1) {
            let Some(entry) = self.scopes.get(current) else { break };
            if let Some(set) = entry.set {
                inner_first.push(set);
            }
            current = entry.parent;
        }
        let mut chain = Vec::with_capacity(inner_first.len());
        while let Some(set) = inner_first.pop() {
            chain.push(set);
        }
        chain
    }

    /// Appends the hooks of the sets `ids` (those still defined) to `out`.
    fn hooks_of<'a>(&'a self, ids: &[u32], out: &mut Vec<&'a Hook>) {
        for id in ids {
            if let Some(set) = self.sets.get(*id) {
                push_hooks(out, set);
            }
        }
    }

    /// The sets `ids` that are still defined.
    fn sets_of(&self, ids: &[u32]) -> Vec<&HookSet> {
        let mut sets = Vec::new();
        for id in ids {
            if let Some(set) = self.sets.get(*id) {
                sets.push(set);
            }
        }
        sets
    }

    /// The plan of `tool` under `scope`, built once per configuration.
    ///
    /// # Errors
    /// `unknown_tool` for a dropped tool; `duplicate_hook_id` when the merged hooks share an id.
    pub fn plan(&mut self, tool: u32, scope: u32) -> Result<Rc<Plan>, ConfigError> {
        if let Some(plan) = self.plans.get(&(tool, scope)) {
            return Ok(plan.clone());
        }
        let plan = Rc::new(self.build_plan(tool, scope, None)?);
        self.plans.insert((tool, scope), plan.clone());
        Ok(plan)
    }

    /// The plan of `tool` under `scope`, its hooks matched against `target` when given (the URI
    /// a resource read reads), else against the subject's own name.
    fn build_plan(&self, tool: u32, scope: u32, target: Option<&str>) -> Result<Plan, ConfigError> {
        let entry = self.tools.get(tool).ok_or_else(|| ConfigError::new("unknown_tool", cat!["no tool with handle ", decimal(tool)]))?;
        let global = if entry.standalone { Vec::new() } else { self.sets_of(&self.global) };
        let scoped_ids = if entry.standalone { Vec::new() } else { self.scope_sets(scope) };
        let scoped = self.sets_of(&scoped_ids);
        let own = self.sets_of(&entry.sets);
        let server = entry.server.as_deref().unwrap_or(self.server_id());
        Plan::build_for(entry.subject, Scopes { global: &global, scoped: &scoped, tool: &own }, server, target.unwrap_or(&entry.name))
    }

    /// Starts a call (or a dry run) of `tool` under `scope`.
    ///
    /// # Errors
    /// The plan's problem (`unknown_tool`, `duplicate_hook_id`); `too_many_calls`.
    pub fn begin(&mut self, tool: u32, scope: u32, flags: CallFlags) -> Result<u32, ConfigError> {
        self.begin_at(tool, scope, flags, None)
    }

    /// Starts a call of `tool` under `scope` about `target` (the URI a resource read reads; its
    /// hooks and its policy rules match that URI, its grant is for it). With no target, the
    /// same as [`Engine::begin`].
    ///
    /// # Errors
    /// The plan's problem (`unknown_tool`, `duplicate_hook_id`); `too_many_calls`.
    pub fn begin_at(&mut self, tool: u32, scope: u32, flags: CallFlags, target: Option<&str>) -> Result<u32, ConfigError> {
        let plan = match target {
            Some(target) => Rc::new(self.build_plan(tool, scope, Some(target))?),
            None => self.plan(tool, scope)?,
        };
        let (standalone, subject) = self.tools.get(tool).map_or((false, Subject::default()), |entry| (entry.standalone, entry.subject));
        let input = if flags.has(CallFlags::STANDARD_INPUT) {
            InputCheck::Standard
        } else if flags.has(CallFlags::JSON_INPUT) {
            InputCheck::Json
        } else {
            InputCheck::None
        };
        let spec = CallSpec {
            input,
            output_schema: flags.has(CallFlags::OUTPUT_SCHEMA),
            policy: if standalone { None } else { self.governor.policy() },
            has_approver: flags.has(CallFlags::APPROVER),
            contract: self.contract,
            observed: flags.has(CallFlags::OBSERVED),
            capture_payloads: flags.has(CallFlags::CAPTURE),
            mode: if flags.has(CallFlags::EXPLAIN) { Mode::Explain } else { Mode::Call },
            subject,
            suspended: self.suspended.clone(),
            limits: flags.has(CallFlags::LIMITS) && subject == Subject::Tool,
        };
        let mut call = Call::new(plan, spec);
        call.tool = tool;
        call.target = target.map(str::to_owned);
        let too_many = || ConfigError::new("too_many_calls", "too many calls in progress".into());
        let id = self.calls.insert(call).ok_or_else(too_many)?;
        // Call handles stay below 2^20 so the boundary can pack one with an action in a double.
        if id >= MAX_CALLS {
            self.calls.remove(id);
            return Err(too_many());
        }
        Ok(id)
    }

    /// Feeds a report to a call; answers the next action. `None` for an unknown call.
    pub fn step(&mut self, call: u32, report: StepReport, facts: ReturnFacts, payload: &Value, signal: Signal, duration_ms: f64) -> Option<Action> {
        let entry = self.calls.get_mut(call)?;
        let mut action = entry.step(report, facts, payload, signal, duration_ms);
        if action.op == crate::call::Op::EvaluatePolicy {
            // Bit 0: send the arguments (a dry run always shows them).
            action.handle = u32::from(entry.mode() == Mode::Explain || entry.policy().is_some_and(|policy| policy.reads_arguments()));
        }
        // A call that succeeded with nothing to record ends here: its outcome would only say
        // `ok`, so the TS layer is told so (handle 1) instead of asking with another crossing.
        // Not when the last step was a hook failure the call went past (`onError: 'ignore'`):
        // the TS layer still reads that hook's id for its console warning.
        if action.op == crate::call::Op::FinishOk && action.verdict != crate::call::Verdict::Failed && entry.succeeded_quietly() {
            self.calls.remove(call);
            action.handle = ENDED_QUIETLY;
        }
        Some(action)
    }

    /// Runs the policy step of `call` on its facts. `None` for an unknown call.
    pub fn policy_facts(&mut self, call: u32, facts: &PolicyFacts, signal: Signal) -> Option<Action> {
        let entry = self.calls.get_mut(call)?;
        let tool_id = entry.tool;
        let (Some(policy), Some(tool)) = (entry.policy().cloned(), self.tools.get(tool_id)) else {
            return Some(entry.step(StepReport::Raised, ReturnFacts::default(), &Value::Null, signal, 0.0));
        };
        if !entry.wants_policy_facts() {
            return Some(entry.step(StepReport::Raised, ReturnFacts::default(), &Value::Null, signal, 0.0));
        }
        let Some(definition) = tool.definition.as_ref() else {
            return Some(entry.step(StepReport::Raised, ReturnFacts::default(), &Value::Null, signal, 0.0));
        };
        let server = tool.server.as_deref().unwrap_or(self.server_id.as_deref().unwrap_or(DEFAULT_SERVER_ID));
        let explain = entry.mode() == Mode::Explain;
        let subject = tool.subject;
        let name = entry.target.as_deref().unwrap_or(&tool.name);
        // A dry run records no baseline; resources and prompts have none (no pins).
        let fingerprint = match (subject, explain) {
            (Subject::Tool, true) => self.governor.peek_fingerprint_state(definition),
            (Subject::Tool, false) => self.governor.fingerprint_state(definition),
            _ => FingerprintState::Unchanged,
        };
        let live = self.governor.grants().live(facts.principal.as_deref(), server, &grant_name(subject, name), &definition.fingerprint, facts.args_digest.as_deref(), facts.now_ms).map(crate::policy::Grant::scope);
        let section = policy.for_subject(subject);
        let matched = if subject == Subject::Tool {
            let key = (tool_id, Rc::as_ptr(&policy) as usize);
            let make = || Rc::new(MatchedRules::of(&policy, server, &tool.name));
            self.matched_rules.get_or_insert_with(key, make).map_or_else(make, |cached| cached.clone())
        } else {
            // A resource's rules match the URI read, which changes from read to read.
            Rc::new(MatchedRules::of(section, server, name))
        };
        let call_facts = CallFacts {
            server,
            name,
            annotations: definition.annotations(),
            principal: facts.principal.as_deref(),
            taint: &facts.taint,
            exposed_to: &facts.exposed_to,
            arguments: &facts.arguments,
            fingerprint,
            live_grant: live.is_some(),
            pattern_budget: crate::pattern::Budget::default(),
        };
        let evaluation = Evaluation::with_matched(section, call_facts, &matched);
        // What predicates and the approver are shown is fixed here: the tool may be dropped
        // (and its handle given to another tool) while they run.
        let asked = AskFacts { server_id: server.to_owned(), name: name.to_owned(), fingerprint: definition.fingerprint.clone() };
        let entry = self.calls.get_mut(call)?;
        entry.asked = Some(asked);
        Some(entry.start_policy(evaluation, live, signal))
    }

    /// Records the grant `{ allow: 'always' | 'session', scope? }` makes for `call` (the
    /// approver answered so: the step that reported it had `accepted` set) at `now_ms` for
    /// `ttl_ms` (a session grant too, and it is never stored); answers it, for the TS layer to
    /// save. `args_digest` is the digest of the arguments the approver was shown, which a grant
    /// of `scope: 'arguments'` is for. `None` for an unknown call, a tool without a definition,
    /// or an arguments grant without a digest.
    pub fn record_grant(&mut self, call: u32, principal: Option<&str>, now_ms: f64, ttl_ms: f64, args_digest: Option<&str>) -> Option<Grant> {
        let entry = self.calls.get_mut(call)?;
        let (arguments, session) = entry.take_grant_due()?;
        let tool = self.tools.get(entry.tool)?;
        let definition = tool.definition.as_ref()?;
        let server = tool.server.as_deref().unwrap_or(self.server_id.as_deref().unwrap_or(DEFAULT_SERVER_ID));
        let name = grant_name(tool.subject, entry.target.as_deref().unwrap_or(&tool.name));
        let mut grant = Grant::new(principal, server, &name, &definition.fingerprint, now_ms, ttl_ms);
        if arguments {
            grant.args_digest = Some(args_digest?.to_owned());
        }
        if session {
            grant = grant.for_session();
        }
        self.governor.grants_mut().record(grant.clone(), now_ms);
        Some(grant)
    }

    /// What the approver is shown of a call (its decision comes with [`Engine::outcome`]).
    pub fn ask_facts(&self, call: u32) -> Option<AskFacts> {
        let entry = self.calls.get(call)?;
        if let Some(asked) = &entry.asked {
            return Some(asked.clone());
        }
        let tool = self.tools.get(entry.tool)?;
        Some(AskFacts {
            server_id: tool.server.clone().unwrap_or_else(|| self.server_id().to_owned()),
            name: entry.target.clone().unwrap_or_else(|| tool.name.clone()),
            fingerprint: tool.definition.as_ref().map(|d| d.fingerprint.clone()).unwrap_or_default(),
        })
    }

    /// A call in progress.
    pub fn call(&self, call: u32) -> Option<&Call> {
        self.calls.get(call)
    }

    /// Ends a call: its outcome (`{ ok, error?, text?, decision?, record? }`), or for a dry run
    /// its explanation. `None` for an unknown call.
    pub fn end(&mut self, call: u32) -> Option<Value> {
        let call = self.calls.remove(call)?;
        Some(match call.mode() {
            Mode::Call => call.outcome(),
            Mode::Explain => {
                let mut explanation = call.explanation();
                if let (Value::Object(map), Some(tool)) = (&mut explanation, self.tools.get(call.tool)) {
                    map.insert_some("fingerprint", tool.definition.as_ref().map(|d| d.fingerprint.as_str()));
                }
                explanation
            }
        })
    }

    /// The fingerprint of a tool's definition.
    pub fn fingerprint(&self, tool: u32) -> Option<&str> {
        self.tools.get(tool)?.definition.as_ref().map(|d| d.fingerprint.as_str())
    }

    /// Records a tool's baseline definition (at registration or listing).
    pub fn record_baseline(&mut self, tool: u32) {
        if let Some(definition) = self.tools.get(tool).and_then(|t| t.definition.as_ref()) {
            self.governor.record_baseline(definition);
        }
    }

    /// Whether the static tool filter lets agents see the tool.
    pub fn is_visible(&self, tool: u32) -> bool {
        self.tools.get(tool).is_some_and(|t| self.governor.is_visible(t.server.as_deref().unwrap_or(self.server_id()), &t.name))
    }

    /// The page's governance settings. Taking them for a change forgets what was cached from
    /// the old ones.
    pub fn governor_mut(&mut self) -> &mut Governor {
        self.matched_rules.clear();
        &mut self.governor
    }

    /// The governance settings.
    pub fn governor(&self) -> &Governor {
        &self.governor
    }

    /// Seals the fingerprint baseline (`approvedFingerprints: 'first_listing'`): the first
    /// listing or agent call happened.
    pub fn seal_baseline(&mut self) {
        self.governor.seal_baseline();
    }

    // ---- listings ------------------------------------------------------------------------------

    /// Starts a listing of `tools` (each a tool and its scope): the `toolsListed` hooks run on it.
    ///
    /// # Errors
    /// `too_many_calls`.
    pub fn begin_listing(&mut self, tools: &[(u32, u32)]) -> Result<u32, ConfigError> {
        let listing = self.list_plan(tools);
        self.listings.insert(listing).ok_or_else(|| ConfigError::new("too_many_calls", "too many listings in progress".into()))
    }

    /// Feeds a listing hook's report; answers the next action. `None` for an unknown listing.
    pub fn listing_step(&mut self, listing: u32, report: StepReport, facts: ReturnFacts, payload: &Value, duration_ms: f64) -> Option<Action> {
        let contract = self.contract;
        Some(self.listings.get_mut(listing)?.step(report, facts, payload, contract, duration_ms))
    }

    /// A listing in progress.
    pub fn listing(&self, listing: u32) -> Option<&Listing> {
        self.listings.get(listing)
    }

    /// Ends a listing: `{ ok, visible: [indexes], error? }`.
    pub fn end_listing(&mut self, listing: u32) -> Option<Value> {
        Some(self.listings.remove(listing)?.outcome())
    }

    /// The `toolsListed` hooks of a listing, in run order, each with the tools it is given.
    ///
    /// Global hooks come first, in global onion order, each given every tool it matches; then
    /// each tool's scoped and own `toolsListed` hooks, given that tool only.
    fn list_plan(&self, tools: &[(u32, u32)]) -> Listing {
        let mut resolved: Vec<(&Tool, u32, &str)> = Vec::new();
        let mut names: Vec<String> = Vec::new();
        for (tool, scope) in tools {
            if let Some(entry) = self.tools.get(*tool) {
                resolved.push((entry, *scope, entry.server.as_deref().unwrap_or(self.server_id())));
                names.push(entry.name.clone());
            }
        }
        let global = self.sets_of(&self.global);
        let mut steps: Vec<(u32, String, Vec<u32>)> = Vec::new();
        let ordered_global = crate::plan::ordered_hooks(Scopes { global: &global, scoped: &[], tool: &[] }, Event::ToolsListed, None, "");
        for hook in ordered_global {
            let mut given: Vec<u32> = Vec::new();
            for (index, (tool, _, server)) in (0u32..).zip(&resolved) {
                if hook.matcher.matches(server, &tool.name) {
                    given.push(index);
                }
            }
            if !given.is_empty() {
                steps.push((hook.handle, listed_hook_id(hook, steps.len()), given));
            }
        }
        for (index, (tool, scope, server)) in (0u32..).zip(&resolved) {
            let scoped_ids = self.scope_sets(*scope);
            let scoped = self.sets_of(&scoped_ids);
            let own = if tool.standalone { Vec::new() } else { self.sets_of(&tool.sets) };
            let scopes = Scopes { global: &[], scoped: &scoped, tool: &own };
            for hook in crate::plan::ordered_hooks(scopes, Event::ToolsListed, Some(server), &tool.name) {
                steps.push((hook.handle, listed_hook_id(hook, steps.len()), vec![index]));
            }
        }
        Listing::new(names, steps)
    }

    // ---- housekeeping --------------------------------------------------------------------------

    /// How many of each thing the engine holds (for leak tests): hook sets, hooks, tools,
    /// scopes, cached plans, calls and listings in progress.
    pub fn counts(&self) -> [usize; 7] {
        [self.sets.len(), self.hook_owner.len(), self.tools.len(), self.scopes.len(), self.plans.len(), self.calls.len(), self.listings.len()]
    }

    /// Back to defaults (`resetWebMCP()`): no global hooks, scopes, policy, pins, baselines,
    /// grants, filter or server id. Tools stay defined with their own hook sets (a page's tool
    /// objects live on, and `tool.invoke()` needs no registration); the sets that only the global
    /// hooks used are answered for the TS layer to forget.
    pub fn reset(&mut self) -> Vec<u32> {
        let mut dropped = Vec::new();
        for id in core::mem::take(&mut self.global) {
            let mut kept = false;
            for (_, tool) in &self.tools.items {
                kept |= tool.sets.contains(&id);
            }
            if !kept {
                self.drop_hook_set(id);
                dropped.push(id);
            }
        }
        self.scopes = Table::default();
        self.server_id = None;
        self.contract = Contract::default();
        self.unsafe_patterns = false;
        self.governor = Governor::default();
        self.suspended = None;
        self.changed();
        dropped
    }

    /// Any configuration change invalidates every cached plan.
    fn changed(&mut self) {
        self.plans.clear();
        self.matched_rules.clear();
    }
}
