//! The JSON length of a value, as `JSON.stringify(value)` would write it, in UTF-8 bytes, with
//! no serializer and no float formatting.
//!
//! Shaping caps `structuredContent` by its compact JSON length (see `docs/behaviour.md`, "Shaping").
//! Everything but numbers can be counted here exactly: `null`, `true`, `false`, brackets,
//! commas, colons, and strings with the escapes `JSON.stringify` writes (`\"`, `\\`, `\b`,
//! `\f`, `\n`, `\r`, `\t`, `\u00XX` for other control characters; everything else raw).
//! Integers below 10²¹ are counted too: their JS text is their decimal digits. The text of any
//! other number (`0.1`, `1e+21`) comes from the shortest round-trip formatting of JS, which the
//! core does not ship; the TS layer sends the length of each such number's `String(n)` in a
//! [`NumberLengths`] table. A number missing from the table counts as [`MAX_NUMBER_TEXT`], the
//! longest text a JS number has, so a native caller without a table never under-counts.
//!
//! Values that are not JSON (a function, a RegExp, an unsupported value) and arrays or objects
//! at depth [`super::MAX_DEPTH`] count as the notice string shaping puts in their place, so the
//! same function measures a raw value and its shaped form. Recursion is bounded by that depth.

use alloc::vec::Vec;

use crate::value::{is_whole, Value};

/// The longest text `String(n)` gives for a finite JS number: `-0.000001234567890123456`
/// followed by one more digit (25 characters).
pub const MAX_NUMBER_TEXT: usize = 25;

/// The UTF-8 length of the JS text of numbers the core cannot format (non-integers, and
/// integers of 10²¹ or more), keyed by the number's bits.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NumberLengths {
    /// Sorted by bits, no duplicates.
    entries: Vec<(u64, usize)>,
}

impl NumberLengths {
    /// A table from `(number, length of String(number))` pairs, in any order; a number given
    /// twice keeps one of its lengths (they are the same: a number has one `String(n)`).
    pub fn new(pairs: impl IntoIterator<Item = (f64, usize)>) -> NumberLengths {
        let mut entries = Vec::new();
        for (n, len) in pairs {
            entries.push((n.to_bits(), len));
        }
        NumberLengths::from_bits(entries)
    }

    /// A table from `(bits of the number, length)` entries, in any order.
    ///
    /// Sorted by a heapsort written here rather than `sort_unstable`: the standard sorts link
    /// much code for this one table (pattern-defeating quicksort, small-sort networks, a
    /// heapsort fallback), and the table is small and built once per shaped result.
    pub fn from_bits(mut entries: Vec<(u64, usize)>) -> NumberLengths {
        let len = entries.len();
        let mut start = len / 2;
        while start > 0 {
            start = start.saturating_sub(1);
            sift_down(&mut entries, start, len);
        }
        let mut end = len;
        while end > 1 {
            end = end.saturating_sub(1);
            swap(&mut entries, 0, end);
            sift_down(&mut entries, 0, end);
        }
        // Sorted: equal keys are neighbours, and the first of each run is kept.
        let mut unique: Vec<(u64, usize)> = Vec::with_capacity(len);
        for entry in entries {
            if unique.last().is_none_or(|last| last.0 != entry.0) {
                unique.push(entry);
            }
        }
        NumberLengths { entries: unique }
    }

    /// How many numbers the table holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The length of `String(n)` for a finite `n`: computed for integers below 10²¹, looked up
    /// otherwise, [`MAX_NUMBER_TEXT`] when the table does not hold it.
    pub fn text_len(&self, n: f64) -> usize {
        if let Some(len) = integer_text_len(n) {
            return len;
        }
        let bits = n.to_bits();
        match self.entries.binary_search_by_key(&bits, |&(b, _)| b) {
            Ok(at) => self.entries.get(at).map_or(MAX_NUMBER_TEXT, |&(_, len)| len),
            Err(_) => MAX_NUMBER_TEXT,
        }
    }
}

