//! The structured checkpoint: the summary request, strict validation of the
//! answer, salvage of an answer cut by the output budget, and the text the model sees.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::fidelity::ArtifactTrail;

pub use crate::fidelity::CHECKPOINT_SECTIONS as SECTIONS;

const SECTION_HINTS: [&str; 7] = [
    "what the session is trying to achieve",
    "instructions and constraints the user gave",
    "facts learned along the way",
    "work already done",
    "the current situation",
    "what remains to be done",
    "files that matter, with a few words each",
];

pub const CHECKPOINT_HEADING: &str = "## Checkpoint — summary of the earlier conversation";

/// A field a plugin asks the summarizer to fill (`outputFields`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutputField {
    pub name: String,
    pub description: String,
}

/// A validated checkpoint: the seven sections (all present unless partial), or text used as is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Checkpoint {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(type = "Record<string, string | Array<string>>", optional))]
    pub sections: Option<Map<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub text: Option<String>,
    /// Values of the fields plugins asked for, by field name.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    #[cfg_attr(feature = "ts", ts(type = "Record<string, JsonValue>", optional))]
    pub plugin_fields: Map<String, Value>,
}

/// Adds Alisio's artifact trail to a checkpoint: files to `relevantFiles`, command results to
/// `discoveries` (items already there are not repeated); a text checkpoint gets them as two lists.
pub fn add_trail(checkpoint: &mut Checkpoint, trail: &ArtifactTrail) {
    if trail.is_empty() {
        return;
    }
    match (&mut checkpoint.sections, &mut checkpoint.text) {
        (Some(sections), _) => {
            append_items(sections, "relevantFiles", &trail.files);
            append_items(sections, "discoveries", &trail.commands);
        }
        (None, Some(text)) => text.push_str(&trail_text(trail)),
        (None, None) => checkpoint.text = Some(trail_text(trail).trim_start().to_string()),
    }
}

/// The trail as text after a summary: two lists.
pub fn trail_text(trail: &ArtifactTrail) -> String {
    let mut out = String::new();
    for (heading, items) in [("Files touched", &trail.files), ("Commands run", &trail.commands)] {
        if !items.is_empty() {
            out.push_str(&format!("\n\n{heading} (recorded by Alisio):\n"));
            out.extend(items.iter().map(|i| format!("- {i}\n")));
        }
    }
    out.trim_end().to_string()
}

fn append_items(sections: &mut Map<String, Value>, name: &str, items: &[String]) {
    if items.is_empty() {
        return;
    }
    let entry = sections.entry(name.to_string()).or_insert_with(|| Value::Array(Vec::new()));
    if let Value::String(text) = entry {
        let text = std::mem::take(text);
        *entry = Value::Array(if text.trim().is_empty() { Vec::new() } else { vec![Value::String(text)] });
    }
    if let Value::Array(list) = entry {
        for item in items {
            if !list.iter().any(|v| v.as_str() == Some(item.as_str())) {
                list.push(Value::String(item.clone()));
            }
        }
    }
}

/// The user message appended to the live request to ask for the checkpoint.
pub fn summary_request(
    focus: Option<&str>,
    kept_from: Option<&str>,
    plugin_instructions: &[String],
    fields: &[OutputField],
) -> String {
    let mut out = String::from(
        "Create a checkpoint of this conversation so that the work can continue from it after older messages are removed.\n",
    );
    if let Some(kept) = kept_from {
        out.push_str(&format!(
            "The most recent messages, starting with \"{kept}\", stay verbatim after the checkpoint: summarize everything before them.\n"
        ));
    }
    if let Some(focus) = focus.filter(|f| !f.trim().is_empty()) {
        out.push_str(&format!("Focus the checkpoint on: {focus}\n"));
    }
    for instruction in plugin_instructions {
        out.push_str(instruction.trim());
        out.push('\n');
    }
    out.push_str("\nAnswer with one JSON object and nothing else. Fields (each a string or a list of strings):\n");
    for ((field, _), hint) in SECTIONS.iter().zip(SECTION_HINTS) {
        out.push_str(&format!("- \"{field}\": {hint}\n"));
    }
    for field in fields {
        out.push_str(&format!("- \"{}\": {}\n", field.name, field.description));
    }
    out.push_str("Do not call tools.");
    out
}

