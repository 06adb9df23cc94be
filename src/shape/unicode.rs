//! The Unicode data shaping reads, generated from the Unicode Character Database by
//! `UPDATE_UNICODE=1 cargo test --test unicode_tables` (from `tests/fixtures/ucd-17.0.0.json`);
//! that test fails when this file differs from what the data gives. Do not edit it by hand.
//! What the values mean and how they are read: `super::text`; the rules in words:
//! `docs/behaviour.md`, "Shaping".

/// The Unicode version of the data.
pub const UNICODE_VERSION: &str = "17.0.0";

/// Two tables of runs of code points, each run LEB128 `first - (previous last + 1)`, LEB128
/// `last - first`, then its value. First [`CLASS_RUNS`] runs of the class table (what shaping
/// removes: a flag class in the low 3 bits, a keep rule above), then [`CONTEXT_RUNS`] of the
/// context table (what the keep rules read of a neighbour: Extended_Pictographic or
/// Emoji_Modifier (bit 0), a joining script's block (1), Hangul (2), braille (3), a selector
/// set (4–6)).
pub(super) const TABLES: &[u8] = &[
    0, 8, 5, 2, 1, 61, 0, 0, 53, 0, 17, 5, 95, 5, 5, 0, 0, 61, 0, 25, 5, 13, 0, 6,
    161, 5, 0, 6, 176, 5, 5, 6, 22, 0, 1, 192, 1, 0, 6, 49, 0, 6, 128, 3, 1, 6, 80, 0,
    6, 252, 16, 1, 38, 211, 12, 1, 6, 85, 2, 12, 0, 0, 2, 0, 0, 12, 251, 15, 0, 2, 0, 0,
    26, 0, 0, 18, 0, 1, 1, 24, 1, 61, 0, 4, 1, 49, 4, 2, 0, 0, 6, 0, 3, 1, 0, 5,
    6, 144, 15, 0, 46, 227, 18, 0, 38, 155, 153, 3, 15, 12, 239, 1, 0, 2, 160, 1, 0, 38, 79, 11,
    6, 193, 33, 0, 6, 15, 0, 6, 226, 70, 15, 6, 224, 144, 2, 3, 6, 207, 41, 7, 6, 133, 221, 48,
    127, 3, 0, 127, 6, 0, 239, 1, 4, 0, 143, 28, 6, 35, 0, 16, 6, 0, 16, 5, 0, 32, 0, 8,
    16, 111, 0, 1, 4, 0, 1, 215, 10, 21, 2, 1, 191, 1, 2, 1, 48, 2, 1, 111, 2, 64, 63, 2,
    64, 79, 2, 2, 79, 2, 1, 156, 10, 2, 128, 4, 159, 1, 50, 96, 94, 4, 2, 158, 1, 4, 128, 11,
    51, 2, 2, 73, 2, 0, 10, 66, 5, 159, 1, 66, 240, 2, 143, 1, 2, 80, 191, 1, 2, 216, 8, 1,
    80, 2, 1, 80, 30, 13, 1, 182, 1, 33, 80, 0, 0, 81, 0, 21, 80, 0, 0, 81, 0, 21, 80, 68,
    22, 1, 85, 255, 1, 48, 26, 14, 1, 95, 0, 1, 70, 0, 1, 25, 17, 1, 199, 1, 0, 1, 231, 1,
    22, 1, 58, 236, 2, 1, 45, 42, 1, 65, 254, 1, 8, 52, 1, 1, 134, 2, 1, 48, 95, 1, 48, 13,
    1, 48, 29, 1, 48, 56, 2, 1, 19, 1, 1, 51, 5, 1, 171, 9, 1, 80, 43, 1, 4, 0, 13, 1,
    243, 1, 50, 4, 1, 41, 4, 113, 30, 4, 65, 30, 4, 24, 2, 1, 230, 2, 191, 51, 96, 64, 255, 163,
    1, 96, 128, 16, 47, 2, 16, 63, 50, 0, 95, 2, 128, 1, 28, 4, 3, 95, 2, 128, 1, 31, 48, 96,
    31, 2, 128, 2, 163, 87, 4, 12, 22, 4, 4, 48, 4, 146, 68, 1, 96, 1, 0, 96, 1, 1, 96, 10,
    0, 96, 1, 0, 96, 1, 1, 96, 2, 2, 96, 215, 9, 0, 80, 10, 0, 80, 1, 0, 80, 1, 0, 48,
    9, 1, 80, 3, 0, 80, 129, 1, 29, 4, 3, 5, 4, 2, 5, 4, 2, 5, 4, 2, 2, 4, 163, 20,
    95, 2, 96, 63, 50, 128, 1, 47, 2, 208, 2, 63, 2, 128, 3, 63, 2, 48, 175, 1, 2, 32, 188, 1,
    2, 1, 14, 2, 1, 1, 2, 48, 79, 2, 48, 95, 2, 32, 79, 2, 176, 1, 223, 3, 2, 160, 1, 223,
    1, 2, 32, 79, 2, 176, 2, 79, 2, 176, 1, 95, 2, 64, 143, 2, 2, 208, 2, 111, 2, 144, 1, 175,
    1, 2, 208, 2, 95, 2, 160, 33, 175, 8, 112, 16, 31, 48, 188, 192, 2, 0, 80, 1, 1, 80, 2, 0,
    80, 2, 1, 80, 2, 3, 80, 1, 7, 80, 202, 40, 95, 2, 160, 13, 143, 2, 1, 31, 0, 1, 60, 46,
    1, 18, 56, 1, 27, 25, 1, 20, 160, 8, 1, 48, 127, 1, 116, 11, 1, 85, 58, 1, 56, 23, 1, 40,
    7, 1, 30, 209, 4, 1, 128, 2, 253, 7, 1, 2, 223, 205, 2, 96, 32, 185, 32, 96, 6, 221, 1, 96,
    2, 129, 45, 96, 14, 176, 58, 96, 15, 237, 4, 96, 162, 35, 202, 38, 96, 5, 223, 32, 96,
];

/// The runs of the class table in [`TABLES`].
pub(super) const CLASS_RUNS: usize = 45;

/// The runs of the context table in [`TABLES`].
pub(super) const CONTEXT_RUNS: usize = 139;

/// The selectors a base may take, by the set index of its context value (bits 0–15:
/// U+FE00–U+FE0F, 16–19: U+180B–U+180D, U+180F).
pub(super) const SELECTOR_SETS: [u32; 8] = [0x00000, 0x0C000, 0x0C001, 0x00001, 0x70000, 0x00003, 0x00007, 0x0004F];

/// The selectors of emoji variation sequences, which every Extended_Pictographic base takes.
pub(super) const EMOJI_SELECTORS: u32 = 0xC000;
