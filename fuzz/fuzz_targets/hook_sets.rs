//! Hook sets: an arbitrary value as the hooks object the TS layer sends, through
//! `HookSet::compile`. Never a panic; an error always has a code and a message that starts with
//! its path; an accepted set holds exactly the functions it was given, once each, in event order.
#![no_main]

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use webmcp_warden::hooks::{Event, HookSet};
use webmcp_warden::value::{Map, Value};
use webmcp_warden_fuzz::{pick, text, value};

const LABELS: [&str; 4] = ["hooks", "tool \"x\" hooks", "provider hooks", "a.b[0]"];
const EVENTS: [&str; 6] = ["before", "after", "error", "denied", "toolsListed", "beforeCall"];
const MATCHERS: [&str; 8] = ["*", "all", "shop/*", "shop/search", "search", "a/b/c", "", "shop/bad name"];
const OPTIONS: [&str; 6] = ["run", "match", "id", "timeout", "onError", "once"];

/// A hook entry: mostly the shapes the TS layer sends, sometimes anything.
fn entry(u: &mut Unstructured<'_>) -> Result<Value> {
    Ok(match u.int_in_range(0..=3)? {
        0 => Value::Function(u.int_in_range(0..=12)?),
        1 => value(u, 2, 3)?,
        _ => {
            let mut map = Map::new();
            for _ in 0..u.int_in_range(0..=4)? {
                let option = *pick(u, &OPTIONS)?;
                let item = match (option, u.int_in_range(0..=2)?) {
                    ("run", 0 | 1) => Value::Function(u.int_in_range(0..=12)?),
                    ("match", 0) => Value::String((*pick(u, &MATCHERS)?).to_owned()),
                    ("match", 1) => Value::Regex { source: text(u)?, flags: (*pick(u, &["", "i", "g", "v"])?).to_owned() },
                    ("id", 0 | 1) => Value::String(text(u)?),
                    ("timeout", 0 | 1) => Value::Number(webmcp_warden_fuzz::number(u)?),
                    ("onError", 0 | 1) => Value::String((*pick(u, &["fail", "ignore", "retry"])?).to_owned()),
                    _ => value(u, 2, 3)?,
                };
                map.insert(option, item);
            }
            Value::Object(map)
        }
    })
}

fn hooks(u: &mut Unstructured<'_>) -> Result<Value> {
    if u.ratio(1, 8)? {
        return value(u, 3, 4);
    }
    let mut events = Map::new();
    for _ in 0..u.int_in_range(0..=4)? {
        let event = *pick(u, &EVENTS)?;
        let entries = if u.ratio(1, 10)? {
            value(u, 1, 2)?
        } else {
            let mut items = Vec::new();
            for _ in 0..u.int_in_range(0..=5)? {
                items.push(entry(u)?);
            }
            Value::Array(items)
        };
        events.insert(event, entries);
    }
    Ok(Value::Object(events))
}

/// The function handles of a hooks value, in event order then entry order.
fn functions(spec: &Value) -> Vec<u32> {
    let mut out = Vec::new();
    for event in Event::ALL {
        for item in spec.get(event.name()).and_then(Value::as_array).into_iter().flatten() {
            match item {
                Value::Function(handle) => out.push(*handle),
                other => {
                    if let Some(Value::Function(handle)) = other.get("run") {
                        out.push(*handle);
                    }
                }
            }
        }
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(spec) = hooks(&mut u) else { return };
    let Ok(label) = pick(&mut u, &LABELS) else { return };
    match HookSet::compile(&spec, label) {
        Err(err) => {
            assert!(!err.code.is_empty(), "an error without a code: {err:?}");
            assert!(!err.path.is_empty(), "an error without a path: {err:?}");
            assert!(err.path.starts_with(label), "path {:?} is not under {label:?}", err.path);
            assert!(err.message.starts_with(&format!("{}: ", err.path)), "message {:?} does not start with its path", err.message);
            assert!(err.message.len() > err.path.len() + 2, "an error without a message: {err:?}");
        }
        Ok(set) => {
            let handles: Vec<u32> = set.hooks.iter().map(|hook| hook.handle).collect();
            assert_eq!(handles, functions(&spec), "the set's hooks are not the functions it was given");
            let mut unique = handles.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(unique.len(), handles.len(), "a handle twice in one set");
            for hook in &set.hooks {
                assert!(hook.timeout_ms.is_none_or(|ms| ms.is_finite() && ms > 0.0));
                assert!(hook.id.as_deref().is_none_or(|id| !id.is_empty()));
            }
        }
    }
});
