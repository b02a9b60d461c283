//! The command line itself: usage errors, `--help`, `--version`, and a closed output pipe.

use std::fs;
use std::process::Stdio;

use super::{Run, assert_ok_line, example, run, undertone, write_ignoring_closed_pipe};

// ---------------------------------------------------------------------------
// closed output pipe

/// Runs `subcommand -` on the example `name`, with stdout's read end closed
/// before any input is sent, and checks it exits 0 with nothing on stderr.
fn assert_quiet_into_closed_pipe(subcommand: &str, name: &str) {
    let input = fs::read(example(name)).expect("example");
    let mut child = undertone()
        .args([subcommand, "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary starts");
    drop(child.stdout.take());
    let mut pipe = child.stdin.take().expect("stdin is piped");
    write_ignoring_closed_pipe(&mut pipe, &input);
    drop(pipe);
    let out = Run::from_output(child.wait_with_output().expect("binary runs"));
    assert_eq!(out.stderr, "");
    assert_eq!(out.code, Some(0), "{out:?}");
}

#[test]
fn conversations_into_a_closed_pipe_exits_quietly() {
    assert_quiet_into_closed_pipe("conversations", "coding-assistant-goes-well.json");
}

#[test]
fn validate_into_a_closed_pipe_exits_quietly() {
    assert_quiet_into_closed_pipe("validate", "tutor-fractions.json");
}

#[test]
fn commands_that_print_without_input_exit_quietly_into_a_closed_pipe() {
    // The OpenAPI document (about 100 KB, more than a pipe holds) and the key and
    // webhook listings of a database: each used to panic on the closed pipe.
    let dir = tempfile::tempdir().unwrap();
    let database = format!("sqlite://{}/u.db", dir.path().display());
    for i in 0..3 {
        let name = format!("key-{i}");
        let made = run(
            &[
                "keys",
                "create",
                "--database",
                &database,
                "--org",
                "o",
                "--scope",
                "read-only",
                "--name",
                &name,
            ],
            None,
            None,
        );
        assert_eq!(made.code, Some(0), "{made:?}");
    }
    for args in [
        vec!["openapi"],
        vec!["keys", "list", "--database", &database],
        vec!["webhooks", "list", "--database", &database],
    ] {
        let mut child = undertone()
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("binary starts");
        drop(child.stdout.take());
        let out = Run::from_output(child.wait_with_output().expect("binary runs"));
        assert_eq!(out.stderr, "", "{args:?}");
        assert_eq!(out.code, Some(0), "{args:?}: {out:?}");
    }
}

// ---------------------------------------------------------------------------
// command line

/// Exit 2, nothing on stdout, and exactly `stderr` on stderr.
fn assert_usage_error(args: &[&str], stderr: &str) {
    let out = run(args, None, None);
    assert_eq!(out.stderr, stderr);
    assert_eq!(out.stdout, "");
    assert_eq!(out.code, Some(2));
}

#[test]
fn unknown_subcommand_is_a_usage_error() {
    assert_usage_error(
        &["frobnicate"],
        "error: unrecognized subcommand 'frobnicate'\n\nUsage: undertone <COMMAND>\n\n\
         For more information, try '--help'.\n",
    );
}

#[test]
fn missing_file_argument_is_a_usage_error() {
    assert_usage_error(
        &["validate"],
        "error: the following required arguments were not provided:\n  <FILE>\n\n\
         Usage: undertone validate <FILE>\n\nFor more information, try '--help'.\n",
    );
}

#[test]
fn unknown_format_is_a_usage_error() {
    let out = run(&["validate", "--format", "yaml", "x.json"], None, None);
    assert!(
        out.stderr
            .starts_with("error: invalid value 'yaml' for '--format <FORMAT>'\n"),
        "{:?}",
        out.stderr
    );
    assert_eq!(out.stdout, "");
    assert_eq!(out.code, Some(2));
}

#[test]
fn serve_refuses_zero_workers_before_it_starts() {
    // Zero would start one worker anyway while the log said 0.
    let out = run(
        &["serve", "--workers", "0", "--addr", "127.0.0.1:1"],
        None,
        None,
    );
    assert!(
        out.stderr
            .starts_with("error: invalid value '0' for '--workers <WORKERS>': 0 is not in 1..="),
        "{:?}",
        out.stderr
    );
    assert_eq!(out.stdout, "");
    assert_eq!(out.code, Some(2));
}

#[test]
fn serve_says_what_range_of_hours_it_takes() {
    for hours in ["0", "-1", "1e300", "soon"] {
        let arg = format!("--webhook-disable-after={hours}");
        let out = run(&["serve", &arg], None, None);
        assert!(
            out.stderr.contains(&format!(
                "`{hours}` is not a number of hours above 0 and at most 87600 (ten years)"
            )),
            "{hours}: {:?}",
            out.stderr
        );
        assert_eq!(out.code, Some(2));
    }
}

#[test]
fn score_help_names_every_import_format() {
    let out = run(&["score", "--help"], None, None);
    let from = out.stdout.split("--from").nth(1).expect("--from is listed");
    let from: String = from
        .split("--json")
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for format in [
        "chatgpt",
        "claude",
        "zendesk",
        "intercom",
        "slack",
        "mapping:FILE",
    ] {
        assert!(from.contains(format), "{format} missing from {from:?}");
    }
}

#[test]
fn version_flag_prints_the_version() {
    let out = run(&["--version"], None, None);
    assert_ok_line(&out, &format!("undertone {}", env!("CARGO_PKG_VERSION")));
}

#[test]
fn help_lists_every_subcommand() {
    let out = run(&["--help"], None, None);
    assert_eq!(out.code, Some(0));
    assert_eq!(out.stderr, "");
    let commands: Vec<&str> = out
        .stdout
        .lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(
        commands,
        [
            "  validate       Check an input file against the input contract and summarise it",
            "  conversations  Print the conversations assembled from an input file, as JSON",
            "  score          Score every human turn of an input file and print the result",
            "  import         Convert an export (ChatGPT, Claude, Zendesk, Intercom, Slack, a mapping) into a request",
            "  eval           Measure the scores against labelled conversations (AUROC, Spearman, ECE)",
            "  drift          Score two periods (e.g. two model versions) and test each dimension for a significant change: Mann-Whitney U, Hodges–Lehmann shift, Holm-adjusted",
            "  serve          Run the REST service (SQLite by default); prints a key on first start",
            "  keys           Create, list and revoke API keys",
            "  webhooks       List and delete the webhook endpoints of the database, of every key",
            "  mcp            Serve MCP on standard input and output for a local agent",
            "  openapi        Print the OpenAPI 3.1 document of the REST API (what `spec/openapi.json` holds)",
            "  help           Print this message or the help of the given subcommand(s)",
        ]
    );
}
