//! The suite's scripted model server (tests/suite/support/server.rs) as a program, for the window
//! tests and the crash trials: `scripted-server SCRIPT.json` answers each POST with the next entry
//! of the JSON array in SCRIPT (streamed or whole, as asked), prints its base URL on the first line
//! of stdout, and serves every request body so far at `GET {base}/__received` until it is killed.
//! An entry is a text answer (`"…"`), or `{"text"?, "calls"?: [{"id", "name", "arguments"}],
//! "usage"?: [prompt, completion, cached]}`. With `PORT` (`scripted-server SCRIPT.json PORT`) it
//! listens there and lists one model, `e2e-local` with a 32,768-token window, at `GET /v1/models`
//! (as a local server found by Settings → Find servers).

#[allow(dead_code, clippy::unwrap_used, clippy::expect_used)]
#[path = "suite/support/context.rs"]
mod context;
#[allow(dead_code, clippy::unwrap_used, clippy::expect_used)]
#[path = "suite/support/prompt_cache.rs"]
mod prompt_cache;
#[allow(dead_code, clippy::unwrap_used, clippy::expect_used)]
#[path = "suite/support/server.rs"]
mod server;

use serde_json::Value;
use server::{Answer, Reply, ScriptedServer};

fn reply(entry: &Value) -> Result<Reply, String> {
    let usage = |v: &Value| -> Option<(u64, u64, u64)> {
        let u = v.get("usage")?.as_array()?;
        Some((u.first()?.as_u64()?, u.get(1)?.as_u64()?, u.get(2)?.as_u64()?))
    };
    match entry {
        Value::String(text) => Ok(Reply::Answer(Answer { usage: Some((1500, 40, 1200)), ..Answer::text(text) })),
        Value::Object(_) => {
            let calls = entry.get("calls").and_then(Value::as_array).cloned().unwrap_or_default();
            let tool_calls = calls
                .iter()
                .map(|c| {
                    let field = |k: &str| c.get(k).and_then(Value::as_str).map(str::to_string);
                    Ok((
                        field("id").ok_or("a call needs an id")?,
                        field("name").ok_or("a call needs a name")?,
                        c.get("arguments").map(Value::to_string).unwrap_or_else(|| "{}".into()),
                    ))
                })
                .collect::<Result<Vec<_>, String>>()?;
            let text = entry.get("text").and_then(Value::as_str).unwrap_or_default().to_string();
            Ok(Reply::Answer(Answer {
                text,
                tool_calls,
                usage: usage(entry).or(Some((1500, 40, 1200))),
                ..Default::default()
            }))
        }
        other => Err(format!("a script entry is a string or an object, not {other}")),
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: scripted-server SCRIPT.json")?;
    let entries: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
    let script = entries.iter().map(reply).collect::<Result<Vec<_>, _>>()?;
    let port: Option<u16> = std::env::args().nth(2).map(|p| p.parse()).transpose()?;
    let server = ScriptedServer::start_on(port.unwrap_or(0), script).await;
    if port.is_some() {
        server.set_models(serde_json::json!({"object": "list", "data": [{"id": "e2e-local", "object": "model", "context_length": 32768}]}));
    }
    println!("{}", server.base_url);
    std::future::pending::<()>().await;
    Ok(())
}
