//! The `undertone` command line.

mod drift;
mod error;
mod eval;
mod import;
mod input;
mod keys;
mod mcp;
mod score;
mod serve;
mod table;
mod webhooks;

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use undertone_core::sdk;
use undertone_core::validate::Options;
use undertone_core::{Error, ErrorCode, assemble};

pub use input::Format;

/// Exit status for success.
const OK: u8 = 0;
/// Exit status for invalid or unreadable input (clap uses it for usage errors too).
const INVALID: u8 = 2;

/// Undertone scores the human side of AI conversations.
#[derive(Debug, Parser)]
#[command(name = "undertone", version)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check an input file against the input contract and summarise it.
    ///
    /// Prints `ok: N events, M conversations (H human turns)` and exits 0, or prints
    /// every violation and exits 2.
    Validate(InputArgs),
    /// Print the conversations assembled from an input file, as JSON.
    Conversations(InputArgs),
    /// Score every human turn of an input file and print the result.
    ///
    /// JSON (`full_output = {pipeline, intelligence}`, or the condensed view) on
    /// standard output, or a table for reading in a terminal. No event-count limit:
    /// that is an API limit. Inputs over 100,000 events show progress on standard error.
    Score(score::ScoreArgs),
    /// Convert an export (ChatGPT, Claude, Zendesk, Intercom, Slack, a mapping) into a request.
    ///
    /// The request goes to standard output; items left out, with where and why, to
    /// standard error (docs/connectors.md).
    Import(import::ImportArgs),
    /// Measure the scores against labelled conversations (AUROC, Spearman, ECE).
    Eval(eval::EvalArgs),
    /// Score two periods (e.g. two model versions) and test each dimension for a
    /// significant change: Mann-Whitney U, Hodges–Lehmann shift, Holm-adjusted.
    Drift(drift::DriftArgs),
    /// Run the REST service (SQLite by default); prints a key on first start.
    Serve(serve::ServeArgs),
    /// Create, list and revoke API keys.
    Keys(keys::KeysArgs),
    /// List and delete the webhook endpoints of the database, of every key.
    Webhooks(webhooks::WebhooksArgs),
    /// Serve MCP on standard input and output for a local agent.
    ///
    /// A client of a running server's REST API (docs/mcp.md); a read-only key exposes
    /// only the read tools.
    Mcp(mcp::McpArgs),
    /// Print the OpenAPI 3.1 document of the REST API (what `spec/openapi.json` holds).
    Openapi,
}

#[derive(Debug, Args)]
struct InputArgs {
    /// Ingest-request JSON, a JSON array of events, or JSON Lines of events; `-` reads
    /// standard input.
    file: PathBuf,
    /// Deployment the events come from: required for a list of events, fills in a
    /// missing `deployment_id` in a request file.
    #[arg(long)]
    deployment_id: Option<String>,
    /// Input layout.
    #[arg(long, alias = "input-format", value_enum, default_value_t = Format::Auto)]
    format: Format,
    /// Print errors as the JSON error envelope `{"error":{"code","message","details"}}`
    /// on standard output instead of text on standard error.
    #[arg(long)]
    json: bool,
}

/// Parses the command line, runs it and returns the process exit status.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let (args, print_conversations) = match &cli.command {
        Command::Validate(a) => (a, false),
        Command::Conversations(a) => (a, true),
        Command::Score(a) => return ExitCode::from(score::run(a)),
        Command::Eval(a) => return ExitCode::from(eval::run(a)),
        Command::Import(a) => return ExitCode::from(import::run(a)),
        Command::Drift(a) => return ExitCode::from(drift::run(a)),
        Command::Serve(a) => return ExitCode::from(serve::run(a)),
        Command::Keys(a) => return ExitCode::from(keys::run(a)),
        Command::Webhooks(a) => return ExitCode::from(webhooks::run(a)),
        Command::Mcp(a) => return ExitCode::from(mcp::run(a)),
        Command::Openapi => {
            // The document ends in a newline, which `emit` writes.
            let document = crate::api::openapi::document();
            return ExitCode::from(emit(document.strip_suffix('\n').unwrap_or(&document)));
        }
    };
    ExitCode::from(run(args, print_conversations))
}

