//! The `--format table` view of a scored request: one row per human turn.

use std::fmt::Write;

use undertone_core::score::{
    Band, Dimension, DimensionScore, Evidence, LayerZ, SessionIntelligence, findings::signal_label,
};

/// Column headers for the six dimensions, in `Dimension::ALL` order.
const HEADERS: [&str; 6] = ["trust", "frustr", "depend", "abandon", "escal", "compr"];

/// Renders the result for a terminal. `condensed` shows only the request-level lines.
pub fn render(result: &SessionIntelligence, condensed: bool) -> String {
    let i = &result.intelligence;
    let mut out = String::new();
    if !condensed {
        // Wide enough for "= ID", the conversation's own row, up to 28 characters:
        // longer ids are cut to the column, never past it.
        let conv_width = i
            .conversations
            .iter()
            .map(|c| (c.conversation_id.chars().count() + 2).min(28))
            .max()
            .unwrap_or(12)
            .max(12);
        let _ = write!(out, "{:<conv_width$}  {:>5}", "conversation", "event");
        for h in HEADERS {
            let _ = write!(out, "  {h:>7}");
        }
        let _ = writeln!(out, "  {:<7}  top signal", "band");
        for c in &i.conversations {
            for t in &c.turns {
                let _ = write!(
                    out,
                    "{:<conv_width$}  {:>5}",
                    shorten(&c.conversation_id, conv_width),
                    t.event_index
                );
                row(&mut out, &t.layer_z);
                let _ = writeln!(out, "  {}", top_signal(&t.layer_z));
            }
            let _ = write!(
                out,
                "{:<conv_width$}  {:>5}",
                shorten(&format!("= {}", c.conversation_id), conv_width),
                ""
            );
            row(&mut out, &c.layer_z);
            let mut ending = String::new();
            if c.resolved {
                ending.push_str("resolved");
            } else if c.abandoned {
                ending.push_str("abandoned");
            } else {
                ending.push_str("unresolved");
            }
            let _ = writeln!(out, "  {ending}");
        }
        // The label spans the conversation and event columns, so the scores line up.
        let label_width = conv_width + 2 + 5;
        let _ = write!(out, "{:<label_width$}", "= all conversations");
        row(&mut out, &i.layer_z);
        let _ = writeln!(out);
        let _ = writeln!(out);
    } else {
        for d in Dimension::ALL {
            let s = i.layer_z.get(d);
            let _ = writeln!(
                out,
                "{:<24} {:.4}  {}",
                d.as_str(),
                s.score,
                s.band.as_str()
            );
        }
    }
    let _ = writeln!(
        out,
        "archetype: {} (confidence {:.2}); pipeline: {}",
        i.archetype.as_str(),
        i.environment.confidence,
        match result.pipeline {
            undertone_core::score::ScoredPipeline::Support => "support",
            undertone_core::score::ScoredPipeline::Reviews => "reviews",
        }
    );
    let _ = writeln!(out, "key finding: {}", i.key_finding);
    if !condensed {
        let _ = writeln!(out, "summary: {}", i.plain_summary);
        for r in &i.plain_recommendations {
            let _ = writeln!(out, "- {r}");
        }
    } else {
        let _ = writeln!(out, "recommendation: {}", i.recommendation);
    }
    if let Some(p) = &i.prediction {
        let _ = writeln!(out, "prediction: {p}");
    }
    out.trim_end().to_owned()
}

/// The six scores and the worst band.
fn row(out: &mut String, z: &LayerZ) {
    for d in Dimension::ALL {
        let _ = write!(out, "  {:>7.2}", z.get(d).score);
    }
    let worst = Dimension::ALL
        .iter()
        .map(|&d| z.get(d).band)
        .max()
        .unwrap_or(Band::Healthy);
    let _ = write!(out, "  {:<7}", worst.as_str());
}

/// The strongest positive evidence of the worst dimension (by band, then risk) off the
/// healthy band that has a signal to show: at least 0.05 of the score, not a baseline
/// nor the smaller signals together; a level carried over from earlier turns only when
/// the turn itself adds nothing. A turn healthy on every dimension shows none: what
/// moved its scores a little is not what a reader scans the column for.
fn top_signal(z: &LayerZ) -> String {
    fn shown(s: &DimensionScore) -> Option<&Evidence> {
        let strong = |e: &&Evidence| e.contribution >= 0.05 && e.names_a_signal();
        let carried = |e: &&Evidence| e.signal.starts_with("carried_");
        s.evidence
            .iter()
            .filter(strong)
            .find(|e| !carried(e))
            .or_else(|| s.evidence.iter().filter(strong).find(carried))
    }
    let best = Dimension::ALL
        .iter()
        .filter(|&&d| z.get(d).band != Band::Healthy)
        .filter_map(|&d| shown(z.get(d)).map(|e| (d, z.get(d), e)))
        .max_by(|a, b| {
            (a.1.band, a.1.risk)
                .partial_cmp(&(b.1.band, b.1.risk))
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(b.0.cmp(&a.0))
        });
    match best {
        Some((d, _, e)) => {
            let detail = e
                .detail
                .as_deref()
                .map(|d| format!(": {d}"))
                .unwrap_or_default();
            format!("{} ({}){detail}", signal_label(e.signal), short_dim(d))
        }
        None => "-".to_owned(),
    }
}

fn short_dim(d: Dimension) -> &'static str {
    HEADERS[Dimension::ALL.iter().position(|&x| x == d).unwrap_or(0)]
}

fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_owned()
    } else {
        let mut t: String = s.chars().take(max - 1).collect();
        t.push('…');
        t
    }
}
