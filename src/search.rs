//! Substring search without `str::find`.
//!
//! `str::find(&str)` links the standard library's two-way searcher and, through it, the
//! panic path for slicing off a character boundary, with its `Debug` formatting of characters
//! and ranges: about 5 KB of wasm. The texts searched here (tool names, server ids, a
//! truncation notice) are short, so a plain scan costs nothing measurable.

/// The byte offset of the first occurrence of `needle` in `haystack`. Always a character
/// boundary of `haystack` (a match starts where `needle`'s first character does).
pub fn find(haystack: &str, needle: &str) -> Option<usize> {
    let (hay, pin) = (haystack.as_bytes(), needle.as_bytes());
    if pin.is_empty() {
        return Some(0);
    }
    hay.windows(pin.len()).position(|window| window == pin)
}

/// `text` split around the first occurrence of `separator`.
pub fn split_once<'a>(text: &'a str, separator: &str) -> Option<(&'a str, &'a str)> {
    let at = find(text, separator)?;
    Some((text.get(..at)?, text.get(at.checked_add(separator.len())?..)?))
}

#[cfg(test)]
mod tests {
    use super::{find, split_once};

    #[test]
    fn finds_like_str_find() {
        for (hay, pin) in [("abcabc", "ca"), ("abc", ""), ("", "a"), ("aaab", "ab"), ("héllo wörld", "wö"), ("x", "xy"), ("é", "\u{a9}")] {
            assert_eq!(find(hay, pin), hay.find(pin), "{hay:?} {pin:?}");
            assert_eq!(split_once(hay, pin), hay.split_once(pin), "{hay:?} {pin:?}");
        }
    }
}
