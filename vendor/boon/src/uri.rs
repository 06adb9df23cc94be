//! webmcp-warden patch: absolute URIs (`$id`, `$ref`, `$schema`) without the `url` crate.
//!
//! Upstream keeps every schema location as a `url::Url` (the WHATWG URL parser), which links
//! `url`, `idna` and `percent-encoding` (~40 KB of webmcp-warden's module) only to parse, join and
//! compare locations. Here a location is the text of an absolute URI, parsed, resolved (RFC 3986
//! §5.2) and normalized (§6.2.2, syntax-based) by `fluent-uri`, which boon already links for the
//! `uri` formats, plus the scheme-based steps the `url` crate also took for the schemes it knows
//! (§6.2.3: an empty path is `/`, a default port is dropped). Two spellings of one location compare
//! equal when either parser would say so, except where the WHATWG rules differ from RFC 3986's
//! (a `\` is not a `/`; `%7E` and `~` are the same here).
//!
//! Unlike the `url` crate, a character that may not appear in a URI (a space, `{`, a non-ASCII
//! character) is refused rather than percent-encoded. With format assertions on (as webmcp-warden
//! compiles), the meta-schemas refuse such an `$id`, `$ref` or `$schema` before it gets here.

use std::{error::Error, fmt};

use fluent_uri::{Uri, UriRef};

/// An absolute URI in normal form. Compared, hashed and shown as its text.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) struct Url(String);

impl Url {
    /// Parses an absolute URI (a scheme is required).
    pub(crate) fn parse(input: &str) -> Result<Url, Box<dyn Error>> {
        let uri = Uri::parse(input)?;
        Ok(Url(scheme_based(uri.normalize().into_string())))
    }

    /// Resolves a URI reference against this URI.
    pub(crate) fn join(&self, reference: &str) -> Result<Url, Box<dyn Error>> {
        let reference = UriRef::parse(reference)?;
        let base = Uri::parse(self.0.as_str())?;
        let resolved = reference.resolve_against(&base)?;
        Ok(Url(scheme_based(resolved.normalize().into_string())))
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }

    /// The scheme, lowercase.
    pub(crate) fn scheme(&self) -> &str {
        self.0.split_once(':').map_or("", |(scheme, _)| scheme)
    }

    /// The host, when there is an authority.
    pub(crate) fn host_str(&self) -> Option<&str> {
        let (_, rest) = self.0.split_once("://")?;
        let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
        let host = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
        Some(match host.find(']') {
            Some(end) if host.starts_with('[') => host.get(..=end).unwrap_or(host),
            _ => host.split(':').next().unwrap_or(host),
        })
    }

    /// Whether the URI has a fragment.
    #[allow(dead_code)] // used by a debug assertion only
    pub(crate) fn has_fragment(&self) -> bool {
        self.0.contains('#')
    }
}

impl fmt::Display for Url {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<Url> for String {
    fn from(url: Url) -> String {
        url.0
    }
}

/// The scheme-based normalization (RFC 3986 §6.2.3) the `url` crate applied to the schemes it
/// knows: `http://a` is `http://a/`, and `http://a:80/` is `http://a/`.
fn scheme_based(mut uri: String) -> String {
    let default_port = match uri.split_once(':').map(|(scheme, _)| scheme) {
        Some("http" | "ws") => ":80",
        Some("https" | "wss") => ":443",
        Some("ftp") => ":21",
        Some("file") => "",
        _ => return uri,
    };
    let Some(after) = uri.find("://").map(|i| i + 3) else {
        return uri;
    };
    let end = uri
        .get(after..)
        .and_then(|rest| rest.find(['/', '?', '#']))
        .map_or(uri.len(), |i| after + i);
    if !default_port.is_empty()
        && uri.get(after..end).is_some_and(|authority| {
            authority.ends_with(default_port) && !authority.ends_with(']')
        })
    {
        let port_at = end - default_port.len();
        uri.replace_range(port_at..end, "");
        return scheme_based_path(uri, port_at);
    }
    scheme_based_path(uri, end)
}

fn scheme_based_path(mut uri: String, authority_end: usize) -> String {
    if !uri.get(authority_end..).is_some_and(|rest| rest.starts_with('/')) {
        uri.insert(authority_end, '/');
    }
    uri
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes() {
        let p = |s: &str| Url::parse(s).map(String::from).unwrap_or_else(|e| format!("error: {e}"));
        assert_eq!(p("HTTP://Example.COM"), "http://example.com/");
        assert_eq!(p("http://example.com:80/a/./b/../c"), "http://example.com/a/c");
        assert_eq!(p("https://example.com:443?x"), "https://example.com/?x");
        assert_eq!(p("https://example.com:8443"), "https://example.com:8443/");
        assert_eq!(p("urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed"), "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed");
        assert_eq!(p("http://x/%7e%4A%3f"), "http://x/~J%3F");
        assert!(Url::parse("http://x/a b").is_err());
        assert_eq!(p("file:///c:/folder/file.json"), "file:///c:/folder/file.json");
        assert_eq!(p("http://[::1]:80/"), "http://[::1]/");
        assert!(Url::parse("relative/path").is_err());
    }

    #[test]
    fn joins() {
        let base = Url::parse("http://localhost:1234/draft2020-12/tree").unwrap();
        let j = |r: &str| base.join(r).map(String::from).unwrap_or_else(|e| format!("error: {e}"));
        assert_eq!(j("node"), "http://localhost:1234/draft2020-12/node");
        assert_eq!(j("/x"), "http://localhost:1234/x");
        assert_eq!(j("../a/./b"), "http://localhost:1234/a/b");
        assert_eq!(j("urn:example:x"), "urn:example:x");
        assert_eq!(j("//other"), "http://other/");
        assert_eq!(base.host_str(), Some("localhost"));
        assert_eq!(base.scheme(), "http");
        assert_eq!(Url::parse("urn:x:y").unwrap().host_str(), None);
        assert_eq!(Url::parse("http://u@[::1]:8/").unwrap().host_str(), Some("[::1]"));
    }
}
