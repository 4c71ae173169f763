//! Every command of the application API, declared once: its name, the function, its request and
//! response types. From this one list come the window's dispatcher ([`dispatch`]: a command name
//! and a JSON payload in, the JSON answer out), the list of command names, and `ui/src/api.ts`
//! ([`typescript`]). The CLI calls the same functions directly.

use serde_json::Value;

use crate::error::{ApiError, ApiResult};
use crate::App;

macro_rules! commands {
    ($($name:ident => $module:ident::$function:ident($request:ty) -> $response:ty;)*) => {
        /// The names of every command, as the window invokes them.
        pub const COMMANDS: &[&str] = &[$(stringify!($name)),*];

        /// `module::function` of every command, in the order of [`COMMANDS`].
        pub const FUNCTIONS: &[&str] = &[$(concat!(stringify!($module), "::", stringify!($function))),*];

        /// Runs command `name` with its JSON request; `None` when there is no such command.
        pub async fn dispatch(app: &App, name: &str, payload: Value) -> Option<ApiResult<Value>> {
            match name {
                $(stringify!($name) => Some(async {
                    let request: $request = serde_json::from_value(payload)
                        .map_err(|e| ApiError::invalid(format!("{}: invalid request: {e}", stringify!($name))))?;
                    let response: $response = crate::$module::$function(app, request).await?;
                    serde_json::to_value(response)
                        .map_err(|e| ApiError::failed(format!("{}: cannot encode the answer: {e}", stringify!($name))))
                }.await),)*
                _ => None,
            }
        }

        /// One typed function per command: `ui/src/api.ts`.
        pub fn typescript() -> String {
            use ts_rs::TS;
            let cfg = ts_rs::Config::default().with_large_int("number");
            let mut imports = std::collections::BTreeSet::new();
            let mut lines = Vec::new();
            $(
                let (request, response) = (<$request as TS>::name(&cfg), <$response as TS>::name(&cfg));
                let _ = imports.extend([&request, &response].iter().flat_map(|t| type_names(t)));
                lines.push(format!(
                    "  {}: (request: {request}) => invoke<{response}>({:?}, request),",
                    camel(stringify!($name)),
                    stringify!($name),
                ));
            )*
            render(imports, lines)
        }
    };
}

