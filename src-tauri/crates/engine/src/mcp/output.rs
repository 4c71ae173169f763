//! What a call's result becomes for the model: text parts in order, other parts noted by type
//! and size, capped like the built-in shell's output.

use serde_json::Value;

use crate::tools::output::{annotate, Capture, MAX_OUTPUT_BYTES};
use crate::tools::ToolOutput;

/// A call's result as the model gets it: text parts in order, other parts noted by type and size;
/// `structuredContent` when there is no text; `isError` makes it an error result.
pub fn tool_output(result: &Value) -> ToolOutput {
    let mut parts: Vec<String> = Vec::new();
    for block in result.get("content").and_then(Value::as_array).into_iter().flatten() {
        let kind = block.get("type").and_then(Value::as_str).unwrap_or("unknown");
        let text = |key: &str| block.get(key).and_then(Value::as_str).unwrap_or_default();
        match kind {
            "text" => parts.push(text("text").to_string()),
            "image" | "audio" => {
                let bytes = base64_len(text("data"));
                parts.push(format!("[{kind}: {}, {bytes} bytes]", text("mimeType")));
            }
            "resource" => {
                let resource = block.get("resource").cloned().unwrap_or(Value::Null);
                match resource.get("text").and_then(Value::as_str) {
                    Some(body) => parts.push(body.to_string()),
                    None => parts.push(format!(
                        "[resource: {}, {}, {} bytes]",
                        resource.get("uri").and_then(Value::as_str).unwrap_or("?"),
                        resource.get("mimeType").and_then(Value::as_str).unwrap_or("?"),
                        base64_len(resource.get("blob").and_then(Value::as_str).unwrap_or_default())
                    )),
                }
            }
            "resource_link" => parts.push(format!("[resource link: {}]", text("uri"))),
            other => parts.push(format!("[{other} content]")),
        }
    }
    if parts.is_empty() {
        if let Some(structured) = result.get("structuredContent").filter(|v| !v.is_null()) {
            parts.push(structured.to_string());
        }
    }
    // Capped like the built-in shell's output: kept up to the cap, the rest counted and said.
    let mut capture = Capture::default();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            capture.push(b"\n", MAX_OUTPUT_BYTES);
        }
        capture.push(part.as_bytes(), MAX_OUTPUT_BYTES);
    }
    let (content, lossy, dropped) = capture.into_text();
    let content = annotate(content, lossy, dropped);
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        ToolOutput::error(content)
    } else {
        ToolOutput::ok(content)
    }
}

/// Decoded size of base64 text.
fn base64_len(data: &str) -> usize {
    let data = data.trim_end_matches('=');
    data.len() * 3 / 4
}