/// Moves `entries[root]` down the max-heap `entries[..end]` (by bits) to its place.
fn sift_down(entries: &mut [(u64, usize)], mut root: usize, end: usize) {
    loop {
        let key = |at: usize| entries.get(at).map_or(0, |entry| entry.0);
        let left = root.saturating_mul(2).saturating_add(1);
        if left >= end {
            return;
        }
        let right = left.saturating_add(1);
        let child = if right < end && key(right) > key(left) { right } else { left };
        if key(root) >= key(child) {
            return;
        }
        swap(entries, root, child);
        root = child;
    }
}

/// Exchanges two entries, doing nothing for an index out of range. `slice::swap` would panic
/// there instead, and its panic is the module's only use of core's index-out-of-bounds panic
/// with its formatted message.
fn swap(entries: &mut [(u64, usize)], a: usize, b: usize) {
    if let (Some(&first), Some(&second)) = (entries.get(a), entries.get(b)) {
        if let Some(slot) = entries.get_mut(a) {
            *slot = second;
        }
        if let Some(slot) = entries.get_mut(b) {
            *slot = first;
        }
    }
}

/// The length of the JS text of an integer-valued `n` with |n| < 10²¹, which JS writes as its
/// decimal digits (a leading `-` when negative; `-0` is `0`); `None` for anything else.
///
/// The digit count of the shortest round-trip form equals that of the exact value here: every
/// power of ten up to 10²¹ is a double, so no shorter form can round across one.
pub fn integer_text_len(n: f64) -> Option<usize> {
    let magnitude = n.abs();
    if !is_whole(n) || magnitude >= 1e21 {
        return None;
    }
    // Count the powers of ten not above it. Each power of ten up to 10²¹ is exactly a double
    // and `power * 10.0` is exact up there, so the comparisons are exact (and no u128
    // division is linked).
    let mut digits = 1usize;
    let mut power = 10.0f64;
    while magnitude >= power {
        digits = digits.saturating_add(1);
        power *= 10.0;
    }
    Some(digits.saturating_add(usize::from(n < 0.0)))
}

/// The length of `JSON.stringify(text)` in UTF-8 bytes, quotes included.
pub fn string_len(text: &str) -> usize {
    text.bytes().fold(2usize, |sum, byte| {
        let width = match byte {
            b'"' | b'\\' | 0x08 | 0x0c | b'\n' | b'\r' | b'\t' => 2,
            0x00..=0x1f => 6,
            _ => 1,
        };
        sum.saturating_add(width)
    })
}

/// The compact JSON length of `value` in UTF-8 bytes, as the module docs define it.
pub fn json_len(value: &Value, numbers: &NumberLengths) -> usize {
    len_at(value, 0, numbers)
}

