//! The headless commands. Each turns arguments into engine calls and prints events or documents:
//! JSONL / one JSON document with `--json`, human text otherwise; errors on stderr with the exit
//! codes the README lists under "Using the CLI".

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use alisio_engine::agent::{Engine, TurnRequest};
use alisio_engine::compaction::CompactOutcome;
use alisio_engine::config::{self, LoadedConfig};
use alisio_engine::events::{Envelope, EventSink};
use alisio_engine::home::{alisio_home, DB_FILE};
use alisio_engine::mcp::McpHub;
use alisio_engine::store::Store;
use alisio_engine::tools::FixedApprover;
use alisio_engine::{export, telemetry, view, Error, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};
use tokio_util::sync::CancellationToken;

use crate::human;

#[derive(Parser)]
#[command(name = "alisio", version, about = "Run an LLM coding agent and see exactly what the model sees")]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Args, Clone)]
pub struct GlobalArgs {
    /// Overlay this JSON file on $ALISIO_HOME/config.json
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Machine-readable output: JSONL events, or one JSON document
    #[arg(long, global = true)]
    pub json: bool,
    /// Use this connection profile (config `profiles`) instead of `activeProfile`
    #[arg(long, global = true, value_name = "NAME")]
    pub profile: Option<String>,
}

#[derive(Subcommand)]
pub enum Command {
    /// Add a user turn (new session unless --session) and run the agent until it answers
    Run {
        /// Continue this session (id or unique prefix)
        #[arg(long)]
        session: Option<String>,
        /// Approve every tool call that would ask (permissions "ask")
        #[arg(long)]
        yes: bool,
        /// The prompt (several words are joined; "-" reads it from stdin)
        #[arg(required = true, num_args = 1.., value_name = "PROMPT")]
        prompt: Vec<String>,
    },
    /// Compact a session now (replace older history by a checkpoint), or preview, apply, discard or undo
    Compact {
        session: String,
        /// Focus instructions for the summarizer
        #[arg(long)]
        focus: Option<String>,
        /// Store a proposed checkpoint without applying it
        #[arg(long, conflicts_with_all = ["apply", "undo", "discard"])]
        preview: bool,
        /// Apply a stored proposal
        #[arg(long, value_name = "PROPOSAL", conflicts_with_all = ["undo", "discard", "focus"])]
        apply: Option<i64>,
        /// With --apply: use this edited checkpoint (JSON with the seven sections, or plain text)
        #[arg(long, value_name = "FILE", requires = "apply")]
        checkpoint: Option<PathBuf>,
        /// Discard a stored proposal
        #[arg(long, value_name = "PROPOSAL", conflicts_with_all = ["undo", "focus"])]
        discard: Option<i64>,
        /// Revert the newest compaction exactly (nothing is deleted)
        #[arg(long, conflicts_with = "focus")]
        undo: bool,
        /// Check what checkpoint N (default: the newest) kept of the history it replaced; no model is asked
        #[arg(long, value_name = "N", num_args = 0..=1, conflicts_with_all = ["focus", "preview", "apply", "discard", "undo"])]
        lint: Option<Option<i64>>,
        /// Ask the model fixed questions over the full history and over the compacted view of
        /// checkpoint N (default: the newest applied), side by side (model-judged; ledger purpose `probe`)
        #[arg(long, value_name = "N", num_args = 0..=1, conflicts_with_all = ["focus", "preview", "apply", "discard", "undo", "lint"])]
        probe: Option<Option<i64>>,
    },
    /// Ask the model server for its models and the context window it reports (a connection test)
    Models,
    /// List, show and recover sessions
    Sessions {
        #[command(subcommand)]
        command: SessionsCommand,
    },
    /// The model-call ledger: every request rebuilt exactly, and how two requests differ
    Calls {
        #[command(subcommand)]
        command: CallsCommand,
    },
    /// Read sessions of Codex CLI, Claude Code and OpenCode (read-only; again to append what is new)
    Import {
        /// Files or directories (walked); none: the agents' default locations that exist
        #[arg(value_name = "PATH")]
        paths: Vec<PathBuf>,
        /// Keep running and import what the sources append
        #[arg(long)]
        watch: bool,
    },
    /// MCP tool servers (config `mcpServers`)
    Mcp {
        #[command(subcommand)]
        command: McpCommand,
    },
}

