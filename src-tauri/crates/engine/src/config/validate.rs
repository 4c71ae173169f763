//! Checking a configuration file before anything runs: every number against the range its schema
//! declares (one source: the `schemars` attributes on the types), then what a schema cannot say
//! (URLs, non-empty names, one transport per MCP server, header variables that must be set).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::Value;

use super::{ConfigFile, McpServerConfig, OtlpConfig};
use crate::error::{Error, Result};

pub(super) fn validate(c: &ConfigFile) -> Result<()> {
    http_url("provider.baseUrl", &c.provider.base_url, "http://127.0.0.1:8080/v1")?;
    if c.provider.model.trim().is_empty() {
        return Err(Error::Config("provider.model must not be empty".into()));
    }
    for (name, profile) in &c.profiles {
        if let Some(url) = &profile.base_url {
            http_url(&format!("profiles.{name}.baseUrl"), url, "http://127.0.0.1:11434/v1")?;
        }
        if profile.model.as_deref().is_some_and(|m| m.trim().is_empty()) {
            return Err(Error::Config(format!("profiles.{name}.model must not be empty")));
        }
    }
    check_ranges(c)?;
    if c.cache_compact.resume_prompt.trim().is_empty() {
        return Err(Error::Config("cacheCompact.resumePrompt must not be empty".into()));
    }
    for (i, entry) in c.cache_compact.models.iter().enumerate() {
        if !entry.contains('/') {
            return Err(Error::Config(format!(
                "cacheCompact.models[{i}] = {entry:?} must be \"providerID/modelID\" (for example \"local/default\")"
            )));
        }
    }
    for (name, server) in &c.mcp_servers {
        validate_mcp_server(name, server)?;
    }
    validate_otlp(&c.telemetry.otlp)?;
    for (name, archive) in &c.archives {
        archive.validate(name)?;
    }
    for (i, plugin) in c.plugins.iter().enumerate() {
        if !plugin.builtin && plugin.command.is_none() {
            return Err(Error::Config(format!(
                "plugins[{i}] ({}) needs either \"builtin\": true or a \"command\"",
                plugin.name
            )));
        }
    }
    Ok(())
}

/// Every number of the file against the `minimum` / `maximum` its schema declares.
fn check_ranges(c: &ConfigFile) -> Result<()> {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    let schema = SCHEMA.get_or_init(super::schema);
    let document = serde_json::to_value(c)?;
    let defs = schema.get("$defs").unwrap_or(&Value::Null);
    check_value(schema, defs, &document, "")
}

fn resolve<'a>(schema: &'a Value, defs: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/")) {
        Some(name) => defs.get(name).unwrap_or(schema),
        None => schema,
    }
}

fn check_value(schema: &Value, defs: &Value, value: &Value, key: &str) -> Result<()> {
    let schema = resolve(schema, defs);
    if value.is_number() {
        return check_number(schema, value, key);
    }
    let join = |child: &str| if key.is_empty() { child.to_string() } else { format!("{key}.{child}") };
    for alternative in ["anyOf", "oneOf"].iter().filter_map(|k| schema.get(*k).and_then(Value::as_array)).flatten() {
        check_value(alternative, defs, value, key)?;
    }
    match value {
        Value::Object(map) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            for (name, child) in map {
                match properties.and_then(|p| p.get(name)) {
                    Some(sub) => check_value(sub, defs, child, &join(name))?,
                    None => match schema.get("additionalProperties") {
                        Some(sub) if sub.is_object() => check_value(sub, defs, child, &join(name))?,
                        _ => {}
                    },
                }
            }
        }
        Value::Array(items) => {
            if let Some(sub) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    check_value(sub, defs, item, &format!("{key}[{i}]"))?;
                }
            }
        }
        _ => {}
    }
    Ok(())
}

fn check_number(schema: &Value, value: &Value, key: &str) -> Result<()> {
    // A JSON number is always finite.
    let Some(n) = value.as_f64() else { return Ok(()) };
    let (min, max) = (schema.get("minimum"), schema.get("maximum"));
    let below = min.and_then(Value::as_f64).is_some_and(|m| n < m);
    let above = max.and_then(Value::as_f64).is_some_and(|m| n > m);
    if !(below || above) {
        return Ok(());
    }
    let allowed = match (min, max) {
        (Some(min), Some(max)) => format!("allowed {}–{}", number(min), number(max)),
        (Some(min), None) => format!("at least {}", number(min)),
        (None, Some(max)) => format!("at most {}", number(max)),
        (None, None) => unreachable!("a bound was crossed"),
    };
    Err(Error::Config(format!("{key} = {} is out of range ({allowed})", number(value))))
}

