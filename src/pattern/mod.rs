//! Patterns: the page's regular expressions, and how each one may run on agent text.
//!
//! Matchers take a JS `RegExp` (`/^get_/i`) and policy predicates a pattern source
//! (`matches: '^[a-z]+$'`); JSON Schema `pattern`s reach the validator module. All mean
//! ECMAScript regular expressions, and the page already has that engine. But the page's engine
//! backtracks: a pattern such as `^(a+)+$` takes time exponential in the length of a string an
//! agent chooses, `\d+$` quadratic, and the page's main thread is frozen while it runs. So every
//! pattern is judged ([`Judgement`], made by `judge::judge`):
//!
//! - [`read`] reads it, and [`cost`] bounds the steps a backtracking engine can take on a text
//!   of `n` characters ([`Cost`]);
//! - a pattern whose bound at [`INPUT_LIMIT`] characters stays within [`SAFE_STEPS`] runs on the
//!   page's `RegExp` for every string ([`Route::Page`]);
//! - any other pattern the linear-time engine can run runs on the page's engine for strings
//!   short enough that the bound stays within [`SHORT_STEPS`] (the common case keeps its speed)
//!   and on the linear engine above ([`Route::Split`]);
//! - a pattern neither can be trusted with (a back-reference or a look-around the linear engine
//!   cannot run, in a pattern that can take too long) is refused as a configuration error, unless
//!   the page opts in (`unsafePatterns`); it then runs on the page's engine for strings up to
//!   the length its bound allows and is "could not test" above ([`Route::Unsafe`]).
//!
//! Every test is charged to a [`Budget`] (one per policy evaluation, resource read and validation)
//! at its bound before it runs; a test the budget cannot pay for is "could not test". So the work
//! one call can make the page do is bounded whatever the agent sends.
//!
//! Where things run. The judgement and the linear engine are wasm modules of their own, which a
//! page loads only when it has patterns (the judgement) and only when one needs the linear engine
//! (the engine): neither is in the core a page downloads at import. The boundary installs a
//! [`Host`] (`wasm/host/lib.rs`): the page's `RegExp`, and the two modules through
//! `pkg-js/src/pattern-host.js`. A pattern compiled before the judgement has loaded is judged at
//! its first test; the TS layer loads the judgement before any call that could test one
//! (`docs/behaviour.md`, "Patterns"). Natively (`cargo test`, fuzzing) the same judgement and
//! linear engine are linked in and `regress`, an ECMAScript backtracking engine, stands in for
//! the page's, so native tests and fuzz targets see the package's decisions.
//!
//! A result that could not be tested is `None`; every caller fails closed on it (a deny or ask
//! rule applies, an allow rule does not, a validation fails).

pub mod cost;
pub mod judge;
#[cfg(feature = "linear")]
pub mod linear;
pub mod read;
#[cfg(feature = "linear")]
pub mod syntax;

use alloc::borrow::ToOwned;
use alloc::rc::Rc;
use alloc::string::String;
use core::cell::Cell;

/// The longest string, in UTF-16 code units, a pattern is tested against.
pub const INPUT_LIMIT: usize = 65_536;

/// The most steps the cost bound may allow at [`INPUT_LIMIT`] for a pattern to run on the
/// page's engine for every string.
pub const SAFE_STEPS: u64 = 1 << 24;

/// The most steps the cost bound may allow for one string the page's engine tests on behalf of
/// a pattern that is not safe at every length.
pub const SHORT_STEPS: u64 = 1 << 17;

/// The most steps the tests of one [`Budget`] may add up to (1.5 × [`SAFE_STEPS`], so a pattern
/// safe at every length can always be tested once): at the page engine's speed on a long string
/// (about a nanosecond and a half a step of the bound, which is an upper bound) and the linear
/// engine's ([`LINEAR_STEP`]), well under the long-task threshold in Node on the benchmark
/// machine, where 2²⁵ let a call go over it (`bench/patterns.mjs`; bench/RESULTS.md, "Patterns").
pub const BUDGET_STEPS: u64 = 3 << 23;

