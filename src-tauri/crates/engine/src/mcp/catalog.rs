//! A bounded tool catalog. MCP tools are offered whole while they fit a budget (config
//! `mcp.maxCatalogTokens`, default a tenth of the window in force); past it they are deferred: the
//! model gets a built-in `tool_search {query}` that returns matching tool definitions, and each
//! tool a search returned is offered from the next request on. Which tools were loaded is read from
//! the session's live history (the searches' results), so it survives restarts and leaves with a
//! compaction. Pure, but for the names of loaded tools the store gives.

use std::collections::HashSet;

use serde_json::{json, Value};

use super::{spec, McpTool};
use crate::config::{Api, Config};
use crate::store::SessionId;
use crate::tools::{added_tool_chars, ToolOutput, ToolSpec};
use crate::transcript::{estimate_tokens, CHARS_PER_TOKEN};

/// The built-in tool that finds deferred MCP tools.
pub const TOOL_SEARCH: &str = "tool_search";
/// Tools one search returns at most.
const SEARCH_RESULTS: usize = 8;

/// The MCP part of a request's tools: what is offered, and how many tools wait behind `tool_search`.
#[derive(Debug, Clone, PartialEq)]
pub struct Offered {
    /// `tool_search` first when tools are deferred, then the MCP tools sent.
    pub specs: Vec<ToolSpec>,
    /// The MCP tools sent (their exposed names), for the view's per-server shares.
    pub sent: Vec<String>,
    pub deferred: usize,
    /// The budget the catalog was held to, in tokens.
    pub budget_tokens: u64,
}

/// The budget for MCP tools: `mcp.maxCatalogTokens`, else a tenth of the window in force, else
/// a tenth of `limits.maxContextChars / 4`.
pub fn budget_tokens(config: &Config, window: Option<u64>) -> u64 {
    config.mcp.max_catalog_tokens.unwrap_or_else(|| {
        let window = window.unwrap_or(config.limits.max_context_chars / CHARS_PER_TOKEN);
        window / 10
    })
}

/// The MCP tools the next request of `session` offers: [`offered`] under the budget of `config`
/// and `window`, with the tools its live history loaded through `tool_search`.
pub fn in_force(
    store: &crate::store::Store,
    config: &Config,
    session: &SessionId,
    tools: &[McpTool],
    window: Option<u64>,
) -> crate::Result<Offered> {
    let budget = budget_tokens(config, window);
    let api = config.provider.api;
    let chars: u64 = tools.iter().map(|t| added_tool_chars(api, &spec(t))).sum();
    let loaded: HashSet<String> = if estimate_tokens(chars) <= budget {
        HashSet::new()
    } else {
        store.live_results_of(session, TOOL_SEARCH)?.iter().flat_map(|r| names_in_result(r)).collect()
    };
    Ok(offered(api, tools, &loaded, budget))
}

/// What of `tools` a request offers: all of them within `budget` tokens; past it `tool_search`
/// and the tools named in `loaded`.
pub fn offered(api: Api, tools: &[McpTool], loaded: &HashSet<String>, budget: u64) -> Offered {
    let chars: u64 = tools.iter().map(|t| added_tool_chars(api, &spec(t))).sum();
    if estimate_tokens(chars) <= budget {
        return Offered {
            specs: tools.iter().map(spec).collect(),
            sent: tools.iter().map(|t| t.exposed.clone()).collect(),
            deferred: 0,
            budget_tokens: budget,
        };
    }
    let chosen: Vec<&McpTool> = tools.iter().filter(|t| loaded.contains(&t.exposed)).collect();
    let mut specs = vec![search_spec(tools.len())];
    specs.extend(chosen.iter().map(|t| spec(t)));
    Offered {
        sent: chosen.iter().map(|t| t.exposed.clone()).collect(),
        deferred: tools.len() - chosen.len(),
        specs,
        budget_tokens: budget,
    }
}

