//! The wire codes the TS layer uses (`pkg-js/src/boundary/codes.ts`) are written from the Rust
//! definitions: this test renders the file and fails when it differs, so the two sides cannot
//! drift. `UPDATE_CODES=1 cargo test --test wire_codes` rewrites it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fmt::Write as _;

use webmcp_warden::call::{Op, Outcome, Signal, Verdict, LIMITS_FIRST, MAX_HANDLE};
use webmcp_warden::engine::{CallFlags, ENDED_QUIETLY};
use webmcp_warden::hooks::{Event, Subject, MAX_TIMER_MS};
use webmcp_warden::returns::{bits, Action, Allow, Field, Halt, Kind};
use webmcp_warden::wire::{Control, Read, Request};

fn render() -> String {
    let mut out = String::new();
    out.push_str("// Generated from the Rust definitions by `tests/wire_codes.rs` (`UPDATE_CODES=1 cargo test --test\n");
    out.push_str("// wire_codes`); a test fails when this file and the Rust side differ. Do not edit by hand.\n\n");
    let mut object = |name: &str, doc: &str, entries: Vec<(String, u32)>| {
        writeln!(out, "/** {doc} */").unwrap();
        writeln!(out, "export const {name} = {{").unwrap();
        for (key, value) in entries {
            writeln!(out, "  {key}: {value},").unwrap();
        }
        writeln!(out, "}} as const;\n").unwrap();
    };
    object(
        "Outcome",
        "What the TS layer reports after performing a step (`call::Outcome`).",
        Outcome::ALL.iter().map(|o| (format!("{o:?}"), *o as u32)).collect(),
    );
    object("Op", "What the core asks for next (`call::Op`), bits 0–3 of an action.", Op::ALL.iter().map(|o| (format!("{o:?}"), *o as u32)).collect());
    object(
        "Signal",
        "The call's abort signal as reported with each step (`call::Signal`).",
        [Signal::Live, Signal::Aborted, Signal::TimedOut].iter().map(|s| (format!("{s:?}"), *s as u32)).collect(),
    );
    object(
        "Verdict",
        "How the last hook step was judged (`call::Verdict`), bits 6–8 of an action.",
        [Verdict::None, Verdict::Cont, Verdict::Rewrite, Verdict::Deny, Verdict::Halt, Verdict::Recover, Verdict::Failed]
            .iter()
            .map(|v| (format!("{v:?}"), *v as u32))
            .collect(),
    );
    object(
        "ActionBits",
        "The other parts of a packed action (`call::Action::encode`).",
        vec![("OpMask".into(), 15), ("Accepted".into(), 1 << 4), ("FailedNow".into(), 1 << 5), ("VerdictShift".into(), 6), ("Decided".into(), 1 << 9), ("HandleShift".into(), 10), ("MaxHandle".into(), MAX_HANDLE), ("EndedQuietly".into(), ENDED_QUIETLY), ("LimitsFirst".into(), LIMITS_FIRST)],
    );
    object(
        "Bounds",
        "Bounds the core sets on what the TS layer accepts (`hooks::MAX_TIMER_MS`: the longest delay a timer holds).",
        vec![("MaxTimerMs".into(), MAX_TIMER_MS)],
    );
    object(
        "CallFlags",
        "What the TS layer says about a call when it starts (`engine::CallFlags`).",
        vec![
            ("JsonInput".into(), CallFlags::JSON_INPUT),
            ("StandardInput".into(), CallFlags::STANDARD_INPUT),
            ("OutputSchema".into(), CallFlags::OUTPUT_SCHEMA),
            ("Approver".into(), CallFlags::APPROVER),
            ("Observed".into(), CallFlags::OBSERVED),
            ("Capture".into(), CallFlags::CAPTURE),
            ("Explain".into(), CallFlags::EXPLAIN),
            ("Limits".into(), CallFlags::LIMITS),
        ],
    );
    object(
        "Facts",
        "The facts of a returned value (`returns::bits` and its enums).",
        vec![
            ("KindUndefined".into(), Kind::Undefined as u32),
            ("KindNull".into(), Kind::Null as u32),
            ("KindPrimitive".into(), Kind::Primitive as u32),
            ("KindArray".into(), Kind::Array as u32),
            ("KindObject".into(), Kind::Object as u32),
            ("InputDefined".into(), bits::INPUT_DEFINED),
            ("InputOwn".into(), bits::INPUT_OWN),
            ("OutputDefined".into(), bits::OUTPUT_DEFINED),
            ("OutputOwn".into(), bits::OUTPUT_OWN),
            ("ResultIn".into(), bits::RESULT_IN),
            ("ResultOwn".into(), bits::RESULT_OWN),
            ("AllowIn".into(), bits::ALLOW_IN),
            ("ActionShift".into(), bits::ACTION),
            ("ActionOwn".into(), bits::ACTION_OWN),
            ("MessageShift".into(), bits::MESSAGE),
            ("MessageOwn".into(), bits::MESSAGE_OWN),
            ("CodeShift".into(), bits::CODE),
            ("CodeOwn".into(), bits::CODE_OWN),
            ("OtherOwn".into(), bits::OTHER_OWN),
            ("AllowShift".into(), bits::ALLOW),
            ("DenyShift".into(), bits::DENY),
            ("HaltShift".into(), bits::HALT),
            ("AllowOwn".into(), bits::ALLOW_OWN),
            ("DenyOwn".into(), bits::DENY_OWN),
            ("HaltOwn".into(), bits::HALT_OWN),
            ("ArgsDefined".into(), bits::ARGS_DEFINED),
            ("ArgsOwn".into(), bits::ARGS_OWN),
            ("ActionDeny".into(), Action::Deny as u32),
            ("ActionHalt".into(), Action::Halt as u32),
            ("ActionRecover".into(), Action::Recover as u32),
            ("ActionAllow".into(), Action::Allow as u32),
            ("ActionUnknown".into(), Action::Unknown as u32),
            ("ActionNotText".into(), Action::NotText as u32),
            ("FieldText".into(), Field::Text as u32),
            ("FieldOther".into(), Field::Other as u32),
            ("AllowOnce".into(), Allow::Once as u32),
            ("AllowAlways".into(), Allow::Always as u32),
            ("AllowOther".into(), Allow::Other as u32),
            ("HaltTrue".into(), Halt::True as u32),
            ("HaltOther".into(), Halt::Other as u32),
        ],
    );
    object(
        "Subject",
        "What a governed call is about (`hooks::Subject`), as `Configure.DefineSubject` takes it.",
        [Subject::Tool, Subject::Resource, Subject::Prompt].iter().map(|s| (format!("{s:?}"), *s as u32)).collect(),
    );
    object(
        "Configure",
        "The configuration steps of the `configure` export (`wire::Request`).",
        Request::ALL.iter().map(|r| (format!("{r:?}"), r.code())).collect(),
    );
    object("Control", "The steps of the `control` export (`wire::Control`).", Control::ALL.iter().map(|c| (format!("{c:?}"), c.code())).collect());
    object("Read", "What the `read` export answers (`wire::Read`).", Read::ALL.iter().map(|r| (format!("{r:?}"), r.code())).collect());
    writeln!(out, "/** Hook events by their number in the core (`hooks::Event`). */").unwrap();
    let names: Vec<String> = Event::ALL.iter().map(|e| format!("'{}'", e.name())).collect();
    writeln!(out, "export const EVENTS = [{}] as const;", names.join(", ")).unwrap();
    out
}

#[test]
fn codes_ts_matches_the_rust_definitions() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/pkg-js/src/boundary/codes.ts");
    let expected = render();
    if std::env::var_os("UPDATE_CODES").is_some() {
        std::fs::write(path, &expected).unwrap();
    }
    let actual = std::fs::read_to_string(path).unwrap_or_default();
    assert!(actual == expected, "pkg-js/src/boundary/codes.ts differs from the Rust definitions; run UPDATE_CODES=1 cargo test --test wire_codes");
}

/// `Outcome::from_code` indexes `Outcome::ALL`: the list must stay in code order, and every
/// code outside it must decode to nothing.
#[test]
fn outcomes_decode_by_index() {
    for (index, outcome) in Outcome::ALL.iter().enumerate() {
        assert_eq!(*outcome as usize, index, "{outcome:?} is out of order in Outcome::ALL");
        assert_eq!(Outcome::from_code(index as u32), Some(*outcome));
    }
    assert_eq!(Outcome::from_code(Outcome::ALL.len() as u32), None);
    assert_eq!(Outcome::from_code(u32::MAX), None);
}
