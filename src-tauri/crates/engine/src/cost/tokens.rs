//! Token counts as the APIs report them, read once. Anthropic's usage counts input apart from
//! cache reads and cache writes (the three add up to the prompt), and later versions split the
//! writes by cache lifetime (`cache_creation.ephemeral_5m_input_tokens` / `_1h_`, priced apart).
//! The provider client, the proxy and every importer of Anthropic-shaped records read it here.

use serde_json::Value;

/// An Anthropic `usage` object's figures in Alisio's terms.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AnthropicUsage {
    /// Every input token: input + cache reads + cache writes (`None` when the object has none).
    pub prompt: Option<u64>,
    pub cache_read: Option<u64>,
    /// All cache writes, whatever their lifetime.
    pub cache_write: Option<u64>,
    /// The part of the writes that went to the 1-hour cache.
    pub cache_write_1h: Option<u64>,
    pub output: Option<u64>,
}

impl AnthropicUsage {
    /// Reads a whole or partial `usage` (a stream's `message_delta` sends only some keys).
    pub fn read(usage: &Value) -> Self {
        let n = |pointer: &str| usage.pointer(pointer).and_then(Value::as_u64);
        let input = n("/input_tokens");
        let read = n("/cache_read_input_tokens");
        let split = (n("/cache_creation/ephemeral_5m_input_tokens"), n("/cache_creation/ephemeral_1h_input_tokens"));
        let written = n("/cache_creation_input_tokens").or(match split {
            (None, None) => None,
            (five, hour) => Some(five.unwrap_or(0) + hour.unwrap_or(0)),
        });
        let any_input = input.is_some() || read.is_some() || written.is_some();
        AnthropicUsage {
            prompt: any_input.then(|| input.unwrap_or(0) + read.unwrap_or(0) + written.unwrap_or(0)),
            cache_read: read,
            cache_write: written,
            cache_write_1h: split.1,
            output: n("/output_tokens"),
        }
    }

    /// Whether the object holds Anthropic's cache fields (told apart from OpenAI's `input_tokens`).
    pub fn is_anthropic(usage: &Value) -> bool {
        ["cache_read_input_tokens", "cache_creation_input_tokens", "cache_creation"]
            .iter()
            .any(|k| usage.get(k).is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn input_cache_reads_and_both_cache_writes_add_up() {
        let usage = json!({"input_tokens": 10, "cache_read_input_tokens": 1000, "cache_creation_input_tokens": 300,
                           "cache_creation": {"ephemeral_5m_input_tokens": 200, "ephemeral_1h_input_tokens": 100},
                           "output_tokens": 7});
        let read = AnthropicUsage::read(&usage);
        assert_eq!(
            read,
            AnthropicUsage {
                prompt: Some(1310),
                cache_read: Some(1000),
                cache_write: Some(300),
                cache_write_1h: Some(100),
                output: Some(7)
            }
        );
        // Only the split written: the writes are its sum.
        let split = json!({"input_tokens": 1, "cache_creation": {"ephemeral_5m_input_tokens": 2, "ephemeral_1h_input_tokens": 3}});
        assert_eq!(AnthropicUsage::read(&split).prompt, Some(6));
        assert_eq!(AnthropicUsage::read(&split).cache_write, Some(5));
        // A stream's last delta: output only.
        assert_eq!(
            AnthropicUsage::read(&json!({"output_tokens": 42})),
            AnthropicUsage { output: Some(42), ..Default::default() }
        );
    }
}
