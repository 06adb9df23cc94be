//! Invisible, format and control characters: what shaping removes from text, decided by Unicode
//! data ([`super::unicode`], generated from the Unicode Character Database; `docs/behaviour.md`,
//! "Shaping", says the rule in words).
//!
//! Removed: `Default_Ignorable_Code_Point` and `Cf` characters, C0 and C1 controls but TAB and LF,
//! and U+2800 BRAILLE PATTERN BLANK. What visible text needs is kept, decided by the neighbours a
//! character has in the input (the one before it, the one before that, the one after it):
//!
//! - a variation selector directly after a base that has a variation sequence with it
//!   (standardized or emoji; at most one: a selector is no base);
//! - ZWJ inside an emoji ZWJ sequence (an `Extended_Pictographic` character after it, and before
//!   it one, an emoji modifier, or VS16 after one), ZWJ and ZWNJ between two characters of the
//!   blocks of joining scripts (Arabic, Syriac, N'Ko, Mongolian, …) and of scripts whose viramas
//!   form conjuncts (Devanagari, Bengali, …);
//! - a Hangul filler next to a Hangul character, U+2800 next to a braille pattern;
//! - CR before LF. Other line breaks (VT, FF, CR, NEL, U+2028, U+2029) become LF.
//!
//! Context characters are never removable themselves, so what kept a character is still beside
//! it in the output: stripping again changes nothing.
//!
//! Two entry points share one walk: [`scan_str`] answers *where* to cut in UTF-16 code units (the
//! JS layer rebuilds its own string with `slice`, and skips everything when there is nothing to
//! cut), [`strip_str`] rewrites a Rust string and borrows it when nothing changes.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU64, AtomicU8, Ordering};

use super::unicode::{CLASS_RUNS, CONTEXT_RUNS, EMOJI_SELECTORS, SELECTOR_SETS, TABLES};

pub use super::unicode::UNICODE_VERSION;

/// The flag classes of removed characters (`provenance.flags`); each one's value is the bit of
/// its flag in [`Flags::bits`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// `Bidi_Control`: U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069.
    Bidi,
    /// U+180E, U+200B–U+200D, U+2060–U+2064, U+FEFF.
    ZeroWidth,
    /// U+E0000–U+E007F (Unicode tag characters, used to smuggle ASCII).
    TagChar,
    /// `Variation_Selector` (selectors smuggle bytes, one per selector).
    VariationSelector,
    /// C0 and C1 controls but TAB and LF, and the line separators that become LF.
    Control,
    /// Every other invisible or format character (soft hyphen, Hangul fillers, U+2800, …).
    OtherInvisible,
}

impl Class {
    /// The bit of the class's flag in [`Flags::bits`].
    #[must_use]
    pub fn bit(self) -> u32 {
        match self {
            Class::Bidi => 1,
            Class::ZeroWidth => 2,
            Class::TagChar => 4,
            Class::VariationSelector => 8,
            Class::Control => 16,
            Class::OtherInvisible => 32,
        }
    }
}

/// The class bits of a class table value (the low 3 bits).
fn class_of_value(value: u8) -> Option<Class> {
    Some(match value & 7 {
        1 => Class::Bidi,
        2 => Class::ZeroWidth,
        3 => Class::TagChar,
        4 => Class::VariationSelector,
        5 => Class::Control,
        6 => Class::OtherInvisible,
        _ => return None,
    })
}

// The keep rules of a class table value (its bits above the class).
const RULE_SELECTOR: u8 = 1;
const RULE_ZWJ: u8 = 2;
const RULE_ZWNJ: u8 = 3;
const RULE_FILLER: u8 = 4;
const RULE_BLANK: u8 = 5;
const RULE_CR: u8 = 6;
const RULE_LINE: u8 = 7;

// The bits of a context table value.
const EXT_PICT: u8 = 1;
const JOINING: u8 = 2;
const HANGUL: u8 = 4;
const BRAILLE: u8 = 8;

/// Reads a LEB128 number at `*at`, moving past it.
fn leb128(bytes: &[u8], at: &mut usize) -> u32 {
    let mut n = 0u32;
    let mut shift = 0u32;
    while let Some(&byte) = bytes.get(*at) {
        *at = at.saturating_add(1);
        n |= u32::from(byte & 0x7F).checked_shl(shift).unwrap_or(0);
        shift = shift.saturating_add(7);
        if byte < 0x80 {
            break;
        }
    }
    n
}

