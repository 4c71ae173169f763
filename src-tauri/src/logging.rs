//! Logs go to stderr, filtered by `ALISIO_LOG` (default: warnings). Nothing logged carries secrets.
//! Shared by both binaries.

pub fn init() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("ALISIO_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(ansi)
        .with_target(false)
        .init();
}
