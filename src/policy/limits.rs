//! Limits (`docs/behaviour.md`, "Limits"): how many calls a key may make in a window, how many
//! may be in flight at once, and how much cost they may spend in a window.
//!
//! A limit is `{ match?, per?, max?, window?, concurrency?, budget?, cost?, onExceeded?, id? }`
//! in the policy's `limits` list. Every limit whose matcher selects the tool applies (not the
//! first, as with rules): the call is counted by each of them, or refused by the first one it
//! would pass (a `deny` limit before an `ask` one), and then counted by none.
//!
//! Counting: each key (the limit, and the principal, the tool's name, or nothing for `per:
//! 'page'`) keeps a ring of [`RING`] slots, each a [`SLOTS`]th of the window. A call is checked
//! against the sum of the ring, which spans the window and at most one slot more, so a key
//! never passes `max` calls (or `budget` cost) in any window of that length; in exchange a call
//! may be refused up to one slot early. A key's state is fixed in size, whatever `max`; a key
//! whose ring is empty and that has no call in flight is dropped when the book is pruned; the
//! book holds at most [`MAX_KEYS`] keys, and a call that would need another one while it is full
//! is refused as past its limit (fail closed: evicting a key would reset its count).
//!
//! Time is the TS layer's clock, passed in as `now_ms` (as grants take it). A clock that goes
//! back counts in the newest slot, as does one that is not a finite number.

use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::Cell;

use super::keys::report_unknown_keys;
use super::rule::compile_matcher;
use crate::error::ConfigError;
use crate::matcher::Matcher;
use crate::strs::{cat, decimal_usize};
use crate::value::{Map, Value};
use crate::vec_map::VecMap;

/// The keys of a limit object.
const LIMIT_KEYS: [&str; 9] = ["match", "per", "max", "window", "concurrency", "budget", "cost", "onExceeded", "id"];

/// What a limit counts apart, in the order of [`Limit::per`].
const PER: [&str; 3] = ["page", "principal", "tool"];

/// How many slots a window is cut into: a call may be refused up to a slot early.
pub const SLOTS: usize = 8;

/// Slots kept per key: the window's and the one it started in.
pub const RING: usize = SLOTS + 1;

/// The most keys the book counts at once, every limit together.
pub const MAX_KEYS: usize = 10_000;

/// How often a full book is pruned again, at most (ms of the TS layer's clock): while it stays
/// full, a flood of new keys does not walk it on every call.
const FULL_PRUNE_MS: f64 = 1000.0;

/// A compiled limit.
#[derive(Debug, Clone)]
pub struct Limit {
    pub(crate) matcher: Matcher,
    /// What it counts apart: an index of [`PER`].
    pub(crate) per: usize,
    /// `max` (calls per window), `budget` (cost per window), `concurrency` (calls in flight);
    /// `0.0` when not given.
    pub(crate) bounds: [f64; 3],
    /// The window in ms (`0.0` when the limit counts nothing over time).
    pub(crate) window: f64,
    /// What a call costs against `budget`: `Ok` a number, `Err` a JS function's handle.
    pub(crate) cost: Result<f64, u32>,
    /// `onExceeded: 'ask'`.
    pub(crate) ask: bool,
    pub(crate) id: Option<String>,
    /// The key of its state in the book: `=<id>`, or `#<index>` without an id, so counts carry
    /// over when the same policy is configured again. Shared (an `Rc`) with the state and the
    /// calls in flight it counts, which clone it at no cost.
    pub(crate) identity: Rc<str>,
    /// Where the book last found its state (a guess, checked at each use).
    hint: Cell<usize>,
}

/// The compiled `limits` of a policy.
#[derive(Debug, Clone, Default)]
pub struct Limits {
    list: Vec<Limit>,
}