/// A JSON number as people write it: `1` rather than `1.0`.
fn number(value: &Value) -> String {
    match (value.as_u64(), value.as_i64(), value.as_f64()) {
        (Some(n), _, _) => n.to_string(),
        (_, Some(n), _) => n.to_string(),
        (_, _, Some(f)) => f.to_string(),
        _ => value.to_string(),
    }
}

/// `url` must be an http(s) URL; the error names `key` and shows `example`.
fn http_url(key: &str, url: &str, example: &str) -> Result<()> {
    if (url.starts_with("http://") || url.starts_with("https://")) && reqwest::Url::parse(url).is_ok() {
        Ok(())
    } else {
        Err(Error::Config(format!("{key} = {url:?} is not an http(s) URL (for example \"{example}\")")))
    }
}

fn validate_otlp(o: &OtlpConfig) -> Result<()> {
    if let Some(endpoint) = &o.endpoint {
        http_url("telemetry.otlp.endpoint", endpoint, "http://127.0.0.1:4318/v1/traces")?;
    }
    if o.protocol != "http/protobuf" {
        return Err(Error::Config(format!(
            "telemetry.otlp.protocol = {:?} is not supported; use \"http/protobuf\"",
            o.protocol
        )));
    }
    if o.service_name.trim().is_empty() {
        return Err(Error::Config("telemetry.otlp.serviceName must not be empty".into()));
    }
    if o.endpoint.is_some() {
        header_values("telemetry.otlp.headers", &o.headers)?;
    }
    Ok(())
}

/// Header values as sent: literal, or `env:NAME` read from the environment (an unset variable is
/// an error naming `key.<header>`). The values are secrets: they go nowhere but the request.
pub fn header_values(key: &str, headers: &BTreeMap<String, String>) -> Result<HashMap<String, String>> {
    headers
        .iter()
        .map(|(name, value)| {
            let value = match value.strip_prefix("env:") {
                Some(var) => std::env::var(var)
                    .map_err(|_| Error::Config(format!("{key}.{name} refers to {var}, which is not set")))?,
                None => value.clone(),
            };
            Ok((name.clone(), value))
        })
        .collect()
}

/// Where `command` would be run from: a path (relative ones against `cwd`) that is an executable
/// file, or the first executable of that name on `PATH`.
pub fn find_command(command: &str, cwd: Option<&Path>) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &Path| p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    if command.contains('/') {
        let path = match cwd {
            Some(dir) if Path::new(command).is_relative() => dir.join(command),
            _ => PathBuf::from(command),
        };
        return executable(&path).then_some(path);
    }
    std::env::split_paths(&std::env::var_os("PATH")?).map(|dir| dir.join(command)).find(|p| executable(p))
}

/// The shape of a server entry. Whether its command exists is not a configuration error: a
/// server that is not installed here fails to start, is reported, and the turn goes on.
fn validate_mcp_server(name: &str, s: &McpServerConfig) -> Result<()> {
    let key = format!("mcpServers.{name}");
    if name.trim().is_empty() {
        return Err(Error::Config("mcpServers: a server needs a non-empty name".into()));
    }
    match (&s.command, &s.url) {
        (Some(_), Some(_)) => {
            return Err(Error::Config(format!("{key} has both \"command\" and \"url\"; give one (stdio or HTTP)")))
        }
        (None, None) => {
            return Err(Error::Config(format!(
                "{key} needs a \"command\" (a stdio server, e.g. \"mcp-server-time\") or a \"url\" (streamable HTTP)"
            )))
        }
        (Some(command), None) if command.trim().is_empty() => {
            return Err(Error::Config(format!("{key}.command must not be empty")))
        }
        (Some(_), None) => {}
        (None, Some(url)) => http_url(&format!("{key}.url"), url, "http://127.0.0.1:9000/mcp")?,
    }
    if let Some(cwd) = &s.cwd {
        if !cwd.is_dir() {
            return Err(Error::Config(format!("{key}.cwd = {} is not a directory", cwd.display())));
        }
    }
    if s.enabled {
        header_values(&format!("{key}.headers"), &s.headers)?;
    }
    Ok(())
}
