//! `openapi.yaml` says what the API checks, so that a client (or a fuzzer) generating values
//! from the document sends only values the API accepts: the `pattern` of a display name, of a
//! ban's reason and of an email address are built here from the rules the store applies
//! (`names::is_unprintable`, `char::is_control`, `char::is_whitespace`) and must be the
//! document's, character for character (a display name's up to U+FFFF). Each operation's
//! security says who may call it, as the template's authorizer and the functions decide, and
//! each answer names the headers it carries (CORS, Retry-After).

use crate::support;

use std::collections::BTreeMap;

use leaderboard_local::template::{Auth, LocalTemplate};
use leaderboard_store::names::{BLANK_LOOKING, is_unprintable};
use serde_yaml::Value;

/// The characters `excluded` refuses, as the inside of a regex class: each run of them as its
/// first and last characters themselves (`a-b`), so the one pattern reads the same in ECMA
/// (with the `u` flag), Python and Rust regexes, which spell escapes of astral characters
/// differently.
fn class_of(excluded: impl Fn(char) -> bool) -> String {
    let mut class = String::new();
    let mut run: Option<(char, char)> = None;
    let flush = |run: Option<(char, char)>, class: &mut String| {
        if let Some((lo, hi)) = run {
            class.push(lo);
            if hi != lo {
                class.push('-');
                class.push(hi);
            }
        }
    };
    for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
        match run {
            _ if !excluded(c) => flush(run.take(), &mut class),
            Some((lo, hi)) if u32::from(hi) + 1 == u32::from(c) => run = Some((lo, c)),
            _ => {
                flush(run.take(), &mut class);
                run = Some((c, c));
            }
        }
    }
    flush(run, &mut class);
    class
}

/// `pattern` as a YAML double-quoted scalar, every character outside printable ASCII escaped:
/// what to paste into openapi.yaml when the rules change.
fn yaml_quoted(pattern: &str) -> String {
    let mut out = String::from("\"");
    for c in pattern.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            ' '..='~' => out.push(c),
            c if u32::from(c) <= 0xFF => out.push_str(&format!("\\x{:02X}", u32::from(c))),
            c if u32::from(c) <= 0xFFFF => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push_str(&format!("\\U{:08X}", u32::from(c))),
        }
    }
    out.push('"');
    out
}

/// Text of `allowed` characters with at least one that is not white space (what "not only
/// white space" means once trimmed).
fn text_pattern(excluded: &str) -> String {
    format!("^[^{excluded}]*[^{excluded}\\s][^{excluded}]*$")
}

fn assert_pattern(schema: &Value, expected: &str, what: &str) {
    let documented = schema["pattern"].as_str().unwrap_or_default();
    assert!(
        documented == expected,
        "{what}'s pattern in openapi.yaml is not the API's rule; it should be:\n  pattern: {}",
        yaml_quoted(expected)
    );
}

/// A display name (a board's, a profile's): printable text, not only white space. The
/// characters it refuses past U+FFFF (tag characters, a few format controls) are left to the
/// schema's description: Schemathesis cannot draw strings outside a class that holds them.
fn display_name_pattern() -> String {
    text_pattern(&class_of(|c| {
        c <= '\u{FFFF}' && (is_unprintable(c) || BLANK_LOOKING.contains(&c))
    }))
}

/// A ban's reason: no control characters, not only white space.
fn reason_pattern() -> String {
    text_pattern(&class_of(char::is_control))
}

/// An email address: one `@` between a local part and a domain that neither starts nor ends
/// with `.`, none of `#`, `/`, white space or control characters.
fn email_pattern() -> String {
    let not = class_of(|c| c.is_control() || "#/@".contains(c));
    format!("^[^{not}\\s]+@[^{not}\\s.]([^{not}\\s]*[^{not}\\s.])?$")
}

#[test]
fn the_documents_patterns_are_the_apis_rules() {
    let doc = support::openapi();
    let schemas = &doc["components"]["schemas"];
    assert_pattern(
        &schemas["DisplayName"],
        &display_name_pattern(),
        "DisplayName",
    );
    assert_pattern(
        &schemas["BanRequest"]["properties"]["reason"],
        &reason_pattern(),
        "BanRequest.reason",
    );
    assert_pattern(&schemas["Email"], &email_pattern(), "Email");
}

