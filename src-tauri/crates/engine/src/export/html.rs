//! A session as one self-contained HTML page for people to share: styles and the small script that
//! folds long outputs are inline, nothing is fetched, so it reads the same offline, in a mail
//! attachment or on a wiki. Rendered from a view that was already redacted; every text is escaped.

use std::collections::HashSet;
use std::fmt::Write as _;

use serde_json::Value;

use super::markdown::{one_line, pretty_arguments};
use super::{LONG_OUTPUT_CHARS, SECTIONS};
use crate::transcript::Role;
use crate::view::{CompactionView, StoredMessage, StoredView};

const STYLE: &str =
    "body{font:14px/1.45 system-ui,sans-serif;max-width:980px;margin:2em auto;padding:0 1em;color:#1d2330}\
h1{font-size:1.4em}h2{font-size:1.1em;margin-top:2em;border-top:1px solid #d8dde6;padding-top:.8em}\
.meta{color:#5b6475}.msg{border-left:3px solid #c9d1de;padding:.3em .8em;margin:.8em 0}\
.user{border-color:#3b6fd4}.assistant{border-color:#2e9d6a}.tool{border-color:#a77b1f}.system{border-color:#8a56c2}\
.role{font-weight:600;text-transform:capitalize}.note{color:#8a5a00;font-size:.9em}\
pre{background:#f5f7fa;padding:.6em;overflow:auto;white-space:pre-wrap;word-break:break-word}\
.compaction{background:#f7f3ea;padding:.6em 1em;border-radius:6px}\
details>summary{cursor:pointer;color:#3b6fd4}";

/// Opens every folded output at once (Ctrl+E on the page); the page works without it.
const SCRIPT: &str = "document.addEventListener('keydown',e=>{if(e.ctrlKey&&e.key==='e'){\
document.querySelectorAll('details').forEach(d=>d.open=!d.open);e.preventDefault();}});";

/// The page.
pub fn page(view: &StoredView) -> String {
    let s = &view.session;
    let mut out = String::new();
    let _ = write!(
        out,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\
         <title>{}</title><style>{STYLE}</style></head><body>\n",
        escape(&one_line(&s.title))
    );
    let _ = writeln!(out, "<h1>{}</h1>", escape(&one_line(&s.title)));
    let mut meta = format!(
        "Session <code>{}</code> · workspace <code>{}</code> · started {} · {} messages · {} model calls",
        escape(&s.id),
        escape(&s.workspace),
        escape(&s.created_at),
        view.messages.len(),
        view.model_calls.len()
    );
    if let Some(source) = &s.source {
        let _ = write!(
            meta,
            " · imported from {source} (<code>{}</code>)",
            escape(s.source_path.as_deref().unwrap_or("?"))
        );
    }
    let _ = writeln!(out, "<p class=\"meta\">{meta}</p>");
    let mut shown: HashSet<i64> = HashSet::new();
    let mut turn = 0;
    for m in &view.messages {
        if let Some(record) = m.created_by {
            if shown.insert(record) {
                if let Some(c) = view.compactions.iter().find(|c| c.record.id == record) {
                    compaction(&mut out, c);
                }
            }
            if m.summary {
                continue;
            }
        }
        if m.role == Role::User && m.created_by.is_none() {
            turn += 1;
            let _ = writeln!(out, "<h2>Turn {turn} · {}</h2>", escape(&m.created_at));
        }
        message(&mut out, m);
    }
    for c in view.compactions.iter().filter(|c| !shown.contains(&c.record.id)) {
        compaction(&mut out, c);
    }
    let _ = write!(out, "<script>{SCRIPT}</script>\n</body></html>\n");
    out
}

fn message(out: &mut String, m: &StoredMessage) {
    let mut notes = Vec::new();
    if m.compacted {
        notes.push("compacted: no longer sent");
    }
    if m.truncated {
        notes.push("cut to fit the context budget");
    }
    if m.uncertain {
        notes.push("uncertain");
    }
    let role = m.role.as_str();
    let _ = write!(out, "<div class=\"msg {role}\" id=\"m{}\"><span class=\"role\">{role}</span>", m.seq);
    if let Some(id) = &m.tool_call_id {
        let _ = write!(out, " <code>{}</code>", escape(id));
    }
    if !notes.is_empty() {
        let _ = write!(out, " <span class=\"note\">({})</span>", notes.join("; "));
    }
    if !m.content.trim().is_empty() {
        block(out, &m.content);
    }
    for call in &m.tool_calls {
        let _ =
            write!(out, "<div>Tool call <code>{}</code> (<code>{}</code>)</div>", escape(&call.name), escape(&call.id));
        block(out, &pretty_arguments(&call.arguments));
    }
    out.push_str("</div>\n");
}

/// Text in a `<pre>`; past [`LONG_OUTPUT_CHARS`] folded behind its size.
fn block(out: &mut String, text: &str) {
    let chars = text.chars().count();
    if chars > LONG_OUTPUT_CHARS {
        let _ = write!(out, "<details><summary>{chars} characters</summary><pre>{}</pre></details>", escape(text));
    } else {
        let _ = write!(out, "<pre>{}</pre>", escape(text));
    }
}

fn compaction(out: &mut String, c: &CompactionView) {
    let r = &c.record;
    let _ = write!(
        out,
        "<div class=\"compaction\"><h2>Compaction #{} · {} · {} ({})</h2>",
        r.id,
        r.kind.as_str(),
        r.reason.as_str(),
        r.status.as_str()
    );
    if let Some(focus) = r.focus.as_deref().filter(|f| !f.trim().is_empty()) {
        let _ = write!(out, "<p>Focus: {}</p>", escape(focus));
    }
    let _ = write!(
        out,
        "<p>Replaced {} messages ({} chars); the request went from {} to {} chars{}.</p>",
        r.summarized_messages,
        r.summarized_chars,
        r.before_chars,
        r.after_chars,
        if r.partial { "; partial" } else { "" }
    );
    match r.checkpoint.get("sections").and_then(Value::as_object) {
        Some(sections) => {
            for (name, heading) in SECTIONS {
                let text = match sections.get(name) {
                    Some(Value::Array(items)) => {
                        items.iter().filter_map(Value::as_str).map(|i| format!("- {i}")).collect::<Vec<_>>().join("\n")
                    }
                    Some(Value::String(text)) => text.clone(),
                    _ => String::new(),
                };
                if !text.trim().is_empty() {
                    let _ = write!(out, "<h3>{heading}</h3>");
                    block(out, &text);
                }
            }
        }
        None => {
            if let Some(text) = r.checkpoint.get("text").and_then(Value::as_str) {
                block(out, text);
            }
        }
    }
    out.push_str("</div>\n");
}

/// Text safe inside HTML elements and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}
