//! Shaping: an arbitrary tool result (mostly `CallToolResult`-shaped: text, media, resource and
//! link blocks, malformed ones, `_meta`, annotations, `structuredContent`, `isError`, an earlier
//! `provenance`; strings full of the characters shaping removes) through `shape_result` under
//! several caps.
//!
//! Never a panic; idempotent (`shape(shape(x)) == shape(x)`, flags and all); nothing removable
//! left (stripping any string or key of the result changes nothing, and each character of a
//! class shaping removes that is left is one a keep rule allows there; no `_meta` or
//! `annotations` on the result or its blocks); provenance names the configured server; no more
//! blocks than the limit (plus its notice).
//!
//! Also, on the text alone: `strip_str` is idempotent and agrees with `scan_str`'s edits; the
//! listed keepers (emoji sequences, Persian and Devanagari joiners, Hangul with its fillers,
//! braille, CRLF) come out unchanged, alone or between arbitrary text.
#![no_main]

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use webmcp_warden::shape::text::classify;
use webmcp_warden::shape::{apply_edits, has_removable, scan_str, shape_result, strip_str, ShapeOptions, DEFAULT_MAX_BYTES, MAX_BLOCKS, TRUNCATION_PREFIX};
use webmcp_warden::value::{Map, Value};
use webmcp_warden_fuzz::{pick, value};

/// Characters shaping removes, those it keeps in context, their contexts, and a few it keeps that
/// look alike.
const DIRTY: [char; 40] = [
    '\u{202E}', '\u{200B}', '\u{E0041}', '\u{FE0F}', '\u{061C}', '\u{2066}', '\u{FEFF}', '\u{E0100}', '\u{200D}', '\u{00AD}', 'é', '𝔸', '\u{1F600}', '\n',
    '\u{200C}', '\u{FE0E}', '\u{FE00}', '\u{180B}', '\u{2764}', '\u{1F3FD}', '#', '\u{20E3}', '\u{0645}', '\u{0915}', '\u{094D}', '\u{1820}', '\u{D55C}',
    '\u{1100}', '\u{3164}', '\u{FFA0}', '\u{115F}', '\u{1160}', '\u{2800}', '\u{2801}', '\r', '\u{2028}', '\u{85}', '\u{1B}', '\u{845B}', '\u{E0FFF}',
];
/// Text that must come out of shaping unchanged: emoji sequences, joiners between letters of
/// joining scripts, Hangul with its fillers, braille, CRLF.
const KEEPERS: [&str; 12] = [
    "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}",
    "\u{2764}\u{FE0F}",
    "#\u{FE0F}\u{20E3}",
    "\u{1F1FA}\u{1F1F8}",
    "\u{1F44D}\u{1F3FD}",
    "\u{1F9D1}\u{1F3FD}\u{200D}\u{1F4BB}",
    "\u{0645}\u{06CC}\u{200C}\u{062E}\u{0648}\u{0627}\u{0647}\u{0645}",
    "\u{0915}\u{094D}\u{200D}\u{0937} \u{0915}\u{094D}\u{200C}\u{0937}",
    "\u{D55C}\u{AD6D}\u{C5B4} \u{1100}\u{1160} \u{3164}\u{3131}\u{314F}\u{3164}",
    "\u{2813}\u{2811}\u{2800}\u{2807}",
    "line\r\nline\r\n",
    "\u{1820}\u{180B} 0\u{FE00} \u{845B}\u{FE00}",
];
const MIMES: [&str; 9] = ["image/png", "IMAGE/JPEG; q=1", "image/svg+xml", "audio/wav", "audio/mpeg", "text/plain", "image/png\u{200B}", "", "application/x-\u{202E}exe"];
const CAPS: [usize; 7] = [0, 1, 7, 64, 300, 4096, DEFAULT_MAX_BYTES];

