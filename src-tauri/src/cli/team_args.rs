//! The team's archive on the command line: `push` and `serve` (with its tokens).

use clap::{Args, Subcommand};

#[derive(Args)]
pub struct PushArgs {
    /// The archive (config `archives`); without it, the only one configured
    #[arg(long, value_name = "NAME")]
    pub to: Option<String>,
    /// Keep running and push what changes
    #[arg(long)]
    pub watch: bool,
    /// Say what would leave this machine; send nothing
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Args)]
pub struct ServeArgs {
    #[command(subcommand)]
    pub command: Option<ServeCommand>,
    /// The archive (config `archives`); without it, the only one configured
    #[arg(long, value_name = "NAME", global = true)]
    pub archive: Option<String>,
    /// Where to listen; a loopback address unless you mean otherwise
    #[arg(long, value_name = "ADDR", default_value = alisio_api::serve::DEFAULT_LISTEN)]
    pub listen: String,
}

#[derive(Subcommand)]
pub enum ServeCommand {
    /// Who may read the archive: tokens (stored hashed, in the archive)
    Token {
        #[command(subcommand)]
        command: TokenCommand,
    },
}

#[derive(Subcommand)]
pub enum TokenCommand {
    /// Make a token; it is printed once (the last word of the output)
    Create {
        /// A name to tell it by
        #[arg(long, value_name = "LABEL")]
        label: Option<String>,
    },
    /// Every token: id, label, made, revoked
    List,
    /// Revoke token ID: requests carrying it are refused from now on
    Revoke { id: i64 },
}