#[derive(Subcommand)]
pub enum McpCommand {
    /// Start each configured server, and show its status and its tools with the characters each
    /// adds to every request
    List,
}

#[derive(Subcommand)]
pub enum CallsCommand {
    /// Every model call of a session, numbered 1..n in the order sent
    List { session: String },
    /// The exact request body of call N (rebuilt from the store) and the answer received
    Show { session: String, n: usize },
    /// Compare request N with request M (default N-1) in rendering order: system, tools, messages
    Diff {
        session: String,
        n: usize,
        #[arg(long, value_name = "M")]
        against: Option<usize>,
    },
    /// Send call N's exact request again to the configured provider (another model with --config)
    /// and show both answers; stored as a `replay` call, never part of the transcript
    Replay { session: String, n: usize },
}

#[derive(Subcommand)]
pub enum SessionsCommand {
    /// Sessions, newest first
    List,
    /// One session: every stored message, or exactly what the model gets next
    Show {
        session: String,
        #[arg(long, value_enum, default_value_t = View::Stored)]
        view: View,
    },
    /// Export a session: Markdown for people, versioned JSON (stored view + ledger), or OTLP traces
    /// to the configured endpoint; secrets are redacted unless --no-redact
    Export {
        session: String,
        #[arg(long, value_enum)]
        format: ExportFormat,
        /// Write here instead of stdout (markdown, json)
        #[arg(long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Keep secrets as they are
        #[arg(long)]
        no_redact: bool,
    },
    /// Record uncertain tool results as "result unknown" (re-runs nothing)
    Recover {
        session: String,
        /// Confirm that you inspected the effects of the uncertain calls
        #[arg(long)]
        acknowledge: bool,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    Markdown,
    Json,
    Otlp,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum View {
    Stored,
    Model,
}

struct Context {
    loaded: LoadedConfig,
    store: Arc<Store>,
    json: bool,
}

impl Context {
    /// `read_only` commands only show: they open the database without writing (a read-only
    /// `$ALISIO_HOME` works for them).
    fn open(global: &GlobalArgs, read_only: bool) -> Result<Self> {
        let home = alisio_home();
        let mut loaded = config::load(&home, global.config.as_deref())?;
        if let Some(profile) = &global.profile {
            loaded.config = config::with_profile(&loaded.raw, profile)?;
        }
        let path = home.join(DB_FILE);
        let store = Arc::new(if read_only { Store::open_for_reading(&path)? } else { Store::open(&path)? });
        Ok(Self { loaded, store, json: global.json })
    }

    fn engine(&self) -> Result<Engine> {
        Engine::new(self.loaded.config.clone(), self.store.clone())
    }
}

/// Runs a command and returns the process exit code.
pub fn run(command: Command, global: GlobalArgs) -> i32 {
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("alisio: cannot start the async runtime: {err}");
            return 1;
        }
    };
    let result = runtime.block_on(async {
        if let Command::Mcp { command: McpCommand::List } = command {
            return mcp_list(&global).await;
        }
        let read_only = matches!(
            command,
            Command::Sessions {
                command: SessionsCommand::List | SessionsCommand::Show { .. } | SessionsCommand::Export { .. }
            } | Command::Compact { lint: Some(_), .. }
                | Command::Models
                | Command::Calls {
                    command: CallsCommand::List { .. } | CallsCommand::Show { .. } | CallsCommand::Diff { .. }
                }
        );
        let context = Context::open(&global, read_only)?;
        match command {
            Command::Run { session, yes, prompt } => run_turn(&context, session, yes, prompt).await,
            Command::Sessions { command } => sessions(&context, command).await,
            Command::Calls { command } => calls(&context, command).await,
            Command::Models => models(&context).await,
            Command::Import { paths, watch } => import(&context, paths, watch).await,
            Command::Mcp { .. } => unreachable!("handled before the store is opened"),
            Command::Compact { session, lint: Some(n), .. } => {
                let report = view::lint_compaction(&context.store, &session, n)?;
                if context.json {
                    print_json(&report)
                } else {
                    human::print_lint(&report);
                    Ok(())
                }
            }
            Command::Compact { session, probe: Some(n), .. } => {
                let engine = context.engine()?;
                let record = context.store.resolve_session(&session)?;
                let sink = PrintSink { json: false };
                let report = engine.probe_compaction(&record, n, &sink, &interrupt_token()).await?;
                if context.json {
                    print_json(&report)
                } else {
                    human::print_probe(&report);
                    Ok(())
                }
            }
            Command::Compact { session, focus, preview, apply, checkpoint, discard, undo, lint: None, probe: None } => {
                compact(&context, CompactArgs { session, focus, preview, apply, checkpoint, discard, undo }).await
            }
        }
    });
    match result {
        Ok(()) => 0,
        Err(err) => {
            eprintln!("alisio: {err}");
            err.exit_code()
        }
    }
}

