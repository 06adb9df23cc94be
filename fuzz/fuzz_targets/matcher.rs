//! Matchers on their own: a text matcher (`'*'`, `'tool'`, `'server/tool'`, globs) and a URI
//! matcher (globs and `{var}` / `{+var}` templates) compiled from arbitrary text, then tested
//! against arbitrary names and URIs; a `RegExp` matcher compiled from arbitrary source and flags.
//!
//! Never a panic; `'*'`, `'all'` and `'any'` select everything; a tool glob without a `/` agrees
//! with a reference glob matcher (dynamic programming over the loose forms, so the core's
//! leftmost-first search is checked against an obviously right one); a literal `'server/tool'`
//! selects its own server and tool; a URI matcher without `*` or `{` selects exactly its own text.
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use webmcp_warden::matcher::{loose, Matcher, EVERY_TOOL};
use webmcp_warden::value::Value;
use webmcp_warden_fuzz::{pick, text};

/// Characters matchers and names are made of, the special ones often.
const ALPHABET: [char; 14] = ['a', 'b', 'A', '_', '-', '.', '*', '/', '{', '}', '+', ':', 'é', '\u{200b}'];

/// A short string over [`ALPHABET`] (most interesting inputs), or arbitrary text.
fn word(u: &mut Unstructured<'_>) -> arbitrary::Result<String> {
    if u.ratio(1, 4)? {
        return text(u);
    }
    let len = u.int_in_range(0..=8)?;
    let mut out = String::new();
    for _ in 0..len {
        out.push(*pick(u, &ALPHABET)?);
    }
    Ok(out)
}

/// Whether `text` matches `pattern`, where `*` is any run of characters: the textbook dynamic
/// programme, independent of the core's search.
fn reference_glob(pattern: &[char], text: &[char]) -> bool {
    let mut row = vec![false; text.len() + 1];
    row[0] = true;
    for p in pattern {
        let mut next = vec![false; text.len() + 1];
        if *p == '*' {
            let mut any = false;
            for (i, cell) in next.iter_mut().enumerate() {
                any |= row[i];
                *cell = any;
            }
        } else {
            for (i, c) in text.iter().enumerate() {
                next[i + 1] = row[i] && c == p;
            }
        }
        row = next;
    }
    row[text.len()]
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let (Ok(spec), Ok(server), Ok(name)) = (word(&mut u), word(&mut u), word(&mut u)) else { return };

    if let Ok(matcher) = Matcher::from_text(&spec) {
        let selected = matcher.matches(&server, &name);
        if EVERY_TOOL.contains(&spec.as_str()) {
            assert!(selected, "{spec:?} must select {server:?}/{name:?}");
        }
        match spec.split_once('/') {
            None if !EVERY_TOOL.contains(&spec.as_str()) => {
                let pattern: Vec<char> = loose(&spec).chars().collect();
                let candidate: Vec<char> = loose(&name).chars().collect();
                assert_eq!(selected, reference_glob(&pattern, &candidate), "{spec:?} against {name:?}");
            }
            Some((own_server, own_tool)) if !spec.contains('*') => {
                assert!(matcher.matches(own_server, own_tool), "{spec:?} must select its own server and tool");
            }
            _ => {}
        }
    }

    if let Ok(matcher) = Matcher::compile_uri(&Value::String(spec.clone())) {
        let selected = matcher.matches(&server, &name);
        if !EVERY_TOOL.contains(&spec.as_str()) && !spec.contains(['*', '{', '}']) {
            assert_eq!(selected, name == spec, "URI matcher {spec:?} against {name:?}");
            assert!(matcher.matches(&server, &spec), "URI matcher {spec:?} must select itself");
        }
    }

    let flags = if u.ratio(1, 2).unwrap_or(false) { "" } else { "i" };
    if let Ok(matcher) = Matcher::compile(&Value::Regex { source: spec, flags: flags.to_owned() }) {
        let _ = matcher.matches(&server, &name);
    }
});
