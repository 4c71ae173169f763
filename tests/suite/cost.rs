//! What calls cost and why the cache missed, through the real binary: prices from config over the
//! shipped table, costs to the micro-dollar, `usage` totals equal to the ledger's, every cause of
//! a cache break produced by real requests (through `alisio proxy`, and a compaction of Alisio's
//! own), and imported sessions of the corpus in `usage` by source.

use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::{json, Value};

use crate::suite::proxy::{client, proxy};
use crate::suite::support::{Answer, Harness, Reply};

/// USD per million tokens → micro-dollars for `tokens`, as a float compared to the JSON.
fn usd(tokens: u64, per_million: f64) -> f64 {
    tokens as f64 * per_million / 1e6
}

fn close(actual: &Value, expected: f64) {
    let actual = actual.as_f64().unwrap_or_else(|| panic!("not a number: {actual}"));
    assert!((actual - expected).abs() < 0.5e-6, "{actual} ≠ {expected} (to the micro-dollar)");
}

fn answer(text: &str, usage: (u64, u64, u64)) -> Reply {
    Reply::Answer(Answer { usage: Some(usage), ..Answer::text(text) })
}

#[tokio::test]
async fn calls_are_priced_by_the_entry_in_force_and_usage_adds_up_to_the_ledger() {
    let script =
        vec![answer("one", (10_000, 500, 6_000)), answer("two", (12_000, 700, 9_000)), answer("three", (3_000, 50, 0))];
    let prices = json!({
        "test-model": {"input": 3, "cachedInput": 0.3, "cacheWrite": 3.75, "output": 15, "since": "2020-01-01"},
        // A pattern: less specific than the exact name, never in force for it.
        "test-model*": {"input": 99, "output": 99},
    });
    let h = Harness::with_config(script, json!({"prices": prices})).await;
    let first = h.run(&[], "first").await;
    first.assert_ok();
    let session = first.session();
    h.run(&["--session", &session], "second").await.assert_ok();
    // A model without a price: its call is unpriced, never guessed.
    let config = h.home.path().join("other.json");
    std::fs::write(&config, json!({"provider": {"model": "local-unpriced"}}).to_string()).unwrap();
    h.run(&["--config", config.to_str().unwrap()], "third").await.assert_ok();

    let calls = h.alisio(&["calls", "list", &session, "--json"]).await;
    calls.assert_ok();
    let calls = calls.json();
    let calls = calls.as_array().unwrap();
    // 4,000 uncached × $3 + 6,000 cached × $0.30 + 500 out × $15 (per million).
    close(&calls[0]["costUsd"], usd(4_000, 3.0) + usd(6_000, 0.3) + usd(500, 15.0));
    close(&calls[0]["cacheSavingsUsd"], usd(6_000, 3.0 - 0.3));
    close(&calls[1]["costUsd"], usd(3_000, 3.0) + usd(9_000, 0.3) + usd(700, 15.0));
    assert_eq!(calls[0]["cacheWriteTokens"], Value::Null, "chat completions report no cache writes");
    assert_eq!(calls[0]["model"], "test-model");

    let usage = h.alisio(&["usage", "--by", "model", "--json"]).await;
    usage.assert_ok();
    let usage = usage.json();
    assert_eq!(usage["by"], "model");
    let rows = usage["rows"].as_array().unwrap();
    let row = |model: &str| rows.iter().find(|r| r["key"] == model).unwrap_or_else(|| panic!("no {model}: {usage}"));
    let priced = row("test-model");
    assert_eq!(priced["calls"], 2);
    assert_eq!(priced["promptTokens"], 22_000);
    assert_eq!(priced["cachedTokens"], 15_000);
    assert_eq!(priced["completionTokens"], 1_200);
    assert_eq!(priced["unpricedCalls"], 0);
    close(&priced["costUsd"], calls[0]["costUsd"].as_f64().unwrap() + calls[1]["costUsd"].as_f64().unwrap());
    close(&priced["cacheHitRate"], 15_000.0 / 22_000.0);
    let unpriced = row("local-unpriced");
    assert_eq!(unpriced["costUsd"], Value::Null);
    assert_eq!(unpriced["unpricedCalls"], 1);
    let total = &usage["total"];
    assert_eq!(total["calls"], 3);
    assert_eq!(total["unpricedCalls"], 1);
    assert_eq!(total["promptTokens"], 25_000);
    close(&total["costUsd"], priced["costUsd"].as_f64().unwrap());

    // The totals are the ledger's sums, whatever the grouping.
    let sums =
        h.rows("SELECT count(*), sum(prompt_tokens), sum(cached_tokens), sum(completion_tokens) FROM model_calls");
    for by in ["day", "week", "month", "session", "project", "source"] {
        let report = h.alisio(&["usage", "--by", by, "--json"]).await.json();
        let t = &report["total"];
        assert_eq!(
            vec![
                t["calls"].clone(),
                t["promptTokens"].clone(),
                t["cachedTokens"].clone(),
                t["completionTokens"].clone()
            ],
            sums[0],
            "{by}"
        );
        let per_row: u64 = report["rows"].as_array().unwrap().iter().map(|r| r["calls"].as_u64().unwrap()).sum();
        assert_eq!(per_row, 3, "{by}");
    }
    let by_source = h.alisio(&["usage", "--by", "source", "--json"]).await.json();
    assert_eq!(by_source["rows"][0]["key"], "alisio");
    // Filters: nothing before the calls' day, nothing of another source.
    let none = h.alisio(&["usage", "--until", "2020-01-01", "--json"]).await.json();
    assert_eq!(none["total"]["calls"], 0);
    let none = h.alisio(&["usage", "--source", "codex", "--json"]).await.json();
    assert_eq!(none["total"]["calls"], 0);
    let bad = h.alisio(&["usage", "--by", "year"]).await;
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("--by must be"), "{}", bad.stderr);
}

