//! The page's governance state: policy, fingerprint baselines and pins, grants, and the tool
//! filter.
//!
//! The engine asks it for the facts policy decides on: whether a tool's definition is the
//! approved one, whether it is new, whether a live grant covers the call, whether a tool is
//! visible at all.
//!
//! Baselines (`docs/behaviour.md`, "Fingerprint baselines"): by default each tool name's
//! baseline is the definition it had when first seen (registration, listing or policy
//! evaluation), so a re-registered tool with another definition meets the pin. With
//! `approvedFingerprints: { name: fingerprint }` the map is the baseline and a tool outside it
//! is new. With `approvedFingerprints: 'first_listing'` the baseline is sealed at the first
//! listing or the first agent call, whichever comes first ([`Governor::seal_baseline`]): a
//! tool first seen after that is new, and `allowNewTools` decides.

use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec::Vec;

use crate::vec_map::VecMap;
use alloc::rc::Rc;

use crate::digest::{changed_fields, FieldDigests, FieldTexts};
use crate::error::ConfigError;
use crate::matcher::{Matcher, Target};
use crate::policy::{FingerprintState, GrantBook, Policy};
use crate::strs::{cat, decimal_usize};
use crate::value::Value;

/// A tool's definition as governance sees it: its name, annotations and fingerprint.
#[derive(Debug, Clone)]
pub struct Definition {
    /// The tool's name.
    pub name: String,
    /// The tool's annotations (for `annotation` predicates), or `Null`.
    pub annotations: Value,
    /// Lowercase hex SHA-256 of the RFC 8785 text of the fingerprinted fields.
    pub fingerprint: String,
    /// Each field's digest, to tell which fields changed.
    fields: FieldDigests,
}

impl Definition {
    /// Reads `{ name, annotations?, canonical: { name, title?, description?, inputSchema?,
    /// outputSchema?, annotations? } }`, where each member of `canonical` is the RFC 8785 text
    /// of that definition field (the TS layer writes it), and fingerprints it.
    ///
    /// # Errors
    /// `invalid_definition` when it is not such an object.
    pub fn from_value(value: &Value) -> Result<Definition, ConfigError> {
        let invalid = |message: String| ConfigError::new("invalid_definition", message);
        let name = value.get("name").and_then(Value::as_str).ok_or_else(|| invalid("the tool definition needs a name".into()))?;
        let texts = value
            .get("canonical")
            .ok_or_else(|| invalid("the tool definition has no canonical fields".into()))
            .and_then(|canonical| FieldTexts::from_value(canonical).map_err(invalid))?;
        let annotations = match value.get("annotations") {
            None => Value::Null,
            Some(annotations) => annotations.clone(),
        };
        Ok(Definition::new(name, annotations, &texts))
    }

    /// A definition from its parts.
    pub fn new(name: &str, annotations: Value, texts: &FieldTexts) -> Definition {
        Definition { name: name.to_owned(), annotations, fingerprint: texts.fingerprint(), fields: texts.digests() }
    }

    /// The tool's annotations, or `Null`.
    pub fn annotations(&self) -> &Value {
        &self.annotations
    }
}

/// Which tools agents may see (`configureWebMCP({ tools: { include, exclude } })`).
#[derive(Debug, Clone, Default)]
struct ToolFilter {
    include: Option<Vec<Matcher>>,
    exclude: Vec<Matcher>,
}

/// What the baseline of approved definitions is.
#[derive(Debug, Clone, Default, PartialEq)]
enum Baseline {
    /// Each tool name at its first sight (the default).
    #[default]
    PerTool,
    /// An explicit `{ name: fingerprint }` map: tools outside it are new.
    Map(VecMap<String, String>),
    /// Every tool seen up to the first listing or agent call; `sealed` once that happened.
    FirstListing {
        /// Whether the first listing or agent call happened.
        sealed: bool,
    },
}

/// Policy, pins, grants and the tool filter of one page.
#[derive(Debug, Default)]
pub struct Governor {
    policy: Option<Rc<Policy>>,
    baseline: Baseline,
    /// The definition each tool name had when first seen; kept across unregister/register so
    /// a rug pull by re-registration is caught.
    baselines: VecMap<String, Definition>,
    filter: Option<ToolFilter>,
    grants: GrantBook,
    /// Development mode (`hotReload`): a changed definition becomes the tool's baseline instead
    /// of meeting the pin, because hot reload re-defines tools as their code is edited.
    rebaseline: bool,
}

