//! Sessions of the next agents, imported from the files their real CLIs wrote against a scripted
//! server (tests/fixtures/agents/, each with its RUN.md), checked against the requests that server
//! received (`requests.jsonl`).

use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::Value;

use super::support::Harness;

fn fixtures(agent: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/agents").join(agent)
}

fn requests(agent: &str) -> Vec<Value> {
    std::fs::read_to_string(fixtures(agent).join("requests.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A chat request's text parts, joined (Qwen Code sends content as text parts).
fn text_of(message: &Value) -> String {
    match &message["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join("\n"),
        _ => String::new(),
    }
}

#[tokio::test]
async fn qwen_code_chats_import_as_qwen_code_with_calls_tokens_and_their_compressions() {
    let h = Harness::new(vec![]).await;
    let home = fixtures("qwen").join("home/.qwen");
    let doc = h.alisio(&["import", home.to_str().unwrap(), "--json"]).await.assert_ok().json();
    assert_eq!(doc["errors"], serde_json::json!([]));
    let imported = doc["imported"].as_array().unwrap();
    // Uuid-named JSONL like Claude Code's, told apart by their records.
    assert_eq!(imported.len(), 2);
    assert!(imported.iter().all(|s| s["source"] == "qwen-code"), "{imported:#?}");
    assert!(imported.iter().all(|s| s["toolCalls"] == 7 && s["compactions"] == 1), "{imported:#?}");

    // Every request the server received is a row of the ledger, with the server's tokens.
    let received = requests("qwen");
    let mut calls = 0;
    for session in imported {
        let id = session["id"].as_str().unwrap();
        let list = h.alisio(&["calls", "list", id, "--json"]).await.assert_ok().json();
        let list = list.as_array().unwrap();
        calls += list.len();
        assert!(list
            .iter()
            .all(|c| c["promptTokens"].as_u64() > Some(0) && c["cachedTokens"].as_u64() <= c["promptTokens"].as_u64()));
        assert_eq!(list.iter().filter(|c| c["purpose"] == "compaction").count(), 1);
    }
    assert_eq!(calls, received.len(), "one ledger row per request the server received");

    // The manual /compress: its trigger and figures, and the view it left — the state snapshot,
    // the acknowledgement, then what followed — as the next request carried it.
    let manual = imported.iter().find(|s| s["title"].as_str().unwrap().contains("hello from turn1")).unwrap();
    let id = manual["id"].as_str().unwrap();
    let shown = h.alisio(&["sessions", "show", id, "--json"]).await.json();
    let compaction = &shown["compactions"][0];
    assert_eq!(
        (compaction["reason"].clone(), compaction["trigger"]["kind"].clone()),
        ("manual".into(), "manual".into())
    );
    assert_eq!(compaction["trigger"]["promptTokens"], 9511);
    let model = h.alisio(&["sessions", "show", id, "--view", "model", "--json"]).await.json();
    let view = model["messages"].as_array().unwrap();
    let after = received.iter().find(|r| r["n"] == 14).unwrap()["body"]["messages"].as_array().unwrap().clone();
    // (The request adds the CLI's <system-reminder> parts, which the file does not keep.)
    assert!(
        text_of(&after[1]).contains(&text_of(&view[0])),
        "the checkpoint is the state snapshot the request carried"
    );
    assert!(text_of(&view[0]).contains("<state_snapshot>"));
    assert_eq!((view[1]["role"].clone(), text_of(&view[1])), ("assistant".into(), text_of(&after[2])));
    // Tool calls under the ids the model gave, each with its output.
    let summarized = received.iter().find(|r| r["n"] == 13).unwrap()["body"]["messages"].as_array().unwrap().clone();
    let sent_ids: Vec<String> = summarized
        .iter()
        .flat_map(|m| m["tool_calls"].as_array().cloned().unwrap_or_default())
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect();
    let stored: Vec<String> = shown["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["toolCalls"].as_array().cloned().unwrap_or_default())
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(stored[..sent_ids.len()], sent_ids[..]);
    let failed = shown["messages"].as_array().unwrap().iter().find(|m| m["toolCallId"] == "call_10-Zq.9/x").unwrap();
    assert!(failed["content"].as_str().unwrap().starts_with("error: File path must be absolute"));

    // The automatic one, mid-turn: its trigger says so.
    let auto = imported.iter().find(|s| s["id"] != manual["id"]).unwrap();
    let shown = h.alisio(&["sessions", "show", auto["id"].as_str().unwrap(), "--json"]).await.json();
    assert_eq!(shown["compactions"][0]["trigger"]["kind"], "threshold");

    // Imported again: the same sessions, nothing added.
    let messages = h.rows("SELECT count(*) FROM messages");
    let again = h.alisio(&["import", home.to_str().unwrap(), "--json"]).await.assert_ok().json();
    assert_eq!(
        again["imported"].as_array().unwrap().iter().map(|s| s["id"].clone()).collect::<Vec<_>>(),
        imported.iter().map(|s| s["id"].clone()).collect::<Vec<_>>()
    );
    assert_eq!(h.rows("SELECT count(*) FROM messages"), messages);
}

#[tokio::test]
async fn pi_sessions_import_with_calls_recorded_tokens_and_the_view_after_each_compaction() {
    let h = Harness::new(vec![]).await;
    let home = fixtures("pi").join("home");
    let doc = h.alisio(&["import", home.to_str().unwrap(), "--json"]).await.assert_ok().json();
    assert_eq!(doc["errors"], serde_json::json!([]));
    let imported = doc["imported"].as_array().unwrap();
    assert_eq!(imported.len(), 2);
    assert!(imported.iter().all(|s| s["source"] == "pi" && s["skipped"] == serde_json::json!([])), "{imported:#?}");
    let compactions: Vec<u64> = imported.iter().map(|s| s["compactions"].as_u64().unwrap()).collect();
    assert_eq!(compactions.iter().sum::<u64>(), 6, "1 manual + 5 automatic (RUN.md)");

    // One ledger row per model request the server received (pi does not record its summarizer
    // calls: those are the requests whose only message is the <conversation> to summarize).
    let received = requests("pi");
    let turns = received.iter().filter(|r| !text_of(&r["body"]["messages"][1]).starts_with("<conversation>")).count();
    let mut calls = Vec::new();
    for session in imported {
        let list = h.alisio(&["calls", "list", session["id"].as_str().unwrap(), "--json"]).await.assert_ok().json();
        calls.extend(list.as_array().unwrap().clone());
    }
    assert_eq!(calls.len(), turns);
    // pi's `input` leaves out the cache: the prompt is input + cache read + cache write.
    let first_with_cache = calls.iter().find(|c| c["cachedTokens"].as_u64() > Some(0)).unwrap();
    assert!(first_with_cache["promptTokens"].as_u64() > first_with_cache["cachedTokens"].as_u64());

    // After the manual compaction the view is what request 14 carried: the summary, then the
    // records from firstKeptEntryId on.
    let manual = imported.iter().find(|s| s["title"].as_str().unwrap().contains("hello from turn1")).unwrap();
    let id = manual["id"].as_str().unwrap();
    let model = h.alisio(&["sessions", "show", id, "--view", "model", "--json"]).await.json();
    let view = model["messages"].as_array().unwrap();
    let after = received[13]["body"]["messages"].as_array().unwrap();
    let prompt =
        after.iter().position(|m| text_of(m).starts_with("DO bash {\"command\":\"echo after compaction")).unwrap();
    let sent: Vec<(String, String)> =
        after[1..prompt].iter().map(|m| (m["role"].as_str().unwrap().to_string(), text_of(m))).collect();
    let shown: Vec<(String, String)> =
        view[..prompt - 1].iter().map(|m| (m["role"].as_str().unwrap().to_string(), text_of(m))).collect();
    assert_eq!(shown, sent);
    assert!(shown[0].1.starts_with("The conversation history before this point was compacted"));
    let shown = h.alisio(&["sessions", "show", id, "--json"]).await.json();
    assert_eq!(shown["compactions"][0]["kind"], "checkpoint");
}

/// The model view's messages after the system prompt the agent recorded (a request's own first
/// message is its system prompt too).
async fn model_view(h: &Harness, id: &str) -> Vec<Value> {
    let view = h.alisio(&["sessions", "show", id, "--view", "model", "--json"]).await.json();
    let messages = view["messages"].as_array().unwrap();
    let skip = usize::from(messages.first().is_some_and(|m| m["role"] == "system"));
    messages[skip..].to_vec()
}

/// The view of a model request as (role, text, call ids): what the comparisons below look at.
fn shape(messages: &[Value]) -> Vec<(String, String, Vec<String>)> {
    messages
        .iter()
        .map(|m| {
            let ids = m["tool_calls"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| c["id"].as_str().unwrap().to_string())
                .collect();
            (m["role"].as_str().unwrap().to_string(), text_of(m), ids)
        })
        .collect()
}

#[tokio::test]
async fn copilot_cli_sessions_import_with_every_call_and_the_summary_message_it_sends() {
    let h = Harness::new(vec![]).await;
    let home = fixtures("copilot").join("home/.copilot");
    let doc = h.alisio(&["import", home.to_str().unwrap(), "--json"]).await.assert_ok().json();
    assert_eq!(doc["errors"], serde_json::json!([]));
    let imported = doc["imported"].as_array().unwrap();
    assert_eq!(imported.len(), 2, "the two events.jsonl; workspace.yaml, checkpoints and databases are not sessions");
    assert!(imported.iter().all(|s| s["source"] == "copilot-cli" && s["compactions"] == 1), "{imported:#?}");

    // Every request the server received — turns and both summarizer calls — is a ledger row.
    let received = requests("copilot");
    let mut rows = 0;
    for session in imported {
        let list = h.alisio(&["calls", "list", session["id"].as_str().unwrap(), "--json"]).await.assert_ok().json();
        rows += list.as_array().unwrap().len();
        assert_eq!(list.as_array().unwrap().iter().filter(|c| c["purpose"] == "compaction").count(), 1);
    }
    assert_eq!(rows, received.len());
    let request =
        |n: u64| received.iter().find(|r| r["n"] == n).unwrap()["body"]["messages"].as_array().unwrap().clone();

    // Manual /compact: the next request is the summary message (every prompt, then the summary)
    // and the new prompt as sent.
    let manual = imported.iter().find(|s| s["title"].as_str().unwrap().contains("hello from turn1")).unwrap();
    let view = model_view(&h, manual["id"].as_str().unwrap()).await;
    let sent = request(13);
    assert_eq!(shape(&view[..2]), shape(&sent[1..3]));
    let shown = h.alisio(&["sessions", "show", manual["id"].as_str().unwrap(), "--json"]).await.json();
    assert_eq!(shown["compactions"][0]["trigger"]["kind"], "manual");
    assert_eq!(shown["compactions"][0]["trigger"]["promptTokens"], 11010);
    // Its summarizer's request: the messages Copilot logged are the ones the server received
    // (request 12, key for key); its tools and params, not logged, are listed as missing.
    let list = h.alisio(&["calls", "list", manual["id"].as_str().unwrap(), "--json"]).await.json();
    let summarizer = list.as_array().unwrap().iter().find(|c| c["purpose"] == "compaction").unwrap();
    let n = summarizer["n"].to_string();
    let detail = h.alisio(&["calls", "show", manual["id"].as_str().unwrap(), &n, "--json"]).await.assert_ok().json();
    assert_eq!(detail["request"]["messages"], Value::Array(request(12)));
    assert_eq!((detail["requestSource"].clone(), detail["exact"].clone()), ("reconstructed".into(), false.into()));
    let missing: Vec<(&str, u64)> = detail["missing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["part"].as_str().unwrap(), m["estimatedTokens"].as_u64().unwrap()))
        .collect();
    assert_eq!(missing[0], ("tools", 5698), "the size Copilot recorded for its tool definitions");
    assert_eq!(missing[1].0, "params");

    // Automatic, in the background: the call and result made meanwhile stay after the summary.
    let auto = imported.iter().find(|s| s["id"] != manual["id"]).unwrap();
    let view = model_view(&h, auto["id"].as_str().unwrap()).await;
    let sent = request(26);
    assert_eq!(shape(&view[..3]), shape(&sent[1..4]));
    assert_eq!(view[1]["tool_calls"][0]["id"], "call_25-Zq.9/x");
}

/// A Gemini API content's text parts, joined.
fn gemini_text(content: &Value) -> String {
    content["parts"].as_array().into_iter().flatten().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join("\n")
}

#[tokio::test]
async fn gemini_cli_chats_replay_their_change_log_into_sessions_compressions_and_calls() {
    let h = Harness::new(vec![]).await;
    let home = fixtures("gemini").join("home/.gemini");
    let doc = h.alisio(&["import", home.to_str().unwrap(), "--json"]).await.assert_ok().json();
    assert_eq!(doc["errors"], serde_json::json!([]));
    let imported = doc["imported"].as_array().unwrap();
    // Three files, two sessions: a restart's stub file holds no message.
    assert_eq!(imported.len(), 2, "{imported:#?}");
    assert!(imported.iter().all(|s| s["source"] == "gemini-cli"));
    let manual = imported.iter().find(|s| s["title"].as_str().unwrap().contains("hello from turn1")).unwrap();
    let auto = imported.iter().find(|s| s["id"] != manual["id"]).unwrap();
    assert_eq!(
        (manual["compactions"].clone(), auto["compactions"].clone()),
        (1.into(), 3.into()),
        "1 /compress, 3 automatic (RUN.md)"
    );

    // A ledger row per chat request; the summarizer's two calls per compression leave no tokens in
    // the file (their system instruction names them).
    let received = requests("gemini");
    let chat = received
        .iter()
        .filter(|r| !r["body"]["systemInstruction"].to_string().contains("specialized system component"))
        .count();
    let mut rows = 0;
    for session in imported {
        let list = h.alisio(&["calls", "list", session["id"].as_str().unwrap(), "--json"]).await.assert_ok().json();
        rows += list.as_array().unwrap().len();
    }
    assert_eq!(rows, chat);

    // After /compress the view is what request 14 sent: the session context and the snapshot
    // (sent as one content), "Got it", then the kept tail under the wire's call ids.
    let view = model_view(&h, manual["id"].as_str().unwrap()).await;
    let contents = received[13]["body"]["contents"].as_array().unwrap();
    let first = gemini_text(&contents[0]);
    assert!(first.contains(&text_of(&view[0])) && first.contains(&text_of(&view[1])), "{first}");
    assert!(text_of(&view[1]).starts_with("<state_snapshot>"));
    assert_eq!(text_of(&view[2]), gemini_text(&contents[1]));
    assert_eq!(view[4]["tool_calls"][0]["id"], contents[3]["parts"][0]["functionCall"]["id"]);
    assert_eq!(view[5]["tool_call_id"], contents[4]["parts"][0]["functionResponse"]["id"]);
}

/// The rules of ATIF (Harbor RFC 0001, v1.7) a trajectory must follow: the root's required
/// fields (`session_id` optional since v1.7, a `trajectory_id` then), steps numbered from 1, each
/// step's source, a message as text or content parts, agent-only fields (`llm_call_count` too) on
/// agent steps only, tool calls with an id, a name and an object of arguments, each observation
/// naming a call of its step, integer metrics, embedded subagents each with a `trajectory_id` unique
/// among them and valid themselves. Returns what is wrong.
fn atif_errors(t: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    let mut need = |ok: bool, what: String| {
        if !ok {
            errors.push(what)
        }
    };
    need(t["schema_version"].as_str().is_some_and(|v| v.starts_with("ATIF-v")), "schema_version".into());
    need(t["session_id"].is_string() || t["trajectory_id"].is_string(), "session_id or trajectory_id".into());
    need(t.get("trajectory_id").is_none_or(Value::is_string), "trajectory_id".into());
    need(t["agent"]["name"].is_string() && t["agent"]["version"].is_string(), "agent.name/version".into());
    let steps = t["steps"].as_array().cloned().unwrap_or_default();
    need(!steps.is_empty(), "steps".into());
    for (i, step) in steps.iter().enumerate() {
        need(step["step_id"] == (i + 1), format!("step {i}: step_id"));
        let source = step["source"].as_str().unwrap_or_default();
        need(["system", "user", "agent"].contains(&source), format!("step {i}: source {source:?}"));
        let parts_ok = step["message"].as_array().is_some_and(|parts| {
            parts.iter().all(|p| match p["type"].as_str() {
                Some("text") => p["text"].is_string(),
                Some("image") => p["source"]["media_type"].is_string() && p["source"]["path"].is_string(),
                _ => false,
            })
        });
        need(step["message"].is_string() || parts_ok, format!("step {i}: message"));
        if source != "agent" {
            for key in ["model_name", "reasoning_content", "tool_calls", "metrics", "llm_call_count"] {
                need(step.get(key).is_none(), format!("step {i}: {key} on a {source} step"));
            }
        }
        need(step.get("llm_call_count").is_none_or(Value::is_u64), format!("step {i}: llm_call_count"));
        let ids: Vec<&str> =
            step["tool_calls"].as_array().into_iter().flatten().filter_map(|c| c["tool_call_id"].as_str()).collect();
        for call in step["tool_calls"].as_array().into_iter().flatten() {
            need(
                call["tool_call_id"].is_string() && call["function_name"].is_string() && call["arguments"].is_object(),
                format!("step {i}: tool call"),
            );
        }
        for result in step["observation"]["results"].as_array().into_iter().flatten() {
            let id = result["source_call_id"].as_str();
            need(id.is_none_or(|id| ids.contains(&id)), format!("step {i}: observation of an unknown call"));
        }
        for key in ["prompt_tokens", "completion_tokens", "cached_tokens"] {
            need(step["metrics"].get(key).is_none_or(Value::is_u64), format!("step {i}: metrics.{key}"));
        }
        if let Some(ts) = step["timestamp"].as_str() {
            need(chrono_like(ts), format!("step {i}: timestamp {ts}"));
        }
    }
    let subagents = t["subagent_trajectories"].as_array().cloned().unwrap_or_default();
    let mut seen = std::collections::HashSet::new();
    for (i, sub) in subagents.iter().enumerate() {
        let id = sub["trajectory_id"].as_str();
        need(id.is_some_and(|id| seen.insert(id.to_string())), format!("subagent {i}: trajectory_id"));
        for error in atif_errors(sub) {
            need(false, format!("subagent {i}: {error}"));
        }
    }
    errors
}

/// An ISO 8601 date and time (`2026-12-01T23:51:41.213Z`).
fn chrono_like(ts: &str) -> bool {
    let b = ts.as_bytes();
    b.len() >= 20 && b[4] == b'-' && b[7] == b'-' && b[10] == b'T' && b[13] == b':' && b[16] == b':'
}

#[tokio::test]
async fn atif_export_validates_and_an_import_of_it_exports_the_same_trajectory() {
    let h = Harness::new(vec![
        super::support::Reply::Answer(super::support::Answer::calls(&[(
            "call_ls",
            "list_dir",
            serde_json::json!({"path": "."}),
        )])),
        super::support::Reply::Answer(super::support::Answer::text("listed")),
    ])
    .await;
    let own = h.run(&[], "list the files").await.assert_ok().session();
    let qwen = fixtures("qwen").join("home/.qwen");
    let doc = h.alisio(&["import", qwen.to_str().unwrap(), "--json"]).await.assert_ok().json();
    let imported = doc["imported"][0]["id"].as_str().unwrap().to_string();
    let mut compactions = 0;
    for session in [own, imported] {
        let file = h.home.path().join(format!("{session}.json"));
        let written =
            h.alisio(&["sessions", "export", &session, "--format", "atif", "--output", file.to_str().unwrap()]).await;
        written.assert_ok();
        let trajectory: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        assert_eq!(atif_errors(&trajectory), Vec::<String>::new(), "{trajectory:#}");
        let agent = trajectory["steps"].as_array().unwrap().iter().find(|s| s["tool_calls"].is_array()).unwrap();
        assert!(agent["observation"]["results"][0]["content"].is_string(), "the call's result is its observation");

        // Imported back, exported again: the same steps, tool calls, observations and metrics.
        let back = h.alisio(&["import", file.to_str().unwrap(), "--json"]).await.assert_ok().json();
        assert_eq!(back["imported"][0]["source"], "atif");
        let id = back["imported"][0]["id"].as_str().unwrap().to_string();
        let again = h.home.path().join(format!("{session}-again.json"));
        h.alisio(&["sessions", "export", &id, "--format", "atif", "--output", again.to_str().unwrap()])
            .await
            .assert_ok();
        let round: Value = serde_json::from_str(&std::fs::read_to_string(&again).unwrap()).unwrap();
        assert_eq!(round["steps"], trajectory["steps"]);
        assert_eq!(round["final_metrics"], trajectory["final_metrics"]);
        // The compactions come back: where they happened, what they summarized, their checkpoints.
        let exported = &trajectory["extra"]["alisio"]["compactions"];
        let kept = |c: &Value| json_pick(c, &["reason", "summarizedSteps", "atStep", "checkpoint"]);
        let names: Vec<Value> = exported.as_array().unwrap().iter().map(kept).collect();
        let back_names: Vec<Value> =
            round["extra"]["alisio"]["compactions"].as_array().unwrap().iter().map(kept).collect();
        assert_eq!(back_names, names);
        assert_eq!(back["imported"][0]["compactions"].as_u64(), Some(names.len() as u64));
        compactions += names.len();
        // Imported again unchanged: nothing is added.
        let twice = h.alisio(&["import", file.to_str().unwrap(), "--json"]).await.assert_ok().json();
        assert_eq!(twice["imported"][0]["id"], back["imported"][0]["id"]);
    }
    assert!(compactions > 0, "the imported Qwen Code session's compactions made the round trip");
}

/// Only `keys` of an object.
fn json_pick(value: &Value, keys: &[&str]) -> Value {
    Value::Object(keys.iter().filter_map(|k| Some((k.to_string(), value.get(*k)?.clone()))).collect())
}

/// A trajectory as another producer writes ATIF v1.7: no `session_id` (its `trajectory_id` names
/// it), an image among a message's parts, context copied from an earlier run, a step no model call
/// made, a result with its own metadata, a subagent embedded in the document.
#[tokio::test]
async fn an_atif_v1_7_trajectory_with_images_copied_context_and_an_embedded_subagent_imports_and_exports() {
    let h = Harness::new(vec![]).await;
    let document = serde_json::json!({
        "schema_version": "ATIF-v1.7",
        "trajectory_id": "run-7",
        "agent": {"name": "harness", "version": "2.0", "model_name": "m-1"},
        "steps": [
            {"step_id": 1, "source": "user", "is_copied_context": true, "message": "earlier: the build failed"},
            {"step_id": 2, "source": "user", "timestamp": "2026-11-30T10:00:00Z", "message": [
                {"type": "text", "text": "why does the chart look wrong?"},
                {"type": "image", "source": {"media_type": "image/png", "path": "images/chart.png"}}
            ]},
            {"step_id": 3, "source": "agent", "timestamp": "2026-11-30T10:00:05Z", "message": "",
             "llm_call_count": 1, "model_name": "m-1",
             "tool_calls": [{"tool_call_id": "t1", "function_name": "delegate", "arguments": {"task": "inspect"},
                             "extra": {"parallel": false}}],
             "observation": {"results": [{"source_call_id": "t1", "content": "the axis is logarithmic",
                                          "subagent_trajectory_ref": [{"trajectory_id": "run-7/helper"}],
                                          "extra": {"exitCode": 0}}]},
             "metrics": {"prompt_tokens": 120, "completion_tokens": 8, "cached_tokens": 100}},
            {"step_id": 4, "source": "agent", "timestamp": "2026-11-30T10:00:06Z", "llm_call_count": 0,
             "message": "dispatched the report tool", "metrics": {"prompt_tokens": 0}},
            {"step_id": 5, "source": "agent", "timestamp": "2026-11-30T10:00:09Z", "llm_call_count": 1,
             "message": "The y axis is logarithmic.", "metrics": {"prompt_tokens": 150, "completion_tokens": 7}}
        ],
        "subagent_trajectories": [{
            "schema_version": "ATIF-v1.7",
            "trajectory_id": "run-7/helper",
            "agent": {"name": "helper", "version": "2.0"},
            "steps": [
                {"step_id": 1, "source": "user", "message": "inspect the chart"},
                {"step_id": 2, "source": "agent", "message": "the axis is logarithmic",
                 "metrics": {"prompt_tokens": 40, "completion_tokens": 6}}
            ]
        }]
    });
    assert_eq!(atif_errors(&document), Vec::<String>::new());
    let file = h.home.path().join("trajectory.json");
    std::fs::write(&file, document.to_string()).unwrap();
    let doc = h.alisio(&["import", file.to_str().unwrap(), "--json"]).await.assert_ok().json();
    assert_eq!(doc["imported"][0]["source"], "atif");
    let id = doc["imported"][0]["id"].as_str().unwrap().to_string();

    let shown = h.alisio(&["sessions", "show", &id, "--json"]).await.assert_ok().json();
    let messages = shown["messages"].as_array().unwrap();
    let texts: Vec<(&str, &str, bool)> = messages
        .iter()
        .map(|m| (m["role"].as_str().unwrap(), m["content"].as_str().unwrap(), m["offView"].as_bool().unwrap()))
        .collect();
    assert_eq!(
        texts,
        [
            ("user", "earlier: the build failed", false),
            ("user", "why does the chart look wrong?\n[image: image/png, images/chart.png]", false),
            ("assistant", "", false),
            ("tool", "the axis is logarithmic", false),
            ("assistant", "dispatched the report tool", false),
            ("assistant", "The y axis is logarithmic.", false),
            ("user", "inspect the chart", true),
            ("assistant", "the axis is logarithmic", true),
        ]
    );
    assert_eq!(messages[0]["meta"]["copiedContext"], true);
    assert_eq!(messages[3]["meta"]["exitCode"], 0);
    assert_eq!(messages[3]["meta"]["subagentRefs"][0]["trajectory_id"], "run-7/helper");
    assert_eq!(messages[6]["meta"]["agentId"], "run-7/helper");
    // Ledger rows for the two answers a model call made: not the dispatch, not the subagent's.
    let calls = h.alisio(&["calls", "list", &id, "--json"]).await.assert_ok().json();
    let prompts: Vec<u64> = calls.as_array().unwrap().iter().map(|c| c["promptTokens"].as_u64().unwrap()).collect();
    assert_eq!(prompts, [120, 150]);
    // The subagent is not in what the model saw.
    let model = h.alisio(&["sessions", "show", &id, "--view", "model", "--json"]).await.json();
    assert!(model["messages"].as_array().unwrap().iter().all(|m| m["content"] != "inspect the chart"));

    // Exported as v1.7: valid, the subagent embedded again with its steps.
    let out = h.home.path().join("again.json");
    h.alisio(&["sessions", "export", &id, "--format", "atif", "--output", out.to_str().unwrap()]).await.assert_ok();
    let again: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(atif_errors(&again), Vec::<String>::new(), "{again:#}");
    assert_eq!(again["schema_version"], "ATIF-v1.7");
    assert_eq!(again["steps"].as_array().unwrap().len(), 5);
    assert_eq!(again["steps"][2]["llm_call_count"], 1);
    assert!(again["steps"][3].get("llm_call_count").is_none(), "{:#}", again["steps"][3]);
    let sub = &again["subagent_trajectories"][0];
    assert_eq!(sub["agent"]["extra"]["agentId"], "run-7/helper");
    let sub_texts: Vec<&str> =
        sub["steps"].as_array().unwrap().iter().map(|s| s["message"].as_str().unwrap()).collect();
    assert_eq!(sub_texts, ["inspect the chart", "the axis is logarithmic"]);
}

/// Copies a directory tree (the fixtures' agent homes).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Every session file under `dir` with the given ending.
fn files_ending(dir: &Path, ending: &str) -> Vec<PathBuf> {
    super::support::files_under(dir).into_iter().filter(|p| p.to_string_lossy().ends_with(ending)).collect()
}

/// With no path, `import` reads every new agent's default location; `--watch` follows what their
/// sessions append, and a re-import adds nothing.
#[tokio::test]
async fn every_new_agent_is_read_from_its_default_location_and_followed_as_it_writes() {
    let mut h = Harness::new(vec![]).await;
    let home = tempfile::tempdir().unwrap();
    for (agent, dot) in
        [("qwen", ".qwen"), ("pi", ".pi"), ("copilot", ".copilot"), ("gemini", ".gemini"), ("cline", ".cline")]
    {
        copy_tree(&fixtures(agent).join("home").join(dot), &home.path().join(dot));
    }
    // Cline's task folders beside its 3.x sessions; Roo Code's CLI storage.
    for sub in ["tasks", "state"] {
        copy_tree(
            &fixtures("cline-tasks").join("home/.cline/data").join(sub),
            &home.path().join(".cline/data").join(sub),
        );
    }
    copy_tree(&fixtures("roo").join("home/.vscode-mock"), &home.path().join(".vscode-mock"));
    // A Cline task and a Roo Code task written up to their tenth message, as by an extension still
    // running (each rewrites its files whole).
    let mut rewrites = Vec::new();
    for task in [
        home.path().join(".cline/data/tasks/1796227972969"),
        home.path().join(".vscode-mock/global-storage/tasks/5d77545f-7196-401c-907e-e41d0ca96701"),
    ] {
        let read = |name: &str| -> Vec<Value> {
            serde_json::from_str(&std::fs::read_to_string(task.join(name)).unwrap()).unwrap()
        };
        let (history, ui) = (read("api_conversation_history.json"), read("ui_messages.json"));
        let until = history[9]["ts"].as_i64().unwrap();
        let early: Vec<&Value> = ui.iter().filter(|u| u["ts"].as_i64().unwrap() <= until).collect();
        for (name, whole, part) in [
            ("api_conversation_history.json", Value::from(history.clone()), serde_json::json!(history[..10])),
            ("ui_messages.json", Value::from(ui.clone()), serde_json::json!(early)),
        ] {
            std::fs::write(task.join(name), part.to_string()).unwrap();
            rewrites.push((task.join(name), whole.to_string()));
        }
    }
    // Each session file written up to its middle, as by an agent still running.
    let mut rest = Vec::new();
    for (dir, ending) in [(".qwen", ".jsonl"), (".pi", ".jsonl"), (".copilot", "events.jsonl"), (".gemini", ".jsonl")] {
        for file in files_ending(&home.path().join(dir), ending) {
            if file.ends_with("usage_record.jsonl") {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            let half = lines.len() / 2;
            std::fs::write(&file, format!("{}\n", lines[..half].join("\n"))).unwrap();
            rest.push((file, lines[half..].join("\n")));
        }
    }
    h.env.push(("HOME".into(), home.path().display().to_string()));
    for name in [
        "QWEN_HOME",
        "PI_CODING_AGENT_DIR",
        "PI_CODING_AGENT_SESSION_DIR",
        "COPILOT_HOME",
        "GEMINI_CLI_HOME",
        "CODEX_HOME",
        "XDG_DATA_HOME",
        "XDG_CONFIG_HOME",
        "CLINE_DIR",
    ] {
        h.env.push((name.into(), String::new()));
    }
    let mut watch = h.command(&["import", "--watch"]).spawn().unwrap();
    let count = || {
        let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY;
        let Ok(conn) = rusqlite::Connection::open_with_flags(h.db_path(), flags) else { return (0, 0) };
        let n = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap_or(0);
        // Messages of the sessions as last read (a rewritten task's earlier reading is superseded).
        let live =
            "SELECT count(*) FROM messages WHERE session_id IN (SELECT id FROM sessions WHERE source_id IS NOT NULL)";
        (n("SELECT count(DISTINCT source) FROM sessions WHERE source IS NOT NULL"), n(live))
    };
    let wait = |done: &dyn Fn((i64, i64)) -> bool, what: &str| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while !done(count()) {
            assert!(std::time::Instant::now() < deadline, "the watched import never {what}: {:?}", count());
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
    };
    wait(&|(sources, _)| sources == 6, "read the six agents' default locations");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let halfway = count().1;
    for (file, tail) in &rest {
        let mut f = std::fs::OpenOptions::new().append(true).open(file).unwrap();
        std::io::Write::write_all(&mut f, format!("{tail}\n").as_bytes()).unwrap();
    }
    for (file, whole) in &rewrites {
        std::fs::write(file, whole).unwrap();
    }
    // As many messages as a one-shot import of the complete files holds.
    let whole = Harness::new(vec![]).await;
    let mut expected = 0;
    for (agent, dot) in [
        ("qwen", ".qwen"),
        ("pi", ".pi"),
        ("copilot", ".copilot"),
        ("gemini", ".gemini"),
        ("cline", ".cline"),
        ("cline-tasks", ".cline"),
        ("roo", ".vscode-mock"),
    ] {
        let dir = fixtures(agent).join("home").join(dot);
        let doc = whole.alisio(&["import", dir.to_str().unwrap(), "--json"]).await.assert_ok().json();
        expected += doc["imported"].as_array().unwrap().iter().map(|s| s["messages"].as_i64().unwrap()).sum::<i64>();
    }
    wait(&|(_, messages)| messages >= expected, "caught up with what the agents appended");
    assert!(halfway < expected);
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert_eq!(count().1, expected, "nothing was imported twice");
    watch.kill().await.unwrap();

    // Imported again: nothing new.
    let again = h.alisio(&["import", "--json"]).await.assert_ok().json();
    let sources: std::collections::BTreeSet<&str> =
        again["imported"].as_array().unwrap().iter().map(|s| s["source"].as_str().unwrap()).collect();
    assert_eq!(
        sources.into_iter().collect::<Vec<_>>(),
        ["cline", "copilot-cli", "gemini-cli", "pi", "qwen-code", "roo"]
    );
    assert_eq!(count().1, expected);
}

#[tokio::test]
async fn cline_sessions_import_with_their_latest_compaction_and_every_chat_call() {
    let h = Harness::new(vec![]).await;
    let home = fixtures("cline").join("home/.cline");
    let doc = h.alisio(&["import", home.to_str().unwrap(), "--json"]).await.assert_ok().json();
    assert_eq!(doc["errors"], serde_json::json!([]));
    let imported = doc["imported"].as_array().unwrap();
    // The transcripts only: the rows, compactions, settings, logs and databases beside them are not sessions.
    assert_eq!(imported.len(), 2, "{imported:#?}");
    assert!(imported.iter().all(|s| s["source"] == "cline" && s["compactions"] == 1), "{imported:#?}");

    // A ledger row per chat request (the summarizer's calls leave nothing in the files).
    let received = requests("cline");
    let chat: Vec<&Value> = received
        .iter()
        .filter(|r| !text_of(&r["body"]["messages"][0]).starts_with("Summarize the provided coding session"))
        .collect();
    let mut rows = 0;
    for session in imported {
        rows += h
            .alisio(&["calls", "list", session["id"].as_str().unwrap(), "--json"])
            .await
            .json()
            .as_array()
            .unwrap()
            .len();
    }
    assert_eq!(rows, chat.len());

    // The view after /compact is what request 13 sent: the summary, then the messages it kept,
    // prompts without Cline's <user_input> wrapper, results as the JSON the wire carried.
    let manual = imported.iter().find(|s| s["title"].as_str().unwrap().contains("hello from turn1")).unwrap();
    let view = model_view(&h, manual["id"].as_str().unwrap()).await;
    let sent = received[12]["body"]["messages"].as_array().unwrap();
    assert!(text_of(&sent[1]).starts_with("Context summary:"));
    assert_eq!(shape(&view[..sent.len() - 2]), shape(&sent[1..sent.len() - 1]));
    // The automatic ones: only the latest is kept in the files; the view is what the last request sent.
    let auto = imported.iter().find(|s| s["id"] != manual["id"]).unwrap();
    let view = model_view(&h, auto["id"].as_str().unwrap()).await;
    let last = received.last().unwrap()["body"]["messages"].as_array().unwrap();
    assert_eq!(shape(&view[..last.len() - 1]), shape(&last[1..]));
}

/// A request message as (role, text blocks joined as the importers join them, call ids, the id
/// of the call it answers).
fn sent_shape(messages: &[Value]) -> Vec<(String, String, Vec<String>, Option<String>)> {
    messages
        .iter()
        .map(|m| {
            let text = match &m["content"] {
                Value::String(s) => s.clone(),
                Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join("\n\n"),
                _ => String::new(),
            };
            let ids = m["tool_calls"].as_array().into_iter().flatten();
            let ids = ids.map(|c| c["id"].as_str().unwrap().to_string()).collect();
            (m["role"].as_str().unwrap().to_string(), text, ids, m["tool_call_id"].as_str().map(str::to_string))
        })
        .collect()
}

/// Imports an extension's task folders and checks every ledger row against the request the
/// server received for it, in order (tasks by their start): an answer's row rebuilds the request
/// as sent but for the system prompt; a summarizer's row stands for the summarizer's request.
/// Returns each session (by start) with its compactions' reasons and its turn rows' prompt tokens.
async fn tasks_against_requests(agent: &str, dir: &str, source: &str) -> Vec<(Value, Vec<String>, u64)> {
    let h = Harness::new(vec![]).await;
    let home = fixtures(agent).join(dir);
    let doc = h.alisio(&["import", home.to_str().unwrap(), "--json"]).await.assert_ok().json();
    assert_eq!(doc["errors"], serde_json::json!([]));
    let mut sessions = Vec::new();
    for session in doc["imported"].as_array().unwrap() {
        assert_eq!(session["source"], source, "{session:#}");
        let shown = h.alisio(&["sessions", "show", session["id"].as_str().unwrap(), "--json"]).await.json();
        sessions.push((shown["session"]["createdAt"].as_str().unwrap().to_string(), session.clone(), shown));
    }
    sessions.sort_by(|a, b| a.0.cmp(&b.0));
    let received = requests(agent);
    let mut next = 0;
    let mut out = Vec::new();
    for (_, session, shown) in sessions {
        let id = session["id"].as_str().unwrap();
        let calls = h.alisio(&["calls", "list", id, "--json"]).await.assert_ok().json();
        let mut prompt = 0;
        for call in calls.as_array().unwrap() {
            let body = &received[next]["body"];
            next += 1;
            let n = call["n"].to_string();
            let detail = h.alisio(&["calls", "show", id, &n, "--json"]).await.assert_ok().json();
            assert_eq!(detail["requestSource"], "reconstructed");
            if call["purpose"] == "compaction" {
                assert!(text_of(&body["messages"][0]).contains("summariz"), "request {next} is a summarizer's");
                continue;
            }
            prompt += call["promptTokens"].as_u64().unwrap();
            let rebuilt: Vec<Value> = detail["request"]["messages"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|m| m["role"] != "system")
                .cloned()
                .collect();
            let sent = body["messages"].as_array().unwrap();
            assert_eq!(sent[0]["role"], "system");
            assert_eq!(sent_shape(&rebuilt), sent_shape(&sent[1..]), "{agent} request {next} ({id} call {n})");
            // The system prompt is not in the task's files: said so, with its size estimated.
            assert!(detail["missing"].as_array().unwrap().iter().any(|m| m["part"] == "system"), "{detail:#}");
        }
        let reasons =
            shown["compactions"].as_array().unwrap().iter().map(|c| c["reason"].as_str().unwrap().to_string());
        out.push((session, reasons.collect(), prompt));
    }
    assert_eq!(next, received.len(), "one ledger row per request the server received");
    out
}

#[tokio::test]
async fn cline_task_folders_import_with_each_request_as_sent_through_truncations_and_condenses() {
    let tasks = tasks_against_requests("cline-tasks", "home/.cline/data", "cline").await;
    let list: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(fixtures("cline-tasks").join("home/.cline/data/state/taskHistory.json")).unwrap(),
    )
    .unwrap();
    let reasons: Vec<Vec<String>> = tasks.iter().map(|(_, r, _)| r.clone()).collect();
    let s = |v: &[&str]| v.iter().map(|r| r.to_string()).collect::<Vec<_>>();
    // /smol; four truncations; none; one truncation; the model's summarize_task.
    assert_eq!(reasons, [s(&["manual"]), s(&["budget"; 4]), s(&[]), s(&["budget"]), s(&["auto"])]);
    for (session, _, prompt) in &tasks {
        // The agent's own totals: every answer's prompt tokens, each counted once.
        let item = list.iter().find(|t| session["sourceId"] == t["id"]).unwrap();
        assert_eq!(*prompt, item["tokensIn"].as_u64().unwrap(), "{}", session["title"]);
        assert!(item["task"].as_str().unwrap().starts_with(session["title"].as_str().unwrap().trim_end_matches('…')));
    }
}

#[tokio::test]
async fn roo_code_task_folders_import_with_each_request_as_sent_through_condenses_and_truncation_markers() {
    let tasks = tasks_against_requests("roo", "home/.vscode-mock", "roo").await;
    let reasons: Vec<Vec<String>> = tasks.iter().map(|(_, r, _)| r.clone()).collect();
    let s = |v: &[&str]| v.iter().map(|r| r.to_string()).collect::<Vec<_>>();
    assert_eq!(reasons, [s(&[]), s(&["auto", "auto"]), s(&["budget"; 6])]);
    let storage = fixtures("roo").join("home/.vscode-mock/global-storage/tasks");
    for (session, _, prompt) in &tasks {
        let item: Value = serde_json::from_str(
            &std::fs::read_to_string(storage.join(session["sourceId"].as_str().unwrap()).join("history_item.json"))
                .unwrap(),
        )
        .unwrap();
        assert_eq!(*prompt, item["tokensIn"].as_u64().unwrap(), "{}", session["title"]);
    }
}