impl Limits {
    /// Compiles a policy's `limits` member (`Null`: none), as the TS layer sends it (cost
    /// functions as [`Value::Function`] handles).
    ///
    /// # Errors
    /// The first problem, with its path (`limits[1].max`): `invalid_limit`, `unknown_limit_key`,
    /// `duplicate_limit_id`, or a matcher's error.
    pub fn compile(spec: &Value) -> Result<Limits, ConfigError> {
        let mut errors = Vec::new();
        let parsed = parse_limits((!spec.is_null()).then_some(spec), &mut errors);
        if let Some(error) = errors.into_iter().next() {
            return Err(error);
        }
        let mut list = Vec::with_capacity(parsed.len());
        for limit in parsed.into_iter().flatten() {
            list.push(limit);
        }
        Ok(Limits { list })
    }

    /// The limits, in order.
    pub fn list(&self) -> &[Limit] {
        &self.list
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The indexes of the limits whose matchers select tool `name` on `server`. A `RegExp`
    /// that cannot test the name counts the tool (fail closed).
    pub fn matching(&self, server: &str, name: &str) -> Vec<usize> {
        let target = crate::matcher::Target::new(server, name);
        let mut matched = Vec::new();
        for (index, limit) in self.list.iter().enumerate() {
            if limit.matcher.test(&target).unwrap_or(true) {
                matched.push(index);
            }
        }
        matched
    }

    /// The handles of the cost functions, each once: the functions the TS layer keeps.
    pub fn function_handles(&self) -> Vec<u32> {
        let mut handles = Vec::new();
        for limit in &self.list {
            if let Err(handle) = limit.cost {
                if !handles.contains(&handle) {
                    handles.push(handle);
                }
            }
        }
        handles
    }
}

/// Reads a policy's `limits` member (absent: none). Errors are filed under `limits[i]`; a limit
/// with any error is `None`, so a half-understood limit never takes effect.
pub(crate) fn parse_limits(spec: Option<&Value>, errors: &mut Vec<ConfigError>) -> Vec<Option<Limit>> {
    let mut limits: Vec<Option<Limit>> = Vec::new();
    let Some(spec) = spec else { return limits };
    let Value::Array(items) = spec else {
        errors.push(ConfigError::new("invalid_limit", cat!["is an array of limits, not ", spec.type_name()]).at("limits"));
        return limits;
    };
    for (index, item) in items.iter().enumerate() {
        let at = cat!["limits[", decimal_usize(index), "]"];
        let before = errors.len();
        let limit = parse_limit(item, index, &at, errors);
        // An id given twice would share its counts: the later limit is refused.
        let id = item.get("id").and_then(Value::as_str);
        if id.is_some() && items.iter().take(index).any(|other| other.get("id").and_then(Value::as_str) == id) {
            errors.push(ConfigError::new("duplicate_limit_id", "is the id of an earlier limit, whose counts it would share".into()).at(&cat![at, ".id"]));
        }
        limits.push(if errors.len() == before { limit } else { None });
    }
    limits
}

/// Files `<at>.<key> is <what>` (code `invalid_limit`).
fn refuse(errors: &mut Vec<ConfigError>, at: &str, key: &str, what: &str) {
    errors.push(ConfigError::new("invalid_limit", cat!["is ", what]).at(&cat![at, key]));
}

/// Parses limit `index` (at path `at`), pushing its errors with their paths.
fn parse_limit(value: &Value, index: usize, at: &str, errors: &mut Vec<ConfigError>) -> Option<Limit> {
    let Value::Object(map) = value else {
        refuse(errors, at, "", "a limit object { match, per, max, window, concurrency, budget, cost, onExceeded, id }");
        return None;
    };
    let key_at = cat![at, "."];
    report_unknown_keys(map, &LIMIT_KEYS, "unknown_limit_key", "a limit", &key_at, errors);
    let matcher = match map.get("match") {
        None => Some(Matcher::all()),
        Some(spec) => compile_matcher(spec, false).map_err(|error| errors.push(error.at(&cat![key_at, "match"]))).ok(),
    };
    // `per` and `onExceeded`: one of their strings, as its index (the first when absent).
    let mut choices = [0usize; 2];
    for (slot, (key, options)) in [("per", &PER[..]), ("onExceeded", &["deny", "ask"][..])].into_iter().enumerate() {
        let Some(given) = map.get(key) else { continue };
        let mut found = None;
        for (at, option) in options.iter().enumerate() {
            if given.as_str() == Some(option) {
                found = Some(at);
            }
        }
        match (found, choices.get_mut(slot)) {
            (Some(found), Some(choice)) => *choice = found,
            _ => refuse(errors, &key_at, key, &cat!["'", crate::strs::join(options, "' or '"), "'"]),
        }
    }
    // `max`, `budget`, `concurrency`, `window`: numbers above 0, whole but for `budget`, below
    // 2^53 (where a double still counts by one).
    let mut numbers = [0.0; 4];
    for (slot, key) in ["max", "budget", "concurrency", "window"].into_iter().enumerate() {
        let Some(given) = map.get(key) else { continue };
        match (given.as_f64(), numbers.get_mut(slot)) {
            (Some(n), Some(number)) if n > 0.0 && n < 9_007_199_254_740_992.0 && (slot == 1 || crate::value::is_whole(n)) => *number = n,
            _ => refuse(errors, &key_at, key, "a number above 0 (a whole one but for a budget)"),
        }
    }
    let cost = match map.get("cost") {
        None => Ok(1.0),
        Some(Value::Function(handle)) => Err(*handle),
        Some(Value::Number(n)) if n.is_finite() && *n >= 0.0 && map.contains_key("budget") => Ok(*n),
        Some(_) => {
            refuse(errors, &key_at, "cost", "a number of 0 or more or a function (input) => number, spent from a `budget`");
            Ok(1.0)
        }
    };
    let given = |key: &str| map.contains_key(key);
    let counted = given("max") || given("budget");
    if counted != given("window") || !(counted || given("concurrency")) {
        refuse(errors, &key_at, "window", "what `max` and `budget` count in (ms): a limit has `max` and `window`, `budget` and `window`, or `concurrency`");
    }
    if matches!(map.get("cost"), Some(Value::Function(_))) && !given("budget") {
        refuse(errors, &key_at, "cost", "spent from a `budget`, and this limit has none");
    }
    let id = match map.get("id") {
        None => None,
        Some(Value::String(id)) if !crate::strs::trim(id).is_empty() => Some(id.clone()),
        Some(_) => {
            refuse(errors, &key_at, "id", "a non-empty string");
            None
        }
    };
    let identity: Rc<str> = match &id {
        Some(id) => cat!["=", id],
        None => cat!["#", decimal_usize(index)],
    }
    .into();
    let [max, budget, concurrency, window] = numbers;
    let [per, ask] = choices;
    Some(Limit { matcher: matcher?, per, bounds: [max, budget, concurrency], window, cost, ask: ask == 1, id, identity, hint: Cell::new(index) })
}

/// Whether limit `a` refuses every call `b` would, given that `a` selects every tool `b` does
/// (lint's `shadowed_limit`): the same key, each bound of `b` matched by one of `a` at least as
/// tight (the same window for `max` and `budget`, the same cost for `budget`), and `a` a deny
/// limit unless both ask.
pub(crate) fn covers(a: &Limit, b: &Limit) -> bool {
    let mut tighter = a.per == b.per && (!a.ask || b.ask) && (b.window == 0.0 || a.window == b.window) && (b.bounds[1] == 0.0 || a.cost == b.cost);
    for (mine, theirs) in a.bounds.iter().zip(&b.bounds) {
        tighter &= *theirs == 0.0 || (*mine > 0.0 && mine <= theirs);
    }
    tighter
}

/// What the book needs to know of a call.
#[derive(Debug, Clone, Copy)]
pub struct LimitFacts<'a> {
    /// Who the call is for.
    pub principal: Option<&'a str>,
    /// The tool's name.
    pub tool: &'a str,
    /// The time on the TS layer's clock.
    pub now_ms: f64,
}

