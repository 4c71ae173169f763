//! Model ids as agents and gateways write them, and the names the price table knows them by.
//!
//! An id is looked up as written first (a gateway's own entry, e.g. Bedrock's `us.` profile with
//! its surcharge, is the price the data states), then in forms normalised one rule at a time —
//! most specific first, so a rule never reaches a sibling the id is not:
//! - routing prefixes dropped one at a time (`openrouter/anthropic/claude-…` → `anthropic/claude-…`
//!   → `claude-…`);
//! - Vertex's `@date` written as `-date`, `@latest` / `@default` dropped;
//! - Bedrock's geographic profile (`us.`, `eu.`, `apac.`, `global.`, …), vendor (`anthropic.`) and
//!   version (`-v1:0`) dropped;
//! - Claude's dotted versions (`claude-sonnet-4.5`, `claude-3.5-sonnet`) written with dashes;
//! - the vendor's own API named (`grok-4` → `xai/grok-4`, `kimi-k2.5` → `moonshot/kimi-k2.5`), for
//!   ids written bare beside a provider setting — a first-party API, never a gateway;
//! - a `-latest` alias, then a date suffix (`-20250929`, `-2024-08-06`), dropped — only when the
//!   longer name has no entry of its own.

/// One form of an id and the rules that made it from the id as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub name: String,
    /// Empty for the id as written (lower case).
    pub rules: Vec<&'static str>,
}

/// The forms of `model` to look up, in order.
pub fn candidates(model: &str) -> Vec<Candidate> {
    let written = model.trim().to_lowercase();
    let mut out: Vec<Candidate> = Vec::new();
    let mut push = |name: String, rules: Vec<&'static str>| {
        if !name.is_empty() && !out.iter().any(|c| c.name == name) {
            out.push(Candidate { name, rules });
        }
    };
    push(written.clone(), Vec::new());
    // Routing prefixes, one segment at a time.
    let mut rest = written.as_str();
    while let Some((_, tail)) = rest.split_once('/') {
        rest = tail;
        push(rest.to_string(), vec!["provider prefix dropped"]);
    }
    let bare = rest.to_string();
    let prefixed = bare != written;
    let base_rules = |extra: &[&'static str]| {
        let mut rules: Vec<&'static str> = if prefixed { vec!["provider prefix dropped"] } else { Vec::new() };
        rules.extend_from_slice(extra);
        rules
    };
    // Each rule over the bare name, then all of them together, then aliases and dates.
    let vertex = vertex(&bare);
    let bedrock = bedrock(&vertex.clone().unwrap_or_else(|| bare.clone()));
    let dotted = dotted(&bedrock.clone().or_else(|| vertex.clone()).unwrap_or_else(|| bare.clone()));
    let mut forms: Vec<(String, Vec<&'static str>)> = Vec::new();
    if let Some(v) = &vertex {
        forms.push((v.clone(), base_rules(&["Vertex @version"])));
    }
    if let Some(b) = bedrock.clone() {
        let mut rules = vec![];
        if vertex.is_some() {
            rules.push("Vertex @version");
        }
        rules.push("Bedrock profile and version");
        forms.push((b, base_rules(&rules)));
    }
    if let Some(d) = dotted {
        let mut rules = vec![];
        if vertex.is_some() {
            rules.push("Vertex @version");
        }
        if bedrock.is_some() {
            rules.push("Bedrock profile and version");
        }
        rules.push("dotted version");
        forms.push((d, base_rules(&rules)));
    }
    let normalised = forms.last().map(|(n, r)| (n.clone(), r.clone())).unwrap_or((bare.clone(), base_rules(&[])));
    for (name, rules) in forms {
        push(name, rules);
    }
    let (name, rules) = normalised;
    let with_vendor = |name: &str, rules: &[&'static str], push: &mut dyn FnMut(String, Vec<&'static str>)| {
        if let Some(vendor) = vendor(name) {
            let mut r = rules.to_vec();
            r.push("the vendor's own API");
            push(format!("{vendor}/{name}"), r);
        }
    };
    with_vendor(&name, &rules, &mut push);
    if let Some(alias) = name.strip_suffix("-latest") {
        let mut r = rules.clone();
        r.push("`-latest` alias");
        push(alias.to_string(), r.clone());
        with_vendor(alias, &r, &mut push);
    }
    if let Some(undated) = strip_date(&name) {
        let mut r = rules;
        r.push("date suffix dropped (no dated entry)");
        push(undated.clone(), r.clone());
        with_vendor(&undated, &r, &mut push);
    }
    out
}

/// The prefix of the first-party API of the vendor whose model `name` is (`grok-4` → `xai`), for
/// ids an agent writes bare beside a provider setting of its own. Never a gateway's.
fn vendor(name: &str) -> Option<&'static str> {
    const VENDORS: [(&str, &str); 15] = [
        ("grok", "xai"),
        ("kimi", "moonshot"),
        ("moonshot", "moonshot"),
        ("glm", "zai"),
        ("qwen", "dashscope"),
        ("qwq", "dashscope"),
        ("devstral", "mistral"),
        ("codestral", "mistral"),
        ("mistral", "mistral"),
        ("magistral", "mistral"),
        ("ministral", "mistral"),
        ("pixtral", "mistral"),
        ("minimax", "minimax"),
        ("deepseek", "deepseek"),
        ("gemini", "gemini"),
    ];
    VENDORS.iter().find(|(prefix, _)| name.starts_with(prefix)).map(|(_, vendor)| *vendor)
}

