//! Invisible and direction-changing characters: finding them in UTF-16 code units
//! and removing them from Rust strings.
//!
//! Two entry points share one classification:
//!
//! - [`scan_utf16`] reads a JS string's code units and returns *where* to cut, never a new
//!   string. Moving a large string into wasm and back costs several times a whole JS regex
//!   pass (`ARCHITECTURE.md`, "Crossing the boundary"), so the JS layer can skip the return copy entirely
//!   when [`Scan::removals`] is empty and otherwise rebuild the string with `slice`.
//! - [`strip_str`] works on Rust strings (text parsed from JSON) and borrows when nothing
//!   changes.
//!
//! The four classes are those of `docs/behaviour.md` ("Shaping"); nothing else is removed (U+00AD SOFT HYPHEN
//! and the BMP variation selectors U+FE00–U+FE0F, which emoji need, are kept).

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;

/// One of the four classes of characters that shaping removes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069.
    Bidi,
    /// U+180E, U+200B–U+200D, U+2060–U+2064, U+FEFF.
    ZeroWidth,
    /// U+E0000–U+E007F (Unicode tag characters, used to smuggle ASCII).
    TagChar,
    /// U+E0100–U+E01EF (the variation selector supplement, used to smuggle bytes).
    VariationSelector,
}

/// The high surrogate shared by every astral class member (U+E0000–U+E03FF).
const ASTRAL_CLASS_HIGH: u16 = 0xDB40;

/// The class of a BMP code unit that is not a surrogate, if it is removed.
fn classify_bmp(unit: u16) -> Option<Class> {
    match unit {
        0x061C | 0x200E | 0x200F | 0x202A..=0x202E | 0x2066..=0x2069 => Some(Class::Bidi),
        0x180E | 0x200B..=0x200D | 0x2060..=0x2064 | 0xFEFF => Some(Class::ZeroWidth),
        _ => None,
    }
}

/// The class of the low surrogate that follows [`ASTRAL_CLASS_HIGH`], if the pair is removed.
fn classify_astral_low(low: u16) -> Option<Class> {
    match low {
        // U+E0000–U+E007F
        0xDC00..=0xDC7F => Some(Class::TagChar),
        // U+E0100–U+E01EF
        0xDD00..=0xDDEF => Some(Class::VariationSelector),
        _ => None,
    }
}

/// The class of `c`, or `None` when shaping keeps it.
#[must_use]
pub fn classify(c: char) -> Option<Class> {
    match u32::from(c) {
        0x061C..=0xFFFF => u16::try_from(u32::from(c)).ok().and_then(classify_bmp),
        0xE0000..=0xE007F => Some(Class::TagChar),
        0xE0100..=0xE01EF => Some(Class::VariationSelector),
        _ => None,
    }
}

/// U+D800–U+DBFF.
fn is_high_surrogate(unit: u16) -> bool {
    (0xD800..=0xDBFF).contains(&unit)
}

/// U+DC00–U+DFFF.
fn is_low_surrogate(unit: u16) -> bool {
    (0xDC00..=0xDFFF).contains(&unit)
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
    /// At least one supplementary variation selector was removed.
    pub variation_selectors: bool,
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
    pub const NAMES: [&'static str; 7] = [
        "bidi",
        "zero_width",
        "tag_chars",
        "variation_selectors",
        "media_dropped",
        "unsupported_content",
        "oversized",
    ];

    /// The set flags' names, in the order of [`Flags::NAMES`]; `truncated` is never named.
    #[must_use]
    pub fn names(&self) -> Vec<&'static str> {
        let bits = self.bits();
        let mut names = Vec::new();
        for (bit, name) in Self::NAMES.iter().enumerate() {
            if bits >> bit & 1 == 1 {
                names.push(*name);
            }
        }
        names
    }

    /// Sets the flag called `name` (one of [`Flags::NAMES`]); returns `false`, changing
    /// nothing, for any other name.
    pub fn set_name(&mut self, name: &str) -> bool {
        let field = match name {
            "bidi" => &mut self.bidi,
            "zero_width" => &mut self.zero_width,
            "tag_chars" => &mut self.tag_chars,
            "variation_selectors" => &mut self.variation_selectors,
            "media_dropped" => &mut self.media_dropped,
            "unsupported_content" => &mut self.unsupported_content,
            "oversized" => &mut self.oversized,
            _ => return false,
        };
        *field = true;
        true
    }

    /// Sets the flag of a removed character's class.
    pub fn mark(&mut self, class: Class) {
        match class {
            Class::Bidi => self.bidi = true,
            Class::ZeroWidth => self.zero_width = true,
            Class::TagChar => self.tag_chars = true,
            Class::VariationSelector => self.variation_selectors = true,
        }
    }

    /// `true` when no flag is set.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.bits() == 0
    }

    /// The flags as a bitset for the wasm boundary: bit 0 `bidi`, 1 `zero_width`,
    /// 2 `tag_chars`, 3 `variation_selectors`, 4 `media_dropped`, 5 `unsupported_content`,
    /// 6 `oversized`, 7 `truncated` (bit *i* below 7 is `NAMES[i]`).
    #[must_use]
    pub fn bits(&self) -> u32 {
        [
            self.bidi,
            self.zero_width,
            self.tag_chars,
            self.variation_selectors,
            self.media_dropped,
            self.unsupported_content,
            self.oversized,
            self.truncated,
        ]
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
            media_dropped: on(4),
            unsupported_content: on(5),
            oversized: on(6),
            truncated: on(7),
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

/// What [`scan_utf16`] found: where to cut, and which classes were there.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scan {
    /// Half-open `[start, end)` ranges of UTF-16 code units to remove, sorted, merged (no two
    /// ranges touch) and never splitting a surrogate pair. Empty when the text is clean,
    /// which is the common case: the JS layer then keeps its own string untouched.
    pub removals: Vec<(u32, u32)>,
    /// The classes found. Only the four character flags are ever set here.
    pub flags: Flags,
}

