//! The scored result as rows: one per human turn, with the six dimensions' scores and
//! bands as columns. What `undertone score --view turns` prints (JSON Lines) and what
//! the batch recipe (docs/batch.md) writes as Parquet, so both are checked against
//! each other.

use serde::ser::{Serialize, SerializeMap, Serializer};

use super::SessionIntelligence;
use super::layer_z::{Dimension, round4};
use crate::schema::format_utc;

/// One scored human turn, flat.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnRow<'a> {
    /// The deployment the request came from.
    pub deployment_id: &'a str,
    /// The turn's conversation (given, or the implicit `auto:…` id).
    pub conversation_id: &'a str,
    /// The turn's position among its conversation's human turns, from 1.
    pub turn: usize,
    /// Who wrote it.
    pub actor_id: &'a str,
    /// When it was written (RFC 3339, UTC).
    pub timestamp: String,
    /// Each dimension's score and band, in output order.
    pub scores: [(f64, &'static str); 6],
}

impl Serialize for TurnRow<'_> {
    /// `{deployment_id, conversation_id, turn, actor_id, timestamp, <dimension>,
    /// <dimension>_band, …}`, scores with 4 decimals as everywhere in the output.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(5 + 2 * Dimension::ALL.len()))?;
        m.serialize_entry("deployment_id", self.deployment_id)?;
        m.serialize_entry("conversation_id", self.conversation_id)?;
        m.serialize_entry("turn", &self.turn)?;
        m.serialize_entry("actor_id", self.actor_id)?;
        m.serialize_entry("timestamp", &self.timestamp)?;
        for (d, (score, band)) in Dimension::ALL.iter().zip(&self.scores) {
            m.serialize_entry(d.as_str(), &round4(*score))?;
            m.serialize_entry(&format!("{}_band", d.as_str()), band)?;
        }
        m.end()
    }
}

/// The rows of `result`, made one at a time: its conversations in output order, each
/// conversation's human turns in order.
fn rows(result: &SessionIntelligence) -> impl Iterator<Item = TurnRow<'_>> {
    let i = &result.intelligence;
    i.conversations.iter().flat_map(|c| {
        c.turns.iter().enumerate().map(|(n, t)| TurnRow {
            deployment_id: &i.deployment_id,
            conversation_id: &t.conversation_id,
            turn: n + 1,
            actor_id: &t.actor_id,
            timestamp: format_utc(&t.timestamp),
            scores: Dimension::ALL.map(|d| {
                let x = t.layer_z.get(d);
                (x.score, x.band.as_str())
            }),
        })
    })
}

/// The rows as a JSON array, serialised one at a time (never all in memory at once).
pub struct Rows<'a>(pub &'a SessionIntelligence);

impl Serialize for Rows<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(rows(self.0))
    }
}

/// Writes the rows as JSON Lines, one object per line, a `\n` between lines and none
/// after the last, one row at a time (never all in memory at once).
pub fn write_turn_rows_jsonl(
    mut out: impl std::io::Write,
    result: &SessionIntelligence,
) -> std::io::Result<()> {
    for (n, row) in rows(result).enumerate() {
        if n > 0 {
            out.write_all(b"\n")?;
        }
        serde_json::to_writer(&mut out, &row)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::score;
    use crate::validate;

    #[test]
    fn one_row_per_human_turn_with_the_turns_scores() {
        let body = serde_json::json!({"deployment_id": "bot", "pipeline": "support", "events": [
            {"actor_id": "u1", "content": "my order never arrived", "timestamp": "2026-11-01T09:00:00Z", "conversation_id": "c1"},
            {"actor_id": "bot", "content": "Please check the tracking page.", "timestamp": "2026-11-01T09:00:05Z", "conversation_id": "c1"},
            {"actor_id": "u1", "content": "I already did, this is useless", "timestamp": "2026-11-01T09:01:00Z", "conversation_id": "c1"},
        ]});
        let request = validate::ingest_request_bytes(
            body.to_string().as_bytes(),
            &validate::Options::default(),
        )
        .unwrap();
        let result = score(&request);
        let rows: Vec<TurnRow<'_>> = rows(&result).collect();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows.iter().map(|r| r.turn).collect::<Vec<_>>(), vec![1, 2]);
        let second = &result.intelligence.conversations[0].turns[1];
        let mut text = Vec::new();
        write_turn_rows_jsonl(&mut text, &result).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert_eq!(
            text.matches('\n').count(),
            1,
            "a newline between rows, none after"
        );
        let line: serde_json::Value = serde_json::from_str(text.lines().nth(1).unwrap()).unwrap();
        assert_eq!(line["conversation_id"], "c1");
        assert_eq!(line["actor_id"], "u1");
        assert_eq!(line["timestamp"], "2026-11-01T09:01:00Z");
        let f = second.layer_z.get(Dimension::FrustrationBuildup);
        assert_eq!(line["frustration_buildup"], round4(f.score));
        assert_eq!(line["frustration_buildup_band"], f.band.as_str());
        assert_eq!(line.as_object().unwrap().len(), 17);
        // The array form holds the same rows.
        let array = serde_json::to_value(Rows(&result)).unwrap();
        assert_eq!(array[1], line);
        assert_eq!(array.as_array().unwrap().len(), 2);
    }
}
