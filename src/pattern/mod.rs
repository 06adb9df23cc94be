//! Patterns: the page's regular expressions, and how each one may run on agent text.
//!
//! Matchers take a JS `RegExp` (`/^get_/i`) and policy predicates a pattern source
//! (`matches: '^[a-z]+$'`); JSON Schema `pattern`s reach the validator module. All mean
//! ECMAScript regular expressions, and the page already has that engine. But the page's engine
//! backtracks: a pattern such as `^(a+)+$` takes time exponential in the length of a string an
//! agent chooses, `\d+$` quadratic, and the page's main thread is frozen while it runs. So every
//! pattern is judged once, when it is compiled ([`Pattern::compile`]):
//!
//! - [`syntax`] reads it, and [`cost`] bounds the steps a backtracking engine can take on a text
//!   of `n` characters ([`cost::Cost`]);
//! - a pattern whose bound at [`INPUT_LIMIT`] characters stays within [`SAFE_STEPS`] runs on the
//!   page's `RegExp` for every string ([`Route::Page`]);
//! - any other pattern the linear-time engine can run ([`linear_capable`]) runs on the page's
//!   engine for strings short enough that the bound stays within [`SHORT_STEPS`] (the common case
//!   keeps its speed) and on the linear engine above ([`Route::Split`]), a wasm module the page
//!   loads only when it has such a pattern;
//! - a pattern neither can be trusted with (a back-reference or a look-around the linear engine
//!   cannot run, in a pattern that can take too long) is refused as a configuration error, unless
//!   the page opts in (`unsafePatterns`); it then runs on the page's engine for strings up to
//!   the length its bound allows and is "could not test" above ([`Route::Unsafe`]).
//!
//! Every test is charged to a [`Budget`] (one per policy evaluation, resource read and validation)
//! at its bound; a test the budget cannot pay for is "could not test". So the work one call can
//! make the page do is bounded whatever the agent sends.
//!
//! The boundary installs a [`Host`] that compiles and runs patterns on the page's engine and on
//! the linear engine (`src/wasm/host.rs`). Natively (`cargo test`, fuzzing) `regress`, an
//! ECMAScript backtracking engine, stands in for the page's and the linear engine is the same
//! translation to `regex-lite` the linear module runs ([`linear`]), so the native tests and the
//! fuzz targets see the package's decisions.
//!
//! A result that could not be tested is `None`; every caller fails closed on it (a deny or ask
//! rule applies, an allow rule does not, a validation fails).

pub mod cost;
#[cfg(feature = "linear")]
pub mod linear;
pub mod syntax;

use alloc::borrow::ToOwned;
use alloc::rc::Rc;
use alloc::string::String;
use core::cell::Cell;

use cost::Cost;
use syntax::{Flags, Node};

/// The longest string, in UTF-16 code units, a pattern is tested against.
pub const INPUT_LIMIT: usize = 65_536;

/// The most steps the cost bound may allow at [`INPUT_LIMIT`] for a pattern to run on the
/// page's engine for every string.
pub const SAFE_STEPS: u64 = 1 << 24;

/// The most steps the cost bound may allow for one string the page's engine tests on behalf of
/// a pattern that is not safe at every length.
pub const SHORT_STEPS: u64 = 1 << 17;

/// The most steps the tests of one [`Budget`] may add up to.
pub const BUDGET_STEPS: u64 = 1 << 25;

/// The largest translated program (in the linear engine's states, roughly) the linear engine
/// is asked to run; a larger one is not linear-capable.
pub const LINEAR_MAX_SIZE: u32 = 20_000;

/// The functions the host offers for patterns. The boundary installs one at start-up.
#[derive(Debug)]
pub struct Host {
    /// Compiles `source` with `flags` (JS flag letters) on the page's engine; with `linear`, the
    /// host also prepares the linear engine for it. Answers a handle, or why the page's engine
    /// refused the pattern.
    pub compile: fn(&str, &str, bool) -> Result<u32, String>,
    /// Tests `text` against the pattern on the page's engine, or (`true`) on the linear engine;
    /// `None` when it could not be tested (the linear engine is not loaded, an engine failed).
    pub test: fn(u32, &str, bool) -> Option<bool>,
    /// Forgets a compiled pattern.
    pub release: fn(u32),
}

/// The engine the boundary installed in a wasm module (the core module's, at start-up; the
/// validator module installs none). A `static` must be `Sync`, and std's `thread_local!` is not
/// there in the `no_std` core module: once_cell's `OnceRef` is a set-once reference on an atomic
/// pointer, safe and `Sync` (and outside the boundary module, which alone imports wasm-bindgen).
#[cfg(target_arch = "wasm32")]
static INSTALLED: once_cell::race::OnceRef<'static, Host> = once_cell::race::OnceRef::new();