/// What checking a call's limits came to.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Every limit had room. When counting, the call was counted; it holds these keys'
    /// concurrency until it ends ([`LimitBook::release`]).
    Pass(Vec<Held>),
    /// The call would pass limit `index` (`decision.limit`, as [`Hit`] says it); nothing was
    /// counted.
    Exceeded(Hit),
    /// The cost function with this handle must be called first.
    NeedCost(u32),
}

/// A limit a call would pass.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// The limit's index in `limits`.
    pub index: usize,
    /// Its id.
    pub id: Option<String>,
    /// `onExceeded: 'ask'`.
    pub ask: bool,
    /// Which bound: `calls`, `budget`, `concurrency`, `cost_failed` (its cost function failed)
    /// or `keys` (the book is full and the call's key is not in it).
    pub kind: &'static str,
    /// What it counts apart: `page`, `principal` or `tool`.
    pub per: &'static str,
    /// What the key used of the bound before this call.
    pub used: f64,
    /// The bound (`0` for a failed cost or a full book).
    pub max: f64,
}

impl Hit {
    /// The limit's decision as the core reads it (`Decision::by_limit`): `{ ask, index, id?,
    /// explanation, limit: { kind, per, used, max } }`. The explanation says how much of what
    /// the key used: `Denied by limits[0] ("rate"): 2 of 2 calls used per principal.`
    pub fn to_value(&self) -> Value {
        let label = match &self.id {
            Some(id) => cat!["limits[", decimal_usize(self.index), "] (\"", id, "\")"],
            None => cat!["limits[", decimal_usize(self.index), "]"],
        };
        let said = match self.kind {
            "cost_failed" => ", failing closed because its cost function failed".into(),
            "keys" => ", failing closed because too many keys are counted".into(),
            kind => cat![": ", whole(self.used), " of ", whole(self.max), if kind == "concurrency" { " calls in flight" } else if kind == "budget" { " of the budget" } else { " calls" }, " used per ", self.per],
        };
        let mut map = Map::new();
        map.insert("ask", self.ask.into());
        map.insert("index", self.index.into());
        map.insert_some("id", self.id.as_deref());
        map.insert("explanation", cat![if self.ask { "Asked" } else { "Denied" }, " by ", label, said, "."].into());
        map.insert("limit", crate::object! { "kind" => self.kind, "per" => self.per, "used" => self.used, "max" => self.max });
        Value::Object(map)
    }
}

