//! The team's labelled development set: per human turn and per conversation.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use undertone_core::score::{Dimension, score};
use undertone_core::validate::{self, Options};
use undertone_core::{Event, IngestRequest};

use super::{CliError, Row, question_mark, slugify, turn_scores, unreadable, vader_negativity};

fn validated(
    deployment_id: &str,
    events: Vec<Value>,
) -> Result<IngestRequest, undertone_core::Error> {
    let body = json!({"deployment_id": deployment_id, "events": events});
    let options = Options {
        unlimited: true,
        ..Options::default()
    };
    validate::ingest_request(&body, &options)
}

/// The team's labelled set: per human turn and per conversation.
pub(super) fn labelled(dir: &Path) -> Result<Vec<Row>, CliError> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| unreadable(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    const TURN: &str = "labelled (per turn)";
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
        .map(|(d, _, name)| {
            Row::new(
                TURN,
                d.as_str(),
                name,
                &format!("labelled-turn-{}", slugify(name)),
            )
        })
        .collect();
    let mut abandon = Row::new(
        "labelled (per conversation)",
        Dimension::SilentAbandonmentRisk.as_str(),
        "abandoned",
        "labelled-conversation-abandoned",
    );
    abandon.graded_name = "the abandoned label";
    for path in files {
        let text = std::fs::read_to_string(&path).map_err(|e| unreadable(&path, e))?;
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let where_ = format!("{} line {}", path.display(), n + 1);
            let c: Value = serde_json::from_str(line).map_err(|source| CliError::BadJson {
                at: where_.clone(),
                source,
            })?;
            let id = c["id"].as_str().unwrap_or("conversation");
            let deployment = c["deployment_id"].as_str().unwrap_or("labelled");
            let mut events: Vec<Value> = c["events"].as_array().cloned().unwrap_or_default();
            for e in &mut events {
                e["conversation_id"] = Value::String(id.to_owned());
            }
            let request = validated(deployment, events).map_err(|source| CliError::Invalid {
                at: where_.clone(),
                source,
            })?;
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
                    row.push(
                        z.get(*d).risk,
                        label,
                        f64::from(u8::from(label)),
                        vader_negativity(content),
                    );
                    if *d == Dimension::ComprehensionGap {
                        row.question.push(question_mark(content));
                    }
                }
            }
            if let Some(a) = c["conversation_labels"]["abandoned"].as_f64()
                && let Some(conv) = result.intelligence.conversations.first()
            {
                let last_human = conv.turns.last().map(|t| t.event_index).unwrap_or(0);
                let content = request
                    .events
                    .get(last_human)
                    .map(|e| e.content.as_str())
                    .unwrap_or("");
                abandon.push(
                    conv.layer_z.silent_abandonment_risk.score,
                    a > 0.0,
                    a,
                    vader_negativity(content),
                );
            }
        }
    }
    turn_rows.push(abandon);
    Ok(turn_rows
        .into_iter()
        .filter(|r| !r.scores.is_empty())
        .collect())
}