#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    pub checkpoint: Checkpoint,
    pub partial: bool,
}

fn strip_fences(text: &str) -> &str {
    let trimmed = text.trim();
    let Some(rest) = trimmed.strip_prefix("```") else { return trimmed };
    let body = rest.split_once('\n').map(|(_, body)| body).unwrap_or("");
    body.trim_end().strip_suffix("```").unwrap_or(body).trim()
}

fn valid_section(value: &Value) -> bool {
    match value {
        Value::String(_) => true,
        Value::Array(items) => items.iter().all(Value::is_string),
        _ => false,
    }
}

fn non_empty(value: &Value) -> bool {
    match value {
        Value::String(s) => !s.trim().is_empty(),
        Value::Array(items) => items.iter().any(|i| i.as_str().is_some_and(|s| !s.trim().is_empty())),
        _ => false,
    }
}

fn split_fields(object: &Map<String, Value>, fields: &[OutputField]) -> (Map<String, Value>, Map<String, Value>) {
    let sections: Map<String, Value> = SECTIONS
        .iter()
        .filter_map(|(name, _)| object.get(*name).filter(|v| valid_section(v)).map(|v| (name.to_string(), v.clone())))
        .collect();
    let plugin_fields =
        fields.iter().filter_map(|f| object.get(&f.name).map(|v| (f.name.clone(), v.clone()))).collect();
    (sections, plugin_fields)
}

/// Validates the summarizer's answer. `truncated`: the output budget cut it. `Err` when nothing
/// usable came back (the caller turns it into `compaction_failed`).
pub fn parse_checkpoint(answer: &str, truncated: bool, fields: &[OutputField]) -> Result<Parsed, String> {
    let body = strip_fences(answer);
    if body.is_empty() {
        return Err("the summarizer returned an empty answer".into());
    }
    if let Ok(Value::Object(object)) = serde_json::from_str::<Value>(body) {
        let complete = SECTIONS.iter().all(|(name, _)| object.get(*name).is_some_and(valid_section));
        if complete {
            let (sections, plugin_fields) = split_fields(&object, fields);
            return Ok(Parsed {
                checkpoint: Checkpoint { sections: Some(sections), text: None, plugin_fields },
                partial: truncated,
            });
        }
    }
    if truncated {
        if let Some(Value::Object(object)) = repair_truncated_json(body) {
            let (sections, plugin_fields) = split_fields(&object, fields);
            if sections.values().any(non_empty) {
                return Ok(Parsed {
                    checkpoint: Checkpoint { sections: Some(sections), text: None, plugin_fields },
                    partial: true,
                });
            }
        }
        if body.starts_with('{') || body.starts_with('[') {
            return Err("the summary was cut before it contained anything usable".into());
        }
    }
    Ok(Parsed {
        checkpoint: Checkpoint { sections: None, text: Some(answer.trim().to_string()), plugin_fields: Map::new() },
        partial: truncated,
    })
}

/// Closes a JSON document cut mid-way, dropping the incomplete tail: tries the whole text, then
/// prefixes ending at the last structural characters.
pub fn repair_truncated_json(text: &str) -> Option<Value> {
    let mut candidates: Vec<usize> = vec![text.len()];
    candidates.extend(
        text.char_indices()
            .rev()
            .filter(|(_, c)| matches!(c, ',' | '}' | ']' | '"'))
            .map(|(i, c)| i + c.len_utf8())
            .take(64),
    );
    for end in candidates {
        let prefix = &text[..end];
        let mut stack = Vec::new();
        let (mut in_string, mut escaped) = (false, false);
        for c in prefix.chars() {
            if in_string {
                match (escaped, c) {
                    (true, _) => escaped = false,
                    (false, '\\') => escaped = true,
                    (false, '"') => in_string = false,
                    _ => {}
                }
                continue;
            }
            match c {
                '"' => in_string = true,
                '{' => stack.push('}'),
                '[' => stack.push(']'),
                '}' | ']' => {
                    stack.pop();
                }
                _ => {}
            }
        }
        let mut repaired = prefix.to_string();
        if escaped {
            repaired.pop();
        }
        if in_string {
            repaired.push('"');
        }
        let trimmed_len = repaired.trim_end().trim_end_matches([',', ':']).trim_end().len();
        repaired.truncate(trimmed_len);
        while let Some(close) = stack.pop() {
            repaired.push(close);
        }
        if let Ok(value @ Value::Object(_)) = serde_json::from_str::<Value>(&repaired) {
            return Some(value);
        }
    }
    None
}