fn run(args: &InputArgs, print_conversations: bool) -> u8 {
    let Some(request) = load(&args.file, args.format, args.json, false, |source| {
        sdk::load_request(source, flag(&args.deployment_id), &Options::default())
    }) else {
        return INVALID;
    };
    let assembly = assemble(&request.events, Some(&request.deployment_id));
    if print_conversations {
        // Serialising plain data types to a String cannot fail.
        let json = serde_json::to_string_pretty(&assembly).unwrap_or_default();
        return emit(&json);
    }
    for id in &assembly.without_human_turns {
        warn(&format!(
            "note: conversation {id} has no human turn; it is kept but nothing in it is scored"
        ));
    }
    emit(&format!(
        "ok: {}, {} ({})",
        plural(assembly.event_count, "event", "events"),
        plural(assembly.conversation_count, "conversation", "conversations"),
        plural(assembly.human_turn_count, "human turn", "human turns"),
    ))
}

/// `--deployment-id`, named so in error messages.
fn flag(deployment_id: &Option<String>) -> sdk::DeploymentId<'_> {
    sdk::DeploymentId {
        value: deployment_id.as_deref(),
        name: "--deployment-id",
    }
}

/// Reads an input file and turns it into `T` with `read`, reporting any failure (as
/// text or the JSON envelope); `None` means the caller exits with [`INVALID`].
/// `unlimited` lifts the API's body-size limit on the file.
fn load<T>(
    file: &std::path::Path,
    format: Format,
    json: bool,
    unlimited: bool,
    read: impl FnOnce(&sdk::Source<'_>) -> Result<T, Error>,
) -> Option<T> {
    let input = match input::read(file, format, unlimited) {
        Ok(input) => input,
        Err(line) if json => {
            let envelope = serde_json::json!({"error": {
                "code": ErrorCode::ValidationError, "message": line.to_string(), "details": []
            }});
            emit(&envelope.to_string());
            return None;
        }
        Err(line) => {
            warn(&format!("error: {line}"));
            return None;
        }
    };
    match read(&input.source()) {
        Ok(value) => Some(value),
        Err(e) => {
            report(&input::display_name(file), &e, json);
            None
        }
    }
}

/// Prints a validation error: one line for a body-level problem, else one line per violation.
fn report(name: &str, error: &Error, json: bool) {
    if json {
        emit(&error.to_envelope().to_string());
        return;
    }
    match error.violations() {
        [one] if one.path == "body" => warn(&format!("error: {name} {}", one.message)),
        violations => {
            let mut text = format!(
                "error: {name} breaks the input contract ({}, {}):",
                error.code(),
                plural(violations.len(), "problem", "problems")
            );
            for v in violations {
                text.push_str("\n  ");
                text.push_str(&v.to_string());
            }
            warn(&text);
        }
    }
}

/// Writes one line to standard output; a closed pipe (`| head`) is not an error.
fn emit(text: &str) -> u8 {
    emit_with(|out| out.write_all(text.as_bytes()))
}

/// Standard output behind a 64 KiB buffer, as [`emit_with`] hands it out.
type Stdout = io::BufWriter<io::StdoutLock<'static>>;

/// Writes one line to standard output as `write` produces it, through a buffer (a
/// large result is never held whole in memory); a closed pipe is not an error. The
/// buffer is handed out as its own type, not as a `dyn Write`: a serialiser writes a
/// result a few bytes at a time, and each write is then a copy into the buffer the
/// compiler can inline rather than a call through a vtable (for the 300 MB result of
/// the bench corpus, about a tenth of the command's time: `docs/benchmarks.md`).
fn emit_with(write: impl FnOnce(&mut Stdout) -> io::Result<()>) -> u8 {
    let mut out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let written = write(&mut out)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush());
    match written {
        Ok(()) => OK,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => OK,
        Err(e) => {
            warn(&format!("error: cannot write output: {e}"));
            INVALID
        }
    }
}

/// Writes one line to standard output; unlike `println!`, a closed stdout is not a
/// panic (the server goes on serving).
fn say(text: &str) {
    let _ = writeln!(io::stdout().lock(), "{text}");
}

/// Writes one line to standard error; unlike `eprintln!`, a closed stderr is not a panic.
fn warn(text: &str) {
    let _ = writeln!(io::stderr().lock(), "{text}");
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
