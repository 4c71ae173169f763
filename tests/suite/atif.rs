//! ATIF trajectories: Alisio's export validated against the schema's rules and imported back the
//! same; a v1.7 trajectory with images, copied context and an embedded subagent.

use pretty_assertions::assert_eq;
use serde_json::Value;

use super::agents::fixtures;
use super::support::Harness;

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
