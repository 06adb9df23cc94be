//! Shaping for a model: rewrites a tool result so that what reaches a model's context is plain,
//! capped and labelled with its provenance (`docs/behaviour.md`, "Shaping", lists the rules a page sees).
//!
//! [`shape_result`] takes an MCP `CallToolResult` as a [`Value`] and returns one with:
//!
//! - the invisible and direction-changing characters of [`text`] removed from every string
//!   it keeps (text, embedded resource text, link names and `structuredContent` strings; URIs,
//!   MIME types and `structuredContent` *keys* are stripped too, because the model reads them
//!   as well);
//! - only the kept media (JPEG, PNG, GIF, `WebP` images; WAV, MP3, Ogg, `WebM`, FLAC audio);
//!   other media, non-image blobs, unknown and malformed blocks become text notices;
//! - `resource_link` blocks turned into text (nothing is ever fetched);
//! - `_meta`, `annotations` and every other unknown key dropped;
//! - the whole capped at [`ShapeOptions::max_bytes`], with a final notice when cut;
//! - `provenance: { serverId, truncated, flags }`.
//!
//! [`shape_with`] does the same for a result the TS layer prepared so that crossing into the
//! core costs what is kept, not what the tool returned: it sent only the first bytes of long
//! texts and [`Hints`] saying how many it left out (see `ARCHITECTURE.md`, "Shaping").
//! Both give the same answer for the same result.
//!
//! # Decisions
//!
//! - **Sizes** are measured on the shaped form (after stripping and after media became
//!   notices), since the cap bounds what enters the model's context: UTF-8 bytes of `text`,
//!   the length of `data`/`blob`, the compact JSON length of `structuredContent` (as
//!   `JSON.stringify` writes it, [`json::json_len`]). For embedded resources the `uri` and
//!   `mimeType` count too: they are free-form strings that would otherwise pass the cap
//!   unmeasured. Kept media MIME types are normalised to one of a fixed list, so they are not
//!   counted. Blocks count in order, then `structuredContent`. The "original total" in the
//!   notice is the total of that same measure before cutting.
//! - **Cutting**: the first block that crosses the cap is cut if it carries text (a text
//!   block, a link, or an embedded resource's text) on a UTF-8 character boundary, and dropped
//!   if it is media or would be left empty. Everything after it, `structuredContent`
//!   included, is dropped.
//! - **Limits** beyond which a part is dropped unmeasured (the TS layer does not even send it):
//!   content blocks after the first [`MAX_BLOCKS`], and a `structuredContent` whose raw JSON
//!   (before stripping) is longer than the cap plus [`STRUCTURED_SLACK`]. The result is then
//!   cut (`truncated`) with the flag `oversized`, and its notice says `kept K of at least T
//!   bytes`: T counts what was measured, and such a `structuredContent` as one byte more than
//!   its limit (its raw JSON is at least that long). A `mimeType` longer than
//!   [`MAX_MIME_BYTES`] once stripped makes its block malformed.
//! - **The truncation notice does not count** toward the cap. In a result whose
//!   `provenance.truncated` is `true` (one this function shaped and cut before), a final text
//!   block that is exactly a notice this function would write, and whose "kept" equals the
//!   size of everything before it, is read as that shaping's notice: it is replaced (keeping
//!   its original total) rather than counted as text. That makes `shape(shape(x)) == shape(x)`
//!   and keeps a re-shaped result from being cut again. Without that provenance a notice-like
//!   block is a tool's text like any other. Such a result may hold one block more than
//!   [`MAX_BLOCKS`] (its notice).
//! - **Provenance**: an input `provenance` key is dropped and rebuilt; `serverId` always
//!   comes from [`ShapeOptions`], `truncated` from the content. Only the known names in its
//!   `flags` are carried over, since a second shaping cannot see what the first removed;
//!   carried flags can only add warnings, never hide anything.
//! - **Blocks keep only their defined fields**: text `{type, text}`; image and audio
//!   `{type, data, mimeType}` with `mimeType` normalised to its lower-case essence (ASCII
//!   folding: MIME types are ASCII); resource `{type, resource: {uri, mimeType?, text |
//!   blob}}`. `annotations` are metadata for the host, not the model, and are dropped.
//! - **Which strings are stripped** depends only on the block's type, never on whether the
//!   block turns out malformed: a text block's `text`; an image's or audio's `mimeType`; a
//!   resource's `uri`, `mimeType` and `text`; a link's `uri` and `name`. Flags are set by all
//!   of them.
//! - **Media** must have a kept MIME type for its block kind (an `image` block with an audio
//!   type is dropped) and `data` made only of base64 characters (standard or URL-safe
//!   alphabet, `=`, ASCII whitespace); anything else becomes a notice. A resource `blob` is
//!   kept when its MIME type is a kept image type (every non-image blob is dropped).
//! - **Notices name** a MIME type only when it looks like one (`type/subtype` of RFC 6838
//!   characters, each at most 127) and a block type only when it is 1–64 characters of
//!   `[A-Za-z0-9_.-]`; otherwise they say `image`, `audio`, `binary` or give no name, so a
//!   crafted type cannot write its own text into a notice "by the MCP client".
//! - **Malformed blocks** (not an object, no string `type`, a `text` block without a string
//!   `text`, a `resource` without a string `uri` or without `text`/`blob`, a
//!   `resource_link` without a string `uri`) are `unsupported_content`.
//! - **`structuredContent`**: any value but `null` is kept; `null` means absent. Keys are
//!   stripped like values; when two keys become equal, the one that needed no stripping wins,
//!   otherwise the smaller original key. Only the offending *part* is replaced by a notice
//!   string (`unsupported_content`): an array or object at depth [`MAX_DEPTH`] (the root is
//!   depth 0), and a value JSON cannot say (the TS layer sends a cycle, a BigInt or a throwing
//!   getter as [`Value::Unsupported`]). A root JSON cannot say is dropped.
//! - **`isError`** keeps its JS truthiness as a boolean, so a tool error never reads as a
//!   success: `"yes"` is `true`, `0` is `false`; a value JSON cannot say counts as `true`.
//! - **Invalid input** (not an object with a `content` array) becomes one notice block and
//!   `unsupported_content`.
//! - `serverId` is the caller's own configuration and is written as given.

