//! What the fuzz targets share: values drawn from the fuzzer's bytes, biased towards the keys
//! and strings the core reads, so that a few bytes reach the interesting branches.
//!
//! Every generator is bounded (depth, lengths) so one input cannot take long to run: a slow
//! input would hide real findings behind libFuzzer's timeouts.

use arbitrary::{Result, Unstructured};
use webmcp_warden::value::{Map, Value};

/// Keys the core looks for in hook returns, approver answers, hook sets, policies and facts.
pub const KEYS: [&str; 30] = [
    "input", "output", "result", "allow", "action", "message", "code", "deny", "halt", "before", "after", "error", "denied",
    "toolsListed", "run", "match", "id", "timeout", "onError", "server", "name", "names", "diagnostics", "which", "path",
    "keyword", "principal", "nowMs", "ttlMs", "x",
];

/// Strings the core compares against.
pub const TEXTS: [&str; 24] = [
    "deny", "halt", "recover", "allow", "once", "always", "fail", "ignore", "*", "all", "shop/*", "shop/search", "search",
    "get_item", "", "before:0", "after:1", "a", "b", "undefined", "required", "standard", "outputSchema", "is required: \"q\"",
];

/// How [`Value::Unsupported`] values are described (`undefined` is the one the core reads).
pub const UNSUPPORTED: [&str; 4] = ["undefined", "NaN", "a BigInt", "a symbol"];

/// Picks one of `items`.
pub fn pick<'a, T>(u: &mut Unstructured<'_>, items: &'a [T]) -> Result<&'a T> {
    u.choose(items)
}

/// A short string: usually one the core compares against, sometimes arbitrary text.
pub fn text(u: &mut Unstructured<'_>) -> Result<String> {
    if u.ratio(3, 4)? {
        return Ok((*pick(u, &TEXTS)?).to_owned());
    }
    let len = u.int_in_range(0..=12)?;
    let mut out = String::new();
    for _ in 0..len {
        out.push(u.arbitrary::<char>()?);
    }
    Ok(out)
}

/// An object key: usually one the core reads.
pub fn key(u: &mut Unstructured<'_>) -> Result<String> {
    if u.ratio(7, 8)? {
        return Ok((*pick(u, &KEYS)?).to_owned());
    }
    text(u)
}

/// A finite number: small integers mostly, sometimes any finite `f64`.
pub fn number(u: &mut Unstructured<'_>) -> Result<f64> {
    if u.ratio(3, 4)? {
        return Ok(f64::from(u.int_in_range(-2i32..=20)?));
    }
    let raw: f64 = u.arbitrary()?;
    Ok(if raw.is_finite() { raw } else { 0.5 })
}

/// Any value, nested at most `depth` levels, with at most `width` items per array or object.
pub fn value(u: &mut Unstructured<'_>, depth: usize, width: usize) -> Result<Value> {
    let kinds = if depth == 0 { 6 } else { 8 };
    Ok(match u.int_in_range(0..=kinds)? {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => Value::Number(number(u)?),
        3 => Value::String(text(u)?),
        4 => Value::Function(u.int_in_range(0..=40)?),
        5 => Value::Regex { source: text(u)?, flags: (*pick(u, &["", "i", "g", "u", "iy", "x"])?).to_owned() },
        6 => Value::Unsupported((*pick(u, &UNSUPPORTED)?).to_owned()),
        7 => {
            let len = u.int_in_range(0..=width)?;
            let mut items = Vec::with_capacity(len);
            for _ in 0..len {
                items.push(value(u, depth.saturating_sub(1), width)?);
            }
            Value::Array(items)
        }
        _ => object(u, depth, width)?,
    })
}

/// An object of keys the core reads (mostly) and any values.
pub fn object(u: &mut Unstructured<'_>, depth: usize, width: usize) -> Result<Value> {
    let len = u.int_in_range(0..=width)?;
    let mut map = Map::new();
    for _ in 0..len {
        let key = key(u)?;
        map.insert(key, value(u, depth.saturating_sub(1), width)?);
    }
    Ok(Value::Object(map))
}
