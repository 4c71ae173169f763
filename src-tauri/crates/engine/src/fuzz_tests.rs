//! Property tests for every parser that reads outside input: configuration, checkpoint answers,
//! streamed chat and Responses chunks, whole answers, tool-call arguments, and the streamed-secret
//! redactor. None may panic or hang on any input; errors are values. CI runs the default case
//! count (`PROPTEST_CASES`, 256 per property); `tests/fuzz.sh` runs long campaigns.

use proptest::prelude::*;
use serde_json::{json, Value};

use crate::compaction::checkpoint::{parse_checkpoint, OutputField};
use crate::provider::chat::{parse_completion, ChatStream};
use crate::provider::responses::{parse_response, ResponsesStream};
use crate::provider::wire::outbound_arguments;
use crate::secrets::Secrets;

/// Arbitrary JSON, biased toward the keys and shapes the parsers look for.
fn json_value() -> impl Strategy<Value = Value> {
    let keys = prop_oneof![
        Just("choices".to_string()),
        Just("delta".to_string()),
        Just("message".to_string()),
        Just("content".to_string()),
        Just("tool_calls".to_string()),
        Just("index".to_string()),
        Just("id".to_string()),
        Just("function".to_string()),
        Just("name".to_string()),
        Just("arguments".to_string()),
        Just("finish_reason".to_string()),
        Just("usage".to_string()),
        Just("prompt_tokens".to_string()),
        Just("timings".to_string()),
        Just("cache_n".to_string()),
        Just("type".to_string()),
        Just("output".to_string()),
        Just("response".to_string()),
        Just("status".to_string()),
        Just("error".to_string()),
        Just("provider".to_string()),
        Just("compaction".to_string()),
        Just("threshold".to_string()),
        Just("limits".to_string()),
        Just("maxContextChars".to_string()),
        Just("goal".to_string()),
        Just("nextSteps".to_string()),
        "[a-zA-Z_]{0,12}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        ".{0,40}".prop_map(Value::String),
        prop_oneof![
            Just("response.output_text.delta"),
            Just("response.completed"),
            Just("function_call"),
            Just("message"),
            Just("stop"),
            Just("length")
        ]
        .prop_map(|s| Value::String(s.into())),
    ];
    leaf.prop_recursive(4, 48, 8, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((keys.clone(), inner), 0..8)
                .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn config_values_never_panic(raw in json_value()) {
        let _ = crate::config::from_value(&raw);
        let _ = crate::config::from_value(&json!({"provider": raw.clone(), "compaction": raw.clone(), "limits": raw}));
    }

    #[test]
    fn checkpoint_answers_never_panic(text in ".{0,400}", cut in 0usize..400, truncated in any::<bool>()) {
        let fields = [OutputField { name: "memory".into(), description: "facts".into() }];
        let _ = parse_checkpoint(&text, truncated, &fields);
        // Valid checkpoints cut anywhere (a summary stopped by its output budget).
        let full = json!({"goal": text, "instructions": ["keep ✓ API"], "discoveries": [], "accomplished": [],
                          "currentState": "s", "nextSteps": ["n"], "relevantFiles": ["a.rs"]}).to_string();
        let end = full.char_indices().nth(cut).map_or(full.len(), |(i, _)| i);
        let _ = parse_checkpoint(&full[..end], true, &fields);
    }

    #[test]
    fn streamed_chunks_never_panic(chunks in prop::collection::vec(prop_oneof![json_value().prop_map(|v| v.to_string()), ".{0,80}"], 0..12)) {
        let mut chat = ChatStream::default();
        let mut responses = ResponsesStream::default();
        for chunk in &chunks {
            let _ = chat.apply(chunk);
            let _ = responses.apply(chunk);
        }
        let _ = chat.finish();
        let _ = responses.finish();
    }

    #[test]
    fn whole_answers_never_panic(answer in json_value()) {
        let _ = parse_completion(&answer);
        let _ = parse_response(&answer);
        let _ = parse_completion(&json!({"choices": [{"message": answer.clone(), "finish_reason": "stop"}]}));
        let _ = parse_response(&json!({"output": [answer], "status": "completed"}));
    }

    #[test]
    fn outbound_arguments_are_always_json(arguments in prop_oneof![".{0,200}", json_value().prop_map(|v| v.to_string())]) {
        let sent = outbound_arguments(arguments.clone());
        prop_assert!(serde_json::from_str::<Value>(&sent).is_ok(), "{sent}");
        if serde_json::from_str::<Value>(&arguments).is_ok() {
            prop_assert_eq!(sent, arguments, "valid arguments go back byte for byte");
        }
    }

    #[test]
    fn a_streamed_secret_never_shows_however_it_is_split(
        before in "[a-z ]{0,30}", after in "[a-z ]{0,30}", cuts in prop::collection::vec(0usize..80, 0..8)
    ) {
        let secret = "sk-fuzz-0123456789abcdef";
        let secrets = Secrets::new(vec!["FUZZ_KEY".into()], vec![secret.into()]);
        let text = format!("{before}{secret}{after}{secret}");
        let mut points: Vec<usize> = cuts.into_iter().map(|c| c.min(text.len())).collect();
        points.sort();
        let mut stream = secrets.stream();
        let mut shown = String::new();
        let mut last = 0;
        for point in points {
            shown.push_str(&stream.push(&text[last..point]));
            prop_assert!(!shown.contains("sk-fuzz-0123"), "{shown}");
            last = point;
        }
        shown.push_str(&stream.push(&text[last..]));
        shown.push_str(&stream.finish());
        prop_assert_eq!(shown, secrets.redact(&text).into_owned());
    }
}