use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

pub mod json;
pub mod request;
pub mod text;
mod unicode;

use alloc::borrow::Cow;

use crate::strs::{cat, decimal_usize};
use crate::value::{Map, Value};

pub use json::{json_len, NumberLengths};
pub use request::Request;
pub use text::{
    apply_edits, candidate_ranges, classify, has_removable, scan_str, strip_str, Class, Edit, Flags, Scan, NEWLINE_MARK,
    UNICODE_VERSION,
};

/// The default cap, `maxResultBytesForLlm`.
pub const DEFAULT_MAX_BYTES: usize = 102_400;

/// The default server id.
pub const DEFAULT_SERVER_ID: &str = "page";

/// Arrays and objects of `structuredContent` at this depth (the root is 0) are replaced by a
/// notice, so no recursion over a result can exhaust the wasm stack.
pub const MAX_DEPTH: usize = 128;

/// Content blocks shaped; later ones are dropped unmeasured.
pub const MAX_BLOCKS: usize = 1000;

/// How far past the cap the raw JSON of `structuredContent` may go and still be measured.
/// Beyond it, it is dropped unmeasured; below it, stripping may still make it fit.
pub const STRUCTURED_SLACK: usize = 4096;

/// The longest `mimeType`, in UTF-8 bytes once stripped. RFC 6838 names are at most 127
/// characters on each side of the `/`; the rest is room for parameters.
pub const MAX_MIME_BYTES: usize = 256;

/// The start of the notice that ends a cut result.
pub const TRUNCATION_PREFIX: &str = "[truncated by the MCP client: ";

/// The text that replaces a result that is not an object with a `content` array.
pub const INVALID_RESULT_TEXT: &str = "[invalid tool result removed by the MCP client]";

/// The raw JSON length past which `structuredContent` is dropped unmeasured, for a cap.
#[must_use]
pub fn structured_limit(max_bytes: usize) -> usize {
    max_bytes.saturating_add(STRUCTURED_SLACK)
}

/// How to shape a result.
#[derive(Clone, Debug, PartialEq, Eq)]
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

/// A string field of a content block whose end the TS layer did not send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// A text block's `text`, or an embedded resource's `text`.
    Text,
    /// An image's or audio's `data`, or an embedded resource's `blob`.
    Data,
    /// A link's `uri`, or an embedded resource's `uri`.
    Uri,
    /// A link's `name`.
    Name,
}

/// Bytes of one field that were not sent: the block measures as if they were there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Omitted {
    /// The block's index in `content`.
    pub block: usize,
    /// Which of its fields.
    pub field: Field,
    /// UTF-8 bytes (of the stripped text) left out.
    pub bytes: usize,
}

