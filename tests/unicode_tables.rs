//! The Unicode tables shaping reads (`src/shape/unicode.rs`) are derived here from the Unicode
//! Character Database (`tests/fixtures/ucd-17.0.0.json`, written by `scripts/ucd-slice.mjs`), and
//! this test fails when the committed file differs from what the data gives:
//! `UPDATE_UNICODE=1 cargo test --test unicode_tables` rewrites it. The rules that turn the data
//! into tables are here, in one place; `docs/behaviour.md` ("Shaping") says them in words.
//!
//! It also reads the tables back through the core, for every code point.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use std::collections::BTreeMap;
use std::fmt::Write as _;

use webmcp_warden::shape::text::{class_value, context_value, UNICODE_VERSION};

const DATA: &str = include_str!("fixtures/ucd-17.0.0.json");
const TABLES: &str = "src/shape/unicode.rs";
const CODE_POINTS: usize = 0x11_0000;

// The values of the class table: the flag a removal sets (low 3 bits) and the rule that may keep
// or replace the character (the bits above). `src/shape/text.rs` reads them the same way.
const BIDI: u8 = 1;
const ZERO_WIDTH: u8 = 2;
const TAG: u8 = 3;
const SELECTOR: u8 = 4;
const CONTROL: u8 = 5;
const OTHER: u8 = 6;
const RULE_SELECTOR: u8 = 1 << 3;
const RULE_ZWJ: u8 = 2 << 3;
const RULE_ZWNJ: u8 = 3 << 3;
const RULE_FILLER: u8 = 4 << 3;
const RULE_BLANK: u8 = 5 << 3;
const RULE_CR: u8 = 6 << 3;
const RULE_LINE: u8 = 7 << 3;

// The bits of the context table (only characters shaping never removes have any).
const EXT_PICT: u8 = 1;
const JOINING: u8 = 2;
const HANGUL: u8 = 4;
const BRAILLE: u8 = 8;
const SELECTOR_SET_SHIFT: u8 = 4;

/// The widest gap between two ranges of Extended_Pictographic filled in (see `derive`).
const PICTOGRAPHIC_GAP: usize = 16;

/// `true` for a code point Default_Ignorable, Cf or Cc (the removable ones a gap must not hold).
fn removable_input(di: &[bool], cf: &[bool], cc: &[bool], cp: usize) -> bool {
    di[cp] || cf[cp] || cc[cp]
}

/// ZERO WIDTH JOINER and NON-JOINER (Join_Control), told apart by their rules.
const ZWJ: u32 = 0x200D;
const ZWNJ: u32 = 0x200C;
/// The characters the `zero_width` flag names (a name for a group, not a removal rule: every
/// one of them is `Default_Ignorable_Code_Point` or `Cf`).
const ZERO_WIDTH_CHARS: [(u32, u32); 4] = [(0x180E, 0x180E), (0x200B, 0x200D), (0x2060, 0x2064), (0xFEFF, 0xFEFF)];
/// U+2800 BRAILLE PATTERN BLANK renders as nothing in most fonts and is no `White_Space`: it is
/// removed outside braille text (the issue names it; no property says "blank").
const BRAILLE_BLANK: u32 = 0x2800;
/// The selectors a table can name: U+FE00–U+FE0F as bits 0–15, the Mongolian free variation
/// selectors U+180B–U+180D and U+180F as bits 16–19. The supplement (U+E0100–U+E01EF) is only
/// used by ideographic variation sequences, which are not standardized: always removed.
fn selector_bit(cp: u32) -> Option<u32> {
    match cp {
        0xFE00..=0xFE0F => Some(cp - 0xFE00),
        0x180B..=0x180D => Some(cp - 0x180B + 16),
        0x180F => Some(19),
        _ => None,
    }
}

fn data() -> serde_json::Value {
    serde_json::from_str(DATA).expect("the UCD slice is JSON")
}

fn hex(text: &str) -> u32 {
    u32::from_str_radix(text.trim(), 16).unwrap_or_else(|_| panic!("not hex: {text:?}"))
}