/// What one step of the linear engine (a character of the text against a state of its program)
/// is charged, in steps of the page's engine: the linear engine took about 30 times as long a
/// step on the benchmark machine (`bench/patterns.mjs`), so a budget is time whichever engine
/// spends it. A string is tested on the linear engine only if its length × the program's size
/// × this fits the budget left.
pub const LINEAR_STEP: u64 = 32;

/// The largest program (in the linear engine's states, roughly) the linear engine is asked to
/// run; a larger one is not linear-capable.
pub const LINEAR_MAX_SIZE: u32 = 20_000;

/// The shortest string an opted-in unsafe pattern is still tested against, whatever its bound
/// says (an exponential pattern on a couple of dozen characters stays fast on real engines).
pub const UNSAFE_FLOOR: u32 = 24;

/// A bound on work: `base + coef × nᵈᵉᵍ` steps for a text of `n` characters, or exponential.
/// The constant part is kept apart so that a large constant (a bounded look-ahead tried once)
/// does not grow with the text beside a small linear term.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cost {
    /// The degree of the growing term (0 when there is none); [`Cost::EXPONENTIAL`]'s is
    /// `u8::MAX`.
    pub deg: u8,
    /// The growing term's coefficient (saturating; 0 when there is none).
    pub coef: u32,
    /// The constant term (saturating).
    pub base: u32,
}

impl Cost {
    /// Exponential in the text's length.
    pub const EXPONENTIAL: Cost = Cost { deg: u8::MAX, coef: u32::MAX, base: u32::MAX };

    /// Whether it is exponential.
    #[must_use]
    pub fn is_exponential(self) -> bool {
        self.deg == u8::MAX
    }

    /// The steps for a text of `length` characters (saturating at `u64::MAX`).
    #[must_use]
    pub fn steps(self, length: u64) -> u64 {
        if self.is_exponential() {
            return if length <= 1 { u64::from(self.coef) } else { u64::MAX };
        }
        let mut steps = u64::from(self.coef);
        let mut left = self.deg;
        while left > 0 {
            steps = steps.saturating_mul(length.max(1));
            left = left.saturating_sub(1);
        }
        steps.saturating_add(u64::from(self.base))
    }
}

/// The functions the host offers for patterns. The boundary installs one at start-up.
#[derive(Debug)]
pub struct Host {
    /// Compiles `source` with `flags` (JS flag letters) on the page's engine; answers a handle,
    /// or why the page's engine refused the pattern.
    pub compile: fn(&str, &str) -> Result<u32, String>,
    /// The judgement of pattern `handle` (its source and flags; `true`: the page opted in to
    /// unsafe patterns) as [`Judgement::to_words`] writes it; `None` while the judgement is not
    /// loaded. The host prepares the linear engine for a pattern whose route needs it.
    pub judge: fn(u32, &str, &str, bool) -> Option<[u32; 4]>,
    /// Tests `text` against the pattern on the page's engine, or (`true`) on the linear engine;
    /// `None` when it could not be tested (the linear engine is not loaded, an engine failed).
    pub test: fn(u32, &str, bool) -> Option<bool>,
    /// Forgets a compiled pattern.
    pub release: fn(u32),
}

/// The engine the boundary installed in a wasm module. A `static` must be `Sync`, and std's
/// `thread_local!` is not there in the `no_std` core module: once_cell's `OnceRef` is a
/// set-once reference on an atomic pointer, safe and `Sync` (and outside the boundary module,
/// which alone imports wasm-bindgen).
#[cfg(target_arch = "wasm32")]
static INSTALLED: once_cell::race::OnceRef<'static, Host> = once_cell::race::OnceRef::new();

/// Installs the host's pattern engines (the boundary does this once, at start-up; a second
/// install keeps the first).
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

