//! `undertone eval`: how well the scores rank and how well they are calibrated, on
//! labelled conversations (DBDC3 and the team's own labelled set), with a lexicon-only
//! baseline computed on the same turns.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::{Value, json};
use undertone_core::eval::metrics::{auroc, ece, spearman};
use undertone_core::features::affect::affect;
use undertone_core::features::text::Text;
use undertone_core::score::{Dimension, SessionIntelligence, score};
use undertone_core::validate::{self, Options};
use undertone_core::{Event, IngestRequest};

use super::{INVALID, OK, emit, warn};

/// Arguments of `undertone eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// DBDC3 JSON Lines (`dbdc3_en_revised.jsonl`); skipped when absent.
    #[arg(long, default_value = "../shared/data/dbdc3_en/dbdc3_en_revised.jsonl")]
    dbdc: PathBuf,
    /// Folder of the labelled development set (`*.jsonl`, one conversation per line).
    #[arg(long, default_value = "tests/labelled")]
    labelled: PathBuf,
    /// Print the figures as JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// One measured row: a score against a label on a set of turns or conversations.
#[derive(Debug, Default)]
struct Row {
    dataset: String,
    dimension: &'static str,
    label: &'static str,
    scores: Vec<f64>,
    labels: Vec<bool>,
    /// Graded label for Spearman (e.g. the share of annotators); else the binary label.
    graded: Vec<f64>,
    /// Lexicon-only baseline score of the same items, when meaningful.
    baseline: Vec<f64>,
}

/// Runs `undertone eval`; returns the exit status.
pub fn run(args: &EvalArgs) -> u8 {
    let mut rows = Vec::new();
    match std::fs::read_to_string(&args.dbdc) {
        Ok(text) => match dbdc(&text) {
            Ok(mut r) => rows.append(&mut r),
            Err(e) => {
                warn(&format!("error: {}: {e}", args.dbdc.display()));
                return INVALID;
            }
        },
        Err(e) => warn(&format!(
            "note: skipping DBDC3 ({}: {e})",
            args.dbdc.display()
        )),
    }
    match labelled(&args.labelled) {
        Ok(mut r) => rows.append(&mut r),
        Err(e) => {
            warn(&format!("error: {e}"));
            return INVALID;
        }
    }
    if rows.is_empty() {
        warn("error: no labelled data found; pass --dbdc and/or --labelled");
        return INVALID;
    }
    if args.json {
        let out: Vec<Value> = rows.iter().map(row_json).collect();
        return emit(&serde_json::to_string_pretty(&out).unwrap_or_default());
    }
    emit(&table(&rows));
    OK
}

fn row_json(r: &Row) -> Value {
    json!({
        "dataset": r.dataset, "dimension": r.dimension, "label": r.label,
        "n": r.scores.len(), "positives": r.labels.iter().filter(|&&l| l).count(),
        "auroc": auroc(&r.scores, &r.labels), "spearman": spearman(&r.scores, &r.graded),
        "ece": ece(&r.scores, &r.labels, 10),
        "baseline_auroc": if r.baseline.is_empty() { None } else { auroc(&r.baseline, &r.labels) },
    })
}

fn table(rows: &[Row]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<26} {:<24} {:<16} {:>5} {:>5} {:>6} {:>8} {:>6} {:>9}",
        "dataset", "dimension", "label", "n", "pos", "AUROC", "Spearman", "ECE", "lexicon"
    );
    let f = |x: Option<f64>| x.map_or_else(|| "-".to_owned(), |v| format!("{v:.3}"));
    for r in rows {
        let base = if r.baseline.is_empty() {
            None
        } else {
            auroc(&r.baseline, &r.labels)
        };
        let _ = writeln!(
            out,
            "{:<26} {:<24} {:<16} {:>5} {:>5} {:>6} {:>8} {:>6} {:>9}",
            r.dataset,
            r.dimension,
            r.label,
            r.scores.len(),
            r.labels.iter().filter(|&&l| l).count(),
            f(auroc(&r.scores, &r.labels)),
            f(spearman(&r.scores, &r.graded)),
            f(ece(&r.scores, &r.labels, 10)),
            f(base),
        );
    }
    let _ = write!(
        out,
        "\nAUROC: ranking of positives above negatives (0.5 = chance). Spearman: against the graded \
         label where there is one (DBDC3: share of annotators saying breakdown). ECE: expected \
         calibration error of the score read as a probability, 10 bins. lexicon: AUROC of the \
         lexicon-only negative affect of the same human text (VADER valences, no context)."
    );
    out
}