/// `"XXXX"` or `"XXXX..YYYY"` (a block: `"XXXX..YYYY; Name"`).
fn range(text: &str) -> (u32, u32) {
    let text = text.split(';').next().unwrap();
    match text.split_once("..") {
        Some((a, b)) => (hex(a), hex(b)),
        None => (hex(text), hex(text)),
    }
}

fn set(data: &serde_json::Value, key: &str) -> Vec<bool> {
    let mut out = vec![false; CODE_POINTS];
    for entry in data[key].as_array().unwrap_or_else(|| panic!("no {key} in the slice")) {
        let (a, b) = range(entry.as_str().unwrap());
        for cp in a..=b {
            out[cp as usize] = true;
        }
    }
    out
}

fn sequences(data: &serde_json::Value, key: &str) -> Vec<(u32, u32)> {
    data[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let mut parts = s.as_str().unwrap().split(' ').map(hex);
            let pair = (parts.next().unwrap(), parts.next().unwrap());
            assert!(parts.next().is_none(), "a sequence of more than two: {s}");
            pair
        })
        .collect()
}

struct Block {
    first: u32,
    last: u32,
    name: String,
}

fn blocks(data: &serde_json::Value) -> Vec<Block> {
    data["Blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            let text = b.as_str().unwrap();
            let (first, last) = range(text);
            Block { first, last, name: text.split_once("; ").unwrap().1.to_owned() }
        })
        .collect()
}

fn block_of(blocks: &[Block], cp: u32) -> Option<&Block> {
    blocks.iter().find(|b| (b.first..=b.last).contains(&cp))
}

/// Every code point's class value and context value, as the data says.
struct Derived {
    class: Vec<u8>,
    context: Vec<u8>,
    selector_sets: Vec<u32>,
    emoji_selectors: u32,
}

