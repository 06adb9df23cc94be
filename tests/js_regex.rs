//! Integration tests for the JS RegExp → regex-lite translation.

// Tests may panic on failure; the no-panic rule applies to the library only.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use webmcp_warden::js_regex::{translate, JsRegex, RegexError};

fn is_match(source: &str, flags: &str, haystack: &str) -> bool {
    match JsRegex::new(source, flags) {
        Ok(re) => re.is_match(haystack),
        Err(e) => panic!("/{source}/{flags} failed to compile: {e}"),
    }
}

fn err(source: &str, flags: &str) -> RegexError {
    match JsRegex::new(source, flags) {
        Ok(_) => panic!("/{source}/{flags} compiled but should have been rejected"),
        Err(e) => e,
    }
}

fn code(source: &str, flags: &str) -> &'static str {
    err(source, flags).code
}

/// (source, flags, haystack, expected): expected values were produced by running each row
/// through `new RegExp(source, flags).test(haystack)` in Node 20 (one-off script, not at test time).
#[rustfmt::skip]
const TABLE: &[(&str, &str, &str, bool)] = &[
    ("^[a-z]+$", "", "hello", true),
    ("^[a-z]+$", "", "Hello", false),
    ("^[a-z]+$", "i", "Hello", true),
    ("^a.c$", "", "a\u{A}c", false),
    ("^a.c$", "", "a\u{D}c", false),
    ("^a.c$", "", "a\u{2028}c", false),
    ("^a.c$", "s", "a\u{A}c", true),
    ("^a.c$", "", "abc", true),
    ("^\\s$", "", "\u{A0}", true),
    ("^\\s$", "", "\u{FEFF}", true),
    ("^\\s$", "", "\u{3000}", true),
    ("^\\S$", "", "\u{2003}", false),
    ("^\\s+$", "", " \u{9}\u{A}\u{B}\u{C}\u{D}", true),
    ("^\\w+$", "", "abc_123", true),
    ("^\\w$", "", "\u{E9}", false),
    ("\\bfoo\\b", "", "a foo b", true),
    ("\\bfoo\\b", "", "afoob", false),
    ("\\Boo\\B", "", "afoob", true),
    ("^\\d{3}$", "", "123", true),
    ("^\\d{3}$", "", "\u{661}\u{662}\u{663}", false),
    ("^a$", "m", "x\u{A}a\u{A}y", true),
    ("^a$", "", "x\u{A}a\u{A}y", false),
    ("^a$", "m", "x\u{D}a\u{D}y", true),
    ("a$", "m", "a\u{D}\u{A}b", true),
    ("^b$", "m", "a\u{D}\u{A}b", true),
    ("^b", "y", "ab", false),
    ("b", "y", "ab", false),
    ("^b", "my", "a\u{A}b", false),
    ("a", "y", "ab", true),
    ("a", "g", "ba", true),
    ("a", "dg", "ba", true),
    ("^\\x41\\u0042$", "", "AB", true),
    ("^\\uD83D\\uDE00$", "", "\u{1F600}", true),
    ("^\\u{1F600}$", "u", "\u{1F600}", true),
    ("^\\u{2}$", "", "uu", true),
    ("^\\u{61}$", "", "a", false),
    ("^a\\/b\\.c\\-d$", "", "a/b.c-d", true),
    ("^a{$", "", "a{", true),
    ("^x{1,a}$", "", "x{1,a}", true),
    ("^a]}$", "", "a]}", true),
    ("^a{2,3}$", "", "aaaa", false),
    ("^a{2,}$", "", "aaaa", true),
    ("^a+?b$", "", "aaab", true),
    ("^(?:ab)+$", "", "ababab", true),
    ("^(?<word>[a-z]+)-\\d$", "", "abc-1", true),
    ("^cat|dog$", "", "hotdog", true),
    ("^[[]$", "", "[", true),
    ("^[a&&b]+$", "", "&&ab", true),
    ("^[~~]+$", "", "~", true),
    ("^[-a-]+$", "", "-a", true),
    ("^[\\b]$", "", "\u{8}", true),
    ("^[^]$", "", "\u{A}", true),
    ("[]", "", "anything", false),
    ("^[^]*$", "", "", true),
    ("^[\\d\\s]+$", "", "1 2\u{A0}3", true),
    ("^[^\\s]+$", "", "a\u{A0}", false),
    ("^[\\w-z]+$", "", "a-z", true),
    ("^[\\S]$", "", "x", true),
    ("^[^\\S]$", "", "\u{2029}", true),
    ("^\\cJ$", "", "\u{A}", true),
    ("^\\0$", "", "\u{0}", true),
    ("^[\\101]$", "", "A", true),
    ("^\\a\\e$", "", "ae", true),
    ("^\\c$", "", "\\c", true),
    ("^[\\c1]$", "", "\u{11}", true),
    ("^\u{E9}$", "i", "\u{C9}", true),
    ("^[^a]$", "i", "A", false),
    ("^\\W$", "i", "k", false),
    ("^(a+)+$", "", "aaaa!", false),
    ("^$", "", "", true),
    ("(?:)", "", "x", true),
    ("a|", "", "", true),
    ("^\\p$", "", "p", true),
    ("^\\k$", "", "k", true),
    ("^[.]$", "", "x", false),
    ("^\\^\\$$", "", "^$", true),
    ("^[\\-]$", "u", "-", true),
    ("^\\x4$", "", "x4", true),
    ("^\\08$", "", "\u{0}8", true),
    ("^.$", "u", "\u{1F600}", true),
    ("^a\\s*b$", "", "a \u{2028} b", true),
    ("^A$", "i", "a", true),
    ("^[A-Z]+$", "i", "abc", true),
    ("^\\u0041$", "i", "a", true),
    ("colou?r", "", "The color", true),
    ("^[^\\d]$", "", "5", false),
    ("^a{0}$", "", "", true),
    ("^(?:a|b)*c$", "", "ababc", true),
    ("x*", "", "", true),
    ("^ $", "", " ", true),
    ("^#\\s$", "", "# ", true),
    ("^a\\nb$", "", "a\u{A}b", true),
    ("^[\\u00e0-\\u00ff]+$", "", "\u{E0}\u{FF}", true),
    ("^[\u{1F600}]$", "u", "\u{1F600}", true),
    ("^[a-c]{2}$", "v", "cb", true),
    ("^\\{\\}$", "u", "{}", true),
    ("^[\u{E9}-\u{EB}]$", "i", "\u{CA}", true),
    ("^\u{3C3}$", "i", "\u{3C2}", true),
    ("^s$", "iu", "\u{17F}", true),
    ("^s$", "i", "\u{17F}", false),
    ("^\\w$", "iu", "K", true),
    ("^[^k]$", "iu", "K", false),
    ("^\u{DF}$", "i", "\u{1E9E}", false),
    ("^\u{DF}$", "iu", "\u{1E9E}", true),
    ("^[\\W]$", "iu", "\u{17F}", false),
    ("^\\W$", "iu", "s", false),
    ("^[\u{C0}-\u{DE}]+$", "i", "\u{E0}\u{E9}\u{FE}", true),
];

