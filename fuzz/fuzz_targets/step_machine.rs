//! The step machine, driven as a faulty or hostile TS layer could drive it.
//!
//! The input is a small page (hook sets, global hooks, tools, provider scopes, a policy with
//! function predicates) and a script: calls and listings started with any `CallFlags`, the
//! configuration changed while they are in flight, and steps fed with random outcomes, return
//! facts, payloads and signals. The harness keeps the TS layer's tables (one free-list of
//! handles for sets, hooks, tools and scopes, reused last-in first-out as `handles.ts` does) and
//! checks every action the core answers:
//!
//! - it packs without loss (op in `Op::ALL`, handle within `MAX_HANDLE`);
//! - a `CallHook` names a hook the TS layer still holds, the same hook as when the call began,
//!   of an event the call (or listing) runs; a `Predicate` names a function of the policy the
//!   call began with; a dry run never asks for user code (hooks, predicates, the approver, the
//!   tool, a Standard Schema); a `Limits` step comes only to a call begun with the limits flag;
//! - every call and listing ends (`FinishOk` / `FinishError`) within a bounded number of steps
//!   once the TS layer reports what it could report, `end` answers what the op said (`ok`), and
//!   frees it: `Engine::counts()` shows no call or listing left, and nothing else once the
//!   configuration is dropped.
#![no_main]

use std::collections::HashMap;