/// How a judged pattern runs.
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

/// Why the linear engine cannot run a pattern, by the code [`Judgement::to_words`] writes.
const NOT_LINEAR: [&str; 5] = [
    "it uses syntax the linear engine does not read",
    "a \\p{…} property or a class set operation",
    "a back-reference",
    "a look-around other than look-aheads at the start of an anchored pattern",
    "it is too large for the linear engine",
];

/// What the judgement of a pattern found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Judgement {
    /// The bound on a backtracking engine's steps; `None` when the pattern could not be read.
    pub cost: Option<Cost>,
    /// Why the linear engine cannot run it, if it cannot: an index into the phrases
    /// [`Judgement::not_linear_phrase`] answers.
    pub not_linear: Option<u8>,
    /// The linear engine's cost per character of text (its program's size), when it can run it.
    pub linear_size: u32,
    /// How it runs; `None` when it is refused (see [`Judgement::refusal`]).
    pub route: Option<Route>,
}

impl Judgement {
    /// The judgement as four words, how it crosses between wasm modules: the route's kind
    /// (bits 0–1: page, split, unsafe, refused) and `short` (bits 2–18), the not-linear code
    /// plus one (bits 19–21), whether the pattern was read (bit 22) and the cost's degree (bits
    /// 23–30); the cost's coefficient; the linear program's size; the cost's constant.
    #[must_use]
    pub fn to_words(&self) -> [u32; 4] {
        let (kind, short) = match self.route {
            Some(Route::Page) => (0u32, 0u32),
            Some(Route::Split { short }) => (1, short),
            Some(Route::Unsafe { short }) => (2, short),
            None => (3, 0),
        };
        let not_linear = self.not_linear.map_or(0, |code| u32::from(code).saturating_add(1));
        let (read, deg, coef, base) = self.cost.map_or((0u32, 0u32, 0u32, 0u32), |cost| (1, u32::from(cost.deg), cost.coef, cost.base));
        let first = kind | short.min(0x1_FFFF) << 2 | (not_linear & 7) << 19 | read << 22 | (deg & 0xFF) << 23;
        [first, coef, self.linear_size, base]
    }

    /// The judgement [`Judgement::to_words`] wrote.
    #[must_use]
    pub fn from_words(words: [u32; 4]) -> Judgement {
        let [first, coef, linear_size, base] = words;
        let short = (first >> 2) & 0x1_FFFF;
        let route = match first & 3 {
            0 => Some(Route::Page),
            1 => Some(Route::Split { short }),
            2 => Some(Route::Unsafe { short }),
            _ => None,
        };
        let not_linear = u8::try_from((first >> 19) & 7).ok().and_then(|code| code.checked_sub(1));
        let cost = (first >> 22 & 1 == 1).then(|| Cost { deg: u8::try_from(first >> 23 & 0xFF).unwrap_or(u8::MAX), coef, base });
        Judgement { cost, not_linear, linear_size, route }
    }

