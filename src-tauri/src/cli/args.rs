//! The command line (docs/cli.md), declared with clap: every subcommand, its arguments
//! and flags. `compact`'s modes are sub-subcommands (`alisio compact undo S`); the flag forms
//! (`alisio compact S --undo`) keep working.

use std::path::PathBuf;

use alisio_engine::config::Strategy;
use clap::{Args, Parser, Subcommand};

/// The command line as clap parses it, its texts that name the agents taken from the one table of
/// agents (`import::agents`): `import --help` lists each with what it writes and the versions
/// read, and every `--source` names every source.
pub fn command() -> clap::Command {
    use alisio_engine::import::agents;
    use clap::CommandFactory;
    let sources = format!("Only sessions from: alisio, {}, proxy", agents::names().join(", "));
    let formats: String = agents::AGENTS
        .iter()
        .map(|a| format!("  {:<12} {} ({}; {})\n", a.kind.as_str(), a.name, a.files, a.versions))
        .collect();
    let with_source = |cmd: clap::Command| {
        if cmd.get_arguments().any(|a| a.get_id() == "source") {
            cmd.mut_arg("source", |a| a.help(sources.clone()))
        } else {
            cmd
        }
    };
    let mut cli = Cli::command().mut_subcommand("import", |c| {
        c.about(format!("Read sessions of {} (read-only; again to append what is new)", agent_list()))
            .after_help(format!("Agents and what they write:\n{formats}"))
    });
    for name in ["usage", "search"] {
        cli = cli.mut_subcommand(name, with_source);
    }
    cli.mut_subcommand("sessions", |s| s.mut_subcommand("list", with_source))
}

/// `alisio --version`: the release and the commit it was built from.
const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("ALISIO_COMMIT"), ")");

/// "Claude Code, Codex, … and ATIF" from the table.
fn agent_list() -> String {
    let names: Vec<&str> = alisio_engine::import::agents::AGENTS.iter().map(|a| a.name).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

#[derive(Parser)]
#[command(name = "alisio", version = VERSION, about = "Run an LLM coding agent and see exactly what the model sees")]
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
    /// Compact a session now (replace older history by a checkpoint), or preview, apply, discard,
    /// undo, lint or probe
    Compact(CompactArgs),
    /// Ask the model server for its models and the context window it reports (a connection test)
    Models,
    /// List, show, export and recover sessions
    Sessions {
        #[command(subcommand)]
        command: SessionsCommand,
    },
    /// Print a completion script for a shell (bash, zsh, fish, elvish, powershell)
    Completions { shell: clap_complete::Shell },
    /// Benchmarks on your own sessions: every compaction strategy head to head
    Bench {
        #[command(subcommand)]
        command: BenchCommand,
    },
    /// The model-call ledger: every request rebuilt exactly, and how two requests differ
    Calls {
        #[command(subcommand)]
        command: CallsCommand,
    },
    /// Read sessions of other coding agents (read-only; again to append what is new)
    Import {
        /// Files or directories (walked); none: the agents' default locations that exist
        #[arg(value_name = "PATH")]
        paths: Vec<PathBuf>,
        /// Keep running and import what the sources append
        #[arg(long)]
        watch: bool,
    },
    /// Record every request an agent sends: point its base URL at this proxy and each call to
    /// …/chat/completions, …/responses or …/messages is passed to URL byte for byte, streamed back
    /// as it arrives, and stored exactly (credentials never), in the imported session it belongs to
    Proxy {
        /// The model server to forward to (the request's path is appended)
        #[arg(long, value_name = "URL")]
        upstream: String,
        /// Where to listen
        #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8788")]
        listen: String,
    },
    /// Tokens, cost, cache hit rate and savings over every session, own and imported
    Usage(UsageArgs),
    /// Send this home's sessions to a team's archive (PostgreSQL, config `archives`): only what is
    /// new, redacted first; again to send what changed since
    Push(PushArgs),
    /// Serve a team's archive to browsers, read-only, behind tokens (`serve token create`)
    Serve(ServeArgs),
    /// Search every stored message of every session, own and imported, best match first: plain
    /// text by default (every token matched literally: ids, paths, file names, model names), FTS5
    /// syntax with --fts
    Search(SearchArgs),
    /// Pin a message or a sentence: every request after a checkpoint carries it verbatim
    #[command(group(clap::ArgGroup::new("pin_action").required(true).args(["seq", "text", "list", "remove"])))]
    Pin {
        /// The session (id or unique prefix)
        session: String,
        /// Pin this message (its text as stored now)
        #[arg(long, value_name = "N")]
        seq: Option<i64>,
        /// Pin this sentence
        #[arg(long, value_name = "TEXT")]
        text: Option<String>,
        /// List the session's pins
        #[arg(long)]
        list: bool,
        /// Remove this pin
        #[arg(long, value_name = "ID")]
        remove: Option<i64>,
    },
    /// MCP tool servers (config `mcpServers`)
    Mcp {
        #[command(subcommand)]
        command: McpCommand,
    },
    /// Model prices: the entry that prices an id and why, and loading a newer LiteLLM snapshot
    Prices {
        #[command(subcommand)]
        command: PricesCommand,
    },
}

