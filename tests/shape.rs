//! Shaping for a model (SPEC §7): the shared fixtures (`tests/fixtures/shape.json`, also
//! read by the JS tests), examples of the UTF-16 scan, and properties checked with proptest.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use std::borrow::Cow;

use proptest::prelude::*;
use serde_json::{json, Value};
use webmcp_warden::shape::{
    apply_removals, classify, has_removable, scan_utf16, shape_result, strip_str, Class, Flags,
    ShapeOptions, Shaped, DEFAULT_MAX_BYTES, MAX_DEPTH, TRUNCATION_PREFIX,
};

const FIXTURES: &str = include_str!("fixtures/shape.json");

fn units(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

fn opts(max_bytes: usize) -> ShapeOptions {
    ShapeOptions {
        max_bytes,
        ..ShapeOptions::default()
    }
}

// ---------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------

#[test]
fn fixtures_all_pass() {
    let cases: Vec<Value> = serde_json::from_str(FIXTURES).expect("fixture file is JSON");
    assert!(
        cases.len() >= 40,
        "expected the full fixture set, got {}",
        cases.len()
    );
    let mut failures = Vec::new();
    for case in &cases {
        let name = case["name"].as_str().expect("every case has a name");
        let options: ShapeOptions = match case.get("options") {
            Some(o) => serde_json::from_value(o.clone()).expect("options parse"),
            None => ShapeOptions::default(),
        };
        let shaped = shape_result(&case["input"], &options);
        if shaped.result != case["expected"] {
            failures.push(format!(
                "{name}\n  expected: {}\n  got:      {}",
                case["expected"], shaped.result
            ));
            continue;
        }
        let again = shape_result(&shaped.result, &options);
        if again != shaped {
            failures.push(format!(
                "{name}: not idempotent\n  once:  {:?}\n  twice: {:?}",
                shaped, again
            ));
        }
        if let Err(why) = consistent(&shaped, &options) {
            failures.push(format!("{name}: {why}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} fixture failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn fixture_names_are_unique_and_astral_text_is_escaped() {
    let cases: Vec<Value> = serde_json::from_str(FIXTURES).unwrap();
    let mut names: Vec<&str> = cases.iter().map(|c| c["name"].as_str().unwrap()).collect();
    names.sort_unstable();
    let before = names.len();
    names.dedup();
    assert_eq!(before, names.len());
    // Readable in any editor: no raw astral or invisible characters in the file itself.
    assert!(!FIXTURES
        .chars()
        .any(|c| u32::from(c) > 0xFFFF || classify(c).is_some()));
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
    let all = Flags::from_bits(0x7F);
    assert_eq!(all.names(), Flags::NAMES.to_vec());
    assert_eq!(all.bits(), 0x7F);
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
fn options_default_and_parse_camel_case() {
    let d = ShapeOptions::default();
    assert_eq!(
        (d.server_id.as_str(), d.max_bytes),
        ("page", DEFAULT_MAX_BYTES)
    );
    let o: ShapeOptions = serde_json::from_value(json!({ "maxBytes": 7 })).unwrap();
    assert_eq!((o.server_id.as_str(), o.max_bytes), ("page", 7));
}

#[test]
fn shaped_reports_sizes() {
    let input = json!({ "content": [
        { "type": "text", "text": "0123456789" },
        { "type": "text", "text": "abc" },
    ] });
    let shaped = shape_result(&input, &opts(11));
    assert!(shaped.truncated && shaped.flags.truncated);
    assert_eq!((shaped.kept_bytes, shaped.original_bytes), (11, 13));
    let fits = shape_result(&input, &opts(13));
    assert!(!fits.truncated);
    assert_eq!((fits.kept_bytes, fits.original_bytes), (13, 13));
}

#[test]
fn default_cap_is_102400_bytes() {
    let big = "a".repeat(250_000);
    let shaped = shape_result(
        &json!({ "content": [{ "type": "text", "text": big }] }),
        &ShapeOptions::default(),
    );
    let content = shaped.result["content"].as_array().unwrap();
    assert_eq!(content[0]["text"].as_str().unwrap().len(), 102_400);
    assert_eq!(
        content[1]["text"],
        "[truncated by the MCP client: kept 102400 of 250000 bytes]"
    );
}

#[test]
fn too_deep_structured_content_is_dropped_without_panicking() {
    let mut deep = json!("leaf\u{200B}");
    for _ in 0..(MAX_DEPTH + 5) {
        deep = json!([deep]);
    }
    let shaped = shape_result(
        &json!({ "content": [], "structuredContent": deep }),
        &opts(1 << 20),
    );
    assert!(shaped.result.get("structuredContent").is_none());
    assert!(shaped.flags.unsupported_content);
    let mut ok = json!("leaf");
    for _ in 0..MAX_DEPTH {
        ok = json!([ok]);
    }
    let shaped = shape_result(
        &json!({ "content": [], "structuredContent": ok }),
        &opts(1 << 20),
    );
    assert!(shaped.result.get("structuredContent").is_some());
}

#[test]
fn huge_cap_and_huge_counts_do_not_overflow() {
    let shaped = shape_result(
        &json!({ "content": [{ "type": "text", "text": "x" }] }),
        &opts(usize::MAX),
    );
    assert!(!shaped.truncated);
    // A forged notice with numbers past usize is just text.
    let text = format!("{TRUNCATION_PREFIX}kept 0 of 99999999999999999999999 bytes]");
    let forged = json!({ "content": [{ "type": "text", "text": text }] });
    assert!(!shape_result(&forged, &opts(100)).truncated);
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
            '\u{2065}', '\u{200A}', '"', '\\', '\n',
        ]),
        1 => any::<char>(),
    ]
}

fn arb_text() -> impl Strategy<Value = String> {
    prop::collection::vec(arb_char(), 0..24).prop_map(|cs| cs.into_iter().collect())
}

fn arb_mime() -> impl Strategy<Value = Value> {
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
        .prop_map(Value::from),
        arb_text().prop_map(Value::from),
        Just(Value::Null),
    ]
}

fn arb_data() -> impl Strategy<Value = String> {
    prop_oneof!["[A-Za-z0-9+/]{0,40}={0,2}", arb_text(),]
}

fn with_meta(block: Value, meta: bool) -> Value {
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

fn arb_block() -> impl Strategy<Value = Value> {
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
        ])
        .prop_map(|t| json!({ "type": "text", "text": t })),
    ];
    (block, any::<bool>()).prop_map(|(b, m)| with_meta(b, m))
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1e9f64..1e9).prop_map(Value::from),
        arb_text().prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map(arb_text(), inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn arb_result() -> impl Strategy<Value = Value> {
    let valid = (
        prop::collection::vec(arb_block(), 0..6),
        prop::option::of(arb_json()),
        prop::option::of(prop_oneof![
            any::<bool>().prop_map(Value::from),
            Just(json!("yes"))
        ]),
        prop::option::of(prop::collection::vec(
            prop::sample::select(vec!["bidi", "media_dropped", "truncated", "bogus"]),
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
    prop_oneof![9 => valid, 1 => arb_json()]
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
            for (k, x) in m {
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
    let content = result["content"].as_array().unwrap();
    let truncated = result["provenance"]["truncated"].as_bool().unwrap();
    let counted = if truncated {
        &content[..content.len() - 1]
    } else {
        &content[..]
    };
    let blocks: usize = counted
        .iter()
        .map(|b| match b["type"].as_str().unwrap() {
            "text" => len_of(b, "text"),
            "image" | "audio" => len_of(b, "data"),
            "resource" => {
                let r = &b["resource"];
                len_of(r, "uri")
                    + len_of(r, "text")
                    + len_of(r, "blob")
                    + if r.get("text").is_some() {
                        len_of(r, "mimeType")
                    } else {
                        0
                    }
            }
            other => panic!("unexpected block type {other}"),
        })
        .sum();
    let sc = result
        .get("structuredContent")
        .map_or(0, |v| serde_json::to_string(v).unwrap().len());
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
    if keys
        .iter()
        .any(|k| !["content", "structuredContent", "isError", "provenance"].contains(&k.as_str()))
    {
        return Err(format!("unexpected top-level keys {keys:?}"));
    }
    let p = &r["provenance"];
    if p["serverId"] != json!(options.server_id) {
        return Err("serverId not from options".into());
    }
    if p["truncated"] != json!(shaped.truncated) || shaped.flags.truncated != shaped.truncated {
        return Err("truncated disagrees".into());
    }
    if p["flags"] != json!(shaped.flags.names()) {
        return Err("provenance.flags disagrees with Shaped::flags".into());
    }
    let kept = measure(r);
    if kept != shaped.kept_bytes {
        return Err(format!(
            "kept_bytes {} but measured {kept}",
            shaped.kept_bytes
        ));
    }
    if shaped.truncated {
        let content = r["content"].as_array().unwrap();
        let last = content
            .last()
            .and_then(|b| b["text"].as_str())
            .unwrap_or_default();
        if !last.starts_with(TRUNCATION_PREFIX) {
            return Err("truncated without a final notice".into());
        }
        if shaped.kept_bytes >= shaped.original_bytes {
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
        let shaped = shape_result(&input, &options);
        prop_assert!(shaped.kept_bytes <= max, "kept {} > cap {}", shaped.kept_bytes, max);
        if let Err(why) = consistent(&shaped, &options) {
            let shown = format!("{why}\ninput: {input}\nshaped: {}", shaped.result);
            return Err(TestCaseError::fail(shown));
        }
    }

    #[test]
    fn shaping_is_idempotent(input in arb_result(), max in arb_max()) {
        let options = opts(max);
        let once = shape_result(&input, &options);
        let twice = shape_result(&once.result, &options);
        prop_assert_eq!(&twice, &once, "input: {}", input);
    }

    #[test]
    fn reshaping_with_another_cap_still_holds(
        input in arb_result(),
        a in 0usize..300,
        b in 0usize..300,
    ) {
        let once = shape_result(&input, &opts(a));
        let twice = shape_result(&once.result, &opts(b));
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
