//! String helpers that keep heavy standard-library code out of the wasm module.
//!
//! `str::find(&str)` links the standard library's two-way searcher and, through it, the
//! panic path for slicing off a character boundary, with its `Debug` formatting of characters
//! and ranges (bench/RESULTS.md, "Build choices, measured"). `[T]::join` links one copy per element type. The texts here
//! (tool names, server ids, a truncation notice, short lists) are short, so plain loops cost
//! nothing measurable.

use alloc::string::String;
use alloc::vec::Vec;

/// The byte offset of the first occurrence of `needle` in `haystack`. Always a character
/// boundary of `haystack` (a match starts where `needle`'s first character does).
pub fn find(haystack: &str, needle: &str) -> Option<usize> {
    let (hay, pin) = (haystack.as_bytes(), needle.as_bytes());
    if pin.is_empty() {
        return Some(0);
    }
    hay.windows(pin.len()).position(|window| window == pin)
}

/// The byte offset of the first `byte` in `text`. For an ASCII byte, what `text.find(char)`
/// answers: no other character's UTF-8 holds an ASCII byte. The core searches its short texts
/// (matchers, pointers, MIME types) for single ASCII characters with this loop: `char`
/// patterns link core's `CharSearcher`, `memchr` and the `Split` iterator.
pub fn find_byte(text: &str, byte: u8) -> Option<usize> {
    let mut at = 0usize;
    for &b in text.as_bytes() {
        if b == byte {
            return Some(at);
        }
        at = at.saturating_add(1);
    }
    None
}

/// `text` split around the first `byte` (ASCII): `text.split_once(char)`.
pub fn split_byte(text: &str, byte: u8) -> Option<(&str, &str)> {
    let at = find_byte(text, byte)?;
    Some((text.get(..at)?, text.get(at.saturating_add(1)..)?))
}

/// The parts of `text` between each `byte` (ASCII), in order: `text.split(char)`.
pub fn split_bytes(text: &str, byte: u8) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut rest = text;
    while let Some((part, after)) = split_byte(rest, byte) {
        parts.push(part);
        rest = after;
    }
    parts.push(rest);
    parts
}

/// `text` split around the first occurrence of `separator`.
pub fn split_once<'a>(text: &'a str, separator: &str) -> Option<(&'a str, &'a str)> {
    let at = find(text, separator)?;
    Some((text.get(..at)?, text.get(at.checked_add(separator.len())?..)?))
}

/// `text` without leading and trailing whitespace, as `str::trim` (Unicode `White_Space`) says,
/// found walking forwards only: `str::trim` walks back from the end, which links core's
/// reverse UTF-8 decoding and its searcher for the two short texts trimmed.
pub fn trim(text: &str) -> &str {
    let (mut start, mut end) = (None, 0);
    let mut at = 0usize;
    for c in text.chars() {
        let next = at.saturating_add(c.len_utf8());
        if !c.is_whitespace() {
            start = start.or(Some(at));
            end = next;
        }
        at = next;
    }
    start.and_then(|start| text.get(start..end)).unwrap_or_default()
}

/// The number `digits` spells in decimal, only ASCII digits (no sign, any leading zeros);
/// `None` for anything else, an empty text, or a number past `usize`. `str::parse` would link
/// a generic integer parser (~300 bytes of wasm) for what these few texts need.
pub fn parse_digits(digits: &str) -> Option<usize> {
    if digits.is_empty() {
        return None;
    }
    let mut number: usize = 0;
    for byte in digits.bytes() {
        if !byte.is_ascii_digit() {
            return None;
        }
        number = number.checked_mul(10)?.checked_add(usize::from(byte.wrapping_sub(b'0')))?;
    }
    Some(number)
}

/// Concatenates string pieces (`&str`, `String`, `&String`, anything `AsRef<str>`) into a new
/// `String`: the core's messages are written with this instead of `format!`. Each `format!` call
/// site builds a table of pieces and formatting functions and links `core::fmt`'s machinery
/// with it; with every message of the core written this way the module is much smaller
/// (bench/RESULTS.md, "Build choices, measured"). Numbers go in through [`decimal`].
#[macro_export]
macro_rules! cat {
    ($($piece:expr),* $(,)?) => {{
        #[allow(unused_mut)]
        let mut out = ::alloc::string::String::new();
        $( out.push_str(::core::convert::AsRef::<str>::as_ref(&$piece)); )*
        out
    }};
}
pub use cat;

/// The decimal digits of a whole number of any unsigned integer type (`7`, `4294967295`).
pub fn decimal(number: impl Into<u64>) -> String {
    let mut out = String::new();
    push_decimal(&mut out, number.into());
    out
}

/// The decimal digits of a `usize` (a length or an index: `usize` has no `Into<u64>`).
pub fn decimal_usize(number: usize) -> String {
    decimal(u64::try_from(number).unwrap_or(u64::MAX))
}

