//! The DBDC3 eval split (the AI-failure model on system turns, the frustration proxy
//! on the user turns after them) and the annotated test split among its dialogues.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use undertone_core::assemble;
use undertone_core::eval::dbdc::Dialog;
use undertone_core::model::TABLES;
use undertone_core::score::context::ai_failures;
use undertone_core::score::{Dimension, score};

use super::{
    CliError, Row, json_lines, question_mark, slugify, turn_scores, unreadable, vader_negativity,
    warn,
};

/// One annotated dialogue: its outcome and per user turn index the labels.
pub(super) struct Annotation {
    outcome: String,
    turns: BTreeMap<u64, Value>,
}

/// The primary annotation batches (`batch-*.jsonl`; double labels are not read).
pub(super) fn annotations(dir: &Path) -> Result<BTreeMap<String, Annotation>, CliError> {
    let mut out = BTreeMap::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(unreadable(dir, e)),
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("batch-") && n.ends_with(".jsonl"))
        })
        .collect();
    files.sort();
    for path in files {
        let text = std::fs::read_to_string(&path).map_err(|e| unreadable(&path, e))?;
        for d in json_lines(&text, &path) {
            let d = d?;
            let id = d["dialog_id"].as_str().unwrap_or("").to_owned();
            let turns = d["turns"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|t| Some((t["turn_index"].as_u64()?, t.clone())))
                .collect();
            let outcome = d["outcome"].as_str().unwrap_or("").to_owned();
            out.insert(id, Annotation { outcome, turns });
        }
    }
    Ok(out)
}

/// One DBDC3 dialogue as the scorer's training reads it (`eval::dbdc`).
fn dialog<'a>(d: &'a Value, id: &str) -> Result<Dialog<'a>, CliError> {
    undertone_core::eval::dbdc::dialog(d).map_err(|source| CliError::Invalid {
        at: id.to_owned(),
        source,
    })
}

/// Whether the conversation-scope table of `d` says its value is a calibrated probability.
fn conversation_calibrated(d: Dimension) -> bool {
    TABLES.entries().iter().any(|e| {
        e.dimension == d.as_str()
            && e.scope == "conversation"
            && e.name == "calibrated"
            && e.value == 1.0
    })
}

/// A per-turn label of the annotation rubric.
fn annotated(t: &Value, key: &str) -> f64 {
    t[key].as_f64().unwrap_or(0.0)
}

