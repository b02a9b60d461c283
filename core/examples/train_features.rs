//! Writes the features the scorer reads, for `scripts/train-scorer` to fit models to.
//!
//! ```text
//! train_features text  TEXTS.jsonl    one {"text": …} per line → the text model's features
//! train_features ai    DIALOGS.jsonl  DBDC3 dialogues → each system turn's AI-failure features
//! train_features turns DIALOGS.jsonl  DBDC3 dialogues → each user turn's dimension inputs
//! train_features turn_scores DIALOGS.jsonl  the same, then the scorer's turn scores
//! train_features conversations DIALOGS.jsonl → each dialogue's conversation inputs
//! ```
//!
//! Every line of output is `ID<TAB>FEATURES`: `ID` is the input line number (text) or
//! `DIALOG_ID:TURN_INDEX` (ai, turns); `FEATURES` is `column:value` pairs, sorted, for
//! sparse rows (hash buckets first, then the dense features from column `BUCKETS`), or
//! comma-separated values in `Input::NAMES` order (turns; each followed by the
//! scorer's own turn scores of the learned dimensions, so the script can check that it
//! computes what the scorer computes) or `ConversationInput::NAMES` order
//! (conversations, ID `DIALOG_ID:DIMENSION`). The features come from the
//! very functions the scorer calls, so training and scoring cannot read a turn
//! differently.

use std::collections::BTreeMap;
use std::error::Error;
use std::fmt::Write as _;
use std::io::{BufWriter, Write};

use serde_json::Value;
use undertone_core::assembly::{Role, assemble};
use undertone_core::features::affect::affect;
use undertone_core::features::grams::{BUCKETS, Source, as_question, grams};
use undertone_core::features::markers::Markers;
use undertone_core::features::text::Text;
use undertone_core::model::text::dense;
use undertone_core::score::Dimension;
use undertone_core::score::archetype::ArchetypeDetector;
use undertone_core::score::context::conversation_signals;
use undertone_core::score::conversation::{learned_inputs, scored_turns};
use undertone_core::score::inputs::inputs;

/// The learned dimensions, in the order `turn_scores` writes them.
const LEARNED: [Dimension; 3] = [
    Dimension::FrustrationBuildup,
    Dimension::ComprehensionGap,
    Dimension::SilentAbandonmentRisk,
];

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [kind, path] = &args[..] else {
        return Err("usage: train_features text|ai|turns FILE".into());
    };
    let input = std::fs::read_to_string(path)?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    match kind.as_str() {
        "text" => text(&input, &mut out)?,
        "ai" | "turns" | "turn_scores" | "conversations" => dialogs(&input, kind, &mut out)?,
        _ => return Err(format!("unknown kind {kind}").into()),
    }
    out.flush()?;
    Ok(())
}

/// Adds `value` at `column`.
fn put(row: &mut BTreeMap<usize, f64>, column: usize, value: f64) {
    if value != 0.0 {
        *row.entry(column).or_insert(0.0) += value;
    }
}

fn write_sparse(out: &mut impl Write, id: &str, row: &BTreeMap<usize, f64>) -> std::io::Result<()> {
    let mut line = String::with_capacity(row.len() * 12);
    for (c, v) in row {
        if *v != 0.0 {
            let _ = write!(line, " {c}:{v:.9}");
        }
    }
    writeln!(out, "{id}\t{}", line.trim_start())
}

fn text(input: &str, out: &mut impl Write) -> Result<(), Box<dyn Error>> {
    let mut buf = Vec::new();
    for (n, line) in input.lines().enumerate() {
        let v: Value = serde_json::from_str(line)?;
        let t = Text::new(v["text"].as_str().unwrap_or(""));
        let markers = Markers::find(&t);
        let a = affect(&t);
        let value = grams(&t, Source::Human, &mut buf);
        let mut row = BTreeMap::new();
        for g in &buf {
            put(&mut row, g.bucket as usize, value);
        }
        for (i, x) in dense(&t, &a, &markers).iter().enumerate() {
            put(&mut row, BUCKETS + i, *x);
        }
        write_sparse(out, &n.to_string(), &row)?;
    }
    Ok(())
}

/// Scores each DBDC3 dialogue as one conversation and writes the features of every
/// system turn (`ai`) or every user turn (`turns`).
fn dialogs(input: &str, kind: &str, out: &mut impl Write) -> Result<(), Box<dyn Error>> {
    let ai = kind == "ai";
    for line in input.lines() {
        let d: Value = serde_json::from_str(line)?;
        let id = d["dialog_id"].as_str().unwrap_or("dialog");
        let dialog = undertone_core::eval::dbdc::dialog(&d).map_err(|e| format!("{id}: {e}"))?;
        let request = dialog.request;
        let turn_of_event: Vec<u64> = dialog.turns.iter().map(|(i, _, _)| *i).collect();
        let assembly = assemble(&request.events, Some(&request.deployment_id));
        for c in &assembly.conversations {
            if kind == "conversations" {
                for (d, x) in learned_inputs(c) {
                    let values: Vec<String> = x.iter().map(|v| format!("{v:.9}")).collect();
                    writeln!(out, "{id}:{}\t{}", d.as_str(), values.join(","))?;
                }
                continue;
            }
            let mut rows: Vec<(usize, BTreeMap<usize, f64>)> = Vec::new();
            let signals = conversation_signals(c, |seen| {
                if !ai || seen.role != Role::Ai {
                    return;
                }
                let mut row = BTreeMap::new();
                for g in seen.grams {
                    put(&mut row, g.bucket as usize, seen.value);
                }
                if let Some((q, v)) = seen.question {
                    for g in q {
                        put(&mut row, as_question(g.bucket) as usize, v);
                    }
                }
                for (i, x) in seen.dense.iter().enumerate() {
                    put(&mut row, BUCKETS + i, *x);
                }
                rows.push((seen.event_index, row));
            });
            if ai {
                for (e, row) in rows {
                    write_sparse(out, &format!("{id}:{}", turn_of_event[e]), &row)?;
                }
            } else {
                let turns = if kind == "turn_scores" {
                    scored_turns(c, false, &mut ArchetypeDetector::new()).1
                } else {
                    Vec::new()
                };
                for (k, s) in signals.iter().enumerate() {
                    let x = inputs(s);
                    let mut values: Vec<String> = x.iter().map(|v| format!("{v:.9}")).collect();
                    let scores = if kind == "turn_scores" {
                        &LEARNED[..]
                    } else {
                        &[]
                    };
                    for d in scores {
                        values.push(format!("{:.9}", turns[k].layer_z.get(*d).score));
                    }
                    writeln!(
                        out,
                        "{id}:{}\t{}",
                        turn_of_event[s.event_index],
                        values.join(",")
                    )?;
                }
            }
        }
    }
    Ok(())
}
