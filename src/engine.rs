//! The engine: the page's hook sets, tools and provider scopes, the plans cached from them, and
//! the calls in progress.
//!
//! Everything the TS layer refers to crosses the boundary as a small integer handle, so a call
//! step costs a scalar crossing. Plans are cached per (tool, scope) and dropped whenever the
//! configuration changes; calls in flight keep the plan they started with.

use std::collections::HashMap;
use std::rc::Rc;

use serde_json::Value as Json;

use crate::call::{Action, Call, CallError, Governance, Outcome};
use crate::governor::{Definition, Governor};
use crate::policy::{
    settle_with_grant, settle_without_approver, CallFacts, Decision, Effect, Evaluation, FingerprintState, Grant, MatchedRules,
    PredicateResult,
};
use crate::value::Value;
use crate::error::ConfigError;
use crate::hooks::{Event, Hook, HookSet};
use crate::matcher::Level;
use crate::plan::{ordered_hooks, Plan, Scopes};

/// One `toolsListed` hook of a listing and the tools it is given.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ListedHook {
    /// The hook's function handle.
    pub handle: u32,
    /// The hook's id.
    pub id: String,
    /// Indexes of the tools it is given.
    pub tools: Vec<u32>,
}

/// Whether a `toolsListed` hook's answer is a subset of what it was given: the same names,
/// each at most once (SPEC §4). Anything else is a bad return.
pub fn is_listed_subset(given: &[String], returned: &[String]) -> bool {
    returned.iter().enumerate().all(|(index, name)| {
        given.contains(name) && !returned.iter().take(index).any(|earlier| earlier == name)
    })
}

/// The facts of one call that policy decides on, as the TS layer gives them.
#[derive(Debug, Clone, Copy)]
pub struct PolicyInput<'a> {
    /// The final arguments.
    pub arguments: &'a Value,
    /// Their RFC 8785 text, written by the TS layer. A call may leave it out and send it when
    /// the digest is needed ([`Engine::ask_facts`], [`Engine::check_args`]); a dry run without
    /// it reports no digest.
    pub canonical: Option<&'a str>,
    /// Who the call is for.
    pub principal: Option<&'a str>,
    /// Server ids whose output entered the current turn.
    pub taint: &'a [String],
    /// The time, from the TS layer's clock (grants are live until it reaches their expiry).
    pub now_ms: f64,
    /// Whether an approver would settle an ask (for dry runs).
    pub has_approver: bool,
}

impl<'a> PolicyInput<'a> {
    /// The facts policy decides on for a call of the tool `name` on `server`.
    fn call_facts(&self, server: &'a str, name: &'a str, definition: &'a Definition, fingerprint: FingerprintState, live_grant: bool) -> CallFacts<'a> {
        CallFacts {
            server,
            name,
            annotations: definition.annotations(),
            principal: self.principal,
            taint: self.taint,
            arguments: self.arguments,
            fingerprint,
            live_grant,
        }
    }
}

/// What the approver is shown of a call besides its arguments.
#[derive(Debug, Clone)]
pub struct AskFacts {
    /// The tool's server id.
    pub server_id: String,
    /// The tool's name.
    pub name: String,
    /// The fingerprint of the tool's definition.
    pub fingerprint: String,
    /// The digest of the final arguments.
    pub args_digest: String,
    /// The decision that asked.
    pub decision: Option<Decision>,
}

/// The result of a dry run of the policy.
#[derive(Debug, Clone)]
pub struct Explained {
    /// The tool's server id.
    pub server_id: String,
    /// The fingerprint of the tool's definition.
    pub fingerprint: String,
    /// The digest of the arguments, when JSON can carry them.
    pub args_digest: Option<String>,
    /// The decision, when the page has a policy.
    pub decision: Option<Decision>,
    /// Function predicates the real call would ask for (not called in a dry run).
    pub function_predicates: Vec<u32>,
}

/// The default server id of tools that name none (SPEC §3).
pub const DEFAULT_SERVER_ID: &str = "page";

#[derive(Debug, Clone)]
struct Tool {
    name: String,
    server: Option<String>,
    sets: Vec<u32>,
    /// What the tool's fingerprint covers; `None` for standalone tools.
    definition: Option<Definition>,
    /// Runs its own sets only, with no global or scoped hooks (`createHookedExecute`, whose
    /// `getHooks` already returns the whole merged set).
    standalone: bool,
    /// The reset generation the tool was defined in: `reset()` retires older tools from the id
    /// checks of new global hooks (test suites reset between tests and reuse ids).
    generation: u32,
}

#[derive(Debug, Clone, Copy)]
struct Scope {
    parent: u32,
    set: u32,
}

/// A handle table: ids are indexes, freed slots are reused.
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
    fn insert(&mut self, item: T) -> u32 {
        if let Some(id) = self.free.pop() {
            if let Some(slot) = self.items.get_mut(id as usize) {
                *slot = Some(item);
                return id;
            }
        }
        self.items.push(Some(item));
        u32::try_from(self.items.len().saturating_sub(1)).unwrap_or(u32::MAX)
    }

