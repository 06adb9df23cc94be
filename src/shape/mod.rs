//! Shaping for a model (SPEC §7, seed PI-2): rewrites a tool result so that what reaches a
//! model's context is plain, capped and labelled with its provenance.
//!
//! [`shape_result`] takes an MCP `CallToolResult` and returns one with:
//!
//! - the invisible and direction-changing characters of [`text`] removed from every string
//!   it keeps (SPEC lists text, embedded resource text, link names and `structuredContent`
//!   strings; URIs, MIME types and `structuredContent` *keys* are stripped too, because the
//!   model reads them as well);
//! - only the kept media (JPEG, PNG, GIF, `WebP` images; WAV, MP3, Ogg, `WebM`, FLAC audio);
//!   other media, non-image blobs, unknown and malformed blocks become text notices;
//! - `resource_link` blocks turned into text (nothing is ever fetched);
//! - `_meta`, `annotations` and every other unknown key dropped;
//! - the whole capped at [`ShapeOptions::max_bytes`], with a final notice when cut;
//! - `provenance: { serverId, truncated, flags }`.
//!
//! # Decisions where SPEC §7 is silent
//!
//! - **Sizes** are measured on the shaped form (after stripping and after media became
//!   notices), since the cap bounds what enters the model's context: UTF-8 bytes of `text`,
//!   the length of `data`/`blob`, the compact JSON length of `structuredContent`
//!   (`serde_json`'s serialisation). For embedded resources the `uri` and `mimeType` count
//!   too: they are free-form strings that would otherwise pass the cap unmeasured. Kept
//!   media MIME types are normalised to one of a fixed list, so they are not counted.
//!   Blocks count in order, then `structuredContent`. The "original total" in the notice is
//!   the total of that same measure before cutting.
//! - **Cutting**: the first block that crosses the cap is cut if it carries text (a text
//!   block or an embedded resource's text) on a UTF-8 character boundary, and dropped if it
//!   is media or would be left empty. Everything after it, `structuredContent` included, is
//!   dropped.
//! - **The truncation notice does not count** toward the cap (it adds at most 86 bytes,
//!   about 60 in practice). In a result whose `provenance.truncated` is `true` (one this
//!   function shaped and cut before), a final text block that is exactly a notice this
//!   function would write, and whose "kept" equals the size of everything before it, is read
//!   as that shaping's notice: it is replaced (keeping its original total) rather than
//!   counted as text. That makes `shape(shape(x)) == shape(x)` and keeps a re-shaped result
//!   from being cut again. Without that provenance a notice-like block is a tool's text like
//!   any other, so whether it is recognised never depends on the cap (or on which JS path
//!   shaped the result).
//! - **Provenance**: an input `provenance` key is dropped and rebuilt; `serverId` always
//!   comes from [`ShapeOptions`], `truncated` from the content. Only the known names in its
//!   `flags` are carried over, since a second shaping cannot see what the first removed;
//!   carried flags can only add warnings, never hide anything.
//! - **Blocks keep only their defined fields**: text `{type, text}`; image and audio
//!   `{type, data, mimeType}` with `mimeType` normalised to its lower-case essence; resource
//!   `{type, resource: {uri, mimeType?, text | blob}}`. `annotations` are metadata for the
//!   host, not the model, and are dropped like `_meta`.
//! - **Media** must have a kept MIME type for its block kind (an `image` block with an audio
//!   type is dropped) and `data` made only of base64 characters (standard or URL-safe
//!   alphabet, `=`, ASCII whitespace); anything else becomes a notice. A resource `blob` is
//!   kept when its MIME type is a kept image type (SPEC: "every non-image blob" is dropped),
//!   dropped otherwise.
//! - **Notices name** a MIME type only when it looks like one (`type/subtype` of RFC 6838
//!   characters, each at most 127) and a block type only when it is 1–64 characters of
//!   `[A-Za-z0-9_.-]`; otherwise they say `image`, `audio`, `binary` or give no name, so a
//!   crafted type cannot write its own text into a notice "by the MCP client".
//! - **Malformed blocks** (not an object, no string `type`, a `text` block without a string
//!   `text`, a `resource` without a string `uri` or without `text`/`blob`, a
//!   `resource_link` without a string `uri`) are `unsupported_content`.
//! - **`structuredContent`**: any JSON value but `null` is kept; `null` means absent. Keys
//!   are stripped like values; when two keys become equal, the one that needed no
//!   stripping wins, otherwise the smaller original key. A value nested deeper than
//!   [`MAX_DEPTH`] is dropped (`unsupported_content`) so that no recursion can exhaust the
//!   wasm stack.
//! - **`isError`** is kept when it is a boolean (also on an invalid result), dropped
//!   otherwise.
//! - **Invalid input** (not an object with a `content` array) becomes one notice block and
//!   `unsupported_content`.
//! - `serverId` is the caller's own configuration and is written as given.