/// Both tables decoded, `first << 29 | last << 8 | value` a run, the class table's then the context table's:
/// a lookup is then a binary search. Filled once, on first use (atomics rather than a lock: the
/// crate has no std; on wasm they are plain loads and stores).
static DECODED: [AtomicU64; CLASS_RUNS + CONTEXT_RUNS] = [const { AtomicU64::new(0) }; CLASS_RUNS + CONTEXT_RUNS];
/// 0: not decoded, 1: being decoded (by another thread), 2: ready.
static STATE: AtomicU8 = AtomicU8::new(0);

/// The decoded runs, decoding them on first use. Each run of an encoded table is LEB128
/// `first - (previous last + 1)`, LEB128 `last - first`, then its value; [`TABLES`] holds
/// [`CLASS_RUNS`] runs of the class table, then the context table's.
fn decoded() -> &'static [AtomicU64] {
    if STATE.load(Ordering::Acquire) != 2 {
        if STATE.compare_exchange(0, 1, Ordering::Acquire, Ordering::Acquire).is_ok() {
            let (mut at, mut next) = (0, 0u32);
            for (i, slot) in DECODED.iter().enumerate() {
                if i == CLASS_RUNS {
                    next = 0;
                }
                let first = next.saturating_add(leb128(TABLES, &mut at));
                let last = first.saturating_add(leb128(TABLES, &mut at));
                let value = TABLES.get(at).copied().unwrap_or(0);
                at = at.saturating_add(1);
                next = last.saturating_add(1);
                slot.store(u64::from(first) << 29 | u64::from(last) << 8 | u64::from(value), Ordering::Relaxed);
            }
            STATE.store(2, Ordering::Release);
        }
        // Another thread decodes (natively; a page has one): it takes microseconds.
        while STATE.load(Ordering::Acquire) != 2 {
            core::hint::spin_loop();
        }
    }
    &DECODED
}

/// The value of `cp` in the decoded runs `slots` (0 when no run holds it).
fn lookup(slots: &[AtomicU64], cp: u32) -> u8 {
    // The last run starting at or before `cp`.
    let (mut low, mut high) = (0usize, slots.len());
    while low < high {
        let mid = low.saturating_add(high.saturating_sub(low) / 2);
        let first = slots.get(mid).map_or(u64::MAX, |s| s.load(Ordering::Relaxed) >> 29);
        if first <= u64::from(cp) {
            low = mid.saturating_add(1);
        } else {
            high = mid;
        }
    }
    let word = low.checked_sub(1).and_then(|i| slots.get(i)).map_or(0, |s| s.load(Ordering::Relaxed));
    if (word >> 8) & 0x1F_FFFF >= u64::from(cp) {
        (word & 0xFF) as u8
    } else {
        0
    }
}

/// The class table's value of `c`: its flag class (low 3 bits) and keep rule (above), or 0 when
/// shaping never removes it. Public for the test that reads the tables back.
#[must_use]
pub fn class_value(c: char) -> u8 {
    let cp = u32::from(c);
    if (0x20..0x7F).contains(&cp) {
        return 0;
    }
    lookup(decoded().get(..CLASS_RUNS).unwrap_or_default(), cp)
}

/// The context table's value of `c` (what the keep rules read of a neighbour). Public for the
/// test that reads the tables back.
#[must_use]
pub fn context_value(c: char) -> u8 {
    lookup(decoded().get(CLASS_RUNS..).unwrap_or_default(), u32::from(c))
}

/// The class of `c` if shaping removes it in some context (a rule may keep or replace it).
#[must_use]
pub fn classify(c: char) -> Option<Class> {
    class_of_value(class_value(c))
}

/// `c` has every bit of `bits` in the context table.
fn has(c: Option<char>, bits: u8) -> bool {
    c.is_some_and(|c| context_value(c) & bits != 0)
}

/// The bit of selector `c` in a selector set (U+FE00–U+FE0F: 0–15; U+180B–U+180D, U+180F: 16–19).
fn selector_bit(c: char) -> u32 {
    let cp = u32::from(c);
    let bit = match cp {
        0xFE00..=0xFE0F => cp.saturating_sub(0xFE00),
        0x180B..=0x180D => cp.saturating_sub(0x180B).saturating_add(16),
        0x180F => 19,
        _ => return 0,
    };
    1u32.checked_shl(bit).unwrap_or(0)
}

