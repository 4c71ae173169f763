//! Servers as text: the model server's report, the MCP servers.

use alisio_engine::mcp::ServerStatus;
use alisio_engine::provider::ModelsReport;

use crate::cli::output::Human;

impl Human for Vec<ServerStatus> {
    fn print(&self) {
        let servers = self;
        if servers.is_empty() {
            println!("no MCP servers configured (config key mcpServers)");
        }
        for server in servers {
            let permission = format!("{:?}", server.permission).to_lowercase();
            match &server.error {
                Some(error) => {
                    println!("{} ({}, {permission}): {} — {error}", server.name, server.transport, server.status)
                }
                None => println!(
                    "{} ({}, {permission}): {}, {} tools",
                    server.name,
                    server.transport,
                    server.status,
                    server.tools.len()
                ),
            }
            for tool in &server.tools {
                println!("  {:<64} {:>6} chars", tool.name, tool.chars);
            }
        }
    }
}

impl Human for ModelsReport {
    fn print(&self) {
        println!("server {} answered /models", self.base_url);
        let ids = &self.model_ids;
        println!("models: {}", if ids.is_empty() { "(none listed)".to_string() } else { ids.join(", ") });
        let window = |v: Option<u64>| v.map(|n| format!("{n} tokens")).unwrap_or_else(|| "unknown".into());
        println!(
            "context window of {}: reported {}, configured {}",
            self.model,
            window(self.reported_context_window),
            window(self.configured_context_window)
        );
        if let (Some(tokens), Some(source)) = (self.context_window, self.window_source) {
            println!("in force: {tokens} tokens (from {})", <&str>::from(source));
        }
    }
}
