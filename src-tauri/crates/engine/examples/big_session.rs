//! Creates a session of 100,000 stored messages (50,000 compacted) in `$ALISIO_HOME/sessions.db`,
//! for measuring the window on a long session: `cargo run --release -p alisio-engine --example big_session`.

use alisio_engine::home::{alisio_home, DB_FILE};
use alisio_engine::store::sessions::append_message;
use alisio_engine::store::Store;
use alisio_engine::transcript::{NewMessage, ToolCall};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let count: usize = std::env::args().nth(1).and_then(|n| n.parse().ok()).unwrap_or(100_000);
    let store = Store::open(&alisio_home().join(DB_FILE))?;
    let session = store.create_session("/tmp/big-workspace", &format!("Big session ({count} messages)"))?;
    let filler = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(3);
    store.write(|tx| {
        for i in 0..count {
            let message = match i % 3 {
                0 => NewMessage::user(format!("{i}: please look at src/module_{i}.rs {filler}")),
                1 => NewMessage::assistant(
                    format!("Reading module {i}."),
                    vec![ToolCall {
                        id: format!("call_{i}"),
                        name: "read_file".into(),
                        arguments: format!("{{\"path\":\"src/module_{i}.rs\"}}"),
                    }],
                    None,
                ),
                _ => NewMessage::tool_result(&format!("call_{}", i - 1), format!("fn f{i}() {{}} // {filler}")),
            };
            append_message(tx, &session.id, &message)?;
        }
        tx.execute(
            "UPDATE messages SET compacted = 1 WHERE session_id = ?1 AND seq <= ?2",
            (&session.id, (count / 2) as i64),
        )?;
        Ok(())
    })?;
    println!("{}", session.id);
    Ok(())
}