/// Lexicon-only baseline: negative affect of the text alone, in [0, 1].
fn lexicon_negativity(content: &str) -> f64 {
    (-affect(&Text::new(content)).compound).max(0.0)
}

fn event(actor: &str, content: &str, t: i64, role: &str, conversation_id: &str) -> Value {
    let ts = chrono::DateTime::from_timestamp(1_700_000_000 + t, 0)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    json!({"actor_id": actor, "content": content, "timestamp": ts,
           "conversation_id": conversation_id, "metadata": {"role": role}})
}

fn validated(deployment_id: &str, events: Vec<Value>) -> Result<IngestRequest, String> {
    let body = json!({"deployment_id": deployment_id, "events": events});
    let options = Options {
        unlimited: true,
        ..Options::default()
    };
    validate::ingest_request(&body, &options).map_err(|e| e.to_string())
}

fn turn_scores(result: &SessionIntelligence) -> BTreeMap<usize, &undertone_core::score::LayerZ> {
    result
        .intelligence
        .conversations
        .iter()
        .flat_map(|c| c.turns.iter().map(|t| (t.event_index, &t.layer_z)))
        .collect()
}

/// One DBDC3 split: the events to score, and per labelled user turn its event index,
/// the share of annotators saying breakdown, the X/O label (None for T) and the text.
type Split = (Vec<Value>, Vec<(usize, f64, Option<bool>, String)>);

/// DBDC3: the user turn right after each annotated system turn; positive when the
/// majority said breakdown (X), negative when it said none (O); T (possible breakdown)
/// turns are left out. Spearman is against the share of annotators saying X.
fn dbdc(text: &str) -> Result<Vec<Row>, String> {
    // Split as the data set does: dev (used while designing the scorer) and eval (not).
    let mut splits: BTreeMap<&str, Split> = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let d: Value = serde_json::from_str(line).map_err(|e| format!("line {}: {e}", n + 1))?;
        let source = d["source"].as_str().unwrap_or("");
        let split = if source.contains("-eval-") {
            "eval"
        } else {
            "dev"
        };
        let id = d["dialog_id"].as_str().unwrap_or("dialog").to_owned();
        let entry = splits.entry(split).or_default();
        let mut last_system: Option<&Value> = None;
        let turns = d["turns"]
            .as_array()
            .ok_or(format!("line {}: no turns", n + 1))?;
        for (k, t) in turns.iter().enumerate() {
            let content = t["text"].as_str().unwrap_or("").trim();
            let role = t["role"].as_str().unwrap_or("");
            if content.is_empty() {
                continue;
            }
            let index = entry.0.len();
            if role == "system" {
                entry
                    .0
                    .push(event("dbdc-bot", content, 10 * k as i64, "assistant", &id));
                last_system = Some(t);
            } else {
                entry.0.push(event(
                    &format!("{id}-user"),
                    content,
                    10 * k as i64,
                    "user",
                    &id,
                ));
                if let Some(s) = last_system.take()
                    && let (Some(maj), Some(p_x)) =
                        (s["breakdown_majority"].as_str(), s["p_X"].as_f64())
                {
                    let label = match maj {
                        "X" => Some(true),
                        "O" => Some(false),
                        _ => None,
                    };
                    entry.1.push((index, p_x, label, content.to_owned()));
                }
            }
        }
    }
    let mut rows = Vec::new();
    for (split, (events, items)) in splits {
        let request = validated("dbdc3", events)?;
        let result = score(&request);
        let by_event = turn_scores(&result);
        for d in [
            Dimension::FrustrationBuildup,
            Dimension::SilentAbandonmentRisk,
        ] {
            let mut row = Row {
                dataset: format!("dbdc3 {split} (user after system)"),
                dimension: d.as_str(),
                label: "breakdown X vs O",
                ..Row::default()
            };
            for (index, p_x, label, content) in &items {
                let Some(z) = by_event.get(index) else {
                    continue;
                };
                let s = z.get(d).risk;
                if let Some(l) = label {
                    row.scores.push(s);
                    row.labels.push(*l);
                    row.graded.push(*p_x);
                    row.baseline.push(lexicon_negativity(content));
                }
            }
            rows.push(row);
        }
    }
    Ok(rows)
}

