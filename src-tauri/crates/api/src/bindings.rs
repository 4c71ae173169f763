//! The window's TypeScript, generated from the Rust types: `ui/src/bindings.ts` (every type that
//! crosses the boundary, ts-rs), `ui/src/api.ts` (one function per command, from the registry) and
//! `ui/src/configSchema.ts` (the configuration's JSON schema: the settings forms' defaults, ranges
//! and options). A test fails when a committed file is stale;
//! `ALISIO_UPDATE_BINDINGS=1 cargo test -p alisio-api` rewrites them.

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
        e::transcript::Role, e::transcript::ToolCall, e::config::Api, e::config::Strategy, e::config::Permission,
        e::store::Session, e::store::library::Removed, e::store::SessionId, e::store::SessionSummary, e::store::Purpose, e::store::WireApi, e::store::JournalEntry, e::store::JournalState,
        e::store::ModelCallRecord, e::store::compactions::CompactionDocument, e::store::compactions::Kind,
        e::store::compactions::Status, e::store::compactions::Trigger, e::store::compactions::TriggerKind, e::provider::wire::WireItem, e::provider::wire::ChatCall,
        e::provider::wire::ChatFunction, e::view::ModelView, e::view::StoredView, e::view::StoredMessage,
        e::view::CompactionView, e::view::MessageKind, e::events::Envelope, e::events::Event, e::events::CompactionReason,
        e::events::Size, e::calls::compare::SessionDiff, e::calls::compare::SessionTotals, e::calls::compare::SessionDivergence, e::calls::compare::AlignedMessage, e::store::sessions::ForkedFrom, e::compaction::CompactOutcome, e::compaction::StrategyPreview, e::compaction::checkpoint::Checkpoint,
        e::compaction::probe::ProbeReport, e::compaction::probe::ProbeAnswer,
        e::agent::RecoverReport, e::agent::TurnOutcome, e::bench::BakeOff, e::bench::Arm, e::bench::Probes, e::bench::Tally, e::calls::rereads::Rereads, e::calls::rereads::Reread, e::calls::rereads::RereadKind, e::calls::rereads::HeldBy, e::calls::CallSummary, e::calls::CallDetail, e::calls::CallDiff,
        e::calls::Divergence, e::calls::CallCache, e::calls::MessageChange, e::calls::ToolChanges, e::calls::ParamChange,
        e::calls::ReplayReport, e::calls::CallComposition, e::calls::Composition, e::calls::Share, e::calls::ToolShare,
        e::view::MissingPart, e::store::RequestSource, e::import::ImportReport, e::import::ImportedSession,
        e::import::ImportFailure, e::import::Unread, e::view::ParentLink, e::import::Skipped, e::import::Position, e::import::SourceKind,
        e::import::SourceSummary, e::import::SourceLocation, e::import::Progress, e::fidelity::Fidelity, e::fidelity::Missing,
        e::fidelity::MissingKind, e::view::LintReport, e::view::ModelViewPage, e::provider::finder::FoundServer,
        e::provider::WindowSource, e::provider::ModelsReport, e::export::ExportFormat, e::export::ChartFormat,
        e::mcp::CatalogShare, e::mcp::ServerStatus, e::mcp::ServerState, e::mcp::Transport, e::mcp::ToolStatus,
        crate::error::ApiError, crate::error::ErrorCode, crate::events::UiEvent,
        crate::sessions::Nothing, crate::sessions::SessionRequest, crate::sessions::SessionsFilter, crate::sessions::RenameRequest, crate::about::About, crate::bench::CompactionBenchRequest, crate::archive::PushRequest, crate::archive::ArchiveUsageRequest, crate::archive::ArchiveSearchRequest, alisio_archive::push::PushReport, alisio_archive::query::ArchiveSearch, alisio_archive::query::ArchiveHit, crate::archive::TokenRequest, alisio_archive::tokens::NewToken, alisio_archive::tokens::TokenInfo,
        crate::views::StoredRequest, crate::views::PageRequest, crate::views::SinceRequest, crate::views::AroundRequest,
        crate::views::ModelPageRequest, crate::views::MessageRequest, e::compaction::guard::ContextMeter,
        crate::turns::RunTurn, crate::turns::PermissionAnswer,
        crate::compaction::CompactRequest, crate::compaction::ApplyProposal, crate::compaction::ProposalRequest,
        crate::compaction::CheckpointRequest, crate::forks::ForkRequest, crate::forks::Forked, crate::forks::SessionDiffRequest,
        crate::calls::CallRequest, crate::calls::DiffRequest, crate::calls::LedgerRowRequest, crate::calls::RequestDiff,
        crate::calls::MessageLines, crate::calls::PastRequest, crate::proxy::ProxyStart, crate::proxy::ProxyStatus, e::proxy::ProxyEvent,
        crate::import::ImportPaths, crate::import::ImportOutcome,
        crate::export::ExportRequest, crate::export::ChartRequest, crate::export::ExportOutcome, crate::export::Exported, crate::export::ExportReview, crate::export::SentTraces, e::redact::Finding,
        crate::config::ConfigDocument, crate::config::RawConfig,
        crate::diff::TrimmedDiff, crate::diff::DiffLine, crate::diff::LineTag,
        e::store::search::SearchHit, e::store::search::SearchResult, crate::search::SearchRequest,
        e::calls::CacheBreak, e::calls::BreakCause, e::calls::CompactionCost, e::cost::usage::UsageReport, e::cost::usage::UsageRow,
        e::cost::usage::UsageBy, e::store::usage::SessionRef, crate::usage::UsageRequest, crate::usage::UsageRowRequest,
        e::cost::usage::UnpricedModel, e::import::agents::Source, e::cost::book::PriceShown, e::cost::book::ShownEntry, e::cost::book::ShownRates,
        e::cost::book::ShownTier, e::cost::book::Tier, e::cost::book::Origin, e::cost::litellm::Counts,
        crate::prices::PriceShowRequest, crate::prices::PriceUpdateRequest,
        e::store::pins::Pin, e::fidelity::PinKept, e::fidelity::PinId, crate::pins::PinRequest,
        crate::pins::PinRemove,
    );
    let mut file = String::from(
        "// Generated from the Rust types by alisio-api (src-tauri/crates/api/src/bindings.rs). Do not edit.\n\
         // Regenerate: ALISIO_UPDATE_BINDINGS=1 cargo test -p alisio-api\n\n\
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
    let agents: Vec<String> = alisio_engine::import::agents::AGENTS
        .iter()
        .map(|a| format!("  {{ source: {:?}, name: {:?}, badge: {:?} }},\n", a.kind.as_str(), a.name, a.badge))
        .collect();
    let agents = format!(
        "/** Every agent Alisio reads, from the engine's one table: its source name, name and badge. */\n\
         export const AGENTS: ReadonlyArray<{{ source: SourceKind; name: string; badge: string }}> = [\n{}];\n\n",
        agents.concat()
    );
    agents
        + &format!(
            "/** The checkpoint's sections, in order: [JSON key, heading]. */\n\
         export const CHECKPOINT_SECTIONS: ReadonlyArray<readonly [string, string]> = [\n{}];\n\n\
         /** Windows reported above this many tokens are not trusted. */\n\
         export const WINDOW_TRUST_LIMIT = {WINDOW_TRUST_LIMIT};\n\n\
         /** Characters per token in every estimate. */\n\
         export const CHARS_PER_TOKEN = {CHARS_PER_TOKEN};\n\n\
         /** The heading of the block of pins a compaction carries after its checkpoint. */\n\
         export const PINNED_HEADING = {:?};\n\n",
            sections.concat(),
            alisio_engine::compaction::pins::HEADING
        )
}