use arbitrary::{Arbitrary, Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use webmcp_warden::call::{Action, Op, PolicyFacts, Signal, StepReport, LIMITS_FIRST, MAX_HANDLE};
use webmcp_warden::engine::{CallFlags, Engine, ENDED_QUIETLY};
use webmcp_warden::digest::FieldTexts;
use webmcp_warden::governor::Definition;
use webmcp_warden::hooks::Event;
use webmcp_warden::returns::{Contract, ReturnFacts};
use webmcp_warden::value::{Map, Value};
use webmcp_warden_fuzz::{object, pick, text, value};

const NAMES: [&str; 5] = ["search", "get_item", "delete-item", "Checkout", "get.item"];
const SERVERS: [&str; 3] = ["shop", "fs", "page"];
const MATCHERS: [&str; 9] = ["*", "shop/*", "shop/search", "search", "*/get_*", "fs/*", "get_item", "delete_*", "checkout"];
const IDS: [&str; 5] = ["a", "b", "guard", "before:0", "audit"];
const PRINCIPALS: [&str; 2] = ["alice", "bob"];

// ---------------------------------------------------------------- the page, as data

#[derive(Debug, Arbitrary)]
struct HookSpec {
    event: u8,
    object: bool,
    matcher: Option<u8>,
    id: Option<u8>,
    timeout: Option<u8>,
    on_error: Option<bool>,
}

#[derive(Debug, Arbitrary)]
struct SetSpec {
    hooks: Vec<HookSpec>,
}

#[derive(Debug, Arbitrary)]
struct ToolSpec {
    name: u8,
    server: Option<u8>,
    sets: Vec<u8>,
    standalone: bool,
    read_only: bool,
}

#[derive(Debug, Arbitrary)]
enum PredSpec {
    Function,
    Tainted,
    ReadOnly(bool),
    Principal(u8),
    ArgMax(u8),
    ArgMatches(u8),
    Junk,
}

#[derive(Debug, Arbitrary)]
struct RuleSpec {
    matcher: u8,
    id: Option<u8>,
    when: Vec<PredSpec>,
}

#[derive(Debug, Arbitrary)]
struct LimitSpec {
    matcher: u8,
    per: u8,
    max: Option<u8>,
    window: u16,
    concurrency: Option<u8>,
    budget: Option<u8>,
    cost_function: bool,
    ask: bool,
}

#[derive(Debug, Arbitrary)]
struct PolicySpec {
    deny: Vec<RuleSpec>,
    ask: Vec<RuleSpec>,
    allow: Vec<RuleSpec>,
    default: Option<u8>,
    pin: Option<u8>,
    allow_new: Option<u8>,
    limits: Vec<LimitSpec>,
}

#[derive(Debug, Arbitrary)]
enum Cmd {
    Begin { tool: u8, scope: u8, flags: u8 },
    Listing { tools: Vec<(u8, u8)> },
    /// Feed the run at this slot one step (plausible or not).
    Step { run: u8 },
    DefineSet(SetSpec),
    DropSet(u8),
    AddGlobal { set: u8, replace: bool },
    ClearGlobal,
    DefineTool(ToolSpec),
    DropTool(u8),
    DefineScope { parent: u8, set: Option<u8> },
    DropScope(u8),
    SetPolicy(Option<PolicySpec>),
    SetServer(u8),
    SetStrict(bool),
    Reset,
}

#[derive(Debug, Arbitrary)]
struct Spec {
    sets: Vec<SetSpec>,
    globals: Vec<(u8, bool)>,
    tools: Vec<ToolSpec>,
    scopes: Vec<(u8, Option<u8>)>,
    policy: Option<PolicySpec>,
    script: Vec<Cmd>,
}

// ---------------------------------------------------------------- the TS layer, simulated

#[derive(Debug, Clone, Copy, PartialEq)]
struct HookRec {
    event: Event,
    /// Which definition of a set this hook came from: handles are reused, definitions are not.
    instance: u64,
}

/// One call or listing in flight.
struct Run {
    id: u32,
    listing: bool,
    explain: bool,
    /// Begun with `CallFlags::LIMITS`: the page's policy has limits.
    limits: bool,
    /// The hooks the TS layer held when the run began.
    hooks: HashMap<u32, HookRec>,
    /// The function predicates of the policy the call began with.
    predicates: Vec<u32>,
    action: Action,
    signal: Signal,
    /// Steps fed with an outcome the TS layer could report for the op (the termination bound
    /// counts these; nonsense steps are bounded by the input's length).
    plausible: usize,
    bound: usize,
    names: Vec<String>,
    /// The called tool's name (calls only).
    tool: String,
    /// Arguments JSON cannot carry were reported at the policy step (the TS layer does that
    /// at most once: the arguments do not change).
    not_json: bool,
}

struct Page {
    engine: Engine,
    next: u32,
    free: Vec<u32>,
    instances: u64,
    hooks: HashMap<u32, HookRec>,
    /// Live sets, in definition order, with their hook handles.
    sets: Vec<(u32, Vec<u32>)>,
    tools: Vec<(u32, String)>,
    scopes: Vec<u32>,
    predicates: Vec<u32>,
    next_predicate: u32,
    runs: Vec<Run>,
}

impl Page {
    fn new() -> Page {
        Page { engine: Engine::new(), next: 1, free: Vec::new(), instances: 0, hooks: HashMap::new(), sets: Vec::new(), tools: Vec::new(), scopes: Vec::new(), predicates: Vec::new(), next_predicate: 0, runs: Vec::new() }
    }

    /// `handles.ts`: the last handle given back is the first taken again.
    fn take(&mut self) -> u32 {
        self.free.pop().unwrap_or_else(|| {
            self.next += 1;
            self.next - 1
        })
    }

    fn give(&mut self, handle: u32) {
        self.free.push(handle);
    }

    fn set_at(&self, index: u8) -> Option<u32> {
        (!self.sets.is_empty()).then(|| self.sets[index as usize % self.sets.len()].0)
    }

    fn define_set(&mut self, spec: &SetSpec) {
        let mut events = Map::new();
        let mut handles = Vec::new();
        let mut recs = Vec::new();
        self.instances += 1;
        for hook in spec.hooks.iter().take(6) {
            let event = Event::ALL[hook.event as usize % Event::ALL.len()];
            let handle = self.take();
            handles.push(handle);
            recs.push((handle, HookRec { event, instance: self.instances }));
            let entry = if hook.object || hook.matcher.is_some() || hook.id.is_some() || hook.timeout.is_some() || hook.on_error.is_some() {
                let mut map = Map::new();
                map.insert("run", Value::Function(handle));
                if let Some(m) = hook.matcher {
                    map.insert("match", Value::from(MATCHERS[m as usize % MATCHERS.len()]));
                }
                if let Some(id) = hook.id {
                    map.insert("id", Value::from(IDS[id as usize % IDS.len()]));
                }
                if let Some(ms) = hook.timeout {
                    map.insert("timeout", Value::Number(f64::from(ms)));
                }
                if let Some(ignore) = hook.on_error {
                    map.insert("onError", Value::from(if ignore { "ignore" } else { "fail" }));
                }
                Value::Object(map)
            } else {
                Value::Function(handle)
            };
            let list = match events.remove(event.name()) {
                Some(Value::Array(mut items)) => {
                    items.push(entry);
                    items
                }
                _ => vec![entry],
            };
            events.insert(event.name(), Value::Array(list));
        }
        let id = self.take();
        match self.engine.define_hook_set(id, &Value::Object(events), "hooks") {
            Ok(()) => {
                self.hooks.extend(recs);
                self.sets.push((id, handles));
            }
            Err(err) => {
                assert!(!err.code.is_empty() && err.message.starts_with(&err.path));
                // The TS layer throws and gives every handle it took back.
                for handle in handles.into_iter().rev() {
                    self.give(handle);
                }
                self.give(id);
            }
        }
    }

    fn drop_set(&mut self, id: u32) {
        self.engine.drop_hook_set(id);
        if let Some(at) = self.sets.iter().position(|(set, _)| *set == id) {
            let (_, handles) = self.sets.remove(at);
            for handle in handles {
                self.hooks.remove(&handle);
                self.give(handle);
            }
            self.give(id);
        }
    }

    fn add_global(&mut self, index: u8, replace: bool) {
        let Some(set) = self.set_at(index) else { return };
        if let Ok(replaced) = self.engine.add_global(set, replace, "hooks") {
            for old in replaced {
                if old != set {
                    self.drop_set(old);
                }
            }
        }
    }

    fn define_tool(&mut self, spec: &ToolSpec) {
        let name = NAMES[spec.name as usize % NAMES.len()];
        let sets: Vec<u32> = spec.sets.iter().take(3).filter_map(|index| self.set_at(*index)).collect();
        let id = self.take();
        let done = if spec.standalone {
            self.engine.define_standalone_tool(id, name, sets, "tool hooks")
        } else {
            // What the TS layer sends: each definition field's canonical JSON text.
            let name_text = format!("\"{name}\"");
            let annotations = if spec.read_only { webmcp_warden::object! { "readOnlyHint" => true } } else { Value::Null };
            let mut fields = vec![("name", name_text.as_str()), ("description", "\"x\"")];
            if spec.read_only {
                fields.push(("annotations", "{\"readOnlyHint\":true}"));
            }
            let texts = FieldTexts::from_pairs(fields).unwrap_or_else(|err| panic!("plain definition texts are refused: {err}"));
            let definition = Definition::new(name, annotations, &texts);
            let server = spec.server.map(|s| SERVERS[s as usize % SERVERS.len()].to_owned());
            self.engine.define_tool(id, definition, server, sets, "tool hooks")
        };
        match done {
            Ok(()) => self.tools.push((id, name.to_owned())),
            Err(_) => self.give(id),
        }
    }

    fn drop_tool(&mut self, index: u8) {
        if self.tools.is_empty() {
            return;
        }
        let (id, _) = self.tools.remove(index as usize % self.tools.len());
        self.engine.drop_tool(id);
        self.give(id);
    }

    fn define_scope(&mut self, parent: u8, set: Option<u8>) {
        let parent = if self.scopes.is_empty() || parent % 3 == 0 { 0 } else { self.scopes[parent as usize % self.scopes.len()] };
        let set = set.and_then(|index| self.set_at(index));
        let id = self.take();
        match self.engine.define_scope(id, parent, set, "provider hooks") {
            Ok(()) => self.scopes.push(id),
            Err(_) => self.give(id),
        }
    }

    fn drop_scope(&mut self, index: u8) {
        if self.scopes.is_empty() {
            return;
        }
        let id = self.scopes.remove(index as usize % self.scopes.len());
        self.engine.drop_scope(id);
        self.give(id);
    }

    fn set_policy(&mut self, spec: Option<&PolicySpec>) {
        let Some(spec) = spec else {
            let _ = self.engine.governor_mut().set_policy(&Value::Null);
            self.predicates.clear();
            return;
        };
        let mut functions = Vec::new();
        let rules = |list: &[RuleSpec], functions: &mut Vec<u32>, next: &mut u32| -> Value {
            let items = list
                .iter()
                .take(3)
                .map(|rule| {
                    let matcher = Value::from(MATCHERS[rule.matcher as usize % MATCHERS.len()]);
                    if rule.when.is_empty() && rule.id.is_none() {
                        return matcher;
                    }
                    let when: Vec<Value> = rule
                        .when
                        .iter()
                        .take(3)
                        .map(|pred| match pred {
                            PredSpec::Function => {
                                *next += 1;
                                functions.push(*next);
                                Value::Function(*next)
                            }
                            PredSpec::Tainted => Value::from("tainted"),
                            PredSpec::ReadOnly(flag) => webmcp_warden::object! { "annotation" => webmcp_warden::object! { "readOnlyHint" => *flag } },
                            PredSpec::Principal(p) => webmcp_warden::object! { "principal" => PRINCIPALS[*p as usize % PRINCIPALS.len()] },
                            PredSpec::ArgMax(n) => webmcp_warden::object! { "arg" => "/n", "max" => f64::from(*n % 16) },
                            PredSpec::ArgMatches(n) => webmcp_warden::object! { "arg" => "/q", "matches" => ["^a", "x+", "(", "^[a-z]+$"][*n as usize % 4] },
                            PredSpec::Junk => webmcp_warden::object! { "when" => 1.0 },
                        })
                        .collect();
                    let mut map = Map::new();
                    map.insert("match", matcher);
                    map.insert_some("id", rule.id.map(|id| IDS[id as usize % IDS.len()]));
                    map.insert("when", Value::Array(when));
                    Value::Object(map)
                })
                .collect();
            Value::Array(items)
        };
        let mut next = self.next_predicate;
        let effects = ["allow", "ask", "deny", "maybe"];
        let mut map = Map::new();
        map.insert("deny", rules(&spec.deny, &mut functions, &mut next));
        map.insert("ask", rules(&spec.ask, &mut functions, &mut next));
        map.insert("allow", rules(&spec.allow, &mut functions, &mut next));
        map.insert_some("default", spec.default.map(|e| effects[e as usize % effects.len()]));
        map.insert_some("pin", spec.pin.map(|e| effects[e as usize % effects.len()]));
        map.insert_some("allowNewTools", spec.allow_new.map(|e| if e % 2 == 0 { Value::Bool(e % 4 == 0) } else { Value::from(effects[e as usize % effects.len()]) }));
        // Limits, which the core leaves to the limits module (some of them invalid: a max of 0,
        // no window): whatever they hold, the policy compiles the same.
        let mut limits = Vec::new();
        for limit in spec.limits.iter().take(3) {
            let mut item = Map::new();
            item.insert("match", Value::from(MATCHERS[limit.matcher as usize % MATCHERS.len()]));
            item.insert("per", Value::from(["principal", "tool", "page"][limit.per as usize % 3]));
            item.insert_some("max", limit.max.map(f64::from));
            item.insert_some("concurrency", limit.concurrency.map(|n| f64::from(n % 4)));
            item.insert_some("budget", limit.budget.map(f64::from));
            if limit.max.is_some() || limit.budget.is_some() {
                item.insert("window", f64::from(limit.window).into());
            }
            if limit.budget.is_some() && limit.cost_function {
                item.insert("cost", Value::Function(999));
            }
            if limit.ask {
                item.insert("onExceeded", "ask".into());
            }
            limits.push(Value::Object(item));
        }
        if !limits.is_empty() {
            map.insert("limits", Value::Array(limits));
        }
        self.next_predicate = next;
        if self.engine.governor_mut().set_policy(&Value::Object(map)).is_ok() {
            self.predicates = functions;
        }
    }

    fn configure(&mut self, spec: &Spec) {
        for set in spec.sets.iter().take(5) {
            self.define_set(set);
        }
        for (set, replace) in spec.globals.iter().take(3) {
            self.add_global(*set, *replace);
        }
        for tool in spec.tools.iter().take(5) {
            self.define_tool(tool);
        }
        for (parent, set) in spec.scopes.iter().take(3) {
            self.define_scope(*parent, *set);
        }
        self.set_policy(spec.policy.as_ref());
    }

    /// The most plausible steps a run may take: every planned hook once (a set can sit in a
    /// scope chain and a tool's own sets more than once, so a hook can be planned once per
    /// place), for each tool of a listing; every predicate once; and the fixed steps
    /// (validation, policy, approval, tool, output validation, finish), with slack.
    fn bound(&self, tools: usize) -> usize {
        let places = self.scopes.len() + 3 + 3; // a scope chain, global, a tool's (up to 3) sets
        self.hooks.len() * places * tools.max(1) + self.predicates.len() + 16
    }

    fn begin(&mut self, u: &mut Unstructured<'_>, tool: u8, scope: u8, flags: u8) -> Result<()> {
        if self.tools.is_empty() || self.runs.len() >= 6 {
            return Ok(());
        }
        let (tool, name) = self.tools[tool as usize % self.tools.len()].clone();
        let scope = if self.scopes.is_empty() || scope % 3 == 0 { 0 } else { self.scopes[scope as usize % self.scopes.len()] };
        let flags = u32::from(flags);
        let Ok(call) = self.engine.begin(tool, scope, CallFlags(flags)) else { return Ok(()) };
        let signal = self.signal(u, Signal::Live)?;
        let action = self.engine.step(call, StepReport::Start, ReturnFacts::default(), &Value::Null, signal, 0.0);
        let action = action.unwrap_or_else(|| panic!("no answer to the start of call {call}"));
        let run = Run {
            id: call,
            listing: false,
            explain: flags & CallFlags::EXPLAIN != 0,
            limits: flags & CallFlags::LIMITS != 0,
            hooks: self.hooks.clone(),
            predicates: self.predicates.clone(),
            action,
            signal,
            plausible: 1,
            bound: self.bound(1),
            names: Vec::new(),
            tool: name,
            not_json: false,
        };
        self.check(&run);
        self.runs.push(run);
        self.settle();
        Ok(())
    }

    fn begin_listing(&mut self, tools: &[(u8, u8)]) {
        if self.tools.is_empty() || self.runs.len() >= 6 {
            return;
        }
        let pairs: Vec<(u32, u32)> = tools
            .iter()
            .take(5)
            .map(|(tool, scope)| {
                let tool = self.tools[*tool as usize % self.tools.len()].0;
                let scope = if self.scopes.is_empty() || scope % 3 == 0 { 0 } else { self.scopes[*scope as usize % self.scopes.len()] };
                (tool, scope)
            })
            .collect();
        let names = pairs.iter().filter_map(|(tool, _)| self.tools.iter().find(|(id, _)| id == tool).map(|(_, name)| name.clone())).collect();
        let Ok(listing) = self.engine.begin_listing(&pairs) else { return };
        let action = self.engine.listing_step(listing, StepReport::Start, ReturnFacts::default(), &Value::Null, 0.0);
        let action = action.unwrap_or_else(|| panic!("no answer to the start of listing {listing}"));
        let run = Run { id: listing, listing: true, explain: false, limits: false, hooks: self.hooks.clone(), predicates: Vec::new(), action, signal: Signal::Live, plausible: 1, bound: self.bound(pairs.len()), names, tool: String::new(), not_json: false };
        self.check(&run);
        self.runs.push(run);
        self.settle();
    }

    /// The signal for the next step: it may abort or time out, and never comes back to life.
    fn signal(&self, u: &mut Unstructured<'_>, now: Signal) -> Result<Signal> {
        if now != Signal::Live {
            return Ok(now);
        }
        Ok(match u.int_in_range(0..=15)? {
            0 => Signal::Aborted,
            1 => Signal::TimedOut,
            _ => Signal::Live,
        })
    }

    /// The invariants of one answered action.
    fn check(&self, run: &Run) {
        let action = run.action;
        let what = if run.listing { "listing" } else { "call" };
        if std::env::var_os("WARDEN_FUZZ_DEBUG").is_some() {
            eprintln!("{what} {}: {action:?}", run.id);
        }
        assert!(Op::ALL.contains(&action.op));
        assert!(action.handle <= MAX_HANDLE, "{what} {} answered handle {} past MAX_HANDLE", run.id, action.handle);
        assert_eq!(action.encode() & 0xf, action.op as u32, "the op does not survive packing");
        assert_eq!(action.encode() >> 10, action.handle, "the handle does not survive packing");
        if run.listing {
            assert!(matches!(action.op, Op::CallHook | Op::FinishOk | Op::FinishError), "a listing answered {:?}", action.op);
        }
        if run.explain {
            assert!(!matches!(action.op, Op::CallHook | Op::Predicate | Op::Approve | Op::RunTool), "a dry run asked for {:?}", action.op);
            if action.op == Op::ValidateInput {
                assert_eq!(action.handle, 1, "a dry run validates a JSON Schema input only");
            }
        }
        match action.op {
            Op::CallHook => {
                let held = self.hooks.get(&action.handle);
                let began = run.hooks.get(&action.handle);
                assert!(held.is_some(), "{what} {} asked for hook {}, which the TS layer no longer holds", run.id, action.handle);
                assert_eq!(held, began, "{what} {} asked for hook {}, now another hook than when it began", run.id, action.handle);
                let event = held.map(|hook| hook.event);
                if run.listing {
                    assert_eq!(event, Some(Event::ToolsListed), "a listing asked for a {event:?} hook");
                } else {
                    assert_ne!(event, Some(Event::ToolsListed), "a call asked for a toolsListed hook");
                }
            }
            Op::Approve => {
                // The approver is shown the tool that was called, even if its handle now
                // belongs to another tool.
                let shown = self.engine.ask_facts(run.id).map(|facts| facts.name);
                assert_eq!(shown.as_deref(), Some(run.tool.as_str()), "call {} asks approval for another tool", run.id);
                assert!(action.handle == 0 || (action.handle == LIMITS_FIRST && run.limits && !run.explain), "call {} (limits flag {}) asks approval with handle {}", run.id, run.limits, action.handle);
            }
            // A call checks its limits before the tool or the approver; a dry run in a step of its own.
            Op::RunTool => assert!(action.handle == 0 || (action.handle == LIMITS_FIRST && run.limits && !run.explain), "call {} (limits flag {}) runs its tool with handle {}", run.id, run.limits, action.handle),
            Op::Predicate => assert!(run.predicates.contains(&action.handle), "call {} asked for predicate {} of no policy it began with", run.id, action.handle),
            Op::Limits => assert!(run.limits && run.explain && action.handle == 0, "call {} asked for its limits (flag {}, dry run {})", run.id, run.limits, run.explain),
            Op::ValidateInput => assert!(action.handle <= 3),
            Op::EvaluatePolicy => assert!(action.handle <= 1),
            // A call that succeeded with nothing to record is ended by the core in its last step.
            Op::FinishOk if !run.listing && !run.explain => assert!(action.handle == 0 || action.handle == ENDED_QUIETLY, "FinishOk with handle {}", action.handle),
            Op::ValidateOutput | Op::FinishOk | Op::FinishError => assert_eq!(action.handle, 0),
        }
    }

    /// Ends every run whose last answer was a finish, checking what `end` says.
    fn settle(&mut self) {
        let mut index = 0;
        while index < self.runs.len() {
            let run = &self.runs[index];
            if !matches!(run.action.op, Op::FinishOk | Op::FinishError) {
                index += 1;
                continue;
            }
            let run = self.runs.remove(index);
            let ok = run.action.op == Op::FinishOk;
            if run.listing {
                let ended = self.engine.end_listing(run.id).unwrap_or_else(|| panic!("listing {} does not end", run.id));
                assert_eq!(ended.get("ok"), Some(&Value::Bool(ok)), "listing {} ended {ended:?} after {:?}", run.id, run.action.op);
                assert!(self.engine.listing(run.id).is_none(), "an ended listing is still held");
                assert!(self.engine.end_listing(run.id).is_none(), "a listing ends twice");
            } else if ok && run.action.handle == ENDED_QUIETLY {
                assert!(self.engine.call(run.id).is_none(), "a call that ended quietly is still held");
                assert!(self.engine.end(run.id).is_none(), "a call that ended quietly ends again");
            } else {
                let ended = self.engine.end(run.id).unwrap_or_else(|| panic!("call {} does not end", run.id));
                if run.explain {
                    assert!(ended.get("effect").and_then(Value::as_str).is_some() && ended.get("steps").is_some(), "a dry run explained {ended:?}");
                } else {
                    assert_eq!(ended.get("ok"), Some(&Value::Bool(ok)), "call {} ended {ended:?} after {:?}", run.id, run.action.op);
                    if !ok {
                        assert!(ended.get("text").and_then(Value::as_str).is_some_and(|t| !t.is_empty()), "a failed call without text: {ended:?}");
                    }
                }
                assert!(self.engine.call(run.id).is_none(), "an ended call is still held");
                assert!(self.engine.end(run.id).is_none(), "a call ends twice");
                assert!(self.engine.step(run.id, StepReport::Returned, ReturnFacts::default(), &Value::Null, Signal::Live, 0.0).is_none(), "an ended call steps");
            }
        }
    }

    /// One step of run `index`: mostly an outcome the TS layer could report for the op, else
    /// anything.
    fn step(&mut self, u: &mut Unstructured<'_>, index: usize, sane: bool) -> Result<()> {
        let Some(run) = self.runs.get(index) else { return Ok(()) };
        let (id, listing, op, handle, signal, not_json) = (run.id, run.listing, run.action.op, run.action.handle, run.signal, run.not_json);
        let plausible = sane || u.ratio(7, 8)?;
        let signal = self.signal(u, signal)?;
        let duration = f64::from(u.int_in_range(0u8..=3)?);
        let mut restarted = false;
        let action = if listing {
            let (outcome, facts, payload) = if plausible { self.listing_outcome(u, id)? } else { anything(u)? };
            self.engine.listing_step(id, outcome, facts, &payload, duration)
        } else if plausible && op == Op::EvaluatePolicy && (not_json || !u.ratio(1, 8)?) {
            let facts = PolicyFacts {
                arguments: if u.ratio(3, 4)? { webmcp_warden::object! { "n" => f64::from(u.int_in_range(0u8..=20)?), "q" => text(u)? } } else { value(u, 2, 3)? },
                principal: if u.arbitrary()? { Some((*pick(u, &PRINCIPALS)?).to_owned()) } else { None },
                taint: if u.ratio(1, 4)? { vec![(*pick(u, &SERVERS)?).to_owned()] } else { Vec::new() },
                now_ms: f64::from(u.int_in_range(0u32..=100_000)?),
                args_digest: None,
                exposed_to: if u.ratio(1, 4)? { vec!["https://agent.example".to_owned()] } else { Vec::new() },
            };
            self.engine.policy_facts(id, &facts, signal)
        } else {
            let (outcome, facts, payload) = if plausible { call_outcome(u, op, handle)? } else { anything(u)? };
            restarted = outcome == StepReport::Start;
            if op == Op::EvaluatePolicy && outcome == StepReport::Invalid {
                self.runs[index].not_json = true;
            }
            self.engine.step(id, outcome, facts, &payload, signal, duration)
        };
        let what = if listing { "listing" } else { "call" };
        let action = action.unwrap_or_else(|| panic!("{what} {id} in flight has no answer"));
        let run = &mut self.runs[index];
        run.action = action;
        run.signal = signal;
        if plausible {
            run.plausible += 1;
        }
        // A second `Start` (which no TS layer sends) begins the call again: so does the count.
        if restarted {
            run.plausible = 0;
        }
        assert!(run.plausible <= run.bound, "{what} {id} does not end: {} steps (bound {}), at {:?}", run.plausible, run.bound, action.op);
        let run = &self.runs[index];
        self.check(run);
        self.settle();
        Ok(())
    }

    fn listing_outcome(&self, u: &mut Unstructured<'_>, listing: u32) -> Result<(StepReport, ReturnFacts, Value)> {
        Ok(match u.int_in_range(0..=9)? {
            0 => (StepReport::Raised, ReturnFacts::default(), Value::Null),
            1 => (StepReport::TimedOut, ReturnFacts::default(), Value::Null),
            2 => (StepReport::Aborted, ReturnFacts::default(), Value::Null),
            3 | 4 => {
                let returned = value(u, 2, 3)?;
                (StepReport::Returned, ReturnFacts::of(&returned), Value::Null)
            }
            _ => {
                // An array of names: a subset of what it was given, or not.
                let given = self.engine.listing(listing).map(|l| l.given()).unwrap_or_default();
                let names = self.runs.iter().find(|run| run.listing && run.id == listing).map(|run| run.names.clone()).unwrap_or_default();
                let mut returned = Vec::new();
                for index in given {
                    if u.arbitrary()? {
                        returned.push(Value::from(names.get(index as usize).cloned().unwrap_or_default()));
                    }
                }
                if u.ratio(1, 6)? {
                    returned.push(value(u, 1, 2)?);
                }
                let facts = ReturnFacts::of(&Value::Array(returned.clone()));
                (StepReport::Returned, facts, webmcp_warden::object! { "names" => Value::Array(returned) })
            }
        })
    }

    /// Drives every run to its end with outcomes the TS layer could report.
    fn finish_all(&mut self, u: &mut Unstructured<'_>) {
        while !self.runs.is_empty() {
            let at = self.runs.len() - 1;
            // The input may be exhausted: `Unstructured` then answers zeros, still plausible.
            if self.step(u, at, true).is_err() {
                let _ = self.step(&mut Unstructured::new(&[]), at, true);
            }
        }
    }
}

/// An outcome the TS layer could report after performing `op`.
fn call_outcome(u: &mut Unstructured<'_>, op: Op, handle: u32) -> Result<(StepReport, ReturnFacts, Value)> {
    let none = ReturnFacts::default();
    // A limit refuses the call (its decision, as the limits module writes it, or junk), or the
    // signal aborted the check; otherwise the action is performed.
    if handle == LIMITS_FIRST && matches!(op, Op::RunTool | Op::Approve) && u.ratio(1, 3)? {
        return Ok(match u.int_in_range(0..=2)? {
            0 => (StepReport::Limited, none, Value::Null),
            1 => (StepReport::Limited, none, value(u, 2, 3)?),
            _ => (StepReport::Limited, none, limit_hit(u)?),
        });
    }
    Ok(match op {
        Op::CallHook | Op::Approve => match u.int_in_range(0..=9)? {
            0 => (StepReport::Raised, none, Value::Null),
            1 => (StepReport::TimedOut, none, Value::Null),
            2 => (StepReport::Aborted, none, Value::Null),
            3 => (StepReport::Returned, ReturnFacts(u.arbitrary()?), value(u, 1, 3)?),
            _ => {
                if op == Op::Approve {
                    // The approver's reader: `allow`, `deny`, `code` and an own `scope`.
                    let (facts, payload) = ReturnFacts::of_answer(&approval(u)?);
                    return Ok((StepReport::Returned, facts, payload));
                }
                let returned = hook_return(u)?;
                // The TS layer sends a deny's message and code.
                let mut payload = Map::new();
                for key in ["message", "code"] {
                    if let Some(item) = returned.get(key) {
                        payload.insert(key, item.clone());
                    }
                }
                (StepReport::Returned, ReturnFacts::of(&returned), Value::Object(payload))
            }
        },
        Op::RunTool => match u.int_in_range(0..=3)? {
            0 => (StepReport::ToolThrew, none, webmcp_warden::object! { "message" => text(u)? }),
            1 => (StepReport::Aborted, none, Value::Null),
            _ => (StepReport::ToolReturned, none, Value::Null),
        },
        Op::ValidateInput | Op::ValidateOutput => match u.int_in_range(0..=6)? {
            0 => (StepReport::Invalid, none, webmcp_warden::object! { "diagnostics" => value(u, 3, 3)? }),
            1 => (StepReport::InvalidSchema, none, webmcp_warden::object! { "which" => if handle & 2 != 0 { "outputSchema" } else { "inputSchema" }, "message" => text(u)? }),
            2 => (StepReport::Raised, none, Value::Null),
            3 => (StepReport::Aborted, none, Value::Null),
            _ => (StepReport::Valid, none, Value::Null),
        },
        // Arguments JSON cannot carry, reported at the policy step.
        Op::EvaluatePolicy => (StepReport::Invalid, none, webmcp_warden::object! { "diagnostics" => Value::Array(vec![webmcp_warden::object! { "path" => "/x", "message" => "is not JSON" }]) }),
        Op::Predicate => match u.int_in_range(0..=4)? {
            0 => (StepReport::PredicateTrue, none, Value::Null),
            1 => (StepReport::PredicateFalse, none, Value::Null),
            2 => (StepReport::Aborted, none, Value::Null),
            _ => (StepReport::PredicateFailed, none, Value::Null),
        },
        // Within the limits, past one (its decision, as the limits module writes it, or junk).
        Op::Limits => match u.int_in_range(0..=4)? {
            0 => (StepReport::Aborted, none, Value::Null),
            1 => (StepReport::Invalid, none, value(u, 2, 3)?),
            2 => (StepReport::Invalid, none, limit_hit(u)?),
            _ => (StepReport::Valid, none, Value::Null),
        },
        Op::FinishOk | Op::FinishError => (StepReport::Returned, none, Value::Null),
    })
}

/// The decision of a limit a call would pass, as the limits module writes it.
fn limit_hit(u: &mut Unstructured<'_>) -> Result<Value> {
    Ok(webmcp_warden::object! { "ask" => u.arbitrary::<bool>()?, "index" => f64::from(u.int_in_range(0u8..=3)?), "explanation" => text(u)?, "limit" => webmcp_warden::object! { "kind" => "calls" } })
}

/// Any outcome, facts and payload at all.
fn anything(u: &mut Unstructured<'_>) -> Result<(StepReport, ReturnFacts, Value)> {
    let outcome = *pick(u, &StepReport::ALL)?;
    Ok((outcome, ReturnFacts(u.arbitrary()?), value(u, 2, 3)?))
}

/// What a hook returns: mostly the shapes of the returns table, sometimes anything.
fn hook_return(u: &mut Unstructured<'_>) -> Result<Value> {
    use webmcp_warden::object as o;
    Ok(match u.int_in_range(0..=9)? {
        0 => Value::Unsupported("undefined".into()),
        1 => o! { "input" => o! { "q" => 2.0 } },
        2 => o! { "output" => "x" },
        3 => o! { "action" => "deny", "message" => text(u)? },
        4 => o! { "action" => "halt", "result" => "r" },
        5 => o! { "action" => "recover", "result" => "r" },
        6 => o! { "action" => "allow" },
        _ => object(u, 2, 3)?,
    })
}

/// What an approver answers.
fn approval(u: &mut Unstructured<'_>) -> Result<Value> {
    use webmcp_warden::object as o;
    Ok(match u.int_in_range(0..=9)? {
        0 => o! { "allow" => "once" },
        1 => o! { "allow" => "always" },
        2 => o! { "deny" => text(u)? },
        3 => o! { "deny" => "no", "halt" => true },
        4 => o! { "allow" => "session" },
        5 => o! { "allow" => "always", "scope" => "arguments" },
        6 => o! { "deny" => "no", "code" => text(u)? },
        _ => value(u, 2, 3)?,
    })
}

fn run(data: &[u8]) -> Result<()> {
    let mut u = Unstructured::new(data);
    let spec: Spec = u.arbitrary()?;
    // To read a crash: `WARDEN_FUZZ_DEBUG=1 cargo fuzz run step_machine <artifact>`.
    if std::env::var_os("WARDEN_FUZZ_DEBUG").is_some() {
        eprintln!("{spec:#?}");
    }
    let mut page = Page::new();
    page.configure(&spec);
    for cmd in spec.script.iter().take(24) {
        match cmd {
            Cmd::Begin { tool, scope, flags } => page.begin(&mut u, *tool, *scope, *flags)?,
            Cmd::Listing { tools } => page.begin_listing(tools),
            Cmd::Step { run } => {
                if !page.runs.is_empty() {
                    let at = *run as usize % page.runs.len();
                    page.step(&mut u, at, false)?;
                }
            }
            Cmd::DefineSet(set) => page.define_set(set),
            Cmd::DropSet(index) => {
                if let Some(set) = page.set_at(*index) {
                    page.drop_set(set);
                }
            }
            Cmd::AddGlobal { set, replace } => page.add_global(*set, *replace),
            Cmd::ClearGlobal => {
                for set in page.engine.clear_global() {
                    page.drop_set(set);
                }
            }
            Cmd::DefineTool(tool) => page.define_tool(tool),
            Cmd::DropTool(index) => page.drop_tool(*index),
            Cmd::DefineScope { parent, set } => page.define_scope(*parent, *set),
            Cmd::DropScope(index) => page.drop_scope(*index),
            Cmd::SetPolicy(policy) => page.set_policy(policy.as_ref()),
            Cmd::SetServer(server) => page.engine.set_server_id(SERVERS[*server as usize % SERVERS.len()]),
            Cmd::SetStrict(strict) => page.engine.set_contract(if *strict { Contract::Strict } else { Contract::Lenient }),
            Cmd::Reset => {
                for set in page.engine.reset() {
                    page.drop_set(set);
                }
                page.scopes.clear();
                page.predicates.clear();
            }
        }
    }
    page.finish_all(&mut u);
    let counts = page.engine.counts();
    assert_eq!((counts[5], counts[6]), (0, 0), "calls or listings left after every run ended: {counts:?}");
    assert_eq!(counts[0], page.sets.len(), "hook sets: {counts:?}");
    assert_eq!(counts[1], page.hooks.len(), "hooks: {counts:?}");
    assert_eq!(counts[2], page.tools.len(), "tools: {counts:?}");
    assert_eq!(counts[3], page.scopes.len(), "scopes: {counts:?}");
    // Dropping the configuration leaves nothing behind.
    for set in page.engine.clear_global() {
        page.drop_set(set);
    }
    while !page.tools.is_empty() {
        page.drop_tool(0);
    }
    while !page.scopes.is_empty() {
        page.drop_scope(0);
    }
    while let Some((set, _)) = page.sets.first().cloned() {
        page.drop_set(set);
    }
    assert_eq!(page.engine.counts(), [0; 7], "the engine holds something after everything was dropped");
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let _ = run(data);
});