/// What the TS layer knows about a result it sent in part. The defaults say "all of it".
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Hints {
    /// The ends of fields that were not sent. The TS layer only leaves out what lies past the
    /// cap: a text's prefix is always longer than what the cap could keep of it, a `data` sent
    /// as `""` is one that cannot fit.
    pub omitted: Vec<Omitted>,
    /// Content blocks past [`MAX_BLOCKS`] that were not sent.
    pub surplus_blocks: usize,
    /// `structuredContent` was over [`structured_limit`] and was not sent.
    pub structured_over_limit: bool,
    /// The JS text lengths of numbers the core cannot format.
    pub numbers: NumberLengths,
}

/// A shaped result and what shaping did to it.
#[derive(Clone, Debug, PartialEq)]
pub struct Shaped {
    /// The shaped `CallToolResult`, `provenance` included.
    pub result: Value,
    /// Everything that changed; the same as `provenance.flags` plus `truncated`.
    pub flags: Flags,
    /// The result was cut at the cap or at a limit (now or by an earlier shaping).
    pub truncated: bool,
    /// The size before cutting, measured as the module docs say.
    pub original_bytes: usize,
    /// `original_bytes` is a lower bound: a part over a limit was dropped unmeasured.
    pub original_at_least: bool,
    /// The size kept, truncation notice excluded; at most `max_bytes`, or the size of an
    /// already shaped result being shaped again within its cap.
    pub kept_bytes: usize,
}

/// Omitted bytes of one block, by [`Field`].
#[derive(Clone, Copy, Debug, Default)]
struct Extra {
    text: usize,
    data: usize,
    uri: usize,
    name: usize,
}

/// A block after stripping and replacement, before the cap. `extra` is what the TS layer did
/// not send: it counts toward the size, and can never be kept.
enum Piece {
    Text {
        text: String,
        extra: usize,
    },
    Media {
        kind: &'static str,
        mime: &'static str,
        data: String,
        extra: usize,
    },
    ResourceText {
        uri: String,
        mime: Option<String>,
        text: String,
        uri_extra: usize,
        text_extra: usize,
    },
    ResourceBlob {
        uri: String,
        mime: &'static str,
        blob: String,
        extra: usize,
    },
}

impl Piece {
    fn text(text: String) -> Piece {
        Piece::Text { text, extra: 0 }
    }

    fn size(&self) -> usize {
        match self {
            Piece::Text { text, extra } => text.len().saturating_add(*extra),
            Piece::Media { data, extra, .. } => data.len().saturating_add(*extra),
            Piece::ResourceText { mime, text, text_extra, .. } => self
                .fixed_size()
                .saturating_add(mime.as_ref().map_or(0, String::len))
                .saturating_add(text.len())
                .saturating_add(*text_extra),
            Piece::ResourceBlob { blob, extra, .. } => self.fixed_size().saturating_add(blob.len()).saturating_add(*extra),
        }
    }

    /// The bytes of a resource's URI, sent or not.
    fn fixed_size(&self) -> usize {
        match self {
            Piece::ResourceText { uri, uri_extra, .. } => uri.len().saturating_add(*uri_extra),
            Piece::ResourceBlob { uri, .. } => uri.len(),
            _ => 0,
        }
    }

    /// The piece cut to at most `budget` bytes, or `None` when nothing useful fits.
    fn cut(self, budget: usize) -> Option<Piece> {
        match self {
            Piece::Text { text, .. } => {
                let kept = cut_text(text, budget);
                (!kept.is_empty()).then(|| Piece::text(kept))
            }
            Piece::ResourceText { uri, mime, text, uri_extra, .. } => {
                // A URI that was not sent whole cannot fit: `checked_sub` fails on it.
                let fixed = uri.len().saturating_add(uri_extra).saturating_add(mime.as_ref().map_or(0, String::len));
                let room = budget.checked_sub(fixed)?;
                let kept = cut_text(text, room);
                (!kept.is_empty()).then_some(Piece::ResourceText { uri, mime, text: kept, uri_extra: 0, text_extra: 0 })
            }
            // Base64 cut anywhere is corrupt media; it goes whole or not at all.
            Piece::Media { .. } | Piece::ResourceBlob { .. } => None,
        }
    }

    fn into_value(self) -> Value {
        match self {
            Piece::Text { text, .. } => crate::object! { "type" => "text", "text" => text },
            Piece::Media { kind, mime, data, .. } => crate::object! { "type" => kind, "data" => data, "mimeType" => mime },
            Piece::ResourceText { uri, mime, text, .. } => {
                let mut resource = Map::new();
                resource.insert("uri", Value::String(uri));
                resource.insert_some("mimeType", mime);
                resource.insert("text", Value::String(text));
                crate::object! { "type" => "resource", "resource" => resource }
            }
            Piece::ResourceBlob { uri, mime, blob, .. } => crate::object! {
                "type" => "resource",
                "resource" => crate::object! { "uri" => uri, "mimeType" => mime, "blob" => blob },
            },
        }
    }
}