    fn get(&self, id: u32) -> Option<&T> {
        self.items.get(id as usize).and_then(Option::as_ref)
    }

    fn get_mut(&mut self, id: u32) -> Option<&mut T> {
        self.items.get_mut(id as usize).and_then(Option::as_mut)
    }

    fn remove(&mut self, id: u32) -> Option<T> {
        let item = self.items.get_mut(id as usize).and_then(Option::take);
        if item.is_some() {
            self.free.push(id);
        }
        item
    }

    fn values(&self) -> impl Iterator<Item = &T> {
        self.items.iter().flatten()
    }
}

/// The core's state for one page.
#[derive(Debug)]
pub struct Engine {
    sets: Slots<HookSet>,
    next_handle: u32,
    global: Vec<u32>,
    tools: Slots<Tool>,
    /// Scope 0 is "no provider"; real scopes start at 1.
    scopes: Slots<Scope>,
    server_id: String,
    /// Plan ids never repeat, so a stale id held by the TS layer finds nothing rather than
    /// another tool's plan.
    plans: HashMap<u32, Rc<Plan>>,
    next_plan: u32,
    plan_index: HashMap<(u32, u32), u32>,
    calls: Slots<Call>,
    governor: Governor,
    generation: u32,
    /// Per (tool, policy): which rules' matchers select the tool. Cleared with the plans.
    matched_rules: HashMap<(u32, usize), Rc<MatchedRules>>,
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new()
    }
}

impl Engine {
    /// An engine with no hooks, no tools and the default server id.
    pub fn new() -> Engine {
        let mut scopes = Slots::default();
        scopes.insert(Scope { parent: 0, set: u32::MAX });
        Engine {
            sets: Slots::default(),
            next_handle: 0,
            global: Vec::new(),
            tools: Slots::default(),
            scopes,
            server_id: DEFAULT_SERVER_ID.to_owned(),
            plans: HashMap::new(),
            next_plan: 0,
            plan_index: HashMap::new(),
            calls: Slots::default(),
            governor: Governor::default(),
            generation: 0,
            matched_rules: HashMap::new(),
        }
    }

    /// Checks and stores a hook set; returns its id and the handle of each hook, in event order
    /// then declaration order (the order the TS layer sent them).
    ///
    /// # Errors
    /// The first invalid entry, with its path under `label`.
    pub fn compile_hook_set(&mut self, spec: &Json, label: &str) -> Result<(u32, Vec<u32>), ConfigError> {
        let set = HookSet::compile(spec, self.next_handle, label)?;
        let handles: Vec<u32> = set.hooks.iter().map(|hook| hook.handle).collect();
        let count = u32::try_from(handles.len()).unwrap_or(u32::MAX);
        self.next_handle = self.next_handle.saturating_add(count);
        Ok((self.sets.insert(set), handles))
    }

    /// Forgets a hook set that nothing refers to any more.
    pub fn drop_hook_set(&mut self, set: u32) {
        self.sets.remove(set);
    }

    /// Adds a set to the global hooks (`configureWebMCP({ hooks })`), or makes it the only one
    /// (`replace: true`).
    ///
    /// # Errors
    /// `duplicate_hook_id` when one of its ids is already used by a global or a tool hook.
    pub fn add_global(&mut self, set: u32, replace: bool, label: &str) -> Result<(), ConfigError> {
        let kept: &[u32] = if replace { &[] } else { &self.global };
        let others: Vec<&Hook> = kept
            .iter()
            .chain(self.tools.values().filter(|tool| !tool.standalone && tool.generation == self.generation).flat_map(|tool| tool.sets.iter()))
            .filter_map(|id| self.sets.get(*id))
            .flat_map(|other| other.hooks.iter())
            .collect();
        if let Some(new) = self.sets.get(set) {
            new.check_unique_ids(others.into_iter(), label)?;
        }
        if replace {
            self.global.clear();
        }
        self.global.push(set);
        self.changed();
        Ok(())
    }