#[test]
fn table_matches_javascript() {
    let mut failures = Vec::new();
    for &(source, flags, haystack, expected) in TABLE {
        let got = is_match(source, flags, haystack);
        if got != expected {
            failures.push(format!("/{source}/{flags}.test({haystack:?}): JS {expected}, core {got}"));
        }
    }
    assert!(TABLE.len() >= 40);
    assert!(failures.is_empty(), "mismatches:\n{}", failures.join("\n"));
}

#[test]
fn nested_quantifier_stays_linear() {
    let re = JsRegex::new("^(a+)+$", "").unwrap();
    let hostile = "a".repeat(50_000) + "!";
    assert!(!re.is_match(&hostile));
    assert!(re.is_match(&"a".repeat(50_000)));
}

#[test]
fn accessors_keep_the_original() {
    let re = JsRegex::new(r"^\/api\/", "gi").unwrap();
    assert_eq!(re.source(), r"^\/api\/");
    assert_eq!(re.flags(), "gi");
}

#[test]
fn flags_translate() {
    assert_eq!(translate("a", "i").unwrap(), "(?i)a");
    assert_eq!(translate("a", "gd").unwrap(), "a");
    assert_eq!(translate("a", "y").unwrap(), r"\A(?:a)");
    assert_eq!(translate("^a$", "").unwrap(), r"\Aa\z");
    assert!(translate("a", "my").unwrap().starts_with(r"\A(?:"));
    assert!(translate("a", "u").is_ok());
    assert!(translate("a", "v").is_ok());
    assert!(translate("a", "s").is_ok());
}

