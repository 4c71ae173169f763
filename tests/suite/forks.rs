//! Fork and compare through the real binary: a fork of each agent's corpus session runs a
//! turn whose first request holds exactly what the model saw after the fork point; the source's
//! rows are the same before and after; `sessions diff` reports the shared prefix and where the
//! two first differ.

use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::{json, Value};

use super::support::{Answer, Harness, Reply};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/import")
}

/// Everything the store holds for `session`, as text: the fork must leave it byte for byte.
fn rows_of(h: &Harness, session: &str) -> String {
    let tables = [
        ("sessions", "id"),
        ("messages", "session_id"),
        ("compactions", "session_id"),
        ("model_calls", "session_id"),
        ("tool_calls", "session_id"),
    ];
    let dump: Vec<String> = tables
        .iter()
        .map(|(table, key)| {
            format!("{table}: {:?}", h.rows(&format!("SELECT * FROM {table} WHERE {key} = '{session}'")))
        })
        .collect();
    dump.join("\n")
}

async fn json_of(h: &Harness, args: &[&str]) -> Value {
    let mut args = args.to_vec();
    args.push("--json");
    h.alisio(&args).await.assert_ok().json()
}

/// The conversation items of a request body, without the instructions.
fn sent_items(body: &Value) -> Vec<Value> {
    let items = body.get("input").or_else(|| body.get("messages")).and_then(Value::as_array).unwrap();
    let instructions =
        items[0]["role"] == "system" && items[0]["content"].as_str().unwrap().starts_with("You are Alisio");
    items[usize::from(instructions)..].to_vec()
}

#[tokio::test]
async fn a_fork_of_each_agents_session_sends_what_the_model_saw_and_leaves_the_source() {
    let script = (0..12).map(|i| Reply::Answer(Answer::text(&format!("fork answer {i}")))).collect();
    let h = Harness::new(script).await;
    let imported = json_of(&h, &["import", fixtures().to_str().unwrap()]).await;
    let mut seen = Vec::new();
    for source in ["claude-code", "codex", "opencode"] {
        let entry = imported["imported"].as_array().unwrap().iter().find(|s| s["source"] == source).unwrap();
        let id = entry["id"].as_str().unwrap();
        let stored = json_of(&h, &["sessions", "show", id]).await;
        let last = stored["messages"].as_array().unwrap().iter().map(|m| m["seq"].as_i64().unwrap()).max().unwrap();
        let model = json_of(&h, &["sessions", "show", id, "--view", "model"]).await;
        // The agent's own system prompt (Claude Code's, as recorded) is not history: a fork runs
        // on Alisio's instructions and tools.
        let mut expected = model["messages"].as_array().unwrap().clone();
        if expected[0]["role"] == "system" && source == "claude-code" {
            expected.remove(0);
        }
        let before = rows_of(&h, id);

        // After the last message: the fork starts from the model view, checkpoints included.
        let forked = json_of(&h, &["sessions", "fork", id, "--at", &last.to_string()]).await;
        let fork = forked["id"].as_str().unwrap().to_string();
        assert_eq!(forked["forkedFrom"], json!({"session": id, "seq": last}));
        // Claude Code logged its requests: the fork starts from the last one, as sent.
        let calls = json_of(&h, &["calls", "list", id]).await;
        let exact = calls
            .as_array()
            .unwrap()
            .iter()
            .rev()
            .find(|c| c["purpose"] == "turn" && (c["requestSource"] == "agent-log" || c["requestSource"] == "proxy"))
            .map(|c| c["n"].clone());
        assert_eq!(forked["fromCall"], exact.clone().unwrap_or(Value::Null), "{source}");
        if exact.is_none() {
            assert_eq!(forked["messages"], json!(expected.len()), "{source}");
        }
        let shown = json_of(&h, &["sessions", "show", &fork]).await;
        assert_eq!(shown["forkedFrom"], json!({"session": id, "seq": last}));
        assert!(shown["session"].get("source").is_none(), "a fork is Alisio's own, and writable");
        let api = model["api"].as_str().unwrap().to_string();
        let config = h.home.path().join(format!("{source}.json"));
        std::fs::write(&config, json!({"provider": {"api": api}}).to_string()).unwrap();
        let run = h.run(&["--session", &fork, "--config", config.to_str().unwrap()], "and now?").await;
        run.assert_ok();
        let body = h.server.bodies().last().unwrap().clone();
        let mut items = sent_items(&body);
        let prompt = items.pop().unwrap();
        assert_eq!(prompt["content"], "and now?", "{source}");
        match &exact {
            None => assert_eq!(items, expected, "{source}: the first request holds the model view"),
            Some(n) => {
                let logged = json_of(&h, &["calls", "show", id, &n.to_string()]).await["request"]["messages"].clone();
                assert_holds_the_logged_request(&logged, &items);
            }
        }
        assert_eq!(rows_of(&h, id), before, "{source}: the source is untouched");

        // Compared with its source: all of the fork point shared, then the fork's prompt.
        // (A fork from a logged request holds its messages as the agent shaped them, which the
        // transcript's records split differently: there the prefix is compared as it is.)
        let diff = json_of(&h, &["sessions", "diff", id, &fork]).await;
        if exact.is_none() {
            assert_eq!(diff["sharedMessages"], json!(items.len()), "{source}");
            let divergence = &diff["firstDivergence"];
            assert_eq!((divergence["a"].clone(), divergence["after"].clone()), (Value::Null, json!("and now?")));
        }
        assert_eq!(diff["b"]["calls"], 1);
        assert_eq!(diff["a"]["calls"].as_u64(), Some(entry_calls(&h, id)));
        seen.push(source);
    }
    assert_eq!(seen.len(), 3);
}