fn len_at(value: &Value, depth: usize, numbers: &NumberLengths) -> usize {
    let deeper = depth.saturating_add(1);
    match value {
        Value::Null | Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(n) => numbers.text_len(*n),
        Value::String(text) => string_len(text),
        Value::Array(_) | Value::Object(_) if depth >= super::MAX_DEPTH => string_len(&super::too_deep_notice()),
        Value::Array(items) => items
            .iter()
            .fold(2usize.saturating_add(items.len().saturating_sub(1)), |sum, item| {
                sum.saturating_add(len_at(item, deeper, numbers))
            }),
        Value::Object(map) => map.iter().fold(2usize.saturating_add(map.len().saturating_sub(1)), |sum, (key, item)| {
            sum.saturating_add(string_len(key)).saturating_add(1).saturating_add(len_at(item, deeper, numbers))
        }),
        Value::Function(_) | Value::Regex { .. } | Value::Unsupported(_) => {
            string_len(&super::removed_notice(value.type_name()))
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use alloc::{format, vec};

    use super::*;
    use crate::object;

    #[test]
    fn integers_are_counted_without_formatting() {
        for (n, len) in [
            (0.0, 1),
            (-0.0, 1),
            (7.0, 1),
            (-7.0, 2),
            (10.0, 2),
            (99.0, 2),
            (100.0, 3),
            (9_007_199_254_740_993.0, 16),
            (1e20, 21),
            (-123_456_789_012_345_680_000.0, 22),
        ] {
            assert_eq!(integer_text_len(n), Some(len), "{n}");
        }
        // Every power of ten and its neighbours below, against Rust's own digits.
        let mut power = 1.0f64;
        while power < 1e21 {
            for n in [power, power - 1.0, f64::from_bits(power.to_bits() - 1).floor()] {
                if n >= 1.0 {
                    assert_eq!(integer_text_len(n), Some(format!("{n:.0}").len()), "{n}");
                }
            }
            power *= 10.0;
        }
        for n in [0.5, 1e21, -1e21, f64::NAN, f64::INFINITY, 1e300] {
            assert_eq!(integer_text_len(n), None, "{n}");
        }
    }

    #[test]
    fn other_numbers_come_from_the_table() {
        let table = NumberLengths::new([(0.1, 3), (1e21, 5), (0.1, 99)]);
        assert_eq!(table.len(), 2);
        assert_eq!(table.text_len(0.1), 3);
        assert_eq!(table.text_len(1e21), 5);
        assert_eq!(table.text_len(2.5), MAX_NUMBER_TEXT);
        assert_eq!(table.text_len(-3.0), 2);
    }

    #[test]
    fn the_table_sorts_any_order() {
        // Fractions in a scrambled order, each given twice (or three times), some negative.
        let mut pairs = Vec::new();
        for i in 0..300u32 {
            let n = f64::from((i * 7919) % 300) + 0.5;
            let sign = if i % 3 == 0 { -1.0 } else { 1.0 };
            pairs.push((sign * n, (i % 300) as usize));
            pairs.push((sign * n, (i % 300) as usize));
        }
        let first = pairs.first().copied().unwrap();
        let table = NumberLengths::new(pairs.iter().copied().chain([first]));
        assert_eq!(table.len(), 300);
        for (n, len) in pairs {
            assert_eq!(table.text_len(n), len, "{n}");
        }
        assert_eq!(NumberLengths::new([]).text_len(0.5), MAX_NUMBER_TEXT);
        assert_eq!(NumberLengths::new([(0.5, 3)]).text_len(0.5), 3);
    }

    #[test]
    fn strings_count_json_escapes() {
        assert_eq!(string_len(""), 2);
        assert_eq!(string_len("a\"b\\c"), 2 + 7);
        assert_eq!(string_len("\n\t\u{8}\u{c}\r"), 2 + 10);
        assert_eq!(string_len("\u{0}\u{1f}"), 2 + 12);
        // Raw UTF-8: é is 2 bytes, 中 3, 😀 4; U+2028 is not escaped.
        assert_eq!(string_len("\u{e9}\u{4e2d}\u{1F600}\u{2028}"), 2 + 2 + 3 + 4 + 3);
    }

    #[test]
    fn values_count_as_compact_json() {
        let value = object! {
            "a" => Value::Array(vec![Value::Null, true.into(), false.into(), 12.0.into()]),
            "b" => object! {},
            "c" => Value::Array(vec![]),
            "s" => "x",
        };
        // {"a":[null,true,false,12],"b":{},"c":[],"s":"x"}
        assert_eq!(json_len(&value, &NumberLengths::default()), r#"{"a":[null,true,false,12],"b":{},"c":[],"s":"x"}"#.len());
    }

    #[test]
    fn what_json_cannot_say_counts_as_its_notice() {
        let odd = Value::Unsupported("a BigInt".into());
        assert_eq!(json_len(&odd, &NumberLengths::default()), string_len("[a BigInt removed by the MCP client]"));
        let mut deep = Value::Null;
        for _ in 0..=super::super::MAX_DEPTH {
            deep = Value::Array(vec![deep]);
        }
        // 128 arrays of "[" + "]", then the notice where the 129th would be.
        let expected = 2 * super::super::MAX_DEPTH + string_len(&super::super::too_deep_notice());
        assert_eq!(json_len(&deep, &NumberLengths::default()), expected);
    }
}
