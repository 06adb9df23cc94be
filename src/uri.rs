//! Resource URIs: the one canonical form that a read's lookup, template variables, hooks,
//! policy, grants, telemetry and read function all see (`docs/resources-and-prompts.md`, "URIs").
//!
//! The read function gets a WHATWG `URL`, so WHATWG parsing is the base: the TS layer parses the
//! URI as sent with the platform's `URL` and hands the core both texts; the core decides. It
//! refuses a URI that can be read more than one way, and otherwise answers the parser's `href`
//! with RFC 3986's percent-encoding normalization on top (section 6.2.2): escapes in upper case,
//! and escapes of unreserved characters (`A-Z a-z 0-9 - . _ ~`) decoded, since a reader that
//! decodes would see `%73ecrets` as `secrets` while a rule compares the text. Both steps leave a
//! text that WHATWG parsing gives back unchanged (the TS layer checks that `new URL(c).href` is
//! `c`), so the string the rules saw is the string the function reads, by construction.
//!
//! Refused (`invalid_uri`), each because a reader could take it two ways while the rules see it
//! one way: control characters (the parser drops tabs and newlines silently); a `%` that does
//! not start an escape (decoding would not be idempotent: `%%34%31`); user names and passwords
//! (`http://x@internal/`: the host is not where a rule expects it); before the query, an
//! encoded `/` or `\` (`%2F`, `%5C`), a `\`, or an encoded control character, which a reader may
//! or may not take as a separator or a terminator; a `.` or `..` segment the parser keeps
//! (opaque paths such as `x:a/../b`, hosts such as `x://../`); and an empty segment before the
//! last (`file:////secrets`, which a file system reads as `/secrets`); a canonical form longer
//! than [`MAX_URI_LENGTH`].

use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec::Vec;

use crate::error::ConfigError;
use crate::matcher::UriTemplate;
use crate::strs::{cat, decimal_usize};

/// The longest canonical URI, in bytes (the canonical form is ASCII): the length URI matchers
/// test ([`crate::pattern::INPUT_LIMIT`]).
pub const MAX_URI_LENGTH: usize = crate::pattern::INPUT_LIMIT;

/// How much of a URI a refusal quotes.
const QUOTED: usize = 200;

/// The canonical form of the URI `raw`, given `href`, what WHATWG's `URL` parser made of it
/// (`None` when it threw): see the module docs.
///
/// # Errors
/// `invalid_uri`, with one sentence saying what is wrong, for a URI the module docs refuse.
pub fn canonical(raw: &str, href: Option<&str>) -> Result<String, ConfigError> {
    control_free(raw)?;
    let Some(href) = href else {
        return Err(refuse(raw, "is not a URI"));
    };
    let uri = normalize_escapes(raw, href)?;
    control_free(&uri)?;
    if uri.len() > MAX_URI_LENGTH {
        return Err(ConfigError::new(
            "invalid_uri",
            cat!["a URI of ", decimal_usize(uri.len()), " characters (in canonical form) is longer than ", decimal_usize(MAX_URI_LENGTH)],
        ));
    }
    // A scheme, as WHATWG parsing always gives one: a letter, then letters, digits, `+ - .`.
    let colon = crate::strs::find_byte(&uri, b':').unwrap_or(0);
    let scheme = uri.get(..colon).unwrap_or_default().as_bytes();
    if !scheme.first().is_some_and(u8::is_ascii_alphabetic) || scheme.iter().any(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))) {
        return Err(refuse(raw, "is not a URI"));
    }
    let rest = uri.get(colon.saturating_add(1)..).unwrap_or_default();
    // The part before the query and the fragment, which names what is read.
    let hier = rest.get(..end_of(rest, b"?#")).unwrap_or_default();
    let (authority, path) = match hier.strip_prefix("//") {
        Some(after) => {
            let end = end_of(after, b"/");
            (Some(after.get(..end).unwrap_or_default()), after.get(end..).unwrap_or_default())
        }
        None => (None, hier),
    };
    if let Some(authority) = authority {
        if crate::strs::find_byte(authority, b'@').is_some() {
            return Err(refuse(raw, "holds a user name or password (before an '@'): a resource URI has none"));
        }
        let host = authority.get(..end_of(authority, b":")).unwrap_or_default();
        if host == "." || host == ".." {
            return Err(refuse(raw, "has '.' or '..' as its host: a reader could take it as a step in a path"));
        }
    }
    separators(raw, hier)?;
    segments(raw, path)?;
    Ok(uri)
}

/// How many compiled templates [`Templates`] keeps.
const TEMPLATES_KEPT: usize = 64;

/// Resource templates compiled once and kept for the reads that follow (the URI module keeps
/// one set for the page): the [`TEMPLATES_KEPT`] used last, by their text.
#[derive(Debug, Default)]
pub struct Templates(Vec<(String, Option<UriTemplate>)>);