/// A number as whole digits, rounded up (`8 of 10 of the budget`, never `0 of 1` for 0.4).
#[allow(clippy::arithmetic_side_effects)] // floating point: no overflow; `as` saturates
fn whole(value: f64) -> String {
    let mut digits = value as u64;
    if (digits as f64) < value {
        digits = digits.saturating_add(1);
    }
    crate::strs::decimal(digits)
}

/// A key whose concurrency a call holds: the limit's identity and the key (`None`: no principal
/// or `per: 'page'`), both shared with the book, and where the book held its counter then (a
/// guess, checked by identity at release: keys are inserted and states dropped meanwhile).
#[derive(Debug, Clone, PartialEq)]
pub struct Held {
    identity: Rc<str>,
    key: Option<Rc<str>>,
    state_at: usize,
    key_at: usize,
}

/// One key's counts: calls and cost per slot, and calls in flight.
#[derive(Debug, Clone, Default)]
struct Counter {
    /// The newest slot counted, in slots since the epoch.
    newest: i64,
    /// Its position in the ring (`ring_at(newest)`), so counting a call divides nothing.
    newest_at: usize,
    calls: [f64; RING],
    spent: [f64; RING],
    /// What the ring holds, `(calls, cost)`: added to as calls are counted, summed again when
    /// the ring moves (a check reads it without walking the ring).
    total: (f64, f64),
    in_flight: u32,
}

/// The ring position of slot `slot` (`rem_euclid` by a positive constant: never a panic).
fn ring_at(slot: i64) -> usize {
    usize::try_from(slot.rem_euclid(RING as i64)).unwrap_or(0)
}

impl Counter {
    /// A counter whose newest slot is `slot`, nothing counted.
    fn starting(slot: i64) -> Counter {
        Counter { newest: slot, newest_at: ring_at(slot), ..Counter::default() }
    }