    /// Why the linear engine cannot run the pattern, as a phrase.
    #[must_use]
    pub fn not_linear_phrase(&self) -> Option<&'static str> {
        NOT_LINEAR.get(usize::from(self.not_linear?)).copied()
    }

    /// What makes the pattern slow on a backtracking engine, as a phrase ("can take quadratic
    /// time …"); `None` when it is not slow.
    #[must_use]
    pub fn slowness(&self) -> Option<String> {
        if self.route == Some(Route::Page) {
            return None;
        }
        Some(match self.cost {
            None => String::from("cannot be read to bound its running time"),
            Some(cost) => {
                // A bound of degree 0 or 1 is slow only by its factor (`(.*a){12}`).
                let kind = match cost.deg {
                    u8::MAX => "exponential time",
                    0 | 1 => "time linear but with a large factor",
                    2 => "quadratic time",
                    3 => "cubic time",
                    _ => "polynomial time",
                };
                crate::strs::cat!["can take ", kind, " in the length of an agent's text"]
            }
        })
    }

    /// The sentence a configuration error says when the pattern is refused: what makes it slow
    /// and what the linear engine lacks.
    #[must_use]
    pub fn refusal(&self) -> Option<String> {
        if self.route.is_some() {
            return None;
        }
        let why = self.not_linear_phrase().unwrap_or("it is too large");
        Some(crate::strs::cat![
            self.slowness().unwrap_or_default(),
            " on the page's backtracking engine, and the linear-time engine cannot run it (",
            why,
            "); set `unsafePatterns: true` to run it anyway on strings short enough to stay fast"
        ])
    }

    /// Steps charged for testing a string of `length` UTF-16 units and whether the linear
    /// engine tests it, or `None` when the route does not test it.
    #[must_use]
    pub fn charge(&self, length: u64) -> Option<(u64, bool)> {
        let page = |limit: u32| -> Option<(u64, bool)> {
            (length <= u64::from(limit)).then(|| (self.cost.map_or(u64::MAX, |cost| cost.steps(length)).max(length), false))
        };
        match self.route? {
            Route::Page => page(u32::MAX),
            // Opted in: its limit is where the bound passes SHORT_STEPS, or UNSAFE_FLOOR when that is
            // further (an exponential bound passes everything past one character), so the bound says
            // nothing useful inside it; each test is charged what a short test may cost.
            Route::Unsafe { short } => page(short).map(|(steps, linear)| (steps.min(SHORT_STEPS.max(length)), linear)),
            Route::Split { short } => page(short).or_else(|| Some((length.saturating_mul(u64::from(self.linear_size.max(1))).saturating_mul(LINEAR_STEP), true))),
        }
    }
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
    /// Starts over with the whole budget (for one more validation).
    pub fn reset(&self) {
        self.left.set(BUDGET_STEPS);
    }

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

/// Why a string was not tested against a pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Untested {
    /// Longer than [`INPUT_LIMIT`], or than an opted-in unsafe pattern's limit.
    TooLong,
    /// The pattern's judgement is not loaded, or refused it.
    NotJudged,
    /// The pattern work the call may do is spent.
    Budget,
    /// An engine failed (or the linear engine is not loaded).
    Engine,
}

impl Untested {
    /// Why, as a phrase.
    #[must_use]
    pub fn phrase(self) -> &'static str {
        match self {
            Untested::TooLong => "it is longer than the pattern may be tested against",
            Untested::NotJudged => "the pattern is not judged (its judgement did not load) or was refused",
            Untested::Budget => "the call's pattern work limit was reached",
            Untested::Engine => "the regular expression engine failed",
        }
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
    /// The page opted in to unsafe patterns when this one was compiled.
    allow_unsafe: bool,
    /// Filled when the host's judgement answers (at compile time, or at the first test when the
    /// judgement had not loaded yet).
    judgement: Cell<Option<Judgement>>,
}

impl Drop for Compiled {
    fn drop(&mut self) {
        release(self.handle);
    }
}

impl Pattern {
    /// Compiles a pattern with JS `flags` (`g` and `y` carry state between tests, so they are
    /// dropped: a pattern here answers the same for the same text every time), and judges it
    /// when the judgement is loaded; `allow_unsafe` is the page's opt-in.
    ///
    /// # Errors
    /// [`PatternError::Invalid`] when the page's engine refuses it, [`PatternError::Unsafe`]
    /// when it is judged and refused for its running time.
    pub fn compile(source: &str, flags: &str, allow_unsafe: bool) -> Result<Pattern, PatternError> {
        let flags = without_gy(flags);
        let (handle, judgement) = compile_judged(source, &flags, allow_unsafe)?;
        Ok(Pattern { inner: Rc::new(Compiled { handle, source: source.to_owned(), flags, allow_unsafe, judgement: Cell::new(judgement) }) })
    }

