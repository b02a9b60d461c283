//! The GoEmotions test split: the text model's heads against the emotion labels.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;
use undertone_core::model::text::{Head, read_text};

use super::{CliError, Row, json_lines, question_mark, vader_negativity, vader_positivity};

/// The text model's heads on the GoEmotions test split (never trained on).
pub(super) fn goemotions_rows(text: &str, path: &Path) -> Result<Vec<Row>, CliError> {
    let heads: [(Head, &[&str], Option<&'static str>, bool); 3] = [
        (
            Head::Annoyance,
            &[
                "anger",
                "annoyance",
                "disappointment",
                "disapproval",
                "disgust",
            ],
            Some("annoyance group"),
            false,
        ),
        (Head::Confusion, &["confusion"], None, false),
        (
            Head::Gratitude,
            &["gratitude", "relief", "admiration"],
            Some("gratitude group"),
            true,
        ),
    ];
    let mut rows: Vec<Row> = heads
        .iter()
        .map(|(head, names, short, _)| {
            let mut r = Row::new(
                "goemotions test (text model)",
                &format!("text:{}", head.as_str()),
                &names.join("|"),
                &format!("goemotions-test-{}", head.as_str().replace('_', "-")),
            );
            r.short_label = *short;
            r.gated = true;
            r
        })
        .collect();
    for item in json_lines(text, path) {
        let item = item?;
        let content = item["text"].as_str().unwrap_or("");
        let names: BTreeSet<&str> = item["labels"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let reading = read_text(content);
        let (negative, positive) = (vader_negativity(content), vader_positivity(content));
        for (row, (head, group, _, positive_valence)) in rows.iter_mut().zip(&heads) {
            let label = group.iter().any(|g| names.contains(g));
            let vader = if *positive_valence {
                positive
            } else {
                negative
            };
            row.push(reading.get(*head), label, f64::from(u8::from(label)), vader);
            if *head == Head::Confusion {
                row.question.push(question_mark(content));
            }
        }
    }
    Ok(rows)
}
