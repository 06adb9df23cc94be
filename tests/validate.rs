//! Diagnostics fixtures for `webmcp_warden::validate`, shared with the JS tests.
//!
//! `tests/fixtures/validation.json` is an array of cases:
//!
//! - `name`, `schema` (any JSON: compiled from its compact text);
//! - the instance, as `instance` (any JSON, stringified) or `instanceJson` (raw text, for text
//!   that is not JSON); `limits` (`{maxBytes, maxDepth}`) optionally replaces the defaults;
//! - either `schemaError: {code, messageContains}` (compiling must fail so), or `valid` plus
//!   optional `diagnostics: [{path, keyword, messageContains}]` and `summaryContains`.
//!
//! Each case with an `instance` runs twice: as JSON text (`SchemaCache::compile` / `validate`)
//! and in the wire format the validator module receives (`compile_wire` / `validate_wire`),
//! which must answer the same diagnostics, message for message (size limits aside: the wire path
//! leaves them to its caller).
//!
//! When `diagnostics` is given, the actual list has exactly that many entries and each expected
//! one matches a distinct actual one (same `path` and `keyword`, message containing
//! `messageContains`); the order is not compared.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]
#![cfg(feature = "validate")]

mod common;

use serde::Deserialize;
use serde_json::Value;
use webmcp_warden::validate::{summary, Diagnostic, Limits, SchemaCache, MAX_DIAGNOSTICS, MAX_SCHEMA_DEPTH};
use webmcp_warden::wire;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Case {
    name: String,
    schema: Value,
    #[serde(default)]
    instance: Option<Value>,
    #[serde(default)]
    instance_json: Option<String>,
    #[serde(default)]
    limits: Option<Limits>,
    #[serde(default)]
    valid: Option<bool>,
    #[serde(default)]
    diagnostics: Option<Vec<Expected>>,
    #[serde(default)]
    summary_contains: Option<String>,
    #[serde(default)]
    schema_error: Option<ExpectedProblem>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Expected {
    path: String,
    keyword: String,
    message_contains: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ExpectedProblem {
    code: String,
    message_contains: String,
}

fn run_case(case: &Case) -> Result<(), String> {
    let mut cache = SchemaCache::new();
    let compiled = cache.compile(&case.schema.to_string());
    if let Some(expected) = &case.schema_error {
        if std::env::var_os("WARDEN_SHOW_DIAGNOSTICS").is_some() {
            println!("{}: {compiled:?}", case.name);
        }
        return match compiled {
            Ok(_) => Err("the schema compiled, but should not".to_owned()),
            Err(problem) if problem.code == expected.code && problem.message.contains(&expected.message_contains) => {
                Ok(())
            }
            Err(problem) => Err(format!("wrong schema problem: {problem:?}")),
        };
    }
    let handle = compiled.map_err(|p| format!("the schema did not compile: {p:?}"))?;
    let text = match (&case.instance_json, &case.instance) {
        (Some(text), _) => text.clone(),
        (None, Some(value)) => value.to_string(),
        (None, None) => "null".to_owned(),
    };
    let limits = case.limits.unwrap_or_default();
    let actual = cache.validate_with_limits(handle, &text, limits).map_err(|p| format!("{p:?}"))?;
    if let (Some(instance), false) = (&case.instance, actual.iter().any(|d| d.keyword == "size")) {
        let mut wire_cache = SchemaCache::new();
        let wire_handle = wire_cache.compile_wire(&to_wire(&case.schema)).map_err(|p| format!("the wire schema did not compile: {p:?}"))?;
        let through_wire = wire_cache.validate_wire(wire_handle, &to_wire(instance), limits.max_depth).map_err(|p| format!("{p:?}"))?;
        if through_wire != actual {
            return Err(format!("the wire format answered differently:\n{through_wire:#?}\ntext: {actual:#?}"));
        }
    }
    let shown = || format!("actual: {actual:#?}\nsummary: {}", summary(&actual));
    if std::env::var_os("WARDEN_SHOW_DIAGNOSTICS").is_some() {
        println!("{}: {}", case.name, serde_json::to_string(&actual).unwrap_or_default());
    }
    let valid = case.valid.ok_or("a case needs `valid` or `schemaError`")?;
    if actual.is_empty() != valid {
        return Err(format!("expected valid = {valid}\n{}", shown()));
    }
    if let Some(expected) = &case.diagnostics {
        if expected.len() != actual.len() {
            return Err(format!("expected {} diagnostics\n{}", expected.len(), shown()));
        }
        let mut used = vec![false; actual.len()];
        for e in expected {
            let found = actual.iter().enumerate().position(|(i, a)| {
                !used[i] && a.path == e.path && a.keyword == e.keyword && a.message.contains(&e.message_contains)
            });
            match found {
                Some(i) => used[i] = true,
                None => {
                    return Err(format!(
                        "no diagnostic matches {{path: {:?}, keyword: {:?}, messageContains: {:?}}}\n{}",
                        e.path,
                        e.keyword,
                        e.message_contains,
                        shown()
                    ))
                }
            }
        }
    }
    if let Some(part) = &case.summary_contains {
        let line = summary(&actual);
        if !line.contains(part.as_str()) {
            return Err(format!("summary {line:?} does not contain {part:?}\n{}", shown()));
        }
    }
    Ok(())
}

#[test]
fn validation_fixtures() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/validation.json")).unwrap();
    let cases: Vec<Case> = serde_json::from_str(&text).unwrap();
    assert!(cases.len() >= 25);
    let mut failures = Vec::new();
    for case in &cases {
        if let Err(why) = run_case(case) {
            failures.push(format!("- {}: {why}", case.name));
        }
    }
    println!("validation fixtures: {}/{} passed", cases.len() - failures.len(), cases.len());
    assert!(failures.is_empty(), "{} fixture(s) failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn same_text_shares_a_handle_until_the_last_drop() {
    let mut cache = SchemaCache::new();
    let a = cache.compile(r#"{"type":"string"}"#).unwrap();
    let b = cache.compile(r#"{"type":"string"}"#).unwrap();
    let c = cache.compile(r#"{"type":"number"}"#).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert_eq!(cache.len(), 2);
    cache.drop_schema(a);
    assert!(cache.validate(a, "\"x\"").unwrap().is_empty());
    cache.drop_schema(b);
    let problem = cache.validate(a, "\"x\"").unwrap_err();
    assert_eq!(problem.code, "unknown_handle");
    cache.drop_schema(a); // unknown now: ignored
    cache.drop_schema(c);
    assert!(cache.is_empty());
    let d = cache.compile(r#"{"type":"string"}"#).unwrap();
    assert_ne!(d, a, "handles are not reused");
}

#[test]
fn unknown_handle_is_an_error_not_a_panic() {
    let cache = SchemaCache::new();
    let problem = cache.validate(7, "{}").unwrap_err();
    assert_eq!(problem.code, "unknown_handle");
    assert!(problem.message.contains('7'));
}

#[test]
fn diagnostics_are_capped() {
    let mut cache = SchemaCache::new();
    let h = cache.compile(r#"{"type":"array","items":{"type":"string"}}"#).unwrap();
    let many = serde_json::to_string(&(0..100).collect::<Vec<_>>()).unwrap();
    let diagnostics = cache.validate(h, &many).unwrap();
    assert_eq!(diagnostics.len(), MAX_DIAGNOSTICS, "{diagnostics:?}");
    assert_eq!(diagnostics[0].path, "/0");
    let line = summary(&diagnostics);
    assert!(line.ends_with("; … (15 more)"), "{line}");
    // additionalProperties expands to one diagnostic per property; still capped.
    let h = cache.compile(r#"{"additionalProperties":false}"#).unwrap();
    let wide: serde_json::Map<String, Value> = (0..50).map(|i| (format!("k{i}"), Value::from(i))).collect();
    let d = cache.validate(h, &Value::Object(wide).to_string()).unwrap();
    assert_eq!(d.len(), MAX_DIAGNOSTICS, "{d:?}");
}

#[test]
fn summary_shapes() {
    assert_eq!(summary(&[]), "Validation failed");
    let d = |path: &str, keyword: &str, message: &str| Diagnostic {
        path: path.into(),
        keyword: keyword.into(),
        message: message.into(),
    };
    assert_eq!(
        summary(&[d("/a", "type", "must be number"), d("", "required", "is required: \"q\"")]),
        "Validation failed: /a must be number; /q is required"
    );
    assert_eq!(summary(&[d("/o", "required", "is required: \"a/b\"")]), "Validation failed: /o/a~1b is required");
    assert_eq!(summary(&[d("", "type", "must be object")]), "Validation failed: (root) must be object");
}

#[test]
fn deep_instances_are_refused_without_crashing() {
    let mut cache = SchemaCache::new();
    let h = cache.compile("{}").unwrap();
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let d = cache.validate(h, &deep).unwrap();
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].keyword, "depth");
    // Past the parser's own limit (127) with a generous max_depth: still `depth`.
    let limits = Limits { max_bytes: 1 << 20, max_depth: 10_000 };
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let d = cache.validate_with_limits(h, &deep, limits).unwrap();
    assert_eq!(d[0].keyword, "depth", "{d:?}");
    // Brackets inside strings do not count.
    let text = format!("[\"{}\"]", "[".repeat(1000));
    assert!(cache.validate(h, &text).unwrap().is_empty());
}

#[test]
fn messages_do_not_quote_instance_values() {
    let mut cache = SchemaCache::new();
    let h = cache
        .compile(
            r#"{"properties":{"token":{"type":"string","maxLength":3,"pattern":"^x","format":"email","enum":["a"]}}}"#,
        )
        .unwrap();
    let d = cache.validate(h, r#"{"token":"sk-SECRET-VALUE"}"#).unwrap();
    assert!(!d.is_empty());
    for diagnostic in &d {
        assert!(!diagnostic.message.contains("SECRET"), "{diagnostic:?}");
    }
    assert!(!summary(&d).contains("SECRET"));
}

#[test]
fn external_refs_never_do_io() {
    // A file that exists: still refused, as is a URL (which would hang or fail slowly if fetched).
    let mut cache = SchemaCache::new();
    let file = format!("file://{}/Cargo.toml", env!("CARGO_MANIFEST_DIR"));
    for target in [file.as_str(), "http://127.0.0.1:9/schema.json", "https://json-schema.org/draft/2019-09/schema"] {
        let schema = serde_json::json!({ "$ref": target }).to_string();
        let start = std::time::Instant::now();
        let problem = cache.compile(&schema).unwrap_err();
        assert_eq!(problem.code, "invalid_schema", "{target}");
        assert!(problem.message.contains("is not fetched"), "{target}: {problem:?}");
        assert!(start.elapsed().as_secs() < 5);
    }
}

#[test]
fn bundled_meta_schemas_resolve_without_io() {
    // A $ref to the dialect's own meta-schema is resolved from the bundled copy.
    let mut cache = SchemaCache::new();
    let h = cache.compile(r#"{"$ref":"https://json-schema.org/draft/2020-12/schema"}"#).unwrap();
    assert!(cache.validate(h, r#"{"type":"string"}"#).unwrap().is_empty());
    assert!(!cache.validate(h, r#"{"type":12}"#).unwrap().is_empty());
    let h = cache
        .compile(
            r#"{"$schema":"http://json-schema.org/draft-07/schema#","$ref":"http://json-schema.org/draft-07/schema#"}"#,
        )
        .unwrap();
    assert!(!cache.validate(h, r#"{"minimum":"x"}"#).unwrap().is_empty());
}

#[test]
fn deep_schemas_compile_or_are_refused_cleanly() {
    use webmcp_warden::validate::MAX_SCHEMA_DEPTH;
    let mut cache = SchemaCache::new();
    // 49 levels of `properties` are 99 levels of JSON: the deepest accepted.
    let mut schema = serde_json::json!({"type": "string"});
    for _ in 0..49 {
        schema = serde_json::json!({ "properties": { "a": schema } });
    }
    let h = cache.compile(&schema.to_string()).unwrap();
    let mut bad = Value::from(5);
    for _ in 0..49 {
        bad = serde_json::json!({ "a": bad });
    }
    let d = cache.validate(h, &bad.to_string()).unwrap();
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].path, "/a".repeat(49));
    let at_limit = format!("{}{{}}{}", "{\"not\":".repeat(MAX_SCHEMA_DEPTH - 1), "}".repeat(MAX_SCHEMA_DEPTH - 1));
    assert!(cache.compile(&at_limit).is_ok());
    for levels in [MAX_SCHEMA_DEPTH, 200] {
        let too_deep = format!("{}{{}}{}", "{\"not\":".repeat(levels), "}".repeat(levels));
        let problem = cache.compile(&too_deep).unwrap_err();
        assert_eq!(problem.code, "invalid_schema");
        assert!(problem.message.contains(&format!("deeper than {MAX_SCHEMA_DEPTH} levels")), "{problem:?}");
    }
}

#[test]
fn problems_serialize_for_the_js_side() {
    let mut cache = SchemaCache::new();
    let problem = cache.compile(r#"{"type":12}"#).unwrap_err();
    let json = serde_json::to_value(&problem).unwrap();
    assert_eq!(json["code"], "invalid_schema");
    assert_eq!(json["path"], "/type");
    let h = cache.compile(r#"{"required":["q"]}"#).unwrap();
    let json = serde_json::to_value(cache.validate(h, "{}").unwrap()).unwrap();
    assert_eq!(json, serde_json::json!([{ "path": "", "keyword": "required", "message": "is required: \"q\"" }]));
}

#[test]
fn patterns_are_ecmascript_with_the_u_flag() {
    let mut cache = SchemaCache::new();
    // `\d` is ASCII only, `\p{…}` needs the u flag, look-around and back-references work.
    let cases: [(&str, &str, bool); 8] = [
        (r"^\d+$", "123", true),
        (r"^\d+$", "١٢٣", false),
        (r"^\p{L}+$", "héllo", true),
        (r"^(?!\.)[a-z.]+$", ".a", false),
        (r"^(?<=x)", "x", false),
        (r"^(a)\1$", "aa", true),
        (r"^.$", "😀", true),
        (r"^[^a]$", "😀", true),
    ];
    for (pattern, text, valid) in cases {
        let h = cache.compile(&serde_json::json!({ "pattern": pattern }).to_string()).unwrap();
        let d = cache.validate(h, &Value::from(text).to_string()).unwrap();
        assert_eq!(d.is_empty(), valid, "{pattern} on {text}: {d:?}");
    }
    // The u flag refuses what only the legacy syntax allows (a lone `{`, `\-` outside a class).
    for pattern in ["a{", r"\-", "(unclosed"] {
        let problem = cache.compile(&serde_json::json!({ "pattern": pattern }).to_string()).unwrap_err();
        assert_eq!(problem.code, "invalid_schema");
        assert_eq!(problem.path, "/pattern", "{pattern}: {problem:?}");
        assert!(problem.message.contains("not a valid regular expression (ECMAScript, u flag): "), "{problem:?}");
    }
    let problem = cache.compile(r#"{"patternProperties":{"(":{}}}"#).unwrap_err();
    assert!(problem.message.contains("has a key that is not a valid regular expression"), "{problem:?}");
    assert!(problem.message.contains(r#""(""#), "{problem:?}");
    // `format: "regex"` values are checked by the same engine.
    let h = cache.compile(r#"{"format":"regex"}"#).unwrap();
    assert!(cache.validate(h, r#""^(?<=a)b$""#).unwrap().is_empty());
    let d = cache.validate(h, r#""a{""#).unwrap();
    assert_eq!((d[0].keyword.as_str(), d[0].message.as_str()), ("format", "must be a valid regex"));
}

#[test]
fn strings_over_the_pattern_bound_fail_closed_without_running_the_pattern() {
    use webmcp_warden::validate::MAX_PATTERN_INPUT_CHARS;
    let mut cache = SchemaCache::new();
    // Exponential on a backtracking engine: run on this string, it would not finish.
    let evil = format!("{}!", "a".repeat(MAX_PATTERN_INPUT_CHARS));
    let started = std::time::Instant::now();
    let h = cache.compile(r#"{"properties":{"q":{"pattern":"^(a+)+$"}}}"#).unwrap();
    let d = cache.validate(h, &serde_json::json!({ "q": evil }).to_string()).unwrap();
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!((d[0].path.as_str(), d[0].keyword.as_str()), ("/q", "pattern"));
    assert!(d[0].message.contains(&format!("longer than {MAX_PATTERN_INPUT_CHARS} characters")), "{d:?}");
    assert!(!d[0].message.contains("aaaa"), "the value is not quoted: {d:?}");
    // Exactly at the bound, the pattern runs (a harmless one here); characters, not bytes, count.
    let h = cache.compile(r#"{"pattern":"^é+$"}"#).unwrap();
    assert!(cache.validate(h, &Value::from("é".repeat(MAX_PATTERN_INPUT_CHARS)).to_string()).unwrap().is_empty());
    assert_eq!(cache.validate(h, &Value::from("é".repeat(MAX_PATTERN_INPUT_CHARS + 1)).to_string()).unwrap()[0].keyword, "pattern");
    // Under `not` (or anyOf, if) an untested string must not count as "not matching".
    let h = cache.compile(r#"{"not":{"pattern":"^a"}}"#).unwrap();
    let d = cache.validate(h, &Value::from("b".repeat(MAX_PATTERN_INPUT_CHARS + 1)).to_string()).unwrap();
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!((d[0].path.as_str(), d[0].keyword.as_str()), ("", "pattern"));
    let h = cache.compile(r#"{"anyOf":[{"pattern":"^a"},{"type":"string"}]}"#).unwrap();
    assert!(!cache.validate(h, &Value::from("b".repeat(MAX_PATTERN_INPUT_CHARS + 1)).to_string()).unwrap().is_empty());
    // Property names too, reported at the property (and not also as additional).
    let h = cache.compile(r#"{"patternProperties":{"^x":{}},"additionalProperties":false}"#).unwrap();
    let name = "x".repeat(MAX_PATTERN_INPUT_CHARS + 1);
    let d = cache.validate(h, &serde_json::json!({ name.clone(): 1 }).to_string()).unwrap();
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!((d[0].path.as_str(), d[0].keyword.as_str()), (format!("/{name}").as_str(), "patternProperties"));
    assert!(started.elapsed().as_secs() < 10, "took {:?}", started.elapsed());
}

#[test]
fn item_errors_carry_the_items_own_index() {
    let mut cache = SchemaCache::new();
    let h = cache.compile(r#"{"prefixItems":[{}],"items":{"type":"string"}}"#).unwrap();
    let d = cache.validate(h, r#"["a","b",3]"#).unwrap();
    assert_eq!(d, vec![Diagnostic { path: "/2".into(), keyword: "type".into(), message: "must be string".into() }]);
    let h = cache
        .compile(r#"{"$schema":"http://json-schema.org/draft-07/schema#","items":[{}],"additionalItems":{"type":"string"}}"#)
        .unwrap();
    let d = cache.validate(h, r#"[1,"b",3]"#).unwrap();
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].path, "/2");
}

#[test]
fn iri_formats_need_no_idna_tables_and_idn_formats_are_annotations() {
    let mut cache = SchemaCache::new();
    let iri = cache.compile(r#"{"format":"iri"}"#).unwrap();
    assert!(cache.validate(iri, r#""http://ƒøø.ßår/?∂éœ=πîx#πîüx""#).unwrap().is_empty());
    assert!(!cache.validate(iri, r#""/relative""#).unwrap().is_empty());
    let reference = cache.compile(r#"{"format":"iri-reference"}"#).unwrap();
    assert!(cache.validate(reference, r#""//ƒøø.ßår/?∂éœ=πîx#πîüx""#).unwrap().is_empty());
    assert!(!cache.validate(reference, r#""\\\\WINDOWS\\filëßåré""#).unwrap().is_empty());
    let idn = cache.compile(r#"{"format":"idn-hostname"}"#).unwrap();
    assert!(cache.validate(idn, r#""실례.테스트""#).unwrap().is_empty());
}

#[test]
fn locations_are_compared_after_normalization() {
    // `$id`s and `$ref`s are URIs resolved and normalized by boon's own `Url` (vendor/boon/src/uri.rs,
    // which replaced the `url` crate): case, default ports, empty paths and dot segments do not
    // make two spellings of one location differ, nor does percent-encoding an unreserved
    // character (RFC 3986 §6.2.2.2).
    let mut cache = SchemaCache::new();
    for (id, reference) in [
        ("http://Example.COM:80", "http://example.com/#/$defs/n"),
        ("https://example.com/a/./b/../schema", "HTTPS://example.com:443/a/schema#/$defs/n"),
        ("urn:example:root", "urn:example:root#/$defs/n"),
        ("http://example.com/%7Euser/x", "http://example.com/~user/x#/$defs/n"),
    ] {
        let schema = serde_json::json!({ "$id": id, "$defs": { "n": { "type": "number" } }, "$ref": reference });
        let h = cache.compile(&schema.to_string()).unwrap_or_else(|e| panic!("{id}: {e:?}"));
        assert!(cache.validate(h, "1").unwrap().is_empty(), "{id}");
        assert_eq!(cache.validate(h, "\"x\"").unwrap().len(), 1, "{id}");
    }
    // A relative `$ref` still resolves against the `$id` of its resource, and one that names
    // another document is still refused.
    let h = cache
        .compile(r#"{"$id":"http://example.com/root/main","$defs":{"n":{"$id":"node","type":"string"}},"$ref":"node"}"#)
        .unwrap();
    assert_eq!(cache.validate(h, "1").unwrap().len(), 1);
    let problem = cache.compile(r#"{"$id":"http://example.com/root/main","$ref":"other#/x"}"#).unwrap_err();
    assert!(problem.message.contains("external $ref"), "{problem:?}");
}

#[test]
fn meta_schemas_still_check_annotation_keywords() {
    // The bundled meta-schemas are stored without their own `title` / `description` /
    // `$comment` strings (vendor/boon/README.md); the keywords they define are still checked.
    let mut cache = SchemaCache::new();
    for schema in [
        r#"{"title":1}"#,
        r#"{"description":[]}"#,
        r#"{"$comment":{}}"#,
        r#"{"$schema":"http://json-schema.org/draft-07/schema#","title":1}"#,
        r#"{"$schema":"http://json-schema.org/draft-07/schema#","$comment":false}"#,
    ] {
        let problem = cache.compile(schema).unwrap_err();
        assert!(problem.message.contains("must be string"), "{schema}: {problem:?}");
    }
    assert!(cache.compile(r#"{"title":"t","description":"d","$comment":"c"}"#).is_ok());
}

/// A JSON value in the wire format, as `pkg-js/src/boundary/wire.ts` writes it for the validator module.
fn to_wire(json: &Value) -> Vec<u8> {
    wire::encode(&common::json_to_value(json))
}

fn compile_wire(cache: &mut SchemaCache, schema: &str) -> u32 {
    cache.compile_wire(&to_wire(&serde_json::from_str(schema).unwrap())).unwrap()
}

#[test]
fn wire_numbers_are_the_pages_doubles_exactly() {
    // 17 significant digits, where a parser that is not exact (serde_json without
    // `float_roundtrip`) lands one ulp off for some (it reads 1.7976931348623155e308 as
    // 1.7976931348623157e308): through the wire nothing is parsed.
    let mut cache = SchemaCache::new();
    for n in [0.1 + 0.2, 2.220_446_049_250_313e-16, 9_007_199_254_740_991.0 / 3.0, 1.797_693_134_862_315_5e308, 5e-324, 0.123_456_789_012_345_68] {
        // (`const` fails fast in the engine: the two keywords sit in `allOf` to be reported both.)
        let schema = serde_json::json!({ "allOf": [{ "const": n }, { "maximum": n }] });
        let h = cache.compile_wire(&to_wire(&schema)).unwrap();
        let valid = cache.validate_wire(h, &wire::encode(&webmcp_warden::value::Value::Number(n)), 64).unwrap();
        assert!(valid.is_empty(), "{n:e}: {valid:?}");
        let above = f64::from_bits(n.to_bits() + 1);
        let d = cache.validate_wire(h, &wire::encode(&webmcp_warden::value::Value::Number(above)), 64).unwrap();
        let keywords: Vec<&str> = d.iter().map(|d| d.keyword.as_str()).collect();
        assert!(keywords.contains(&"const") && keywords.contains(&"maximum"), "{n:e} + 1 ulp: {d:?}");
    }
}

#[test]
fn wire_integers_read_as_json_text_would() {
    // JSON.stringify writes 3 as `3`, which serde_json reads as an integer: messages show `5`,
    // not `5.0`, and the extremes of u64 and i64 stay integers.
    const SCHEMA: &str = r#"{"minimum":5,"maximum":18446744073709551615,"not":{"const":-9223372036854775808}}"#;
    let mut cache = SchemaCache::new();
    let wire_handle = compile_wire(&mut cache, SCHEMA);
    let text_handle = cache.compile(SCHEMA).unwrap();
    let low = cache.validate_wire(wire_handle, &to_wire(&serde_json::json!(3)), 64).unwrap();
    assert_eq!(low, cache.validate(text_handle, "3").unwrap());
    assert!(low[0].message.contains('5') && !low[0].message.contains("5.0"), "{low:?}");
    let min = -9_223_372_036_854_775_808.0;
    let d = cache.validate_wire(wire_handle, &wire::encode(&webmcp_warden::value::Value::Number(min)), 64).unwrap();
    assert_eq!(d, cache.validate(text_handle, "-9223372036854775808").unwrap());
    assert!(d.iter().any(|d| d.keyword == "minimum") && d.iter().any(|d| d.keyword == "not"), "{d:?}");
}

#[test]
fn wire_input_that_is_not_json_is_a_diagnostic_not_a_panic() {
    let mut cache = SchemaCache::new();
    let h = compile_wire(&mut cache, "{}");
    let cases: [(&str, Vec<u8>, &str); 5] = [
        ("empty", vec![], "the buffer ends early"),
        ("truncated string", vec![4, 5, b'a'], "a length past the buffer"),
        ("a function", vec![7, 1], "a value JSON cannot carry"),
        ("NaN", { let mut b = vec![3]; b.extend_from_slice(&f64::NAN.to_le_bytes()); b }, "not finite"),
        ("trailing bytes", vec![0, 0], "trailing bytes"),
    ];
    for (name, bytes, reason) in cases {
        let d = cache.validate_wire(h, &bytes, 64).unwrap();
        assert_eq!(d.len(), 1, "{name}: {d:?}");
        assert_eq!(d[0].keyword, "json", "{name}: {d:?}");
        assert!(d[0].message.contains(reason), "{name}: {d:?}");
    }
    let problem = cache.compile_wire(&[6, 1, 1, b'x', 7, 0]).unwrap_err();
    assert_eq!(problem.code, "invalid_schema");
    assert!(problem.message.contains("a value JSON cannot carry"), "{problem:?}");
}

#[test]
fn wire_depth_is_limited() {
    let mut cache = SchemaCache::new();
    let h = compile_wire(&mut cache, "{}");
    let nested = |levels: usize| {
        let mut bytes = Vec::new();
        for _ in 0..levels {
            bytes.extend_from_slice(&[5, 1]);
        }
        bytes.push(0);
        bytes
    };
    assert!(cache.validate_wire(h, &nested(64), 64).unwrap().is_empty());
    let d = cache.validate_wire(h, &nested(65), 64).unwrap();
    assert_eq!((d.len(), d[0].keyword.as_str()), (1, "depth"), "{d:?}");
    assert_eq!(d[0].message, "is nested deeper than 64 levels of arrays and objects");
    // A generous limit is still bounded by the wire's own.
    let d = cache.validate_wire(h, &nested(100_000), usize::MAX).unwrap();
    assert_eq!(d[0].keyword, "depth", "{d:?}");
    let problem = cache.compile_wire(&nested(MAX_SCHEMA_DEPTH + 1)).unwrap_err();
    assert_eq!(problem.message, format!("the schema nests arrays and objects deeper than {MAX_SCHEMA_DEPTH} levels"));
}

#[test]
fn the_same_wire_schema_shares_a_handle() {
    let mut cache = SchemaCache::new();
    let a = compile_wire(&mut cache, r#"{"type":"string"}"#);
    let b = compile_wire(&mut cache, r#"{"type":"string"}"#);
    let text = cache.compile(r#"{"type":"string"}"#).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, text, "text and wire sources are kept apart");
    assert_eq!(cache.len(), 2);
}

proptest::proptest! {
    /// Arbitrary bytes never make the validator module's reader panic; what it accepts, the core's
    /// general reader accepts too (JSON values are a subset of the wire format), with the same
    /// numbers and strings.
    #[test]
    fn wire_json_reader_never_panics(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..64)) {
        if let Ok(json) = wire::decode_json(&bytes, 8) {
            let value = wire::decode(&bytes).unwrap();
            proptest::prop_assert_eq!(common::json_to_value(&json), value);
        }
    }
}

proptest::proptest! {
    /// A missing property's name survives its trip through the `required` message into the
    /// summary line, whatever it holds (quotes, backslashes, control characters, any Unicode):
    /// `summary` undoes the message's quoting without a JSON parser (`validate::unquote`).
    #[test]
    fn required_names_reach_the_summary_intact(name in "\\PC{0,12}|[\"\\\\\\x00-\\x1f/~]{0,6}") {
        let mut cache = SchemaCache::new();
        let schema = serde_json::json!({ "required": [name.clone()] }).to_string();
        let h = cache.compile(&schema).unwrap();
        let d = cache.validate(h, "{}").unwrap();
        let escaped = name.replace('~', "~0").replace('/', "~1");
        proptest::prop_assert_eq!(summary(&d), format!("Validation failed: /{escaped} is required"));
    }
}

#[test]
fn unquote_takes_only_what_quote_writes() {
    use webmcp_warden::validate::unquote;
    assert_eq!(unquote(r#""a\"b\\c\n\u001f""#).as_deref(), Some("a\"b\\c\n\u{1f}"));
    for not_quoted in [r#"a"#, r#""a"#, r#""a"b""#, r#""\x""#, r#""\u12""#, r#""\u+01f""#, r#""\u0041""#] {
        assert_eq!(unquote(not_quoted), None, "{not_quoted}");
    }
}

#[test]
fn slow_schema_patterns_are_noted_where_they_are() {
    let mut cache = SchemaCache::new();
    // One pattern split between the page's engine and the linear one, in a nested subschema,
    // a patternProperties key and propertyNames; safe patterns and data are not noted.
    let schema = serde_json::json!({
        "properties": {
            "mail": { "pattern": r"^[^\s@]+@[^\s@]+\.[^\s@]+$" },
            "slug": { "pattern": "^[a-z0-9-]+$" },
            "pattern": { "const": { "pattern": "^(a+)+$" } },
        },
        "patternProperties": { r"^(\w+\s?)*$": {} },
        "prefixItems": [{ "propertyNames": { "pattern": "a*a*b" } }],
        "enum": [{ "pattern": "^(a+)+$" }],
    });
    let h = cache.compile(&schema.to_string()).unwrap();
    let mut notes: Vec<(&str, &str)> = cache.notes(h).iter().map(|note| (note.path.as_str(), note.code)).collect();
    notes.sort_unstable();
    assert_eq!(
        notes,
        vec![(r"/patternProperties/^(\w+\s?)*$", "pattern_linear"), ("/prefixItems/0/propertyNames/pattern", "pattern_linear"), ("/properties/mail/pattern", "pattern_linear")],
    );
    let note = cache.notes(h).iter().find(|note| note.path == "/properties/mail/pattern").unwrap();
    assert!(note.message.starts_with("schema location /properties/mail/pattern has the pattern "), "{note:?}");
    assert!(note.message.contains("which tests strings of at most "), "{note:?}");
    assert!(note.message.contains("linear-time engine"), "{note:?}");
    // A pattern too slow for any string on the page's engine says it runs on the linear one alone.
    let key = cache.notes(h).iter().find(|note| note.path.starts_with("/patternProperties")).unwrap();
    assert!(key.message.contains("exponential time") && key.message.ends_with("so every string is tested on the linear-time engine"), "{key:?}");
    // A key with `/` and `~` is escaped in the pointer.
    let h = cache.compile(r#"{"patternProperties":{"a/~\\d+$":{}}}"#).unwrap();
    assert_eq!(cache.notes(h).iter().map(|note| note.path.as_str()).collect::<Vec<_>>(), vec![r"/patternProperties/a~1~0\d+$"]);
    assert!(cache.notes(h + 100).is_empty());
}

#[test]
fn refused_schema_patterns_fail_unless_the_page_opts_in() {
    use webmcp_warden::pattern::with_unsafe_allowed;
    let mut cache = SchemaCache::new();
    let schema = r#"{"properties":{"q":{"pattern":"^(a+)+\\1$"}}}"#;
    let problem = cache.compile(schema).unwrap_err();
    assert_eq!((problem.code, problem.path.as_str()), ("unsafe_pattern", "/properties/q/pattern"), "{problem:?}");
    assert!(problem.message.starts_with("schema location /properties/q/pattern has a pattern that "), "{problem:?}");
    assert!(problem.message.contains("unsafePatterns"), "{problem:?}");
    // Opted in, it compiles, with a note; the same text compiled without the opt-in is still refused
    // (the opt-in is part of what a compiled schema is shared by).
    let h = with_unsafe_allowed(true, || cache.compile(schema)).unwrap();
    assert_eq!(cache.notes(h).iter().map(|note| note.code).collect::<Vec<_>>(), vec!["pattern_unsafe"]);
    assert_eq!(cache.compile(schema).unwrap_err().code, "unsafe_pattern");
    assert_eq!(with_unsafe_allowed(true, || cache.compile(schema)).unwrap(), h);
    // Short strings are tested; one past the pattern's limit is not, and the instance is invalid.
    assert_eq!(cache.validate(h, r#"{"q":"a"}"#).unwrap().len(), 1, "nothing left for the back-reference: invalid");
    assert!(cache.validate(h, r#"{"q":"aa"}"#).unwrap().is_empty(), "a, then the back-reference");
    // A refused key of patternProperties is named by its own location.
    let problem = cache.compile(r#"{"patternProperties":{"^(a+)+(?=x)":{}}}"#).unwrap_err();
    assert_eq!((problem.code, problem.path.as_str()), ("unsafe_pattern", "/patternProperties/^(a+)+(?=x)"), "{problem:?}");
    let d = cache.validate(h, &serde_json::json!({ "q": "a".repeat(5_000) }).to_string()).unwrap();
    assert_eq!((d[0].path.as_str(), d[0].keyword.as_str()), ("/q", "pattern"), "{d:?}");
}
