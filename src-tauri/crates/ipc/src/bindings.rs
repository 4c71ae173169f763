//! `ui/src/bindings.ts`: the TypeScript declarations of every type that crosses the boundary,
//! generated from the Rust types (ts-rs). A test fails when the committed file is stale;
//! `ALISIO_UPDATE_BINDINGS=1 cargo test -p alisio-ipc` rewrites it.

use ts_rs::{Config, TS};

macro_rules! declarations {
    ($cfg:expr; $($ty:ty),* $(,)?) => {{
        let mut out = Vec::new();
        $( out.push(format!("export {}", <$ty as TS>::decl($cfg))); )*
        out
    }};
}

/// The whole bindings file.
pub fn typescript() -> String {
    use alisio_engine as e;
    let cfg = Config::default().with_large_int("number");
    let decls = declarations!(&cfg;
        e::transcript::Role, e::transcript::ToolCall, e::config::Api,
        e::store::Session, e::store::SessionSummary, e::store::JournalEntry, e::store::JournalState,
        e::store::ModelCallRecord, e::store::compactions::CompactionDocument, e::store::compactions::Kind,
        e::store::compactions::Status, e::provider::wire::WireItem, e::provider::wire::ChatCall,
        e::provider::wire::ChatFunction, e::view::ModelView, e::view::StoredView, e::view::StoredMessage,
        e::view::CompactionView, e::view::MessageKind, e::events::Envelope, e::events::Event, e::events::CompactionReason,
        e::events::Size, e::compaction::CompactOutcome, e::compaction::checkpoint::Checkpoint,
        e::agent::RecoverReport, e::calls::CallSummary, e::calls::CallDetail, e::calls::CallDiff,
        e::calls::Divergence, e::calls::CallCache, e::calls::MessageChange, e::calls::ToolChanges, e::calls::ParamChange,
        super::IpcError, super::ErrorCode, super::UiEvent, super::ContextMeter, super::PastRequest,
        super::ConfigDocument, super::ConnectionReport, super::ExportResult, super::CompactRequest,
        super::diff::TrimmedDiff, super::diff::DiffLine, super::diff::LineTag, super::RequestDiff,
        super::MessageLines, super::ImportOutcome, e::import::ImportReport, e::import::ImportedSession,
        e::import::ImportFailure, e::import::Skipped, e::import::Position, e::import::SourceKind,
        e::import::SourceSummary, e::import::SourceLocation, e::fidelity::Fidelity, e::fidelity::Missing,
        e::fidelity::MissingKind, e::view::LintReport, e::view::ModelViewPage, e::provider::finder::FoundServer, e::provider::WindowSource,
        e::mcp::CatalogShare, e::mcp::ServerStatus, e::mcp::ToolStatus, e::config::Permission,
    );
    let mut file = String::from(
        "// Generated from the Rust types by alisio-ipc (src-tauri/crates/ipc/src/bindings.rs). Do not edit.\n\
         // Regenerate: ALISIO_UPDATE_BINDINGS=1 cargo test -p alisio-ipc\n\n\
         export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]?: JsonValue } | null;\n\n",
    );
    for decl in decls {
        file.push_str(&decl);
        file.push_str("\n\n");
    }
    file.push_str(&constants());
    file.trim_end().to_string() + "\n"
}

/// Constants the window shares with the engine, written from the Rust values.
fn constants() -> String {
    use alisio_engine::compaction::{budget::WINDOW_TRUST_LIMIT, checkpoint::SECTIONS};
    use alisio_engine::transcript::CHARS_PER_TOKEN;
    let sections: Vec<String> = SECTIONS.iter().map(|(key, heading)| format!("  [{key:?}, {heading:?}],\n")).collect();
    format!(
        "/** The checkpoint's sections, in order: [JSON key, heading]. */\n\
         export const CHECKPOINT_SECTIONS: ReadonlyArray<readonly [string, string]> = [\n{}];\n\n\
         /** Windows reported above this many tokens are not trusted. */\n\
         export const WINDOW_TRUST_LIMIT = {WINDOW_TRUST_LIMIT};\n\n\
         /** Characters per token in every estimate. */\n\
         export const CHARS_PER_TOKEN = {CHARS_PER_TOKEN};\n\n",
        sections.concat()
    )
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    #[test]
    fn committed_bindings_are_up_to_date() {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../ui/src/bindings.ts");
        let generated = super::typescript();
        if std::env::var_os("ALISIO_UPDATE_BINDINGS").is_some() {
            std::fs::write(&path, &generated).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == generated,
            "ui/src/bindings.ts is stale: run `ALISIO_UPDATE_BINDINGS=1 cargo test -p alisio-ipc` and commit it"
        );
    }
}