impl Templates {
    /// The template `text` compiled (`None` when it does not compile), compiled now if it is not
    /// kept; the oldest one is forgotten when too many are.
    fn get(&mut self, text: &str) -> Option<&UriTemplate> {
        let at = match self.0.iter().position(|(kept, _)| kept == text) {
            Some(at) => at,
            None => {
                if self.0.len() >= TEMPLATES_KEPT {
                    self.0.remove(0);
                }
                self.0.push((text.to_owned(), UriTemplate::compile(text).ok()));
                self.0.len().saturating_sub(1)
            }
        };
        self.0.get(at)?.1.as_ref()
    }
}

/// A read's URI resolved ([`resolve`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The canonical URI, which every later stage of the read sees.
    pub uri: String,
    /// The position among the resources given of the one that serves it, if one does.
    pub index: Option<usize>,
    /// That resource's template variables, read from `uri`, as `(name, value)` (none for a
    /// resource of one URI).
    pub params: Vec<(String, String)>,
}

/// Which of the resources `keys` (their URIs or URI templates, in the order given) serves the
/// URI `raw`, given `href` (see [`canonical`]): the resource of exactly the canonical URI, else
/// the first template it is an instance of (a template that does not compile matches nothing),
/// with that template's variables ([`UriTemplate::variables`]). A resource's own URI is in
/// canonical form already (it was resolved so when it was made). `templates` compiles the
/// templates, or has them from an earlier read.
///
/// # Errors
/// `invalid_uri` for a URI that has no canonical form.
pub fn resolve(raw: &str, href: Option<&str>, keys: &[&str], templates: &mut Templates) -> Result<Resolved, ConfigError> {
    let uri = canonical(raw, href)?;
    for (index, key) in keys.iter().enumerate() {
        if !UriTemplate::is_template(key) && *key == uri {
            return Ok(Resolved { uri, index: Some(index), params: Vec::new() });
        }
    }
    for (index, key) in keys.iter().enumerate() {
        if !UriTemplate::is_template(key) {
            continue;
        }
        let Some(template) = templates.get(key) else { continue };
        let Some(variables) = template.variables(&uri) else { continue };
        let mut params = Vec::with_capacity(variables.len());
        for (name, value) in variables {
            params.push((name.to_owned(), value.to_owned()));
        }
        return Ok(Resolved { uri, index: Some(index), params });
    }
    Ok(Resolved { uri, index: None, params: Vec::new() })
}

/// Refuses a control character (C0, DEL, C1): WHATWG parsing drops tabs and newlines and
/// escapes the others, so the text sent and the text read would differ.
fn control_free(text: &str) -> Result<(), ConfigError> {
    let mut at = 0usize;
    for c in text.chars() {
        if matches!(c, '\0'..='\u{1f}' | '\u{7f}'..='\u{9f}') {
            return Err(ConfigError::new(
                "invalid_uri",
                cat!["a URI holds no control characters (found U+", hex4(u32::from(c)), " at character ", decimal_usize(at), ")"],
            ));
        }
        at = at.saturating_add(1);
    }
    Ok(())
}

/// `href` with every escape in upper case and escapes of unreserved characters decoded.
fn normalize_escapes(raw: &str, href: &str) -> Result<String, ConfigError> {
    let bytes = href.as_bytes();
    let mut out = String::with_capacity(href.len());
    let mut start = 0usize;
    let mut at = 0usize;
    while let Some(&byte) = bytes.get(at) {
        if byte != b'%' {
            at = at.saturating_add(1);
            continue;
        }
        let (Some(high), Some(low)) = (bytes.get(at.saturating_add(1)).and_then(|b| hex_value(*b)), bytes.get(at.saturating_add(2)).and_then(|b| hex_value(*b))) else {
            return Err(refuse(raw, "holds a '%' that does not start an escape (a '%' and two hex digits)"));
        };
        out.push_str(href.get(start..at).unwrap_or_default());
        let decoded = high.saturating_mul(16).saturating_add(low);
        if crate::matcher::is_unreserved(decoded) {
            out.push(char::from(decoded));
        } else {
            out.push('%');
            out.push(char::from(HEX.get(usize::from(high)).copied().unwrap_or(b'0')));
            out.push(char::from(HEX.get(usize::from(low)).copied().unwrap_or(b'0')));
        }
        at = at.saturating_add(3);
        start = at;
    }
    out.push_str(href.get(start..).unwrap_or_default());
    Ok(out)
}