#[test]
fn sticky_anchors_at_start_even_with_multiline() {
    assert!(is_match("a", "y", "abc"));
    assert!(!is_match("b", "y", "abc"));
    assert!(!is_match("^b", "my", "a\nb"));
    assert!(is_match("^b", "m", "a\nb"));
}

#[test]
fn dot_excludes_js_line_terminators() {
    for hay in ["\n", "\r", "\u{2028}", "\u{2029}"] {
        assert!(!is_match("^.$", "", hay), "{hay:?}");
        assert!(is_match("^.$", "s", hay), "{hay:?}");
    }
    assert!(is_match("^.$", "", "\u{85}"));
}

#[test]
fn whitespace_is_unicode_aware() {
    for ws in [
        "\t", "\n", "\u{B}", "\u{C}", "\r", " ", "\u{A0}", "\u{1680}", "\u{2000}", "\u{200A}", "\u{2028}", "\u{2029}",
        "\u{202F}", "\u{205F}", "\u{3000}", "\u{FEFF}",
    ] {
        assert!(is_match(r"^\s$", "", ws), "{ws:?}");
        assert!(!is_match(r"^\S$", "", ws), "{ws:?}");
        assert!(is_match(r"^[\s]$", "", ws), "{ws:?}");
        assert!(!is_match(r"^[^\s]$", "", ws), "{ws:?}");
    }
    assert!(!is_match(r"^\s$", "", "\u{200B}"));
}

#[test]
fn word_and_digit_are_ascii() {
    assert!(!is_match(r"^\w$", "", "é"));
    assert!(is_match(r"^\W$", "", "é"));
    assert!(!is_match(r"^\d$", "", "٣"));
    assert!(!is_match(r"é\b", "", "é"));
    assert!(is_match(r"\bé", "", "aé"));
}

#[test]
fn escapes() {
    assert!(is_match(r"^\t\n\v\f\r$", "", "\t\n\u{B}\u{C}\r"));
    assert!(is_match(r"^\0$", "", "\0"));
    assert!(is_match(r"^\cI\ca$", "", "\t\u{1}"));
    assert!(is_match(r"^\x7e\u00E9$", "", "~é"));
    assert!(is_match(r"^\uD83D\uDE00$", "", "😀"));
    assert!(is_match(r"^\u{1F600}$", "u", "😀"));
    assert!(is_match(r"^\/\.\-\*\{$", "", "/.-*{"));
    assert_eq!(translate(r"\/", "").unwrap(), r"\x{2F}");
}

#[test]
fn literal_braces_and_brackets_without_u() {
    assert!(is_match("^a{$", "", "a{"));
    assert!(is_match("^x{1,a}$", "", "x{1,a}"));
    assert!(is_match("^]}$", "", "]}"));
    assert!(!is_match(r"^\b{$", "", "{"));
    assert!(is_match(r"a\b{", "", "a{"));
}

#[test]
fn quantifiers() {
    assert!(is_match("^a{3}$", "", "aaa"));
    assert!(!is_match("^a{3}$", "", "aa"));
    assert!(is_match("^a{2,}$", "", "aaaaa"));
    assert!(is_match("^a{1,2}?b$", "", "aab"));
    assert!(is_match("^a*?$", "", "aaa"));
    // Valid JS, but the repetition alone exceeds the engine's size limit (and fails fast).
    assert_eq!(code("^(?:){4294967295}$", ""), "too_complex");
}