    /// Removes every global hook.
    pub fn clear_global(&mut self) {
        self.global.clear();
        self.changed();
    }

    /// Sets the server id of tools that name none.
    pub fn set_server_id(&mut self, server_id: &str) {
        self.server_id = server_id.to_owned();
        self.changed();
    }

    /// Defines a tool (`webmcp()`): its definition (see [`Definition::from_value`]), its own
    /// server if it has one, and its hook sets.
    ///
    /// # Errors
    /// `duplicate_hook_id` when a tool hook reuses a global hook's id.
    pub fn define_tool(&mut self, definition: Definition, server: Option<String>, sets: Vec<u32>, label: &str) -> Result<u32, ConfigError> {
        let name = definition.name.clone();
        let global: Vec<&Hook> = self.global.iter().filter_map(|id| self.sets.get(*id)).flat_map(|set| set.hooks.iter()).collect();
        let mut seen = global;
        for id in &sets {
            if let Some(set) = self.sets.get(*id) {
                set.check_unique_ids(seen.iter().copied(), label)?;
                seen.extend(set.hooks.iter());
            }
        }
        Ok(self.tools.insert(Tool { name, server, sets, definition: Some(definition), standalone: false, generation: self.generation }))
    }

    /// Defines a tool whose plan holds its own sets only: no global and no scoped hooks, and its
    /// ids are checked among themselves only (`createHookedExecute`: the caller's `getHooks`
    /// already merged the global ones in).
    ///
    /// # Errors
    /// `duplicate_hook_id` when two of its hooks share an id.
    pub fn define_standalone_tool(&mut self, name: &str, sets: Vec<u32>, label: &str) -> Result<u32, ConfigError> {
        let mut seen: Vec<&Hook> = Vec::new();
        for id in &sets {
            if let Some(set) = self.sets.get(*id) {
                set.check_unique_ids(seen.iter().copied(), label)?;
                seen.extend(set.hooks.iter());
            }
        }
        Ok(self.tools.insert(Tool { name: name.to_owned(), server: None, sets, definition: None, standalone: true, generation: self.generation }))
    }

    /// Forgets a tool.
    pub fn drop_tool(&mut self, tool: u32) {
        self.tools.remove(tool);
        self.changed();
    }

    /// Adds a provider scope under `parent` (0 for none) holding `set`.
    ///
    /// # Errors
    /// `duplicate_hook_id` when the set reuses an id of the global hooks or of an outer provider.
    pub fn add_scope(&mut self, parent: u32, set: u32, label: &str) -> Result<u32, ConfigError> {
        let outer: Vec<u32> = self.global.iter().copied().chain(self.scope_sets(parent)).collect();
        let others: Vec<&Hook> = outer.iter().filter_map(|id| self.sets.get(*id)).flat_map(|s| s.hooks.iter()).collect();
        if let Some(new) = self.sets.get(set) {
            new.check_unique_ids(others.into_iter(), label)?;
        }
        Ok(self.scopes.insert(Scope { parent, set }))
    }

    /// Forgets a provider scope.
    pub fn drop_scope(&mut self, scope: u32) {
        if scope != 0 {
            self.scopes.remove(scope);
            self.changed();
        }
    }

    /// The sets of a scope chain, outer to inner.
    fn scope_sets(&self, scope: u32) -> Vec<u32> {
        let mut chain = Vec::new();
        let mut current = scope;
        // A chain is at most as long as the number of scopes; the bound also guards a cycle.
        for _ in 0..self.scopes.items.len() {
            if current == 0 {
                break;
            }
            match self.scopes.get(current) {
                Some(entry) => {
                    chain.push(entry.set);
                    current = entry.parent;
                }
                None => break,
            }
        }
        chain.reverse();
        chain
    }

    /// The plan of `tool` under `scope`, built once per configuration.
    ///
    /// # Errors
    /// `unknown_tool` for a dropped tool; `duplicate_hook_id` when the merged hooks share an id.
    pub fn plan(&mut self, tool: u32, scope: u32) -> Result<u32, ConfigError> {
        if let Some(id) = self.plan_index.get(&(tool, scope)) {
            return Ok(*id);
        }
        let entry = self.tools.get(tool).ok_or_else(|| ConfigError::new("unknown_tool", format!("no tool with handle {tool}")))?;
        let sets_of = |ids: &[u32]| -> Vec<&HookSet> { ids.iter().filter_map(|id| self.sets.get(*id)).collect() };
        let global = if entry.standalone { Vec::new() } else { sets_of(&self.global) };
        let scoped_ids = if entry.standalone { Vec::new() } else { self.scope_sets(scope) };
        let scoped = sets_of(&scoped_ids);
        let own = sets_of(&entry.sets);
        let server = entry.server.as_deref().unwrap_or(&self.server_id);
        let plan = Plan::build(Scopes { global: &global, scoped: &scoped, tool: &own }, server, &entry.name)?;
        let id = self.next_plan;
        self.next_plan = self.next_plan.wrapping_add(1);
        self.plans.insert(id, Rc::new(plan));
        self.plan_index.insert((tool, scope), id);
        Ok(id)
    }