/// What becomes of one character.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fate {
    Keep,
    Remove(Class),
    /// Replaced by LF.
    Newline(Class),
}

/// The fate of `c` between `pp`, `p` (before it) and `n` (after it), as the module docs say.
fn fate(pp: Option<char>, p: Option<char>, c: char, n: Option<char>) -> Fate {
    let value = class_value(c);
    let Some(class) = class_of_value(value) else { return Fate::Keep };
    let kept = match value >> 3 {
        RULE_SELECTOR => p.is_some_and(|p| {
            let context = context_value(p);
            let sets = SELECTOR_SETS.get(usize::from(context >> 4)).copied().unwrap_or(0);
            let emoji = if context & EXT_PICT != 0 { EMOJI_SELECTORS } else { 0 };
            (sets | emoji) & selector_bit(c) != 0
        }),
        RULE_ZWJ => {
            let emoji = has(n, EXT_PICT) && (has(p, EXT_PICT) || (p == Some('\u{FE0F}') && has(pp, EXT_PICT)));
            emoji || (has(p, JOINING) && has(n, JOINING))
        }
        RULE_ZWNJ => has(p, JOINING) && has(n, JOINING),
        RULE_FILLER => has(p, HANGUL) || has(n, HANGUL),
        RULE_BLANK => has(p, BRAILLE) || has(n, BRAILLE),
        RULE_CR if n == Some('\n') => true,
        RULE_CR | RULE_LINE => return Fate::Newline(class),
        _ => false,
    };
    if kept {
        Fate::Keep
    } else {
        Fate::Remove(class)
    }
}

/// What shaping removed or changed, one `bool` per kind.
///
/// Crosses the wasm boundary either as [`Flags::bits`] (one `u32`) or as [`Flags::names`]
/// (the strings that go into `provenance.flags`).
// Named bools rather than a bare bitset: callers read `flags.bidi`; `bits()` is the compact form.
#[allow(clippy::struct_excessive_bools)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Flags {
    /// At least one bidi control was removed.
    pub bidi: bool,
    /// At least one zero-width character (or BOM) was removed.
    pub zero_width: bool,
    /// At least one tag character was removed.
    pub tag_chars: bool,
    /// At least one variation selector was removed.
    pub variation_selectors: bool,
    /// At least one control character was removed, or a line separator became LF.
    pub controls: bool,
    /// At least one other invisible or format character was removed.
    pub other_invisible: bool,
    /// At least one image, audio clip or blob was replaced by a text notice.
    pub media_dropped: bool,
    /// At least one unknown or malformed block (or the whole result), or a part of
    /// `structuredContent` JSON cannot say, was replaced by a notice.
    pub unsupported_content: bool,
    /// A part of the result over a limit (content blocks past the first thousand, a
    /// `structuredContent` far over the cap) was dropped unmeasured.
    pub oversized: bool,
    /// The result was cut at the byte cap. Reported as `provenance.truncated`, so it is not
    /// one of [`Flags::names`]: a model reading `provenance` should find it in one place only.
    pub truncated: bool,
}

impl Flags {
    /// The flag names, in the order [`Flags::names`] reports them (and in bit order).
    pub const NAMES: [&'static str; 9] = [
        "bidi",
        "zero_width",
        "tag_chars",
        "variation_selectors",
        "controls",
        "other_invisible",
        "media_dropped",
        "unsupported_content",
        "oversized",
    ];

    /// The bit of `truncated` in [`Flags::bits`], past the named ones.
    pub const TRUNCATED_BIT: u32 = 9;

    fn fields(&self) -> [bool; 10] {
        [
            self.bidi,
            self.zero_width,
            self.tag_chars,
            self.variation_selectors,
            self.controls,
            self.other_invisible,
            self.media_dropped,
            self.unsupported_content,
            self.oversized,
            self.truncated,
        ]
    }

