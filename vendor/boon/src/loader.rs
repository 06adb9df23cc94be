use std::{cell::RefCell, error::Error};

use appendlist::AppendList;

use serde_json::Value;
use crate::uri::Url;

use crate::{
    HashMap, HashSet,
    compiler::CompileError,
    draft::{latest, Draft},
    util::split,
    UrlPtr,
};

/// A trait for loading json from given `url`
pub trait UrlLoader {
    /// Loads json from given absolute `url`.
    fn load(&self, url: &str) -> Result<Value, Box<dyn Error>>;
}

// --

// --

#[derive(Default)]
pub struct SchemeUrlLoader {
    loaders: HashMap<&'static str, Box<dyn UrlLoader>>,
}

impl SchemeUrlLoader {
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers [`UrlLoader`] for given url `scheme`
    pub fn register(&mut self, scheme: &'static str, url_loader: Box<dyn UrlLoader>) {
        self.loaders.insert(scheme, url_loader);
    }
}

impl UrlLoader for SchemeUrlLoader {
    fn load(&self, url: &str) -> Result<Value, Box<dyn Error>> {
        let url = Url::parse(url)?;
        let Some(loader) = self.loaders.get(url.scheme()) else {
            return Err(CompileError::UnsupportedUrlScheme {
                url: url.as_str().to_owned(),
            }
            .into());
        };
        loader.load(url.as_str())
    }
}

// --

struct RefuseAll;

impl UrlLoader for RefuseAll {
    fn load(&self, _url: &str) -> Result<Value, Box<dyn Error>> {
        Err("no loader is installed".into())
    }
}

pub(crate) struct DefaultUrlLoader {
    doc_map: RefCell<HashMap<Url, usize>>,
    doc_list: AppendList<Value>,
    loader: Box<dyn UrlLoader>,
}

impl DefaultUrlLoader {
    // webmcp-warden patch: no default loader (upstream reads `file:` URLs natively); the
    // embedder installs one with `Compiler::use_loader`. Until then every URL is refused.
    pub fn new() -> Self {
        Self {
            doc_map: Default::default(),
            doc_list: AppendList::new(),
            loader: Box::new(RefuseAll),
        }
    }

    pub fn get_doc(&self, url: &Url) -> Option<&Value> {
        self.doc_map
            .borrow()
            .get(url)
            .and_then(|i| self.doc_list.get(*i))
    }

    pub fn add_doc(&self, url: Url, json: Value) {
        if self.get_doc(&url).is_some() {
            return;
        }
        self.doc_list.push(json);
        self.doc_map
            .borrow_mut()
            .insert(url, self.doc_list.len() - 1);
    }

    pub fn use_loader(&mut self, loader: Box<dyn UrlLoader>) {
        self.loader = loader;
    }

    pub(crate) fn load(&self, url: &Url) -> Result<&Value, CompileError> {
        if let Some(doc) = self.get_doc(url) {
            return Ok(doc);
        }

        // check the bundled meta-schemas
        let doc = if let Some(content) = load_std_meta(url.as_str()) {
            // webmcp-warden patch: the installed parser (see json.rs).
            crate::json::parse(content).map_err(|src| CompileError::LoadUrlError {
                url: url.to_string(),
                src,
            })?
        } else {
            self.loader
                .load(url.as_str())
                .map_err(|src| CompileError::LoadUrlError {
                    url: url.as_str().to_owned(),
                    src,
                })?
        };
        self.add_doc(url.clone(), doc);
        self.get_doc(url)
            .ok_or(CompileError::Bug("doc must exist".into()))
    }

    pub(crate) fn get_draft(
        &self,
        up: &UrlPtr,
        doc: &Value,
        default_draft: &'static Draft,
        mut cycle: HashSet<Url>,
    ) -> Result<&'static Draft, CompileError> {
        let Value::Object(obj) = &doc else {
            return Ok(default_draft);
        };
        let Some(Value::String(sch)) = obj.get("$schema") else {
            return Ok(default_draft);
        };
        if let Some(draft) = Draft::from_url(sch) {
            return Ok(draft);
        }
        let (sch, _) = split(sch);
        let sch = Url::parse(sch).map_err(|e| CompileError::InvalidMetaSchemaUrl {
            url: up.to_string(),
            src: e.into(),
        })?;
        if up.ptr.is_empty() && sch == up.url {
            return Err(CompileError::UnsupportedDraft { url: sch.into() });
        }
        if !cycle.insert(sch.clone()) {
            return Err(CompileError::MetaSchemaCycle { url: sch.into() });
        }

        let doc = self.load(&sch)?;
        let up = UrlPtr {
            url: sch,
            ptr: "".into(),
        };
        self.get_draft(&up, doc, default_draft, cycle)
    }

    pub(crate) fn get_meta_vocabs(
        &self,
        doc: &Value,
        draft: &'static Draft,
    ) -> Result<Option<Vec<String>>, CompileError> {
        let Value::Object(obj) = &doc else {
            return Ok(None);
        };
        let Some(Value::String(sch)) = obj.get("$schema") else {
            return Ok(None);
        };
        if Draft::from_url(sch).is_some() {
            return Ok(None);
        }
        let (sch, _) = split(sch);
        let sch = Url::parse(sch).map_err(|e| CompileError::ParseUrlError {
            url: sch.to_string(),
            src: e.into(),
        })?;
        let doc = self.load(&sch)?;
        draft.get_vocabs(&sch, doc)
    }
}

// webmcp-warden patch: a `match` rather than a lazily built map (see `formats::builtin_format`).
fn std_metafile(path: &str) -> Option<&'static str> {
    macro_rules! files {
        ($($path:literal,)*) => {
            match path {
                $(p if p == &$path["metaschemas/".len()..] => Some(include_str!($path)),)*
                _ => None,
            }
        };
    }
    // webmcp-warden patch: only the two dialects webmcp-warden supports are bundled, so a
    // `$ref` to another draft's meta-schema is external (and refused), and the first compile
    // does not compile three meta-schemas nobody uses.
    files! {
        "metaschemas/draft-07/schema",
        "metaschemas/draft/2020-12/schema",
        "metaschemas/draft/2020-12/meta/core",
        "metaschemas/draft/2020-12/meta/applicator",
        "metaschemas/draft/2020-12/meta/unevaluated",
        "metaschemas/draft/2020-12/meta/validation",
        "metaschemas/draft/2020-12/meta/meta-data",
        "metaschemas/draft/2020-12/meta/content",
        "metaschemas/draft/2020-12/meta/format-annotation",
        "metaschemas/draft/2020-12/meta/format-assertion",
    }
}

fn load_std_meta(url: &str) -> Option<&'static str> {
    let meta = url
        .strip_prefix("http://json-schema.org/")
        .or_else(|| url.strip_prefix("https://json-schema.org/"));
    if let Some(meta) = meta {
        if meta == "schema" {
            return load_std_meta(latest().url);
        }
        return std_metafile(meta);
    }
    None
}
