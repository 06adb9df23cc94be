//! Hook sets: the events, the entry options, and their checks at the moment hooks are given.
//!
//! Tools have five events; resources and prompts (MCP-B's, `docs/resources-and-prompts.md`)
//! one each, `resourceRead` and `promptGet`, which gate a read or a get the way `before` gates a
//! call (ConduitMCP's `:on_resource_read` / `:on_prompt_get`). Which events a call runs is its
//! [`Subject`]'s. `resourceRead` hooks match the URI read (URI matchers, [`Matcher::compile_uri`]);
//! every other event matches names.
//!
//! The TS layer keeps the hook functions and sends the hooks object as it is, each function
//! replaced by a handle it chose ([`Value::Function`]); the core checks every entry, compiles
//! its matcher once, and records which handle is which hook, for plans and calls to refer to.

use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec::Vec;

use crate::error::ConfigError;
use crate::matcher::Matcher;
use crate::strs::{cat, decimal_usize};
use crate::value::{Map, Value};

/// A hook event (`docs/behaviour.md`, "Hooks").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Event {
    /// Before the tool: may rewrite the input, deny, or halt with a result.
    Before = 0,
    /// After the tool returned: may rewrite the output.
    After = 1,
    /// After the call failed: may recover with a result.
    Error = 2,
    /// After a denial: observes only.
    Denied = 3,
    /// When tools are listed: may drop or annotate tools.
    ToolsListed = 4,
    /// Before a resource is read: may deny.
    ResourceRead = 5,
    /// Before a prompt is got: may rewrite its arguments (`{ args }`) or deny.
    PromptGet = 6,
}

impl Event {
    /// Every event, in the order entries are numbered in a hook set.
    pub const ALL: [Event; 7] = [Event::Before, Event::After, Event::Error, Event::Denied, Event::ToolsListed, Event::ResourceRead, Event::PromptGet];

    /// The event's name in the JS API.
    pub fn name(self) -> &'static str {
        match self {
            Event::Before => "before",
            Event::After => "after",
            Event::Error => "error",
            Event::Denied => "denied",
            Event::ToolsListed => "toolsListed",
            Event::ResourceRead => "resourceRead",
            Event::PromptGet => "promptGet",
        }
    }

    /// Whether this event runs the onion inside out (tool → scoped → global).
    pub fn runs_reversed(self) -> bool {
        matches!(self, Event::After | Event::Error | Event::Denied)
    }

    fn from_name(name: &str) -> Option<Event> {
        // Loops rather than `find` here: each closure handed to an adapter is a generic
        // instance of its own in the wasm module.
        for event in &Event::ALL {
            if event.name() == name {
                return Some(*event);
            }
        }
        None
    }
}

/// What a governed call is about: which events it runs, and which one gates it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Subject {
    /// A tool call (`webmcp()`).
    #[default]
    Tool = 0,
    /// A resource read (`webmcpResource()`).
    Resource = 1,
    /// A prompt get (`webmcpPrompt()`).
    Prompt = 2,
}

impl Subject {
    /// Decodes a wire code.
    pub fn from_code(code: u32) -> Option<Subject> {
        match code {
            0 => Some(Subject::Tool),
            1 => Some(Subject::Resource),
            2 => Some(Subject::Prompt),
            _ => None,
        }
    }

    /// The event that gates the call, where a tool call runs its `before` hooks.
    pub fn gate(self) -> Event {
        match self {
            Subject::Tool => Event::Before,
            Subject::Resource => Event::ResourceRead,
            Subject::Prompt => Event::PromptGet,
        }
    }

    /// What it is called in messages.
    pub fn noun(self) -> &'static str {
        match self {
            Subject::Tool => "tool",
            Subject::Resource => "resource",
            Subject::Prompt => "prompt",
        }
    }

    /// Whether its calls run hooks of `event`: a tool's five events, a resource's or a prompt's gate.
    pub fn runs(self, event: Event) -> bool {
        match self {
            Subject::Tool => !matches!(event, Event::ResourceRead | Event::PromptGet),
            _ => event == self.gate(),
        }
    }
}

/// What happens when an `after` or `error` hook fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnError {
    /// Fail closed (default): an after-hook failure withholds the result.
    Fail,
    /// Skip the hook as if it had returned nothing.
    Ignore,
}