    /// Its judgement, asking the host for it when it has none yet; `None` while the judgement is
    /// not loaded.
    pub fn judgement(&self) -> Option<Judgement> {
        if let Some(judgement) = self.inner.judgement.get() {
            return Some(judgement);
        }
        let judgement = judge_later(self.inner.handle, &self.inner.source, &self.inner.flags, self.inner.allow_unsafe)?;
        self.inner.judgement.set(Some(judgement));
        Some(judgement)
    }

    /// Whether `text` matches, the test paid from `budget`; `None` when it could not be tested,
    /// which callers treat as failing closed ([`Pattern::try_test`] says why).
    pub fn test(&self, text: &str, budget: &Budget) -> Option<bool> {
        self.try_test(text, budget).ok()
    }

    /// Whether `text` matches, the test paid from `budget`, or why it could not be tested.
    ///
    /// # Errors
    /// [`Untested`]: the text is too long for the pattern's route, the pattern is not judged (or
    /// was refused), the budget cannot pay for the test, or an engine failed.
    pub fn try_test(&self, text: &str, budget: &Budget) -> Result<bool, Untested> {
        test_judged(self.inner.handle, self.judgement(), text, budget)
    }

    /// The pattern's source, as given.
    pub fn source(&self) -> &str {
        &self.inner.source
    }

    /// Its flags, without `g` and `y`.
    pub fn flags(&self) -> &str {
        &self.inner.flags
    }
}

/// Tests `text` against the host's pattern `handle` as `judgement` routes it, the test paid from
/// `budget` (what [`Pattern::try_test`] does, for the validator's patterns too).
///
/// # Errors
/// See [`Pattern::try_test`].
pub fn test_judged(handle: u32, judgement: Option<Judgement>, text: &str, budget: &Budget) -> Result<bool, Untested> {
    // A UTF-16 unit is at most three bytes of UTF-8, so a longer text is certainly too long.
    if text.len() / 3 > INPUT_LIMIT {
        return Err(Untested::TooLong);
    }
    let length = utf16_len(text);
    if length > INPUT_LIMIT {
        return Err(Untested::TooLong);
    }
    let judgement = judgement.filter(|judgement| judgement.route.is_some()).ok_or(Untested::NotJudged)?;
    let (steps, linear) = judgement.charge(length as u64).ok_or(Untested::TooLong)?;
    if !budget.take(steps) {
        return Err(Untested::Budget);
    }
    host().and_then(|host| (host.test)(handle, text, linear)).ok_or(Untested::Engine)
}

/// Compiles `source` with `flags` on the host's page engine and asks for its judgement (see
/// [`Pattern::compile`]): the handle and the judgement, when it is loaded.
///
/// # Errors
/// [`PatternError::Invalid`] or [`PatternError::Unsafe`], as [`Pattern::compile`]; the handle is
/// released then.
pub fn compile_judged(source: &str, flags: &str, allow_unsafe: bool) -> Result<(u32, Option<Judgement>), PatternError> {
    let host = host().ok_or_else(|| PatternError::Invalid("no pattern engine is installed".to_owned()))?;
    let handle = (host.compile)(source, flags).map_err(PatternError::Invalid)?;
    let judgement = (host.judge)(handle, source, flags, allow_unsafe).map(Judgement::from_words);
    if let Some(refusal) = judgement.and_then(|judgement| judgement.refusal()) {
        (host.release)(handle);
        return Err(PatternError::Unsafe(refusal));
    }
    Ok((handle, judgement))
}

/// Whether the host's page engine reads `source` with `flags`, without judging it: compiled and
/// released at once (`format: "regex"` in a schema, whose strings are read, never run).
///
/// # Errors
/// Why the page's engine refused it.
pub fn check_syntax(source: &str, flags: &str) -> Result<(), String> {
    let host = host().ok_or_else(|| "no pattern engine is installed".to_owned())?;
    let handle = (host.compile)(source, flags)?;
    (host.release)(handle);
    Ok(())
}

