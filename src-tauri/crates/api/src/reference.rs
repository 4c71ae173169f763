//! `docs/configuration.md`: every key of `config.json` with its type, default, range and meaning,
//! written from the configuration's JSON schema (the one the engine validates with and the
//! settings forms read), so the reference cannot drift from the code. Checked by the bindings test.

use serde_json::{Map, Value};

/// One documented key.
struct Row {
    key: String,
    kind: String,
    default: String,
    allowed: String,
    about: String,
}

fn resolve<'a>(schema: &'a Value, node: &'a Value) -> &'a Value {
    match node.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/")) {
        Some(name) => schema.pointer(&format!("/$defs/{name}")).unwrap_or(node),
        None => node,
    }
}

/// What a value is: `integer`, `string or null`, `one of native, cache, …`, `list of string`.
fn kind(schema: &Value, node: &Value) -> String {
    if let Some(options) = node.get("anyOf").and_then(Value::as_array) {
        return options.iter().map(|o| kind(schema, o)).collect::<Vec<_>>().join(" or ");
    }
    let node = resolve(schema, node);
    if let Some(values) = node.get("enum").and_then(Value::as_array) {
        let names: Vec<String> = values.iter().map(|v| format!("`{}`", v.as_str().unwrap_or_default())).collect();
        return format!("one of {}", names.join(", "));
    }
    match node.get("type") {
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" or "),
        Some(Value::String(t)) if t == "array" => {
            format!("list of {}", node.get("items").map_or("values".into(), |i| kind(schema, i)))
        }
        Some(Value::String(t)) if t == "object" && node.get("properties").is_some() => "object".into(),
        Some(Value::String(t)) if t == "object" => "map".into(),
        Some(Value::String(t)) => t.clone(),
        _ => "value".into(),
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").replace('|', "\\|")
}

fn rows(schema: &Value, node: &Value, prefix: &str, defaults: Option<&Map<String, Value>>, out: &mut Vec<Row>) {
    let node = resolve(schema, node);
    let Some(properties) = node.get("properties").and_then(Value::as_object) else { return };
    for (name, property) in properties {
        let key = format!("{prefix}{name}");
        let target = resolve(schema, property);
        let default = property.get("default").or_else(|| defaults.and_then(|d| d.get(name)));
        let about = property
            .get("description")
            .or_else(|| target.get("description"))
            .and_then(Value::as_str)
            .map(one_line)
            .unwrap_or_default();
        let range = match (target.get("minimum"), target.get("maximum")) {
            (Some(min), Some(max)) => format!("{min} – {max}"),
            (Some(min), None) => format!("≥ {min}"),
            (None, Some(max)) => format!("≤ {max}"),
            (None, None) => String::new(),
        };
        // A map of named objects (`profiles`, `mcpServers`, `prices`, `archives`): its entries' keys.
        let entries = target.get("additionalProperties").filter(|a| resolve(schema, a).get("properties").is_some());
        let objects = target.get("properties").is_some();
        let shown_default = match default {
            Some(value) if !objects && entries.is_none() => format!("`{value}`"),
            _ => String::new(),
        };
        out.push(Row { key: key.clone(), kind: kind(schema, property), default: shown_default, allowed: range, about });
        if objects {
            rows(schema, target, &format!("{key}."), default.and_then(Value::as_object), out);
        } else if let Some(entry) = entries {
            rows(schema, entry, &format!("{key}.<name>."), None, out);
        } else if let Some(items) = target.get("items").filter(|i| resolve(schema, i).get("properties").is_some()) {
            rows(schema, items, &format!("{key}[]."), None, out);
        }
    }
}

/// The reference, as Markdown.
pub fn configuration_markdown() -> String {
    let schema = alisio_engine::config::schema();
    let mut out = String::from(
        "<!-- Generated from the configuration's JSON schema by alisio-api (src-tauri/crates/api/src/reference.rs).\n     \
         Do not edit: ALISIO_UPDATE_BINDINGS=1 cargo test -p alisio-api -->\n\n\
         # Configuration reference\n\n\
         Every key `config.json` (in `$ALISIO_HOME`; default `~/.local/share/alisio` on Linux) may hold, with its type, default and\n\
         allowed range, as Alisio checks them: a value out of range is refused naming its key, before\n\
         anything runs. How to use them, with examples: [configuration-guide.md](configuration-guide.md).\n",
    );
    let mut all = Vec::new();
    rows(&schema, &schema, "", None, &mut all);
    let mut section = String::new();
    for row in all {
        let top = row.key.split(['.', '[']).next().unwrap_or_default().to_string();
        if top != section {
            section = top;
            out.push_str(&format!(
                "\n## `{section}`\n\n| key | type | default | allowed | what it does |\n|---|---|---|---|---|\n"
            ));
        }
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            row.key,
            one_line(&row.kind),
            one_line(&row.default),
            row.allowed,
            row.about
        ));
    }
    out
}