/// `text` shortened to at most `budget` bytes, ending on a character boundary.
/// A cut never ends with a character shaping may remove: one kept for its neighbours (a joiner,
/// a Hangul filler, CR before LF) would lose the one after it, so it goes too, and the cut text
/// shapes to itself.
fn cut_text(mut text: String, budget: usize) -> String {
    if text.len() > budget {
        // A UTF-8 sequence is at most 4 bytes, so this steps back at most 3 times.
        let mut end = budget;
        while !text.is_char_boundary(end) {
            end = end.saturating_sub(1);
        }
        while end > 0 {
            let mut start = end.saturating_sub(1);
            while !text.is_char_boundary(start) {
                start = start.saturating_sub(1);
            }
            match text.get(start..end).and_then(|last| last.chars().next()) {
                Some(c) if classify(c).is_some() => end = start,
                _ => break,
            }
        }
        text.truncate(end);
    }
    text
}

/// Kept image MIME types.
pub const IMAGE_TYPES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];

/// Kept audio MIME types.
pub const AUDIO_TYPES: [&str; 7] = [
    "audio/wav",
    "audio/x-wav",
    "audio/wave",
    "audio/mpeg",
    "audio/ogg",
    "audio/webm",
    "audio/flac",
];

/// The lower-case essence of a MIME type: parameters after `;` and surrounding whitespace
/// removed, ASCII letters folded (a MIME type is ASCII; no Unicode case tables needed).
fn mime_essence(mime: &str) -> String {
    let head = crate::strs::split_byte(mime, b';').map_or(mime, |(head, _)| head);
    crate::strs::trim(head).to_ascii_lowercase()
}

/// The entry of `list` equal to `essence`, as a `'static` string.
fn kept_type(list: &[&'static str], essence: &str) -> Option<&'static str> {
    // A loop rather than `find`: see [`all_alnum_or`].
    for &kept in list {
        if kept == essence {
            return Some(kept);
        }
    }
    None
}

/// Which kept lists a `mimeType` is in once stripped and reduced to its essence: bit 0 the
/// image types, bit 1 the audio types; 0 for others and for one over [`MAX_MIME_BYTES`]. The
/// TS layer asks this before sending a media block's `data`, so that data that will become a
/// notice never crosses.
#[must_use]
pub fn kept_media_kinds(mime: &str) -> u32 {
    let stripped = strip_str(mime).0;
    if stripped.len() > MAX_MIME_BYTES {
        return 0;
    }
    let essence = mime_essence(&stripped);
    u32::from(kept_type(&IMAGE_TYPES, &essence).is_some()) | (u32::from(kept_type(&AUDIO_TYPES, &essence).is_some()) << 1)
}

/// Whether every byte of `text` is an ASCII letter or digit or one of `extra`. One loop for
/// the character checks below: each `bytes().all(..)` with its own closure was a generic
/// `try_fold` instance of its own in the wasm module (~200 bytes each).
fn all_alnum_or(text: &str, extra: &str) -> bool {
    for b in text.bytes() {
        if !(b.is_ascii_alphanumeric() || crate::strs::find_byte(extra, b).is_some()) {
            return false;
        }
    }
    true
}

/// `true` for a `type/subtype` made of RFC 6838 restricted-name characters.
fn looks_like_mime(essence: &str) -> bool {
    let name_ok = |part: &str| (1..=127).contains(&part.len()) && all_alnum_or(part, "!#$&-^_.+");
    match crate::strs::split_byte(essence, b'/') {
        Some((top, sub)) => name_ok(top) && name_ok(sub),
        None => false,
    }
}

/// `true` for a block type safe to quote in a notice.
fn looks_like_type_name(name: &str) -> bool {
    (1..=64).contains(&name.len()) && all_alnum_or(name, "_.-")
}

/// `true` when `data` is made only of base64 characters (either alphabet), `=` and ASCII
/// whitespace. Everything the check lets through is ASCII, so it can hide nothing.
fn is_base64ish(data: &str) -> bool {
    all_alnum_or(data, "+/-_= \t\r\n")
}

/// The notice for dropped media, e.g. `[image/svg+xml content removed by the MCP client]`.
fn media_notice(label: &str) -> String {
    cat!["[", label, " content removed by the MCP client]"]
}

/// The notice for an unknown or malformed block, naming its type when that is safe.
fn unsupported_notice(type_name: Option<&str>) -> String {
    match type_name.filter(|name| looks_like_type_name(name)) {
        Some(name) => cat!["[unsupported content block \"", name, "\" removed by the MCP client]"],
        None => "[unsupported content block removed by the MCP client]".to_owned(),
    }
}

/// The string that replaces a part of `structuredContent` JSON cannot say: `what` is a
/// description such as `a BigInt` (the TS layer's, or [`Value::type_name`]).
pub(crate) fn removed_notice(what: &str) -> String {
    // The description is stripped too: a notice must not carry what shaping removes.
    cat!["[", strip_str(what).0, " removed by the MCP client]"]
}

/// The string that replaces an array or object at [`MAX_DEPTH`].
pub(crate) fn too_deep_notice() -> String {
    removed_notice(&cat!["a value nested deeper than ", decimal_usize(MAX_DEPTH), " levels"])
}

/// The notice that ends a cut result; `at_least` when `total` is a lower bound.
fn truncation_notice(kept: usize, total: usize, at_least: bool) -> String {
    let bound = if at_least { "at least " } else { "" };
    cat![TRUNCATION_PREFIX, "kept ", decimal_usize(kept), " of ", bound, decimal_usize(total), " bytes]"]
}

/// The `(kept, total, at_least)` of a truncation notice exactly as [`truncation_notice`]
/// writes it.
fn parse_truncation_notice(text: &str) -> Option<(usize, usize, bool)> {
    let rest = text.strip_prefix(TRUNCATION_PREFIX)?.strip_prefix("kept ")?;
    let (kept, rest) = crate::strs::split_once(rest, " of ")?;
    let (at_least, rest) = match rest.strip_prefix("at least ") {
        Some(rest) => (true, rest),
        None => (false, rest),
    };
    let total = rest.strip_suffix(" bytes]")?;
    let kept = crate::strs::parse_digits(kept)?;
    let total = crate::strs::parse_digits(total)?;
    // Only the canonical spelling (no "+7", no leading zeros) is ours.
    (truncation_notice(kept, total, at_least) == text).then_some((kept, total, at_least))
}

/// Strips `s`, adding what was removed to `flags`.
fn strip_into(s: &str, flags: &mut Flags) -> String {
    let (out, found) = strip_str(s);
    *flags |= found;
    out.into_owned()
}

/// A string field of an object.
fn str_field<'a>(obj: &'a Map, key: &str) -> Option<&'a str> {
    obj.get(key).and_then(Value::as_str)
}