pub mod text;

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::{Map, Value};

pub use text::{
    apply_removals, classify, has_removable, scan_str, scan_utf16, strip_str, Class, Flags, Scan,
    CANDIDATE_PATTERN_JS,
};

/// The default cap, `maxResultBytesForLlm` (SPEC §7).
pub const DEFAULT_MAX_BYTES: usize = 102_400;

/// The default server id (SPEC §3).
pub const DEFAULT_SERVER_ID: &str = "page";

/// The deepest `structuredContent` nesting kept; `serde_json`'s own parser stops at 128 too.
pub const MAX_DEPTH: usize = 128;

/// The start of the notice that ends a cut result.
pub const TRUNCATION_PREFIX: &str = "[truncated by the MCP client: ";

/// The text that replaces a result that is not an object with a `content` array.
pub const INVALID_RESULT_TEXT: &str = "[invalid tool result removed by the MCP client]";

/// How to shape a result. Deserialises from the camelCase JSON the JS layer (and the shared
/// fixtures) use: `{ "serverId": "page", "maxBytes": 102400 }`, both optional.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ShapeOptions {
    /// The server the result came from, written to `provenance.serverId`.
    pub server_id: String,
    /// The cap on kept content bytes (`maxResultBytesForLlm`), notice excluded.
    pub max_bytes: usize,
}

impl Default for ShapeOptions {
    fn default() -> ShapeOptions {
        ShapeOptions {
            server_id: DEFAULT_SERVER_ID.to_owned(),
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }
}

/// A shaped result and what shaping did to it.
#[derive(Clone, Debug, PartialEq)]
pub struct Shaped {
    /// The shaped `CallToolResult`, `provenance` included.
    pub result: Value,
    /// Everything that changed; the same as `provenance.flags` plus `truncated`.
    pub flags: Flags,
    /// The result was cut at the cap (now or by an earlier shaping).
    pub truncated: bool,
    /// The size before cutting, measured as the module docs say.
    pub original_bytes: usize,
    /// The size kept, truncation notice excluded; at most `max_bytes`, or the size of an
    /// already shaped result being shaped again within its cap.
    pub kept_bytes: usize,
}

/// A block after stripping and replacement, before the cap.
enum Piece {
    Text(String),
    Media {
        kind: &'static str,
        mime: &'static str,
        data: String,
    },
    ResourceText {
        uri: String,
        mime: Option<String>,
        text: String,
    },
    ResourceBlob {
        uri: String,
        mime: &'static str,
        blob: String,
    },
}

impl Piece {
    fn size(&self) -> usize {
        match self {
            Piece::Text(text) => text.len(),
            Piece::Media { data, .. } => data.len(),
            Piece::ResourceText { uri, mime, text } => uri
                .len()
                .saturating_add(mime.as_ref().map_or(0, String::len))
                .saturating_add(text.len()),
            Piece::ResourceBlob { uri, blob, .. } => uri.len().saturating_add(blob.len()),
        }
    }

    /// The piece cut to at most `budget` bytes, or `None` when nothing useful fits.
    fn cut(self, budget: usize) -> Option<Piece> {
        match self {
            Piece::Text(text) => {
                let kept = cut_text(text, budget);
                (!kept.is_empty()).then_some(Piece::Text(kept))
            }
            Piece::ResourceText { uri, mime, text } => {
                let fixed = uri
                    .len()
                    .saturating_add(mime.as_ref().map_or(0, String::len));
                let room = budget.checked_sub(fixed)?;
                let kept = cut_text(text, room);
                (!kept.is_empty()).then_some(Piece::ResourceText {
                    uri,
                    mime,
                    text: kept,
                })
            }
            // Base64 cut anywhere is corrupt media; it goes whole or not at all.
            Piece::Media { .. } | Piece::ResourceBlob { .. } => None,
        }
    }

