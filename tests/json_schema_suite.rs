//! The official JSON-Schema-Test-Suite, run through `webmcp_warden::validate::SchemaCache`.
//!
//! Every test of the top-level `*.json` files of `draft2020-12/` and `draft7/` (the suite's
//! required tests) must pass, except the entries of `known-failures.json`:
//!
//! - `deliberate`: tests whose expectation we invert on purpose, because of a documented decision
//!   in `src/validate.rs` (we assert `format` in 2020-12 too). They are still run, and must give
//!   the inverted result.
//! - `knownFailures`: tests we fail and accept for now, each with a reason. A listed test that
//!   passes is reported, so the list does not go stale silently.
//!
//! A listed entry that names no test of the suite fails the run.
//!
//! Remote references (`http://localhost:1234/...`) are served from the suite's `remotes/` folder:
//! this file reads the documents and hands their text to the hidden
//! `SchemaCache::for_conformance_suite` constructor, which adds them to every compile as known
//! resources. The library itself never reads files or fetches anything; any other external `$ref`
//! is still refused. Patterns run on `regress` here; `pkg-js/test/json-schema-suite.test.mjs`
//! runs the same tests through the built wasm module, where they run on the JS `RegExp`. Schemas without `$schema` use the folder's dialect (the suite's draft7
//! schemas carry none), which that constructor also sets.
//!
//! The `optional/` tests are run for information only (printed, never failing).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::arithmetic_side_effects)]
#![cfg(feature = "validate")]

use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;
use webmcp_warden::validate::{Dialect, SchemaCache};

fn suite_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/json-schema-test-suite")
}

#[derive(Deserialize)]
struct SuiteCase {
    description: String,
    schema: Value,
    tests: Vec<SuiteTest>,
}