/// JS truthiness of a JSON value; what JSON cannot say counts as `true`, so that an error
/// flag is never lost.
fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(flag) => *flag,
        Value::Number(n) => *n != 0.0,
        Value::String(text) => !text.is_empty(),
        Value::Array(_) | Value::Object(_) | Value::Function(_) | Value::Regex { .. } | Value::Unsupported(_) => true,
    }
}

/// Shapes one content block.
fn shape_block(block: &Value, extra: Extra, flags: &mut Flags) -> Piece {
    let Some(obj) = block.as_object() else {
        flags.unsupported_content = true;
        return Piece::text(unsupported_notice(None));
    };
    let kind = str_field(obj, "type");
    let piece = match kind {
        Some("text") => str_field(obj, "text").map(|text| Piece::Text { text: strip_into(text, flags), extra: extra.text }),
        Some("image") => shape_media(obj, "image", &IMAGE_TYPES, extra, flags),
        Some("audio") => shape_media(obj, "audio", &AUDIO_TYPES, extra, flags),
        Some("resource") => shape_resource(obj, extra, flags),
        Some("resource_link") => shape_link(obj, extra, flags),
        _ => None,
    };
    piece.unwrap_or_else(|| {
        flags.unsupported_content = true;
        Piece::text(unsupported_notice(kind))
    })
}

/// An object's `mimeType`, stripped: `Err` when it is over [`MAX_MIME_BYTES`].
fn stripped_mime(obj: &Map, flags: &mut Flags) -> Result<Option<String>, ()> {
    match str_field(obj, "mimeType").map(|mime| strip_into(mime, flags)) {
        Some(mime) if mime.len() > MAX_MIME_BYTES => Err(()),
        other => Ok(other),
    }
}

/// A notice for dropped media: its MIME type if that looks like one, else `fallback`.
fn drop_media(essence: Option<&str>, fallback: &str, flags: &mut Flags) -> Piece {
    flags.media_dropped = true;
    let label = essence.filter(|e| looks_like_mime(e)).unwrap_or(fallback);
    Piece::text(media_notice(label))
}