    /// The `toolsListed` hooks of one listing of `tools` (each a tool and its scope), in run
    /// order, each with the indexes (into `tools`) of the tools its matcher selects.
    ///
    /// Global hooks come first, in global onion order, each given every tool it matches; then
    /// each tool's scoped and own `toolsListed` hooks, given that tool only.
    pub fn list_plan(&self, tools: &[(u32, u32)]) -> Vec<ListedHook> {
        let resolved: Vec<(&Tool, u32)> = tools.iter().filter_map(|(tool, scope)| Some((self.tools.get(*tool)?, *scope))).collect();
        let server_of = |tool: &Tool| tool.server.clone().unwrap_or_else(|| self.server_id.clone());
        let global: Vec<&HookSet> = self.global.iter().filter_map(|id| self.sets.get(*id)).collect();
        let mut listed: Vec<ListedHook> = Vec::new();
        let mut global_hooks: Vec<&Hook> = Vec::new();
        for (tool, _) in &resolved {
            let scopes = Scopes { global: &global, scoped: &[], tool: &[] };
            for hook in ordered_hooks(scopes, Event::ToolsListed, &server_of(tool), &tool.name) {
                if !global_hooks.iter().any(|seen| seen.handle == hook.handle) {
                    global_hooks.push(hook);
                }
            }
        }
        // Every global hook appears in the same relative order in each tool's list, so sorting
        // by the global order of all of them keeps that order.
        let all = Scopes { global: &global, scoped: &[], tool: &[] };
        let mut order: Vec<&Hook> = Vec::new();
        for level in [Level::All, Level::Server, Level::Tool] {
            order.extend(all.global.iter().flat_map(|set| set.hooks.iter()).filter(|hook| hook.event == Event::ToolsListed && hook.matcher.level() == level));
        }
        for hook in order.into_iter().filter(|hook| global_hooks.iter().any(|seen| seen.handle == hook.handle)) {
            let tools = (0u32..)
                .zip(&resolved)
                .filter(|(_, (tool, _))| hook.matcher.matches(&server_of(tool), &tool.name))
                .map(|(index, _)| index)
                .collect();
            listed.push(ListedHook { handle: hook.handle, id: hook.id.clone().unwrap_or_else(|| format!("toolsListed:{}", listed.len())), tools });
        }
        for (index, (tool, scope)) in (0u32..).zip(&resolved) {
            let scoped_ids = self.scope_sets(*scope);
            let scoped: Vec<&HookSet> = scoped_ids.iter().filter_map(|id| self.sets.get(*id)).collect();
            let own: Vec<&HookSet> = tool.sets.iter().filter_map(|id| self.sets.get(*id)).collect();
            let scopes = Scopes { global: &[], scoped: &scoped, tool: &own };
            for hook in ordered_hooks(scopes, Event::ToolsListed, &server_of(tool), &tool.name) {
                let id = hook.id.clone().unwrap_or_else(|| format!("toolsListed:{}", listed.len()));
                listed.push(ListedHook { handle: hook.handle, id, tools: vec![index] });
            }
        }
        listed
    }

    /// A built plan.
    pub fn plan_by_id(&self, plan: u32) -> Option<&Plan> {
        self.plans.get(&plan).map(Rc::as_ref)
    }

    /// Starts a call of `tool` under `scope`; `flags` says what the TS layer can offer: bit 0,
    /// the tool has an input schema; bit 1, an output schema; bit 2, an approver.
    ///
    /// # Errors
    /// The plan's problem (`unknown_tool`, `duplicate_hook_id`).
    pub fn begin(&mut self, tool: u32, scope: u32, flags: u32) -> Result<u32, ConfigError> {
        let plan_id = self.plan(tool, scope)?;
        let plan = self.plans.get(&plan_id).cloned().ok_or_else(|| ConfigError::new("unknown_plan", "the plan is gone".into()))?;
        let governance = Governance {
            validate_input: flags & 1 != 0,
            validate_output: flags & 2 != 0,
            policy: self.tools.get(tool).filter(|entry| !entry.standalone).and_then(|_| self.governor.policy()),
            has_approver: flags & 4 != 0,
        };
        Ok(self.calls.insert(Call::new(plan, tool, governance)))
    }