/// Rows of the DBDC3 eval dialogues (the AI-failure model on system turns, the indirect
/// frustration proxy) and of the annotated test split (annotated dialogues among them).
pub(super) fn dbdc_rows(
    text: &str,
    path: &Path,
    annotations: &BTreeMap<String, Annotation>,
) -> Result<Vec<Row>, CliError> {
    const SYSTEM: &str = "dbdc3 eval (system turns)";
    const AFTER: &str = "dbdc3 eval (user after system)";
    const TURN: &str = "annotated test (per turn)";
    const CONVERSATION: &str = "annotated test (per conversation)";
    let mut x_rest = Row::new(
        SYSTEM,
        "ai_failure",
        "breakdown X vs O/T",
        "dbdc3-eval-ai-failure-x-vs-rest",
    );
    x_rest.gated = true;
    x_rest.ece_not_gated = Some(
        "the eval split's breakdown share (0.34) is higher than the dev split's the model is \
         calibrated on (0.30); that shift alone puts ECE near 0.05",
    );
    let mut x_o = Row::new(
        SYSTEM,
        "ai_failure",
        "breakdown X vs O",
        "dbdc3-eval-ai-failure-x-vs-o",
    );
    for r in [&mut x_rest, &mut x_o] {
        r.graded_name = "share of annotators saying breakdown (p_X)";
    }
    let mut after = Row::new(
        AFTER,
        Dimension::FrustrationBuildup.as_str(),
        "breakdown X vs O",
        "dbdc3-eval-user-after-system-frustration-buildup",
    );
    after.graded_name = "share of annotators saying breakdown (p_X)";

    // Per user turn: (dimension, label, gated, its value from the turn's labels, graded).
    type TurnLabel = fn(&Value) -> (bool, f64);
    let turn_measures: [(Dimension, &str, bool, TurnLabel, &'static str); 6] = [
        (
            Dimension::FrustrationBuildup,
            "frustration >= 1 or satisfaction <= 2",
            true,
            |t| {
                let l = annotated(t, "frustration") >= 1.0 || annotated(t, "satisfaction") <= 2.0;
                (l, f64::from(u8::from(l)))
            },
            "the binary label",
        ),
        (
            Dimension::FrustrationBuildup,
            "frustration >= 1",
            false,
            |t| {
                let f = annotated(t, "frustration");
                (f >= 1.0, f)
            },
            "frustration level 0-3",
        ),
        (
            Dimension::FrustrationBuildup,
            "satisfaction <= 2",
            false,
            |t| {
                let s = annotated(t, "satisfaction");
                (s <= 2.0, 5.0 - s)
            },
            "5 - satisfaction",
        ),
        (
            Dimension::ComprehensionGap,
            "confusion",
            true,
            |t| {
                let l = annotated(t, "confusion") > 0.0;
                (l, f64::from(u8::from(l)))
            },
            "the binary label",
        ),
        (
            Dimension::SilentAbandonmentRisk,
            "giving_up",
            true,
            |t| {
                let l = annotated(t, "giving_up") > 0.0;
                (l, f64::from(u8::from(l)))
            },
            "the binary label",
        ),
        (
            Dimension::EscalationFriction,
            "escalation_request",
            false,
            |t| {
                let l = annotated(t, "escalation_request") > 0.0;
                (l, f64::from(u8::from(l)))
            },
            "the binary label",
        ),
    ];
    let mut turn_rows: Vec<Row> = turn_measures
        .iter()
        .map(|(d, label, gated, _, graded)| {
            let mut slug = format!("annotated-test-turn-{}", d.as_str().replace('_', "-"));
            if !gated {
                slug = format!("{slug}-{}", slugify(label));
            }
            let mut r = Row::new(TURN, d.as_str(), label, &slug);
            r.gated = *gated;
            r.graded_name = graded;
            r
        })
        .collect();
    // Per conversation: (dimension, label, gated when calibrated).
    let conversation_measures: [(Dimension, &str, bool); 3] = [
        (
            Dimension::ComprehensionGap,
            "any turn labelled confusion",
            true,
        ),
        (
            Dimension::SilentAbandonmentRisk,
            "outcome == abandoned",
            true,
        ),
        (Dimension::FrustrationBuildup, "outcome != satisfied", false),
    ];
    let mut conversation_rows: Vec<Row> = conversation_measures
        .iter()
        .map(|(d, label, gated)| {
            let mut r = Row::new(
                CONVERSATION,
                d.as_str(),
                label,
                &format!(
                    "annotated-test-conversation-{}",
                    d.as_str().replace('_', "-")
                ),
            );
            r.gated = *gated && conversation_calibrated(*d);
            r
        })
        .collect();

    let mut unmatched = 0usize;
    for d in json_lines(text, path) {
        let d = d?;
        if !d["source"].as_str().unwrap_or("").contains("-eval-") {
            continue;
        }
        let id = d["dialog_id"].as_str().unwrap_or("dialog").to_owned();
        let Dialog { request, turns } = dialog(&d, &id)?;

        // The AI-failure model on every labelled system turn.
        let assembly = assemble(&request.events, Some(&request.deployment_id));
        let failures: BTreeMap<usize, f64> = assembly
            .conversations
            .iter()
            .flat_map(ai_failures)
            .collect();
        for (e, (_, system, t)) in turns.iter().enumerate() {
            let (Some(p), true, Some(majority), Some(p_x)) = (
                failures.get(&e),
                *system,
                t["breakdown_majority"].as_str(),
                t["p_X"].as_f64(),
            ) else {
                continue;
            };
            let vader = vader_negativity(t["text"].as_str().unwrap_or(""));
            let x = majority == "X";
            x_rest.push(*p, x, p_x, vader);
            x_rest.soft.push(p_x);
            if majority != "T" {
                x_o.push(*p, x, p_x, vader);
                x_o.soft.push(p_x);
            }
        }

        // The scorer on the whole dialogue.
        let result = score(&request);
        let by_event = turn_scores(&result);
        let mut last_system: Option<&Value> = None;
        for (e, (_, system, t)) in turns.iter().enumerate() {
            if *system {
                last_system = Some(t);
                continue;
            }
            if let Some(s) = last_system.take()
                && let Some(z) = by_event.get(&e)
                && let (Some(majority), Some(p_x)) =
                    (s["breakdown_majority"].as_str(), s["p_X"].as_f64())
                && majority != "T"
            {
                let content = t["text"].as_str().unwrap_or("");
                after.push(
                    z.get(Dimension::FrustrationBuildup).risk,
                    majority == "X",
                    p_x,
                    vader_negativity(content),
                );
            }
        }
        let Some(annotation) = annotations.get(&id) else {
            continue;
        };
        let mut user_text: Vec<&str> = Vec::new();
        for (e, (turn_index, system, t)) in turns.iter().enumerate() {
            if *system {
                continue;
            }
            let content = t["text"].as_str().unwrap_or("");
            user_text.push(content);
            let Some(labels) = annotation.turns.get(turn_index) else {
                continue;
            };
            let Some(z) = by_event.get(&e) else {
                unmatched += 1;
                continue;
            };
            for (row, (d, _, _, label_of, _)) in turn_rows.iter_mut().zip(&turn_measures) {
                let (label, graded) = label_of(labels);
                row.push(z.get(*d).score, label, graded, vader_negativity(content));
                if *d == Dimension::ComprehensionGap {
                    row.question.push(question_mark(content));
                }
            }
        }
        unmatched += annotation
            .turns
            .keys()
            .filter(|k| !turns.iter().any(|(i, s, _)| i == *k && !s))
            .count();
        let Some(conversation) = result.intelligence.conversations.first() else {
            continue;
        };
        let last = user_text.last().copied().unwrap_or("");
        let any_confusion = annotation
            .turns
            .values()
            .any(|t| annotated(t, "confusion") > 0.0);
        for (row, (d, _, _)) in conversation_rows.iter_mut().zip(&conversation_measures) {
            let label = match d {
                Dimension::ComprehensionGap => any_confusion,
                Dimension::SilentAbandonmentRisk => annotation.outcome == "abandoned",
                _ => annotation.outcome != "satisfied",
            };
            row.push(
                conversation.layer_z.get(*d).score,
                label,
                f64::from(u8::from(label)),
                vader_negativity(last),
            );
            if *d == Dimension::ComprehensionGap {
                row.question.push(question_mark(&user_text.concat()));
            }
        }
    }
    if unmatched > 0 {
        warn(&format!(
            "note: {unmatched} annotated turns match no scored user turn and are left out"
        ));
    }
    let mut rows = vec![x_rest, x_o, after];
    // A label nobody gave in this split (e.g. escalation requests) has no ranking to
    // measure; a gated row is kept anyway, and fails.
    rows.extend(
        turn_rows
            .into_iter()
            .filter(|r| r.gated || r.positives() >= 1),
    );
    rows.extend(conversation_rows);
    Ok(rows.into_iter().filter(|r| !r.scores.is_empty()).collect())
}
