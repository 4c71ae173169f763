//! Creates a session of 100,000 stored messages (50,000 compacted) in `$ALISIO_HOME/sessions.db`,
//! for measuring the window on a long session: `cargo run --release -p alisio-engine --example big_session`.

use alisio_engine::home::{alisio_home, DB_FILE};
use alisio_engine::store::Store;

#[path = "../benches/support/long_session.rs"]
mod long_session;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let count: usize = std::env::args().nth(1).and_then(|n| n.parse().ok()).unwrap_or(100_000);
    let store = Store::open(&alisio_home().join(DB_FILE))?;
    let session = store.create_session("/tmp/big-workspace", &format!("Big session ({count} messages)"))?;
    long_session::populate_long_session(&store, &session.id, count, count / 2)?;
    println!("{}", session.id);
    Ok(())
}