    fn into_value(self) -> Value {
        let mut block = Map::new();
        match self {
            Piece::Text(text) => {
                block.insert("type".into(), "text".into());
                block.insert("text".into(), text.into());
            }
            Piece::Media { kind, mime, data } => {
                block.insert("type".into(), kind.into());
                block.insert("data".into(), data.into());
                block.insert("mimeType".into(), mime.into());
            }
            Piece::ResourceText { uri, mime, text } => {
                let mut resource = Map::new();
                resource.insert("uri".into(), uri.into());
                if let Some(mime) = mime {
                    resource.insert("mimeType".into(), mime.into());
                }
                resource.insert("text".into(), text.into());
                block.insert("type".into(), "resource".into());
                block.insert("resource".into(), resource.into());
            }
            Piece::ResourceBlob { uri, mime, blob } => {
                let mut resource = Map::new();
                resource.insert("uri".into(), uri.into());
                resource.insert("mimeType".into(), mime.into());
                resource.insert("blob".into(), blob.into());
                block.insert("type".into(), "resource".into());
                block.insert("resource".into(), resource.into());
            }
        }
        Value::Object(block)
    }
}

/// `text` shortened to at most `budget` bytes, ending on a character boundary.
fn cut_text(mut text: String, budget: usize) -> String {
    if text.len() > budget {
        // A UTF-8 sequence is at most 4 bytes, so this steps back at most 3 times.
        let mut end = budget;
        while !text.is_char_boundary(end) {
            end = end.saturating_sub(1);
        }
        text.truncate(end);
    }
    text
}

/// Kept image MIME types (SPEC §7).
const IMAGE_TYPES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];

/// Kept audio MIME types (SPEC §7).
const AUDIO_TYPES: [&str; 7] = [
    "audio/wav",
    "audio/x-wav",
    "audio/wave",
    "audio/mpeg",
    "audio/ogg",
    "audio/webm",
    "audio/flac",
];