fn dirty(u: &mut Unstructured<'_>) -> Result<String> {
    let mut out = String::new();
    if u.ratio(1, 12)? {
        out.push_str(TRUNCATION_PREFIX);
    }
    for _ in 0..u.int_in_range(0..=24)? {
        match u.int_in_range(0..=3)? {
            0 => out.push(*pick(u, &DIRTY)?),
            1 => out.push(u.arbitrary::<char>()?),
            _ => out.push(char::from(u.int_in_range(b'a'..=b'z')?)),
        }
    }
    Ok(out)
}

fn base64ish(u: &mut Unstructured<'_>) -> Result<Value> {
    Ok(Value::from(match u.int_in_range(0..=3)? {
        0 => "iVBORw0KGgo=".to_owned(),
        1 => "aGVsbG8gd29ybGQ=\n".repeat(u.int_in_range(1..=20)?),
        2 => dirty(u)?,
        _ => String::new(),
    }))
}

fn block(u: &mut Unstructured<'_>) -> Result<Value> {
    let mut map = Map::new();
    match u.int_in_range(0..=7)? {
        0 | 1 => {
            map.insert("type", "text".into());
            map.insert("text", if u.ratio(1, 10)? { value(u, 1, 2)? } else { Value::from(dirty(u)?) });
        }
        2 => {
            map.insert("type", (*pick(u, &["image", "audio"])?).into());
            map.insert("data", base64ish(u)?);
            map.insert("mimeType", (*pick(u, &MIMES)?).into());
        }
        3 => {
            let mut resource = Map::new();
            resource.insert("uri", Value::from(format!("file:///{}", dirty(u)?)));
            if u.arbitrary()? {
                resource.insert("mimeType", (*pick(u, &MIMES)?).into());
            }
            if u.arbitrary()? {
                resource.insert("text", Value::from(dirty(u)?));
            } else {
                resource.insert("blob", base64ish(u)?);
            }
            map.insert("type", "resource".into());
            map.insert("resource", Value::Object(resource));
        }
        4 => {
            map.insert("type", "resource_link".into());
            map.insert("uri", Value::from(dirty(u)?));
            map.insert("name", Value::from(dirty(u)?));
        }
        5 => return value(u, 2, 3),
        _ => {
            map.insert("type", Value::from(dirty(u)?));
            map.insert("text", Value::from(dirty(u)?));
        }
    }
    for key in ["_meta", "annotations", "extra"] {
        if u.ratio(1, 6)? {
            map.insert(key, value(u, 1, 2)?);
        }
    }
    Ok(Value::Object(map))
}

/// A `structuredContent` value whose strings and keys are dirty.
fn structured(u: &mut Unstructured<'_>, depth: usize) -> Result<Value> {
    Ok(match u.int_in_range(0..=5)? {
        0 if depth > 0 => {
            let mut items = Vec::new();
            for _ in 0..u.int_in_range(0..=3)? {
                items.push(structured(u, depth - 1)?);
            }
            Value::Array(items)
        }
        1 if depth > 0 => {
            let mut map = Map::new();
            for _ in 0..u.int_in_range(0..=3)? {
                let key = dirty(u)?;
                map.insert(key, structured(u, depth - 1)?);
            }
            Value::Object(map)
        }
        2 => Value::from(dirty(u)?),
        _ => value(u, 1, 2)?,
    })
}

fn result(u: &mut Unstructured<'_>) -> Result<Value> {
    if u.ratio(1, 12)? {
        return value(u, 3, 3);
    }
    let mut map = Map::new();
    let mut content = Vec::new();
    for _ in 0..u.int_in_range(0..=6)? {
        content.push(block(u)?);
    }
    map.insert("content", Value::Array(content));
    if u.arbitrary()? {
        map.insert("structuredContent", structured(u, 4)?);
    }
    if u.ratio(1, 3)? {
        map.insert("isError", value(u, 0, 0)?);
    }
    for key in ["_meta", "provenance", "other"] {
        if u.ratio(1, 5)? {
            map.insert(key, value(u, 2, 2)?);
        }
    }
    Ok(Value::Object(map))
}