impl Scan {
    /// The removals flattened to `[start0, end0, start1, end1, …]`, for a `Uint32Array`.
    #[must_use]
    pub fn removals_flat(&self) -> Vec<u32> {
        let mut flat = Vec::with_capacity(self.removals.len().saturating_mul(2));
        push_flat(&mut flat, &self.removals);
        flat
    }

    /// The number of code units the removals take away.
    #[must_use]
    pub fn removed_units(&self) -> u64 {
        self.removals
            .iter()
            .map(|&(s, e)| u64::from(e.saturating_sub(s)))
            .sum()
    }
}

/// Appends `removals` to `flat` as `start0, end0, start1, end1, …`.
pub fn push_flat(flat: &mut Vec<u32>, removals: &[(u32, u32)]) {
    for &(start, end) in removals {
        flat.push(start);
        flat.push(end);
    }
}

/// The smallest code point in any class.
const FIRST_MEMBER: u16 = 0x061C;

/// `true` for a unit that may start a class member: U+061C, U+180E, U+2000–U+207F (which
/// holds every other BMP member but U+FEFF), U+FEFF and the high surrogate of the astral
/// members. Written with non-short-circuit operators so that a chunk of them vectorises.
fn is_candidate(unit: u16) -> bool {
    (unit == 0x061C)
        | (unit == 0x180E)
        | ((unit & 0xFF80) == 0x2000)
        | (unit == 0xFEFF)
        | (unit == ASTRAL_CLASS_HIGH)
}

/// The length of the run at the start of `units` with no [`is_candidate`] unit: the whole
/// cost of scanning clean text. Low surrogates are never candidates, so the run never ends
/// between the halves of a pair.
fn clean_prefix(units: &[u16]) -> usize {
    first_candidate(units, FIRST_MEMBER, is_candidate).unwrap_or(units.len())
}

/// The position of the first item that `is_candidate` selects; no item below `floor` is one.
///
/// Branch-free over fixed-size chunks, so both tests compile to SIMD compares where the target
/// has them, and the exit test runs once per chunk instead of once per item. The maximum
/// settles ASCII/Latin chunks more cheaply than the exact test, which then only runs on other
/// scripts.
fn first_candidate<T: Copy + Ord + Default>(items: &[T], floor: T, is_candidate: fn(T) -> bool) -> Option<usize> {
    const LANES: usize = 16;
    let mut skipped = 0usize;
    for chunk in items.chunks_exact(LANES) {
        if chunk.iter().fold(T::default(), |m, &u| m.max(u)) >= floor
            && chunk.iter().fold(0u8, |any, &u| any | u8::from(is_candidate(u))) != 0
        {
            break;
        }
        skipped = skipped.saturating_add(LANES);
    }
    let at = items.get(skipped..)?.iter().position(|&u| is_candidate(u))?;
    Some(skipped.saturating_add(at))
}