/// The lower-case essence of a MIME type: parameters after `;` and surrounding whitespace
/// removed.
fn mime_essence(mime: &str) -> String {
    mime.split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// The entry of `list` equal to `essence`, as a `'static` string.
fn kept_type(list: &[&'static str], essence: &str) -> Option<&'static str> {
    list.iter().copied().find(|&t| t == essence)
}

/// `true` for a `type/subtype` made of RFC 6838 restricted-name characters.
fn looks_like_mime(essence: &str) -> bool {
    let name_ok = |part: &str| {
        (1..=127).contains(&part.len())
            && part.bytes().all(|b| {
                b.is_ascii_alphanumeric()
                    || matches!(
                        b,
                        b'!' | b'#' | b'$' | b'&' | b'-' | b'^' | b'_' | b'.' | b'+'
                    )
            })
    };
    match essence.split_once('/') {
        Some((top, sub)) => name_ok(top) && name_ok(sub),
        None => false,
    }
}

/// `true` for a block type safe to quote in a notice.
fn looks_like_type_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// `true` when `data` is made only of base64 characters (either alphabet), `=` and ASCII
/// whitespace. Everything the check lets through is ASCII, so it can hide nothing.
fn is_base64ish(data: &str) -> bool {
    data.bytes().all(|b| {
        b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'+' | b'/' | b'-' | b'_' | b'=' | b' ' | b'\t' | b'\r' | b'\n'
            )
    })
}

/// The notice for dropped media, e.g. `[image/svg+xml content removed by the MCP client]`.
fn media_notice(label: &str) -> String {
    format!("[{label} content removed by the MCP client]")
}

/// The notice for an unknown or malformed block, naming its type when that is safe.
fn unsupported_notice(type_name: Option<&str>) -> String {
    match type_name.filter(|name| looks_like_type_name(name)) {
        Some(name) => format!("[unsupported content block \"{name}\" removed by the MCP client]"),
        None => "[unsupported content block removed by the MCP client]".to_owned(),
    }
}

/// The notice that ends a cut result.
fn truncation_notice(kept: usize, total: usize) -> String {
    format!("{TRUNCATION_PREFIX}kept {kept} of {total} bytes]")
}

/// The `(kept, total)` of a truncation notice exactly as [`truncation_notice`] writes it.
fn parse_truncation_notice(text: &str) -> Option<(usize, usize)> {
    let rest = text
        .strip_prefix(TRUNCATION_PREFIX)?
        .strip_prefix("kept ")?;
    let (kept, rest) = rest.split_once(" of ")?;
    let total = rest.strip_suffix(" bytes]")?;
    let kept: usize = kept.parse().ok()?;
    let total: usize = total.parse().ok()?;
    // Only the canonical spelling (no "+7", no leading zeros) is ours.
    (truncation_notice(kept, total) == text).then_some((kept, total))
}

/// Strips `s`, adding what was removed to `flags`.
fn strip_into(s: &str, flags: &mut Flags) -> String {
    let (out, found) = strip_str(s);
    *flags |= found;
    out.into_owned()
}

/// A string field of a JSON object.
fn str_field<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    obj.get(key).and_then(Value::as_str)
}

/// Shapes one content block.
fn shape_block(block: &Value, flags: &mut Flags) -> Piece {
    let Some(obj) = block.as_object() else {
        flags.unsupported_content = true;
        return Piece::Text(unsupported_notice(None));
    };
    let kind = str_field(obj, "type");
    let piece = match kind {
        Some("text") => str_field(obj, "text").map(|text| Piece::Text(strip_into(text, flags))),
        Some("image") => Some(shape_media(obj, "image", &IMAGE_TYPES, flags)),
        Some("audio") => Some(shape_media(obj, "audio", &AUDIO_TYPES, flags)),
        Some("resource") => shape_resource(obj, flags),
        Some("resource_link") => shape_link(obj, flags),
        _ => None,
    };
    piece.unwrap_or_else(|| {
        flags.unsupported_content = true;
        Piece::Text(unsupported_notice(kind))
    })
}

/// The essence of an object's `mimeType`, stripped (a hidden character in a MIME type is
/// removed and flagged like anywhere else).
fn mime_of(obj: &Map<String, Value>, flags: &mut Flags) -> Option<String> {
    str_field(obj, "mimeType").map(|mime| mime_essence(&strip_into(mime, flags)))
}

/// The notice label for dropped media: its MIME type if that looks like one, else `fallback`.
fn drop_media(essence: Option<&str>, fallback: &str, flags: &mut Flags) -> Piece {
    flags.media_dropped = true;
    let label = essence.filter(|e| looks_like_mime(e)).unwrap_or(fallback);
    Piece::Text(media_notice(label))
}

/// An `image` or `audio` block: kept when its type is in `kept` and its data is base64.
fn shape_media(
    obj: &Map<String, Value>,
    kind: &'static str,
    kept: &[&'static str],
    flags: &mut Flags,
) -> Piece {
    let essence = mime_of(obj, flags);
    let mime = essence.as_deref().and_then(|e| kept_type(kept, e));
    match (mime, str_field(obj, "data")) {
        (Some(mime), Some(data)) if is_base64ish(data) => Piece::Media {
            kind,
            mime,
            data: data.to_owned(),
        },
        _ => drop_media(essence.as_deref(), kind, flags),
    }
}

/// An embedded resource: text is kept (stripped), a blob only when it is a kept image.
fn shape_resource(obj: &Map<String, Value>, flags: &mut Flags) -> Option<Piece> {
    let resource = obj.get("resource")?.as_object()?;
    let uri = strip_into(str_field(resource, "uri")?, flags);
    if let Some(text) = str_field(resource, "text") {
        let mime = str_field(resource, "mimeType").map(|m| strip_into(m, flags));
        return Some(Piece::ResourceText {
            uri,
            mime,
            text: strip_into(text, flags),
        });
    }
    let blob = str_field(resource, "blob")?;
    let essence = mime_of(resource, flags);
    let mime = essence.as_deref().and_then(|e| kept_type(&IMAGE_TYPES, e));
    Some(match mime {
        Some(mime) if is_base64ish(blob) => Piece::ResourceBlob {
            uri,
            mime,
            blob: blob.to_owned(),
        },
        _ => drop_media(essence.as_deref(), "binary", flags),
    })
}

/// A `resource_link`, as text naming it; the URI is never fetched.
fn shape_link(obj: &Map<String, Value>, flags: &mut Flags) -> Option<Piece> {
    let uri = strip_into(str_field(obj, "uri")?, flags);
    Some(Piece::Text(match str_field(obj, "name") {
        Some(name) => format!("[resource link: {} {uri}]", strip_into(name, flags)),
        None => format!("[resource link: {uri}]"),
    }))
}

/// `value` with every string (keys too) stripped, or `None` when it nests deeper than
/// [`MAX_DEPTH`].
fn shape_json(value: &Value, depth: usize, flags: &mut Flags) -> Option<Value> {
    if depth > MAX_DEPTH {
        return None;
    }
    let deeper = depth.saturating_add(1);
    Some(match value {
        Value::String(s) => Value::String(strip_into(s, flags)),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| shape_json(item, deeper, flags))
                .collect::<Option<Vec<_>>>()?,
        ),
        Value::Object(map) => Value::Object(shape_map(map, deeper, flags)?),
        Value::Null | Value::Bool(_) | Value::Number(_) => value.clone(),
    })
}

