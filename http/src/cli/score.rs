//! `undertone score FILE`: score every human turn and print JSON or a table.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use clap::{Args, ValueEnum};
use undertone_core::Pipeline;
use undertone_core::score::score_with_progress;
use undertone_core::sdk::{self, ScoreOptions};

use super::{Format, INVALID, emit, emit_with, load, table, warn};

/// Inputs with more events than this show progress on standard error.
const PROGRESS_ABOVE_EVENTS: usize = 100_000;

/// Arguments of `undertone score`.
#[derive(Debug, Args)]
pub struct ScoreArgs {
    /// Ingest-request JSON, a JSON array of events, or JSON Lines of events; `-` reads
    /// standard input.
    file: PathBuf,
    /// Deployment the events come from: required for a list of events, fills in a
    /// missing `deployment_id` in a request file.
    #[arg(long)]
    deployment_id: Option<String>,
    /// Pipeline; overrides the file's `pipeline`. Default: the file's, else `auto`.
    #[arg(long, value_enum)]
    pipeline: Option<PipelineArg>,
    /// Which result to print: the whole `full_output`, the condensed view, or one flat
    /// row per human turn (JSON Lines: the rows docs/batch.md writes as Parquet).
    #[arg(long, value_enum, default_value_t = View::Full)]
    view: View,
    /// Output: JSON, a table with one row per human turn for reading in a terminal, or
    /// an HTML report (one file, no network) to open in a browser.
    #[arg(long, value_enum, default_value_t = Output::Json)]
    format: Output,
    /// Input layout.
    #[arg(long, value_enum, default_value_t = Format::Auto)]
    input_format: Format,
    /// Read FILE as an export in this format (chatgpt, claude, zendesk, intercom,
    /// slack, or mapping:FILE) and score what `undertone import --from` makes of it.
    #[arg(long)]
    from: Option<String>,
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
    /// `{deployment_id, conversation_id, turn, actor_id, timestamp, <dimension>,
    /// <dimension>_band, …}` per human turn, one per line.
    Turns,
}

/// `--format` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Output {
    /// JSON on one line.
    Json,
    /// A table for a person reading in a terminal.
    Table,
    /// One self-contained HTML page (the app's session page) that opens offline.
    Html,
}

/// Runs `undertone score`; returns the exit status.
pub fn run(args: &ScoreArgs) -> u8 {
    if args.format == Output::Html && args.view != View::Full {
        let view = if args.view == View::Condensed {
            "condensed"
        } else {
            "turns"
        };
        warn(&format!(
            "error: --view {view} does not apply to --format html: the report always shows \
             the whole result; leave out --view, or use --format json"
        ));
        return INVALID;
    }
    let options = ScoreOptions {
        deployment_id: super::flag(&args.deployment_id),
        pipeline: args.pipeline.map(|p| match p {
            PipelineArg::Auto => Pipeline::Auto,
            PipelineArg::Support => Pipeline::Support,
            PipelineArg::Reviews => Pipeline::Reviews,
        }),
        view: match args.view {
            View::Full => sdk::View::Full,
            View::Condensed => sdk::View::Condensed,
            View::Turns => sdk::View::Turns,
        },
    };
    let request = match &args.from {
        Some(from) => {
            let Some(imported) =
                super::import::request(from, &args.file, &args.deployment_id, args.json)
            else {
                return INVALID;
            };
            // The connector wrote the request: validate it as local scoring does a file.
            match undertone_core::validate::ingest_request(&imported, &sdk::LOCAL) {
                Ok(mut r) => {
                    if let Some(p) = options.pipeline {
                        r.pipeline = p;
                    }
                    r
                }
                Err(e) => {
                    super::report(&super::input::display_name(&args.file), &e, args.json);
                    return INVALID;
                }
            }
        }
        None => {
            let Some(request) = load(&args.file, args.input_format, args.json, true, |source| {
                sdk::score_request(source, &options)
            }) else {
                return INVALID;
            };
            request
        }
    };
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
        Output::Json if args.view == View::Turns => {
            emit_with(|out| undertone_core::score::rows::write_turn_rows_jsonl(out, &result))
        }
        Output::Html => emit_with(|out| crate::app::report::write(out, &request, &result)),
        // What `sdk::score_json`, and so every binding, returns.
        Output::Json => emit_with(|out| sdk::write_score(out, &result, options.view)),
    }
}