/// The fork's first request (chat) carries every text, call and result of the logged Anthropic
/// request, in order: texts as sent, call ids verbatim, each result under its call.
fn assert_holds_the_logged_request(logged: &Value, sent: &[Value]) {
    let sent_text = serde_json::to_string(sent).unwrap();
    let mut logged_calls = Vec::new();
    for message in logged.as_array().unwrap() {
        let blocks = match &message["content"] {
            Value::Array(blocks) => blocks.clone(),
            Value::String(text) => vec![json!({"type": "text", "text": text})],
            _ => Vec::new(),
        };
        for block in blocks {
            match block["type"].as_str() {
                Some("text") => {
                    let text = block["text"].as_str().unwrap();
                    assert!(
                        sent_text.contains(&serde_json::to_string(text).unwrap()[1..text.len().min(200)]),
                        "missing: {text}"
                    );
                }
                Some("tool_use") => logged_calls.push(block["id"].as_str().unwrap().to_string()),
                Some("tool_result") => {
                    let id = block["tool_use_id"].as_str().unwrap();
                    assert!(sent.iter().any(|m| m["role"] == "tool" && m["tool_call_id"] == id), "no result of {id}");
                }
                _ => {}
            }
        }
    }
    let sent_calls: Vec<String> = sent
        .iter()
        .flat_map(|m| m["tool_calls"].as_array().cloned().unwrap_or_default())
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(sent_calls, logged_calls);
}

fn entry_calls(h: &Harness, session: &str) -> u64 {
    h.rows(&format!("SELECT count(*) FROM model_calls WHERE session_id = '{session}'"))[0][0].as_u64().unwrap()
}

/// A fork before a compaction holds the messages up to the fork point, none of the later ones
/// and not the checkpoint made after it; a fork at a call whose result comes later is refused.
#[tokio::test]
async fn a_fork_before_a_compaction_has_no_checkpoint_and_nothing_after_its_point() {
    let h = Harness::new(vec![Reply::Answer(Answer::text("went on"))]).await;
    let imported = json_of(&h, &["import", fixtures().to_str().unwrap()]).await;
    let codex = imported["imported"].as_array().unwrap().iter().find(|s| s["source"] == "codex").unwrap();
    let id = codex["id"].as_str().unwrap();
    let stored = json_of(&h, &["sessions", "show", id]).await;
    let compaction = &stored["compactions"][0];
    let span: Vec<i64> = compaction["summarizedSeqs"].as_array().unwrap().iter().map(|s| s.as_i64().unwrap()).collect();
    let at = *span.iter().max().unwrap();
    let messages = stored["messages"].as_array().unwrap();
    let at_text = messages.iter().find(|m| m["seq"] == at).unwrap()["content"].as_str().unwrap().to_string();
    let forked =
        json_of(&h, &["sessions", "fork", id, "--at", &at.to_string(), "--title", "before the compaction"]).await;
    let fork = forked["id"].as_str().unwrap();
    let view = json_of(&h, &["sessions", "show", fork]).await;
    assert_eq!(view["session"]["title"], "before the compaction");
    let texts: Vec<&str> =
        view["messages"].as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap()).collect();
    assert!(!texts.iter().any(|t| t.starts_with("Another language model")), "no checkpoint: {texts:#?}");
    assert_eq!(*texts.last().unwrap(), at_text);
    // Exactly the source's messages up to the fork point, in order (no compaction before it).
    let expected: Vec<&str> = messages
        .iter()
        .filter(|m| m["seq"].as_i64().unwrap() <= at && m["offView"] == false && m["createdBy"].is_null())
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(texts, expected);
    assert!(texts.len() as i64 <= at);

    // The diff: everything up to the fork point shared; then the source's next message.
    let diff = json_of(&h, &["sessions", "diff", id, fork]).await;
    assert_eq!(diff["sharedMessages"], json!(texts.len()));
    assert!(diff["firstDivergence"]["a"].as_i64().unwrap() > at);
    assert_eq!(diff["firstDivergence"]["b"], Value::Null);

    // At a call whose result comes later: refused, with where to fork instead.
    let call = messages.iter().find(|m| m["toolCalls"].as_array().is_some_and(|c| !c.is_empty())).unwrap();
    let refused = h.alisio(&["sessions", "fork", id, "--at", &call["seq"].to_string()]).await;
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(refused.stderr.contains("comes before the result of call"), "{}", refused.stderr);
    let missing = h.alisio(&["sessions", "fork", id, "--at", "99999"]).await;
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains("has no message 99999"), "{}", missing.stderr);
}