/// An object of `structuredContent`, keys stripped; see [`shape_json`].
fn shape_map(
    map: &Map<String, Value>,
    depth: usize,
    flags: &mut Flags,
) -> Option<Map<String, Value>> {
    let mut out = Map::new();
    // For keys that needed stripping: the original key now holding each stripped key.
    // Clean keys never collide with each other, so only these can decide a collision.
    let mut dirty_origin: Vec<(String, &str)> = Vec::new();
    for (key, value) in map {
        let (stripped, found) = strip_str(key);
        *flags |= found;
        let value = shape_json(value, depth, flags)?;
        let stripped = match stripped {
            Cow::Borrowed(clean) => {
                // A clean key always wins over a stripped one that got there first.
                dirty_origin.retain(|(k, _)| k != clean);
                clean.to_owned()
            }
            Cow::Owned(stripped) => {
                if out.contains_key(&stripped) {
                    // No origin means the holder is clean, and a clean key stays; between two
                    // stripped keys the smaller original wins.
                    match dirty_origin.iter_mut().find(|(k, _)| *k == stripped) {
                        Some(entry) if key.as_str() < entry.1 => entry.1 = key.as_str(),
                        _ => continue,
                    }
                } else {
                    dirty_origin.push((stripped.clone(), key.as_str()));
                }
                stripped
            }
        };
        out.insert(stripped, value);
    }
    Some(out)
}

/// Counts the bytes `serde_json` writes, so that measuring never builds the string.
struct ByteCount(usize);

impl std::io::Write for ByteCount {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 = self.0.saturating_add(buf.len());
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The compact JSON length of `value`.
fn json_len(value: &Value) -> usize {
    let mut count = ByteCount(0);
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => count.0,
        // Cannot happen for a `Value` (keys are strings); an unmeasurable value never fits.
        Err(_) => usize::MAX,
    }
}

/// Flags recorded by an earlier shaping in the input's `provenance.flags`.
fn carried_flags(obj: &Map<String, Value>) -> Flags {
    let mut flags = Flags::default();
    let names = obj
        .get("provenance")
        .and_then(Value::as_object)
        .and_then(|p| p.get("flags"))
        .and_then(Value::as_array);
    for name in names.into_iter().flatten().filter_map(Value::as_str) {
        flags.set_name(name);
    }
    flags
}

/// The `provenance` object: `{ serverId, truncated, flags }`.
fn provenance(opts: &ShapeOptions, flags: Flags) -> Value {
    let mut p = Map::new();
    p.insert("serverId".into(), opts.server_id.clone().into());
    p.insert("truncated".into(), flags.truncated.into());
    p.insert(
        "flags".into(),
        Value::Array(flags.names().into_iter().map(Value::from).collect()),
    );
    Value::Object(p)
}

/// A `{type: 'text', text}` block.
fn text_block(text: &str) -> Value {
    Piece::Text(text.to_owned()).into_value()
}

/// Shapes an MCP `CallToolResult` for a model's context (SPEC §7); see the module docs for
/// every rule. Never panics; idempotent: shaping a shaped result with the same options
/// returns it unchanged.
#[must_use]
pub fn shape_result(result: &Value, opts: &ShapeOptions) -> Shaped {
    let is_error = result.get("isError").and_then(Value::as_bool);
    let Some((obj, content)) = result
        .as_object()
        .and_then(|obj| Some((obj, obj.get("content")?.as_array()?)))
    else {
        // The notice goes through the cap like any block, so that even this result is
        // capped and re-shapes to itself.
        let flags = Flags {
            unsupported_content: true,
            ..Flags::default()
        };
        let pieces = vec![Piece::Text(INVALID_RESULT_TEXT.to_owned())];
        return finish(pieces, None, flags, is_error, false, opts);
    };

    let mut flags = carried_flags(obj);
    let pieces: Vec<Piece> = content.iter().map(|b| shape_block(b, &mut flags)).collect();
    let structured = match obj.get("structuredContent") {
        None | Some(Value::Null) => None,
        Some(value) => {
            let shaped = shape_json(value, 0, &mut flags);
            if shaped.is_none() {
                flags.unsupported_content = true;
            }
            shaped
        }
    };
    finish(
        pieces,
        structured,
        flags,
        is_error,
        was_truncated(obj),
        opts,
    )
}