#[tokio::test]
async fn an_invalid_price_is_refused_naming_its_key() {
    let h = Harness::with_config(vec![], json!({"prices": {"m": {"input": -1, "output": 2}}})).await;
    let run = h.alisio(&["usage"]).await;
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("prices"), "{}", run.stderr);
}

/// A Chat Completions request as an agent builds it.
fn request(model: &str, system: &str, tools: &[&str], messages: &[&str], extra: Value) -> Value {
    let tools: Vec<Value> = tools
        .iter()
        .map(|name| json!({"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}))
        .collect();
    let mut items = vec![json!({"role": "system", "content": system})];
    for (i, text) in messages.iter().enumerate() {
        items.push(json!({"role": if i % 2 == 0 { "user" } else { "assistant" }, "content": text}));
    }
    let mut body = json!({"model": model, "messages": items, "tools": tools});
    if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
        body.extend(extra.clone());
    }
    body
}

#[tokio::test]
async fn every_cause_of_a_cache_break_is_told_apart_with_what_it_cost() {
    let kept = (1_000, 10, 900);
    let missed = (1_000, 10, 0);
    let script = vec![
        answer("a1", kept),
        answer("a2", kept),
        answer("a3", kept),
        answer("a4", kept),
        answer("a5", kept),
        answer("a6", kept),
        answer("a7", missed),
        answer("a8", missed),
    ];
    let prices = json!({"m1": {"input": 2, "cachedInput": 0.5, "output": 8}, "m2": {"input": 4, "cachedInput": 0.4, "output": 16}});
    let h = Harness::with_config(script, json!({"prices": prices, "cacheTtlSeconds": 1})).await;
    let mut proxy = proxy(&h).await;
    let url = format!("{}/v1/chat/completions", proxy.base);
    let conversation = ["u1", "a1", "u2", "a2", "u3", "a3", "u4", "a4", "u5", "a5", "u6", "a6", "u7", "a7", "u8"];
    let edited = ["u1 (edited)", "a1", "u2", "a2", "u3", "a3", "u4", "a4", "u5"];
    let sends = [
        request("m1", "system A", &["read"], &conversation[..1], json!({})),
        request("m1", "system A", &["read"], &conversation[..3], json!({})),
        request("m1", "system B", &["read"], &conversation[..5], json!({})), // system
        request("m1", "system B", &["read", "write"], &conversation[..7], json!({})), // tools
        request("m1", "system B", &["read", "write"], &edited, json!({})),   // messages
        request("m2", "system B", &["read", "write"], &conversation[..11], json!({})), // model
        request("m2", "system B", &["read", "write"], &conversation[..13], json!({})), // expired (after the lifetime)
        request("m2", "system B", &["read", "write"], &conversation[..15], json!({"temperature": 0.2})), // params
    ];
    let mut session = String::new();
    for (i, body) in sends.iter().enumerate() {
        if i == 6 {
            tokio::time::sleep(Duration::from_millis(2_100)).await;
        }
        let answer = client().post(&url).json(body).send().await.unwrap();
        assert_eq!(answer.status(), 200);
        answer.bytes().await.unwrap();
        let captured = proxy.next().await;
        assert_eq!(captured["type"], "captured", "{captured}");
        session = captured["session"].as_str().unwrap().to_string();
    }
    proxy.child.kill().await.unwrap();

    let breaks = h.alisio(&["calls", "breaks", &session, "--json"]).await;
    breaks.assert_ok();
    let breaks = breaks.json();
    let causes: Vec<(u64, &str)> =
        breaks.as_array().unwrap().iter().map(|b| (b["n"].as_u64().unwrap(), b["cause"].as_str().unwrap())).collect();
    assert_eq!(
        causes,
        [(3, "system"), (4, "tools"), (5, "messages"), (6, "model"), (7, "expired"), (8, "params")],
        "{breaks}"
    );
    let expired = &breaks[4];
    // Nothing of call 6's 1,000 prompt tokens came from the cache: each cost m2's input price
    // instead of its cached price.
    assert_eq!(expired["lostTokens"], 1_000);
    close(&expired["missCostUsd"], usd(1_000, 4.0 - 0.4));
    let system = &breaks[0];
    let lost = system["lostTokens"].as_u64().unwrap();
    assert!(lost > 0 && lost <= 1_000, "{system}");
    close(&system["missCostUsd"], usd(lost, 2.0 - 0.5));
    assert_eq!(system["divergence"]["part"], "system");

    // `calls diff` says the same for the pair.
    let diff = h.alisio(&["calls", "diff", &session, "4", "--json"]).await.json();
    assert_eq!(diff["cause"], "tools");
    assert_eq!(diff["lostTokens"], breaks[1]["lostTokens"]);
    let kept = h.alisio(&["calls", "diff", &session, "2", "--json"]).await.json();
    assert_eq!(kept["cause"], Value::Null, "an intact prefix the server reused is no break");
}

#[tokio::test]
async fn a_compaction_between_two_calls_is_the_cause_of_their_break_and_its_summary_is_priced_both_ways() {
    let checkpoint = json!({
        "goal": "g", "instructions": [], "discoveries": [], "accomplished": "a", "currentState": "s",
        "nextSteps": [], "relevantFiles": [],
    })
    .to_string();
    let script = vec![
        answer("answer 1", (1_000, 10, 0)),
        answer("answer 2", (1_200, 10, 1_000)),
        // The summary extends the request and reads it from the cache.
        answer(&checkpoint, (1_300, 40, 1_200)),
        answer("answer 3", (400, 10, 0)),
    ];
    let prices = json!({"test-model": {"input": 3, "cachedInput": 0.3, "output": 15}});
    let h = Harness::with_config(script, json!({"prices": prices})).await;
    let run = h.run(&[], "question 1").await;
    run.assert_ok();
    let session = run.session();
    h.run(&["--session", &session], "question 2").await.assert_ok();
    h.alisio(&["compact", &session, "--json"]).await.assert_ok();
    h.run(&["--session", &session], "question 3").await.assert_ok();
    let breaks = h.alisio(&["calls", "breaks", &session, "--json"]).await.json();
    let causes: Vec<&str> = breaks.as_array().unwrap().iter().map(|b| b["cause"].as_str().unwrap()).collect();
    assert_eq!(causes, ["compaction"], "{breaks}");
    assert_eq!(breaks[0]["n"], 4);
    let lost = breaks[0]["lostTokens"].as_u64().unwrap();
    close(&breaks[0]["missCostUsd"], usd(lost, 3.0 - 0.3));

    // The summary read 1,200 of its 1,300 prompt tokens from the cache; rebuilt, all are input.
    let savings = h.alisio(&["calls", "savings", &session, "--json"]).await;
    savings.assert_ok();
    let savings = savings.json();
    let s = &savings[0];
    assert_eq!(s["n"], 3);
    assert_eq!((s["promptTokens"].clone(), s["cachedTokens"].clone()), (json!(1_300), json!(1_200)));
    close(&s["summaryCostUsd"], usd(100, 3.0) + usd(1_200, 0.3) + usd(40, 15.0));
    close(&s["rebuiltCostUsd"], usd(1_300, 3.0) + usd(40, 15.0));
    close(&s["savedUsd"], usd(1_200, 3.0 - 0.3));
}

#[tokio::test]
async fn imported_sessions_of_every_agent_are_in_usage_by_source() {
    let h = Harness::new(vec![]).await;
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/import");
    h.alisio(&["import", corpus.to_str().unwrap(), "--json"]).await.assert_ok();
    let usage = h.alisio(&["usage", "--by", "source", "--json"]).await.json();
    let sessions = h.alisio(&["sessions", "list", "--json"]).await.json();
    for source in ["codex", "claude-code", "opencode"] {
        let row = usage["rows"].as_array().unwrap().iter().find(|r| r["key"] == source);
        let row = row.unwrap_or_else(|| panic!("no {source} row: {usage}"));
        let mut calls = 0;
        for s in sessions.as_array().unwrap().iter().filter(|s| s["source"] == source) {
            let id = s["id"].as_str().unwrap();
            calls += h.alisio(&["calls", "list", id, "--json"]).await.json().as_array().unwrap().len();
        }
        assert!(calls > 0, "{source}");
        assert_eq!(row["calls"], calls, "{source}");
    }
    // Claude Code's cache creation tokens are recorded as cache writes (0 in these files).
    let writes = h.rows("SELECT count(cache_write_tokens), sum(cache_write_tokens) FROM model_calls c JOIN sessions s ON s.id = c.session_id WHERE s.source = 'claude-code' AND c.completion_tokens IS NOT NULL");
    assert!(writes[0][0].as_i64().unwrap() > 0, "{writes:?}");
    let claude = usage["rows"].as_array().unwrap().iter().find(|r| r["key"] == "claude-code").unwrap();
    assert_eq!(claude["cacheWriteTokens"], writes[0][1]);
}

/// One Claude Code assistant record as the CLI writes it.
fn claude_record(n: u32, model: &str, at: &str, usage: Value) -> String {
    json!({
        "parentUuid": format!("u{}", n - 1),
        "isSidechain": false, "userType": "external", "cwd": "/tmp/prices", "sessionId": "prices-session",
        "version": "2.1.0", "type": "assistant", "uuid": format!("u{n}"), "timestamp": at, "requestId": format!("req_{n}"),
        "message": {"id": format!("msg_{n}"), "type": "message", "role": "assistant", "model": model,
                    "content": [{"type": "text", "text": format!("answer {n}")}], "stop_reason": "end_turn", "usage": usage}
    })
    .to_string()
}

/// A Claude Code session of three calls: Sonnet 4.5 with 5-minute and 1-hour cache writes, Haiku
/// 4.5 through Bedrock's US profile, and a model no price names.
fn claude_session(home: &std::path::Path) -> std::path::PathBuf {
    let dir = home.join("claude/projects/-tmp-prices");
    std::fs::create_dir_all(&dir).unwrap();
    let user = json!({"parentUuid": null, "isSidechain": false, "type": "user", "uuid": "u0", "sessionId": "prices-session",
        "cwd": "/tmp/prices", "version": "2.1.0", "timestamp": "2026-11-30T10:00:00.000Z",
        "message": {"role": "user", "content": "price these"}});
    let usage = |input: u64, read: u64, five: u64, hour: u64, output: u64, tier: &str| {
        json!({
        "input_tokens": input, "cache_read_input_tokens": read, "cache_creation_input_tokens": five + hour,
        "cache_creation": {"ephemeral_5m_input_tokens": five, "ephemeral_1h_input_tokens": hour},
        "output_tokens": output, "service_tier": tier})
    };
    let lines = [
        user.to_string(),
        claude_record(
            1,
            "claude-sonnet-4-5-20250929",
            "2026-11-30T10:00:05.000Z",
            usage(1_000, 20_000, 4_000, 10_000, 500, "standard"),
        ),
        claude_record(
            2,
            "us.anthropic.claude-haiku-4-5-20251001-v1:0",
            "2026-11-30T10:00:09.000Z",
            usage(2_000, 0, 0, 0, 100, "standard"),
        ),
        claude_record(3, "acme-local-model", "2026-11-30T10:00:12.000Z", usage(3_000, 0, 0, 0, 10, "standard")),
    ];
    let file = dir.join("prices-session.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    file
}

#[tokio::test]
async fn imported_calls_are_priced_by_their_ids_as_written_with_1_hour_writes_and_unpriced_models_named() {
    let h = Harness::new(vec![]).await;
    let file = claude_session(h.home.path());
    h.alisio(&["import", file.to_str().unwrap(), "--json"]).await.assert_ok();
    let session = h.alisio(&["sessions", "list", "--json"]).await.json()[0]["id"].as_str().unwrap().to_string();
    let calls = h.alisio(&["calls", "list", &session, "--json"]).await.json();
    let calls = calls.as_array().unwrap();
    assert_eq!(calls.len(), 3, "{calls:?}");
    // Claude Sonnet 4.5 (Anthropic): input $3, cache reads $0.30, 5-minute writes $3.75, 1-hour writes $6, output $15.
    let sonnet = usd(1_000, 3.0) + usd(20_000, 0.3) + usd(4_000, 3.75) + usd(10_000, 6.0) + usd(500, 15.0);
    close(&calls[0]["costUsd"], sonnet);
    assert_eq!(calls[0]["cacheWrite1hTokens"], 10_000);
    // Haiku 4.5 through Bedrock's US profile: AWS's regional price, 10 % above Anthropic's ($1.10 / $5.50).
    let haiku = usd(2_000, 1.1) + usd(100, 5.5);
    close(&calls[1]["costUsd"], haiku);
    assert_eq!(calls[2]["costUsd"], Value::Null, "never guessed");

    let report = h.alisio(&["usage", "--by", "model", "--json"]).await.json();
    close(&report["total"]["costUsd"], sonnet + haiku);
    assert_eq!(report["total"]["unpricedCalls"], 1);
    assert_eq!(report["unpricedModels"], json!([{"model": "acme-local-model", "calls": 1}]));
    assert!(report["priceHint"].as_str().unwrap().contains("alisio prices update"), "{report}");
    let text = h.alisio(&["usage"]).await;
    text.assert_ok();
    assert!(text.stdout.contains("unpriced: acme-local-model (1 calls)"), "{}", text.stdout);

    // Why an id is priced, and why another is not.
    let shown = h
        .alisio(&["prices", "show", "us.anthropic.claude-haiku-4-5-20251001-v1:0", "--at", "2026-11-30", "--json"])
        .await
        .json();
    assert_eq!(shown["normalized"], "us.anthropic.claude-haiku-4-5-20251001-v1:0");
    assert_eq!((shown["entry"]["input"].clone(), shown["entry"]["cacheWrite1h"].clone()), (json!(1.1), json!(2.2)));
    let shown = h.alisio(&["prices", "show", "anthropic/claude-sonnet-4.5", "--json"]).await.json();
    assert_eq!(shown["normalized"], "claude-sonnet-4-5");
    assert!(shown["why"].as_str().unwrap().contains("dotted version"), "{shown}");
    let none = h.alisio(&["prices", "show", "acme-local-model", "--json"]).await.json();
    assert_eq!(none["entry"], Value::Null);
    let bad = h.alisio(&["prices", "show", "gpt-5", "--at", "yesterday"]).await;
    assert_eq!(bad.code, 2, "{}", bad.stderr);

    // A newer snapshot prices the local model from always and reprices Sonnet from its date.
    let snapshot = h.home.path().join("model_prices_and_context_window.json");
    std::fs::write(
        &snapshot,
        json!({
            "acme-local-model": {"litellm_provider": "acme", "mode": "chat", "input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6},
            "claude-sonnet-4-5-20250929": {"litellm_provider": "anthropic", "mode": "chat", "input_cost_per_token": 2e-6,
                "output_cost_per_token": 1e-5, "cache_read_input_token_cost": 2e-7, "cache_creation_input_token_cost": 2.5e-6,
                "cache_creation_input_token_cost_above_1hr": 4e-6}
        })
        .to_string(),
    )
    .unwrap();
    let counts = h.alisio(&["prices", "update", snapshot.to_str().unwrap(), "--since", "2026-12-01", "--json"]).await;
    counts.assert_ok();
    assert_eq!(counts.json(), json!({"added": 1, "changed": 1, "unchanged": 0}));
    assert!(h.home.path().join("prices/2026-12-01-1.json").exists());
    let report = h.alisio(&["usage", "--by", "model", "--json"]).await.json();
    close(&report["total"]["costUsd"], sonnet + haiku + usd(3_000, 1.0) + usd(10, 2.0));
    assert_eq!(report["unpricedModels"], json!([]));
    let later =
        h.alisio(&["prices", "show", "claude-sonnet-4-5-20250929", "--at", "2026-12-02", "--json"]).await.json();
    assert_eq!(
        (later["entry"]["origin"].clone(), later["entry"]["since"].clone()),
        (json!("update"), json!("2026-12-01"))
    );
    let garbage = h.home.path().join("garbage.json");
    std::fs::write(&garbage, "{\"not\": \"prices\"}").unwrap();
    let refused = h.alisio(&["prices", "update", garbage.to_str().unwrap()]).await;
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(refused.stderr.contains("not LiteLLM price data"), "{}", refused.stderr);
}