fn print_json(value: &impl serde::Serialize) -> Result<()> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out).map_err(|e| Error::io("cannot write to stdout", e))
}

/// Prints events as they happen: JSONL, or human text.
struct PrintSink {
    json: bool,
}

impl EventSink for PrintSink {
    fn emit(&self, envelope: &Envelope) {
        if self.json {
            if envelope.event.is_transient() {
                return;
            }
            if let Ok(line) = serde_json::to_string(envelope) {
                let mut out = std::io::stdout().lock();
                let _ = writeln!(out, "{line}");
                let _ = out.flush();
            }
        } else {
            human::print_event(envelope);
        }
    }
}

/// Cancelled on Ctrl-C or SIGTERM: a running tool's process group is killed and its result
/// recorded before the process exits (SIGKILL leaves that to the tool's watchdog).
fn interrupt_token() -> CancellationToken {
    let cancel = CancellationToken::new();
    let on_interrupt = cancel.clone();
    tokio::spawn(async move {
        let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
        let terminated = async {
            match terminate.as_mut() {
                Some(signal) => {
                    signal.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = terminated => {}
        }
        on_interrupt.cancel();
    });
    cancel
}

async fn run_turn(context: &Context, session: Option<String>, yes: bool, prompt: Vec<String>) -> Result<()> {
    let mut prompt = prompt.join(" ");
    if prompt == "-" {
        prompt =
            std::io::read_to_string(std::io::stdin()).map_err(|e| Error::io("cannot read the prompt from stdin", e))?;
    }
    if prompt.trim().is_empty() {
        return Err(Error::Usage("the prompt is empty".into()));
    }
    let engine = context.engine()?;
    let workspace = std::env::current_dir().map_err(|e| Error::io("cannot read the current directory", e))?;
    let cancel = interrupt_token();
    let request = TurnRequest { session, prompt, workspace, approver: Arc::new(FixedApprover(yes)) };
    let sink = PrintSink { json: context.json };
    let known = request.session.clone();
    let outcome = engine.run_turn(request, &sink, &cancel).await;
    engine.mcp().shutdown().await;
    let session = outcome.as_ref().map(|o| o.session.clone()).ok().or(known);
    engine.flush_telemetry(session.as_deref(), &sink).await;
    outcome.map(|_| ())
}

/// `alisio sessions export`: the document to stdout or `--output`, the redaction count to stderr.
async fn export_session(
    context: &Context,
    session: &str,
    format: ExportFormat,
    output: Option<PathBuf>,
    redacting: bool,
) -> Result<()> {
    let record = context.store.resolve_session(session)?;
    let exported = match format {
        ExportFormat::Markdown => export::markdown_export(&context.store, &record.id, redacting)?,
        ExportFormat::Json => export::json_export(&context.store, &record.id, redacting)?,
        ExportFormat::Otlp => {
            let config = &context.loaded.config.telemetry.otlp;
            let report = telemetry::export_session(config, &context.store, &record.id, redacting).await?;
            eprintln!("alisio: {}", report.redactions.summary());
            println!(
                "sent {} spans in {} traces of session {} to {}",
                report.spans, report.traces, record.id, report.endpoint
            );
            return Ok(());
        }
    };
    if let Some(found) = &exported.redactions {
        eprintln!("alisio: {}", found.summary());
    }
    match output {
        Some(path) => {
            export::write_file(&path, exported.text.as_bytes())?;
            eprintln!("alisio: wrote {}", path.display());
            Ok(())
        }
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(exported.text.as_bytes()).map_err(|e| Error::io("cannot write to stdout", e))
        }
    }
}

/// `alisio mcp list`: every configured server started (under its startup timeout) and listed.
async fn mcp_list(global: &GlobalArgs) -> Result<()> {
    let mut loaded = config::load(&alisio_home(), global.config.as_deref())?;
    if let Some(profile) = &global.profile {
        loaded.config = config::with_profile(&loaded.raw, profile)?;
    }
    let config = &loaded.config;
    let hub = McpHub::for_config(config);
    hub.start().await;
    let servers = hub.statuses(config.provider.api);
    hub.shutdown().await;
    if global.json {
        print_json(&servers)
    } else {
        human::print_mcp_servers(&servers);
        Ok(())
    }
}

struct CompactArgs {
    session: String,
    focus: Option<String>,
    preview: bool,
    apply: Option<i64>,
    checkpoint: Option<PathBuf>,
    discard: Option<i64>,
    undo: bool,
}

async fn compact(context: &Context, args: CompactArgs) -> Result<()> {
    let engine = context.engine()?;
    let session = context.store.resolve_session(&args.session)?;
    let sink = PrintSink { json: context.json };
    if args.undo {
        let reverted = engine.undo_compaction(&session, &sink)?;
        if !context.json {
            println!("reverted {} record(s): {reverted:?}", reverted.len());
        }
        return Ok(());
    }
    if let Some(proposal) = args.discard {
        context.store.discard_proposal(&session.id, proposal)?;
        if !context.json {
            println!("proposal {proposal} discarded");
        }
        return Ok(());
    }
    let outcome = match args.apply {
        Some(proposal) => {
            let edited = match &args.checkpoint {
                Some(path) => Some(
                    std::fs::read_to_string(path)
                        .map_err(|e| Error::io(format!("cannot read {}", path.display()), e))?,
                ),
                None => None,
            };
            engine.apply_proposal(&session, proposal, edited.as_deref(), &sink)?
        }
        None => {
            let cancel = interrupt_token();
            let reason = alisio_engine::events::CompactionReason::Manual;
            let outcome = engine.compact(&session, reason, args.focus.as_deref(), args.preview, &sink, &cancel).await;
            engine.flush_telemetry(Some(&session.id), &sink).await;
            outcome?
        }
    };
    if !context.json {
        human::print_compact(&outcome);
    }
    match outcome {
        CompactOutcome::Failed { error } => Err(Error::Provider(format!("compaction failed: {error}"))),
        _ => Ok(()),
    }
}

/// `alisio import` (I6): exit 1 when a file could not be read, 2 when a PATH holds no known format.
async fn import(context: &Context, paths: Vec<PathBuf>, watch: bool) -> Result<()> {
    use alisio_engine::import;
    let given = !paths.is_empty();
    let sources = || -> Vec<PathBuf> {
        if given {
            return paths.clone();
        }
        import::default_locations().into_iter().filter(|l| l.exists).map(|l| PathBuf::from(l.path)).collect()
    };
    if !given && sources().is_empty() && !watch {
        eprintln!("alisio: no default location of Codex, Claude Code or OpenCode sessions exists here; give a PATH");
    }
    let report = import::import(&context.store, &sources());
    print_import(context.json, &report, true)?;
    if watch {
        let cancel = interrupt_token();
        while !cancel.is_cancelled() {
            tokio::select! {
                _ = cancel.cancelled() => break,
                _ = tokio::time::sleep(std::time::Duration::from_millis(500)) => {}
            }
            let store = context.store.clone();
            let roots = sources();
            let round = tokio::task::spawn_blocking(move || import::import(&store, &roots))
                .await
                .map_err(|e| Error::Provider(format!("the import stopped: {e}")))?;
            print_import(context.json, &round, false)?;
        }
        return Ok(());
    }
    if let Some(path) = report.unknown.first() {
        return Err(Error::Usage(format!(
            "{} holds no session Alisio can read; it reads {}",
            path.display(),
            import::FORMATS
        )));
    }
    if let Some(failure) = report.errors.first() {
        return Err(Error::Unreadable(format!("cannot import {}: {}", failure.path, failure.error)));
    }
    Ok(())
}

/// Prints an import round: everything the first time, then only sessions that grew (watch).
fn print_import(json: bool, report: &alisio_engine::import::ImportReport, first: bool) -> Result<()> {
    if !first && report.imported.iter().all(|s| s.added == 0) && report.errors.is_empty() {
        return Ok(());
    }
    if json {
        if first {
            return print_json(report);
        }
        let mut out = std::io::stdout().lock();
        serde_json::to_writer(&mut out, report)?;
        writeln!(out).and_then(|()| out.flush()).map_err(|e| Error::io("cannot write to stdout", e))
    } else {
        human::print_import(report, first);
        Ok(())
    }
}

async fn models(context: &Context) -> Result<()> {
    let provider = alisio_engine::provider::Provider::new(&context.loaded.config.provider)?;
    let models = provider.list_models().await?;
    let configured = context.loaded.config.provider.context_window;
    let profile_window = context.loaded.config.provider.profile_context_window;
    let discovered = provider.discover_window(Some(&models)).await?;
    let reported = discovered.map(|w| w.tokens);
    // The source of the window in force: the configuration's own value, the profile's, the server's.
    use alisio_engine::provider::WindowSource;
    let window_source = match (configured, profile_window, discovered) {
        (Some(_), _, _) => Some(WindowSource::Provider),
        (None, Some(_), _) => Some(WindowSource::Profile),
        (None, None, Some(w)) => Some(w.source),
        (None, None, None) => None,
    };
    let document = serde_json::json!({
        "baseUrl": context.loaded.config.provider.base_url,
        "model": context.loaded.config.provider.model,
        "configuredContextWindow": configured,
        "reportedContextWindow": reported,
        "windowSource": window_source,
        "profile": context.loaded.config.provider.profile,
        "models": models,
    });
    if context.json {
        print_json(&document)
    } else {
        human::print_models(&document);
        Ok(())
    }
}

async fn calls(context: &Context, command: CallsCommand) -> Result<()> {
    use alisio_engine::calls;
    match command {
        CallsCommand::List { session } => {
            let list = calls::list(&context.store, &session)?;
            if context.json {
                return print_json(&list);
            }
            human::print_calls(&list);
        }
        CallsCommand::Show { session, n } => {
            let detail = calls::show(&context.store, &session, n)?;
            if context.json {
                return print_json(&detail);
            }
            human::print_call(&detail);
        }
        CallsCommand::Diff { session, n, against } => {
            let diff = calls::diff(&context.store, &session, n, against)?;
            if context.json {
                return print_json(&diff);
            }
            human::print_call_diff(&diff);
        }
        CallsCommand::Replay { session, n } => {
            let report = context.engine()?.replay_call(&session, n, &interrupt_token()).await?;
            if context.json {
                return print_json(&report);
            }
            human::print_replay(&report);
        }
    }
    Ok(())
}

async fn sessions(context: &Context, command: SessionsCommand) -> Result<()> {
    match command {
        SessionsCommand::List => {
            let sessions = context.store.list_sessions()?;
            if context.json {
                print_json(&sessions)
            } else {
                human::print_sessions(&sessions);
                Ok(())
            }
        }
        SessionsCommand::Show { session, view: View::Stored } => {
            let document = view::stored_view(&context.store, &session)?;
            if context.json {
                print_json(&document)
            } else {
                human::print_stored(&document);
                Ok(())
            }
        }
        SessionsCommand::Show { session, view: View::Model } => {
            let config = &context.loaded.config;
            let record = context.store.resolve_session(&session)?;
            // The MCP tools in force are part of the request: their servers are asked for them.
            let hub = McpHub::for_config(config);
            if record.source.is_none() && !hub.is_empty() {
                hub.start().await;
                for (server, error) in hub.take_failures() {
                    eprintln!("alisio: MCP server {server} failed: {error} (its tools are not in the view)");
                }
            }
            let model_view = view::model_view(&context.store, config, &record.id, &hub.tools())?;
            hub.shutdown().await;
            if context.json {
                print_json(&model_view)
            } else {
                human::print_model_view(&model_view);
                Ok(())
            }
        }
        SessionsCommand::Export { session, format, output, no_redact } => {
            export_session(context, &session, format, output, !no_redact).await
        }
        SessionsCommand::Recover { session, acknowledge } => {
            let engine = context.engine()?;
            let record = context.store.resolve_session(&session)?;
            if !acknowledge {
                let pending = context.store.unresolved_tool_calls(&record.id)?;
                let listing: Vec<String> =
                    pending.iter().map(|e| format!("  {} {} {}", e.name, e.call_id, e.arguments)).collect();
                return Err(Error::Usage(format!(
                    "recovery records each uncertain tool result as \"result unknown\"; inspect the effects of these calls, then rerun with --acknowledge:\n{}",
                    if listing.is_empty() { "  (none)".to_string() } else { listing.join("\n") }
                )));
            }
            let report = engine.recover(&record.id)?;
            if context.json {
                print_json(&report)
            } else {
                human::print_recover(&report);
                Ok(())
            }
        }
    }
}