/// `true` when the input says an earlier shaping cut it (`provenance.truncated: true`).
fn was_truncated(obj: &Map<String, Value>) -> bool {
    obj.get("provenance")
        .and_then(|p| p.get("truncated"))
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

/// Applies the cap to shaped pieces and builds the result with its provenance.
fn finish(
    mut pieces: Vec<Piece>,
    structured: Option<Value>,
    mut flags: Flags,
    is_error: Option<bool>,
    cut_before: bool,
    opts: &ShapeOptions,
) -> Shaped {
    let structured_len = structured.as_ref().map_or(0, json_len);
    let sizes_before = |pieces: &[Piece]| {
        pieces
            .iter()
            .fold(structured_len, |sum, p| sum.saturating_add(p.size()))
    };
    // An earlier shaping's notice: recognised only in a result that says it was cut, and only
    // when its "kept" is exactly what precedes it, so a tool's text that merely resembles one
    // stays text.
    let mut earlier_total = None;
    if let Some((Piece::Text(last), rest)) = pieces.split_last().filter(|_| cut_before) {
        if let Some((kept, total)) = parse_truncation_notice(last) {
            if kept < total && kept == sizes_before(rest) {
                earlier_total = Some(total);
            }
        }
    }
    if earlier_total.is_some() {
        pieces.pop();
    }
    let total = sizes_before(&pieces);

    let mut used = 0usize;
    let mut cut = false;
    let mut blocks = Vec::with_capacity(pieces.len().saturating_add(1));
    for piece in pieces {
        if cut {
            continue;
        }
        let size = piece.size();
        let room = opts.max_bytes.saturating_sub(used);
        if size <= room {
            used = used.saturating_add(size);
            blocks.push(piece.into_value());
        } else {
            cut = true;
            if let Some(part) = piece.cut(room) {
                used = used.saturating_add(part.size());
                blocks.push(part.into_value());
            }
        }
    }
    let structured = match structured {
        Some(value) if !cut && structured_len <= opts.max_bytes.saturating_sub(used) => {
            used = used.saturating_add(structured_len);
            Some(value)
        }
        Some(_) => {
            cut = true;
            None
        }
        None => None,
    };

    let truncated = cut || earlier_total.is_some();
    let original = earlier_total.map_or(total, |t| t.max(total));
    if truncated {
        blocks.push(text_block(&truncation_notice(used, original)));
    }
    flags.truncated = truncated;

    let mut out = Map::new();
    out.insert("content".into(), Value::Array(blocks));
    if let Some(value) = structured {
        out.insert("structuredContent".into(), value);
    }
    if let Some(is_error) = is_error {
        out.insert("isError".into(), is_error.into());
    }
    out.insert("provenance".into(), provenance(opts, flags));
    Shaped {
        result: Value::Object(out),
        flags,
        truncated,
        original_bytes: original,
        kept_bytes: used,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn notice_round_trips_and_rejects_non_canonical() {
        assert_eq!(
            parse_truncation_notice(&truncation_notice(7, 10)),
            Some((7, 10))
        );
        assert_eq!(
            parse_truncation_notice("[truncated by the MCP client: kept 07 of 10 bytes]"),
            None
        );
        assert_eq!(
            parse_truncation_notice("[truncated by the MCP client: kept 7 of 10 bytes] "),
            None
        );
    }

    #[test]
    fn cut_text_steps_back_to_a_boundary() {
        assert_eq!(cut_text("a\u{e9}".to_owned(), 2), "a");
        assert_eq!(cut_text("\u{1F600}".to_owned(), 3), "");
        assert_eq!(cut_text("abc".to_owned(), 5), "abc");
    }

    #[test]
    fn mime_checks() {
        assert_eq!(mime_essence(" Image/PNG ; q=1"), "image/png");
        assert!(looks_like_mime("image/svg+xml"));
        assert!(!looks_like_mime("image/x] ignore"));
        assert!(!looks_like_type_name("a\"b"));
    }
}
