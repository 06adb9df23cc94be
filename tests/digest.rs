//! Tests for `webmcp_warden::digest`: SHA-256, tool fingerprints assembled from the canonical
//! text of each field, and which fields changed.
//!
//! Canonical JSON itself is written by the TS layer; its RFC 8785 vectors live in
//! `tests/fixtures/canonical.json`, which `pkg-js/test/canonical.test.mjs` runs against
//! `canonicalJson`. This file reads the same fixture for what the core does with those texts.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod support;

use serde_json::{json, Value as Json};
use webmcp_warden::digest::{args_digest, changed_fields, sha256_hex, FieldTexts};

fn fixture() -> Json {
    support::load_json("canonical.json")
}

#[test]
fn sha256_known_vectors() {
    assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert_eq!(sha256_hex(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    // Two blocks, and a length that needs the padding to spill into a second block.
    assert_eq!(
        sha256_hex(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    );
}

#[test]
fn the_args_digest_hashes_the_canonical_text() {
    let texts = fixture()["texts"].as_array().unwrap().clone();
    let with_digest: Vec<&Json> = texts.iter().filter(|case| case.get("sha256").is_some()).collect();
    assert!(with_digest.len() >= 2, "the fixture has digest vectors");
    for case in with_digest {
        assert_eq!(args_digest(case["expected"].as_str().unwrap()), case["sha256"].as_str().unwrap(), "{}", case["name"]);
    }
}

#[test]
fn fingerprints_are_what_the_core_computed_before() {
    let cases = fixture()["fingerprints"].as_array().unwrap().clone();
    assert!(cases.len() >= 4);
    for case in &cases {
        let texts = FieldTexts::from_value(&support::v(case["fields"].clone())).unwrap();
        assert_eq!(texts.fingerprint(), case["fingerprint"].as_str().unwrap(), "{}", case["definition"]["name"]);
    }
    // The value the old tests pinned for this definition, computed from its whole JSON.
    let search = cases.iter().find(|case| case["definition"]["name"] == "search").unwrap();
    assert_eq!(search["fingerprint"], "e88355994fddf8b36eca264dac31c8cba4934b9cae0ef555e0266f915f497f72");
}

#[test]
fn the_definition_text_is_its_fields_in_member_order() {
    let texts = FieldTexts::from_pairs([
        ("title", "\"T\""),
        ("name", "\"n\""),
        ("annotations", "{}"),
        ("outputSchema", "true"),
        ("description", "\"d\""),
        ("inputSchema", "{\"type\":\"object\"}"),
    ])
    .unwrap();
    assert_eq!(
        texts.canonical_definition(),
        r#"{"annotations":{},"description":"d","inputSchema":{"type":"object"},"name":"n","outputSchema":true,"title":"T"}"#
    );
    assert_eq!(FieldTexts::from_pairs([("name", "\"x\"")]).unwrap().canonical_definition(), r#"{"name":"x"}"#);
}

#[test]
fn field_texts_are_checked() {
    let error = |value: Json| FieldTexts::from_value(&support::v(value)).unwrap_err();
    assert!(error(json!({ "description": "\"d\"" })).contains("needs a name"));
    assert!(error(json!({ "name": "\"n\"", "execute": "1" })).contains("\"execute\" is not a fingerprinted field"));
    assert!(error(json!({ "name": 5 })).contains("is a string, not a number"));
    assert!(error(json!(["name"])).contains("not an array"));
}

fn fields(pairs: &[(&str, &str)]) -> webmcp_warden::digest::FieldDigests {
    FieldTexts::from_pairs(pairs.iter().copied()).unwrap().digests()
}

#[test]
fn changed_fields_lists_differences_in_fixed_order() {
    let previous = fields(&[("name", "\"search\""), ("description", "\"Find items\""), ("inputSchema", "{}")]);
    assert!(changed_fields(&previous, &previous.clone()).is_empty());
    let current = fields(&[("name", "\"search\""), ("description", "\"Find all items\""), ("inputSchema", "{}")]);
    assert_eq!(changed_fields(&previous, &current), ["description"]);
    let current = fields(&[
        ("name", "\"search\""),
        ("title", "\"Search\""),
        ("description", "\"Find all items\""),
        ("inputSchema", "{}"),
        ("outputSchema", "{\"type\":\"object\"}"),
        ("annotations", "{\"readOnlyHint\":true}"),
    ]);
    assert_eq!(changed_fields(&previous, &current), ["title", "description", "outputSchema", "annotations"]);
    let renamed = fields(&[("name", "\"search2\"")]);
    assert_eq!(changed_fields(&previous, &renamed), ["name", "description", "inputSchema"]);
}

#[test]
fn an_empty_title_differs_from_no_title() {
    let without = FieldTexts::from_pairs([("name", "\"n\"")]).unwrap();
    let empty = FieldTexts::from_pairs([("name", "\"n\""), ("title", "\"\"")]).unwrap();
    assert_ne!(without.fingerprint(), empty.fingerprint());
    assert_eq!(changed_fields(&without.digests(), &empty.digests()), ["title"]);
}

#[test]
fn a_definition_fingerprints_as_the_support_helper_builds_it() {
    // The helper other tests use writes the same field texts as the fixture for a plain tool.
    let def = json!({ "name": "search", "description": "Find items", "inputSchema": { "type": "object", "properties": { "q": { "type": "string" } } } });
    assert_eq!(support::definition(&def).fingerprint, "e88355994fddf8b36eca264dac31c8cba4934b9cae0ef555e0266f915f497f72");
}
