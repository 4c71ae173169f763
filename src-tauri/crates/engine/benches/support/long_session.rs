//! A synthetic long session (user prompt, assistant call, tool result, repeated) for benchmarks and
//! measurement scripts; `compacted` of the oldest messages are marked compacted.

use alisio_engine::events::CompactionReason;
use alisio_engine::store::compactions::{self, NewCompaction, RecordDetail, Status};
use alisio_engine::store::sessions::append_message;
use alisio_engine::store::Store;
use alisio_engine::transcript::{NewMessage, ToolCall};

pub fn populate_long_session(
    store: &Store,
    session: &alisio_engine::store::SessionId,
    count: usize,
    compacted: usize,
) -> alisio_engine::Result<()> {
    let filler = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(4);
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
            append_message(tx, session, &message)?;
        }
        // The oldest messages hidden by one reduction record, as a compaction hides them.
        let span: Vec<i64> = (1..=compacted as i64).collect();
        let record = NewCompaction {
            trigger: None,
            reason: CompactionReason::Auto,
            span: span.clone(),
            before_chars: 0,
            after_chars: 0,
            detail: RecordDetail::Reduction,
        };
        let id = compactions::insert_compaction(tx, session, &record, Status::Applied)?;
        compactions::hide_messages(tx, session, id, &span)
    })
}
