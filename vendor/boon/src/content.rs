use std::error::Error;

use serde_json::Value;

// decoders --

/// Defines Decoder for `contentEncoding`.
#[derive(Clone, Copy)]
pub struct Decoder {
    /// Name of the encoding
    pub name: &'static str,

    /// Decodes given string to bytes
    #[allow(clippy::type_complexity)]
    pub func: fn(s: &str) -> Result<Vec<u8>, Box<dyn Error>>,
}

// webmcp-warden patch: a `match` rather than a lazily built map (see `builtin_format`).
pub(crate) fn builtin_decoder(name: &str) -> Option<Decoder> {
    (name == "base64").then_some(Decoder {
        name: "base64",
        func: decode_base64,
    })
}

// webmcp-warden patch: decoded here rather than with the `base64` crate (~5 KB of the module).
// Accepts exactly what its `STANDARD` engine accepted: the RFC 4648 alphabet, no whitespace,
// canonical `=` padding, and zero bits after the last byte.
fn decode_base64(s: &str) -> Result<Vec<u8>, Box<dyn Error>> {
    fn sextet(b: u8) -> Option<u32> {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        Some(u32::from(v))
    }
    let bytes = s.as_bytes();
    if bytes.len() % 4 != 0 {
        Err("invalid length")?;
    }
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    let mut chunks = bytes.chunks_exact(4).peekable();
    while let Some(chunk) = chunks.next() {
        let pad = if chunks.peek().is_none() { chunk.iter().rev().take_while(|&&b| b == b'=').count() } else { 0 };
        if pad > 2 {
            Err("invalid padding")?;
        }
        let mut acc = 0u32;
        for (i, &b) in chunk.iter().enumerate() {
            let v = if i + pad >= 4 { 0 } else { sextet(b).ok_or("invalid symbol")? };
            acc = acc << 6 | v;
        }
        let [_, a, b, c] = acc.to_be_bytes();
        match pad {
            0 => out.extend_from_slice(&[a, b, c]),
            1 if c == 0 => out.extend_from_slice(&[a, b]),
            2 if b == 0 && c == 0 => out.push(a),
            _ => Err("invalid last symbol")?,
        }
    }
    Ok(out)
}

// mediatypes --

/// Defines Mediatype for `contentMediaType`.
#[derive(Clone, Copy)]
pub struct MediaType {
    /// Name of this media-type as defined in RFC 2046.
    /// Example: `application/json`
    pub name: &'static str,

    /// whether this media type can be deserialized to json. If so it can
    /// be validated by `contentSchema` keyword.
    pub json_compatible: bool,

    /**
    Check whether `bytes` conforms to this media-type.

    Should return `Ok(Some(Value))` if `deserialize` is `true`, otherwise it can return `Ok(None)`.
    Ideally you could deserialize to `serde::de::IgnoredAny` if `deserialize` is `false` to gain
    some performance.

    `deserialize` is always `false` if `json_compatible` is `false`.
    */
    #[allow(clippy::type_complexity)]
    pub func: fn(bytes: &[u8], deserialize: bool) -> Result<Option<Value>, Box<dyn Error>>,
}

// webmcp-warden patch: a `match` rather than a lazily built map (see `builtin_format`).
pub(crate) fn builtin_media_type(name: &str) -> Option<MediaType> {
    (name == "application/json").then_some(MediaType {
        name: "application/json",
        json_compatible: true,
        func: check_json,
    })
}

fn check_json(bytes: &[u8], deserialize: bool) -> Result<Option<Value>, Box<dyn Error>> {
    // webmcp-warden patch: the installed parser (see json.rs), so the module links no JSON
    // parser of its own.
    let value: Value = crate::json::parse(std::str::from_utf8(bytes)?)?;
    Ok(deserialize.then_some(value))
}
