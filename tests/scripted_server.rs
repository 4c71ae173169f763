//! The suite's scripted model server (tests/suite/support/server.rs) as a program, for the window
//! tests: `scripted-server SCRIPT.json` answers each POST with the next text of the JSON array in
//! SCRIPT (streamed or whole, as asked), prints its base URL on the first line of stdout, and
//! serves every request body so far at `GET {base}/__received` until it is killed.

#[allow(dead_code, clippy::unwrap_used, clippy::expect_used)]
#[path = "suite/support/server.rs"]
mod server;

use server::{Answer, Reply, ScriptedServer};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: scripted-server SCRIPT.json")?;
    let texts: Vec<String> = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
    let script = texts
        .iter()
        .map(|text| Reply::Answer(Answer { usage: Some((1500, 40, 1200)), ..Answer::text(text) }))
        .collect();
    let server = ScriptedServer::start(script).await;
    println!("{}", server.base_url);
    std::future::pending::<()>().await;
    Ok(())
}
