//! `undertone score FILE`: score every human turn and print JSON or a table.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use clap::{Args, ValueEnum};
use undertone_core::Pipeline;
use undertone_core::score::{SessionIntelligence, score_with_progress};

use super::{Format, INVALID, emit, load, table, warn};

/// Inputs with more events than this show progress on standard error.
const PROGRESS_ABOVE_EVENTS: usize = 100_000;

/// Arguments of `undertone score`.
#[derive(Debug, Args)]
pub struct ScoreArgs {
    /// Ingest-request JSON, or JSON Lines of events; `-` reads standard input.
    file: PathBuf,
    /// Deployment the events come from: required for JSON Lines, fills in a missing
    /// `deployment_id` in a request file.
    #[arg(long)]
    deployment_id: Option<String>,
    /// Pipeline; overrides the file's `pipeline`. Default: the file's, else `auto`.
    #[arg(long, value_enum)]
    pipeline: Option<PipelineArg>,
    /// Which result to print: the whole `full_output`, or the condensed view.
    #[arg(long, value_enum, default_value_t = View::Full)]
    view: View,
    /// Output: JSON, or a table with one row per human turn for reading in a terminal.
    #[arg(long, value_enum, default_value_t = Output::Json)]
    format: Output,
    /// Input layout.
    #[arg(long, value_enum, default_value_t = Format::Auto)]
    input_format: Format,
    /// Print errors as the JSON error envelope on standard output.
    #[arg(long)]
    json: bool,
}

/// `--pipeline` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum PipelineArg {
    /// Pick `support` or `reviews` from the shape of the events.
    Auto,
    /// Multi-turn human↔AI conversations.
    Support,
    /// Standalone human texts (feedback, reviews).
    Reviews,
}

/// `--view` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum View {
    /// `{pipeline, intelligence}` with every conversation and turn.
    Full,
    /// `{session_id, archetype, layer_z, key_finding, falsifiable, recommendation}`.
    Condensed,
}

/// `--format` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Output {
    /// JSON on one line.
    Json,
    /// A table for a person reading in a terminal.
    Table,
}

/// Runs `undertone score`; returns the exit status.
pub fn run(args: &ScoreArgs) -> u8 {
    let Some(mut request) = load(
        &args.file,
        args.input_format,
        args.deployment_id.as_deref(),
        args.json,
        true,
    ) else {
        return INVALID;
    };
    if let Some(p) = args.pipeline {
        request.pipeline = match p {
            PipelineArg::Auto => Pipeline::Auto,
            PipelineArg::Support => Pipeline::Support,
            PipelineArg::Reviews => Pipeline::Reviews,
        };
    }
    let show_progress = request.events.len() > PROGRESS_ABOVE_EVENTS;
    let last_shown = AtomicUsize::new(0);
    let result = score_with_progress(&request, |done, total| {
        // At most about every 5%, and once at the end.
        let step = (total / 20).max(1);
        if show_progress && (done == total || done >= last_shown.load(Ordering::Relaxed) + step) {
            last_shown.store(done, Ordering::Relaxed);
            warn(&format!("scoring: {done}/{total} conversations"));
        }
    });
    match args.format {
        Output::Table => emit(&table::render(&result, args.view == View::Condensed)),
        Output::Json => emit(&to_json(&result, args.view)),
    }
}

/// The result as JSON text.
fn to_json(result: &SessionIntelligence, view: View) -> String {
    // Serialising these plain data types to a String cannot fail.
    match view {
        View::Full => serde_json::to_string(result).unwrap_or_default(),
        View::Condensed => serde_json::to_string(&result.condensed(None)).unwrap_or_default(),
    }
}
