//! Messages for unknown keys, with a "did you mean" when a known key is one or two edits away.

use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec::Vec;

use crate::error::ConfigError;
use crate::strs::cat;
use crate::value::Map;

/// `unknown key "alow" in <place> (expected deny, ask, …; did you mean "allow"?)`.
pub(crate) fn unknown_key_message(key: &str, place: &str, known: &[&str]) -> String {
    let expected = crate::strs::join(known, ", ");
    match suggest(key, known) {
        Some(near) => cat![
            "unknown key \"",
            key,
            "\" in ",
            place,
            " (did you mean \"",
            near,
            "\"? expected ",
            expected,
            ")"
        ],
        None => cat!["unknown key \"", key, "\" in ", place, " (expected ", expected, ")"],
    }
}

/// Files every key of `map` that is not one of `known` as an error `code` at
/// `<prefix><key>`, its message naming `place`.
pub(crate) fn report_unknown_keys(map: &Map, known: &[&str], code: &'static str, place: &str, prefix: &str, errors: &mut Vec<ConfigError>) {
    for (key, _) in map.iter() {
        if !known.contains(&key.as_str()) {
            let mut path = prefix.to_owned();
            path.push_str(key);
            errors.push(ConfigError::new(code, unknown_key_message(key, place, known)).at(&path));
        }
    }
}

/// The known name closest to `key`, compared ASCII case-insensitively (every known name is
/// ASCII), when it is close enough to be a typo: one edit for names of up to three letters
/// (`id`, `in`), two for longer ones.
pub(crate) fn suggest<'k>(key: &str, known: &[&'k str]) -> Option<&'k str> {
    let key = key.to_ascii_lowercase();
    // A loop rather than `map`/`filter`/`min_by_key`, each a generic instance of its own in the
    // wasm module. The first of equally close names wins, as with `min_by_key`.
    let mut best: Option<(usize, &'k str)> = None;
    for name in known {
        let distance = edit_distance(&key, &name.to_ascii_lowercase());
        let close = distance <= if name.len() <= 3 { 1 } else { 2 };
        if close && best.is_none_or(|(nearest, _)| distance < nearest) {
            best = Some((distance, name));
        }
    }
    best.map(|(_, name)| name)
}

/// Levenshtein distance over characters, with one row kept at a time.
fn edit_distance(a: &str, b: &str) -> usize {
    // Loops rather than `collect`: each `collect` is a generic instance of its own.
    let mut chars = Vec::new();
    for c in b.chars() {
        chars.push(c);
    }
    let b = chars;
    let mut previous: Vec<usize> = Vec::with_capacity(b.len().saturating_add(1));
    for j in 0..b.len().saturating_add(1) {
        previous.push(j);
    }
    for (i, ca) in a.chars().enumerate() {
        let mut current = Vec::with_capacity(b.len().saturating_add(1));
        current.push(i.saturating_add(1));
        for (j, cb) in b.iter().enumerate() {
            let substitute = previous
                .get(j)
                .copied()
                .unwrap_or(usize::MAX)
                .saturating_add(usize::from(ca != *cb));
            let delete = previous
                .get(j.saturating_add(1))
                .copied()
                .unwrap_or(usize::MAX)
                .saturating_add(1);
            let insert = current
                .last()
                .copied()
                .unwrap_or(usize::MAX)
                .saturating_add(1);
            current.push(substitute.min(delete).min(insert));
        }
        previous = current;
    }
    previous.last().copied().unwrap_or(0)
}
