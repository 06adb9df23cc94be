//! The core's side of a resource read's URI (`uri::resolve`, `uri::canonical`): the canonical
//! form every later stage sees, and the resource that serves it, looked up among the resources
//! the TS layer names (their URIs and templates), in its order. Hrefs here are what WHATWG's
//! `URL` makes of each URI (pkg-js/test/resource-uris.test.mjs drives the same code through the
//! package, with the platform's `URL`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use webmcp_warden::uri::{resolve, Templates};

/// `(uri, index, params)` of a resolved read among resources `keys`.
fn resolved(raw: &str, href: &str, keys: &[&str]) -> (String, Option<usize>, Vec<(String, String)>) {
    let answer = resolve(raw, Some(href), keys, &mut Templates::default()).unwrap_or_else(|err| panic!("{raw}: {}", err.message));
    (answer.uri, answer.index, answer.params)
}

#[test]
fn a_read_resolves_to_its_canonical_uri_and_the_template_variables_of_it() {
    // WHATWG removed the dot segments and turned `\` into `/`; the core decoded `%73`, `%6B`.
    for (raw, href) in [
        ("file:///public/../secrets/key", "file:///secrets/key"),
        ("file:///public/%2e%2e/secrets/key", "file:///secrets/key"),
        ("file:///./secrets/key", "file:///secrets/key"),
        ("file:///secrets\\key", "file:///secrets/key"),
        ("file:///%73ecrets/%6Bey", "file:///%73ecrets/%6Bey"),
    ] {
        let (uri, index, params) = resolved(raw, href, &["file:///{+path}"]);
        assert_eq!(uri, "file:///secrets/key", "{raw}");
        assert_eq!(index, Some(0), "{raw}");
        assert_eq!(params, vec![("path".to_owned(), "secrets/key".to_owned())], "{raw}");
    }
}

#[test]
fn a_uri_of_its_own_first_then_templates_in_the_order_given() {
    let keys = ["docs://{+any}", "docs://readme", "docs://{name}"];
    assert_eq!(resolved("docs://readme", "docs://readme", &keys).1, Some(1), "the resource of exactly that URI wins");
    assert_eq!(resolved("docs://%72eadme", "docs://%72eadme", &keys).1, Some(1), "in any spelling");
    assert_eq!(resolved("docs://other", "docs://other", &["docs://{name}", "docs://{+any}"]).1, Some(0), "then the first template, in the order given");
    assert_eq!(resolved("docs://other", "docs://other", &keys).1, Some(0));
    let (uri, index, params) = resolved("docs://a/b?c", "docs://a/b?c", &keys);
    assert_eq!((uri.as_str(), index, params), ("docs://a/b?c", None, vec![]), "no variable holds a query");
    assert_eq!(resolved("docs://readme", "docs://readme", &[]).1, None, "only the resources named");
    assert_eq!(resolved("docs://x", "docs://x", &["docs://{", "docs://{a}{a}"]).1, None, "a template that does not compile matches nothing");
}

#[test]
fn ambiguous_uris_are_refused_as_data() {
    let keys = ["file:///{+path}"];
    for (raw, href, why) in [
        ("file:///public/%2Fsecrets", "file:///public/%2Fsecrets", "encoded '/'"),
        ("file:///public%5Csecrets", "file:///public%5Csecrets", "encoded '/' or '\\'"),
        ("file:////secrets/key", "file:////secrets/key", "empty path segment"),
        ("x:a/../b", "x:a/../b", "'..' segment"),
        ("http://user@internal/x", "http://user@internal/x", "user name"),
    ] {
        let err = resolve(raw, Some(href), &keys, &mut Templates::default()).unwrap_err();
        assert_eq!(err.code, "invalid_uri", "{raw}");
        assert!(err.message.contains(why), "{raw}: {}", err.message);
    }
    let err = resolve("file:///sec\trets/key", Some("file:///secrets/key"), &keys, &mut Templates::default()).unwrap_err();
    assert!(err.message.contains("control characters"), "{}", err.message);
    let err = resolve("no scheme", None, &keys, &mut Templates::default()).unwrap_err();
    assert_eq!(err.message, "\"no scheme\" is not a URI");
}

#[test]
fn more_templates_than_are_kept_answer_as_the_first_time() {
    let mut templates = Templates::default();
    let mut read = |uri: &str, keys: &[&str]| {
        resolve(uri, Some(uri), keys, &mut templates).unwrap().index
    };
    // More templates than are kept: the oldest is compiled again, the answers stay the same.
    let many: Vec<String> = (0..100).map(|i| format!("t{i}://{{id}}")).collect();
    let keys: Vec<&str> = many.iter().map(String::as_str).collect();
    for _ in 0..2 {
        for i in [0, 50, 99, 0] {
            assert_eq!(read(&format!("t{i}://x"), &keys), Some(i));
        }
    }
    assert_eq!(read("t0://x/y", &keys), None);
}