/// An `image` or `audio` block: kept when its type is in `kept` and its data is base64.
fn shape_media(obj: &Map, kind: &'static str, kept: &[&'static str], extra: Extra, flags: &mut Flags) -> Option<Piece> {
    let essence = stripped_mime(obj, flags).ok()?.map(|mime| mime_essence(&mime));
    let mime = essence.as_deref().and_then(|e| kept_type(kept, e));
    Some(match (mime, str_field(obj, "data")) {
        (Some(mime), Some(data)) if is_base64ish(data) => Piece::Media { kind, mime, data: data.to_owned(), extra: extra.data },
        _ => drop_media(essence.as_deref(), kind, flags),
    })
}

/// An embedded resource: text is kept (stripped), a blob only when it is a kept image.
fn shape_resource(obj: &Map, extra: Extra, flags: &mut Flags) -> Option<Piece> {
    let resource = obj.get("resource")?.as_object()?;
    let uri = str_field(resource, "uri").map(|uri| strip_into(uri, flags));
    let mime = stripped_mime(resource, flags);
    let text = str_field(resource, "text").map(|text| strip_into(text, flags));
    let (uri, mime) = (uri?, mime.ok()?);
    if let Some(text) = text {
        return Some(Piece::ResourceText { uri, mime, text, uri_extra: extra.uri, text_extra: extra.text });
    }
    let blob = str_field(resource, "blob")?;
    let essence = mime.map(|mime| mime_essence(&mime));
    let kept = essence.as_deref().and_then(|e| kept_type(&IMAGE_TYPES, e));
    Some(match kept {
        // A URI that was not sent whole cannot fit either way: counted with the blob.
        Some(mime) if is_base64ish(blob) => Piece::ResourceBlob {
            uri,
            mime,
            blob: blob.to_owned(),
            extra: extra.data.saturating_add(extra.uri),
        },
        _ => drop_media(essence.as_deref(), "binary", flags),
    })
}

/// A `resource_link`, as text naming it; the URI is never fetched.
fn shape_link(obj: &Map, extra: Extra, flags: &mut Flags) -> Option<Piece> {
    let uri = str_field(obj, "uri").map(|uri| strip_into(uri, flags));
    let name = str_field(obj, "name").map(|name| strip_into(name, flags));
    let uri = uri?;
    let text = match name {
        Some(name) => cat!["[resource link: ", name, " ", uri, "]"],
        None => cat!["[resource link: ", uri, "]"],
    };
    Some(Piece::Text { text, extra: extra.uri.saturating_add(extra.name) })
}

/// `value` with every string (keys too) stripped; what JSON cannot say and what nests too
/// deep replaced by notice strings (`unsupported_content`).
fn shape_json(value: &Value, depth: usize, flags: &mut Flags) -> Value {
    let deeper = depth.saturating_add(1);
    match value {
        Value::String(s) => Value::String(strip_into(s, flags)),
        Value::Array(_) | Value::Object(_) if depth >= MAX_DEPTH => {
            flags.unsupported_content = true;
            Value::String(too_deep_notice())
        }
        Value::Array(items) => {
            let mut shaped = Vec::with_capacity(items.len());
            for item in items {
                shaped.push(shape_json(item, deeper, flags));
            }
            Value::Array(shaped)
        }
        Value::Object(map) => Value::Object(shape_map(map, deeper, flags)),
        Value::Null | Value::Bool(_) | Value::Number(_) => value.clone(),
        Value::Function(_) | Value::Regex { .. } | Value::Unsupported(_) => {
            flags.unsupported_content = true;
            Value::String(removed_notice(value.type_name()))
        }
    }
}