    /// The set flags' names, in the order of [`Flags::NAMES`]; `truncated` is never named.
    #[must_use]
    pub fn names(&self) -> Vec<&'static str> {
        let mut names = Vec::new();
        for (on, name) in self.fields().iter().zip(Self::NAMES) {
            if *on {
                names.push(name);
            }
        }
        names
    }

    /// Sets the flag called `name` (one of [`Flags::NAMES`]); returns `false`, changing
    /// nothing, for any other name.
    pub fn set_name(&mut self, name: &str) -> bool {
        match Self::NAMES.iter().position(|known| *known == name) {
            Some(bit) => {
                *self |= Flags::from_bits(1u32.checked_shl(u32::try_from(bit).unwrap_or(u32::MAX)).unwrap_or(0));
                true
            }
            None => false,
        }
    }

    /// Sets the flag of a removed character's class.
    pub fn mark(&mut self, class: Class) {
        *self = Flags::from_bits(self.bits() | class.bit());
    }

    /// `true` when no flag is set.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.bits() == 0
    }

    /// The flags as a bitset for the wasm boundary: bit *i* is `NAMES[i]`, then bit
    /// [`Flags::TRUNCATED_BIT`] `truncated`.
    #[must_use]
    pub fn bits(&self) -> u32 {
        self.fields()
            .iter()
            .enumerate()
            .fold(0, |acc, (bit, &on)| if on { acc | (1 << bit) } else { acc })
    }

    /// The inverse of [`Flags::bits`]; unknown bits are ignored.
    #[must_use]
    pub fn from_bits(bits: u32) -> Flags {
        let on = |bit: u32| bits & (1 << bit) != 0;
        Flags {
            bidi: on(0),
            zero_width: on(1),
            tag_chars: on(2),
            variation_selectors: on(3),
            controls: on(4),
            other_invisible: on(5),
            media_dropped: on(6),
            unsupported_content: on(7),
            oversized: on(8),
            truncated: on(Self::TRUNCATED_BIT),
        }
    }
}

impl core::ops::BitOr for Flags {
    type Output = Flags;

    fn bitor(self, rhs: Flags) -> Flags {
        Flags::from_bits(self.bits() | rhs.bits())
    }
}

impl core::ops::BitOrAssign for Flags {
    fn bitor_assign(&mut self, rhs: Flags) {
        *self = *self | rhs;
    }
}

/// One edit of a [`Scan`]: the UTF-16 code units `[start, end)` removed, or replaced by LF.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edit {
    /// The first unit.
    pub start: u32,
    /// One past the last unit.
    pub end: u32,
    /// The units become LF (one unit, a line separator) instead of nothing.
    pub newline: bool,
}

/// The bit that marks a replacement by LF on an edit's start in [`Scan::flat`] (JS strings are
/// far shorter than 2³¹ units).
pub const NEWLINE_MARK: u32 = 1 << 31;

/// What [`scan_str`] found: where to cut, and which classes were there.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scan {
    /// `[flagBits, start0, end0, class0, start1, end1, class1, …]`, the form a `Uint32Array`
    /// takes: the edits sorted, each with the flag bit of its class (a removal that touches the
    /// previous one of the same class extends it), a replacement's start carrying
    /// [`NEWLINE_MARK`] (it stays an edit of its own). No edit when the text is clean, the common
    /// case: the JS layer then keeps its string. The class of each edit lets the JS layer keep
    /// the flags of only the edits it keeps.
    pub flat: Vec<u32>,
}

impl Scan {
    /// The classes found (only the character flags are ever set here).
    #[must_use]
    pub fn flags(&self) -> Flags {
        Flags::from_bits(self.flat.first().copied().unwrap_or(0))
    }

    /// The edits, unpacked.
    #[must_use]
    pub fn edits(&self) -> Vec<Edit> {
        let triples = self.flat.get(1..).unwrap_or_default().chunks_exact(3);
        triples
            .map(|edit| {
                let (start, end) = (edit.first().copied().unwrap_or(0), edit.get(1).copied().unwrap_or(0));
                Edit { start: start & !NEWLINE_MARK, end, newline: start & NEWLINE_MARK != 0 }
            })
            .collect()
    }
}

