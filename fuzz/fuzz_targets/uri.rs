//! Resource URIs: canonicalization (`uri::canonical`) of an arbitrary URI and `href` (over an
//! alphabet of what URIs and their escapes are made of, sometimes arbitrary text), and resource
//! URI templates (`UriTemplate`) compiled from arbitrary text and read against arbitrary URIs.
//!
//! Canonicalization never panics; what it accepts is a fixed point (canonicalizing it again,
//! as its own `href`, gives it back: idempotent), no longer than `MAX_URI_LENGTH`, free of
//! control characters, with every escape in upper case and none of an unreserved character,
//! and, before its query, no `\`, `%2F` or `%5C`. Templates never panic; a template's sample is
//! an instance of it; variables read from a URI put back into the template give the URI again,
//! each is one character or more, none holds `?` or `#`, and a `{name}` holds no `/`.
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use webmcp_warden::matcher::UriTemplate;
use webmcp_warden::uri::{canonical, MAX_URI_LENGTH};
use webmcp_warden_fuzz::{pick, text};

/// Pieces URIs are made of, the ambiguous ones often.
const PIECES: [&str; 30] = [
    "x:", "file:", "http:", "//", "/", "a", "B", ".", "..", "%", "%2e", "%2E", "%2f", "%2F", "%5c", "%41", "%7e", "%c3%a9", "%%", "\\", "?",
    "#", "@", ":", "{a}", "{+b}", "{", "}", "\t", "é",
];

/// A short string of [`PIECES`], or arbitrary text.
fn uri(u: &mut Unstructured<'_>) -> arbitrary::Result<String> {
    if u.ratio(1, 5)? {
        return text(u);
    }
    let len = u.int_in_range(0..=10)?;
    let mut out = String::new();
    for _ in 0..len {
        out.push_str(pick(u, &PIECES)?);
    }
    Ok(out)
}

fn hex(byte: u8) -> Option<u8> {
    char::from(byte).to_digit(16).and_then(|d| u8::try_from(d).ok())
}

/// Checks what `canonical` accepted.
fn check_canonical(c: &str) {
    assert_eq!(canonical(c, Some(c)).as_deref(), Ok(c), "not idempotent: {c:?}");
    assert!(c.len() <= MAX_URI_LENGTH);
    assert!(!c.chars().any(char::is_control), "{c:?}");
    let bytes = c.as_bytes();
    let query = bytes.iter().position(|b| *b == b'?' || *b == b'#').unwrap_or(bytes.len());
    for (at, byte) in bytes.iter().enumerate() {
        if at < query {
            assert_ne!(*byte, b'\\', "{c:?}");
        }
        if *byte != b'%' {
            continue;
        }
        let (Some(&h), Some(&l)) = (bytes.get(at + 1), bytes.get(at + 2)) else { panic!("a bare '%' in {c:?}") };
        let (Some(high), Some(low)) = (hex(h), hex(l)) else { panic!("a bare '%' in {c:?}") };
        assert!(!h.is_ascii_lowercase() && !l.is_ascii_lowercase(), "a lower-case escape in {c:?}");
        let decoded = high * 16 + low;
        assert!(!(decoded.is_ascii_alphanumeric() || b"-._~".contains(&decoded)), "an escaped unreserved character in {c:?}");
        if at < query {
            assert!(decoded != b'/' && decoded != b'\\', "an encoded separator in {c:?}");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let (Ok(raw), Ok(href), Ok(spec)) = (uri(&mut u), uri(&mut u), uri(&mut u)) else { return };
    let same = u.ratio(1, 2).unwrap_or(true);

    let href = if same { raw.clone() } else { href };
    if let Ok(c) = canonical(&raw, Some(&href)) {
        check_canonical(&c);
    }
    assert!(canonical(&raw, None).is_err(), "no href: not a URI");

    if let Ok(template) = UriTemplate::compile(&spec) {
        assert!(template.variables(&template.sample()).is_some(), "{spec:?}: its sample is no instance");
        for candidate in [raw.as_str(), href.as_str()] {
            let Some(values) = template.variables(candidate) else { continue };
            // Put the values back in place of the variables: the URI again.
            let mut rebuilt = String::new();
            let mut rest = spec.as_str();
            let mut values = values.iter();
            while let Some(open) = rest.find('{') {
                rebuilt.push_str(&rest[..open]);
                let close = open + rest[open..].find('}').expect("a compiled template closes each '{'");
                let reserved = rest[open + 1..].starts_with('+');
                let (name, value) = values.next().expect("a value for each variable");
                assert_eq!(*name, &rest[open + 1 + usize::from(reserved)..close]);
                assert!(!value.is_empty() && !value.contains(['?', '#']), "{spec:?} against {candidate:?}: {value:?}");
                assert!(reserved || !value.contains('/'), "{spec:?} against {candidate:?}: {value:?}");
                rebuilt.push_str(value);
                rest = &rest[close + 1..];
            }
            rebuilt.push_str(rest);
            assert!(values.next().is_none());
            assert_eq!(rebuilt, candidate, "{spec:?}");
        }
    }
});