    /// Runs the policy step of `call` on its facts: the final arguments (and, if the TS layer
    /// sends it already, their canonical text), the principal, the taint set and the time;
    /// grants come from the governor's book. Returns the next action; `None` for an unknown call.
    pub fn policy_start(&mut self, call: u32, facts: PolicyInput<'_>) -> Option<Action> {
        let entry = self.calls.get_mut(call)?;
        let (Some(policy), Some(tool)) = (entry.policy_due(), self.tools.get(entry.tool())) else {
            return Some(entry.step(Outcome::Invalid));
        };
        let Some(definition) = tool.definition.as_ref() else {
            return Some(entry.step(Outcome::Invalid));
        };
        // Disjoint fields: the tool is borrowed while the governor records a baseline.
        let server = tool.server.as_deref().unwrap_or(&self.server_id);
        let fingerprint = self.governor.fingerprint_state(definition);
        let live = self.governor.grants().live(facts.principal, server, &tool.name, &definition.fingerprint, facts.now_ms).is_some();
        let key = (entry.tool(), Rc::as_ptr(&policy) as usize);
        let matched = self.matched_rules.entry(key).or_insert_with(|| Rc::new(MatchedRules::of(&policy, server, &tool.name))).clone();
        let evaluation = Evaluation::with_matched(&policy, facts.call_facts(server, &tool.name, definition, fingerprint, live), &matched);
        Some(entry.start_policy(evaluation, facts.canonical.map(str::to_owned), live))
    }

    /// Compares the canonical text of the arguments about to reach the tool (`now`; `None`:
    /// JSON cannot carry them any more) with the one policy saw (`at_policy`, recorded if the
    /// call does not hold it yet); returns the next action.
    pub fn check_args(&mut self, call: u32, now: Option<&str>, at_policy: Option<&str>) -> Option<Action> {
        let entry = self.calls.get_mut(call)?;
        if let Some(text) = at_policy {
            entry.provide_canonical(text);
        }
        let same = now.is_some_and(|canonical| entry.same_arguments(canonical));
        Some(entry.step(if same { Outcome::ArgsSame } else { Outcome::ArgsChanged }))
    }

    /// Records the grant `{ allow: 'always' }` makes for `call`, at `now_ms`, for `ttl_ms`, in
    /// the governor's book (pruning expired ones), and returns it for the TS layer to persist.
    pub fn record_grant(&mut self, call: u32, principal: Option<&str>, now_ms: f64, ttl_ms: f64) -> Option<Grant> {
        let tool = self.tools.get(self.calls.get(call)?.tool())?;
        let server = tool.server.as_deref().unwrap_or(&self.server_id);
        let fingerprint = &tool.definition.as_ref()?.fingerprint;
        let grant = Grant::new(principal, server, &tool.name, fingerprint, now_ms, ttl_ms);
        self.governor.grants_mut().record(grant.clone(), now_ms);
        Some(grant)
    }

    /// Seals the baseline of `approvedFingerprints: 'first_listing'` (at the first listing or
    /// agent call; see [`Governor::seal_baseline`]).
    pub fn seal_baseline(&mut self) {
        self.governor.seal_baseline();
    }

    /// The page's governance settings, to read.
    pub fn governor(&self) -> &Governor {
        &self.governor
    }

    /// The page's grants, to change (unlike [`Engine::governor_mut`], this keeps the cached
    /// rule matches: grants do not change which rules concern a tool).
    pub fn grants_mut(&mut self) -> &mut crate::policy::GrantBook {
        self.governor.grants_mut()
    }

    /// What the approver is shown of a call: its tool, server, fingerprint and args digest.
    /// `canonical` is the canonical text of the arguments policy saw, recorded if the call does
    /// not hold it yet; without it the digest is empty until it is sent.
    pub fn ask_facts(&mut self, call: u32, canonical: Option<&str>) -> Option<AskFacts> {
        let entry = self.calls.get_mut(call)?;
        if let Some(text) = canonical {
            entry.provide_canonical(text);
        }
        let tool = self.tools.get(entry.tool())?;
        Some(AskFacts {
            server_id: tool.server.clone().unwrap_or_else(|| self.server_id.clone()),
            name: tool.name.clone(),
            fingerprint: tool.definition.as_ref().map(|d| d.fingerprint.clone()).unwrap_or_default(),
            args_digest: entry.args_digest().unwrap_or_default().to_owned(),
            decision: entry.decision().cloned(),
        })
    }