    /// Moves the ring to `slot`, emptying the slots that left the window (a slot older than the
    /// newest, from a clock that went back, counts as the newest); answers what the ring holds:
    /// `(calls, cost)`.
    #[allow(clippy::arithmetic_side_effects)] // floating point: no overflow
    fn advance(&mut self, slot: i64) -> (f64, f64) {
        if slot > self.newest {
            let mut step = self.newest;
            while step < slot && step < self.newest.saturating_add(RING as i64) {
                step = step.saturating_add(1);
                let at = ring_at(step);
                for ring in [&mut self.calls, &mut self.spent] {
                    if let Some(count) = ring.get_mut(at) {
                        *count = 0.0;
                    }
                }
            }
            self.newest = slot;
            self.newest_at = ring_at(slot);
            let (mut calls, mut spent) = (0.0, 0.0);
            for at in 0..RING {
                calls += self.calls.get(at).copied().unwrap_or(0.0);
                spent += self.spent.get(at).copied().unwrap_or(0.0);
            }
            self.total = (calls, spent);
        }
        self.total
    }

    /// Counts a call of cost `cost` in the newest slot.
    #[allow(clippy::arithmetic_side_effects)] // floating point: no overflow
    fn add(&mut self, cost: f64) {
        let at = self.newest_at;
        if let (Some(calls), Some(spent)) = (self.calls.get_mut(at), self.spent.get_mut(at)) {
            *calls += 1.0;
            *spent += cost;
        }
        self.total.0 += 1.0;
        self.total.1 += cost;
    }
}

/// The counts of one limit.
#[derive(Debug, Clone)]
struct LimitState {
    identity: Rc<str>,
    per: usize,
    window: f64,
    /// By principal or tool name.
    named: VecMap<Rc<str>, Counter>,
    /// Calls without a principal, or every call of a `per: 'page'` limit.
    anonymous: Counter,
}

impl LimitState {
    fn fits(&self, limit: &Limit) -> bool {
        (Rc::ptr_eq(&self.identity, &limit.identity) || self.identity == limit.identity) && self.per == limit.per && self.window == limit.window
    }

    /// The slot `now` falls in.
    #[allow(clippy::arithmetic_side_effects)] // floating point: no overflow; `as` saturates
    fn slot(&self, now: f64) -> i64 {
        if self.window > 0.0 {
            (now * SLOTS as f64 / self.window) as i64
        } else {
            0
        }
    }

    /// The counter of `key` and the key as the book holds it, made when `add` says so (then
    /// `made` is set).
    fn counter(&mut self, key: Option<&str>, add: bool, slot: i64, made: &mut bool) -> Option<(Option<&Rc<str>>, &mut Counter)> {
        let Some(key) = key else { return Some((None, &mut self.anonymous)) };
        let at = match self.named.find(key) {
            Ok(at) => at,
            Err(at) if add => {
                *made = true;
                self.named.insert_at(at, key.into(), Counter::starting(slot))
            }
            Err(_) => return None,
        };
        self.named.get_at_mut(at).map(|(key, counter)| (Some(key), counter))
    }
}

/// What a call costs against `limit`'s budget: `Ok(Some)` a number (a fixed one, or its cost
/// function's answer in `costs`), `Ok(None)` its function failed (or there is no budget to ask
/// one for), `Err(handle)` its function must be asked first.
fn cost_of(limit: &Limit, costs: &[(u32, Option<f64>)]) -> Result<Option<f64>, u32> {
    match limit.cost {
        Ok(fixed) => Ok(Some(fixed)),
        Err(handle) => {
            for (function, answer) in costs {
                if *function == handle {
                    return Ok(*answer);
                }
            }
            if limit.bounds[1] > 0.0 {
                Err(handle)
            } else {
                Ok(None)
            }
        }
    }
}

/// The key `limit` counts a call by: the principal, the tool's name, or none (`per: 'page'`, or
/// no principal).
fn key_of<'a>(limit: &Limit, facts: &LimitFacts<'a>) -> Option<&'a str> {
    match limit.per {
        1 => facts.principal,
        2 => Some(facts.tool),
        _ => None,
    }
}