/// Installs the host's pattern engine (the boundary does this once, at start-up; a second
/// install keeps the first engine).
#[cfg(target_arch = "wasm32")]
pub fn install(host: &'static Host) {
    let _ = INSTALLED.set(host);
}

#[cfg(target_arch = "wasm32")]
fn host() -> Option<&'static Host> {
    INSTALLED.get()
}

#[cfg(not(target_arch = "wasm32"))]
fn host() -> Option<&'static Host> {
    Some(&native::NATIVE)
}

/// How a compiled pattern runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// On the page's engine for every string up to [`INPUT_LIMIT`].
    Page,
    /// On the page's engine for strings of at most `short` UTF-16 units, on the linear engine
    /// above.
    Split {
        /// The longest string the page's engine tests.
        short: u32,
    },
    /// Opted in although neither engine can be trusted with it: on the page's engine for strings
    /// of at most `short` units; longer ones are not tested.
    Unsafe {
        /// The longest string tested.
        short: u32,
    },
}

/// What the judgement of a pattern found ([`judge`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgement {
    /// The bound on a backtracking engine's steps; `None` when the pattern could not be read.
    pub cost: Option<Cost>,
    /// Why the linear engine cannot run it, if it cannot.
    pub not_linear: Option<&'static str>,
    /// The linear engine's cost per character of text (its program's size), when it can run it.
    pub linear_size: u32,
    /// How it runs; `None` when it is refused (see [`Judgement::refusal`]).
    pub route: Option<Route>,
}

impl Judgement {
    /// The sentence a configuration error says when the pattern is refused: what makes it slow
    /// and what the linear engine lacks.
    #[must_use]
    pub fn refusal(&self) -> Option<String> {
        if self.route.is_some() {
            return None;
        }
        let slow = match self.cost {
            None => String::from("cannot be read to bound its running time"),
            Some(cost) => crate::strs::cat!["can take ", describe(cost), " time in the length of an agent's text"],
        };
        let why = self.not_linear.unwrap_or("it is too large");
        Some(crate::strs::cat![slow, " on the page's backtracking engine, and the linear-time engine cannot run it (", why, "); set `unsafePatterns: true` to run it anyway on strings short enough to stay fast"])
    }

    /// Steps charged for testing a string of `length` UTF-16 units, or `None` when the route
    /// does not test it.
    fn charge(&self, route: Route, length: u64) -> Option<(u64, bool)> {
        let page = |limit: u32| -> Option<(u64, bool)> {
            (length <= u64::from(limit)).then(|| (self.cost.map_or(u64::MAX, |cost| cost.steps(length)).max(length), false))
        };
        match route {
            Route::Page => page(u32::MAX),
            Route::Unsafe { short } => page(short),
            Route::Split { short } => page(short).or_else(|| Some((length.saturating_mul(u64::from(self.linear_size.max(1))), true))),
        }
    }
}

/// "exponential", "quadratic", "cubic", "polynomial".
fn describe(cost: Cost) -> &'static str {
    match cost.deg {
        u8::MAX => "exponential",
        2 => "quadratic",
        3 => "cubic",
        _ => "polynomial",
    }
}

/// Judges a pattern (see the module docs): how it may run, or why it is refused. `allow_unsafe`
/// is the page's opt-in for patterns neither engine can be trusted with.
#[must_use]
pub fn judge(source: &str, flags: &str, allow_unsafe: bool) -> Judgement {
    let parsed_flags = Flags::parse(flags);
    let tree = syntax::parse(source, parsed_flags).ok();
    let cost = tree.as_ref().map(|tree| cost::pattern_cost(tree, parsed_flags));
    let (not_linear, linear_size) = match &tree {
        None => (Some("it uses syntax the linear engine does not read"), 0),
        Some(tree) => match linear_capable(tree, parsed_flags) {
            Ok(size) => (None, size),
            Err(why) => (Some(why), 0),
        },
    };
    let limit = INPUT_LIMIT as u64;
    let route = match cost {
        Some(cost) if cost.steps(limit) <= SAFE_STEPS => Some(Route::Page),
        _ => {
            let short = cost.map_or(0, |cost| longest_within(cost, SHORT_STEPS));
            if not_linear.is_none() {
                Some(Route::Split { short })
            } else if allow_unsafe {
                Some(Route::Unsafe { short: short.max(UNSAFE_FLOOR) })
            } else {
                None
            }
        }
    };
    Judgement { cost, not_linear, linear_size, route }
}

