//! Benchmark: `alisio search` over a home of 5,000 sessions (60 messages each: prompts, answers
//! with tool calls, tool outputs, in a varied vocabulary of code words), 20 varied queries (words,
//! phrases, prefixes, AND / OR / NOT, filters). Prints p50 / p95 over the queries; targets:
//! p50 ≤ 100 ms, p95 ≤ 300 ms. Run with `cargo bench -p alisio-engine --bench search`
//! (`ALISIO_BENCH_SMOKE=1`: 50 sessions).

use std::time::{Duration, Instant};

use alisio_engine::store::search::SearchFilter;
use alisio_engine::store::sessions::append_message;
use alisio_engine::store::Store;
use alisio_engine::transcript::{NewMessage, ToolCall};

const WORDS: &[&str] = &[
    "parser",
    "lexer",
    "token",
    "config",
    "error",
    "line",
    "column",
    "module",
    "import",
    "export",
    "session",
    "cache",
    "compaction",
    "checkpoint",
    "request",
    "response",
    "server",
    "client",
    "thread",
    "async",
    "await",
    "future",
    "buffer",
    "stream",
    "socket",
    "timeout",
    "retry",
    "backoff",
    "schema",
    "migration",
    "index",
    "query",
    "search",
    "vector",
    "matrix",
    "render",
    "window",
    "button",
    "dialog",
    "layout",
    "style",
    "theme",
    "font",
    "color",
    "pixel",
    "kernel",
    "driver",
    "memory",
    "allocator",
    "pointer",
    "borrow",
    "lifetime",
    "trait",
    "generic",
    "closure",
];

/// A deterministic pseudo-random sequence (no dependency).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) as usize
    }
    fn sentence(&mut self, words: usize) -> String {
        (0..words).map(|_| WORDS[self.next() % WORDS.len()]).collect::<Vec<_>>().join(" ")
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let smoke = std::env::var_os("ALISIO_BENCH_SMOKE").is_some();
    let sessions = if smoke { 50 } else { 5_000 };
    let dir = tempfile::tempdir()?;
    let store = Store::open(&dir.path().join("sessions.db"))?;
    let started = Instant::now();
    let mut rng = Rng(7);
    for s in 0..sessions {
        let session = store.create_session(&format!("/home/dev/project-{}", s % 40), &format!("session {s}"))?;
        store.write(|tx| {
            for i in 0..60 {
                let message = match i % 3 {
                    0 => NewMessage::user(format!(
                        "Please fix the {} in src/{}_{s}.rs",
                        rng.sentence(12),
                        WORDS[i % WORDS.len()]
                    )),
                    1 => NewMessage::assistant(
                        format!("Looking at the {}.", rng.sentence(20)),
                        vec![ToolCall {
                            id: format!("call_{s}_{i}"),
                            name: "read_file".into(),
                            arguments: "{}".into(),
                        }],
                        None,
                    ),
                    _ => NewMessage::tool_result(
                        &format!("call_{s}_{}", i - 1),
                        format!("fn f{i}() {{ /* {} */ }}", rng.sentence(60)),
                    ),
                };
                append_message(tx, &session.id, &message)?;
            }
            Ok(())
        })?;
    }
    let messages = sessions * 60;
    println!("populated {sessions} sessions, {messages} messages in {:.1} s", started.elapsed().as_secs_f64());

    let queries: [(&str, Option<&str>); 20] = [
        ("parser", None),
        ("lexer token", None),
        ("\"cache compaction\"", None),
        ("migr*", None),
        ("socket AND timeout", None),
        ("kernel OR driver", None),
        ("memory NOT pointer", None),
        ("borrow lifetime trait", None),
        ("src", None),
        ("\"fix the\"", None),
        ("closure*", None),
        ("window button dialog", None),
        ("theme", Some("/home/dev/project-7")),
        ("zzzznotthere", None),
        ("vector matrix render", None),
        ("async await future", None),
        ("\"read\" AND f1*", None),
        ("schema", Some("/home/dev/project-3")),
        ("allocator", None),
        ("pixel font color style", None),
    ];
    let mut times = Vec::with_capacity(queries.len());
    for (query, project) in queries {
        let filter = SearchFilter { project: project.map(str::to_string), limit: 50, ..SearchFilter::default() };
        let t = Instant::now();
        let found = store.search(query, &filter)?;
        let took = t.elapsed();
        times.push(took);
        println!(
            "  {query:<28} {:>7} matches, {:>4} shown  {:.1} ms",
            found.total,
            found.hits.len(),
            took.as_secs_f64() * 1000.0
        );
    }
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "search over {messages} messages: p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms (targets p50 ≤ 100 ms, p95 ≤ 300 ms)",
        ms(times[times.len() / 2]),
        ms(times[times.len() * 95 / 100]),
        ms(times[times.len() - 1])
    );
    Ok(())
}
