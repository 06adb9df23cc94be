//! The core's side of a resource read's URI (`Engine::resolve_uri`, `src/uri.rs`): the
//! canonical form every later stage sees, and the resource that serves it, looked up among the
//! resources the TS layer names, in its order. Hrefs here are what WHATWG's `URL` makes of each
//! URI (checked in Node by pkg-js/test/resource-uris.test.mjs, which drives the same code
//! through the package).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::arithmetic_side_effects)]

use webmcp_warden::digest::FieldTexts;
use webmcp_warden::engine::Engine;
use webmcp_warden::governor::Definition;
use webmcp_warden::hooks::Subject;
use webmcp_warden::value::Value;

fn definition(name: &str) -> Definition {
    let name_text = serde_json::to_string(name).unwrap();
    let texts = FieldTexts::from_pairs([("name", name_text.as_str())]).unwrap();
    Definition::new(name, Value::Null, &texts)
}

/// An engine with resources `uris` (handles 1, 2, …) and a prompt (the next handle).
fn page(uris: &[&str]) -> Engine {
    let mut engine = Engine::new();
    for (id, uri) in (1u32..).zip(uris) {
        engine.define_subject(id, Subject::Resource, definition(uri), None, Vec::new(), "r").unwrap();
    }
    let prompt = u32::try_from(uris.len()).unwrap() + 1;
    engine.define_subject(prompt, Subject::Prompt, definition("file:///secrets/key"), None, Vec::new(), "p").unwrap();
    engine
}

/// `(uri, index, params)` of a resolved read.
fn resolve(engine: &Engine, raw: &str, href: &str, tools: &[u32]) -> (String, Option<u64>, Vec<(String, String)>) {
    let answer = engine.resolve_uri(raw, Some(href), tools).unwrap_or_else(|err| panic!("{raw}: {}", err.message));
    let uri = answer.get("uri").and_then(Value::as_str).unwrap().to_owned();
    let index = answer.get("index").and_then(Value::as_u64);
    let params = match answer.get("params") {
        Some(Value::Object(map)) => map.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned())).collect(),
        other => panic!("params: {other:?}"),
    };
    (uri, index, params)
}

#[test]
fn a_read_resolves_to_its_canonical_uri_and_the_template_variables_of_it() {
    let engine = page(&["file:///{+path}"]);
    // WHATWG removed the dot segments and turned `\` into `/`; the core decoded `%73`, `%6B`.
    for (raw, href) in [
        ("file:///public/../secrets/key", "file:///secrets/key"),
        ("file:///public/%2e%2e/secrets/key", "file:///secrets/key"),
        ("file:///./secrets/key", "file:///secrets/key"),
        ("file:///secrets\\key", "file:///secrets/key"),
        ("file:///%73ecrets/%6Bey", "file:///%73ecrets/%6Bey"),
    ] {
        let (uri, index, params) = resolve(&engine, raw, href, &[1]);
        assert_eq!(uri, "file:///secrets/key", "{raw}");
        assert_eq!(index, Some(0), "{raw}");
        assert_eq!(params, vec![("path".to_owned(), "secrets/key".to_owned())], "{raw}");
    }
}

#[test]
fn a_uri_of_its_own_first_then_templates_in_the_order_given() {
    let engine = page(&["docs://{+any}", "docs://readme", "docs://{name}"]);
    assert_eq!(resolve(&engine, "docs://readme", "docs://readme", &[1, 2, 3]).1, Some(1), "the resource of exactly that URI wins");
    assert_eq!(resolve(&engine, "docs://%72eadme", "docs://%72eadme", &[1, 2, 3]).1, Some(1), "in any spelling");
    assert_eq!(resolve(&engine, "docs://other", "docs://other", &[3, 1]).1, Some(0), "then the first template, in the order given");
    assert_eq!(resolve(&engine, "docs://other", "docs://other", &[1, 3]).1, Some(0));
    let (uri, index, params) = resolve(&engine, "docs://a/b?c", "docs://a/b?c", &[1, 2, 3]);
    assert_eq!((uri.as_str(), index, params), ("docs://a/b?c", None, vec![]), "no variable holds a query");
    assert_eq!(resolve(&engine, "docs://readme", "docs://readme", &[]).1, None, "only the resources named");
    assert_eq!(resolve(&engine, "file:///secrets/key", "file:///secrets/key", &[4, 99]).1, None, "a prompt or an unknown handle is no resource");
}

#[test]
fn ambiguous_uris_are_refused_as_data() {
    let engine = page(&["file:///{+path}"]);
    for (raw, href, why) in [
        ("file:///public/%2Fsecrets", "file:///public/%2Fsecrets", "encoded '/'"),
        ("file:///public%5Csecrets", "file:///public%5Csecrets", "encoded '/' or '\\'"),
        ("file:////secrets/key", "file:////secrets/key", "empty path segment"),
        ("x:a/../b", "x:a/../b", "'..' segment"),
        ("http://user@internal/x", "http://user@internal/x", "user name"),
    ] {
        let err = engine.resolve_uri(raw, Some(href), &[1]).unwrap_err();
        assert_eq!(err.code, "invalid_uri", "{raw}");
        assert!(err.message.contains(why), "{raw}: {}", err.message);
    }
    let err = engine.resolve_uri("file:///sec\trets/key", Some("file:///secrets/key"), &[1]).unwrap_err();
    assert!(err.message.contains("control characters"), "{}", err.message);
    let err = engine.resolve_uri("no scheme", None, &[1]).unwrap_err();
    assert_eq!(err.message, "\"no scheme\" is not a URI");
}

#[test]
fn a_template_is_compiled_when_its_resource_is_defined() {
    let mut engine = Engine::new();
    let err = engine.define_subject(1, Subject::Resource, definition("user://{id/profile"), None, Vec::new(), "r").unwrap_err();
    assert_eq!(err.code, "invalid_uri");
    assert_eq!(err.message, "URI template \"user://{id/profile\" has a '{' without its '}'");
    // A prompt's name is never a template.
    engine.define_subject(2, Subject::Prompt, definition("a{b"), None, Vec::new(), "p").unwrap();
}