commands! {
    sessions_list => sessions::list(crate::sessions::SessionsFilter) -> Vec<alisio_engine::store::SessionSummary>;
    app_about => about::about(crate::sessions::Nothing) -> crate::about::About;
    sessions_ensure_demo => sessions::ensure_demo(crate::sessions::Nothing) -> Option<String>;
    sessions_rename => sessions::rename(crate::sessions::RenameRequest) -> alisio_engine::store::Session;
    sessions_remove => sessions::remove(crate::sessions::SessionRequest) -> alisio_engine::store::library::Removed;
    sessions_uncertain => sessions::uncertain(crate::sessions::SessionRequest) -> Vec<alisio_engine::store::JournalEntry>;
    sessions_recover => sessions::recover(crate::sessions::SessionRequest) -> alisio_engine::agent::RecoverReport;
    forks_fork => forks::fork(crate::forks::ForkRequest) -> crate::forks::Forked;
    forks_diff => forks::diff(crate::forks::SessionDiffRequest) -> alisio_engine::calls::compare::SessionDiff;
    views_stored => views::stored(crate::views::StoredRequest) -> alisio_engine::view::StoredView;
    views_since => views::since(crate::views::SinceRequest) -> alisio_engine::view::StoredView;
    views_older => views::older(crate::views::PageRequest) -> Vec<alisio_engine::view::StoredMessage>;
    views_newer => views::newer(crate::views::PageRequest) -> Vec<alisio_engine::view::StoredMessage>;
    views_around => views::around(crate::views::AroundRequest) -> Vec<alisio_engine::view::StoredMessage>;
    views_model => views::model(crate::sessions::SessionRequest) -> alisio_engine::view::ModelView;
    views_model_page => views::model_page(crate::views::ModelPageRequest) -> alisio_engine::view::ModelViewPage;
    views_trimmed_diff => views::trimmed_diff(crate::views::MessageRequest) -> crate::diff::TrimmedDiff;
    views_context_meter => views::context_meter(crate::sessions::SessionRequest) -> alisio_engine::compaction::guard::ContextMeter;
    turns_run => turns::run(crate::turns::RunTurn) -> alisio_engine::agent::TurnOutcome;
    turns_start => turns::start(crate::turns::RunTurn) -> String;
    turns_cancel => turns::cancel(crate::sessions::SessionRequest) -> bool;
    turns_answer_permission => turns::answer_permission(crate::turns::PermissionAnswer) -> ();
    compaction_compact => compaction::compact(crate::compaction::CompactRequest) -> alisio_engine::compaction::CompactOutcome;
    compaction_apply => compaction::apply(crate::compaction::ApplyProposal) -> alisio_engine::compaction::CompactOutcome;
    compaction_discard => compaction::discard(crate::compaction::ProposalRequest) -> ();
    compaction_strategies => compaction::strategies(crate::sessions::SessionRequest) -> Vec<alisio_engine::compaction::StrategyPreview>;
    compaction_undo => compaction::undo(crate::sessions::SessionRequest) -> Vec<i64>;
    compaction_lint => compaction::lint(crate::compaction::CheckpointRequest) -> alisio_engine::view::LintReport;
    compaction_probe => compaction::probe(crate::compaction::CheckpointRequest) -> alisio_engine::compaction::probe::ProbeReport;
    calls_list => calls::list(crate::sessions::SessionRequest) -> Vec<alisio_engine::calls::CallSummary>;
    calls_show => calls::show(crate::calls::CallRequest) -> alisio_engine::calls::CallDetail;
    calls_diff => calls::diff(crate::calls::DiffRequest) -> crate::calls::RequestDiff;
    calls_replay => calls::replay(crate::calls::CallRequest) -> alisio_engine::calls::ReplayReport;
    calls_cache_report => calls::cache_report(crate::sessions::SessionRequest) -> Vec<alisio_engine::calls::CallCache>;
    proxy_start => proxy::start(crate::proxy::ProxyStart) -> crate::proxy::ProxyStatus;
    proxy_stop => proxy::stop(crate::sessions::Nothing) -> crate::proxy::ProxyStatus;
    proxy_status => proxy::status(crate::sessions::Nothing) -> crate::proxy::ProxyStatus;
    calls_compositions => calls::compositions(crate::sessions::SessionRequest) -> Vec<alisio_engine::calls::CallComposition>;
    calls_breaks => calls::breaks(crate::sessions::SessionRequest) -> Vec<alisio_engine::calls::CacheBreak>;
    bench_compaction => bench::compaction(crate::bench::CompactionBenchRequest) -> alisio_engine::bench::BakeOff;
    calls_rereads => calls::rereads(crate::sessions::SessionRequest) -> alisio_engine::calls::rereads::Rereads;
    calls_compaction_costs => calls::compaction_costs(crate::sessions::SessionRequest) -> Vec<alisio_engine::calls::CompactionCost>;
    pins_add => pins::add(crate::pins::PinRequest) -> alisio_engine::store::pins::Pin;
    pins_list => pins::list(crate::sessions::SessionRequest) -> Vec<alisio_engine::store::pins::Pin>;
    pins_remove => pins::remove(crate::pins::PinRemove) -> Vec<alisio_engine::store::pins::Pin>;
    search_messages => search::messages(crate::search::SearchRequest) -> alisio_engine::store::search::SearchResult;
    usage_report => usage::report(crate::usage::UsageRequest) -> alisio_engine::cost::usage::UsageReport;
    archive_push => archive::push(crate::archive::PushRequest) -> alisio_archive::push::PushReport;
    archive_usage => archive::usage(crate::archive::ArchiveUsageRequest) -> alisio_engine::cost::usage::UsageReport;
    archive_search => archive::search(crate::archive::ArchiveSearchRequest) -> alisio_archive::query::ArchiveSearch;
    archive_token_create => archive::token_create(crate::archive::TokenRequest) -> alisio_archive::tokens::NewToken;
    archive_token_list => archive::token_list(crate::archive::TokenRequest) -> Vec<alisio_archive::tokens::TokenInfo>;
    archive_token_revoke => archive::token_revoke(crate::archive::TokenRequest) -> Vec<alisio_archive::tokens::TokenInfo>;
    usage_sessions => usage::sessions(crate::usage::UsageRowRequest) -> Vec<alisio_engine::store::usage::SessionRef>;
    prices_show => prices::show(crate::prices::PriceShowRequest) -> alisio_engine::cost::book::PriceShown;
    prices_update => prices::update(crate::prices::PriceUpdateRequest) -> alisio_engine::cost::litellm::Counts;
    calls_past_request => calls::past_request(crate::calls::LedgerRowRequest) -> crate::calls::PastRequest;
    import_paths => import::paths(crate::import::ImportPaths) -> crate::import::ImportOutcome;
    import_sources => import::sources(crate::sessions::Nothing) -> Vec<alisio_engine::import::SourceSummary>;
    export_review => export::review(crate::export::ExportRequest) -> crate::export::ExportReview;
    export_session => export::session(crate::export::ExportRequest) -> crate::export::ExportOutcome;
    export_chart => export::chart(crate::export::ChartRequest) -> String;
    config_get => config::get(crate::sessions::Nothing) -> crate::config::ConfigDocument;
    config_save => config::save(crate::config::RawConfig) -> crate::config::ConfigDocument;
    config_test_connection => config::test_connection(crate::config::RawConfig) -> alisio_engine::provider::ModelsReport;
    config_find_servers => config::find_servers(crate::sessions::Nothing) -> Vec<alisio_engine::provider::finder::FoundServer>;
    models_list => models::list(crate::sessions::Nothing) -> alisio_engine::provider::ModelsReport;
    mcp_list => mcp::list(crate::sessions::Nothing) -> Vec<alisio_engine::mcp::ServerStatus>;
}