/// Finds what shaping removes or replaces in `text`, as edits in UTF-16 code units of the
/// string (a JS string crosses as UTF-8 into `&str`; the JS layer makes it well-formed first, so
/// each of its characters is one char here and positions stay aligned).
#[must_use]
pub fn scan_str(text: &str) -> Scan {
    let mut flags = Flags::default();
    let mut flat = alloc::vec![0u32];
    let mut position = 0u32;
    let (mut pp, mut p) = (None, None);
    let mut chars = text.chars();
    let mut next = chars.next();
    while let Some(c) = next {
        next = chars.next();
        let end = position.saturating_add(if u32::from(c) > 0xFFFF { 2 } else { 1 });
        let (class, mark) = match fate(pp, p, c, next) {
            Fate::Keep => (None, 0),
            Fate::Remove(class) => (Some(class), 0),
            Fate::Newline(class) => (Some(class), NEWLINE_MARK),
        };
        if let Some(class) = class {
            flags.mark(class);
            let bit = class.bit();
            let len = flat.len();
            // [.., start, end, bit] of the previous edit: extended by a removal of its class that touches it.
            let extends = mark == 0
                && flat.get(len.saturating_sub(3)).is_some_and(|s| s & NEWLINE_MARK == 0)
                && flat.get(len.saturating_sub(2)) == Some(&position)
                && flat.last() == Some(&bit)
                && len > 3;
            match flat.get_mut(len.saturating_sub(2)) {
                Some(last) if extends => *last = end,
                _ => flat.extend_from_slice(&[position | mark, end, bit]),
            }
        }
        (pp, p) = (p, Some(c));
        position = end;
    }
    if let Some(bits) = flat.first_mut() {
        *bits = flags.bits();
    }
    Scan { flat }
}

/// Removes (or replaces) what shaping removes from `s`, borrowing it when nothing changes:
/// [`scan_str`]'s edits applied to the string.
#[must_use]
pub fn strip_str(s: &str) -> (Cow<'_, str>, Flags) {
    let scan = scan_str(s);
    let flags = scan.flags();
    let edits = scan.flat.get(1..).unwrap_or_default();
    if edits.is_empty() {
        return (Cow::Borrowed(s), flags);
    }
    let mut out = String::with_capacity(s.len());
    let (mut at, mut position) = (0usize, 0u32);
    for c in s.chars() {
        // The edit at `at` (its start, end, class) is the first that ends after `position`.
        while edits.get(at.saturating_add(1)).is_some_and(|&end| end <= position) {
            at = at.saturating_add(3);
        }
        match edits.get(at) {
            Some(&start) if start & !NEWLINE_MARK <= position => {
                if start & NEWLINE_MARK != 0 {
                    out.push('\n');
                }
            }
            _ => out.push(c),
        }
        position = position.saturating_add(if u32::from(c) > 0xFFFF { 2 } else { 1 });
    }
    (Cow::Owned(out), flags)
}

/// `true` when shaping would change `s`.
#[must_use]
pub fn has_removable(s: &str) -> bool {
    matches!(strip_str(s).0, Cow::Owned(_))
}

/// The code units left after applying `edits` (as from [`scan_str`]) to `units`, as the JS
/// layer does with `slice`; for tests and non-JS hosts. Edits out of order or out of bounds are
/// clamped, never a panic.
#[must_use]
pub fn apply_edits(units: &[u16], edits: &[Edit]) -> Vec<u16> {
    let mut out = Vec::with_capacity(units.len());
    let mut at = 0usize;
    for edit in edits {
        let start = usize::try_from(edit.start).unwrap_or(usize::MAX).max(at);
        let end = usize::try_from(edit.end).unwrap_or(usize::MAX).max(start);
        out.extend_from_slice(units.get(at..start).unwrap_or_else(|| units.get(at..).unwrap_or_default()));
        if edit.newline {
            out.push(0x0A);
        }
        at = end;
    }
    out.extend_from_slice(units.get(at..).unwrap_or_default());
    out
}

/// The characters shaping may remove or replace (whatever their context), as inclusive ranges
/// `[first0, last0, first1, last1, …]`. The TS layer finds candidates with a regex it writes from
/// them, so clean text never crosses into the core; they come from the same table as
/// [`classify`], so the two agree exactly whatever Unicode version the page's engine knows.
#[must_use]
pub fn candidate_ranges() -> Vec<u32> {
    let mut ranges: Vec<u32> = Vec::new();
    for run in decoded().get(..CLASS_RUNS).unwrap_or_default() {
        let word = run.load(Ordering::Relaxed);
        ranges.push((word >> 29) as u32);
        ranges.push(((word >> 8) & 0x1F_FFFF) as u32);
    }
    ranges
}