#[test]
fn classes() {
    assert!(is_match("^[[]$", "", "["));
    assert!(is_match("^[&&~~a-]+$", "", "a&~-"));
    assert!(is_match(r"^[\c]+$", "", "c\\"));
    assert!(is_match(r"^[\c_]$", "", "\u{1F}"));
    assert!(is_match(r"^[\b]$", "", "\u{8}"));
    assert!(is_match("^[^]$", "", "\n"));
    assert!(!is_match("[]", "", "anything at all"));
    assert!(!is_match("[]", "", ""));
    assert!(is_match("^a[]|b$", "", "b"));
    assert!(is_match(r"^[\w-]+$", "", "a-b_c"));
    assert!(is_match(r"^[^\d\s]$", "", "x"));
    assert!(!is_match(r"^[^\d\s]$", "", "\u{A0}"));
    assert!(is_match(r"^[\u00e9-\u00ea]$", "", "ê"));
    assert!(is_match(r"^[\uD83D\uDE00]$", "u", "😀"));
    assert!(is_match(r"^[😀-😂]$", "u", "😁"));
}

#[test]
fn case_insensitivity() {
    assert!(is_match("^abc$", "i", "AbC"));
    assert!(is_match("^[a-z]+$", "i", "XYZ"));
    assert!(!is_match("^[^x]$", "i", "X"));
    assert!(is_match("^é$", "i", "É"));
    assert!(is_match("^[é]$", "i", "É"));
    assert!(!is_match("^ı$", "i", "I"));
}

#[test]
fn multiline_anchors() {
    assert!(is_match("^b$", "m", "a\nb\nc"));
    assert!(is_match("^b$", "m", "a\rb\rc"));
    assert!(is_match("^b$", "m", "a\r\nb\r\nc"));
    assert!(is_match("a$", "m", "a\r\n"));
    assert!(!is_match("^b$", "", "a\nb\nc"));
    assert!(!is_match("a$", "", "a\n"));
}

#[test]
fn groups_become_non_capturing() {
    assert_eq!(translate("(a)(?:b)(?<n>c)", "").unwrap(), "(?:a)(?:b)(?:c)");
    assert!(is_match("^(?<year>\\d{4})-(?<month>\\d{2})$", "", "2024-05"));
    assert!(is_match("^(?<$x_1>a)$", "", "a"));
}

#[test]
fn error_lookaround() {
    let e = err("a(?=b)", "");
    assert_eq!(e.code, "unsupported_lookaround");
    assert_eq!(e.message, "look-ahead \"(?=\" at offset 1 is not supported by the core's linear-time regex engine");
    assert_eq!(code("(?!b)", ""), "unsupported_lookaround");
    assert_eq!(code("(?<=b)", ""), "unsupported_lookaround");
    assert_eq!(code("x(?<!b)", ""), "unsupported_lookaround");
    assert!(err("(?<!b)", "").message.contains("negative look-behind"));
}

#[test]
fn error_backreference() {
    assert_eq!(code(r"(a)\1", ""), "unsupported_backreference");
    assert_eq!(code(r"\9", ""), "unsupported_backreference");
    assert_eq!(code(r"(?<n>a)\k<n>", ""), "unsupported_backreference");
    assert_eq!(code(r"\k<n>", "u"), "unsupported_backreference");
    assert!(err(r"(a)\1", "").message.contains("offset 3"));
    assert_eq!(
        err(r"(?<n>a)\k<n>", "").message,
        "named backreference \"\\k<n>\" at offset 7 is not supported by the core's linear-time regex engine"
    );
    // Without named groups or `u`, Annex B reads `\k` as a literal `k`.
    assert!(is_match(r"^\k<n>$", "", "k<n>"));
}

#[test]
fn error_unicode_property() {
    assert_eq!(code(r"\p{L}", "u"), "unsupported_unicode_property");
    assert_eq!(code(r"\P{Lu}", "v"), "unsupported_unicode_property");
    assert_eq!(code(r"[\p{L}]", "u"), "unsupported_unicode_property");
    assert_eq!(code(r"\p{L}", ""), "unsupported_unicode_property");
    assert!(err(r"a\p{Script=Greek}", "u")
        .message
        .starts_with("Unicode property escape \"\\p{Script=Greek}\" at offset 1 "));
    assert!(is_match(r"^\p$", "", "p"));
}

