//! The subcommands of `alisio sessions`, `alisio calls` and `alisio mcp`, and the values their
//! flags take.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

#[derive(Subcommand)]
pub enum McpCommand {
    /// Start each configured server, and show its status and its tools with the characters each
    /// adds to every request
    List,
}

#[derive(Subcommand)]
pub enum PricesCommand {
    /// Which price entry prices a model id on a date, and why (or why none does): the table of
    /// LiteLLM's data, the overlay, loaded snapshots or config `prices`
    Show {
        /// A model id as an agent or a gateway writes it (`us.anthropic.claude-…-v1:0`,
        /// `anthropic/claude-sonnet-4.5`, `claude-sonnet-4@20250514`, `gpt-5.4`, …)
        model: String,
        /// The day priced (YYYY-MM-DD; default: today)
        #[arg(long, value_name = "DATE")]
        at: Option<String>,
    },
    /// Load a newer LiteLLM price snapshot (model_prices_and_context_window.json, fetched by
    /// you): new models are priced from always, changed prices from --since; nothing is fetched
    Update {
        /// The snapshot file
        file: String,
        /// The day its changed prices take effect (YYYY-MM-DD; default: today)
        #[arg(long, value_name = "DATE")]
        since: Option<String>,
    },
}

#[derive(Subcommand)]
pub enum CallsCommand {
    /// Every model call of a session, numbered 1..n in the order sent
    List { session: String },
    /// The request body of call N and the answer received: exact (sent by Alisio, logged by the
    /// agent, captured by `alisio proxy`) or reconstructed, with what it lacks and what it is made of
    Show { session: String, n: usize },
    /// What every request of a session was made of (system, tools, checkpoint, injected context,
    /// user, assistant, tool results), call by call, with cache breaks
    Composition { session: String },
    /// Compare request N with request M (default N-1) in rendering order: system, tools, messages
    Diff {
        session: String,
        n: usize,
        #[arg(long, value_name = "M")]
        against: Option<usize>,
    },
    /// Every cache break and miss: its cause (system, tools, messages, model, params, expired,
    /// compaction, unknown), the agent's own reason, the tokens processed again and what that cost
    Breaks { session: String },
    /// Per compaction: what its summary call cost, and what the same summary would have cost as a
    /// rebuilt prompt (nothing read from the cache) — what appending to the cached request saved
    Savings { session: String },
    /// The files and commands fetched again after a compaction hid their earlier fetch: the
    /// tokens and cost of fetching them again, and whether the checkpoint or the artifact trail
    /// held them
    Rereads { session: String },
    /// Send call N's exact request again to the configured provider (another model with --config)
    /// and show both answers; stored as a `replay` call, never part of the transcript
    Replay { session: String, n: usize },
}

#[derive(Subcommand)]
pub enum BenchCommand {
    /// Fork sessions (own or imported) at chosen points, compact each fork with every strategy
    /// (and, for imported sessions, the agent's own summary), ask each the same probes and compare
    /// what they kept, their tokens, what a prefix cache re-processes and the dollars; the
    /// sessions are only read
    Compaction {
        #[arg(required = true, num_args = 1.., value_name = "SESSION")]
        sessions: Vec<String>,
        /// Compact after this message (default: after the last)
        #[arg(long, value_name = "SEQ", conflicts_with = "every")]
        at: Option<i64>,
        /// Compact after every N-th message
        #[arg(long, value_name = "N")]
        every: Option<u32>,
        /// The arms, comma-separated: native, cache, mask, hybrid, prune, provider, agent
        #[arg(long, value_delimiter = ',', value_name = "LIST")]
        strategies: Option<Vec<String>>,
        /// A profile whose model judges the probes that are not facts where the exact check missed
        #[arg(long, value_name = "PROFILE")]
        judge: Option<String>,
    },
}

