//! Throughput and memory benchmark of Undertone's scorer (run through `scripts/bench-score`).
//!
//! ```text
//! bench_score EVENTS.jsonl [--threads N]   throughput, in human turns per second
//! bench_score EVENTS.jsonl --rss N         peak RSS for scoring the first N events
//! ```
//!
//! `EVENTS.jsonl` holds one event of the input contract per line (as written by
//! `scripts/bench_ai_turns.py`). The file is read into memory once; every figure is
//! the best of three runs in this one process.
//!
//! Single-threaded (a rayon pool of one thread):
//!
//! - **floor**: for each line, `serde_json` parse, `content` lowercased, split on
//!   non-alphanumeric characters, one hash lookup per token in the ~7,500-word VADER
//!   table the scorer itself uses. No real scorer can be faster than this.
//! - **parse**: validation into an `IngestRequest` (the JSON Lines path of the CLI).
//! - **score**: `score(&request)`, and score plus `sdk::render_score` of the result (the
//!   JSON every binding returns and the command line prints).
//! - **end-to-end**: parse and score together.
//! - **parse+read**: parse, then only the reading of every turn in context
//!   (`score::context::conversation_signals`: text, phrases, lexicon, both learned
//!   models, repetition), without the six dimensions, evidence or results: what
//!   end-to-end could reach if everything after the reading cost nothing.
//!
//! Then score only on a pool of `--threads` threads (default: every core).
//!
//! Rates are in human turns per second, counting the human turns of the whole file
//! (the AI turns are parsed and read as context, but are not counted). The last lines
//! of output are `metric NAME VALUE`, for scripts.

use std::error::Error;
use std::fs::File;
use std::hint::black_box;
use std::io::{BufRead, BufReader, Write};
use std::time::{Duration, Instant};

use rustc_hash::FxHashMap;
use serde_json::Value;
use undertone_core::score::{context, score};
use undertone_core::sdk;
use undertone_core::validate::{self, Options};
use undertone_core::{IngestRequest, assemble};

/// The allocator of the `undertone` binary, so the figures are the CLI's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Any error; `Send` so that it can leave a rayon pool.
type Failure = Box<dyn Error + Send + Sync>;

/// Runs per measurement; the best is kept.
const RUNS: usize = 3;

/// The deployment id given to the JSON Lines events (the AI turns are recognised by
/// `metadata.role`, so it matches no actor).
const DEPLOYMENT: &str = "bench-bot";

/// The word list of the floor: the scorer's own VADER valence table.
const VADER_TSV: &str = include_str!("../lexicons/vader_valence.tsv");

const OPTIONS: Options = Options {
    allow_private_webhooks: false,
    unlimited: true,
    repeated_keys: false,
};

const USAGE: &str =
    "usage: bench_score EVENTS.jsonl [--threads N] | bench_score EVENTS.jsonl --rss N";

fn main() -> Result<(), Failure> {
    let mut args = std::env::args().skip(1);
    let mut path = None;
    let mut threads = None;
    let mut rss = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--threads" => threads = Some(number(args.next())?),
            "--rss" => rss = Some(number(args.next())?),
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            _ if path.is_none() && !a.starts_with("--") => path = Some(a),
            _ => return Err(format!("unexpected argument {a:?}\n{USAGE}").into()),
        }
    }
    let path = path.ok_or(USAGE)?;
    match rss {
        Some(n) => peak_rss(&path, n),
        None => throughput(&path, threads),
    }
}

fn number(arg: Option<String>) -> Result<usize, Failure> {
    let arg = arg.ok_or(USAGE)?;
    let n: usize = arg
        .parse()
        .map_err(|_| format!("not a positive number: {arg:?}"))?;
    if n == 0 {
        return Err(format!("not a positive number: {arg:?}").into());
    }
    Ok(n)
}