/// Asks the host again for the judgement of pattern `handle` (one compiled before the judgement
/// loaded).
#[must_use]
pub fn judge_later(handle: u32, source: &str, flags: &str, allow_unsafe: bool) -> Option<Judgement> {
    (host()?.judge)(handle, source, flags, allow_unsafe).map(Judgement::from_words)
}

/// Releases the host's pattern `handle`.
pub fn release(handle: u32) {
    if let Some(host) = host() {
        (host.release)(handle);
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
    //! `RegExp`; the judgement and the linear engine linked in, as the package loads them.

    use alloc::borrow::ToOwned;
    use alloc::string::{String, ToString};
    use alloc::vec::Vec;

    use super::Host;
    use crate::strs::cat;

    struct Entry {
        page: regress::Regex,
        source: String,
        flags: String,
        /// Prepared when a judgement needs it; an error here makes linear tests "could not test".
        #[cfg(feature = "linear")]
        linear: Option<Result<super::linear::Linear, String>>,
    }

    /// The compiled patterns, by handle: one table for the process (not one per thread), since
    /// the schema engine keeps its meta-schemas, patterns included, for every thread.
    static TABLE: std::sync::Mutex<Vec<Option<Entry>>> = std::sync::Mutex::new(Vec::new());

    fn with_table<T>(run: impl FnOnce(&mut Vec<Option<Entry>>) -> T) -> T {
        let mut table = TABLE.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        run(&mut table)
    }

    fn compile(source: &str, flags: &str) -> Result<u32, String> {
        // `regress::Error` says its reason only through `Display`; this engine is not in the
        // wasm module, so that `core::fmt` use costs the page nothing.
        let page = regress::Regex::with_flags(source, flags).map_err(|err| cat!["Invalid regular expression: /", source, "/", flags, ": ", err.to_string()])?;
        with_table(|table| {
            let slot = table.iter().position(Option::is_none).unwrap_or(table.len());
            let entry = Entry {
                page,
                source: source.to_owned(),
                flags: flags.to_owned(),
                #[cfg(feature = "linear")]
                linear: None,
            };
            if slot == table.len() {
                table.push(Some(entry));
            } else if let Some(place) = table.get_mut(slot) {
                *place = Some(entry);
            }
            u32::try_from(slot).map_err(|_| "too many patterns".to_owned())
        })
    }

    fn judge(handle: u32, _source: &str, _flags: &str, allow_unsafe: bool) -> Option<[u32; 4]> {
        with_table(|table| {
            let entry = table.get_mut(handle as usize)?.as_mut()?;
            let judgement = super::judge::judge(&entry.source, &entry.flags, allow_unsafe);
            #[cfg(feature = "linear")]
            if matches!(judgement.route, Some(super::Route::Split { .. })) && entry.linear.is_none() {
                entry.linear = Some(super::linear::Linear::new(&entry.source, &entry.flags));
            }
            Some(judgement.to_words())
        })
    }

    fn test(handle: u32, text: &str, linear: bool) -> Option<bool> {
        with_table(|table| {
            let entry = table.get(handle as usize)?.as_ref()?;
            if linear {
                #[cfg(feature = "linear")]
                return entry.linear.as_ref()?.as_ref().ok().map(|engine| engine.is_match(text));
                #[cfg(not(feature = "linear"))]
                return None;
            }
            Some(entry.page.find(text).is_some())
        })
    }

    fn release(handle: u32) {
        with_table(|table| {
            if let Some(entry) = table.get_mut(handle as usize) {
                *entry = None;
            }
        });
    }

    pub(super) fn live() -> usize {
        with_table(|table| table.iter().filter(|entry| entry.is_some()).count())
    }

    pub(super) static NATIVE: Host = Host { compile, judge, test, release };
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