fn search_spec(count: usize) -> ToolSpec {
    ToolSpec {
        name: TOOL_SEARCH.into(),
        description: format!(
            "Find tools among {count} more that are available but not listed here (MCP servers' tools). \
             Describe what you need; the matching tools' definitions are returned and you can call \
             them from your next step on."
        ),
        parameters: json!({"type": "object", "properties": {"query": {"type": "string",
            "description": "What the tool should do, or words of its name"}}, "required": ["query"],
            "additionalProperties": false}),
    }
}

/// `tool_search`: the tools whose name or description best match the query's words.
pub fn search(tools: &[McpTool], arguments: &str) -> ToolOutput {
    let query = serde_json::from_str::<Value>(arguments)
        .ok()
        .and_then(|v| v.get("query").and_then(Value::as_str).map(str::to_lowercase))
        .unwrap_or_default();
    let words: Vec<&str> = query.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    if words.is_empty() {
        return ToolOutput::error("tool_search needs a query: what the tool should do".into());
    }
    let mut scored: Vec<(usize, &McpTool)> = tools
        .iter()
        .map(|t| {
            let name = t.exposed.to_lowercase();
            let text = format!("{name} {} {}", t.tool.to_lowercase(), t.description.to_lowercase());
            let hits = words.iter().filter(|w| text.contains(**w)).count();
            let exact = usize::from(words.iter().any(|w| name.ends_with(&format!("__{w}")) || t.tool == *w));
            (hits + 10 * exact, t)
        })
        .filter(|(score, _)| *score > 0)
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.exposed.cmp(&b.1.exposed)));
    // The best matches only: a tool that matches fewer of the words is not loaded beside them.
    let best = scored.first().map_or(0, |(score, _)| *score);
    let found: Vec<Value> = scored
        .iter()
        .take_while(|(score, _)| *score == best)
        .take(SEARCH_RESULTS)
        .map(|(_, t)| json!({"name": t.exposed, "description": t.description, "parameters": t.input_schema}))
        .collect();
    let note = if found.is_empty() {
        "no tool matches; try other words".to_string()
    } else {
        "these tools are offered from your next step on".to_string()
    };
    ToolOutput::ok(json!({"tools": found, "note": note}).to_string())
}

/// The tool names a `tool_search` result returned (its `tools[].name`).
pub fn names_in_result(content: &str) -> Vec<String> {
    serde_json::from_str::<Value>(content)
        .ok()
        .and_then(|v| v.get("tools").and_then(Value::as_array).cloned())
        .into_iter()
        .flatten()
        .filter_map(|t| t.get("name").and_then(Value::as_str).map(str::to_string))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(i: usize) -> McpTool {
        McpTool {
            exposed: format!("mcp__big__tool_{i:04}"),
            server: "big".into(),
            tool: format!("tool_{i:04}"),
            description: format!("Looks up record {i} in the index"),
            input_schema: json!({"type": "object"}),
        }
    }

    #[test]
    fn a_catalog_over_its_budget_is_deferred_behind_tool_search() {
        let tools: Vec<McpTool> = (0..200).map(tool).collect();
        let all = offered(Api::Chat, &tools, &HashSet::new(), 1_000_000);
        assert_eq!((all.specs.len(), all.deferred), (200, 0));
        let loaded = HashSet::from(["mcp__big__tool_0042".to_string()]);
        let some = offered(Api::Chat, &tools, &loaded, 100);
        assert_eq!(
            some.specs.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
            ["tool_search", "mcp__big__tool_0042"]
        );
        assert_eq!(some.deferred, 199);
    }

    #[test]
    fn search_finds_by_words_and_names_come_back_out_of_its_result() {
        let tools: Vec<McpTool> = (0..50).map(tool).collect();
        let found = search(&tools, r#"{"query": "tool_0007"}"#);
        let names = names_in_result(&found.content);
        assert_eq!(names, ["mcp__big__tool_0007"], "{}", found.content);
        let by_words = names_in_result(&search(&tools, r#"{"query": "looks up record"}"#).content);
        assert_eq!(by_words.len(), SEARCH_RESULTS, "the best matches, at most {SEARCH_RESULTS}");
        assert!(!search(&tools, r#"{"query": ""}"#).ok);
    }
}
