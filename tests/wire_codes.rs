//! The wire codes the TS layer uses (`pkg-js/src/boundary/codes.ts`) and the answers it reads
//! (`pkg-js/src/boundary/answers.ts`, from `src/answers.rs`) are written from the Rust definitions: this
//! test renders both files and fails when one differs, so the two sides cannot drift.
//! `UPDATE_CODES=1 cargo test --test wire_codes` rewrites them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::arithmetic_side_effects)]

use std::fmt::Write as _;

use webmcp_warden::answers::{self, Desc, Lit, Named, Part, Shared};
use webmcp_warden::call::{Op, Signal, StepReport, Verdict, LIMITS_FIRST, MAX_HANDLE};
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
        "StepReport",
        "What the TS layer reports after performing a step (`call::StepReport`).",
        StepReport::ALL.iter().map(|o| (format!("{o:?}"), *o as u32)).collect(),
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

/// Writes `expected` to `file` (under `pkg-js/src/`) when asked to; fails when the file differs.
fn check_generated(file: &str, expected: &str) {
    let path = format!("{}/pkg-js/src/boundary/{file}", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("UPDATE_CODES").is_some() {
        std::fs::write(&path, expected).unwrap();
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(actual == expected, "pkg-js/src/boundary/{file} differs from the Rust definitions; run UPDATE_CODES=1 cargo test --test wire_codes");
}

#[test]
fn codes_ts_matches_the_rust_definitions() {
    check_generated("codes.ts", &render());
}

// ---- answers.ts --------------------------------------------------------------------------------

/// The descriptor language and the types derived from it: the part of `answers.ts` that is the
/// same whatever the answers are.
const ANSWERS_PREAMBLE: &str = r#"// What the core answers, described once. Each answer the core sends back over the wire
// (`wire.ts`'s `decode`) has a descriptor here, a plain object naming its fields, and a type
// derived from it (`AnswerOf`), both under the name of the core export that gives it. The TS
// layer imports the types only (`import type`), so no descriptor reaches a page's bundle;
// `test/boundary-answers.test.mjs` drives the real core and checks every answer against its
// descriptor (an unknown, missing or mistyped field fails), and `test-types/answers.ts` checks
// that each derived type fits the public type it becomes (`CallError`, `Decision`, …).
//
// A leaf: imports nothing, so every module may import its types without a cycle.

/** What one value of an answer is. */
export type Desc =
  | 'string'
  | 'number'
  | 'boolean'
  | 'null'
  | 'unknown'
  /** One of these literals. */
  | { readonly oneOf: readonly (string | boolean)[] }
  | { readonly arrayOf: Desc }
  | { readonly tuple: readonly Desc[] }
  /** One of these shapes. */
  | { readonly anyOf: readonly Desc[] }
  /** An object with exactly these fields (`{ optional: d }`: may be absent). */
  | { readonly object: Fields };

/** The fields of an object descriptor. */
export type Fields = { readonly [key: string]: Desc | { readonly optional: Desc } };

/** The type a descriptor describes. */
export type AnswerOf<D> = D extends 'string'
  ? string
  : D extends 'number'
    ? number
    : D extends 'boolean'
      ? boolean
      : D extends 'null'
        ? null
        : D extends 'unknown'
          ? unknown
          : D extends { readonly oneOf: readonly (infer L)[] }
            ? L
            : D extends { readonly arrayOf: infer I }
              ? AnswerOf<I>[]
              : D extends { readonly tuple: infer T }
                ? { -readonly [K in keyof T]: AnswerOf<T[K]> }
                : D extends { readonly anyOf: readonly (infer U)[] }
                  ? U extends unknown
                    ? AnswerOf<U>
                    : never
                  : D extends { readonly object: infer F }
                    ? ObjectOf<F>
                    : never;

type OptionalKeys<F> = { [K in keyof F]: F[K] extends { readonly optional: unknown } ? K : never }[keyof F];
type ObjectOf<F> = Flat<
  { -readonly [K in Exclude<keyof F, OptionalKeys<F>>]: AnswerOf<F[K]> } & {
    -readonly [K in OptionalKeys<F>]?: F[K] extends { readonly optional: infer O } ? AnswerOf<O> : never;
  }
>;
type Flat<T> = { [K in keyof T]: T[K] } & {};

/** The ok branch of an answer that may be a refusal. */
export type Accepted<A> = Exclude<A, Refused>;
"#;

/// The widest line the renderer writes before it breaks a descriptor over lines.
const WIDTH: usize = 130;

fn literal_ts(lit: &Lit) -> String {
    match lit {
        Lit::Str(text) => format!("'{text}'"),
        Lit::Bool(value) => value.to_string(),
    }
}

/// A descriptor on one line.
fn desc_inline(desc: &Desc) -> String {
    match desc {
        Desc::Str => "'string'".into(),
        Desc::Num => "'number'".into(),
        Desc::Bool => "'boolean'".into(),
        Desc::Null => "'null'".into(),
        Desc::Unknown => "'unknown'".into(),
        Desc::OneOf(lits) => format!("{{ oneOf: [{}] }}", lits.iter().map(literal_ts).collect::<Vec<_>>().join(", ")),
        Desc::ArrayOf(item) => format!("{{ arrayOf: {} }}", desc_inline(item)),
        Desc::Tuple(items) => format!("{{ tuple: [{}] }}", items.iter().map(desc_inline).collect::<Vec<_>>().join(", ")),
        Desc::AnyOf(items) => format!("{{ anyOf: [{}] }}", items.iter().map(desc_inline).collect::<Vec<_>>().join(", ")),
        Desc::Object(parts) => match parts.as_slice() {
            // An object that is one shared field list is that very list.
            [Part::Spread(name)] => format!("{{ object: {name} }}"),
            _ => format!("{{ object: {} }}", fields_inline(parts)),
        },
        Desc::Piece(name) => (*name).into(),
    }
}

fn part_inline(part: &Part) -> String {
    match part {
        Part::Field { key, desc, optional: false } => format!("{key}: {}", desc_inline(desc)),
        Part::Field { key, desc, optional: true } => format!("{key}: {{ optional: {} }}", desc_inline(desc)),
        Part::Spread(name) => format!("...{name}"),
    }
}

fn fields_inline(parts: &[Part]) -> String {
    if parts.is_empty() {
        return "{}".into();
    }
    format!("{{ {} }}", parts.iter().map(part_inline).collect::<Vec<_>>().join(", "))
}

/// A descriptor starting at column `at` of a line indented by `indent`: on that line when it
/// fits, else broken over lines.
fn desc_at(desc: &Desc, indent: usize, at: usize) -> String {
    let inline = desc_inline(desc);
    if at + inline.len() < WIDTH {
        return inline;
    }
    let pad = " ".repeat(indent);
    let inner = " ".repeat(indent + 2);
    let list = |key: &str, items: &[Desc]| {
        let mut out = format!("{{\n{inner}{key}: [\n");
        for item in items {
            let deeper = " ".repeat(indent + 4);
            out.push_str(&format!("{deeper}{},\n", desc_at(item, indent + 4, indent + 4)));
        }
        out.push_str(&format!("{inner}],\n{pad}}}"));
        out
    };
    match desc {
        Desc::ArrayOf(item) => format!("{{\n{inner}arrayOf: {},\n{pad}}}", desc_at(item, indent + 2, indent + 2 + "arrayOf: ".len())),
        Desc::Tuple(items) => list("tuple", items),
        Desc::AnyOf(items) => list("anyOf", items),
        Desc::Object(parts) => format!("{{\n{inner}object: {},\n{pad}}}", fields_at(parts, indent + 2, indent + 2 + "object: ".len())),
        _ => inline,
    }
}

/// An object's fields starting at column `at` of a line indented by `indent`.
fn fields_at(parts: &[Part], indent: usize, at: usize) -> String {
    let inline = fields_inline(parts);
    if at + inline.len() < WIDTH {
        return inline;
    }
    let pad = " ".repeat(indent);
    let inner = " ".repeat(indent + 2);
    let mut out = String::from("{\n");
    for part in parts {
        let line = match part {
            Part::Field { key, desc, optional: false } => format!("{key}: {}", desc_at(desc, indent + 2, indent + 2 + key.len() + 2)),
            Part::Field { key, desc, optional: true } => {
                let at = indent + 2 + key.len() + 2 + "{ optional: ".len();
                let value = desc_inline(desc);
                if at + value.len() + 2 <= WIDTH {
                    format!("{key}: {{ optional: {value} }}")
                } else {
                    let deeper = " ".repeat(indent + 4);
                    format!("{key}: {{\n{deeper}optional: {},\n{inner}}}", desc_at(desc, indent + 4, indent + 4 + "optional: ".len()))
                }
            }
            Part::Spread(name) => format!("...{name}"),
        };
        out.push_str(&format!("{inner}{line},\n"));
    }
    out.push_str(&format!("{pad}}}"));
    out
}

/// A doc comment, wrapped at 100 columns.
fn doc_comment(doc: &str) -> String {
    if doc.len() + 8 <= 100 {
        return format!("/** {doc} */\n");
    }
    let mut out = String::from("/**\n");
    let mut line = String::new();
    for word in doc.split(' ') {
        if !line.is_empty() && line.len() + 1 + word.len() > 97 {
            out.push_str(&format!(" * {line}\n"));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(&format!(" * {line}\n */\n"));
    out
}

/// One named descriptor: `const NAME = … as const satisfies …;`, exported with its type when
/// `export`.
fn render_named(named: &Named, export: bool) -> String {
    let mut out = doc_comment(named.doc);
    let head = format!("{}const {} = ", if export { "export " } else { "" }, named.name);
    // What follows the descriptor on its last line counts towards the width too.
    let at = head.len() + " as const satisfies Fields;".len();
    match &named.shared {
        Shared::Desc(desc) => out.push_str(&format!("{head}{} as const satisfies Desc;\n", desc_at(desc, 0, at))),
        Shared::Fields(parts) => out.push_str(&format!("{head}{} as const satisfies Fields;\n", fields_at(parts, 0, at))),
    }
    if export {
        out.push_str(&format!("export type {0} = AnswerOf<typeof {0}>;\n", named.name));
    }
    out
}

fn render_answers() -> String {
    let mut out = String::new();
    out.push_str("// Generated from the Rust definitions (`src/answers.rs`) by `tests/wire_codes.rs` (`UPDATE_CODES=1\n");
    out.push_str("// cargo test --test wire_codes`); a test fails when this file and the Rust side differ. Do not edit\n");
    out.push_str("// by hand: change `src/answers.rs` with the code that builds the answer.\n//\n");
    out.push_str(ANSWERS_PREAMBLE);
    out.push_str("\n// ---- pieces several answers share ------------------------------------------------------------\n\n");
    for piece in answers::pieces() {
        out.push_str(&render_named(&piece, piece.name == "Refused"));
        out.push('\n');
    }
    out.push_str("// ---- the answers, by the core export that gives each ---------------------------------------------\n");
    out.push_str("//\n// For an engine, call or listing the TS layer does not hold, `read` and `end` answer `null` (the test\n");
    out.push_str("// checks that too); the answers below are what they say about one it holds.\n");
    for answer in answers::answers() {
        out.push('\n');
        out.push_str(&render_named(&answer, true));
    }
    out
}

#[test]
fn answers_ts_matches_the_rust_definitions() {
    check_generated("answers.ts", &render_answers());
}

/// Every piece an answer names is defined before it is used, and every spread names a field list.
#[test]
fn answer_pieces_are_defined_before_use() {
    fn check(desc: &Desc, known: &[Named]) {
        match desc {
            Desc::Piece(name) => assert!(known.iter().any(|p| p.name == *name && matches!(p.shared, Shared::Desc(_))), "{name} is not a descriptor defined before its use"),
            Desc::ArrayOf(item) => check(item, known),
            Desc::Tuple(items) | Desc::AnyOf(items) => items.iter().for_each(|item| check(item, known)),
            Desc::Object(parts) => parts.iter().for_each(|part| check_part(part, known)),
            _ => {}
        }
    }
    fn check_part(part: &Part, known: &[Named]) {
        match part {
            Part::Field { desc, .. } => check(desc, known),
            Part::Spread(name) => assert!(known.iter().any(|p| p.name == *name && matches!(p.shared, Shared::Fields(_))), "...{name} is not a field list defined before its use"),
        }
    }
    let mut known: Vec<Named> = Vec::new();
    for named in answers::pieces().into_iter().chain(answers::answers()) {
        match &named.shared {
            Shared::Desc(desc) => check(desc, &known),
            Shared::Fields(parts) => parts.iter().for_each(|part| check_part(part, &known)),
        }
        assert!(!known.iter().any(|p| p.name == named.name), "{} is named twice", named.name);
        known.push(named);
    }
}

/// `StepReport::from_code` indexes `StepReport::ALL`: the list must stay in code order, and every
/// code outside it must decode to nothing.
#[test]
fn outcomes_decode_by_index() {
    for (index, outcome) in StepReport::ALL.iter().enumerate() {
        assert_eq!(*outcome as usize, index, "{outcome:?} is out of order in StepReport::ALL");
        assert_eq!(StepReport::from_code(index as u32), Some(*outcome));
    }
    assert_eq!(StepReport::from_code(StepReport::ALL.len() as u32), None);
    assert_eq!(StepReport::from_code(u32::MAX), None);
}