/// An object of `structuredContent`, keys stripped; see [`shape_json`].
fn shape_map(map: &Map, depth: usize, flags: &mut Flags) -> Map {
    let mut out = Map::new();
    // For keys that needed stripping: the original key now holding each stripped key.
    // Clean keys never collide with each other, so only these can decide a collision.
    let mut dirty_origin: Vec<(String, &str)> = Vec::new();
    for (key, value) in map.iter() {
        let (stripped, found) = strip_str(key);
        *flags |= found;
        let value = shape_json(value, depth, flags);
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
    out
}

/// Flags recorded by an earlier shaping in the input's `provenance.flags`.
fn carried_flags(obj: &Map) -> Flags {
    let mut flags = Flags::default();
    let names = obj.get("provenance").and_then(|p| p.get("flags")).and_then(Value::as_array);
    // Plain loops rather than `flatten().filter_map(..)`, a generic instance of its own.
    for name in names.map(Vec::as_slice).unwrap_or_default() {
        if let Some(name) = name.as_str() {
            flags.set_name(name);
        }
    }
    flags
}

/// `true` when the input says an earlier shaping cut it (`provenance.truncated: true`).
fn was_truncated(obj: &Map) -> bool {
    obj.get("provenance").and_then(|p| p.get("truncated")).and_then(Value::as_bool).unwrap_or(false)
}

/// The `provenance` object: `{ serverId, truncated, flags }`.
fn provenance(opts: &ShapeOptions, flags: Flags) -> Value {
    crate::object! {
        "serverId" => opts.server_id.clone(),
        "truncated" => flags.truncated,
        "flags" => flags.names(),
    }
}

/// Shapes an MCP `CallToolResult` for a model's context; see the module docs for every rule.
/// Never panics; idempotent: shaping a shaped result with the same options returns it
/// unchanged.
#[must_use]
pub fn shape_result(result: &Value, opts: &ShapeOptions) -> Shaped {
    shape_with(result, opts, &Hints::default())
}

/// What becomes of `structuredContent`.
enum Structured {
    Absent,
    Kept(Value),
    OverLimit,
}

/// [`shape_result`] for a result the TS layer sent in part, as `hints` say.
#[must_use]
pub fn shape_with(result: &Value, opts: &ShapeOptions, hints: &Hints) -> Shaped {
    let is_error = result.get("isError").map(truthy);
    let Some((obj, content)) = result.as_object().and_then(|obj| Some((obj, obj.get("content")?.as_array()?))) else {
        // The notice goes through the cap like any block, so that even this result is
        // capped and re-shapes to itself.
        let flags = Flags { unsupported_content: true, ..Flags::default() };
        let pieces = vec![Piece::text(INVALID_RESULT_TEXT.to_owned())];
        return finish(pieces, Structured::Absent, flags, is_error, Earlier::None, false, opts, &hints.numbers);
    };

    let mut flags = carried_flags(obj);
    let cut_before = was_truncated(obj);
    // A result this function cut may hold its notice past the limit.
    let allowance = MAX_BLOCKS.saturating_add(usize::from(cut_before));
    let over_count = content.len() > allowance || hints.surplus_blocks > 0;
    let body = if over_count { content.get(..MAX_BLOCKS).unwrap_or(content) } else { content };
    let surplus = hints.surplus_blocks.saturating_add(content.len().saturating_sub(body.len()));

    let mut extras = vec![Extra::default(); body.len()];
    for omitted in &hints.omitted {
        if let Some(extra) = extras.get_mut(omitted.block) {
            let slot = match omitted.field {
                Field::Text => &mut extra.text,
                Field::Data => &mut extra.data,
                Field::Uri => &mut extra.uri,
                Field::Name => &mut extra.name,
            };
            *slot = slot.saturating_add(omitted.bytes);
        }
    }
    let mut pieces: Vec<Piece> = Vec::with_capacity(body.len());
    for (block, extra) in body.iter().zip(extras) {
        pieces.push(shape_block(block, extra, &mut flags));
    }

    let structured = match obj.get("structuredContent") {
        // Not sent at all when it was over the limit.
        _ if hints.structured_over_limit => Structured::OverLimit,
        None | Some(Value::Null) => Structured::Absent,
        Some(Value::Function(_) | Value::Regex { .. } | Value::Unsupported(_)) => {
            flags.unsupported_content = true;
            Structured::Absent
        }
        Some(value) if json_len(value, &hints.numbers) > structured_limit(opts.max_bytes) => Structured::OverLimit,
        Some(value) => Structured::Kept(shape_json(value, 0, &mut flags)),
    };
    let earlier = if cut_before && surplus == 0 { Earlier::Candidate } else { Earlier::None };
    finish(pieces, structured, flags, is_error, earlier, surplus > 0, opts, &hints.numbers)
}

/// Whether the last piece may be an earlier shaping's truncation notice.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Earlier {
    None,
    Candidate,
}