#[derive(Deserialize)]
struct SuiteTest {
    description: String,
    data: Value,
    valid: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Listed {
    #[serde(default, rename = "$comment")]
    _comment: Option<String>,
    deliberate: Vec<Entry>,
    known_failures: Vec<Entry>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct Entry {
    draft: String,
    file: String,
    case: String,
    test: String,
    reason: String,
}

impl Entry {
    fn key(&self) -> (String, String, String, String) {
        (self.draft.clone(), self.file.clone(), self.case.clone(), self.test.clone())
    }
}

/// `(uri, text)` for the remotes a draft may reference: the shared ones plus its own folder.
/// [`remotes`], parsed.
fn remote_values(draft: &str) -> Vec<(String, serde_json::Value)> {
    remotes(draft).into_iter().map(|(uri, text)| (uri, serde_json::from_str(&text).unwrap())).collect()
}

fn remotes(draft: &str) -> Vec<(String, String)> {
    fn walk(dir: &Path, rel: &str, out: &mut Vec<(String, String)>, skip: &[&str]) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for path in entries {
            let name = path.file_name().unwrap().to_str().unwrap().to_owned();
            let rel_name = if rel.is_empty() { name.clone() } else { format!("{rel}/{name}") };
            if path.is_dir() {
                if rel.is_empty() && skip.contains(&name.as_str()) {
                    continue;
                }
                walk(&path, &rel_name, out, skip);
            } else if name.ends_with(".json") {
                let text = std::fs::read_to_string(&path).unwrap();
                out.push((format!("http://localhost:1234/{rel_name}"), text));
            }
        }
    }
    let other_drafts: Vec<&str> =
        ["draft3", "draft4", "draft6", "draft7", "draft2019-09", "draft2020-12", "draft-next"]
            .into_iter()
            .filter(|d| *d != draft)
            .collect();
    let mut out = Vec::new();
    walk(&suite_dir().join("remotes"), "", &mut out, &other_drafts);
    // Preloading indexes every document up front (a retriever would load them lazily), so a
    // document that only makes sense in later drafts must be left out: this one hides its `$id`
    // under `$defs`, which draft-07 does not know, so its own `$ref` cannot resolve there.
    if draft == "draft7" {
        out.retain(|(uri, _)| uri != "http://localhost:1234/nested-absolute-ref-to-string.json");
    }
    out
}

fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

#[derive(Default)]
struct StepReport {
    total: usize,
    passed_as_written: usize,
    /// Passed because the expectation is inverted on purpose.
    passed_inverted: usize,
    /// Failed, but listed in `knownFailures`.
    known: usize,
    /// Failed and not listed: these fail the run.
    unexpected: Vec<String>,
    /// Listed as known failures, but passed.
    now_passing: Vec<String>,
    /// Which listed entries were met.
    seen: BTreeSet<(String, String, String, String)>,
}

/// Runs one file's cases. `listed` is `None` for informational runs.
fn run_file(cache: &mut SchemaCache, draft: &str, file: &Path, listed: Option<&Listed>, out: &mut StepReport) {
    let file_name = file.file_name().unwrap().to_str().unwrap().to_owned();
    let cases: Vec<SuiteCase> = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let find = |entries: &[Entry], case: &str, test: &str| {
        entries.iter().find(|e| e.draft == draft && e.file == file_name && e.case == case && e.test == test).cloned()
    };
    for case in &cases {
        let schema_text = case.schema.to_string();
        let compiled = catch_unwind(AssertUnwindSafe(|| cache.compile(&schema_text)));
        for test in &case.tests {
            out.total += 1;
            let label = format!("{draft}/{file_name} | {} | {}", case.description, test.description);
            let outcome: Result<bool, String> = match &compiled {
                Err(_) => Err("PANIC while compiling".to_owned()),
                Ok(Err(problem)) => Err(format!("schema did not compile: {}", problem.message)),
                Ok(Ok(handle)) => {
                    let text = test.data.to_string();
                    match catch_unwind(AssertUnwindSafe(|| cache.validate(*handle, &text))) {
                        Err(_) => Err("PANIC while validating".to_owned()),
                        Ok(Err(problem)) => Err(format!("validate refused: {}", problem.message)),
                        Ok(Ok(diagnostics)) => {
                            for d in &diagnostics {
                                assert!(
                                    !d.keyword.is_empty()
                                        && !d.message.is_empty()
                                        && (d.path.is_empty() || d.path.starts_with('/')),
                                    "{label}: malformed diagnostic {d:?}"
                                );
                            }
                            Ok(diagnostics.is_empty())
                        }
                    }
                }
            };
            let deliberate = listed.and_then(|l| find(&l.deliberate, &case.description, &test.description));
            let known = listed.and_then(|l| find(&l.known_failures, &case.description, &test.description));
            if let Some(entry) = deliberate.as_ref().or(known.as_ref()) {
                out.seen.insert(entry.key());
            }
            let expected = if deliberate.is_some() { !test.valid } else { test.valid };
            match outcome {
                Ok(valid) if valid == expected => {
                    if deliberate.is_some() {
                        out.passed_inverted += 1;
                    } else {
                        out.passed_as_written += 1;
                    }
                    if known.is_some() {
                        out.now_passing.push(label);
                    }
                }
                other => {
                    let why = match other {
                        Ok(valid) => format!("got valid = {valid}, expected {expected}"),
                        Err(why) => why,
                    };
                    if known.is_some() {
                        out.known += 1;
                    } else {
                        out.unexpected.push(format!("{label}: {why}"));
                    }
                }
            }
        }
        if let Ok(Ok(handle)) = compiled {
            cache.drop_schema(handle);
        }
    }
}

fn dialect(draft: &str) -> Dialect {
    match draft {
        "draft7" => Dialect::Draft7,
        _ => Dialect::Draft202012,
    }
}

#[test]
fn required_tests_of_both_drafts() {
    let listed: Listed =
        serde_json::from_str(&std::fs::read_to_string(suite_dir().join("known-failures.json")).unwrap()).unwrap();
    for entry in listed.deliberate.iter().chain(&listed.known_failures) {
        assert!(!entry.reason.trim().is_empty(), "entry without a reason: {}", entry.test);
    }
    let mut problems = Vec::new();
    for draft in ["draft2020-12", "draft7"] {
        let mut cache = SchemaCache::for_conformance_suite(dialect(draft), remote_values(draft));
        let mut out = StepReport::default();
        for file in json_files(&suite_dir().join("tests").join(draft)) {
            run_file(&mut cache, draft, &file, Some(&listed), &mut out);
        }
        let passed = out.passed_as_written + out.passed_inverted;
        println!(
            "{draft}: {passed}/{} required tests passed ({} as written, {} with the expectation inverted on purpose; \
             {} known failures, {} unexpected failures)",
            out.total,
            out.passed_as_written,
            out.passed_inverted,
            out.known,
            out.unexpected.len()
        );
        for label in &out.now_passing {
            println!("  listed as a known failure but passes now (remove it from known-failures.json): {label}");
        }
        for entry in listed.deliberate.iter().chain(&listed.known_failures).filter(|e| e.draft == draft) {
            if !out.seen.contains(&entry.key()) {
                problems.push(format!(
                    "known-failures.json names a test the suite does not have: {draft}/{} | {} | {}",
                    entry.file, entry.case, entry.test
                ));
            }
        }
        problems.extend(out.unexpected);
        assert!(cache.is_empty(), "every compiled schema was dropped");
    }
    assert!(problems.is_empty(), "{} problem(s):\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn optional_tests_for_information() {
    for draft in ["draft2020-12", "draft7"] {
        let mut cache = SchemaCache::for_conformance_suite(dialect(draft), remote_values(draft));
        for (group, dir) in [("optional", "optional"), ("optional/format", "optional/format")] {
            let mut out = StepReport::default();
            for file in json_files(&suite_dir().join("tests").join(draft).join(dir)) {
                run_file(&mut cache, draft, &file, None, &mut out);
            }
            println!("{draft} {group}: {}/{} passed (informational)", out.passed_as_written, out.total);
            if std::env::var_os("WARDEN_SHOW_OPTIONAL_FAILURES").is_some() {
                for label in &out.unexpected {
                    println!("  {label}");
                }
            }
        }
    }
}
