//! Defaults, ranges, profiles and overlays of the configuration, and the schema that carries them.

use super::load::merge;
use super::*;
use serde_json::json;

fn err(doc: Value) -> String {
    match from_value(&doc) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("{doc} should be rejected"),
    }
}

#[test]
fn defaults_are_the_documented_ones() {
    let c = from_value(&json!({})).unwrap();
    assert_eq!(c, Config::default());
    assert_eq!(c.compaction.threshold, 0.85);
    assert_eq!(c.limits.max_context_chars, 800_000);
    assert_eq!(c.cache_compact.context_limit, 131_072);
}

#[test]
fn out_of_range_and_mistyped_values_name_the_key() {
    let cases = [
        (json!({"compaction": {"threshold": 1.5}}), "compaction.threshold", "0.1–0.99"),
        (json!({"compaction": {"threshold": 0.05}}), "compaction.threshold", "0.1–0.99"),
        (json!({"compaction": {"keepTurns": 21}}), "compaction.keepTurns", "0–20"),
        (json!({"compaction": {"keepTurns": "two"}}), "compaction.keepTurns", "expected u32"),
        (json!({"compaction": {"strategy": "fast"}}), "compaction.strategy", "native"),
        (json!({"permissions": {"shell": "sometimes"}}), "permissions.shell", "allow"),
        (json!({"provider": {"api": "grpc"}}), "provider.api", "chat"),
        (json!({"provider": {"baseUrl": "localhost:8080"}}), "provider.baseUrl", "http"),
        (json!({"cacheCompact": {"threshold": 120}}), "cacheCompact.threshold", "1–99"),
        (json!({"limits": {"maxStepsPerTurn": 0}}), "limits.maxStepsPerTurn", "1–10000"),
    ];
    for (doc, key, hint) in cases {
        let message = err(doc);
        assert!(message.contains(key), "{message} should name {key}");
        assert!(message.contains(hint), "{message} should mention {hint}");
    }
}

#[test]
fn the_active_profile_overrides_the_provider_and_unknown_ones_are_refused() {
    let doc = json!({
        "provider": {"baseUrl": "http://127.0.0.1:8080/v1", "model": "default", "contextWindow": null},
        "profiles": {
            "ollama": {"baseUrl": "http://127.0.0.1:11434/v1", "model": "qwen3", "apiKeyEnv": null, "contextWindow": 32768},
            "cloud": {"baseUrl": "https://api.example.com/v1", "model": "big", "api": "responses", "apiKeyEnv": "CLOUD_KEY"}
        },
        "activeProfile": "ollama"
    });
    let c = from_value(&doc).unwrap();
    assert_eq!((c.provider.base_url.as_str(), c.provider.model.as_str()), ("http://127.0.0.1:11434/v1", "qwen3"));
    assert_eq!((c.provider.api_key_env.as_str(), c.provider.profile_context_window), ("", Some(32768)));
    assert_eq!(c.provider.profile.as_deref(), Some("ollama"));
    assert_eq!(c.provider.key_env_names, ["OPENAI_API_KEY", "CLOUD_KEY"]);
    let cloud = with_profile(&doc, "cloud").unwrap();
    assert_eq!((cloud.provider.api, cloud.provider.api_key_env.as_str()), (Api::Responses, "CLOUD_KEY"));
    assert_eq!(cloud.provider.profile_context_window, None);
    let message = with_profile(&doc, "nope").unwrap_err().to_string();
    assert!(message.contains("\"nope\": no such profile (profiles: cloud, ollama)"), "{message}");
    let bad = err(json!({"profiles": {"x": {"baseUrl": "localhost:1"}}}));
    assert!(bad.contains("profiles.x.baseUrl"), "{bad}");
}

#[test]
fn unknown_keys_are_kept_and_overlay_merges_deeply() {
    let mut raw = json!({"compaction": {"threshold": 0.5}, "future": {"x": 1}});
    merge(&mut raw, json!({"compaction": {"keepTurns": 3}}));
    let c = from_value(&raw).unwrap();
    assert_eq!(c.compaction.threshold, 0.5);
    assert_eq!(c.compaction.keep_turns, 3);
    assert_eq!(raw["future"]["x"], 1);
}

/// The schema's defaults are the `Default` impls' values: the settings forms show what the engine does.
#[test]
fn the_schema_carries_the_engine_defaults_ranges_and_options() {
    let schema = schema();
    let defs = &schema["$defs"];
    let compaction = &defs["CompactionConfig"]["properties"];
    assert_eq!(compaction["maxOutputTokens"]["default"], json!(16000));
    assert_eq!(compaction["threshold"]["minimum"], json!(0.1));
    assert_eq!(compaction["threshold"]["maximum"], json!(0.99));
    assert_eq!(defs["CacheCompactConfig"]["properties"]["threshold"]["default"], json!(68.0));
    assert_eq!(defs["CacheCompactConfig"]["properties"]["summaryMaxTokens"]["default"], json!(1200));
    assert_eq!(defs["LimitsConfig"]["properties"]["maxOutputTokens"]["default"], json!(8192));
    let strategies = defs["Strategy"]["enum"].as_array().cloned().unwrap_or_default();
    assert_eq!(
        strategies,
        vec![json!("native"), json!("cache"), json!("mask"), json!("hybrid"), json!("prune"), json!("provider")]
    );
    let document = Config::default().effective_document();
    assert_eq!(document["compaction"]["maxOutputTokens"], json!(16000));
}

/// A server that is not installed here fails to start (reported, the turn goes on); it is not a
/// configuration error that stops every run.
#[test]
fn a_missing_mcp_command_is_not_a_config_error() {
    let c = from_value(&json!({"mcpServers": {"gone": {"command": "no-such-mcp-server-here"}}})).unwrap();
    assert!(c.mcp_servers.contains_key("gone"));
    let message = err(json!({"mcpServers": {"both": {"command": "x", "url": "http://127.0.0.1:1/mcp"}}}));
    assert!(message.contains("mcpServers.both has both"), "{message}");
}

#[test]
fn ranges_in_maps_and_options_name_their_key() {
    let message = err(json!({"profiles": {"p": {"contextWindow": 0}}}));
    assert!(message.contains("profiles.p.contextWindow = 0 is out of range"), "{message}");
    let message = err(json!({"mcpServers": {"t": {"url": "http://127.0.0.1:1/mcp", "startupTimeoutMs": 5}}}));
    assert!(message.contains("mcpServers.t.startupTimeoutMs = 5 is out of range (allowed 100–600000)"), "{message}");
    let message = err(json!({"limits": {"maxContextChars": 10}}));
    assert!(message.contains("limits.maxContextChars = 10 is out of range (allowed 4000–1000000000)"), "{message}");
}
