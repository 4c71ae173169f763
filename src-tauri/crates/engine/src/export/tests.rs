//! Every format shows the same redacted session: secrets in user text, escaped tool arguments,
//! results, the title; a PEM key crossing the Markdown shortening is gone whole; the HTML page
//! fetches nothing and escapes what it shows.

use serde_json::json;

use super::*;
use crate::store::sessions::append_message;
use crate::transcript::{NewMessage, ToolCall};

const PEM_LINE: &str = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7FAKEFAKEFAKEFAKEFAKE";

fn session_with_secrets() -> (tempfile::TempDir, Store, Session) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("s.db")).unwrap();
    let session = store.create_session("/w", "deploy with ghp_0123456789abcdefghijABCDEFGHIJ012345").unwrap();
    let pem = format!("-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----", vec![PEM_LINE; 80].join("\n"));
    let call = ToolCall {
        id: "c1".into(),
        name: "write_file".into(),
        arguments: json!({"path": ".env", "content": "X=1\nSLACK=xoxb-1234567890-0987654321-AbCdEfGhIjKl\n"})
            .to_string(),
    };
    store
        .write(|tx| {
            append_message(tx, &session.id, &NewMessage::user("my key is sk-ant-api03-FAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE-FAKEAA <script>alert(1)</script>"))?;
            append_message(tx, &session.id, &NewMessage::assistant("writing", vec![call.clone()], None))?;
            append_message(tx, &session.id, &NewMessage::tool_result("c1", format!("wrote\n{pem}\ndone")))?;
            Ok(())
        })
        .unwrap();
    (dir, store, session)
}

#[test]
fn every_format_is_redacted_before_anything_is_cut() {
    let (_dir, store, session) = session_with_secrets();
    let redactor = Redactor::catalog().unwrap();
    for format in [ExportFormat::Markdown, ExportFormat::Json, ExportFormat::Html] {
        let exported = document(&store, &session, format, Some(&redactor)).unwrap();
        for secret in ["ghp_0123456789", "sk-ant-api03-FAKE", "xoxb-1234567890", PEM_LINE] {
            assert!(!exported.text.contains(secret), "{format:?} leaks {secret}");
        }
        let found = exported.redactions.unwrap();
        assert_eq!(found.total(), 4, "{format:?}: {found:?}");
        let places: Vec<&str> = found.findings.iter().map(|f| f.at.as_str()).collect();
        assert!(
            places.contains(&"session title") && places.contains(&"message 2, tool call c1 arguments"),
            "{places:?}"
        );
        assert!(exported.text.contains("[REDACTED:private_key]"), "{format:?}");
    }
}

#[test]
fn the_html_page_is_self_contained_and_escaped() {
    let (_dir, store, session) = session_with_secrets();
    let page = document(&store, &session, ExportFormat::Html, None).unwrap().text;
    assert!(page.starts_with("<!doctype html>") && page.contains("<style>") && page.contains("</html>"));
    assert!(!page.contains("<script>alert(1)</script>"), "message text is escaped");
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    for fetch in ["src=\"http", "href=\"http", "@import", "url("] {
        assert!(!page.contains(fetch), "the page fetches {fetch}");
    }
    assert!(page.contains("<details><summary>"), "the long key output is folded");
}