/// One checked hook entry.
#[derive(Debug, Clone)]
pub struct Hook {
    /// The handle the TS layer stores the hook's function under.
    pub handle: u32,
    /// The event it belongs to.
    pub event: Event,
    /// Its index in the event's array as given.
    pub index: usize,
    /// Which tools it applies to.
    pub matcher: Matcher,
    /// The id the user gave, if any (default ids depend on the merged plan).
    pub id: Option<String>,
    /// Its own deadline in milliseconds, if it has one.
    pub timeout_ms: Option<f64>,
    /// What a failure does.
    pub on_error: OnError,
}

/// A checked hook set: the hooks of one `hooks` object, in event order, then declaration order.
#[derive(Debug, Clone, Default)]
pub struct HookSet {
    /// The hooks, numbered from the set's first handle.
    pub hooks: Vec<Hook>,
}

const ENTRY_KEYS: [&str; 5] = ["run", "match", "id", "timeout", "onError"];

/// The longest deadline in milliseconds a hook (or any duration the TS layer hands a timer) may
/// have: 2^31 − 1, the largest delay `setTimeout` holds. A longer one would not wait longer: the
/// timer fires at once, so every call would time out (docs/behaviour.md, "Timeouts").
pub const MAX_TIMER_MS: u32 = 0x7fff_ffff;

impl HookSet {
    /// Checks and compiles a hooks object as the TS layer sends it (see the module docs): each
    /// hook's function is a [`Value::Function`] whose handle becomes the hook's handle.
    ///
    /// `label` names the set in messages (`hooks` for `configureWebMCP`, `tool "x" hooks`, …).
    ///
    /// # Errors
    /// The first problem found, as a [`ConfigError`] whose path names the event and the entry
    /// (`hooks.before[1]`).
    pub fn compile(spec: &Value, label: &str) -> Result<HookSet, ConfigError> {
        let events = match spec {
            Value::Object(events) => events,
            Value::Null => return Ok(HookSet::default()),
            other => {
                return Err(ConfigError::new(
                    "invalid_hooks",
                    cat!["hooks must be an object of event arrays, not ", other.type_name()],
                )
                .at(label))
            }
        };
        for (unknown, _) in events.iter() {
            if Event::from_name(unknown).is_none() {
                return Err(ConfigError::new(
                    "unknown_hook_event",
                    cat!["unknown hook event \"", unknown, "\" (expected before, after, error, denied, toolsListed, resourceRead, promptGet)"],
                )
                .at(label));
            }
        }
        let mut hooks: Vec<Hook> = Vec::new();
        for &event in &Event::ALL {
            let entries = match events.get(event.name()) {
                None | Some(Value::Null) => continue,
                Some(Value::Array(entries)) => entries,
                Some(other) => {
                    return Err(ConfigError::new("invalid_hooks", cat!["must be an array of hooks, not ", other.type_name()])
                        .at(&cat![label, ".", event.name()]));
                }
            };
            for (index, entry) in entries.iter().enumerate() {
                let path = cat![label, ".", event.name(), "[", decimal_usize(index), "]"];
                let hook = compile_entry(entry, event, index).map_err(|err| err.at(&path))?;
                if hooks.iter().any(|other| other.handle == hook.handle) {
                    return Err(ConfigError::new("invalid_hook", "the same hook handle twice in one set".into()).at(&path));
                }
                hooks.push(hook);
            }
        }
        let set = HookSet { hooks };
        set.check_unique_ids(&[], label)?;
        Ok(set)
    }

    /// Fails when an explicit id repeats inside this set or appears in `others`.
    ///
    /// # Errors
    /// `duplicate_hook_id` naming the id and the entry.
    pub fn check_unique_ids(&self, others: &[&Hook], label: &str) -> Result<(), ConfigError> {
        let mut seen: Vec<&str> = Vec::new();
        for hook in others {
            if let Some(id) = hook.id.as_deref() {
                seen.push(id);
            }
        }
        for hook in &self.hooks {
            if let Some(id) = hook.id.as_deref() {
                if seen.contains(&id) {
                    return Err(ConfigError::new(
                        "duplicate_hook_id",
                        cat!["hook id \"", id, "\" is already used; ids must be unique across global, scoped and tool hooks"],
                    )
                    .at(&cat![label, ".", hook.event.name(), "[", decimal_usize(hook.index), "]"]));
                }
                seen.push(id);
            }
        }
        Ok(())
    }
}