/// `sessions_list` → `sessionsList`.
fn camel(name: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in name.chars() {
        match (c, upper) {
            ('_', _) => upper = true,
            (c, true) => {
                out.extend(c.to_uppercase());
                upper = false;
            }
            (c, false) => out.push(c),
        }
    }
    out
}

/// The declared type names a TypeScript type expression mentions (`Array<SessionSummary>` →
/// `SessionSummary`), leaving out built-ins.
fn type_names(expression: &str) -> Vec<String> {
    const BUILT_IN: [&str; 8] = ["Array", "string", "number", "boolean", "null", "void", "Record", "unknown"];
    expression
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .filter(|word| word.chars().next().is_some_and(|c| c.is_ascii_alphabetic()))
        .filter(|word| !BUILT_IN.contains(word) && !word.is_empty())
        .map(str::to_string)
        .collect()
}

fn render(imports: std::collections::BTreeSet<String>, lines: Vec<String>) -> String {
    let names: Vec<String> = imports.into_iter().map(|name| format!("  {name},")).collect();
    format!(
        "// Generated from the application API by alisio-api (src-tauri/crates/api/src/registry.rs). Do not edit.\n\
         // Regenerate: ALISIO_UPDATE_BINDINGS=1 cargo test -p alisio-api\n\
         import {{ invoke }} from \"./transport\";\n\
         import type {{\n{}\n}} from \"./bindings\";\n\n\
         /** Every command of the application API: one typed request, one typed answer. */\n\
         export const api = {{\n{}\n}};\n",
        names.join("\n"),
        lines.join("\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_camel_case_and_types_are_found() {
        assert_eq!(camel("views_model_page"), "viewsModelPage");
        assert_eq!(type_names("Array<SessionSummary> | null"), vec!["SessionSummary".to_string()]);
    }

    #[test]
    fn every_command_is_dispatched_and_named_once() {
        let mut names: Vec<&str> = COMMANDS.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), COMMANDS.len(), "a command name is declared twice");
        assert_eq!(FUNCTIONS.len(), COMMANDS.len());
    }
}

/// The edge stays thin: no file of the API or of the binary (CLI, window) grows past 300 lines.
#[cfg(test)]
mod size_tests {
    fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()) {
            if entry.is_dir() {
                files(&entry, out);
            } else if entry.extension().is_some_and(|e| e == "rs") {
                out.push(entry);
            }
        }
    }

    #[test]
    fn no_edge_file_passes_300_lines() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut found = Vec::new();
        files(&root.join("src"), &mut found);
        files(&root.join("../../src"), &mut found);
        assert!(found.len() > 20, "{found:?}");
        let long: Vec<String> = found
            .iter()
            .map(|f| (f, std::fs::read_to_string(f).unwrap().lines().count()))
            .filter(|(_, lines)| *lines > 300)
            .map(|(f, lines)| format!("{} ({lines} lines)", f.display()))
            .collect();
        assert!(long.is_empty(), "split these by responsibility: {long:?}");
    }
}