/// The shortest string an opted-in unsafe pattern is still tested against, whatever its bound
/// says (an exponential pattern on a few dozen characters stays fast on real engines).
pub const UNSAFE_FLOOR: u32 = 24;

/// The longest length whose bound stays within `steps` (0 for an exponential bound).
fn longest_within(cost: Cost, steps: u64) -> u32 {
    if cost.is_exponential() || cost.steps(1) > steps {
        return 0;
    }
    // The bound grows with the length: a binary search over 1..=INPUT_LIMIT.
    let (mut low, mut high) = (1u64, INPUT_LIMIT as u64);
    while low < high {
        let middle = low.saturating_add(high.saturating_sub(low).saturating_add(1) / 2);
        if cost.steps(middle) <= steps {
            low = middle;
        } else {
            high = middle.saturating_sub(1);
        }
    }
    u32::try_from(low).unwrap_or(u32::MAX)
}

/// Whether the linear engine can run the pattern: the size of its program, or what it lacks.
/// It runs classes, groups, alternation, repetition, anchors and word boundaries; look-aheads
/// only at the very start of an anchored pattern (`^(?=…)(?!…)…`, each tested on its own);
/// no back-references, no other look-around, no `\p{…}` properties, no `v`-mode set operations.
///
/// # Errors
/// What the linear engine lacks, as a phrase.
pub fn linear_capable(tree: &Node, flags: Flags) -> Result<u32, &'static str> {
    let body = match tree {
        Node::Seq(nodes) if !flags.multiline && matches!(nodes.first(), Some(Node::Start)) => {
            let mut size = 0u32;
            let mut rest = nodes.get(1..).unwrap_or(&[]);
            while let Some((Node::Look { behind: false, node, .. }, after)) = rest.split_first() {
                size = size.saturating_add(linear_size(node)?);
                rest = after;
            }
            for node in rest {
                size = size.saturating_add(linear_size(node)?);
            }
            size
        }
        other => linear_size(other)?,
    };
    if body > LINEAR_MAX_SIZE {
        return Err("it is too large for the linear engine");
    }
    Ok(body.max(1))
}

/// The linear engine's program size for a node, or what it lacks.
fn linear_size(node: &Node) -> Result<u32, &'static str> {
    use syntax::Item;
    Ok(match node {
        Node::Empty | Node::Start | Node::End | Node::WordBoundary(_) => 1,
        Node::Class { items, .. } => {
            for item in items {
                match item {
                    Item::Property(_) => return Err("a \\p{…} property"),
                    Item::Any => return Err("a class set operation"),
                    _ => {}
                }
            }
            1
        }
        Node::Backref => return Err("a back-reference"),
        Node::Look { .. } => return Err("a look-around"),
        Node::Capture { node, .. } | Node::Modified { node, .. } => linear_size(node)?,
        Node::Seq(nodes) | Node::Alt(nodes) => {
            let mut size = 1u32;
            for node in nodes {
                size = size.saturating_add(linear_size(node)?);
            }
            size
        }
        Node::Repeat { node, min, max, .. } => {
            let copies = if *max == syntax::UNBOUNDED { (*min).max(1) } else { *max };
            linear_size(node)?.saturating_mul(copies).saturating_add(1)
        }
    })
}

/// Whether patterns compiled now may run although neither engine can be trusted with them
/// (the page's `unsafePatterns` opt-in), for the configuration being compiled: set around its
/// compilation by [`with_unsafe_allowed`], so every matcher and predicate of it sees the same
/// answer without the flag threading through each parser.
#[cfg(target_arch = "wasm32")]
static UNSAFE_ALLOWED: core::sync::atomic::AtomicBool = core::sync::atomic::AtomicBool::new(false);

#[cfg(not(target_arch = "wasm32"))]
std::thread_local! {
    static UNSAFE_ALLOWED: Cell<bool> = const { Cell::new(false) };
}

fn set_unsafe_allowed(allowed: bool) {
    #[cfg(target_arch = "wasm32")]
    UNSAFE_ALLOWED.store(allowed, core::sync::atomic::Ordering::Relaxed);
    #[cfg(not(target_arch = "wasm32"))]
    UNSAFE_ALLOWED.with(|cell| cell.set(allowed));
}

/// Whether the configuration being compiled opted in to unsafe patterns.
#[must_use]
pub fn unsafe_allowed() -> bool {
    #[cfg(target_arch = "wasm32")]
    return UNSAFE_ALLOWED.load(core::sync::atomic::Ordering::Relaxed);
    #[cfg(not(target_arch = "wasm32"))]
    UNSAFE_ALLOWED.with(Cell::get)
}