/// Applies the cap to shaped pieces and builds the result with its provenance.
#[allow(clippy::too_many_arguments)]
fn finish(
    mut pieces: Vec<Piece>,
    structured: Structured,
    mut flags: Flags,
    is_error: Option<bool>,
    earlier: Earlier,
    surplus: bool,
    opts: &ShapeOptions,
    numbers: &NumberLengths,
) -> Shaped {
    let structured_len = match &structured {
        Structured::Kept(value) => json_len(value, numbers),
        Structured::Absent | Structured::OverLimit => 0,
    };
    // Over its limit, structuredContent counts as one byte more than the limit: its raw JSON
    // is at least that long, and the notice then says how large a part was dropped.
    let over_len = match &structured {
        Structured::OverLimit => structured_limit(opts.max_bytes).saturating_add(1),
        Structured::Absent | Structured::Kept(_) => 0,
    };
    let sizes_before = |pieces: &[Piece]| pieces.iter().fold(structured_len, |sum, p| sum.saturating_add(p.size()));
    // An earlier shaping's notice: recognised only in a result that says it was cut, and only
    // when its "kept" is exactly what precedes it, so a tool's text that merely resembles one
    // stays text.
    let mut earlier_total = None;
    if let Some((Piece::Text { text: last, extra: 0 }, rest)) = pieces.split_last().filter(|_| earlier == Earlier::Candidate) {
        if let Some((kept, total, at_least)) = parse_truncation_notice(last) {
            let below = if at_least { kept <= total } else { kept < total };
            if below && kept == sizes_before(rest) {
                earlier_total = Some((total, at_least));
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
    let over_limit = surplus || matches!(structured, Structured::OverLimit);
    let structured = match structured {
        Structured::Kept(value) if !cut && structured_len <= opts.max_bytes.saturating_sub(used) => {
            used = used.saturating_add(structured_len);
            Some(value)
        }
        Structured::Kept(_) => {
            cut = true;
            None
        }
        Structured::Absent | Structured::OverLimit => None,
    };

    let truncated = cut || over_limit || earlier_total.is_some();
    let total = total.saturating_add(over_len);
    let original = earlier_total.map_or(total, |(t, _)| t.max(total));
    let at_least = over_limit || earlier_total.is_some_and(|(_, at_least)| at_least);
    if truncated {
        blocks.push(Piece::text(truncation_notice(used, original, at_least)).into_value());
    }
    flags.truncated = truncated;
    flags.oversized |= over_limit;

    let mut out = Map::new();
    out.insert("content", Value::Array(blocks));
    out.insert_some("structuredContent", structured);
    out.insert_some("isError", is_error);
    out.insert("provenance", provenance(opts, flags));
    Shaped {
        result: Value::Object(out),
        flags,
        truncated,
        original_bytes: original,
        original_at_least: at_least,
        kept_bytes: used,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use alloc::format;

    use super::*;

    #[test]
    fn notice_round_trips_and_rejects_non_canonical() {
        assert_eq!(parse_truncation_notice(&truncation_notice(7, 10, false)), Some((7, 10, false)));
        assert_eq!(parse_truncation_notice(&truncation_notice(7, 7, true)), Some((7, 7, true)));
        assert_eq!(parse_truncation_notice("[truncated by the MCP client: kept 07 of 10 bytes]"), None);
        assert_eq!(parse_truncation_notice("[truncated by the MCP client: kept 7 of 10 bytes] "), None);
        assert_eq!(parse_truncation_notice("[truncated by the MCP client: kept 7 of at least  10 bytes]"), None);
    }

    #[test]
    fn cut_text_steps_back_to_a_boundary() {
        assert_eq!(cut_text("a\u{e9}".to_owned(), 2), "a");
        assert_eq!(cut_text("\u{1F600}".to_owned(), 3), "");
        assert_eq!(cut_text("abc".to_owned(), 5), "abc");
        // Never after a character kept for the one that is cut away.
        assert_eq!(cut_text("a\r\nb".to_owned(), 2), "a");
        assert_eq!(cut_text("\u{D55C}\u{3164}\u{D55C}".to_owned(), 6), "\u{D55C}");
        assert_eq!(cut_text("\u{2764}\u{FE0F}\u{200D}\u{1F525}".to_owned(), 9), "\u{2764}");
        assert_eq!(cut_text("x\u{2764}\u{FE0F}\u{200D}\u{1F525}".to_owned(), 7), "x\u{2764}");
    }

    #[test]
    fn mime_checks() {
        assert_eq!(mime_essence(" Image/PNG ; q=1"), "image/png");
        assert!(looks_like_mime("image/svg+xml"));
        assert!(!looks_like_mime("image/x] ignore"));
        assert!(!looks_like_type_name("a\"b"));
        assert_eq!(kept_media_kinds("IMAGE/png; x=1"), 1);
        assert_eq!(kept_media_kinds("audio/\u{200b}ogg"), 2);
        assert_eq!(kept_media_kinds("image/svg+xml"), 0);
        assert_eq!(kept_media_kinds(&format!("image/png;{}", "x".repeat(MAX_MIME_BYTES))), 0);
    }

    #[test]
    fn truthiness_is_js_truthiness() {
        for (value, expected) in [
            (Value::Null, false),
            (Value::Bool(false), false),
            (Value::Number(0.0), false),
            (Value::Number(-0.0), false),
            (Value::String(String::new()), false),
            (Value::Number(2.0), true),
            (Value::String("no".into()), true),
            (Value::Array(vec![]), true),
            (Value::Object(Map::new()), true),
            (Value::Unsupported("a BigInt".into()), true),
        ] {
            assert_eq!(truthy(&value), expected, "{value:?}");
        }
    }
}
