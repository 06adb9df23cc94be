// webmcp-warden patch: JSON text this crate reads itself (the bundled meta-schemas, and string
// contents under `contentMediaType: "application/json"`) goes to a parser the embedding program
// installs, like patterns (see pattern.rs and vendor/boon/README.md). In a page that is the page's
// own `JSON.parse`: the module then links no JSON parser at all (schemas and instances reach it
// as values already), which is ~5 KB of the download.

use std::{error::Error, sync::OnceLock};

use serde_json::Value;

/// Reads JSON text into a [`Value`].
pub trait JsonParser: Send + Sync {
    /// Parses `text` (one JSON value, nothing after it); `Err` says why it is not JSON.
    fn parse(&self, text: &str) -> Result<Value, Box<dyn Error>>;
}

static PARSER: OnceLock<Box<dyn JsonParser>> = OnceLock::new();

/// Installs the JSON parser, once per process; later calls are ignored. Until one is installed,
/// no meta-schema loads (so no schema compiles) and no content is taken as JSON.
pub fn set_json_parser(parser: Box<dyn JsonParser>) {
    let _ = PARSER.set(parser);
}

/// Parses `text` with the installed parser.
pub(crate) fn parse(text: &str) -> Result<Value, Box<dyn Error>> {
    PARSER.get().ok_or("no JSON parser is installed")?.parse(text)
}
