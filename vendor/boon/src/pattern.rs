// webmcp-warden patch: this module replaces `regex`/`regex-syntax` (and the `ecma` translation
// module) with a pattern engine the embedding program installs. See vendor/boon/README.md.
//
// JSON Schema patterns are ECMA-262 regular expressions, so the engine is expected to give them
// ECMAScript semantics with the `u` flag: in a browser, the page's own `RegExp`. Patterns are
// passed to the engine exactly as written: nothing is translated.

use std::{error::Error, fmt::Display, sync::OnceLock};

/// A pattern compiled by a [`PatternEngine`].
pub trait CompiledPattern: Send + Sync {
    /// Whether the pattern matches somewhere in `text` (JSON Schema patterns are not anchored).
    fn is_match(&self, text: &str) -> Result<bool, PatternFailure>;
}

/// Compiles JSON Schema patterns (`pattern`, `patternProperties`) and checks `format: "regex"`.
pub trait PatternEngine: Send + Sync {
    /// Compiles `source`, found at `location` (the URL of the `pattern` keyword, or of the
    /// `patternProperties` key, with its JSON Pointer as the fragment); `Err` holds why the
    /// engine refuses it.
    fn compile(&self, source: &str, location: &str) -> Result<Box<dyn CompiledPattern>, String>;

    /// Whether `source` is a pattern the engine reads (`format: "regex"`: in a meta-schema, a
    /// schema's own patterns; in an instance, any string). Nothing is compiled for use.
    fn check(&self, source: &str) -> Result<(), String>;
}

/// Why a string could not be tested against a pattern. Validation then fails: an unchecked
/// string is never taken as matching or as not matching.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatternFailure {
    /// The string is longer than the engine agrees to test (a backtracking engine could take
    /// too long on it).
    TooLong {
        /// The most characters the engine tests.
        max_chars: usize,
    },
    /// The engine failed while testing (for example, it ran out of stack).
    Engine,
    /// The embedder declined to test the string, for the reason given (webmcp-warden: the call's
    /// pattern work limit, or a pattern whose judgement did not load).
    Declined(&'static str),
}

impl Display for PatternFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::TooLong { max_chars } => {
                write!(f, "longer than {max_chars} characters, the most a pattern is tested against")
            }
            Self::Engine => write!(f, "the regular expression engine failed"),
            Self::Declined(reason) => f.write_str(reason),
        }
    }
}

static ENGINE: OnceLock<Box<dyn PatternEngine>> = OnceLock::new();

/// Installs the pattern engine, once per process; later calls are ignored. Until an engine is
/// installed, every pattern is refused (so every schema with a pattern fails to compile).
pub fn set_pattern_engine(engine: Box<dyn PatternEngine>) {
    let _ = ENGINE.set(engine);
}

/// A compiled pattern and its source.
pub(crate) struct Regex {
    source: String,
    compiled: Box<dyn CompiledPattern>,
}

impl Regex {
    pub(crate) fn new(source: &str, location: &str) -> Result<Regex, Box<dyn Error>> {
        let engine = ENGINE.get().ok_or("no pattern engine is installed")?;
        let compiled = engine.compile(source, location)?;
        Ok(Regex {
            source: source.to_owned(),
            compiled,
        })
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.source
    }

    pub(crate) fn is_match(&self, text: &str) -> Result<bool, PatternFailure> {
        self.compiled.is_match(text)
    }
}

impl std::fmt::Debug for Regex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Regex").field(&self.source).finish()
    }
}

/// Whether `source` is a pattern the engine accepts (`format: "regex"`).
pub(crate) fn check(source: &str) -> Result<(), Box<dyn Error>> {
    let engine = ENGINE.get().ok_or("no pattern engine is installed")?;
    Ok(engine.check(source)?)
}
