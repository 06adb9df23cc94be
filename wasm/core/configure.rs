//! The configuration steps, through one export: `configure(engine, request, bytes)`.
//!
//! Each step used to be an export of its own, and each export costs argument glue on both
//! sides of the boundary (strings, arrays and buffers copied in and out; bench/RESULTS.md,
//! "Build choices, measured"). Configuration is not the hot path, so its steps share one: `bytes` holds the step's
//! arguments as a wire array, then the step's payload exactly as the TS layer encoded it
//! ([`webmcp_warden::wire::decode_head`]); [`webmcp_warden::wire::Request`] lists the steps and their
//! arguments. Every step answers `{ ok, … }` or `{ ok: false, error }` ([`engines::answer`]).

use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use wasm_bindgen::prelude::*;

use super::engines::{self, answer, decode, no_engine};
use webmcp_warden::engine::Engine;
use webmcp_warden::error::ConfigError;
use webmcp_warden::policy::RevokeFilter;
use webmcp_warden::value::Value;
use webmcp_warden::wire::Request;

/// Runs configuration step `request` on engine `engine`.
#[wasm_bindgen]
pub fn configure(engine: u32, request: u32, bytes: &[u8]) -> Vec<u8> {
    let (args, payload) = match webmcp_warden::wire::decode_head(bytes) {
        Ok((Value::Array(args), payload)) => (args, payload),
        _ => return answer(Err(misuse())),
    };
    let Some(request) = Request::from_code(request) else { return answer(Err(misuse())) };
    let args = Args(&args);
    if request == Request::CheckPattern {
        return answer(check_pattern(&args));
    }
    // Every pattern a step compiles sees the page's opt-in (`unsafePatterns`).
    engines::with(engine, |e| answer(webmcp_warden::pattern::with_unsafe_allowed(e.unsafe_patterns(), || run(e, request, &args, payload)))).unwrap_or_else(no_engine)
}

/// The arguments of a request, read by position. A missing or mistyped one is the TS layer's
/// misuse (`invalid_wire`).
struct Args<'a>(&'a [Value]);

impl Args<'_> {
    fn value(&self, at: usize) -> Result<&Value, ConfigError> {
        self.0.get(at).ok_or_else(misuse)
    }

    fn u32(&self, at: usize) -> Result<u32, ConfigError> {
        self.value(at)?.as_u64().and_then(|n| u32::try_from(n).ok()).ok_or_else(misuse)
    }

    /// A number. The wire carries a non-finite number as an unsupported value named by its
    /// JS text; it reads back as that number, as when it crossed as an `f64` argument.
    fn f64(&self, at: usize) -> Result<f64, ConfigError> {
        match self.value(at)? {
            Value::Number(n) => Ok(*n),
            Value::Unsupported(text) if text == "Infinity" => Ok(f64::INFINITY),
            Value::Unsupported(text) if text == "-Infinity" => Ok(f64::NEG_INFINITY),
            Value::Unsupported(text) if text == "NaN" => Ok(f64::NAN),
            _ => Err(misuse()),
        }
    }

    fn str(&self, at: usize) -> Result<&str, ConfigError> {
        self.value(at)?.as_str().ok_or_else(misuse)
    }

    /// A string, or `None` for `null`.
    fn opt_str(&self, at: usize) -> Result<Option<String>, ConfigError> {
        match self.value(at)? {
            Value::Null => Ok(None),
            other => other.as_str().map(|text| Some(text.to_owned())).ok_or_else(misuse),
        }
    }

    /// A handle, or `None` for `null`.
    fn opt_u32(&self, at: usize) -> Result<Option<u32>, ConfigError> {
        match self.value(at)? {
            Value::Null => Ok(None),
            _ => self.u32(at).map(Some),
        }
    }

    /// An array of handles.
    fn u32s(&self, at: usize) -> Result<Vec<u32>, ConfigError> {
        let items = self.value(at)?.as_array().ok_or_else(misuse)?;
        let mut handles = Vec::with_capacity(items.len());
        for item in items {
            handles.push(item.as_u64().and_then(|n| u32::try_from(n).ok()).ok_or_else(misuse)?);
        }
        Ok(handles)
    }

    fn bool(&self, at: usize) -> Result<bool, ConfigError> {
        self.value(at)?.as_bool().ok_or_else(misuse)
    }
}

fn misuse() -> ConfigError {
    ConfigError::new("invalid_wire", "the core could not read its request".into())
}