/// Runs `compile` with [`unsafe_allowed`] answering `allowed` (or-ed with an enclosing opt-in),
/// then restores it.
pub fn with_unsafe_allowed<T>(allowed: bool, compile: impl FnOnce() -> T) -> T {
    let before = unsafe_allowed();
    set_unsafe_allowed(before || allowed);
    let result = compile();
    set_unsafe_allowed(before);
    result
}

/// The steps one call may still spend on pattern tests: made for each policy evaluation,
/// resource read and validation, and charged each test's bound before the test runs.
#[derive(Debug, Clone)]
pub struct Budget {
    left: Cell<u64>,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget { left: Cell::new(BUDGET_STEPS) }
    }
}

impl Budget {
    /// Takes `steps`; `false` (and nothing taken) when fewer are left.
    fn take(&self, steps: u64) -> bool {
        match self.left.get().checked_sub(steps) {
            Some(left) => {
                self.left.set(left);
                true
            }
            None => false,
        }
    }

    /// The steps still left.
    #[must_use]
    pub fn left(&self) -> u64 {
        self.left.get()
    }
}

/// Why a pattern was not compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatternError {
    /// The page's engine refused it; its reason, such as `Invalid regular expression: /(/:
    /// Unterminated group`.
    Invalid(String),
    /// It is valid, but neither engine can be trusted with it (see [`Judgement::refusal`]).
    Unsafe(String),
}

/// A compiled pattern. Clones share one compiled pattern; the last one dropped releases it.
#[derive(Debug, Clone)]
pub struct Pattern {
    inner: Rc<Compiled>,
}

#[derive(Debug)]
struct Compiled {
    handle: u32,
    source: String,
    flags: String,
    judgement: Judgement,
    route: Route,
}

impl Drop for Compiled {
    fn drop(&mut self) {
        if let Some(host) = host() {
            (host.release)(self.handle);
        }
    }
}

impl Pattern {
    /// Compiles a pattern with JS `flags` (`g` and `y` carry state between tests, so they are
    /// dropped: a pattern here answers the same for the same text every time), judged as the
    /// module docs say; `allow_unsafe` is the page's opt-in.
    ///
    /// # Errors
    /// [`PatternError::Invalid`] when the page's engine refuses it, [`PatternError::Unsafe`]
    /// when it is refused for its running time.
    pub fn compile(source: &str, flags: &str, allow_unsafe: bool) -> Result<Pattern, PatternError> {
        let flags = without_gy(flags);
        let host = host().ok_or_else(|| PatternError::Invalid("no pattern engine is installed".to_owned()))?;
        let judgement = judge(source, &flags, allow_unsafe);
        let Some(route) = judgement.route else {
            // Invalid beats unsafe: a pattern the page refuses is reported as such.
            let handle = (host.compile)(source, &flags, false).map_err(PatternError::Invalid)?;
            (host.release)(handle);
            return Err(PatternError::Unsafe(judgement.refusal().unwrap_or_default()));
        };
        let handle = (host.compile)(source, &flags, matches!(route, Route::Split { .. })).map_err(PatternError::Invalid)?;
        Ok(Pattern { inner: Rc::new(Compiled { handle, source: source.to_owned(), flags, judgement, route }) })
    }

    /// Whether `text` matches, the test paid from `budget`; `None` when it could not be tested
    /// (longer than [`INPUT_LIMIT`] or than an unsafe pattern's limit, the budget is spent, or
    /// the engine failed), which callers treat as failing closed.
    pub fn test(&self, text: &str, budget: &Budget) -> Option<bool> {
        // A UTF-16 unit is at most three bytes of UTF-8, so a longer text is certainly too long.
        if text.len() / 3 > INPUT_LIMIT {
            return None;
        }
        let length = utf16_len(text);
        if length > INPUT_LIMIT {
            return None;
        }
        let (steps, linear) = self.inner.judgement.charge(self.inner.route, length as u64)?;
        if !budget.take(steps) {
            return None;
        }
        (host()?.test)(self.inner.handle, text, linear)
    }

    /// The pattern's source, as given.
    pub fn source(&self) -> &str {
        &self.inner.source
    }

    /// Its flags, without `g` and `y`.
    pub fn flags(&self) -> &str {
        &self.inner.flags
    }

    /// How it runs.
    pub fn route(&self) -> Route {
        self.inner.route
    }

    /// What its judgement found.
    pub fn judgement(&self) -> &Judgement {
        &self.inner.judgement
    }
}

