//! Drift benchmark (run through `scripts/bench-drift`).
//!
//! ```text
//! bench_drift EVENTS.jsonl SAMPLES_OUT.json
//! ```
//!
//! Takes the first 2000 events of `EVENTS.jsonl` as the before period and the next
//! 2000 as the after period, and times on one thread (best of 7):
//!
//! - **drift end to end**: `drift::drift` on the validated request (both periods
//!   scored, six dimensions tested, findings written);
//! - **statistics alone**: `drift::compare` on the per-conversation scores (six
//!   Mann-Whitney U tests, effect sizes, Hodges–Lehmann intervals, Holm).
//!
//! It writes the per-dimension samples to `SAMPLES_OUT.json` so that scipy can time
//! `mannwhitneyu` on exactly the same numbers. The last lines are `metric NAME VALUE`.

use std::error::Error;
use std::hint::black_box;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use undertone_core::drift;
use undertone_core::score::{Dimension, score};
use undertone_core::validate;

/// The allocator of the `undertone` binary, so the figures are the CLI's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const PERIOD_EVENTS: usize = 2000;
const RUNS: usize = 7;

fn best<T>(mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut out = None;
    for _ in 0..RUNS {
        let t = Instant::now();
        let v = f();
        best = best.min(t.elapsed());
        out = Some(v);
    }
    (best, out.expect("RUNS > 0"))
}

fn main() -> Result<(), Box<dyn Error + Send + Sync>> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(events_path), Some(samples_path)) = (args.get(1), args.get(2)) else {
        return Err("usage: bench_drift EVENTS.jsonl SAMPLES_OUT.json".into());
    };
    let text = std::fs::read_to_string(events_path)?;
    let events: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(2 * PERIOD_EVENTS)
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    if events.len() < 2 * PERIOD_EVENTS {
        return Err(format!("need {} events, got {}", 2 * PERIOD_EVENTS, events.len()).into());
    }
    let body = json!({
        "deployment_id": "bench-bot",
        "before": {"label": "first 2000 events", "events": events[..PERIOD_EVENTS]},
        "after": {"label": "next 2000 events", "events": events[PERIOD_EVENTS..]},
    });
    let request = validate::drift_request(&body)?;
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;

    let (e2e, result) = one.install(|| best(|| drift::drift(&request)));
    let per_dim = |period: &undertone_core::schema::Period| {
        let s = score(&undertone_core::IngestRequest {
            deployment_id: "bench-bot".into(),
            events: period.events.clone(),
            pipeline: undertone_core::Pipeline::Auto,
            webhook_url: None,
        });
        Dimension::ALL.map(|d| {
            s.intelligence
                .conversations
                .iter()
                .filter(|c| !c.turns.is_empty())
                .map(|c| c.layer_z.get(d).score)
                .collect::<Vec<f64>>()
        })
    };
    let (before, after) = (per_dim(&request.before), per_dim(&request.after));
    let k = |d: Dimension| Dimension::ALL.iter().position(|&x| x == d).unwrap_or(0);
    let (stats_t, _) = one.install(|| {
        best(|| {
            black_box(drift::compare(
                |d| before[k(d)].clone(),
                |d| after[k(d)].clone(),
            ))
        })
    });
    let samples: Vec<Value> = Dimension::ALL
        .iter()
        .map(|&d| {
            let x = result.dimension_drifts.get(d);
            json!({
                "dimension": d.as_str(),
                "before": before[k(d)],
                "after": after[k(d)],
                "p_value": x.p_value,
            })
        })
        .collect();
    std::fs::write(samples_path, serde_json::to_string(&samples)?)?;
    println!(
        "drift of 2x{PERIOD_EVENTS} events: {} + {} conversations, direction {:?}",
        result.before.conversation_count, result.after.conversation_count, result.direction
    );
    println!(
        "one thread, best of {RUNS}: drift end to end {:.2} ms; statistics alone {:.3} ms",
        e2e.as_secs_f64() * 1e3,
        stats_t.as_secs_f64() * 1e3
    );
    println!("metric drift_e2e_ms {:.4}", e2e.as_secs_f64() * 1e3);
    println!("metric drift_stats_ms {:.4}", stats_t.as_secs_f64() * 1e3);
    Ok(())
}
