//! `undertone mcp`: an MCP server on standard input and output for a local agent,
//! calling a running Undertone server's REST API.

use clap::Args;

use super::keys::runtime;
use super::warn;

/// Arguments of `undertone mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// The Undertone server, e.g. `https://undertone.example.com` (with or without
    /// `/api/v1`).
    #[arg(long, env = "UNDERTONE_URL")]
    base_url: String,
    /// The API key (`ut_live_…`); a read-only key exposes only the read tools. Prefer
    /// the environment variable, which keeps the key out of the process list.
    #[arg(long, env = "UNDERTONE_API_KEY", hide_env_values = true)]
    api_key: String,
}

/// Runs `undertone mcp`; returns the exit status.
pub fn run(args: &McpArgs) -> u8 {
    // Standard output carries the protocol: logs go to standard error only.
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(status) => return status,
    };
    match rt.block_on(crate::mcp::serve_stdio(&args.base_url, &args.api_key)) {
        Ok(()) => 0,
        Err(e @ crate::mcp::StdioError::Usage(_)) => {
            warn(&format!("error: {e}"));
            super::INVALID
        }
        Err(e) => {
            warn(&format!("error: {e}"));
            1
        }
    }
}
