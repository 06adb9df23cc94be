//! Shaping for a model: the shared fixtures (`tests/fixtures/shape.json`, also read by the JS
//! tests), examples of the UTF-16 scan, the limits and hints of bounded shaping, and properties
//! checked with proptest.
//!
//! Fixtures and generated results are written as `serde_json` values (test-only) and converted
//! to the core's own [`Value`]; numbers are measured the way JS writes them (`ryu_js`), as the TS
//! layer reports them in [`Hints::numbers`].
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use std::borrow::Cow;

use proptest::prelude::*;
use serde_json::json;
use webmcp_warden::shape::{
    apply_removals, classify, has_removable, scan_utf16, shape_result, shape_with, strip_str, Class,
    Field, Flags, Hints, NumberLengths, Omitted, Request, ShapeOptions, Shaped, DEFAULT_MAX_BYTES,
    MAX_BLOCKS, MAX_DEPTH, MAX_MIME_BYTES, STRUCTURED_SLACK, TRUNCATION_PREFIX,
};
use webmcp_warden::value::{Map, Value};
use webmcp_warden::{object, wire};

const FIXTURES: &str = include_str!("fixtures/shape.json");

/// Strings of this form become [`Value::Unsupported`] (what the TS layer sends for a BigInt, a
/// cycle, …), so generated results can hold them.
const UNSUPPORTED_MARK: &str = "<unsupported>";

fn units(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

fn opts(max_bytes: usize) -> ShapeOptions {
    ShapeOptions {
        max_bytes,
        ..ShapeOptions::default()
    }
}

/// A `serde_json` value as the core's value.
fn from_json(v: &serde_json::Value) -> Value {
    match v {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => Value::Number(n.as_f64().unwrap()),
        serde_json::Value::String(s) => match s.strip_prefix(UNSUPPORTED_MARK) {
            Some(kind) => Value::Unsupported(kind.to_owned()),
            None => Value::String(s.clone()),
        },
        serde_json::Value::Array(items) => Value::Array(items.iter().map(from_json).collect()),
        serde_json::Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), from_json(v))).collect()),
    }
}

/// What `String(n)` gives in JS.
fn js_number(n: f64) -> String {
    ryu_js::Buffer::new().format_finite(n).to_owned()
}

fn numbers_in(v: &Value, out: &mut Vec<(f64, usize)>) {
    match v {
        Value::Number(n) => out.push((*n, js_number(*n).len())),
        Value::Array(items) => items.iter().for_each(|x| numbers_in(x, out)),
        Value::Object(map) => map.iter().for_each(|(_, x)| numbers_in(x, out)),
        _ => {}
    }
}

/// The hints the TS layer sends for a result it sends whole: the JS length of every number.
fn hints_for(v: &Value) -> Hints {
    let mut pairs = Vec::new();
    numbers_in(v, &mut pairs);
    Hints {
        numbers: NumberLengths::new(pairs),
        ..Hints::default()
    }
}

/// Shapes as the TS layer's reference route does: the whole result, numbers measured as in JS.
fn shape(input: &Value, options: &ShapeOptions) -> Shaped {
    shape_with(input, options, &hints_for(input))
}

/// `JSON.stringify(v)`, written independently of the implementation (numbers by `ryu_js`,
/// strings by `serde_json`, whose escapes are those of `JSON.stringify`).
fn js_json(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => js_number(*n),
        Value::String(s) => serde_json::to_string(s).unwrap(),
        Value::Array(items) => format!("[{}]", items.iter().map(js_json).collect::<Vec<_>>().join(",")),
        Value::Object(map) => format!(
            "{{{}}}",
            map.iter()
                .map(|(k, x)| format!("{}:{}", serde_json::to_string(k).unwrap(), js_json(x)))
                .collect::<Vec<_>>()
                .join(",")
        ),
        other => panic!("not JSON: {other:?}"),
    }
}

fn text_result(texts: &[&str]) -> Value {
    let content: Vec<Value> = texts.iter().map(|t| object! { "type" => "text", "text" => *t }).collect();
    object! { "content" => Value::Array(content) }
}

fn content_of(shaped: &Shaped) -> &Vec<Value> {
    shaped.result.get("content").and_then(Value::as_array).unwrap()
}

fn text_at(shaped: &Shaped, i: usize) -> &str {
    content_of(shaped)[i].get("text").and_then(Value::as_str).unwrap()
}

// ---------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------

fn options_of(case: &serde_json::Value) -> ShapeOptions {
    let mut options = ShapeOptions::default();
    if let Some(o) = case.get("options") {
        if let Some(n) = o.get("maxBytes").and_then(serde_json::Value::as_u64) {
            options.max_bytes = usize::try_from(n).unwrap();
        }
        if let Some(s) = o.get("serverId").and_then(serde_json::Value::as_str) {
            options.server_id = s.to_owned();
        }
    }
    options
}

