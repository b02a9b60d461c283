//! `undertone drift BEFORE AFTER`: score two periods and test each dimension for change.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use undertone_core::drift::{DriftDirection, DriftResult, Verdict, drift};
use undertone_core::score::Dimension;
use undertone_core::sdk;

use super::{Format, INVALID, emit, load, warn};

/// Arguments of `undertone drift`.
#[derive(Debug, Args)]
pub struct DriftArgs {
    /// The baseline period: ingest-request JSON, or JSON Lines of events.
    before: PathBuf,
    /// The period to compare against it, in the same layouts.
    after: PathBuf,
    /// The question the analysis should address first, e.g. "did v4 frustrate people more?".
    #[arg(long)]
    question: Option<String>,
    /// Deployment the events come from: required for JSON Lines, fills in a missing
    /// `deployment_id` in a request file.
    #[arg(long)]
    deployment_id: Option<String>,
    /// Name of the before period (default: the file name without extension).
    #[arg(long)]
    before_label: Option<String>,
    /// Name of the after period (default: the file name without extension).
    #[arg(long)]
    after_label: Option<String>,
    /// Output: the drift result as JSON, or a table for reading in a terminal.
    #[arg(long, value_enum, default_value_t = Output::Json)]
    format: Output,
    /// Input layout of both files.
    #[arg(long, value_enum, default_value_t = Format::Auto)]
    input_format: Format,
    /// Print errors as the JSON error envelope on standard output.
    #[arg(long)]
    json: bool,
}

/// `--format` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Output {
    /// The drift result (DESIGN.md §6), pretty-printed.
    Json,
    /// One row per dimension, then the summary and recommendations.
    Table,
}

/// Runs `undertone drift`; returns the exit status.
pub fn run(args: &DriftArgs) -> u8 {
    if let Some(q) = &args.question
        && let Err(e) = undertone_core::validate::question(q)
    {
        super::report("--question", &e, args.json);
        return INVALID;
    }
    let id = super::flag(&args.deployment_id);
    let period = |file, label: &Option<String>, fallback| {
        load(file, args.input_format, args.json, true, |source| {
            sdk::drift_period(source, label.as_deref(), fallback, id)
        })
    };
    let Some(before) = period(&args.before, &args.before_label, "before") else {
        return INVALID;
    };
    let Some(after) = period(&args.after, &args.after_label, "after") else {
        return INVALID;
    };
    if id.value.is_none() && after.0 != before.0 {
        warn(&format!(
            "note: the files name different deployments ({}, {}); AI turns are recognised with {}",
            before.0, after.0, before.0
        ));
    }
    let result = drift(&sdk::drift_pair(before, after, args.question.as_deref()));
    match args.format {
        // Serialising plain data types to a String cannot fail.
        Output::Json => emit(&serde_json::to_string_pretty(&result).unwrap_or_default()),
        Output::Table => emit(&table(&result)),
    }
}

/// One row per dimension, then the summary, findings and recommendations.
pub fn table(r: &DriftResult) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<24} {:>7} {:>7} {:>8}  {:<19} {:>8} {:>7}  verdict",
        "dimension", "before", "after", "shift", "95% CI", "p (Holm)", "effect"
    );
    let num = |x: Option<f64>, width: usize, signed: bool| match x {
        Some(v) if signed => format!("{v:>+width$.3}"),
        Some(v) => format!("{v:>width$.3}"),
        None => format!("{:>width$}", "-"),
    };
    for d in Dimension::ALL {
        let x = r.dimension_drifts.get(d);
        let ci = match (x.ci_low, x.ci_high) {
            (Some(l), Some(h)) => format!("[{l:+.3}, {h:+.3}]"),
            _ => "-".to_owned(),
        };
        let p = match x.p_adjusted {
            Some(p) if p < 0.001 => "<0.001".to_owned(),
            Some(p) => format!("{p:.3}"),
            None => "-".to_owned(),
        };
        let verdict = match x.verdict {
            Verdict::Improved => "improved",
            Verdict::Regressed => "REGRESSED",
            Verdict::Unchanged => "unchanged",
            Verdict::InsufficientData => "insufficient data",
        };
        let _ = writeln!(
            out,
            "{:<24} {} {} {}  {:<19} {:>8} {}  {verdict}",
            d.as_str(),
            num(x.before_median, 7, false),
            num(x.after_median, 7, false),
            num(x.shift, 8, true),
            ci,
            p,
            num(x.effect_size, 7, true),
        );
    }
    let _ = writeln!(
        out,
        "\n{} ({} conversations) → {} ({} conversations): {}, overall drift {:.2}",
        r.before.label,
        r.before.conversation_count,
        r.after.label,
        r.after.conversation_count,
        match r.direction {
            DriftDirection::Improved => "improved",
            DriftDirection::Regressed => "regressed",
            DriftDirection::Mixed => "mixed",
            DriftDirection::Stable => "stable",
        },
        r.overall_drift
    );
    if let Some(q) = &r.question {
        let _ = writeln!(out, "question: {q}");
    }
    let _ = writeln!(out, "summary: {}", r.plain_summary);
    for rec in &r.plain_recommendations {
        let _ = writeln!(out, "- {rec}");
    }
    out.trim_end().to_owned()
}
