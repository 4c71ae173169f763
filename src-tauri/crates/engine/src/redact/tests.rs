//! The catalog checks itself: every rule catches its example whole (plain, after a newline, in a
//! `.env` line, inside decoded JSON) and leaves its near-miss alone, and nothing benign changes.

use serde_json::json;

use super::*;

fn redact(text: &str) -> (String, Redactions) {
    let mut found = Redactions::default();
    let out = Redactor::catalog().unwrap().text(text, "test", &mut found);
    (out, found)
}

#[test]
fn every_rule_catches_its_example_whole_and_spares_its_near_miss() {
    let rules = catalog().unwrap();
    assert!(rules.len() >= 45, "{} rules", rules.len());
    let redactor = Redactor::catalog().unwrap();
    for rule in &rules {
        let at = rule.example.find(&rule.secret).unwrap_or_else(|| panic!("{}: secret not in example", rule.kind));
        let (before, after) = (&rule.example[..at], &rule.example[at + rule.secret.len()..]);
        for (lead, tail) in [("", ""), ("line\n", "\n")] {
            let text = format!("{lead}{}", rule.example) + tail;
            let mut found = Redactions::default();
            let out = redactor.text(&text, "example", &mut found);
            assert!(!out.contains(&rule.secret), "{}: {:?} left the secret in {out:?}", rule.kind, rule.example);
            assert!(
                out.starts_with(&format!("{lead}{before}")) && out.ends_with(&format!("{after}{tail}")),
                "{}: more than the secret changed: {out:?}",
                rule.kind
            );
            assert_eq!(found.total(), 1, "{}: {out:?}", rule.kind);
        }
        // Inside tool-call arguments: the secret written into a file after a JSON `\n` escape.
        let arguments = json!({"path": ".env", "content": format!("A=1\n{}\n", rule.example)}).to_string();
        let mut found = Redactions::default();
        let out = redactor.decoded(&arguments, "arguments", &mut found);
        assert!(!out.contains(&rule.secret) && found.total() >= 1, "{}: {out}", rule.kind);
        let (near, near_found) = redact(&rule.near_miss);
        assert_eq!(
            (near.as_str(), near_found.total()),
            (rule.near_miss.as_str(), 0),
            "{}: near-miss changed",
            rule.kind
        );
    }
}

#[test]
fn the_reported_escapes_are_closed() {
    let cases = [
        // `_` before `-` in the key: caught whole.
        ("sk-ant-api03-FAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE-FAKEAA", "anthropic_api_key"),
        ("sk-proj-AbCdEf0123456789ghijKLMNopqrstUV_FAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE", "api_key"),
        ("postgres://admin:FakePgPass1@db.internal:5432/prod", "url_password"),
        ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_key"),
    ];
    for (text, kind) in cases {
        let (out, found) = redact(text);
        assert!(found.by_kind.contains_key(kind), "{text}: {out} {found:?}");
        assert!(
            !out.contains("FAKE") && !out.contains("EXAMPLEKEY") && !out.contains("FakePgPass1"),
            "{text} -> {out}"
        );
    }
}

#[test]
fn benign_text_stays() {
    for text in [
        "commit 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "session 01a22d92-df3a-72a1-bd0b-7184d9a4858e",
        "let api_key = config.api_key;",
        "    password: String,",
        "API_KEY=${API_KEY}",
        "MAX_TOKENS=4096",
        "the task-manager skips ask-me and disk-usage",
        "[REDACTED:api_key] stays as it is",
        "https://example.com/path?x=1",
    ] {
        let (out, found) = redact(text);
        assert_eq!((out.as_str(), found.total()), (text, 0));
    }
}

#[test]
fn extra_patterns_are_redacted_and_unmarked_texts_kept() {
    let redactor = Redactor::new(
        &["internal-host-42".into(), "/ticket-[0-9]+/".into()],
        &["ghp_0123456789abcdefghijABCDEFGHIJ012345".into()],
    )
    .unwrap();
    let mut found = Redactions::default();
    let out = redactor.text(
        "see internal-host-42 and ticket-981; ghp_0123456789abcdefghijABCDEFGHIJ012345 is a fixture",
        "message 3",
        &mut found,
    );
    assert_eq!(out, "see [REDACTED:extra] and [REDACTED:extra]; ghp_0123456789abcdefghijABCDEFGHIJ012345 is a fixture");
    assert_eq!(
        found.findings[0],
        Finding { kind: "extra".into(), at: "message 3".into(), preview: "inte… (16 chars)".into() }
    );
    assert!(Redactor::new(&["/([/".into()], &[]).is_err(), "a bad pattern is refused, not ignored");
}

#[test]
fn json_strings_and_nested_documents_are_redacted_and_counted() {
    let mut value = json!({
        "a": ["x sk-abcdefghijklmnopqrstuvwxyz0123", {"b": "API_KEY=abcdef123"}],
        "args": "{\"content\":\"line\\nghp_0123456789abcdefghijABCDEFGHIJ012345\\n\"}",
        "n": 3
    });
    let mut found = Redactions::default();
    Redactor::catalog().unwrap().json(&mut value, "doc", &mut found);
    assert_eq!(value["a"][0], "x [REDACTED:api_key]");
    assert!(value["a"][1]["b"].as_str().unwrap().contains("[REDACTED:secret_assignment]"));
    let args: serde_json::Value = serde_json::from_str(value["args"].as_str().unwrap()).unwrap();
    assert_eq!(args["content"], "line\n[REDACTED:github_token]\n");
    assert_eq!(found.total(), 3, "{found:?}");
    assert!(found.findings.iter().all(|f| !f.preview.contains("abcdefghij")), "{found:?}");
}
