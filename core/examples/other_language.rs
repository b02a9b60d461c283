//! How often the other-language check (`features::language::reads_as_other_language`,
//! as the scorer applies it to every human turn) fires on English texts of the shared
//! data and on the team's sentences in other languages.
//!
//! ```text
//! other_language [DATA_DIR [SENTENCES]]   defaults: ../shared/data tests/languages/sentences.tsv
//! ```
//!
//! English: the texts of GoEmotions (train, dev and test), CLINC150 and HWU64 (every
//! split) and the user turns of DBDC3 English, each read as the one human turn of its
//! own conversation. Other languages: each line of `SENTENCES`, the same way. Prints,
//! per set, how many texts the check caught, then up to five English texts it caught.

use std::error::Error;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use undertone_core::assemble;
use undertone_core::score::context::conversation_signals;
use undertone_core::validate::{self, Options};

const OPTIONS: Options = Options {
    allow_private_webhooks: false,
    unlimited: true,
    repeated_keys: false,
};

fn main() -> Result<(), Box<dyn Error>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut args = std::env::args().skip(1);
    let data = args
        .next()
        .map_or_else(|| root.join("../shared/data"), PathBuf::from);
    let sentences = args
        .next()
        .map_or_else(|| root.join("tests/languages/sentences.tsv"), PathBuf::from);

    let mut caught_english = Vec::new();
    for (name, files, field) in [
        (
            "goemotions",
            &["train.jsonl", "dev.jsonl", "test.jsonl"][..],
            "text",
        ),
        (
            "clinc150",
            &["train.jsonl", "val.jsonl", "test.jsonl"][..],
            "text",
        ),
        ("hwu64", &["train.jsonl", "test.jsonl"][..], "text"),
        ("dbdc3_en", &["dbdc3_en_revised.jsonl"][..], "turns"),
    ] {
        let mut texts = Vec::new();
        for file in files {
            let path = data.join(name).join(file);
            let raw =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            for line in raw.lines().filter(|l| !l.trim().is_empty()) {
                let v: Value = serde_json::from_str(line)?;
                if field == "turns" {
                    for t in v["turns"].as_array().into_iter().flatten() {
                        if t["role"] == "user" {
                            texts.extend(t["text"].as_str().map(str::to_owned));
                        }
                    }
                } else {
                    texts.extend(v[field].as_str().map(str::to_owned));
                }
            }
        }
        let caught = caught(&texts)?;
        println!(
            "english {name:<11} {:>6} texts, caught {:>3} ({:.3}%)",
            texts.len(),
            caught.len(),
            100.0 * caught.len() as f64 / texts.len() as f64
        );
        caught_english.extend(caught.into_iter().map(|i| texts[i].clone()));
    }

    let raw =
        std::fs::read_to_string(&sentences).map_err(|e| format!("{}: {e}", sentences.display()))?;
    let lines: Vec<(&str, &str)> = raw
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_once('\t'))
        .collect();
    let texts: Vec<String> = lines.iter().map(|(_, t)| (*t).to_owned()).collect();
    let caught = caught(&texts)?;
    let mut langs: Vec<&str> = lines.iter().map(|(l, _)| *l).collect();
    langs.sort_unstable();
    langs.dedup();
    let per: Vec<String> = langs
        .iter()
        .map(|lang| {
            let of = lines.iter().filter(|(l, _)| l == lang).count();
            let hit = caught.iter().filter(|&&i| lines[i].0 == *lang).count();
            format!("{lang} {hit}/{of}")
        })
        .collect();
    println!(
        "other languages: {} sentences, caught {} ({})",
        texts.len(),
        caught.len(),
        per.join(", ")
    );
    for t in caught_english.iter().take(5) {
        println!("  caught English text: {t:?}");
    }
    Ok(())
}

/// The indices of `texts` whose turn reads as another language, each text read as the
/// one human turn of its own conversation.
fn caught(texts: &[String]) -> Result<Vec<usize>, Box<dyn Error>> {
    let mut lines = String::new();
    for (i, t) in texts.iter().enumerate() {
        let event = json!({
            "actor_id": "person",
            "content": t,
            "timestamp": "2026-11-28T12:00:00Z",
            "conversation_id": format!("c{i}"),
        });
        lines.push_str(&event.to_string());
        lines.push('\n');
    }
    let request = validate::ingest_request_json_lines(lines.as_bytes(), "bot", &OPTIONS)?;
    let assembly = assemble(&request.events, Some(&request.deployment_id));
    let mut out = Vec::new();
    for c in &assembly.conversations {
        let signals = conversation_signals(c, |_| {});
        if signals.iter().any(|s| s.other_language) {
            let i: usize = c.conversation_id.as_str()[1..].parse()?;
            out.push(i);
        }
    }
    out.sort_unstable();
    Ok(out)
}