fn derive() -> Derived {
    let data = data();
    assert_eq!(data["version"].as_str(), Some(UNICODE_VERSION), "the slice and the tables name the same Unicode version");
    let blocks = blocks(&data);
    let cc = set(&data, "General_Category_Cc");
    let cf = set(&data, "General_Category_Cf");
    let di = set(&data, "Default_Ignorable_Code_Point");
    let bidi = set(&data, "Bidi_Control");
    let join_control = set(&data, "Join_Control");
    let selectors = set(&data, "Variation_Selector");
    let (bk, cr, nl) = (set(&data, "Line_Break_BK"), set(&data, "Line_Break_CR"), set(&data, "Line_Break_NL"));
    let mut ext_pict = set(&data, "Extended_Pictographic");
    let modifier = set(&data, "Emoji_Modifier");
    let hangul = set(&data, "Script_Hangul");
    let ideograph = set(&data, "Unified_Ideograph");
    let joining_letters = set(&data, "Joining_Type_D_L_R");
    let viramas = set(&data, "Indic_Syllabic_Category_Virama_Invisible_Stacker");
    let tags = blocks.iter().find(|b| b.name == "Tags").expect("a Tags block");
    let braille = blocks.iter().find(|b| b.name == "Braille Patterns").expect("a Braille Patterns block");
    assert!(join_control[ZWJ as usize] && join_control[ZWNJ as usize]);
    // Extended_Pictographic is dense where emoji are: a gap of at most 16 code points between two
    // of its ranges counts as pictographic too (a superset with far fewer ranges; it only widens
    // what an emoji's neighbour may be). A gap holding a removable character stays a gap.
    let mut gap_start = None;
    for cp in 0..CODE_POINTS {
        match (ext_pict[cp], gap_start) {
            (true, Some(start)) if cp - start <= PICTOGRAPHIC_GAP && !(start..cp).any(|c| removable_input(&di, &cf, &cc, c)) => {
                ext_pict[start..cp].iter_mut().for_each(|b| *b = true);
                gap_start = None;
            }
            (true, _) => gap_start = None,
            (false, None) if cp > 0 && ext_pict[cp - 1] => gap_start = Some(cp),
            _ => {}
        }
    }

    // What shaping removes (unless a rule keeps or replaces it): Default_Ignorable_Code_Point,
    // Cf, C0/C1 controls but TAB and LF, the other line breaks (Line_Break BK, CR, NL: VT, FF,
    // CR, NEL, U+2028, U+2029) and U+2800.
    let mut class = vec![0u8; CODE_POINTS];
    for cp in 0..CODE_POINTS as u32 {
        let i = cp as usize;
        let line = bk[i] || cr[i] || nl[i];
        if !(di[i] || cf[i] || cc[i] || line || cp == BRAILLE_BLANK) || cp == 0x09 || cp == 0x0A {
            continue;
        }
        let flag = if cc[i] || line {
            CONTROL
        } else if bidi[i] {
            BIDI
        } else if selectors[i] {
            SELECTOR
        } else if (tags.first..=tags.last).contains(&cp) {
            TAG
        } else if ZERO_WIDTH_CHARS.iter().any(|&(a, b)| (a..=b).contains(&cp)) {
            ZERO_WIDTH
        } else {
            OTHER
        };
        let rule = if selectors[i] && selector_bit(cp).is_some() {
            RULE_SELECTOR
        } else if cp == ZWJ {
            RULE_ZWJ
        } else if cp == ZWNJ {
            RULE_ZWNJ
        } else if hangul[i] {
            // The Hangul fillers (U+115F, U+1160, U+3164, U+FFA0): Default_Ignorable Hangul letters.
            RULE_FILLER
        } else if (braille.first..=braille.last).contains(&cp) {
            RULE_BLANK
        } else if cr[i] {
            RULE_CR
        } else if line {
            RULE_LINE
        } else {
            0
        };
        class[i] = flag | rule;
    }
    let removable = |cp: u32| class[cp as usize] != 0;

    // Context: what the rules read of the neighbours. Blocks of joining scripts: those holding a
    // Dual-, Left- or Right-joining letter (Arabic, Syriac, N'Ko, Mongolian, …) or a virama that
    // forms conjuncts (Indic_Syllabic_Category Virama or Invisible_Stacker: Devanagari, …).
    let mut joining_blocks: Vec<&Block> = Vec::new();
    for cp in 0..CODE_POINTS as u32 {
        if joining_letters[cp as usize] || viramas[cp as usize] {
            let block = block_of(&blocks, cp).expect("a joining letter in a block");
            if !joining_blocks.iter().any(|b| b.first == block.first) {
                joining_blocks.push(block);
            }
        }
    }
    let mut context = vec![0u8; CODE_POINTS];
    for cp in 0..CODE_POINTS as u32 {
        let i = cp as usize;
        if removable(cp) {
            continue;
        }
        let mut bits = 0;
        // Emoji modifiers (skin tones) count as pictographic: a ZWJ may follow one.
        if ext_pict[i] || modifier[i] {
            bits |= EXT_PICT;
        }
        if joining_blocks.iter().any(|b| (b.first..=b.last).contains(&cp)) {
            bits |= JOINING;
        }
        if hangul[i] {
            bits |= HANGUL;
        }
        if (braille.first..=braille.last).contains(&cp) {
            bits |= BRAILLE;
        }
        context[i] = bits;
    }

    // Variation bases. Emoji variation sequences: every base but the keycap ones (#, *, 0–9) is
    // Extended_Pictographic, so an Extended_Pictographic character counts as a base of the
    // emoji selectors (a superset of the listed bases); the others are listed exactly.
    let mut masks = vec![0u32; CODE_POINTS];
    let mut emoji_selectors = 0u32;
    for (base, selector) in sequences(&data, "Emoji_Variation_Sequences") {
        let bit = 1 << selector_bit(selector).expect("an emoji selector in U+FE00–U+FE0F");
        emoji_selectors |= bit;
        if !ext_pict[base as usize] {
            masks[base as usize] |= bit;
        }
    }
    assert_eq!(emoji_selectors, 0xC000, "emoji variation sequences use VS15 and VS16");
    // Standardized variation sequences. CJK: every Unified_Ideograph counts as a base of the
    // selectors the ideographs' sequences use (the compatibility variants, dense in the blocks).
    // Others, by block: where bases are at least 1/16 of the block's code points, the whole
    // block counts as a base of the selectors its sequences use; elsewhere the bases are exact.
    let mut ideograph_mask = 0u32;
    let mut by_block: BTreeMap<u32, Vec<(u32, u32)>> = BTreeMap::new();
    for (base, selector) in sequences(&data, "StandardizedVariants") {
        let bit = 1 << selector_bit(selector).unwrap_or_else(|| panic!("a standardized selector outside the table: {selector:X}"));
        if ideograph[base as usize] {
            ideograph_mask |= bit;
        } else {
            by_block.entry(block_of(&blocks, base).unwrap().first).or_default().push((base, bit));
        }
    }
    for cp in 0..CODE_POINTS {
        if ideograph[cp] {
            masks[cp] |= ideograph_mask;
        }
    }
    for (first, entries) in &by_block {
        let block = blocks.iter().find(|b| b.first == *first).unwrap();
        let mut bases: Vec<u32> = entries.iter().map(|&(b, _)| b).collect();
        bases.dedup();
        if bases.len() * 16 >= (block.last - block.first + 1) as usize {
            let union = entries.iter().fold(0, |m, &(_, bit)| m | bit);
            for cp in block.first..=block.last {
                masks[cp as usize] |= union;
            }
        } else {
            for &(base, bit) in entries {
                masks[base as usize] |= bit;
            }
        }
    }
    let mut selector_sets: Vec<u32> = vec![0];
    for cp in 0..CODE_POINTS as u32 {
        let mask = masks[cp as usize];
        if mask == 0 || removable(cp) {
            continue;
        }
        let index = match selector_sets.iter().position(|&m| m == mask) {
            Some(index) => index,
            None => {
                selector_sets.push(mask);
                selector_sets.len() - 1
            }
        };
        assert!(index < 8, "more than 7 selector sets: the context value has 3 bits for them");
        context[cp as usize] |= (index as u8) << SELECTOR_SET_SHIFT;
    }
    Derived { class, context, selector_sets, emoji_selectors }
}