fn compile_entry(entry: &Value, event: Event, index: usize) -> Result<Hook, ConfigError> {
    let hook = |handle: u32| Hook { handle, event, index, matcher: Matcher::all(), id: None, timeout_ms: None, on_error: OnError::Fail };
    let desc = match entry {
        Value::Function(handle) => return Ok(hook(*handle)),
        Value::Object(desc) => desc,
        other => return Err(not_a_hook(other)),
    };
    if let Some(unknown) = desc.unknown_key(&ENTRY_KEYS) {
        return Err(ConfigError::new(
            "unknown_hook_option",
            cat!["unknown hook option \"", unknown, "\" (expected run, match, id, timeout, onError)"],
        ));
    }
    let mut hook = match desc.get("run") {
        Some(Value::Function(handle)) => hook(*handle),
        None => return Err(ConfigError::new("invalid_hook", "a hook object needs `run`, a function".into())),
        Some(other) => return Err(ConfigError::new("invalid_hook", cat!["`run` must be a function, not ", other.type_name()])),
    };
    if let Some(spec) = present(desc, "match") {
        let compiled = if event == Event::ResourceRead { Matcher::compile_uri(spec) } else { Matcher::compile(spec) };
        hook.matcher = compiled.map_err(|err| err.at("match"))?;
    }
    if let Some(id) = present(desc, "id") {
        match id {
            // `<event>:<index>` is the form of default ids, which count positions in a merged
            // plan: an explicit one could collide with a default id only when a call is planned,
            // too late to throw (duplicates are refused when the hooks are given).
            Value::String(id) if is_default_id_form(id) => {
                return Err(ConfigError::new(
                    "invalid_hook",
                    cat!["`id` \"", id, "\" is reserved: ids of the form \"<event>:<index>\" are the default ids"],
                ))
            }
            Value::String(id) if !id.is_empty() => hook.id = Some(id.clone()),
            other => return Err(ConfigError::new("invalid_hook", cat!["`id` must be a non-empty string, not ", describe(other)])),
        }
    }
    if let Some(timeout) = present(desc, "timeout") {
        match timeout.as_f64() {
            // NaN and Infinity fail a comparison, so no `is_finite` is needed.
            Some(ms) if ms > 0.0 && ms <= f64::from(MAX_TIMER_MS) => hook.timeout_ms = Some(ms),
            _ => {
                return Err(ConfigError::new(
                    "invalid_hook",
                    cat!["`timeout` must be a positive number of milliseconds (at most 2147483647), not ", describe(timeout)],
                ))
            }
        }
    }
    if let Some(on_error) = present(desc, "onError") {
        if !matches!(event, Event::After | Event::Error) {
            return Err(ConfigError::new(
                "invalid_hook",
                cat!["`onError` is only for after and error hooks, not ", event.name(), " hooks"],
            ));
        }
        hook.on_error = match on_error.as_str() {
            Some("fail") => OnError::Fail,
            Some("ignore") => OnError::Ignore,
            _ => return Err(ConfigError::new("invalid_hook", cat!["`onError` must be 'fail' or 'ignore', not ", describe(on_error)])),
        };
    }
    Ok(hook)
}

/// Whether `id` has the form of a default id: an event name, `:`, and decimal digits.
fn is_default_id_form(id: &str) -> bool {
    let Some((event, index)) = crate::strs::split_byte(id, b':') else { return false };
    if Event::from_name(event).is_none() || index.is_empty() {
        return false;
    }
    for b in index.bytes() {
        if !b.is_ascii_digit() {
            return false;
        }
    }
    true
}

/// An option that is present and not `undefined` (the TS layer leaves `undefined` out).
fn present<'a>(desc: &'a Map, key: &str) -> Option<&'a Value> {
    desc.get(key)
}

fn not_a_hook(entry: &Value) -> ConfigError {
    ConfigError::new(
        "invalid_hook",
        cat!["a hook must be a function or { run, match?, id?, timeout?, onError? }, not ", entry.type_name()],
    )
}

/// How a value the TS layer sent reads in a message. Fractions are not spelled out (that would
/// need float formatting in the core; the path already says where the value is).
fn describe(value: &Value) -> String {
    match value {
        Value::String(text) => cat!["\"", text, "\""],
        Value::Bool(flag) => if *flag { "true" } else { "false" }.to_owned(),
        Value::Number(number) => crate::value::integer_text(*number).unwrap_or_else(|| "a number".to_owned()),
        other => other.type_name().to_owned(),
    }
}