    /// The fingerprint of a tool's definition.
    pub fn fingerprint(&self, tool: u32) -> Option<&str> {
        self.tools.get(tool)?.definition.as_ref().map(|d| d.fingerprint.as_str())
    }

    /// Records a tool's baseline definition (at registration or listing).
    pub fn record_baseline(&mut self, tool: u32) {
        if let Some(definition) = self.tools.get(tool).and_then(|t| t.definition.clone()) {
            self.governor.record_baseline(&definition);
        }
    }

    /// Whether the static tool filter lets agents see the tool.
    pub fn is_visible(&self, tool: u32) -> bool {
        self.tools.get(tool).is_some_and(|t| self.governor.is_visible(t.server.as_deref().unwrap_or(&self.server_id), &t.name))
    }

    /// The page's governance settings. Taking them for a change forgets what was cached from
    /// the old ones.
    pub fn governor_mut(&mut self) -> &mut Governor {
        self.matched_rules.clear();
        &mut self.governor
    }

    /// A dry run of the policy for `tool` on `facts`, calling nothing: function predicates are
    /// reported, and counted as failed (the fail-closed view). Records no baseline.
    pub fn explain(&self, tool: u32, facts: PolicyInput<'_>) -> Option<Explained> {
        let tool = self.tools.get(tool)?;
        let server = tool.server.clone().unwrap_or_else(|| self.server_id.clone());
        let definition = tool.definition.as_ref()?;
        let policy = self.governor.policy();
        let digest = facts.canonical.map(crate::digest::args_digest);
        let live = self.governor.grants().live(facts.principal, &server, &tool.name, &definition.fingerprint, facts.now_ms).is_some();
        let fingerprint = self.governor.peek_fingerprint_state(definition);
        let mut functions = Vec::new();
        let decision = policy.map(|policy| {
            let decided = policy.decide(
                facts.call_facts(&server, &tool.name, definition, fingerprint, live),
                |handle, _| {
                    functions.push(handle);
                    PredicateResult::Failed
                },
            );
            match (decided.effect, live, facts.has_approver) {
                (Effect::Ask, true, _) => settle_with_grant(&decided),
                (Effect::Ask, false, false) => settle_without_approver(&decided),
                _ => decided,
            }
        });
        Some(Explained { server_id: server, fingerprint: definition.fingerprint.clone(), args_digest: digest, decision, function_predicates: functions })
    }

    /// Feeds an outcome to a call and returns its next action and whether the hook's value was
    /// accepted; `None` for an unknown call. A call that finished well is ended here, saving
    /// the TS layer a crossing; a failed one waits for [`Engine::end`] to hand over its error.
    pub fn step(&mut self, call: u32, outcome: Outcome) -> Option<(Action, bool)> {
        let entry = self.calls.get_mut(call)?;
        let action = entry.step(outcome);
        let accepted = entry.accepted();
        if action == (Action::Finish { ok: true }) {
            self.calls.remove(call);
        }
        Some((action, accepted))
    }

    /// A call in progress.
    pub fn call(&self, call: u32) -> Option<&Call> {
        self.calls.get(call)
    }

    /// Ends a call, returning its error (and the policy decision, if any) when it failed.
    pub fn end(&mut self, call: u32) -> Option<(CallError, Option<Decision>)> {
        let call = self.calls.remove(call)?;
        let error = call.error().cloned()?;
        Some((error, call.decision().cloned()))
    }

    /// How many calls are in progress (for leak tests).
    pub fn calls_in_progress(&self) -> usize {
        self.calls.values().count()
    }

    /// Back to the state of a new engine, keeping tool definitions (their JS objects live on).
    pub fn reset(&mut self) {
        self.global.clear();
        self.scopes = Slots::default();
        self.scopes.insert(Scope { parent: 0, set: u32::MAX });
        self.server_id = DEFAULT_SERVER_ID.to_owned();
        self.governor.reset(true);
        self.generation = self.generation.wrapping_add(1);
        self.changed();
    }

    /// Any configuration change invalidates every cached plan.
    fn changed(&mut self) {
        self.plans.clear();
        self.plan_index.clear();
        self.matched_rules.clear();
    }
}