#[derive(Subcommand)]
pub enum SessionsCommand {
    /// Sessions, newest first
    List {
        /// Only sessions of this project (the workspace or the agent's working directory)
        #[arg(long, value_name = "PATH")]
        project: Option<String>,
        /// Only sessions from alisio, codex, claude-code, opencode, proxy, …
        #[arg(long, value_name = "SOURCE")]
        source: Option<alisio_engine::import::agents::Source>,
    },
    /// One session: every stored message, or exactly what the model gets next
    Show {
        session: String,
        #[arg(long, value_enum, default_value_t = View::Stored)]
        view: View,
    },
    /// Export a session: Markdown or one self-contained HTML page for people, versioned JSON
    /// (stored view + ledger), or OTLP traces to the configured endpoint; secrets are redacted
    /// unless --no-redact, and what was redacted is listed (kind, where, a masked preview)
    Export {
        session: String,
        #[arg(long, value_enum)]
        format: ExportFormat,
        /// Write here instead of stdout (markdown, json, html)
        #[arg(long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Keep secrets as they are
        #[arg(long, conflicts_with = "redact_extra")]
        no_redact: bool,
        /// Redact this too: a literal string, or a regex written /…/ (repeatable)
        #[arg(long, value_name = "PATTERN")]
        redact_extra: Vec<String>,
    },
    /// Record uncertain tool results as "result unknown" (re-runs nothing)
    Recover {
        session: String,
        /// Confirm that you inspected the effects of the uncertain calls
        #[arg(long)]
        acknowledge: bool,
    },
    /// A new session from what the model saw after message SEQ (any session, own or imported;
    /// the source is not changed), ready for `run` on any profile
    Fork {
        session: String,
        /// The message after which it branches (see `sessions show`)
        #[arg(long, value_name = "SEQ")]
        at: i64,
        /// Its title (default: "Fork of <title> at #SEQ")
        #[arg(long)]
        title: Option<String>,
        /// Where its tools work (default: the source's workspace if it is a folder here, else the
        /// current directory)
        #[arg(long, value_name = "DIR")]
        workspace: Option<PathBuf>,
    },
    /// Two sessions compared: the shared messages, the first divergence, each side's calls,
    /// tokens, cost, compactions, tools and files
    Diff { a: String, b: String },
    /// Give a session a title of your own (kept apart from the agent's; without TITLE, the
    /// agent's own again)
    Rename { session: String, title: Option<String> },
    /// Remove a session of Alisio's own (the demo, a run, a fork) and everything stored of it;
    /// imported sessions follow their agent's files and are not removed
    Remove { session: String },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    Markdown,
    Json,
    Html,
    Otlp,
    /// An ATIF trajectory (trajectory.json)
    Atif,
}

impl From<ExportFormat> for alisio_engine::export::ExportFormat {
    fn from(format: ExportFormat) -> Self {
        match format {
            ExportFormat::Markdown => Self::Markdown,
            ExportFormat::Json => Self::Json,
            ExportFormat::Html => Self::Html,
            ExportFormat::Otlp => Self::Otlp,
            ExportFormat::Atif => Self::Atif,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
pub enum View {
    Stored,
    Model,
}

/// `alisio search`: what to look for and where.
#[derive(Args)]
pub struct SearchArgs {
    pub query: String,
    /// Only sessions from alisio, codex, claude-code, opencode, proxy, …
    #[arg(long, value_name = "SOURCE")]
    pub source: Option<alisio_engine::import::agents::Source>,
    /// Only sessions of this project (the workspace or the agent's working directory)
    #[arg(long, value_name = "PATH")]
    pub project: Option<String>,
    /// The most hits shown
    #[arg(long, value_name = "N", default_value_t = 50)]
    pub limit: usize,
    /// QUERY is FTS5 syntax (words, "phrases", prefix*, AND / OR / NOT) instead of plain text
    #[arg(long)]
    pub fts: bool,
    /// Only messages of this role: user, assistant, tool or summary (a checkpoint)
    #[arg(long, value_name = "ROLE")]
    pub role: Option<String>,
    /// Only messages calling this tool, and their results
    #[arg(long, value_name = "NAME")]
    pub tool: Option<String>,
    /// Only inside this session (an id or a unique prefix)
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Messages from this day on (YYYY-MM-DD)
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// Messages up to the end of this day (YYYY-MM-DD)
    #[arg(long, value_name = "DATE")]
    pub until: Option<String>,
    /// Search a team's archive (config `archives`) instead of this home
    #[arg(long, value_name = "NAME", conflicts_with_all = ["tool", "session", "since", "until"])]
    pub archive: Option<String>,
    /// With --archive: only sessions pushed from this machine
    #[arg(long, value_name = "NAME", requires = "archive")]
    pub machine: Option<String>,
    /// With --archive: only sessions this user pushed
    #[arg(long, value_name = "NAME", requires = "archive")]
    pub user: Option<String>,
}

#[derive(Args)]
pub struct UsageArgs {
    /// Group by day, week, month, session, model, project or source (with --archive also user or machine)
    #[arg(long, value_name = "GROUP", default_value = "day")]
    pub by: String,
    /// Calls from this day on (YYYY-MM-DD)
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// Calls up to the end of this day (YYYY-MM-DD)
    #[arg(long, value_name = "DATE")]
    pub until: Option<String>,
    /// Only sessions from alisio, codex, claude-code, opencode, proxy, …
    #[arg(long, value_name = "SOURCE")]
    pub source: Option<alisio_engine::import::agents::Source>,
    /// Only calls to this model
    #[arg(long, value_name = "MODEL")]
    pub model: Option<String>,
    /// With --by session: count each sub-agent's calls in the session that started it
    #[arg(long)]
    pub fold_subagents: bool,
    /// Every session pushed to a team's archive (config `archives`) instead of this home's
    #[arg(long, value_name = "NAME", conflicts_with = "fold_subagents")]
    pub archive: Option<String>,
}