/// `(first, last, value)` runs of equal non-zero values.
fn runs(values: &[u8]) -> Vec<(u32, u32, u8)> {
    let mut out: Vec<(u32, u32, u8)> = Vec::new();
    for (cp, &value) in values.iter().enumerate() {
        let cp = cp as u32;
        if value == 0 {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.1 + 1 == cp && last.2 == value => last.1 = cp,
            _ => out.push((cp, cp, value)),
        }
    }
    out
}

fn varint(out: &mut Vec<u8>, mut n: u32) {
    while n >= 0x80 {
        out.push((n & 0x7F) as u8 | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// Each run as LEB128 `first - (previous last + 1)`, LEB128 `last - first`, then the value.
fn encode(runs: &[(u32, u32, u8)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut next = 0;
    for &(first, last, value) in runs {
        varint(&mut out, first - next);
        varint(&mut out, last - first);
        out.push(value);
        next = last + 1;
    }
    out
}

fn bytes(name: &str, doc: &str, bytes: &[u8]) -> String {
    let mut out = format!("/// {doc}\npub(super) const {name}: &[u8] = &[");
    for (i, b) in bytes.iter().enumerate() {
        if i % 24 == 0 {
            out.push_str("\n   ");
        }
        write!(out, " {b},").unwrap();
    }
    out.push_str("\n];\n");
    out
}

fn render(derived: &Derived) -> String {
    let class_runs = runs(&derived.class);
    let context_runs = runs(&derived.context);
    let mut out = String::new();
    out.push_str(
        "//! The Unicode data shaping reads, generated from the Unicode Character Database by\n\
         //! `UPDATE_UNICODE=1 cargo test --test unicode_tables` (from `tests/fixtures/ucd-17.0.0.json`);\n\
         //! that test fails when this file differs from what the data gives. Do not edit it by hand.\n\
         //! What the values mean and how they are read: `super::text`; the rules in words:\n\
         //! `docs/behaviour.md`, \"Shaping\".\n\n",
    );
    writeln!(out, "/// The Unicode version of the data.\npub const UNICODE_VERSION: &str = {UNICODE_VERSION:?};\n").unwrap();
    let mut tables = encode(&class_runs);
    tables.extend(encode(&context_runs));
    out.push_str(&bytes(
        "TABLES",
        "Two tables of runs of code points, each run LEB128 `first - (previous last + 1)`, LEB128\n/// `last - first`, then its value. First [`CLASS_RUNS`] runs of the class table (what shaping\n/// removes: a flag class in the low 3 bits, a keep rule above), then [`CONTEXT_RUNS`] of the\n/// context table (what the keep rules read of a neighbour: Extended_Pictographic or\n/// Emoji_Modifier (bit 0), a joining script's block (1), Hangul (2), braille (3), a selector\n/// set (4–6)).",
        &tables,
    ));
    writeln!(out, "\n/// The runs of the class table in [`TABLES`].\npub(super) const CLASS_RUNS: usize = {};\n", class_runs.len()).unwrap();
    writeln!(out, "/// The runs of the context table in [`TABLES`].\npub(super) const CONTEXT_RUNS: usize = {};\n", context_runs.len()).unwrap();
    let sets: Vec<String> = derived.selector_sets.iter().map(|m| format!("0x{m:05X}")).collect();
    writeln!(
        out,
        "/// The selectors a base may take, by the set index of its context value (bits 0–15:\n/// U+FE00–U+FE0F, 16–19: U+180B–U+180D, U+180F).\npub(super) const SELECTOR_SETS: [u32; {}] = [{}];\n",
        sets.len(),
        sets.join(", ")
    )
    .unwrap();
    writeln!(out, "/// The selectors of emoji variation sequences, which every Extended_Pictographic base takes.\npub(super) const EMOJI_SELECTORS: u32 = 0x{:04X};", derived.emoji_selectors).unwrap();
    out
}

#[test]
fn committed_tables_match_the_data() {
    let expected = render(&derive());
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(TABLES);
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed != expected {
        if std::env::var_os("UPDATE_UNICODE").is_some() {
            std::fs::write(&path, &expected).unwrap();
            eprintln!("rewrote {TABLES}");
        } else {
            panic!("{TABLES} differs from the Unicode data: run `UPDATE_UNICODE=1 cargo test --test unicode_tables`");
        }
    }
}

#[test]
fn the_core_reads_back_every_code_point() {
    let derived = derive();
    let mut wrong = Vec::new();
    for cp in 0..CODE_POINTS as u32 {
        let Some(c) = char::from_u32(cp) else { continue };
        let (class, context) = (class_value(c), context_value(c));
        if class != derived.class[cp as usize] || context != derived.context[cp as usize] {
            wrong.push(format!("U+{cp:04X}: class {class} context {context}"));
        }
    }
    assert!(wrong.is_empty(), "{} code points read wrong: {:?}", wrong.len(), &wrong[..wrong.len().min(20)]);
}

#[test]
fn the_data_holds_what_the_rules_assume() {
    let derived = derive();
    // No removable character is ever context: a kept character's neighbours stay in the output.
    for cp in 0..CODE_POINTS {
        assert!(derived.class[cp] == 0 || derived.context[cp] == 0, "U+{cp:04X} is removable and context");
    }
    // The survivors are all removed now.
    for cp in [0x206A, 0x206F, 0xFFF9, 0xFFFB, 0x034F, 0x180B, 0x180F, 0x1D173, 0x1D17A, 0x13430, 0x1343F, 0x1BCA0, 0x1BCA3, 0x2800, 0x115F, 0x1160, 0x1B, 0x85, 0x2028, 0x2029, 0x3164, 0xFFA0] {
        assert_ne!(derived.class[cp], 0, "U+{cp:04X}");
    }
    for cp in [0x09, 0x0A, 0x20, 0x41, 0xA0, 0x3000] {
        assert_eq!(derived.class[cp], 0, "U+{cp:04X}");
    }
}