/// The decimal digits of a signed whole number, with `-` when negative.
pub fn signed_decimal(number: i64) -> String {
    let mut out = String::new();
    if number < 0 {
        out.push('-');
    }
    push_decimal(&mut out, number.unsigned_abs());
    out
}

/// Appends the decimal digits of `number` (`core::fmt`'s integer formatting, without it).
pub fn push_decimal(out: &mut String, number: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = number;
    loop {
        at = at.saturating_sub(1);
        if let Some(slot) = digits.get_mut(at) {
            // INVARIANT: `rest % 10` is below 10, so the cast keeps it whole.
            #[allow(clippy::cast_possible_truncation)]
            let digit = (rest % 10) as u8;
            *slot = b'0'.saturating_add(digit);
        }
        rest /= 10;
        if rest == 0 || at == 0 {
            break;
        }
    }
    for &digit in digits.get(at..).unwrap_or_default() {
        out.push(char::from(digit));
    }
}

/// The items joined with `separator` (one function for every item type that reads as a
/// `str`: `&str` and `String` alike).
pub fn join<S: AsRef<str>>(items: &[S], separator: &str) -> String {
    let mut out = String::new();
    for item in items {
        if !out.is_empty() {
            out.push_str(separator);
        }
        out.push_str(item.as_ref());
    }
    out
}

#[cfg(test)]
mod tests {
    use alloc::borrow::ToOwned;
    use alloc::format;
    use alloc::string::String;

    use super::{decimal, decimal_usize, find, join, parse_digits, signed_decimal, split_once};

    #[test]
    fn writes_decimals() {
        for n in [0u64, 7, 10, 99, 100, 12_345, u64::from(u32::MAX), u64::MAX] {
            let mut out = String::from("x");
            super::push_decimal(&mut out, n);
            assert_eq!(out, format!("x{n}"));
            assert_eq!(decimal(n), format!("{n}"));
        }
        assert_eq!(decimal(42u32), "42");
        assert_eq!(decimal(255u8), "255");
        assert_eq!(decimal_usize(usize::MAX), format!("{}", usize::MAX));
        for n in [0i64, 5, -5, -20, i64::MIN, i64::MAX] {
            assert_eq!(signed_decimal(n), format!("{n}"));
        }
    }

    #[test]
    fn cats_pieces_of_any_string_type() {
        let owned = String::from("b");
        assert_eq!(super::cat!["a", owned, &owned, decimal(3u32), ""], "abb3");
        assert_eq!(super::cat![], "");
    }

    #[test]
    fn parses_digits_only() {
        for text in ["0", "7", "007", "123456789", "18446744073709551615", "18446744073709551616", "", "+7", "-1", "1 ", "1e3", "٣"] {
            let std = if text.bytes().all(|b| b.is_ascii_digit()) { text.parse::<usize>().ok() } else { None };
            assert_eq!(parse_digits(text), std, "{text:?}");
        }
    }

    #[test]
    fn joins_like_slice_join() {
        assert_eq!(join(&["a", "b", "c"], ", "), "a, b, c");
        assert_eq!(join::<&str>(&[], ", "), "");
        assert_eq!(join(&["only"], "-"), "only");
        assert_eq!(join(&["x".to_owned(), "y".to_owned()], "/"), "x/y");
    }

    #[test]
    fn trims_like_str_trim() {
        for text in ["", " ", "a", " a ", "\t a b \n", "\u{3000}é\u{85}", "é", "\u{a0}x\u{2028}", "x\u{200b}"] {
            assert_eq!(super::trim(text), text.trim(), "{text:?}");
        }
    }

    #[test]
    fn searches_bytes_like_char_patterns() {
        for text in ["", "/", "a/b", "é/ü/", "//x", "no", "x;y;z", "日本/語"] {
            for (byte, c) in [(b'/', '/'), (b';', ';'), (b'x', 'x')] {
                assert_eq!(super::find_byte(text, byte), text.find(c), "{text:?}");
                assert_eq!(super::split_byte(text, byte), text.split_once(c), "{text:?}");
                assert_eq!(super::split_bytes(text, byte), text.split(c).collect::<alloc::vec::Vec<_>>(), "{text:?}");
            }
        }
    }

    #[test]
    fn finds_like_str_find() {
        for (hay, pin) in [("abcabc", "ca"), ("abc", ""), ("", "a"), ("aaab", "ab"), ("héllo wörld", "wö"), ("x", "xy"), ("é", "\u{a9}")] {
            assert_eq!(find(hay, pin), hay.find(pin), "{hay:?} {pin:?}");
            assert_eq!(split_once(hay, pin), hay.split_once(pin), "{hay:?} {pin:?}");
        }
    }
}