#[test]
fn error_flags() {
    assert_eq!(code("a", "x"), "unsupported_flag");
    assert_eq!(code("a", "gim!"), "unsupported_flag");
    assert_eq!(code("a", "gg"), "invalid_pattern");
    assert_eq!(code("a", "uv"), "invalid_pattern");
}

#[test]
fn error_lone_surrogate() {
    assert_eq!(code(r"\uD800", ""), "lone_surrogate");
    assert_eq!(code(r"\uDE00\uD83D", ""), "lone_surrogate");
    assert_eq!(code(r"[\uDC00]", ""), "lone_surrogate");
    assert_eq!(code(r"[a-\uDFFF]", ""), "lone_surrogate");
    assert_eq!(code(r"\u{D800}", "u"), "lone_surrogate");
    assert_eq!(code(r"\uD83D\u{DE00}", "u"), "lone_surrogate");
    // Without `u`, JS sees astral characters as two halves in classes and under quantifiers.
    assert_eq!(code(r"[\uD83D\uDE00]", ""), "lone_surrogate");
    assert_eq!(code("[😀]", ""), "lone_surrogate");
    assert_eq!(code("😀+", ""), "lone_surrogate");
    assert_eq!(code(r"\uD83D\uDE00{2}", ""), "lone_surrogate");
    assert!(err("a😀?", "").message.contains("offset 1"));
    assert!(is_match("^😀+$", "u", "😀😀"));
    assert!(is_match("^(?:😀)+$", "", "😀😀"));
}

#[test]
fn error_invalid_pattern() {
    for (source, flags) in [
        ("a**", ""),
        ("{2}", ""),
        ("a{2,1}", ""),
        ("(?<1a>x)", ""),
        ("(?<a>x)(?<a>y)", ""),
        ("a)", ""),
        ("(a", ""),
        ("[a", ""),
        ("\\", ""),
        ("[z-a]", ""),
        (r"\u{110000}", "u"),
        (r"\x", "u"),
        ("{", "u"),
        ("]", "u"),
        ("}", "u"),
        (r"[\w-z]", "u"),
        (r"\c", "u"),
        (r"\01", "u"),
        ("(?i:a)", ""),
        ("[a-]", "v"),
        ("[(]", "v"),
        ("^*", ""),
        (r"\b+", ""),
        ("a{2}{3}", ""),
        ("a*??", ""),
        (r"[\k]", "u"),
        (r"(?<a>.)\k", "y"),
        (r"\a", "u"),
        (r"\-", "u"),
        (r"[\w--\d]", "v"),
        ("[[a]]", "v"),
        (r"[\q{abc}]", "v"),
        ("[a&&b]", "v"),
    ] {
        let e = err(source, flags);
        assert!(
            e.code == "invalid_pattern" || (source == r"(?<a>.)\k" && e.code == "unsupported_backreference"),
            "/{source}/{flags}: {e}"
        );
    }
}

#[test]
fn error_pattern_too_long() {
    assert!(JsRegex::new(&"a".repeat(4096), "").is_ok());
    let e = err(&"a".repeat(4097), "");
    assert_eq!(e.code, "pattern_too_long");
    assert_eq!(translate(&"é".repeat(4097), "").unwrap_err().code, "pattern_too_long");
}

#[test]
fn error_too_complex() {
    let deep = "(".repeat(150) + &")".repeat(150);
    assert_eq!(code(&deep, ""), "too_complex");
    assert_eq!(code(r"\s{100000}", ""), "too_complex");
    assert_eq!(code("a{4294967296}", ""), "too_complex");
    assert_eq!(code("(?:a{1000}){1000}", ""), "too_complex");
}

#[test]
fn error_display() {
    let e = err("(?=x)", "");
    let shown = e.to_string();
    assert!(shown.starts_with("unsupported_lookaround: look-ahead"), "{shown}");
    let boxed: Box<dyn std::error::Error> = Box::new(e);
    assert!(boxed.to_string().contains("offset 0"));
}