#[test]
fn fixtures_all_pass() {
    let cases: Vec<serde_json::Value> = serde_json::from_str(FIXTURES).expect("fixture file is JSON");
    assert!(cases.len() >= 40, "expected the full fixture set, got {}", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let name = case["name"].as_str().expect("every case has a name");
        let options = options_of(case);
        let input = from_json(&case["input"]);
        let expected = from_json(&case["expected"]);
        let shaped = shape(&input, &options);
        if !shaped.result.json_eq(&expected) {
            failures.push(format!("{name}\n  expected: {}\n  got:      {}", js_json(&expected), js_json(&shaped.result)));
            continue;
        }
        let again = shape(&shaped.result, &options);
        if again != shaped {
            failures.push(format!("{name}: not idempotent\n  once:  {shaped:?}\n  twice: {again:?}"));
        }
        // Through the wire, as the boundary does it.
        let mut request = Map::new();
        request.insert("result", input.clone());
        request.insert("serverId", options.server_id.clone().into());
        request.insert("maxBytes", options.max_bytes.into());
        let mut numbers = Vec::new();
        numbers_in(&input, &mut numbers);
        request.insert("numbers", Value::Array(numbers.into_iter().flat_map(|(n, len)| [Value::Number(n), len.into()]).collect()));
        let request = Request::from_value(wire::decode(&wire::encode(&Value::Object(request))).unwrap());
        let crossed = shape_with(&request.result, &request.options, &request.hints);
        if crossed != shaped {
            failures.push(format!("{name}: differs through the wire"));
        }
        if let Err(why) = consistent(&shaped, &options) {
            failures.push(format!("{name}: {why}"));
        }
    }
    assert!(failures.is_empty(), "{} fixture failure(s):\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn fixture_names_are_unique_and_astral_text_is_escaped() {
    let cases: Vec<serde_json::Value> = serde_json::from_str(FIXTURES).unwrap();
    let mut names: Vec<&str> = cases.iter().map(|c| c["name"].as_str().unwrap()).collect();
    names.sort_unstable();
    let before = names.len();
    names.dedup();
    assert_eq!(before, names.len());
    // Readable in any editor: no raw astral or invisible characters in the file itself.
    assert!(!FIXTURES.chars().any(|c| u32::from(c) > 0xFFFF || classify(c).is_some()));
}

// ---------------------------------------------------------------------------------------
// UTF-16 scan
// ---------------------------------------------------------------------------------------

#[test]
fn clean_text_has_no_removals() {
    for s in [
        "",
        "plain ASCII",
        "caf\u{e9} \u{4e2d}\u{6587} \u{1F600}\u{FE0F} \u{ad}",
    ] {
        assert_eq!(scan_utf16(&units(s)).removals, vec![]);
        assert!(scan_utf16(&units(s)).flags.is_empty());
        assert!(matches!(strip_str(s).0, Cow::Borrowed(_)));
    }
}

#[test]
fn bmp_members_are_single_units_and_adjacent_ones_merge() {
    let scan = scan_utf16(&units("a\u{200B}\u{202E}b\u{FEFF}"));
    assert_eq!(scan.removals, vec![(1, 3), (4, 5)]);
    assert_eq!(scan.removals_flat(), vec![1, 3, 4, 5]);
    assert_eq!(scan.removed_units(), 3);
    assert_eq!(scan.flags.names(), vec!["bidi", "zero_width"]);
}

#[test]
fn astral_members_remove_both_surrogates() {
    // "x" + U+E0041 (tag A) + U+E0100 (VS17) + "y"
    let scan = scan_utf16(&units("x\u{E0041}\u{E0100}y"));
    assert_eq!(scan.removals, vec![(1, 5)]);
    assert_eq!(scan.flags.names(), vec!["tag_chars", "variation_selectors"]);
    assert_eq!(
        apply_removals(&units("x\u{E0041}\u{E0100}y"), &scan.removals),
        units("xy")
    );
}

#[test]
fn neighbours_of_the_classes_are_kept() {
    for c in [
        '\u{061B}',
        '\u{061D}',
        '\u{200A}',
        '\u{2065}',
        '\u{206A}',
        '\u{FEFE}',
        '\u{E0080}',
        '\u{E00FF}',
        '\u{E01F0}',
        '\u{FE0F}',
    ] {
        assert_eq!(classify(c), None, "{:X}", u32::from(c));
        assert_eq!(scan_utf16(&units(&c.to_string())).removals, vec![]);
    }
    assert_eq!(classify('\u{E007F}'), Some(Class::TagChar));
    assert_eq!(classify('\u{E01EF}'), Some(Class::VariationSelector));
}

#[test]
fn lone_surrogates_are_kept() {
    let input = [0xD800, 0x61, 0xDC00, 0xDB40, 0x62, 0xDB40];
    assert_eq!(scan_utf16(&input), Default::default());
}

#[test]
fn removal_never_joins_lone_surrogates_into_a_character() {
    // Lone DB40, ZWSP, lone DC41: removing only the ZWSP would create U+E0041 (a tag char).
    let input = [0x41, 0xDB40, 0x200B, 0xDC41, 0xDC42, 0x42];
    let scan = scan_utf16(&input);
    assert_eq!(scan.removals, vec![(2, 5)]);
    assert_eq!(
        apply_removals(&input, &scan.removals),
        vec![0x41, 0xDB40, 0x42]
    );
    // A removal after a valid pair leaves the pair alone and joins nothing.
    let input = [0xD83D, 0xDE00, 0x200B, 0xDC00];
    assert_eq!(scan_utf16(&input).removals, vec![(2, 3)]);
}

#[test]
fn apply_removals_clamps_bad_ranges() {
    let u = units("abcdef");
    assert_eq!(apply_removals(&u, &[(4, 99)]), units("abcd"));
    assert_eq!(apply_removals(&u, &[(3, 4), (1, 2)]), units("abcef"));
    assert_eq!(apply_removals(&u, &[(5, 2)]), units("abcdef"));
}

#[test]
fn strip_str_reports_what_it_removed() {
    let (out, flags) = strip_str("\u{FEFF}a\u{E0061}b\u{2066}");
    assert_eq!(out, "ab");
    assert_eq!(flags.names(), vec!["bidi", "zero_width", "tag_chars"]);
    assert!(!has_removable(&out));
}

#[test]
fn flags_names_bits_and_truncated() {
    let all = Flags::from_bits(0xFF);
    assert_eq!(all.names(), Flags::NAMES.to_vec());
    assert_eq!(all.bits(), 0xFF);
    // Bit i below 7 is NAMES[i]: the TS layer maps bits to names that way.
    for (bit, name) in Flags::NAMES.iter().enumerate() {
        assert_eq!(Flags::from_bits(1 << bit).names(), vec![*name]);
    }
    assert!(Flags::from_bits(1 << 7).truncated);
    let mut f = Flags::default();
    assert!(f.set_name("media_dropped"));
    assert!(!f.set_name("truncated"));
    assert!(!f.set_name("nonsense"));
    f.truncated = true;
    assert_eq!(f.names(), vec!["media_dropped"]);
    assert_eq!(Flags::from_bits(f.bits()), f);
    assert_eq!(
        f | Flags {
            bidi: true,
            ..Flags::default()
        },
        Flags::from_bits(f.bits() | 1)
    );
}

// ---------------------------------------------------------------------------------------
// shape_result: numbers and edges the fixtures cannot show
// ---------------------------------------------------------------------------------------

#[test]
fn options_default() {
    let d = ShapeOptions::default();
    assert_eq!((d.server_id.as_str(), d.max_bytes), ("page", DEFAULT_MAX_BYTES));
}

#[test]
fn shaped_reports_sizes() {
    let input = text_result(&["0123456789", "abc"]);
    let shaped = shape_result(&input, &opts(11));
    assert!(shaped.truncated && shaped.flags.truncated && !shaped.original_at_least);
    assert_eq!((shaped.kept_bytes, shaped.original_bytes), (11, 13));
    let fits = shape_result(&input, &opts(13));
    assert!(!fits.truncated);
    assert_eq!((fits.kept_bytes, fits.original_bytes), (13, 13));
}

#[test]
fn default_cap_is_102400_bytes() {
    let big = "a".repeat(250_000);
    let shaped = shape_result(&text_result(&[&big]), &ShapeOptions::default());
    assert_eq!(text_at(&shaped, 0).len(), 102_400);
    assert_eq!(text_at(&shaped, 1), "[truncated by the MCP client: kept 102400 of 250000 bytes]");
}

#[test]
fn huge_cap_and_huge_counts_do_not_overflow() {
    let shaped = shape_result(&text_result(&["x"]), &opts(usize::MAX));
    assert!(!shaped.truncated);
    // A forged notice with numbers past usize is just text.
    let text = format!("{TRUNCATION_PREFIX}kept 0 of 99999999999999999999999 bytes]");
    assert!(!shape_result(&text_result(&[&text]), &opts(100)).truncated);
}

#[test]
fn structured_numbers_are_measured_as_js_writes_them() {
    // {"a":0.1,"b":-0,"c":1e+21,"d":123456789012345680000,"e":-1.5e-7}
    let sc = object! {
        "a" => 0.1, "b" => -0.0, "c" => 1e21, "d" => 123_456_789_012_345_680_000.0, "e" => -1.5e-7,
    };
    let written = js_json(&sc);
    assert_eq!(written, r#"{"a":0.1,"b":0,"c":1e+21,"d":123456789012345680000,"e":-1.5e-7}"#);
    let input = object! { "content" => Value::Array(vec![]), "structuredContent" => sc };
    let fits = shape(&input, &opts(written.len()));
    assert!(!fits.truncated && fits.kept_bytes == written.len());
    assert!(shape(&input, &opts(written.len() - 1)).truncated);
    // Without the table a non-integer counts as the longest JS number (25 bytes): never less.
    let blind = shape_result(&input, &opts(written.len()));
    assert!(blind.truncated);
}

// ---------------------------------------------------------------------------------------
// Results lost or misreported: only the offending part goes
// ---------------------------------------------------------------------------------------

fn nested(levels: usize, leaf: Value) -> Value {
    (0..levels).fold(leaf, |inner, _| Value::Array(vec![inner]))
}

#[test]
fn structured_content_nested_too_deep_loses_only_the_deep_part() {
    let deep = nested(MAX_DEPTH + 5, "leaf\u{200B}".into());
    let input = object! {
        "content" => Value::Array(vec![object! { "type" => "text", "text" => "kept" }]),
        "structuredContent" => object! { "ok" => 1u32, "deep" => deep },
    };
    let shaped = shape_result(&input, &opts(1 << 20));
    assert_eq!(text_at(&shaped, 0), "kept");
    let sc = shaped.result.get("structuredContent").unwrap();
    assert_eq!(sc.get("ok"), Some(&Value::Number(1.0)));
    // The object is depth 0, so the arrays under "deep" start at depth 1: 127 stay, the 128th
    // is the notice.
    let mut at = sc.get("deep").unwrap();
    for _ in 1..MAX_DEPTH {
        at = &at.as_array().unwrap()[0];
    }
    assert_eq!(at, &Value::String("[a value nested deeper than 128 levels removed by the MCP client]".into()));
    assert!(shaped.flags.unsupported_content && !shaped.truncated);
    assert_eq!(shape_result(&shaped.result, &opts(1 << 20)), shaped);
    // 128 levels of arrays under the root (depths 0..=127) are kept whole.
    let ok = shape_result(&object! { "content" => Value::Array(vec![]), "structuredContent" => nested(MAX_DEPTH, "leaf".into()) }, &opts(1 << 20));
    assert!(!ok.flags.unsupported_content);
}

#[test]
fn what_json_cannot_say_is_replaced_in_place_and_a_bad_root_is_dropped() {
    let input = object! {
        "content" => Value::Array(vec![object! { "type" => "text", "text" => "still here" }]),
        "structuredContent" => object! {
            "n" => Value::Unsupported("a BigInt".into()),
            "list" => Value::Array(vec![1u32.into(), Value::Unsupported("a cyclic reference".into())]),
        },
    };
    let shaped = shape_result(&input, &ShapeOptions::default());
    let expected = object! {
        "n" => "[a BigInt removed by the MCP client]",
        "list" => Value::Array(vec![1u32.into(), "[a cyclic reference removed by the MCP client]".into()]),
    };
    assert!(shaped.result.get("structuredContent").unwrap().json_eq(&expected));
    assert_eq!(shaped.flags.names(), vec!["unsupported_content"]);
    assert_eq!(text_at(&shaped, 0), "still here");
    let root = object! { "content" => Value::Array(vec![]), "structuredContent" => Value::Unsupported("a BigInt".into()) };
    let shaped = shape_result(&root, &ShapeOptions::default());
    assert!(shaped.result.get("structuredContent").is_none() && shaped.flags.unsupported_content);
}

#[test]
fn is_error_keeps_its_truthiness() {
    for (given, expected) in [
        (Value::Bool(true), true),
        (Value::String("yes".into()), true),
        (Value::Number(1.0), true),
        (Value::Object(Map::new()), true),
        (Value::Bool(false), false),
        (Value::Number(0.0), false),
        (Value::String(String::new()), false),
        (Value::Null, false),
    ] {
        let input = object! { "content" => Value::Array(vec![]), "isError" => given.clone() };
        let shaped = shape_result(&input, &ShapeOptions::default());
        assert_eq!(shaped.result.get("isError"), Some(&Value::Bool(expected)), "{given:?}");
        // Also on an invalid result.
        let invalid = object! { "isError" => given.clone() };
        assert_eq!(shape_result(&invalid, &ShapeOptions::default()).result.get("isError"), Some(&Value::Bool(expected)));
    }
    let absent = shape_result(&text_result(&["x"]), &ShapeOptions::default());
    assert!(absent.result.get("isError").is_none());
}

// ---------------------------------------------------------------------------------------
// Limits and hints: bounded cost
// ---------------------------------------------------------------------------------------

#[test]
fn blocks_past_the_limit_are_dropped_unmeasured() {
    let texts: Vec<String> = (0..MAX_BLOCKS + 500).map(|i| format!("b{i}")).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let shaped = shape_result(&text_result(&refs), &ShapeOptions::default());
    let content = content_of(&shaped);
    assert_eq!(content.len(), MAX_BLOCKS + 1);
    let kept: usize = texts[..MAX_BLOCKS].iter().map(String::len).sum();
    assert_eq!(text_at(&shaped, MAX_BLOCKS), format!("{TRUNCATION_PREFIX}kept {kept} of at least {kept} bytes]"));
    assert!(shaped.truncated && shaped.original_at_least && shaped.flags.oversized);
    assert_eq!(shaped.flags.names(), vec!["oversized"]);
    // Idempotent: the notice is recognised and the block count stays within the limit.
    assert_eq!(shape_result(&shaped.result, &ShapeOptions::default()), shaped);
    assert_eq!(shape_result(&shape_result(&shaped.result, &opts(10)).result, &opts(10)), shape_result(&shaped.result, &opts(10)));
    // The TS layer sends only the first MAX_BLOCKS and says how many it left out.
    let hinted = shape_with(&text_result(&refs[..MAX_BLOCKS]), &ShapeOptions::default(), &Hints { surplus_blocks: 500, ..Hints::default() });
    assert_eq!(hinted, shaped);
    // Exactly MAX_BLOCKS blocks are not over.
    assert!(!shape_result(&text_result(&refs[..MAX_BLOCKS]), &ShapeOptions::default()).truncated);
}

#[test]
fn structured_content_far_over_the_cap_is_dropped_unmeasured() {
    let cap = 100;
    // {"s":"xx…"} of exactly cap + slack bytes is measured; one byte more is not.
    let at_limit = "x".repeat(cap + STRUCTURED_SLACK - 8);
    let input = |s: &str| object! { "content" => Value::Array(vec![object! { "type" => "text", "text" => "t" }]), "structuredContent" => object! { "s" => s } };
    let measured = shape_result(&input(&at_limit), &opts(cap));
    assert_eq!(text_at(&measured, 1), format!("{TRUNCATION_PREFIX}kept 1 of {} bytes]", 1 + cap + STRUCTURED_SLACK));
    assert!(!measured.flags.oversized);
    let over = shape_result(&input(&format!("{at_limit}x")), &opts(cap));
    assert_eq!(text_at(&over, 1), format!("{TRUNCATION_PREFIX}kept 1 of at least {} bytes]", 1 + cap + STRUCTURED_SLACK + 1));
    assert!(over.flags.oversized && over.result.get("structuredContent").is_none());
    assert_eq!(shape_result(&over.result, &opts(cap)), over);
    // Stripping can make a measured one fit: the limit is on the raw JSON, the cap on the shaped.
    let hidden = format!("{}ok", "\u{200B}".repeat((cap + STRUCTURED_SLACK - 10) / 3));
    let fits = shape_result(&input(&hidden), &opts(cap));
    assert!(!fits.truncated && fits.result.get("structuredContent").is_some());
    // The TS layer does not send it and says so.
    let hinted = shape_with(
        &object! { "content" => Value::Array(vec![object! { "type" => "text", "text" => "t" }]) },
        &opts(cap),
        &Hints { structured_over_limit: true, ..Hints::default() },
    );
    assert_eq!(hinted, over);
}

#[test]
fn a_mime_type_over_the_limit_makes_its_block_malformed() {
    let long = format!("image/png; {}", "a".repeat(MAX_MIME_BYTES));
    let input = object! { "content" => Value::Array(vec![object! { "type" => "image", "data" => "AAAA", "mimeType" => long }]) };
    let shaped = shape_result(&input, &ShapeOptions::default());
    assert_eq!(text_at(&shaped, 0), "[unsupported content block \"image\" removed by the MCP client]");
    // Hidden characters do not count: the limit is on the stripped type.
    let padded = format!("image/png{}", "\u{200B}".repeat(MAX_MIME_BYTES));
    let input = object! { "content" => Value::Array(vec![object! { "type" => "image", "data" => "AAAA", "mimeType" => padded }]) };
    let shaped = shape_result(&input, &ShapeOptions::default());
    assert_eq!(content_of(&shaped)[0].get("mimeType"), Some(&Value::String("image/png".into())));
}

/// A result cut as the TS layer cuts it: each text field the block's type reads, when longer
/// than `need` bytes once stripped, is sent stripped and cut to its first `need` characters,
/// the rest reported as omitted and the flags of what stripping removed carried in
/// `provenance.flags`; `data` or `blob` longer than `need` is sent as `""` (or `"!"` when it is
/// not base64, which makes it a notice whatever it holds). A final short text block of a
/// result that says it was cut is sent whole: it may be that shaping's notice.
fn precut(input: &Value, need: usize) -> (Value, Vec<Omitted>) {
    let base64ish = |d: &str| d.bytes().all(|b| b.is_ascii_alphanumeric() || b"+/-_= \t\r\n".contains(&b));
    let mut omitted = Vec::new();
    let mut found = Flags::default();
    let Some(obj) = input.as_object() else { return (input.clone(), omitted) };
    let Some(content) = obj.get("content").and_then(Value::as_array) else { return (input.clone(), omitted) };
    let cut_before = obj.get("provenance").and_then(|p| p.get("truncated")) == Some(&Value::Bool(true));
    let mut blocks = Vec::new();
    for (i, block) in content.iter().enumerate() {
        let Some(fields) = block.as_object() else {
            blocks.push(block.clone());
            continue;
        };
        let mut cut = |field: Field, map: &mut Map, key: &str| {
            let Some(text) = map.get(key).and_then(Value::as_str) else { return };
            if text.len() <= need {
                return;
            }
            let (stripped, flags) = strip_str(text);
            let stripped = stripped.into_owned();
            if stripped.len() <= need {
                return;
            }
            found |= flags;
            let end = stripped.char_indices().nth(need).map_or(stripped.len(), |(at, _)| at);
            omitted.push(Omitted { block: i, field, bytes: stripped.len() - end });
            map.insert(key, stripped[..end].into());
        };
        // Returns the bytes left out, for `cut`'s list.
        let stub = |map: &mut Map, key: &str| -> Option<usize> {
            let data = map.get(key).and_then(Value::as_str)?;
            if data.len() <= need {
                return None;
            }
            if base64ish(data) {
                let bytes = data.len();
                map.insert(key, "".into());
                Some(bytes)
            } else {
                map.insert(key, "!".into());
                None
            }
        };
        let mut stubbed = None;
        let mut out = fields.clone();
        let last_notice = cut_before && i + 1 == content.len() && fields.get("text").and_then(Value::as_str).is_some_and(|t| t.len() <= 128);
        match fields.get("type").and_then(Value::as_str) {
            Some("text") if !last_notice => cut(Field::Text, &mut out, "text"),
            Some("resource_link") => {
                cut(Field::Uri, &mut out, "uri");
                cut(Field::Name, &mut out, "name");
            }
            Some("image" | "audio") => stubbed = stub(&mut out, "data"),
            Some("resource") => {
                if let Some(Value::Object(resource)) = fields.get("resource") {
                    let mut r = resource.clone();
                    cut(Field::Uri, &mut r, "uri");
                    if r.get("text").and_then(Value::as_str).is_some() {
                        cut(Field::Text, &mut r, "text");
                    } else {
                        stubbed = stub(&mut r, "blob");
                    }
                    out.insert("resource", r.into());
                }
            }
            _ => {}
        }
        if let Some(bytes) = stubbed {
            omitted.push(Omitted { block: i, field: Field::Data, bytes });
        }
        blocks.push(Value::Object(out));
    }
    let mut sent = obj.clone();
    sent.insert("content", Value::Array(blocks));
    if !found.is_empty() {
        let mut provenance = obj.get("provenance").and_then(Value::as_object).cloned().unwrap_or_default();
        let mut names: Vec<Value> = provenance.get("flags").and_then(Value::as_array).cloned().unwrap_or_default();
        names.extend(found.names().into_iter().map(Value::from));
        provenance.insert("flags", Value::Array(names));
        sent.insert("provenance", provenance.into());
    }
    (Value::Object(sent), omitted)
}

#[test]
fn omitted_ends_measure_as_if_they_were_sent() {
    let png = "iVBORw0KGgo".repeat(30);
    let input = object! { "content" => Value::Array(vec![
        object! { "type" => "text", "text" => format!("{}\u{200B}é", "a".repeat(300)) },
        object! { "type" => "resource_link", "uri" => format!("https://x/{}", "p".repeat(200)), "name" => "n".repeat(150) },
        object! { "type" => "image", "mimeType" => "image/png", "data" => png.clone() },
        object! { "type" => "resource", "resource" => object! { "uri" => "u".repeat(120), "mimeType" => "text/plain", "text" => "r".repeat(400) } },
        object! { "type" => "resource", "resource" => object! { "uri" => "v", "mimeType" => "image/png", "blob" => png } },
    ]) };
    for cap in [0, 1, 50, 150, 299, 300, 301, 302, 303, 500, 700, 1000, 2000] {
        let whole = shape_result(&input, &opts(cap));
        // The TS layer sends at least cap + 1 bytes of any field it cuts.
        for need in [cap + 1, cap + 7] {
            let (sent, omitted) = precut(&input, need);
            let hinted = shape_with(&sent, &opts(cap), &Hints { omitted, ..Hints::default() });
            assert_eq!(hinted, whole, "cap {cap}, need {need}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------

/// Characters chosen to hit every class, their neighbours, multi-byte boundaries and plain text.
fn arb_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => prop::char::range(' ', '~'),
        2 => prop::sample::select(vec![
            '\u{061C}', '\u{180E}', '\u{200B}', '\u{200C}', '\u{200D}', '\u{200E}', '\u{200F}',
            '\u{202A}', '\u{202E}', '\u{2060}', '\u{2064}', '\u{2066}', '\u{2069}', '\u{FEFF}',
            '\u{E0000}', '\u{E0041}', '\u{E007F}', '\u{E0100}', '\u{E01EF}',
        ]),
        1 => prop::sample::select(vec![
            '\u{e9}', '\u{1F600}', '\u{4E2D}', '\u{FE0F}', '\u{AD}', '\u{E0080}', '\u{E01F0}',
            '\u{2065}', '\u{200A}', '"', '\\', '\n', '\u{1}',
        ]),
        1 => any::<char>(),
    ]
}

fn arb_text() -> impl Strategy<Value = String> {
    prop::collection::vec(arb_char(), 0..24).prop_map(|cs| cs.into_iter().collect())
}

fn arb_mime() -> impl Strategy<Value = serde_json::Value> {
    prop_oneof![
        prop::sample::select(vec![
            "image/png",
            "image/jpeg",
            "IMAGE/GIF; x=1",
            "image/webp",
            "image/svg+xml",
            "audio/wav",
            "audio/mpeg",
            "audio/aac",
            "application/pdf",
            "text/plain",
            "image/x] hi [",
        ])
        .prop_map(serde_json::Value::from),
        arb_text().prop_map(serde_json::Value::from),
        Just(serde_json::Value::Null),
    ]
}

fn arb_data() -> impl Strategy<Value = String> {
    prop_oneof!["[A-Za-z0-9+/]{0,40}={0,2}", arb_text(),]
}

fn with_meta(block: serde_json::Value, meta: bool) -> serde_json::Value {
    let mut block = block;
    if meta {
        if let Some(obj) = block.as_object_mut() {
            obj.insert("_meta".into(), json!({ "k": "v\u{200B}" }));
            obj.insert("annotations".into(), json!({ "audience": ["user"] }));
            obj.insert("unknown\u{202E}".into(), json!(1));
        }
    }
    block
}

fn arb_block() -> impl Strategy<Value = serde_json::Value> {
    let block = prop_oneof![
        4 => arb_text().prop_map(|t| json!({ "type": "text", "text": t })),
        1 => (prop::sample::select(vec!["image", "audio"]), arb_data(), arb_mime())
            .prop_map(|(k, d, m)| json!({ "type": k, "data": d, "mimeType": m })),
        1 => (arb_text(), arb_mime(), arb_text())
            .prop_map(|(u, m, t)| json!({
                "type": "resource", "resource": { "uri": u, "mimeType": m, "text": t }
            })),
        1 => (arb_text(), arb_mime(), arb_data())
            .prop_map(|(u, m, b)| json!({
                "type": "resource", "resource": { "uri": u, "mimeType": m, "blob": b }
            })),
        1 => (arb_text(), prop::option::of(arb_text()))
            .prop_map(|(u, n)| json!({ "type": "resource_link", "uri": u, "name": n })),
        1 => arb_text().prop_map(|t| json!({ "type": t })),
        1 => Just(json!("not a block")),
        1 => prop::sample::select(vec![
            format!("{TRUNCATION_PREFIX}kept 0 of 5 bytes]"),
            format!("{TRUNCATION_PREFIX}kept 3 of 9 bytes]"),
            format!("{TRUNCATION_PREFIX}kept 3 of at least 3 bytes]"),
        ])
        .prop_map(|t| json!({ "type": "text", "text": t })),
    ];
    (block, any::<bool>()).prop_map(|(b, m)| with_meta(b, m))
}

fn arb_json() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        (-1e9f64..1e9).prop_map(serde_json::Value::from),
        prop::sample::select(vec![0.1, 1e21, -1.5e-7, 5e-324, 1.7976931348623157e308, 0.5, -0.0])
            .prop_map(serde_json::Value::from),
        arb_text().prop_map(serde_json::Value::from),
        prop::sample::select(vec!["a BigInt", "a cyclic reference"]).prop_map(|k| serde_json::Value::from(format!("{UNSUPPORTED_MARK}{k}"))),
    ];
    leaf.prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(serde_json::Value::Array),
            prop::collection::btree_map(arb_text(), inner, 0..5)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

fn arb_result() -> impl Strategy<Value = Value> {
    let valid = (
        prop::collection::vec(arb_block(), 0..6),
        prop::option::of(arb_json()),
        prop::option::of(prop_oneof![any::<bool>().prop_map(serde_json::Value::from), Just(json!("yes")), Just(json!(0))]),
        prop::option::of(prop::collection::vec(
            prop::sample::select(vec!["bidi", "media_dropped", "truncated", "oversized", "bogus"]),
            0..3,
        )),
    )
        .prop_map(|(content, sc, is_error, carried)| {
            let mut r = json!({ "content": content, "_meta": { "m": 1 } });
            if let Some(sc) = sc {
                r["structuredContent"] = sc;
            }
            if let Some(e) = is_error {
                r["isError"] = e;
            }
            if let Some(flags) = carried {
                r["provenance"] = json!({ "serverId": "x", "truncated": true, "flags": flags });
            }
            r
        });
    prop_oneof![9 => valid, 1 => arb_json()].prop_map(|v| from_json(&v))
}

fn arb_max() -> impl Strategy<Value = usize> {
    prop_oneof![4 => 0usize..300, 1 => Just(DEFAULT_MAX_BYTES)]
}

/// Every string in `v`, keys included.
fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(m) => {
            for (k, x) in m.iter() {
                out.push(k.clone());
                strings(x, out);
            }
        }
        _ => {}
    }
}

fn len_of(v: &Value, key: &str) -> usize {
    v.get(key).and_then(Value::as_str).map_or(0, str::len)
}

/// The kept size of a shaped result, measured independently of the implementation.
fn measure(result: &Value) -> usize {
    let content = result.get("content").and_then(Value::as_array).unwrap();
    let truncated = result.get("provenance").and_then(|p| p.get("truncated")).and_then(Value::as_bool).unwrap();
    let counted = if truncated { &content[..content.len() - 1] } else { &content[..] };
    let blocks: usize = counted
        .iter()
        .map(|b| match b.get("type").and_then(Value::as_str).unwrap() {
            "text" => len_of(b, "text"),
            "image" | "audio" => len_of(b, "data"),
            "resource" => {
                let r = b.get("resource").unwrap();
                len_of(r, "uri") + len_of(r, "text") + len_of(r, "blob") + if r.get("text").is_some() { len_of(r, "mimeType") } else { 0 }
            }
            other => panic!("unexpected block type {other}"),
        })
        .sum();
    let sc = result.get("structuredContent").map_or(0, |v| js_json(v).len());
    blocks + sc
}

/// Invariants every shaped result satisfies.
fn consistent(shaped: &Shaped, options: &ShapeOptions) -> Result<(), String> {
    let r = &shaped.result;
    let mut all = Vec::new();
    strings(r, &mut all);
    if let Some(bad) = all.iter().find(|s| has_removable(s)) {
        return Err(format!("removable character left in {bad:?}"));
    }
    let keys: Vec<&String> = r.as_object().ok_or("not an object")?.keys().collect();
    if keys.iter().any(|k| !["content", "structuredContent", "isError", "provenance"].contains(&k.as_str())) {
        return Err(format!("unexpected top-level keys {keys:?}"));
    }
    if r.get("isError").is_some_and(|e| e.as_bool().is_none()) {
        return Err("isError is not a boolean".into());
    }
    let p = r.get("provenance").ok_or("no provenance")?;
    if p.get("serverId").and_then(Value::as_str) != Some(options.server_id.as_str()) {
        return Err("serverId not from options".into());
    }
    if p.get("truncated") != Some(&Value::Bool(shaped.truncated)) || shaped.flags.truncated != shaped.truncated {
        return Err("truncated disagrees".into());
    }
    if !p.get("flags").unwrap().json_eq(&Value::from(shaped.flags.names())) {
        return Err("provenance.flags disagrees with Shaped::flags".into());
    }
    let kept = measure(r);
    if kept != shaped.kept_bytes {
        return Err(format!("kept_bytes {} but measured {kept}", shaped.kept_bytes));
    }
    let content = content_of(shaped);
    if content.len() > MAX_BLOCKS + 1 {
        return Err(format!("{} blocks", content.len()));
    }
    if shaped.truncated {
        let last = content.last().and_then(|b| b.get("text")).and_then(Value::as_str).unwrap_or_default();
        if !last.starts_with(TRUNCATION_PREFIX) {
            return Err("truncated without a final notice".into());
        }
        let removed = if shaped.original_at_least { shaped.kept_bytes <= shaped.original_bytes } else { shaped.kept_bytes < shaped.original_bytes };
        if !removed {
            return Err("truncated but nothing was removed".into());
        }
    }
    Ok(())
}

/// Asserts the scan's ranges are well formed and that applying them leaves a string with no
/// removable character and no surrogate pair that was not already a pair in the input.
fn check_scan(input: &[u16]) -> Result<(), TestCaseError> {
    let scan = scan_utf16(input);
    let mut prev_end = None;
    for &(s, e) in &scan.removals {
        prop_assert!(s < e && (e as usize) <= input.len());
        if let Some(p) = prev_end {
            prop_assert!(p < s, "ranges must be sorted and merged");
        }
        prev_end = Some(e);
        let is_high = |i: usize| (0xD800..0xDC00).contains(&input[i]);
        let is_low = |i: usize| (0xDC00..0xE000).contains(&input[i]);
        let (s, e) = (s as usize, e as usize);
        prop_assert!(
            !(s > 0 && is_high(s - 1) && is_low(s)),
            "a removal starts inside a pair"
        );
        prop_assert!(
            !(e < input.len() && is_high(e - 1) && is_low(e)),
            "a removal ends inside a pair"
        );
    }
    // Which input units survive, in order.
    let mut kept_idx = Vec::new();
    let mut r = scan.removals.iter().peekable();
    for i in 0..input.len() {
        while r.peek().is_some_and(|&&(_, e)| e as usize <= i) {
            r.next();
        }
        if r.peek().is_none_or(|&&(s, _)| s as usize > i) {
            kept_idx.push(i);
        }
    }
    let out = apply_removals(input, &scan.removals);
    prop_assert_eq!(out.len(), kept_idx.len());
    for c in char::decode_utf16(out.iter().copied()).flatten() {
        prop_assert!(classify(c).is_none(), "left {:X}", u32::from(c));
    }
    for w in kept_idx.windows(2) {
        let (a, b) = (w[0], w[1]);
        if (0xD800..0xDC00).contains(&input[a]) && (0xDC00..0xE000).contains(&input[b]) {
            prop_assert_eq!(b, a + 1, "removal joined two lone surrogates");
        }
    }
    // Flags name exactly the classes of what was removed (lone lows removed to prevent a
    // join carry no class of their own).
    let mut expect = Flags::default();
    for c in char::decode_utf16(input.iter().copied()).flatten() {
        if let Some(class) = classify(c) {
            expect.mark(class);
        }
    }
    prop_assert_eq!(scan.flags, expect);
    Ok(())
}

fn arb_unit() -> impl Strategy<Value = u16> {
    prop_oneof![
        3 => 0x20u16..0x7F,
        2 => prop::sample::select(vec![
            0x061Cu16, 0x180E, 0x200B, 0x200F, 0x202E, 0x2064, 0x2069, 0xFEFF, 0xDB40, 0xD83D,
        ]),
        1 => 0xDC00u16..0xDC90,
        1 => 0xDD00u16..0xDDF8,
        1 => 0xD800u16..0xDC00,
        1 => 0xDC00u16..0xE000,
        1 => any::<u16>(),
    ]
}

proptest! {
    // No regression files written into the repository; failures print their minimal input.
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn scan_never_panics_and_leaves_nothing_removable(
        input in prop::collection::vec(arb_unit(), 0..40),
    ) {
        check_scan(&input)?;
    }

    #[test]
    fn scan_agrees_with_strip_str(s in prop_oneof![arb_text(), any::<String>()]) {
        let u = units(&s);
        let scan = scan_utf16(&u);
        let (stripped, flags) = strip_str(&s);
        prop_assert_eq!(apply_removals(&u, &scan.removals), units(&stripped));
        prop_assert_eq!(scan.flags, flags);
        prop_assert_eq!(scan.removals.is_empty(), matches!(stripped, Cow::Borrowed(_)));
    }

    #[test]
    fn shaped_results_are_clean_capped_and_consistent(input in arb_result(), max in arb_max()) {
        let options = opts(max);
        let shaped = shape(&input, &options);
        prop_assert!(shaped.kept_bytes <= max, "kept {} > cap {}", shaped.kept_bytes, max);
        if let Err(why) = consistent(&shaped, &options) {
            let shown = format!("{why}\ninput: {input:?}\nshaped: {:?}", shaped.result);
            return Err(TestCaseError::fail(shown));
        }
    }

    #[test]
    fn shaping_is_idempotent(input in arb_result(), max in arb_max()) {
        let options = opts(max);
        let once = shape(&input, &options);
        let twice = shape(&once.result, &options);
        prop_assert_eq!(&twice, &once, "input: {:?}", input);
    }

    #[test]
    fn cutting_before_the_core_changes_nothing(input in arb_result(), max in arb_max(), slack in 1usize..8) {
        let options = opts(max);
        let whole = shape(&input, &options);
        let (sent, omitted) = precut(&input, max + slack);
        let mut hints = hints_for(&input);
        hints.omitted = omitted;
        prop_assert_eq!(&shape_with(&sent, &options, &hints), &whole, "input: {:?}", input);
    }

    #[test]
    fn reshaping_with_another_cap_still_holds(
        input in arb_result(),
        a in 0usize..300,
        b in 0usize..300,
    ) {
        let once = shape(&input, &opts(a));
        let twice = shape(&once.result, &opts(b));
        prop_assert!(twice.kept_bytes <= b && twice.kept_bytes <= once.kept_bytes);
        if once.truncated {
            prop_assert_eq!(twice.original_bytes, once.original_bytes);
        }
        if let Err(why) = consistent(&twice, &opts(b)) {
            return Err(TestCaseError::fail(why));
        }
    }
}

/// `scan_str` (UTF-8 in, UTF-16 positions out) agrees with `scan_utf16` on well-formed text.
#[test]
fn scan_str_agrees_with_scan_utf16_on_well_formed_text() {
    use webmcp_warden::shape::{scan_str, scan_utf16};
    let samples = [
        "plain ascii",
        "caf\u{e9} \u{202e}evil\u{202c} \u{1F600} zero\u{200b}width",
        "\u{e0041}\u{e0042}tag smuggling\u{e0100}\u{e01ef}",
        "\u{feff}bom \u{61c} arabic mark \u{180e} mongolian",
        "\u{4e2d}\u{6587}\u{2060}\u{2064}\u{2066}\u{2069}",
        "",
    ];
    for sample in samples {
        let units: Vec<u16> = sample.encode_utf16().collect();
        assert_eq!(scan_str(sample), scan_utf16(&units), "{sample:?}");
    }
}

proptest::proptest! {
    #[test]
    fn scan_str_matches_scan_utf16(text in "\\PC{0,64}|[a\u{200b}\u{202e}\u{e0041}\u{e0100}\u{1F600}\u{feff}é]{0,64}") {
        let units: Vec<u16> = text.encode_utf16().collect();
        proptest::prop_assert_eq!(webmcp_warden::shape::scan_str(&text), webmcp_warden::shape::scan_utf16(&units));
    }
}

/// The JS candidate pattern names exactly the characters `classify` removes: checked here by
/// expanding its ranges (the pattern is JS syntax, so it is read, not run).
#[test]
fn candidate_pattern_covers_exactly_the_removed_characters() {
    use webmcp_warden::shape::{classify, CANDIDATE_PATTERN_JS};
    let units = |text: &str| -> Vec<(u32, u32)> {
        // Pull every `\uXXXX` or `\uXXXX-\uXXXX` out of the pattern, in order.
        let mut ranges = Vec::new();
        let mut rest = text;
        while let Some(at) = rest.find("\\u") {
            let hex = &rest[at + 2..at + 6];
            let start = u32::from_str_radix(hex, 16).unwrap();
            rest = &rest[at + 6..];
            let end = if let Some(tail) = rest.strip_prefix("-\\u") {
                let end = u32::from_str_radix(&tail[..4], 16).unwrap();
                rest = &tail[4..];
                end
            } else {
                start
            };
            ranges.push((start, end));
        }
        ranges
    };
    let (bmp, astral) = CANDIDATE_PATTERN_JS.split_once('|').unwrap();
    let bmp_ranges = units(bmp);
    let in_bmp = |c: u32| bmp_ranges.iter().any(|&(s, e)| (s..=e).contains(&c));
    for code in 0..=0xFFFFu32 {
        let Some(c) = char::from_u32(code) else { continue };
        assert_eq!(in_bmp(code), classify(c).is_some(), "U+{code:04X}");
    }
    let astral_ranges = units(astral);
    assert_eq!(astral_ranges[0], (0xDB40, 0xDB40));
    let lows = &astral_ranges[1..];
    for code in 0xE0000..=0xE03FFu32 {
        let low = 0xDC00 + (code - 0x10000) % 0x400;
        let matched = lows.iter().any(|&(s, e)| (s..=e).contains(&low));
        assert_eq!(matched, classify(char::from_u32(code).unwrap()).is_some(), "U+{code:05X}");
    }
}