/// The checkpoint as the model reads it.
pub fn render(checkpoint: &Checkpoint, partial: bool) -> String {
    let mut out = String::from(CHECKPOINT_HEADING);
    out.push('\n');
    if partial {
        out.push_str("(Partial: the summary was cut by its output budget; later details may be missing.)\n");
    }
    if let Some(sections) = &checkpoint.sections {
        for (name, heading) in SECTIONS {
            let Some(value) = sections.get(name) else { continue };
            out.push_str(&format!("\n### {heading}\n"));
            match value {
                Value::Array(items) => {
                    for item in items.iter().filter_map(Value::as_str) {
                        out.push_str(&format!("- {item}\n"));
                    }
                }
                Value::String(text) => {
                    out.push_str(text.trim());
                    out.push('\n');
                }
                _ => {}
            }
        }
    } else if let Some(text) = &checkpoint.text {
        out.push('\n');
        out.push_str(text);
        out.push('\n');
    }
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn full() -> Value {
        json!({"goal": "ship", "instructions": ["no unsafe"], "discoveries": [], "accomplished": "store", "currentState": "green",
               "nextSteps": ["ui"], "relevantFiles": ["src/lib.rs"], "memory": ["uses WAL"]})
    }

    #[test]
    fn strict_json_with_fences_and_plugin_fields() {
        let fields = vec![OutputField { name: "memory".into(), description: "facts".into() }];
        let parsed = parse_checkpoint(&format!("```json\n{}\n```", full()), false, &fields).unwrap();
        assert!(!parsed.partial);
        let sections = parsed.checkpoint.sections.clone().unwrap();
        assert_eq!(sections.len(), 7);
        assert_eq!(parsed.checkpoint.plugin_fields["memory"], json!(["uses WAL"]));
        let text = render(&parsed.checkpoint, false);
        assert!(text.starts_with(CHECKPOINT_HEADING));
        assert!(text.contains("### User instructions/constraints\n- no unsafe"));
        assert!(text.contains("### Relevant files\n- src/lib.rs"));
    }

    #[test]
    fn invalid_shape_or_prose_is_used_as_text() {
        for answer in ["The user wants X. We did Y.", "{\"goal\": 3}", "{\"goal\": \"only one field\"}"] {
            let parsed = parse_checkpoint(answer, false, &[]).unwrap();
            assert_eq!(parsed.checkpoint.text.as_deref(), Some(answer));
            assert!(parsed.checkpoint.sections.is_none());
        }
        assert!(parse_checkpoint("  ", false, &[]).is_err());
    }

    #[test]
    fn truncated_answers_are_salvaged_or_refused() {
        let cut =
            r#"{"goal": "ship the store", "instructions": ["keep it small"], "discoveries": ["WAL is on", "busy time"#;
        let parsed = parse_checkpoint(cut, true, &[]).unwrap();
        assert!(parsed.partial);
        let sections = parsed.checkpoint.sections.unwrap();
        assert_eq!(sections["goal"], "ship the store");
        assert_eq!(sections["discoveries"], json!(["WAL is on", "busy time"]));
        // Prose cut mid-sentence is still a usable text checkpoint.
        let prose = parse_checkpoint("We were migrating the store and had", true, &[]).unwrap();
        assert!(prose.partial && prose.checkpoint.text.is_some());
        // A JSON fragment without any usable section is not.
        assert!(parse_checkpoint("{\"goal\": \"", true, &[]).is_err());
        assert!(parse_checkpoint("```json\n{", true, &[]).is_err());
    }
}