/// Refuses, in the part of a canonical URI before its query, what a reader may or may not take
/// as a separator or an end: `\`, `%2F`, `%5C`, and escaped control characters.
fn separators(raw: &str, hier: &str) -> Result<(), ConfigError> {
    let bytes = hier.as_bytes();
    for (at, byte) in bytes.iter().enumerate() {
        if *byte == b'\\' {
            return Err(refuse(raw, "holds a '\\' before its query: a reader could take it as a '/' or not"));
        }
        if *byte != b'%' {
            continue;
        }
        let value = match (bytes.get(at.saturating_add(1)).and_then(|b| hex_value(*b)), bytes.get(at.saturating_add(2)).and_then(|b| hex_value(*b))) {
            (Some(high), Some(low)) => high.saturating_mul(16).saturating_add(low),
            _ => continue,
        };
        if value == b'/' || value == b'\\' {
            return Err(refuse(raw, "holds an encoded '/' or '\\' (%2F, %5C) before its query: a reader could take it as a separator or not"));
        }
        if value < 0x20 || value == 0x7f {
            return Err(refuse(raw, "holds an encoded control character before its query"));
        }
    }
    Ok(())
}

/// Refuses a `.` or `..` segment (WHATWG removes them from hierarchical paths, not from opaque
/// ones) and an empty segment before the last.
fn segments(raw: &str, path: &str) -> Result<(), ConfigError> {
    let mut rest = path.strip_prefix('/').unwrap_or(path);
    loop {
        let (part, after) = match crate::strs::split_byte(rest, b'/') {
            Some((part, after)) => (part, Some(after)),
            None => (rest, None),
        };
        if part == "." || part == ".." {
            return Err(refuse(raw, "holds a '.' or '..' segment: a reader could take it as a step or not"));
        }
        let Some(after) = after else { return Ok(()) };
        if part.is_empty() {
            return Err(refuse(raw, "holds an empty path segment ('//'): a reader could take it as one '/' or two"));
        }
        rest = after;
    }
}

/// The offset of the first of `stops` in `text`, or its length.
fn end_of(text: &str, stops: &[u8]) -> usize {
    let mut at = 0usize;
    for byte in text.as_bytes() {
        if stops.contains(byte) {
            return at;
        }
        at = at.saturating_add(1);
    }
    at
}

const HEX: &[u8; 16] = b"0123456789ABCDEF";

fn hex_value(byte: u8) -> Option<u8> {
    match byte {
        b'0'..=b'9' => Some(byte.wrapping_sub(b'0')),
        b'a'..=b'f' => Some(byte.wrapping_sub(b'a').saturating_add(10)),
        b'A'..=b'F' => Some(byte.wrapping_sub(b'A').saturating_add(10)),
        _ => None,
    }
}

/// A code point as four (or more) upper-case hex digits.
fn hex4(mut value: u32) -> String {
    let mut digits = [b'0'; 8];
    let mut at = digits.len();
    while at > 0 {
        at = at.saturating_sub(1);
        if let Some(slot) = digits.get_mut(at) {
            *slot = HEX.get(usize::try_from(value % 16).unwrap_or(0)).copied().unwrap_or(b'0');
        }
        value /= 16;
        if value == 0 && at <= 4 {
            break;
        }
    }
    let mut out = String::new();
    for digit in digits.get(at..).unwrap_or_default() {
        out.push(char::from(*digit));
    }
    out
}

/// `invalid_uri`: `"<the URI, shortened>" <why>`.
fn refuse(raw: &str, why: &str) -> ConfigError {
    let mut quoted = String::new();
    for (count, c) in raw.chars().enumerate() {
        if count == QUOTED {
            quoted.push('…');
            break;
        }
        quoted.push(c);
    }
    ConfigError::new("invalid_uri", cat!["\"", quoted, "\" ", why])
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::arithmetic_side_effects)]
mod tests {
    use super::*;

    /// The canonical form when `href` is what WHATWG parsing made of `raw`.
    fn ok(raw: &str, href: &str) -> String {
        canonical(raw, Some(href)).unwrap_or_else(|err| panic!("{raw}: {}", err.message))
    }

    fn refused(raw: &str, href: &str) -> String {
        let err = canonical(raw, Some(href)).expect_err(raw);
        assert_eq!(err.code, "invalid_uri");
        err.message
    }

    #[test]
    fn escapes_are_upper_case_and_unreserved_ones_decoded() {
        assert_eq!(ok("file:///%73ecrets/%6bey", "file:///%73ecrets/%6bey"), "file:///secrets/key");
        assert_eq!(ok("file:///%c3%a9", "file:///%c3%a9"), "file:///%C3%A9");
        assert_eq!(ok("x://h/a%7e%2D%2e%5F", "x://h/a%7e%2D%2e%5F"), "x://h/a~-._");
        assert_eq!(ok("x://h/a?q=%2f%3a#%2F", "x://h/a?q=%2f%3a#%2F"), "x://h/a?q=%2F%3A#%2F", "an encoded '/' in the query is data");
        assert_eq!(ok("x://h/%25", "x://h/%25"), "x://h/%25", "'%' itself stays escaped, so decoding is done once");
        let once = ok("x://h/%41%2541", "x://h/%41%2541");
        assert_eq!(once, "x://h/A%2541");
        assert_eq!(ok(&once, &once), once, "idempotent");
    }

