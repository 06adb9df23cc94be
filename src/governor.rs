//! The page's governance state: policy, fingerprint baselines and pins, and the tool filter.
//!
//! The engine asks it for the facts policy decides on (SPEC §5): whether a tool's definition
//! is the approved one, whether it is new, whether a tool is visible at all.

use std::collections::HashMap;
use std::rc::Rc;

use serde_json::Value;

use crate::digest::{changed_fields, tool_fingerprint, ToolDefinition};
use crate::error::ConfigError;
use crate::matcher::{json_type, Matcher};
use crate::policy::{FingerprintState, Policy};

/// A tool's definition and its fingerprint.
#[derive(Debug, Clone)]
pub struct Definition {
    /// The definition fields SPEC §5 fingerprints.
    pub fields: ToolDefinition,
    /// Lowercase hex SHA-256 of their canonical JSON.
    pub fingerprint: String,
}

impl Definition {
    /// Reads a definition (`{ name, title?, description?, inputSchema?, outputSchema?,
    /// annotations? }`) and fingerprints it.
    ///
    /// # Errors
    /// `invalid_definition` when it is not such an object or nests too deep to fingerprint.
    pub fn from_json(value: &Value) -> Result<Definition, ConfigError> {
        let fields: ToolDefinition = serde_json::from_value(value.clone())
            .map_err(|err| ConfigError::new("invalid_definition", format!("the tool definition cannot be read: {err}")))?;
        let fingerprint = tool_fingerprint(&fields).map_err(|err| ConfigError::new("invalid_definition", err.message))?;
        Ok(Definition { fields, fingerprint })
    }

    /// The tool's annotations, or `Null`.
    pub fn annotations(&self) -> &Value {
        self.fields.annotations.as_ref().unwrap_or(&Value::Null)
    }
}

/// Which tools agents may see (`configureWebMCP({ tools: { include, exclude } })`).
#[derive(Debug, Clone, Default)]
struct ToolFilter {
    include: Option<Vec<Matcher>>,
    exclude: Vec<Matcher>,
}

/// Policy, pins and the tool filter of one page.
#[derive(Debug, Default)]
pub struct Governor {
    policy: Option<Rc<Policy>>,
    /// An explicit `{ name: fingerprint }` map: tools outside it are new.
    approved: Option<HashMap<String, String>>,
    /// The definition each tool name had when first seen; kept across unregister/register so
    /// a rug pull by re-registration is caught.
    baselines: HashMap<String, Definition>,
    filter: Option<ToolFilter>,
    /// TRANSITION: the grant book (a simple list until the indexed one lands).
    grants: Vec<crate::policy::Grant>,
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