/// Where a check found one limit's counts: the state's index, the key's place (`find`'s
/// answer; `None`: the anonymous counter), the slot of the call's time.
type Found = (usize, Option<Result<usize, usize>>, i64);

/// What the book's `found` was found for: a check of the same limits, principal and tool, while
/// no state or key has been added or dropped since (`layout` unchanged), finds the same places
/// and looks nothing up again.
#[derive(Debug, Clone, Default)]
struct FoundFor {
    /// Whether `found` is complete for what this says (not when a check stopped for a cost).
    valid: bool,
    layout: u64,
    matched: Vec<usize>,
    principal: Option<String>,
    tool: String,
}

impl FoundFor {
    fn is(&self, layout: u64, matched: &[usize], facts: &LimitFacts<'_>) -> bool {
        self.valid && self.layout == layout && self.matched == matched && self.principal.as_deref() == facts.principal && self.tool == facts.tool
    }

    fn set(&mut self, layout: u64, matched: &[usize], facts: &LimitFacts<'_>) {
        self.valid = true;
        self.layout = layout;
        self.matched.clear();
        self.matched.extend_from_slice(matched);
        match (&mut self.principal, facts.principal) {
            (Some(mine), Some(theirs)) => {
                mine.clear();
                mine.push_str(theirs);
            }
            (mine, theirs) => *mine = theirs.map(String::from),
        }
        self.tool.clear();
        self.tool.push_str(facts.tool);
    }
}

/// The counts of every limit of one page (one client), kept across policy changes for limits
/// of the same identity, `per` and `window`.
#[derive(Debug, Clone, Default)]
pub struct LimitBook {
    states: Vec<LimitState>,
    /// How many named keys all states hold.
    keys: usize,
    /// Prune when `keys` reaches this.
    prune_at: usize,
    /// When the book was last pruned while full.
    pruned_full_at: f64,
    /// Changed whenever a state or a key is added or dropped (the places in `found` move).
    layout: u64,
    /// Where the last check found each limit's state and key and the slot of the call's time, so
    /// counting the call looks nothing up and divides nothing again, and the next check of the
    /// same call shape neither. Kept to be reused.
    found: Vec<Found>,
    /// What `found` holds the places for.
    found_for: FoundFor,
    /// The time of the check that found them.
    found_now: f64,
}

impl LimitBook {
    /// An empty book.
    pub fn new() -> LimitBook {
        LimitBook::default()
    }

    /// Keeps the counts of the limits `limits` has; the others go.
    pub fn align(&mut self, limits: &[Limit]) {
        self.states.retain(|state| limits.iter().any(|limit| state.fits(limit)));
        self.count_keys();
        self.moved();
    }

    /// How many keys the book counts.
    pub fn len(&self) -> usize {
        self.keys
    }

    /// Whether it counts none.
    pub fn is_empty(&self) -> bool {
        self.keys == 0
    }

    fn count_keys(&mut self) {
        let mut keys = 0usize;
        for state in &self.states {
            keys = keys.saturating_add(state.named.len());
        }
        self.keys = keys;
    }

    /// Notes that states or keys moved: places found before are to be found again.
    fn moved(&mut self) {
        self.layout = self.layout.wrapping_add(1);
    }

    /// Where the state of `limit` is (where it was last found, else looked up), made when missing.
    fn state_at(&mut self, limit: &Limit) -> usize {
        let mut at = limit.hint.get();
        if !self.states.get(at).is_some_and(|state| state.fits(limit)) {
            at = self.states.len();
            for (position, state) in self.states.iter().enumerate() {
                if state.fits(limit) {
                    at = position;
                }
            }
            if at == self.states.len() {
                self.states.push(LimitState { identity: limit.identity.clone(), per: limit.per, window: limit.window, named: VecMap::new(), anonymous: Counter::default() });
                self.moved();
            }
            limit.hint.set(at);
        }
        at
    }

