//! Configuration errors: what the TS layer turns into a thrown `ConfigurationError`.

use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec::Vec;

use crate::strs::cat;

/// A problem with configuration the user gave (hooks, matchers, policy), found when it was given.
///
/// Crosses the boundary as data; the TS layer throws it as `ConfigurationError` because bad
/// configuration is misuse, not a call outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// A stable machine code, such as `invalid_matcher` or `duplicate_hook_id`.
    pub code: &'static str,
    /// One sentence saying what is wrong, starting with the path when there is one.
    pub message: String,
    /// Where the problem is, such as `hooks.before[1]` or `deny[1].when[0]`.
    pub path: String,
    /// The message without its path, kept so an outer caller can extend the path.
    detail: String,
}

impl ConfigError {
    /// A new error with no path yet.
    pub fn new(code: &'static str, message: String) -> ConfigError {
        ConfigError { code, detail: message.clone(), message, path: String::new() }
    }

    /// Places the error under `path` (an outer path goes in front of an inner one:
    /// `hooks.before[0]` then `match` gives `hooks.before[0].match`), prefixing the message.
    #[must_use]
    pub fn at(mut self, path: &str) -> ConfigError {
        self.path = match (path.is_empty(), self.path.is_empty()) {
            (true, _) => self.path,
            (false, true) => path.to_owned(),
            (false, false) => cat![path, ".", self.path],
        };
        self.message = cat![self.path, ": ", self.detail];
        self
    }
}

/// Moves the errors of `inner` to `errors`, each placed under `path` ([`ConfigError::at`]).
pub fn file_under(errors: &mut Vec<ConfigError>, inner: Vec<ConfigError>, path: &str) {
    for error in inner {
        errors.push(error.at(path));
    }
}

impl core::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.message)
    }
}

impl core::error::Error for ConfigError {}

impl ConfigError {
    /// The error as the boundary sends it: `{ code, message, path? }`.
    pub fn to_value(&self) -> crate::value::Value {
        let mut map = crate::value::Map::new();
        map.insert("code", self.code.into());
        map.insert("message", self.message.as_str().into());
        if !self.path.is_empty() {
            map.insert("path", self.path.as_str().into());
        }
        crate::value::Value::Object(map)
    }
}