/// `compact`: a mode as a sub-subcommand, or the session and a mode flag.
#[derive(Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct CompactArgs {
    #[command(subcommand)]
    pub mode: Option<CompactMode>,
    #[arg(required = true)]
    pub session: Option<String>,
    /// Focus instructions for the summarizer
    #[arg(long)]
    pub focus: Option<String>,
    /// Store a proposed checkpoint without applying it
    #[arg(long, conflicts_with_all = ["apply", "undo", "discard"])]
    pub preview: bool,
    /// Compact with this strategy instead of compaction.strategy: native, cache, mask, hybrid, prune or provider
    #[arg(long, value_parser = strategy, conflicts_with_all = ["preview", "apply", "undo", "discard"])]
    pub strategy: Option<Strategy>,
    /// What each strategy would make of the next request (tokens before/after); nothing is applied
    #[arg(long, conflicts_with_all = ["focus", "preview", "apply", "discard", "undo", "strategy"])]
    pub plan: bool,
    /// Apply a stored proposal
    #[arg(long, value_name = "PROPOSAL", conflicts_with_all = ["undo", "discard", "focus"])]
    pub apply: Option<i64>,
    /// With --apply: use this edited checkpoint (JSON with the seven sections, or plain text)
    #[arg(long, value_name = "FILE", requires = "apply")]
    pub checkpoint: Option<PathBuf>,
    /// Discard a stored proposal
    #[arg(long, value_name = "PROPOSAL", conflicts_with_all = ["undo", "focus"])]
    pub discard: Option<i64>,
    /// Revert the newest compaction exactly (nothing is deleted)
    #[arg(long, conflicts_with = "focus")]
    pub undo: bool,
    /// Check what checkpoint N (default: the newest) kept of the history it replaced; no model is asked
    #[arg(long, value_name = "N", num_args = 0..=1, conflicts_with_all = ["focus", "preview", "apply", "discard", "undo"])]
    pub lint: Option<Option<i64>>,
    /// Ask the model fixed questions over the full history and over the compacted view of
    /// checkpoint N (default: the newest applied), side by side (model-judged; ledger purpose `probe`)
    #[arg(long, value_name = "N", num_args = 0..=1, conflicts_with_all = ["focus", "preview", "apply", "discard", "undo", "lint"])]
    pub probe: Option<Option<i64>>,
}

#[derive(Subcommand, Clone)]
pub enum CompactMode {
    /// Compact now: a checkpoint replaces older history (or, with --strategy mask, placeholders old tool results)
    Now {
        session: String,
        #[arg(long)]
        focus: Option<String>,
        /// native, cache, mask, hybrid, prune or provider (default: compaction.strategy)
        #[arg(long, value_parser = strategy)]
        strategy: Option<Strategy>,
    },
    /// What each strategy would make of the next request (tokens before/after); nothing is applied
    Plan { session: String },
    /// Store a proposed checkpoint; nothing is hidden until it is applied
    Preview {
        session: String,
        #[arg(long)]
        focus: Option<String>,
    },
    /// Apply stored proposal N, optionally with an edited checkpoint
    Apply {
        session: String,
        proposal: i64,
        #[arg(long, value_name = "FILE")]
        checkpoint: Option<PathBuf>,
    },
    /// Drop stored proposal N
    Discard { session: String, proposal: i64 },
    /// Revert the newest compaction exactly
    Undo { session: String },
    /// What checkpoint N (default: the newest) kept of the history it replaced; no model is asked
    Lint { session: String, checkpoint: Option<i64> },
    /// The model answers fixed questions over the full history and the compacted view
    Probe { session: String, checkpoint: Option<i64> },
}

impl CompactArgs {
    /// The mode asked for, whichever form was used.
    pub fn mode(self) -> CompactMode {
        if let Some(mode) = self.mode {
            return mode;
        }
        let session = self.session.unwrap_or_default();
        if self.plan {
            return CompactMode::Plan { session };
        }
        match (self.lint, self.probe, self.undo, self.discard, self.apply) {
            (Some(checkpoint), ..) => CompactMode::Lint { session, checkpoint },
            (_, Some(checkpoint), ..) => CompactMode::Probe { session, checkpoint },
            (_, _, true, ..) => CompactMode::Undo { session },
            (_, _, _, Some(proposal), _) => CompactMode::Discard { session, proposal },
            (_, _, _, _, Some(proposal)) => CompactMode::Apply { session, proposal, checkpoint: self.checkpoint },
            _ if self.preview => CompactMode::Preview { session, focus: self.focus },
            _ => CompactMode::Now { session, focus: self.focus, strategy: self.strategy },
        }
    }
}

fn strategy(text: &str) -> Result<Strategy, String> {
    text.parse().map_err(|_| format!("unknown strategy `{text}`: native, cache, mask, hybrid, prune or provider"))
}

pub use super::subcommands::{
    BenchCommand, CallsCommand, ExportFormat, McpCommand, PricesCommand, SearchArgs, SessionsCommand, UsageArgs, View,
};
pub use super::team_args::{PushArgs, ServeArgs, ServeCommand, TokenCommand};