#[test]
fn the_patterns_accept_and_refuse_what_the_rules_do() {
    let name = regex::Regex::new(&display_name_pattern()).unwrap();
    for ok in ["Zoë", "  Alice  ", "❤ fan", "a b"] {
        assert!(name.is_match(ok), "{ok:?}");
    }
    for bad in [
        "",
        "   ",
        "a\u{0}b",
        "Alice\u{202e}evil",
        "\u{3164}",
        "a\u{200b}",
        "\u{3000}",
    ] {
        assert!(!name.is_match(bad), "{bad:?}");
    }
    let reason = regex::Regex::new(&reason_pattern()).unwrap();
    assert!(reason.is_match("cheating: 3 impossible runs"));
    for bad in ["", " \u{a0} ", "line\nbreak", "a\u{7f}"] {
        assert!(!reason.is_match(bad), "{bad:?}");
    }
    let email = regex::Regex::new(&email_pattern()).unwrap();
    for ok in ["a@b", "zoë+x@mail.example.com", "A.B@c.d"] {
        assert!(email.is_match(ok), "{ok:?}");
        assert!(leaderboard_keys::ids::Email::parse(ok).is_ok(), "{ok:?}");
    }
    for bad in [
        "",
        "@b",
        "a@",
        "a@.b",
        "a@b.",
        "a@b@c",
        "a b@c",
        "a/b@c",
        "a#b@c",
        "a@b\u{85}",
    ] {
        assert!(!email.is_match(bad), "{bad:?}");
        assert!(leaderboard_keys::ids::Email::parse(bad).is_err(), "{bad:?}");
    }
}

/// Who may call an operation: no one signed in (`security: []`), or one of the document's
/// schemes for a player, an admin or a game server.
#[test]
fn each_operation_names_who_may_call_it() {
    let doc = support::openapi();
    let template = LocalTemplate::from_repo().unwrap();
    let open: BTreeMap<String, bool> = template
        .routes
        .iter()
        .map(|r| (r.route_key(), r.auth == Auth::None))
        .collect();
    for (path, ops) in doc["paths"].as_mapping().unwrap() {
        for (method, op) in ops.as_mapping().unwrap() {
            let key = format!(
                "{} {}",
                method.as_str().unwrap().to_ascii_uppercase(),
                path.as_str().unwrap()
            );
            let Some(&anonymous) = open.get(&key) else {
                continue;
            };
            // An operation without its own takes the document's (`security: []`, anyone).
            let security = match &op["security"] {
                Value::Null => &doc["security"],
                own => own,
            };
            let schemes: Vec<&str> = security
                .as_sequence()
                .unwrap_or_else(|| panic!("{key}: no security"))
                .iter()
                .flat_map(|s| s.as_mapping().unwrap().keys())
                .map(|k| k.as_str().unwrap())
                .collect();
            if anonymous {
                assert!(schemes.is_empty(), "{key} is open to anyone: {schemes:?}");
                continue;
            }
            assert!(!schemes.is_empty(), "{key} needs a token: say whose");
            for scheme in schemes {
                assert!(
                    ["player", "admin", "server"].contains(&scheme),
                    "{key}: {scheme}"
                );
                assert!(
                    !doc["components"]["securitySchemes"][scheme].is_null(),
                    "{key}: {scheme} is not a security scheme"
                );
            }
        }
    }
}

/// Every answer of every operation says the CORS headers it carries to a listed origin, and a
/// 429's and a 503's say their Retry-After.
#[test]
fn each_answer_names_its_headers() {
    let doc = support::openapi();
    for (path, ops) in doc["paths"].as_mapping().unwrap() {
        for (method, op) in ops.as_mapping().unwrap() {
            for (status, answer) in op["responses"].as_mapping().unwrap() {
                let answer = match answer["$ref"].as_str() {
                    Some(r) => &doc["components"]["responses"][r.rsplit('/').next().unwrap()],
                    None => answer,
                };
                let what = format!("{method:?} {path:?} {status:?}");
                let headers = &answer["headers"];
                for name in [
                    "Access-Control-Allow-Origin",
                    "Access-Control-Expose-Headers",
                ] {
                    assert!(!headers[name].is_null(), "{what}: no {name}");
                }
                if ["429", "503"].contains(&status.as_str().unwrap()) {
                    assert!(!headers["Retry-After"].is_null(), "{what}: no Retry-After");
                }
            }
        }
    }
}