fn throughput(path: &str, threads: Option<usize>) -> Result<(), Failure> {
    let bytes = std::fs::read(path)?;
    let text = std::str::from_utf8(&bytes)?;
    let table = vader_table();
    let threads = threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, std::num::NonZero::get));

    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
    let request = one.install(|| parse(&bytes))?;
    let events = request.events.len();
    let humans = one
        .install(|| score(&request))
        .intelligence
        .human_turn_count;
    println!(
        "input: {path}: {events} events, {humans} human turns, {:.1} MB; floor table: {} words",
        bytes.len() as f64 / 1e6,
        table.len()
    );
    println!("single thread, best of {RUNS} runs, rates in human turns/s:");
    let rate = |d: Duration| humans as f64 / d.as_secs_f64();
    let show = |name: &str, d: Duration| {
        println!(
            "  {name:<26} {:>10.0}/s  ({:.3} s, {:.0} events/s)",
            rate(d),
            d.as_secs_f64(),
            events as f64 / d.as_secs_f64()
        );
    };

    let (floor_t, (tokens, hits)) = one.install(|| best(|| floor(text, &table)));
    show("floor (parse+lookup)", floor_t);
    println!("  {:<26} {tokens} tokens, {hits} table hits", "");
    let (parse_t, _) = one.install(|| best(|| parse(&bytes).map(|r| r.events.len())));
    show("undertone parse", parse_t);
    let (score_t, _) = one.install(|| best(|| score(&request).intelligence.human_turn_count));
    show("undertone score", score_t);
    // Serialised as every binding gets it (`sdk::render_score`, the CLI's bytes).
    let (ser_t, json_len) = one
        .install(|| best(|| black_box(sdk::render_score(&score(&request), sdk::View::Full)).len()));
    show("undertone score+serialise", ser_t);
    println!("  {:<26} result JSON {:.1} MB", "", json_len as f64 / 1e6);
    let (e2e_t, _) =
        one.install(|| best(|| parse(&bytes).map(|r| score(&r).intelligence.human_turn_count)));
    show("undertone parse+score", e2e_t);
    let (read_t, _) = one.install(|| best(|| parse(&bytes).map(|r| read(&r))));
    show("undertone parse+read", read_t);
    let ratio = rate(e2e_t) / rate(floor_t);
    println!(
        "  undertone/floor (parse+score vs parse+lookup): {:.1}%",
        100.0 * ratio
    );

    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let (multi_t, _) = pool.install(|| best(|| score(&request).intelligence.human_turn_count));
    println!(
        "{threads} threads, score only: {:.0} human turns/s ({:.0}/s per thread, {:.2}x one thread)",
        rate(multi_t),
        rate(multi_t) / threads as f64,
        score_t.as_secs_f64() / multi_t.as_secs_f64()
    );

    let metrics = [
        ("events", events as f64),
        ("human_turns", humans as f64),
        ("floor_turns_per_s", rate(floor_t)),
        ("parse_turns_per_s", rate(parse_t)),
        ("score_turns_per_s", rate(score_t)),
        ("score_ser_turns_per_s", rate(ser_t)),
        ("e2e_turns_per_s", rate(e2e_t)),
        ("e2e_over_floor", ratio),
        ("read_turns_per_s", rate(read_t)),
        ("threads", threads as f64),
        ("multi_score_turns_per_s", rate(multi_t)),
    ];
    for (name, value) in metrics {
        println!("metric {name} {value:.4}");
    }
    Ok(())
}

/// Peak RSS for parsing, scoring and serialising the first `n` events, in a fresh process;
/// the JSON is streamed to a counter, as `undertone score` streams it to its output.
fn peak_rss(path: &str, n: usize) -> Result<(), Failure> {
    let mut input = String::new();
    let mut count = 0;
    for line in BufReader::new(File::open(path)?).lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        input.push_str(&line);
        input.push('\n');
        count += 1;
        if count == n {
            break;
        }
    }
    let before = status_kb("VmHWM")?;
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
    let (humans, json_len) = one.install(|| -> Result<_, Failure> {
        let request = parse(input.as_bytes())?;
        let result = score(&request);
        // Written as `undertone score` writes it: streamed, never whole in memory.
        let mut out = Counted(0);
        sdk::write_score(&mut out, &result, sdk::View::Full)?;
        Ok((result.intelligence.human_turn_count, out.0))
    })?;
    let after = status_kb("VmHWM")?;
    println!(
        "rss: {count} events ({humans} human turns, result JSON {:.1} MB): \
         peak RSS (VmHWM) {:.1} MB; {:.1} MB before parsing",
        json_len as f64 / 1e6,
        after as f64 / 1024.0,
        before as f64 / 1024.0
    );
    println!("metric rss_events {count}");
    println!("metric rss_peak_kb {after}");
    Ok(())
}

/// A sink that counts the bytes written to it.
struct Counted(usize);

impl Write for Counted {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A `kB` field of `/proc/self/status` (Linux only).
fn status_kb(field: &str) -> Result<u64, Failure> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| format!("no {field} in /proc/self/status").into())
}

fn parse(bytes: &[u8]) -> Result<IngestRequest, undertone_core::Error> {
    validate::ingest_request_json_lines(bytes, DEPLOYMENT, &OPTIONS)
}

/// The reading stage alone: every conversation's turns read in context, the signals
/// dropped. Returns the number of human turns read.
fn read(request: &IngestRequest) -> usize {
    let assembly = assemble(&request.events, Some(&request.deployment_id));
    assembly
        .conversations
        .iter()
        .map(|c| black_box(context::conversation_signals(c, |_| {})).len())
        .sum()
}

/// The floor's table: token → valence, from the scorer's VADER lexicon.
fn vader_table() -> FxHashMap<&'static str, f32> {
    VADER_TSV
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let (word, value) = l.split_once('\t')?;
            Some((word, value.trim().parse().ok()?))
        })
        .collect()
}

/// The floor: parse each line, lowercase its content, split into words, look each up.
/// Returns (tokens, hits) so that none of the work can be optimised away.
fn floor(text: &str, table: &FxHashMap<&str, f32>) -> (usize, usize) {
    let mut tokens = 0;
    let mut hits = 0;
    let mut valence = 0.0f32;
    for line in text.lines() {
        if line.trim().is_empty() {
            continue;
        }
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let Some(content) = v.get("content").and_then(Value::as_str) else {
            continue;
        };
        let lower = content.to_lowercase();
        for word in lower.split(|c: char| !c.is_alphanumeric()) {
            if word.is_empty() {
                continue;
            }
            tokens += 1;
            if let Some(x) = table.get(word) {
                hits += 1;
                valence += x;
            }
        }
    }
    black_box(valence);
    (tokens, hits)
}

/// Runs `f` [`RUNS`] times; the shortest time and the last result.
fn best<T>(mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut fastest = Duration::MAX;
    let mut last = None;
    for _ in 0..RUNS {
        let start = Instant::now();
        let out = black_box(f());
        fastest = fastest.min(start.elapsed());
        last = Some(out);
    }
    (fastest, last.expect("RUNS > 0"))
}