/// `claude-sonnet-4@20250514` → `claude-sonnet-4-20250514`; `codestral@latest` → `codestral`.
fn vertex(name: &str) -> Option<String> {
    let (model, version) = name.split_once('@')?;
    Some(match version {
        "latest" | "default" | "" => model.to_string(),
        v => format!("{model}-{v}"),
    })
}

/// `us.anthropic.claude-sonnet-4-5-20250929-v1:0` → `claude-sonnet-4-5-20250929`.
fn bedrock(name: &str) -> Option<String> {
    const PROFILES: [&str; 9] = ["us.", "eu.", "apac.", "global.", "jp.", "au.", "us-gov.", "ca.", "ap."];
    const VENDORS: [&str; 1] = ["anthropic."];
    let mut rest = name;
    let mut changed = false;
    if let Some(p) = PROFILES.iter().find(|p| rest.starts_with(**p)) {
        rest = &rest[p.len()..];
        changed = true;
    }
    if let Some(v) = VENDORS.iter().find(|v| rest.starts_with(**v)) {
        rest = &rest[v.len()..];
        changed = true;
    }
    if !changed {
        return None;
    }
    // A `-v1`, `-v1:0`, `-v2:0` version suffix.
    if let Some(at) = rest.rfind("-v") {
        let version = &rest[at + 2..];
        let (major, minor) = version.split_once(':').unwrap_or((version, "0"));
        if !major.is_empty() && major.bytes().all(|b| b.is_ascii_digit()) && minor.bytes().all(|b| b.is_ascii_digit()) {
            rest = &rest[..at];
        }
    }
    Some(rest.to_string())
}

/// `claude-sonnet-4.5` → `claude-sonnet-4-5`, `claude-3.5-sonnet` → `claude-3-5-sonnet` (Claude's
/// ids only: OpenAI's and Google's are dotted themselves).
fn dotted(name: &str) -> Option<String> {
    if !name.starts_with("claude") || !name.contains('.') {
        return None;
    }
    let bytes = name.as_bytes();
    let mut out = String::with_capacity(name.len());
    for (i, c) in name.char_indices() {
        let digit_around =
            i > 0 && bytes[i - 1].is_ascii_digit() && bytes.get(i + 1).is_some_and(|b| b.is_ascii_digit());
        out.push(if c == '.' && digit_around { '-' } else { c });
    }
    (out != name).then_some(out)
}

/// `gpt-4o-2024-08-06` → `gpt-4o`; `claude-opus-4-6-20260205` → `claude-opus-4-6`.
fn strip_date(name: &str) -> Option<String> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let Some(at) = name.rfind('-') {
        let tail = &name[at + 1..];
        if tail.len() == 8 && digits(tail) && tail.starts_with("20") {
            return Some(name[..at].to_string());
        }
    }
    // -YYYY-MM-DD
    if name.len() > 11 {
        let (head, tail) = name.split_at(name.len() - 11);
        let parts: Vec<&str> = tail.split('-').collect();
        if parts.len() == 4
            && parts[0].is_empty()
            && parts[1].len() == 4
            && parts[1].starts_with("20")
            && parts[2].len() == 2
            && parts[3].len() == 2
            && parts[1..].iter().all(|p| digits(p))
        {
            return Some(head.to_string());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(model: &str) -> Vec<String> {
        candidates(model).into_iter().map(|c| c.name).collect()
    }

    #[test]
    fn ids_are_tried_as_written_first_then_one_rule_at_a_time() {
        assert_eq!(
            names("openrouter/anthropic/claude-sonnet-4.5"),
            [
                "openrouter/anthropic/claude-sonnet-4.5",
                "anthropic/claude-sonnet-4.5",
                "claude-sonnet-4.5",
                "claude-sonnet-4-5"
            ]
        );
        assert_eq!(
            names("us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
            ["us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5-20250929", "claude-sonnet-4-5"]
        );
        assert_eq!(
            names("claude-sonnet-4@20250514"),
            ["claude-sonnet-4@20250514", "claude-sonnet-4-20250514", "claude-sonnet-4"]
        );
        assert_eq!(names("claude-3-5-haiku-latest"), ["claude-3-5-haiku-latest", "claude-3-5-haiku"]);
        assert_eq!(names("gpt-4o-2024-08-06"), ["gpt-4o-2024-08-06", "gpt-4o"]);
        assert_eq!(names("gpt-5.1-codex-mini"), ["gpt-5.1-codex-mini"], "OpenAI's dots are its own");
        assert_eq!(
            names("models/gemini-2.5-flash"),
            ["models/gemini-2.5-flash", "gemini-2.5-flash", "gemini/gemini-2.5-flash"]
        );
        assert_eq!(names("qwen2.5-coder:7b"), ["qwen2.5-coder:7b", "dashscope/qwen2.5-coder:7b"]);
        assert_eq!(
            names("x-ai/grok-code-fast-1"),
            ["x-ai/grok-code-fast-1", "grok-code-fast-1", "xai/grok-code-fast-1"]
        );
        let rules = &candidates("anthropic/claude-3.5-sonnet")[2].rules;
        assert_eq!(rules, &["provider prefix dropped", "dotted version"]);
    }
}