/// How many UTF-16 units `text` is, counted on its UTF-8 bytes: one per character (every byte
/// but a continuation byte starts one), two for a character past U+FFFF (a 4-byte sequence,
/// lead byte 0xF0 or above). What `encode_utf16().count()` answers, without linking the encoder.
fn utf16_len(text: &str) -> usize {
    let mut units = 0usize;
    for &byte in text.as_bytes() {
        units = units.saturating_add(usize::from(byte & 0xC0 != 0x80)).saturating_add(usize::from(byte >= 0xF0));
    }
    units
}

/// `flags` without `g` and `y`: the flags a pattern is compiled with. A loop, shared with
/// [`crate::matcher::pattern_error`], rather than a `filter(..).collect()` at each place (each a
/// generic instance of its own in the wasm module).
pub(crate) fn without_gy(flags: &str) -> String {
    let mut kept = String::new();
    for flag in flags.chars() {
        if flag != 'g' && flag != 'y' {
            kept.push(flag);
        }
    }
    kept
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Pattern) -> bool {
        self.inner.source == other.inner.source && self.inner.flags == other.inner.flags
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    //! The engines off wasm: `regress`, an ECMAScript backtracking engine, for the page's
    //! `RegExp`, and [`super::linear::Linear`] for the linear engine, as in the package.

    use alloc::borrow::ToOwned;
    use alloc::string::{String, ToString};
    use alloc::vec::Vec;
    use core::cell::RefCell;

    #[cfg(feature = "linear")]
    use super::linear::Linear;
    use super::Host;

    /// Without the `linear` feature no linear engine runs: its tests cannot be made.
    #[cfg(not(feature = "linear"))]
    struct Linear;
    #[cfg(not(feature = "linear"))]
    impl Linear {
        fn is_match(&self, _: &str) -> bool {
            false
        }
    }
    use crate::strs::cat;

    struct Entry {
        page: regress::Regex,
        /// Prepared when asked for; an error here makes linear tests "could not test".
        linear: Option<Result<Linear, String>>,
    }

    std::thread_local! {
        static TABLE: RefCell<Vec<Option<Entry>>> = const { RefCell::new(Vec::new()) };
    }

    fn compile(source: &str, flags: &str, linear: bool) -> Result<u32, String> {
        // `regress::Error` says its reason only through `Display`; this engine is not in the
        // wasm module, so that `core::fmt` use costs the page nothing.
        let page = regress::Regex::with_flags(source, flags).map_err(|err| cat!["Invalid regular expression: /", source, "/", flags, ": ", err.to_string()])?;
        #[cfg(feature = "linear")]
        let linear = linear.then(|| Linear::new(source, flags));
        #[cfg(not(feature = "linear"))]
        let linear: Option<Result<Linear, String>> = linear.then(|| Err("the linear engine is not built in".to_owned()));
        TABLE.with(|table| {
            let mut table = table.borrow_mut();
            let slot = table.iter().position(Option::is_none).unwrap_or(table.len());
            let entry = Entry { page, linear };
            if slot == table.len() {
                table.push(Some(entry));
            } else if let Some(place) = table.get_mut(slot) {
                *place = Some(entry);
            }
            u32::try_from(slot).map_err(|_| "too many patterns".to_owned())
        })
    }

    fn test(handle: u32, text: &str, linear: bool) -> Option<bool> {
        TABLE.with(|table| {
            let table = table.borrow();
            let entry = table.get(handle as usize)?.as_ref()?;
            if linear {
                entry.linear.as_ref()?.as_ref().ok().map(|engine| engine.is_match(text))
            } else {
                Some(entry.page.find(text).is_some())
            }
        })
    }

    fn release(handle: u32) {
        TABLE.with(|table| {
            if let Some(entry) = table.borrow_mut().get_mut(handle as usize) {
                *entry = None;
            }
        });
    }

    pub(super) fn live() -> usize {
        TABLE.with(|table| table.borrow().iter().filter(|entry| entry.is_some()).count())
    }

    pub(super) static NATIVE: Host = Host { compile, test, release };
}

/// How many patterns are compiled right now by the native engine (for leak tests).
#[cfg(not(target_arch = "wasm32"))]
pub fn live_native_patterns() -> usize {
    native::live()
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_utf16_units_like_encode_utf16() {
        for text in ["", "a", "é", "€", "😀", "a😀é€\u{10FFFF}\u{FFFF}"] {
            assert_eq!(super::utf16_len(text), text.encode_utf16().count(), "{text:?}");
        }
    }
}