    /// Sets (or, with `Null`, removes) the explicit map of approved fingerprints.
    ///
    /// # Errors
    /// `invalid_config` when it is not an object of strings.
    pub fn set_approved(&mut self, spec: &Value) -> Result<(), ConfigError> {
        self.approved = match spec {
            Value::Null => None,
            Value::Object(map) => {
                let mut approved = HashMap::new();
                for (name, fingerprint) in map {
                    let Some(fingerprint) = fingerprint.as_str() else {
                        return Err(ConfigError::new("invalid_config", format!("the fingerprint of \"{name}\" must be a string")).at("approvedFingerprints"));
                    };
                    approved.insert(name.clone(), fingerprint.to_ascii_lowercase());
                }
                Some(approved)
            }
            other => {
                return Err(ConfigError::new("invalid_config", format!("must be an object of {{ name: fingerprint }}, not {}", json_type(other))).at("approvedFingerprints"))
            }
        };
        Ok(())
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
                    format!("must be {{ include?, exclude? }} or a function (tool, ctx) => boolean, not {}", json_type(other)),
                )
                .at("tools"))
            }
        };
        let list = |key: &str| -> Result<Option<Vec<Matcher>>, ConfigError> {
            match map.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::Array(items)) => items
                    .iter()
                    .enumerate()
                    .map(|(index, item)| Matcher::compile(item).map_err(|err| err.at(&format!("tools.{key}[{index}]"))))
                    .collect::<Result<Vec<_>, _>>()
                    .map(Some),
                Some(other) => Err(ConfigError::new("invalid_config", format!("must be an array of matchers, not {}", json_type(other))).at(&format!("tools.{key}"))),
            }
        };
        if let Some(unknown) = map.keys().find(|key| *key != "include" && *key != "exclude") {
            return Err(ConfigError::new("invalid_config", format!("unknown key \"{unknown}\" (expected include, exclude)")).at("tools"));
        }
        self.filter = Some(ToolFilter { include: list("include")?, exclude: list("exclude")?.unwrap_or_default() });
        Ok(())
    }

    /// Whether the static filter lets agents see the tool.
    pub fn is_visible(&self, server: &str, name: &str) -> bool {
        let Some(filter) = &self.filter else { return true };
        let included = filter.include.as_ref().is_none_or(|include| include.iter().any(|m| m.matches(server, name)));
        included && !filter.exclude.iter().any(|m| m.matches(server, name))
    }

    /// Records the definition a tool name has the first time it is seen.
    pub fn record_baseline(&mut self, definition: &Definition) {
        self.baselines.entry(definition.fields.name.clone()).or_insert_with(|| definition.clone());
    }

    /// The tool's definition against the approved one, recording a baseline at first sight.
    pub fn fingerprint_state(&mut self, definition: &Definition) -> FingerprintState {
        if self.approved.is_none() {
            self.record_baseline(definition);
        }
        self.peek_fingerprint_state(definition)
    }

    /// [`Governor::fingerprint_state`] without recording anything (for dry runs).
    pub fn peek_fingerprint_state(&self, definition: &Definition) -> FingerprintState {
        let name = &definition.fields.name;
        let current = &definition.fingerprint;
        if let Some(approved) = &self.approved {
            return match approved.get(name) {
                Some(previous) if previous == current => FingerprintState::Unchanged,
                Some(previous) => FingerprintState::Changed {
                    previous: previous.clone(),
                    current: current.clone(),
                    changed: self.baselines.get(name).map(|base| changed(&base.fields, &definition.fields)).unwrap_or_default(),
                },
                None => FingerprintState::New,
            };
        }
        match self.baselines.get(name) {
            Some(base) if &base.fingerprint != current => FingerprintState::Changed {
                previous: base.fingerprint.clone(),
                current: current.clone(),
                changed: changed(&base.fields, &definition.fields),
            },
            _ => FingerprintState::Unchanged,
        }
    }

    /// Whether a live grant exists for (principal, server/tool, fingerprint) at `now_ms`.
    pub fn live_grant(&self, principal: Option<&str>, server: &str, tool: &str, fingerprint: &str, now_ms: f64) -> bool {
        crate::policy::live_grant(&self.grants, principal, server, tool, fingerprint, now_ms).is_some()
    }

    /// Records the grant `{ allow: 'always' }` gives, replacing an older one for the same key
    /// and dropping expired ones.
    pub fn record_grant(&mut self, principal: Option<&str>, server: &str, tool: &str, fingerprint: &str, now_ms: f64, ttl_ms: f64) {
        let grant = crate::policy::new_grant(principal, server, tool, fingerprint, now_ms, ttl_ms);
        self.grants.retain(|old| old.is_live(now_ms) && !(old.principal == grant.principal && old.server == grant.server && old.tool == grant.tool && old.fingerprint == grant.fingerprint));
        self.grants.push(grant);
    }

    /// The grants held (TRANSITION: the TS layer persists them).
    pub fn grants(&self) -> &[crate::policy::Grant] {
        &self.grants
    }

    /// Replaces the grants held (loaded from the store).
    pub fn set_grants(&mut self, grants: Vec<crate::policy::Grant>) {
        self.grants = grants;
    }

    /// Back to no policy, no pins, no filter; baselines are kept unless `baselines` is set.
    pub fn reset(&mut self, baselines: bool) {
        self.policy = None;
        self.approved = None;
        self.filter = None;
        if baselines {
            self.baselines.clear();
        }
    }
}

fn changed(previous: &ToolDefinition, current: &ToolDefinition) -> Vec<String> {
    changed_fields(previous, current).into_iter().map(str::to_owned).collect()
}