    /// Drops keys with nothing counted and no call in flight; answers how many went.
    pub fn prune(&mut self, now_ms: f64) -> usize {
        let before = self.keys;
        for state in &mut self.states {
            let slot = state.slot(now_ms);
            state.named.retain(|_, counter| counter.in_flight > 0 || slot.saturating_sub(counter.newest) < RING as i64);
        }
        self.count_keys();
        if self.keys != before {
            self.moved();
        }
        self.prune_at = self.keys.saturating_mul(2).clamp(1024, MAX_KEYS);
        if self.keys >= MAX_KEYS {
            self.pruned_full_at = now_ms;
        }
        before.saturating_sub(self.keys)
    }

    /// Checks `limits` (the indexes in `matched` apply to the call) and, when `count` is set and
    /// every one has room, counts the call. `costs` are the answers of the cost functions asked
    /// so far (`None`: it failed).
    pub fn check(&mut self, limits: &[Limit], matched: &[usize], facts: &LimitFacts<'_>, costs: &[(u32, Option<f64>)], count: bool) -> Verdict {
        self.check_into(limits, matched, facts, costs, count, Vec::new())
    }

    /// [`LimitBook::check`], with the keys a counted call holds written into `held` (emptied
    /// first): a caller that keeps the vectors of ended calls reuses them.
    #[allow(clippy::arithmetic_side_effects)] // floating point: no overflow
    pub fn check_into(&mut self, limits: &[Limit], matched: &[usize], facts: &LimitFacts<'_>, costs: &[(u32, Option<f64>)], count: bool, mut held: Vec<Held>) -> Verdict {
        held.clear();
        let now = facts.now_ms;
        if self.keys >= self.prune_at && (self.keys < MAX_KEYS || now >= self.pruned_full_at + FULL_PRUNE_MS || now.is_nan()) {
            self.prune(now);
        }
        let full = self.keys >= MAX_KEYS;
        let mut hit: Option<Hit> = None;
        // The places the last check found serve again for a call of the same shape: no state
        // or key lookup then, only the slot of this call's time.
        let known = self.found_for.is(self.layout, matched, facts);
        let mut found = core::mem::take(&mut self.found);
        if !known {
            found.clear();
            self.found_for.valid = false;
        }
        // First over the limits, to find one the call would pass; then (none found, and
        // counting) over the same states and keys again, to count it.
        let mut entry = 0usize;
        for &index in matched {
            let Some(limit) = limits.get(index) else { continue };
            let cost = match cost_of(limit, costs) {
                Ok(cost) => cost,
                Err(handle) => {
                    // Its places are incomplete: the next check finds them again.
                    self.found_for.valid = false;
                    self.found = found;
                    return Verdict::NeedCost(handle);
                }
            };
            // A place found before, while its state is still this limit's (checked: a policy
            // compiled again without `align` has limits of its own).
            let before = found.get(entry).filter(|&&(state_at, _, _)| known && self.states.get(state_at).is_some_and(|state| state.fits(limit)));
            let (state_at, at) = match before {
                Some(&(state_at, at, _)) => (state_at, at),
                None => {
                    let state_at = self.state_at(limit);
                    let key = key_of(limit, facts);
                    (state_at, key.map(|key| self.states.get(state_at).map_or(Err(0), |state| state.named.find(key))))
                }
            };
            let Some(state) = self.states.get_mut(state_at) else {
                self.found = found;
                return Verdict::Pass(held);
            };
            // The same time as the check before finds the same slot (many calls share a ms).
            let slot = match before {
                Some(&(_, _, slot)) if now == self.found_now => slot,
                _ => state.slot(now),
            };
            let counter = match at {
                None => Some(&mut state.anonymous),
                Some(Ok(at)) => state.named.get_at_mut(at).map(|(_, counter)| counter),
                Some(Err(_)) => None,
            };
            let (counted, calls, spent, in_flight) = match counter {
                Some(counter) => {
                    let (calls, spent) = counter.advance(slot);
                    (true, calls, spent, f64::from(counter.in_flight))
                }
                // A key not counted yet (counting makes it).
                None => (false, 0.0, 0.0, 0.0),
            };
            match found.get_mut(entry) {
                Some(place) if known => *place = (state_at, at, slot),
                _ => found.push((state_at, at, slot)),
            }
            entry = entry.saturating_add(1);
            let [max, budget, most] = limit.bounds;
            let over = if full && !counted {
                Some(("keys", 0.0, 0.0))
            } else if max > 0.0 && calls + 1.0 > max {
                Some(("calls", calls, max))
            } else if budget > 0.0 && cost.is_none() {
                Some(("cost_failed", spent, budget))
            } else if budget > 0.0 && spent + cost.unwrap_or(0.0) > budget {
                Some(("budget", spent, budget))
            } else if most > 0.0 && in_flight + 1.0 > most {
                Some(("concurrency", in_flight, most))
            } else {
                None
            };
            // The first deny limit decides; an ask limit only until a deny limit is found.
            if let Some((kind, used, max)) = over {
                if hit.as_ref().is_none_or(|first| first.ask && !limit.ask) {
                    let per = PER.get(limit.per).copied().unwrap_or_default();
                    hit = Some(Hit { index, id: limit.id.clone(), ask: limit.ask, kind, per, used, max });
                }
            }
        }
        if !known {
            self.found_for.set(self.layout, matched, facts);
        }
        self.found_now = now;
        if let Some(hit) = hit {
            self.found = found;
            return Verdict::Exceeded(hit);
        }
        if count {
            let mut entries = found.iter();
            for &index in matched {
                let Some(limit) = limits.get(index) else { continue };
                let Some(&(state_at, at, slot)) = entries.next() else { break };
                let cost = cost_of(limit, costs).ok().flatten().unwrap_or(0.0);
                let Some(state) = self.states.get_mut(state_at) else { continue };
                let (key_at, counter) = match (at, key_of(limit, facts)) {
                    (Some(Ok(at)), _) => (at, state.named.get_at_mut(at)),
                    (Some(Err(at)), Some(key)) => {
                        self.keys = self.keys.saturating_add(1);
                        // The keys after it move: the next check finds its places again.
                        self.layout = self.layout.wrapping_add(1);
                        let at = state.named.insert_at(at, key.into(), Counter::starting(slot));
                        (at, state.named.get_at_mut(at))
                    }
                    _ => (usize::MAX, None),
                };
                let (key, counter) = match counter {
                    Some((key, counter)) => (Some(key), counter),
                    None if at.is_none() => (None, &mut state.anonymous),
                    None => continue,
                };
                counter.advance(slot);
                counter.add(cost);
                if limit.bounds[2] > 0.0 {
                    counter.in_flight = counter.in_flight.saturating_add(1);
                    // The state's own identity (the limit may be a newer policy's, of the same one).
                    held.push(Held { identity: state.identity.clone(), key: key.cloned(), state_at, key_at });
                }
            }
        }
        self.found = found;
        Verdict::Pass(held)
    }

    /// Ends the calls in flight a call held.
    pub fn release(&mut self, held: &[Held]) {
        for Held { identity, key, state_at, key_at } in held {
            // Where the counter was when the call was counted, if it is still there (the same
            // state and key, by identity); else where it went.
            let there = self.states.get_mut(*state_at).filter(|state| Rc::ptr_eq(&state.identity, identity)).and_then(|state| match key {
                None => Some(&mut state.anonymous),
                Some(key) => state.named.get_at_mut(*key_at).filter(|(known, _)| Rc::ptr_eq(known, key)).map(|(_, counter)| counter),
            });
            if let Some(counter) = there {
                counter.in_flight = counter.in_flight.saturating_sub(1);
                continue;
            }
            for state in &mut self.states {
                if Rc::ptr_eq(&state.identity, identity) {
                    if let Some((_, counter)) = state.counter(key.as_deref(), false, 0, &mut false) {
                        counter.in_flight = counter.in_flight.saturating_sub(1);
                    }
                }
            }
        }
    }

    /// Forgets every count.
    pub fn clear(&mut self) {
        self.states.clear();
        self.keys = 0;
        self.moved();
    }
}