/// `text` holds nothing shaping would remove: stripping it again changes nothing, and each
/// character of a removable class in it is one of those a keep rule may keep (a selector, a
/// joiner, a Hangul filler, U+2800, CR before LF).
fn clean_text(text: &str, at: &str) {
    assert!(!has_removable(text), "{at} keeps a removable character: {text:?}");
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if classify(c).is_some() {
            let keeper = matches!(c, '\u{FE00}'..='\u{FE0F}' | '\u{180B}'..='\u{180D}' | '\u{180F}' | '\u{200C}' | '\u{200D}' | '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}' | '\u{2800}')
                || (c == '\r' && chars.get(i + 1) == Some(&'\n'));
            assert!(keeper, "{at} keeps U+{:04X}, which no rule keeps: {text:?}", u32::from(c));
        }
    }
}

/// Every string and key of `value` is free of what shaping removes, but media data (`data`,
/// `blob`: base64, kept as it came, which may wrap lines with CR and LF) when `media` is set.
fn clean(value: &Value, at: &str, media: bool) {
    match value {
        Value::String(text) => clean_text(text, at),
        Value::Array(items) => items.iter().enumerate().for_each(|(i, item)| clean(item, &format!("{at}[{i}]"), media)),
        Value::Object(map) => {
            for (key, item) in map.iter() {
                clean_text(key, &format!("{at} key"));
                if !(media && (key == "data" || key == "blob")) {
                    clean(item, &format!("{at}.{key}"), media && key != "structuredContent");
                }
            }
        }
        _ => {}
    }
}

/// The text-level properties: idempotent, agreeing with the scan, keepers unchanged.
fn text_properties(u: &mut Unstructured<'_>) -> Result<()> {
    let text = dirty(u)?;
    let (once, flags) = strip_str(&text);
    clean_text(&once, "stripped text");
    let (twice, again) = strip_str(&once);
    assert_eq!(twice, once, "stripping is not idempotent on {text:?}");
    assert!(again.is_empty(), "stripping again set flags: {again:?}");
    let units: Vec<u16> = text.encode_utf16().collect();
    let scan = scan_str(&text);
    assert_eq!(apply_edits(&units, &scan.edits()), once.encode_utf16().collect::<Vec<u16>>(), "scan and strip disagree on {text:?}");
    assert_eq!(scan.flags(), flags);
    // A keeper alone, and between arbitrary text with a space on each side (so that no rule
    // reads the arbitrary text as its neighbour): unchanged.
    let keeper = *pick(u, &KEEPERS)?;
    assert_eq!(strip_str(keeper).0, keeper, "a keeper changed");
    let (before, after) = (dirty(u)?, dirty(u)?);
    let framed = format!("{before} {keeper} {after}");
    let stripped = strip_str(&framed).0;
    let expected = format!("{} {keeper} {}", strip_str(&before).0, strip_str(&after).0);
    assert_eq!(stripped, expected, "a keeper between text changed: {framed:?}");
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    if u.ratio(1, 3).unwrap_or(false) {
        let _ = text_properties(&mut u);
        return;
    }
    let Ok(input) = result(&mut u) else { return };
    let Ok(max_bytes) = pick(&mut u, &CAPS) else { return };
    let opts = ShapeOptions { server_id: (*pick(&mut u, &["page", "shop"]).unwrap_or(&"page")).to_owned(), max_bytes: *max_bytes };
    let shaped = shape_result(&input, &opts);
    clean(&shaped.result, "result", true);
    for key in ["_meta", "annotations", "other"] {
        assert!(shaped.result.get(key).is_none(), "the result keeps {key}");
    }
    let content = shaped.result.get("content").and_then(Value::as_array).unwrap_or_else(|| panic!("a shaped result without content: {:?}", shaped.result));
    assert!(content.len() <= MAX_BLOCKS + 1);
    for block in content {
        assert!(block.get("_meta").is_none() && block.get("annotations").is_none(), "a block keeps metadata: {block:?}");
    }
    assert_eq!(shaped.result.get("provenance").and_then(|p| p.get("serverId")).and_then(Value::as_str), Some(opts.server_id.as_str()));
    let again = shape_result(&shaped.result, &opts);
    assert_eq!(again, shaped, "shaping a shaped result changed it");
});