impl Governor {
    /// The page's policy.
    pub fn policy(&self) -> Option<Rc<Policy>> {
        self.policy.clone()
    }

    /// Sets (or, with `Null`, removes) the policy.
    ///
    /// # Errors
    /// The policy's first problem, with the rule's path (`deny[1].when[0]`).
    pub fn set_policy(&mut self, spec: &Value) -> Result<(), ConfigError> {
        self.policy = match spec {
            Value::Null => None,
            spec => Some(Rc::new(Policy::compile(spec)?)),
        };
        Ok(())
    }

    /// Sets `approvedFingerprints`: an explicit `{ name: fingerprint }` map, `'first_listing'`,
    /// or `Null` for the default (each tool's baseline at its first sight). Setting
    /// `'first_listing'` starts unsealed: the next listing or agent call seals it.
    ///
    /// # Errors
    /// `invalid_config` for anything else, or a map whose values are not strings.
    pub fn set_approved(&mut self, spec: &Value) -> Result<(), ConfigError> {
        let at = "approvedFingerprints";
        self.baseline = match spec {
            Value::Null => Baseline::PerTool,
            Value::String(mode) if mode == "first_listing" => Baseline::FirstListing { sealed: false },
            Value::Object(map) => {
                let mut approved = VecMap::new();
                for (name, fingerprint) in map.iter() {
                    let Some(fingerprint) = fingerprint.as_str() else {
                        return Err(ConfigError::new("invalid_config", cat!["the fingerprint of \"", name, "\" must be a string"]).at(at));
                    };
                    approved.insert(name.clone(), fingerprint.to_ascii_lowercase());
                }
                Baseline::Map(approved)
            }
            Value::String(other) => {
                return Err(ConfigError::new(
                    "invalid_config",
                    cat!["must be an object of { name: fingerprint } or 'first_listing', not \"", other, "\""],
                )
                .at(at))
            }
            other => {
                return Err(ConfigError::new(
                    "invalid_config",
                    cat!["must be an object of { name: fingerprint } or 'first_listing', not ", other.type_name()],
                )
                .at(at))
            }
        };
        Ok(())
    }

    /// Seals the baseline of `approvedFingerprints: 'first_listing'` (the first listing or
    /// agent call); in the other modes it does nothing. Sealing again changes nothing.
    pub fn seal_baseline(&mut self) {
        if let Baseline::FirstListing { sealed } = &mut self.baseline {
            *sealed = true;
        }
    }

    /// Whether a sealed `'first_listing'` baseline is in force (no more baselines recorded).
    fn sealed(&self) -> bool {
        self.baseline == Baseline::FirstListing { sealed: true }
    }

