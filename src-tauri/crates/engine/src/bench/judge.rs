//! The bake-off's judge (`--judge PROFILE`): a model asked, for each probe the exact check could not
//! find, whether the request an arm left still carries it in other words. Only the probes whose
//! answer is not a fact are put to it — the user's constraints and the latest request; a file's
//! name or an error's text is a fact, and stays checked exactly. Its verdict counts apart
//! (`judged`), so an arm's score says what was found verbatim and what a model vouched for.

use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::config::{Api, ProviderConfig};
use crate::error::Result;
use crate::fidelity::{Missing, MissingKind};
use crate::provider::wire::WireItem;
use crate::provider::{build_body, Provider, RequestOptions};

/// How much of an arm's request the judge reads (its end: the checkpoint and what follows).
const READ_CHARS: usize = 48_000;

/// A model put to judging probes, with the profile it came from.
pub struct Judge {
    provider: Provider,
    config: ProviderConfig,
}

impl Judge {
    pub fn new(config: &ProviderConfig) -> Result<Self> {
        Ok(Self { provider: Provider::new(config)?, config: config.clone() })
    }

    /// Whether a probe of `kind` is put to the judge when the exact check misses it.
    pub fn judges(kind: MissingKind) -> bool {
        matches!(kind, MissingKind::Instruction | MissingKind::Task)
    }

    /// Of `missing`, the ones the judge says `request` carries in other words, by index.
    pub async fn rescued(&self, missing: &[Missing], request: &str, cancel: &CancellationToken) -> Result<Vec<usize>> {
        let start = request.char_indices().rev().nth(READ_CHARS).map_or(0, |(i, _)| i);
        let read = &request[start..];
        let mut rescued = Vec::new();
        for (i, probe) in missing.iter().enumerate().filter(|(_, m)| Self::judges(m.kind)) {
            if self.ask(read, &probe.value, cancel).await? {
                rescued.push(i);
            }
        }
        Ok(rescued)
    }

    async fn ask(&self, request: &str, fact: &str, cancel: &CancellationToken) -> Result<bool> {
        let question = format!(
            "Below is what a coding agent's model was sent after its history was compacted.\n\n<request>\n{request}\n</request>\n\n\
             Does it still tell the model the following, in any words? Answer YES or NO, and nothing else.\n\n<fact>\n{fact}\n</fact>"
        );
        let wire = [
            WireItem::Text {
                role: "system",
                content: "You judge whether a compacted conversation kept a fact. Answer YES or NO.".into(),
            },
            WireItem::Text { role: "user", content: question },
        ];
        let options = RequestOptions { max_tokens: 8, tool_choice_none: false };
        let mut body = build_body(&self.config, &wire, &json!([]), options);
        if self.config.api != Api::Anthropic {
            body["stream"] = json!(false);
            body.as_object_mut().map(|b| b.remove("stream_options"));
        }
        let completion = self.provider.send(&body, &mut |_| {}, cancel).await?;
        Ok(verdict(&completion.text))
    }
}

/// YES (any case, leading punctuation or space aside) is a yes; anything else is a no.
fn verdict(text: &str) -> bool {
    text.trim_start_matches(|c: char| !c.is_alphanumeric()).to_ascii_lowercase().starts_with("yes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_yes_is_a_yes() {
        assert!(verdict("YES"));
        assert!(verdict(" yes, it does."));
        assert!(verdict("**Yes**"));
        assert!(!verdict("NO"));
        assert!(!verdict("It says yes elsewhere"));
        assert!(!verdict(""));
    }
}