/// An answer with no members but `ok`.
fn done() -> Value {
    webmcp_warden::object! {}
}

fn run(e: &mut Engine, request: Request, args: &Args<'_>, payload: &[u8]) -> Result<Value, ConfigError> {
    Ok(match request {
        Request::DefineHookSet => {
            let set = args.u32(0)?;
            e.define_hook_set(set, &decode(payload)?, args.str(1)?)?;
            let mut hooks = Vec::new();
            for (handle, event, timeout) in e.set_hooks(set) {
                hooks.push(Value::Array(vec![handle.into(), (event as u32).into(), timeout.into()]));
            }
            webmcp_warden::object! { "hooks" => Value::Array(hooks) }
        }
        Request::AddGlobal => {
            let replaced = e.add_global(args.u32(0)?, args.bool(1)?, args.str(2)?)?;
            webmcp_warden::object! { "replaced" => replaced }
        }
        Request::DefineSubject => {
            let subject = webmcp_warden::hooks::Subject::from_code(args.u32(1)?).ok_or_else(|| ConfigError::new("invalid_wire", "an unknown subject".into()))?;
            let definition = webmcp_warden::governor::Definition::from_value(&decode(payload)?)?;
            let fingerprint = definition.fingerprint.clone();
            e.define_subject(args.u32(0)?, subject, definition, args.opt_str(2)?, args.u32s(3)?, args.str(4)?)?;
            webmcp_warden::object! { "fingerprint" => fingerprint }
        }
        Request::DefineStandaloneTool => {
            e.define_standalone_tool(args.u32(0)?, args.str(1)?, args.u32s(2)?, args.str(3)?)?;
            done()
        }
        Request::DefineScope => {
            e.define_scope(args.u32(0)?, args.u32(1)?, args.opt_u32(2)?, args.str(3)?)?;
            done()
        }
        Request::PlanError => {
            e.plan(args.u32(0)?, args.u32(1)?)?;
            done()
        }
        Request::SetPolicy => {
            e.governor_mut().set_policy(&decode(payload)?)?;
            done()
        }
        Request::SetApprovedFingerprints => {
            e.governor_mut().set_approved(&decode(payload)?)?;
            done()
        }
        Request::SetToolFilter => {
            e.governor_mut().set_filter(&decode(payload)?)?;
            done()
        }
        Request::RecordGrant => {
            let principal = args.opt_str(1)?;
            let digest = args.opt_str(4)?;
            let grant = e.record_grant(args.u32(0)?, principal.as_deref(), args.f64(2)?, args.f64(3)?, digest.as_deref());
            let grant = grant.ok_or_else(|| ConfigError::new("unknown_handle", "no call with this handle".into()))?;
            webmcp_warden::object! { "grant" => grant.to_value() }
        }
        Request::LoadGrants => {
            let stored = decode(payload)?;
            webmcp_warden::object! { "read" => e.governor_mut().grants_mut().load(&stored) }
        }
        Request::ListGrants => {
            let book = e.governor_mut().grants_mut();
            let pruned = book.prune(args.f64(0)?);
            webmcp_warden::object! { "grants" => book.to_value(true), "pruned" => pruned }
        }
        Request::RevokeGrants => {
            let filter = decode(payload)?;
            let removed = RevokeFilter::from_value(&filter).map_or(0, |filter| e.governor_mut().grants_mut().revoke(&filter));
            webmcp_warden::object! { "removed" => removed }
        }
        Request::StoredGrants => webmcp_warden::object! { "grants" => e.governor().grants().to_value(false) },
        Request::Suspend => {
            e.suspend(args.opt_str(0)?);
            done()
        }
        Request::CheckPattern => check_pattern(args)?,
    })
}

/// Whether a pattern may run, now that its judgement can be asked: the TS layer checks, when the
/// judgement has loaded, the patterns the core compiled before it had (`docs/behaviour.md`,
/// "Patterns"). `{ ok }`, or the `unsafe_pattern` (or `invalid_pattern`) error naming it.
fn check_pattern(args: &Args<'_>) -> Result<Value, ConfigError> {
    let (source, flags) = (args.str(0)?, args.str(1)?);
    webmcp_warden::pattern::Pattern::compile(source, flags, args.bool(2)?)
        .map_err(|error| webmcp_warden::matcher::pattern_error(&webmcp_warden::strs::cat!["the pattern /", source, "/", flags], source, flags, &error))?;
    Ok(done())
}