/// `ui/src/configSchema.ts`: the configuration file's JSON schema, as the engine generates it.
pub fn config_schema() -> String {
    let schema = serde_json::to_string_pretty(&alisio_engine::config::schema()).unwrap_or_default();
    format!(
        "// Generated from the configuration types by alisio-api (src-tauri/crates/api/src/bindings.rs). Do not edit.\n\
         // Regenerate: ALISIO_UPDATE_BINDINGS=1 cargo test -p alisio-api\n\n\
         /** The JSON schema of config.json: defaults, ranges and option lists, as the engine checks them. */\n\
         export const CONFIG_SCHEMA = {schema} as const;\n"
    )
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    /// Each generated file against its committed copy (rewritten with `ALISIO_UPDATE_BINDINGS=1`).
    #[test]
    fn committed_typescript_is_up_to_date() {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../..");
        let files = [
            ("ui/src/bindings.ts", super::typescript()),
            ("ui/src/api.ts", crate::registry::typescript()),
            ("ui/src/configSchema.ts", super::config_schema()),
            ("docs/configuration.md", crate::reference::configuration_markdown()),
        ];
        let mut stale = Vec::new();
        for (name, generated) in files {
            let path = root.join(name);
            if std::env::var_os("ALISIO_UPDATE_BINDINGS").is_some() {
                std::fs::write(&path, &generated).unwrap();
            }
            if std::fs::read_to_string(&path).unwrap_or_default() != generated {
                stale.push(name);
            }
        }
        assert!(
            stale.is_empty(),
            "{stale:?} stale: run `ALISIO_UPDATE_BINDINGS=1 cargo test -p alisio-api` and commit them"
        );
    }
}