    #[test]
    fn what_whatwg_already_did_stands() {
        // WHATWG removed the dot segments, turned `\` into `/`, lower-cased the scheme.
        assert_eq!(ok("file:///public/../secrets/key", "file:///secrets/key"), "file:///secrets/key");
        assert_eq!(ok("FILE:///secrets\\key", "file:///secrets/key"), "file:///secrets/key");
        assert_eq!(ok("x://h/a;v=1/b?x#y", "x://h/a;v=1/b?x#y"), "x://h/a;v=1/b?x#y");
        assert_eq!(ok("x:", "x:"), "x:");
        assert_eq!(ok("x://h", "x://h"), "x://h");
        assert_eq!(ok("file:///dir/", "file:///dir/"), "file:///dir/", "a trailing '/' is an empty last segment");
        assert_eq!(ok("http://[::1]:8080/a", "http://[::1]:8080/a"), "http://[::1]:8080/a");
        assert_eq!(ok("urn:isbn:0451450523", "urn:isbn:0451450523"), "urn:isbn:0451450523");
    }

    #[test]
    fn ambiguous_uris_are_refused() {
        assert!(refused("file:///a%2fb", "file:///a%2fb").contains("encoded '/'"));
        assert!(refused("file:///a%5Cb", "file:///a%5Cb").contains("encoded '/' or '\\'"));
        assert!(refused("x://h/a\\b", "x://h/a\\b").contains("'\\'"));
        assert!(refused("x://h/%00", "x://h/%00").contains("control"));
        assert!(refused("x://h/a%7F", "x://h/a%7F").contains("control"));
        assert!(refused("x:a/../b", "x:a/../b").contains("'..' segment"));
        assert!(refused("x:a/%2e%2E/b", "x:a/%2e%2E/b").contains("'..' segment"), "an escaped dot is a dot");
        assert!(refused("x:/.//a", "x:/.//a").contains("segment"));
        assert!(refused("x://../profile", "x://../profile").contains("host"));
        assert!(refused("x://..:80/profile", "x://..:80/profile").contains("host"));
        assert!(refused("file:////secrets/key", "file:////secrets/key").contains("empty path segment"));
        assert!(refused("file:///a//b", "file:///a//b").contains("empty path segment"));
        assert!(refused("http://u:p@h/", "http://u:p@h/").contains("user name"));
        assert!(refused("x://u@h/", "x://u@h/").contains("user name"));
        assert!(refused("x://h/100%", "x://h/100%").contains("does not start an escape"));
        assert!(refused("x://h/%%34%31", "x://h/%%34%31").contains("does not start an escape"));
        let message = canonical("file:///sec\nrets", Some("file:///secrets")).unwrap_err().message;
        assert_eq!(message, "a URI holds no control characters (found U+000A at character 11)");
        assert!(canonical("x://h/\u{85}", Some("x://h/%C2%85")).unwrap_err().message.contains("U+0085"));
        assert_eq!(canonical("not a uri", None).unwrap_err().message, "\"not a uri\" is not a URI");
        for href in ["no-colon", ":x", "1x:y", "%5Cx:y", "a b:c"] {
            assert!(refused(href, href).ends_with("is not a URI"), "{href}");
        }
    }

    #[test]
    fn refusals_before_the_query_only() {
        assert_eq!(ok("x://h/a?b=..%2F..&c=%00#//x", "x://h/a?b=..%2F..&c=%00#//x"), "x://h/a?b=..%2F..&c=%00#//x");
        assert_eq!(ok("file:///a?q=\\x", "file:///a?q=\\x"), "file:///a?q=\\x");
        assert_eq!(ok("x://h/a@b", "x://h/a@b"), "x://h/a@b", "an '@' in the path is not userinfo");
    }

    #[test]
    fn length_is_measured_in_canonical_form() {
        let long = alloc::format!("x://h/{}", "a".repeat(MAX_URI_LENGTH));
        assert!(canonical(&long, Some(&long)).unwrap_err().message.contains("longer than 65536"));
        let fits = alloc::format!("x://h/{}", "a".repeat(MAX_URI_LENGTH - 6));
        assert_eq!(ok(&fits, &fits).len(), MAX_URI_LENGTH);
    }

    #[test]
    fn quotes_are_short() {
        let long = alloc::format!("x://h/{}%", "a".repeat(1000));
        let message = refused(&long, &long);
        assert!(message.chars().count() < 300, "{message}");
        assert!(message.contains('…'));
        assert_eq!(hex4(0x0a), "000A");
        assert_eq!(hex4(0x10ffff), "10FFFF");
    }
}
