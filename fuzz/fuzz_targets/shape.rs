//! Shaping: an arbitrary tool result (mostly `CallToolResult`-shaped: text, media, resource and
//! link blocks, malformed ones, `_meta`, annotations, `structuredContent`, `isError`, an earlier
//! `provenance`; strings full of the characters shaping removes) through `shape_result` under
//! several caps.
//!
//! Never a panic; idempotent (`shape(shape(x)) == shape(x)`, flags and all); nothing removable
//! left (no string or key holds a character `shape::text::classify` removes; no `_meta` or
//! `annotations` on the result or its blocks); provenance names the configured server; no more
//! blocks than the limit (plus its notice).
#![no_main]

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use webmcp_warden::shape::text::classify;
use webmcp_warden::shape::{shape_result, ShapeOptions, DEFAULT_MAX_BYTES, MAX_BLOCKS, TRUNCATION_PREFIX};
use webmcp_warden::value::{Map, Value};
use webmcp_warden_fuzz::{pick, value};

/// Characters shaping removes, and a few it keeps that look alike.
const DIRTY: [char; 14] = ['\u{202E}', '\u{200B}', '\u{E0041}', '\u{FE0F}', '\u{061C}', '\u{2066}', '\u{FEFF}', '\u{E0100}', '\u{200D}', '\u{00AD}', 'é', '𝔸', '\u{1F600}', '\n'];
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

/// Every string and key of `value` is free of what shaping removes.
fn clean(value: &Value, at: &str) {
    match value {
        Value::String(text) => {
            assert!(text.chars().all(|c| classify(c).is_none()), "{at} keeps a removable character: {text:?}");
        }
        Value::Array(items) => items.iter().enumerate().for_each(|(i, item)| clean(item, &format!("{at}[{i}]"))),
        Value::Object(map) => {
            for (key, item) in map.iter() {
                assert!(key.chars().all(|c| classify(c).is_none()), "{at} keeps a removable character in key {key:?}");
                clean(item, &format!("{at}.{key}"));
            }
        }
        _ => {}
    }
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(input) = result(&mut u) else { return };
    let Ok(max_bytes) = pick(&mut u, &CAPS) else { return };
    let opts = ShapeOptions { server_id: (*pick(&mut u, &["page", "shop"]).unwrap_or(&"page")).to_owned(), max_bytes: *max_bytes };
    let shaped = shape_result(&input, &opts);
    clean(&shaped.result, "result");
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