    /// Sets (or, with `Null`, removes) the static tool filter `{ include?, exclude? }`, each a
    /// list of matchers.
    ///
    /// # Errors
    /// `invalid_config` or a matcher's error, with its path (`tools.exclude[0]`).
    pub fn set_filter(&mut self, spec: &Value) -> Result<(), ConfigError> {
        let map = match spec {
            Value::Null => {
                self.filter = None;
                return Ok(());
            }
            Value::Object(map) => map,
            other => {
                return Err(ConfigError::new(
                    "invalid_config",
                    cat!["must be { include?, exclude? } or a function (tool, ctx) => boolean, not ", other.type_name()],
                )
                .at("tools"))
            }
        };
        let list = |key: &str| -> Result<Option<Vec<Matcher>>, ConfigError> {
            match map.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::Array(items)) => {
                    let mut matchers = Vec::with_capacity(items.len());
                    for (index, item) in items.iter().enumerate() {
                        matchers.push(Matcher::compile(item).map_err(|err| err.at(&cat!["tools.", key, "[", decimal_usize(index), "]"]))?);
                    }
                    Ok(Some(matchers))
                }
                Some(other) => Err(ConfigError::new("invalid_config", cat!["must be an array of matchers, not ", other.type_name()])
                    .at(&cat!["tools.", key])),
            }
        };
        if let Some(unknown) = map.unknown_key(&["include", "exclude"]) {
            return Err(ConfigError::new("invalid_config", cat!["unknown key \"", unknown, "\" (expected include, exclude)"]).at("tools"));
        }
        self.filter = Some(ToolFilter { include: list("include")?, exclude: list("exclude")?.unwrap_or_default() });
        Ok(())
    }

    /// Whether the static filter lets agents see the tool. A `RegExp` that cannot test the
    /// name hides the tool (fail closed): it neither includes nor escapes an exclude.
    pub fn is_visible(&self, server: &str, name: &str) -> bool {
        let Some(filter) = &self.filter else { return true };
        let target = Target::new(server, name);
        let included = filter.include.as_ref().is_none_or(|include| include.iter().any(|m| m.test(&target) == Some(true)));
        included && !filter.exclude.iter().any(|m| m.test(&target) != Some(false))
    }

    /// Records the definition a tool name has the first time it is seen. Once a
    /// `'first_listing'` baseline is sealed, nothing more is recorded: a tool first seen after
    /// that stays new.
    pub fn record_baseline(&mut self, definition: &Definition) {
        if self.sealed() {
            return;
        }
        self.baseline_slot(definition);
    }

    /// The baseline of the definition's name, recorded now if there is none.
    fn baseline_slot(&mut self, definition: &Definition) -> Option<&mut Definition> {
        self.baselines.get_or_insert_with(definition.name.clone(), || definition.clone())
    }

    /// Development mode on or off (`configureWebMCP({ hotReload })`): while on, a tool whose
    /// definition changed since its recorded baseline takes the new definition as its baseline
    /// instead of meeting the pin. An explicit `approvedFingerprints` map is never rewritten.
    pub fn set_rebaseline(&mut self, on: bool) {
        self.rebaseline = on;
    }

    /// The tool's definition against the approved one, recording a baseline at first sight
    /// (except with an explicit map, which is the baseline). In development mode a changed
    /// definition replaces its recorded baseline and counts as unchanged.
    pub fn fingerprint_state(&mut self, definition: &Definition) -> FingerprintState {
        if matches!(self.baseline, Baseline::Map(_)) {
            return self.peek_fingerprint_state(definition);
        }
        self.record_baseline(definition);
        let state = self.peek_fingerprint_state(definition);
        if self.rebaseline && matches!(state, FingerprintState::Changed { .. }) {
            if let Some(base) = self.baseline_slot(definition) {
                *base = definition.clone();
            }
            return FingerprintState::Unchanged;
        }
        state
    }

    /// [`Governor::fingerprint_state`] without recording anything (for dry runs).
    pub fn peek_fingerprint_state(&self, definition: &Definition) -> FingerprintState {
        let name = &definition.name;
        let current = &definition.fingerprint;
        let changed_since = |base: Option<&Definition>| -> Vec<String> {
            base.map(|base| changed_fields(&base.fields, &definition.fields)).unwrap_or_default()
        };
        if let Baseline::Map(approved) = &self.baseline {
            return match approved.get(name) {
                Some(previous) if previous == current => FingerprintState::Unchanged,
                Some(previous) => FingerprintState::Changed {
                    previous: previous.clone(),
                    current: current.clone(),
                    changed: changed_since(self.baselines.get(name)),
                },
                None => FingerprintState::New,
            };
        }
        match self.baselines.get(name) {
            Some(base) if &base.fingerprint != current => FingerprintState::Changed {
                previous: base.fingerprint.clone(),
                current: current.clone(),
                changed: changed_since(Some(base)),
            },
            Some(_) => FingerprintState::Unchanged,
            None if self.sealed() => FingerprintState::New,
            None => FingerprintState::Unchanged,
        }
    }

    /// The page's grants.
    pub fn grants(&self) -> &GrantBook {
        &self.grants
    }

    /// The page's grants, to change.
    pub fn grants_mut(&mut self) -> &mut GrantBook {
        &mut self.grants
    }

    /// Back to no policy, no pins, no filter and no grants (`resetWebMCP()` gives the page a
    /// fresh grant store too); baselines are kept unless `baselines` is set.
    pub fn reset(&mut self, baselines: bool) {
        self.policy = None;
        self.baseline = Baseline::PerTool;
        self.filter = None;
        self.grants.clear();
        if baselines {
            self.baselines.clear();
        }
    }
}