/// The team's labelled set: per human turn and per conversation.
fn labelled(dir: &Path) -> Result<Vec<Row>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    // (dimension, label key, label name): per-turn measures.
    let turn_measures: [(Dimension, &str, &'static str); 6] = [
        (Dimension::FrustrationBuildup, "frustrated", "frustrated"),
        (
            Dimension::FrustrationBuildup,
            "dissatisfied",
            "dissatisfied",
        ),
        (Dimension::ComprehensionGap, "confused", "confused"),
        (Dimension::EscalationFriction, "wants_human", "wants_human"),
        (Dimension::DependencyDrift, "delegating", "delegating"),
        (Dimension::TrustCalibration, "trust", "trust not calibrated"),
    ];
    let mut turn_rows: Vec<Row> = turn_measures
        .iter()
        .map(|(d, _, name)| Row {
            dataset: "labelled (per turn)".to_owned(),
            dimension: d.as_str(),
            label: name,
            ..Row::default()
        })
        .collect();
    let mut abandon = Row {
        dataset: "labelled (per conversation)".to_owned(),
        dimension: Dimension::SilentAbandonmentRisk.as_str(),
        label: "abandoned",
        ..Row::default()
    };
    for path in files {
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let where_ = format!("{} line {}", path.display(), n + 1);
            let c: Value = serde_json::from_str(line).map_err(|e| format!("{where_}: {e}"))?;
            let id = c["id"].as_str().unwrap_or("conversation");
            let deployment = c["deployment_id"].as_str().unwrap_or("labelled");
            let mut events: Vec<Value> = c["events"].as_array().cloned().unwrap_or_default();
            for e in &mut events {
                e["conversation_id"] = Value::String(id.to_owned());
            }
            let request = validated(deployment, events).map_err(|e| format!("{where_}: {e}"))?;
            let result = score(&request);
            let by_event = turn_scores(&result);
            for l in c["turn_labels"].as_array().into_iter().flatten() {
                let Some(index) = l["event_index"].as_u64().map(|i| i as usize) else {
                    continue;
                };
                let Some(z) = by_event.get(&index) else {
                    continue;
                };
                let content = request
                    .events
                    .get(index)
                    .map(|e: &Event| e.content.as_str())
                    .unwrap_or("");
                for (row, (d, key, _)) in turn_rows.iter_mut().zip(turn_measures.iter()) {
                    let label = match &l[*key] {
                        Value::Number(x) => x.as_f64().is_some_and(|v| v > 0.0),
                        Value::String(s) => s != "calibrated",
                        Value::Bool(b) => *b,
                        _ => continue,
                    };
                    row.scores.push(z.get(*d).risk);
                    row.labels.push(label);
                    row.graded.push(f64::from(u8::from(label)));
                    row.baseline.push(lexicon_negativity(content));
                }
            }
            if let Some(a) = c["conversation_labels"]["abandoned"].as_f64()
                && let Some(conv) = result.intelligence.conversations.first()
            {
                abandon
                    .scores
                    .push(conv.layer_z.silent_abandonment_risk.score);
                abandon.labels.push(a > 0.0);
                abandon.graded.push(a);
                let last_human = conv.turns.last().map(|t| t.event_index).unwrap_or(0);
                let content = request
                    .events
                    .get(last_human)
                    .map(|e| e.content.as_str())
                    .unwrap_or("");
                abandon.baseline.push(lexicon_negativity(content));
            }
        }
    }
    turn_rows.push(abandon);
    Ok(turn_rows
        .into_iter()
        .filter(|r| !r.scores.is_empty())
        .collect())
}