/// Appends `[start, end)` to sorted `removals`, merging with the last range when they touch.
fn push_range(removals: &mut Vec<(u32, u32)>, start: u32, end: u32) {
    if let Some(last) = removals.last_mut() {
        if last.1 == start {
            last.1 = end;
            return;
        }
    }
    removals.push((start, end));
}

/// `i` as a code-unit position. Callers only pass indexes into a slice already limited to
/// `u32::MAX` units, so the fallback is unreachable; it saturates rather than panics.
fn pos(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// Finds the characters of the four classes in a string's UTF-16 code units.
///
/// Astral members (tag characters, supplementary variation selectors) are removed as whole
/// surrogate pairs. Lone surrogates are not in any class and are kept, with one exception:
/// when a removal would make a lone high surrogate touch a lone low surrogate, the low one
/// is removed too. Without that, `"\uDB40\u200B\uDC41"` would lose its zero-width space and
/// *become* the tag character U+E0041, and in general removal would create characters that
/// were not in the input.
///
/// Never panics, for any input. Positions are `u32` (a `Uint32Array` for JS) because JS
/// engines cap strings far below 2³² units; a native caller passing more than `u32::MAX`
/// units gets only the first `u32::MAX` scanned.
#[must_use]
pub fn scan_utf16(units: &[u16]) -> Scan {
    let limit = usize::try_from(u32::MAX).unwrap_or(usize::MAX);
    let units = units.get(..limit).unwrap_or(units);
    let mut flags = Flags::default();
    let mut removals = Vec::new();
    let mut i = 0usize;
    loop {
        i = i.saturating_add(units.get(i..).map_or(0, clean_prefix));
        let Some(&unit) = units.get(i) else { break };
        // `unit` is a candidate: a BMP member, or U+DB40 opening a pair.
        let step = if unit == ASTRAL_CLASS_HIGH {
            let next = units.get(i.saturating_add(1)).copied();
            match next.and_then(classify_astral_low) {
                Some(class) => {
                    flags.mark(class);
                    push_range(&mut removals, pos(i), pos(i).saturating_add(2));
                    2
                }
                // A pair outside the classes or a lone U+DB40: kept. (A following low half
                // is not a candidate, so stepping one unit is enough.)
                None => 1,
            }
        } else {
            if let Some(class) = classify_bmp(unit) {
                flags.mark(class);
                push_range(&mut removals, pos(i), pos(i).saturating_add(1));
            }
            1
        };
        i = i.saturating_add(step);
    }
    if !removals.is_empty() {
        removals = seal_surrogate_joins(units, removals);
    }
    Scan { removals, flags }
}

/// Extends removals so that no lone high surrogate comes to precede a lone low surrogate.
///
/// A unit just before a removal that is a high surrogate is necessarily lone: the removal
/// starts with a BMP class member or an astral pair, never with a low half. Likewise a low
/// surrogate just after a removal is lone, as removals end with a BMP unit or a pair's low
/// half. So the lone lows that follow are removed until something else comes.
fn seal_surrogate_joins(units: &[u16], raw: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    let unit_at = |p: u32| usize::try_from(p).ok().and_then(|i| units.get(i)).copied();
    let mut out: Vec<(u32, u32)> = Vec::with_capacity(raw.len());
    for (start, end) in raw {
        push_range(&mut out, start, end);
        let Some(last) = out.last_mut() else { continue };
        let after_high = last
            .0
            .checked_sub(1)
            .and_then(unit_at)
            .is_some_and(is_high_surrogate);
        if after_high {
            while unit_at(last.1).is_some_and(is_low_surrogate) {
                last.1 = last.1.saturating_add(1);
            }
        }
    }
    out
}

/// The code units left after taking `removals` (as from [`scan_utf16`]) out of `units`.
///
/// This is what the JS layer does with `slice`; it lives here for tests and non-JS hosts.
/// Ranges out of order or out of bounds are clamped, never a panic.
#[must_use]
pub fn apply_removals(units: &[u16], removals: &[(u32, u32)]) -> Vec<u16> {
    let mut out = Vec::with_capacity(units.len());
    let mut at = 0usize;
    for &(start, end) in removals {
        let start = usize::try_from(start).unwrap_or(usize::MAX).max(at);
        let end = usize::try_from(end).unwrap_or(usize::MAX).max(start);
        out.extend_from_slice(
            units
                .get(at..start)
                .unwrap_or_else(|| units.get(at..).unwrap_or_default()),
        );
        at = end;
    }
    out.extend_from_slice(units.get(at..).unwrap_or_default());
    out
}

/// `true` for a UTF-8 lead byte that may start a class member: U+061C → D8,
/// U+180E → E1, U+200B–U+2069 → E2, U+FEFF → EF, U+E0000–U+E01EF → F3.
fn is_lead_candidate(byte: u8) -> bool {
    (byte == 0xD8) | (byte == 0xE1) | (byte == 0xE2) | (byte == 0xEF) | (byte == 0xF3)
}

/// The position of the first [`is_lead_candidate`] byte; a lead byte is a char boundary, so
/// the slow scan can start there.
fn first_lead_byte(bytes: &[u8]) -> Option<usize> {
    first_candidate(bytes, 0xD8, is_lead_candidate)
}

/// Removes the four classes from `s`, borrowing it when it holds none of them.
///
/// A Rust string has no lone surrogates, so this agrees exactly with [`scan_utf16`] followed
/// by [`apply_removals`] on the string's UTF-16 form.
#[must_use]
pub fn strip_str(s: &str) -> (Cow<'_, str>, Flags) {
    let mut flags = Flags::default();
    let Some(first) = first_lead_byte(s.as_bytes()) else {
        return (Cow::Borrowed(s), flags);
    };
    let (head, tail) = s.split_at_checked(first).unwrap_or((s, ""));
    let mut out: Option<String> = None;
    for (i, c) in tail.char_indices() {
        match classify(c) {
            Some(class) => {
                flags.mark(class);
                if out.is_none() {
                    let mut buf = String::with_capacity(s.len());
                    buf.push_str(head);
                    buf.push_str(tail.get(..i).unwrap_or_default());
                    out = Some(buf);
                }
            }
            None => {
                if let Some(buf) = out.as_mut() {
                    buf.push(c);
                }
            }
        }
    }
    match out {
        Some(buf) => (Cow::Owned(buf), flags),
        None => (Cow::Borrowed(s), flags),
    }
}

/// `true` when `s` holds a character of one of the four classes.
#[must_use]
pub fn has_removable(s: &str) -> bool {
    s.chars().any(|c| classify(c).is_some())
}

/// A JS regex source (no flags, so it matches code units) that matches exactly the removable
/// characters of the four classes (astral ones as their surrogate pairs). The TS layer tests
/// text with it before asking the core anything, so clean text never crosses the boundary —
/// including prose full of typographic punctuation (U+2013, U+201C, U+2026), which a broader
/// range would send across; the classes themselves stay defined here (a test checks the
/// pattern against [`classify`] for every BMP character and every astral class member).
pub const CANDIDATE_PATTERN_JS: &str =
    r"[\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]|\uDB40[\uDC00-\uDC7F\uDD00-\uDDEF]";

/// [`scan_utf16`] for text that arrives as UTF-8 (a JS string passed as `&str`), with the
/// removal ranges still in UTF-16 code units of the original string.
///
/// Crossing as `&str` uses the engine's fast UTF-8 encoder instead of a per-unit copy. Lone
/// surrogates arrive as U+FFFD, which is also one unit, so positions stay aligned; but the
/// "never join two lone surrogates" rule of [`scan_utf16`] cannot be applied here, so the JS
/// layer only uses this for well-formed strings (`String.prototype.isWellFormed`).
#[must_use]
pub fn scan_str(text: &str) -> Scan {
    let mut flags = Flags::default();
    let mut removals = Vec::new();
    let mut position = 0u32;
    let bytes = text.as_bytes();
    for (index, &byte) in bytes.iter().enumerate() {
        // UTF-16 width from the UTF-8 lead byte: continuation bytes add nothing, 4-byte
        // sequences are surrogate pairs. A byte loop, because clean text is the common case.
        if byte < 0x80 {
            position = position.saturating_add(1);
            continue;
        }
        if byte < 0xC0 {
            continue;
        }
        let width = if byte >= 0xF0 { 2 } else { 1 };
        // Only these lead bytes start a member: U+061C (D8), U+180E (E1), U+2000–U+207F
        // (E2), U+FEFF (EF) and the astral classes (F3).
        if matches!(byte, 0xD8 | 0xE1 | 0xE2 | 0xEF | 0xF3) {
            if let Some(class) = text.get(index..).and_then(|rest| rest.chars().next()).and_then(classify) {
                flags.mark(class);
                push_range(&mut removals, position, position.saturating_add(width));
            }
        }
        position = position.saturating_add(width);
    }
    Scan { removals, flags }
}
