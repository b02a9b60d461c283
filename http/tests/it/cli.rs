//! The `undertone` binary, run as a process: exit status and exact output.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

/// The input size limit, in bytes (16 MiB).
const LIMIT: usize = 16 * 1024 * 1024;

/// What one run of the binary produced.
#[derive(Debug)]
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn undertone() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_undertone"));
    cmd.env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE");
    cmd
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(name)
}

fn example_json(name: &str) -> Value {
    let text = fs::read_to_string(example(name)).expect("example is readable");
    serde_json::from_str(&text).expect("example is JSON")
}

fn text(bytes: Vec<u8>, stream: &str) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| panic!("{stream} is not UTF-8: {e}"))
}

/// Runs the binary with `args`, feeding `stdin` (or nothing) on standard input.
fn run<I, S>(args: I, stdin: Option<Vec<u8>>) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut cmd = undertone();
    cmd.args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
    let mut child = cmd.spawn().expect("binary starts");
    let writer = stdin.map(|bytes| {
        let mut pipe = child.stdin.take().expect("stdin is piped");
        thread::spawn(move || write_ignoring_closed_pipe(&mut pipe, &bytes))
    });
    let out = child.wait_with_output().expect("binary runs");
    if let Some(w) = writer {
        w.join().expect("stdin writer does not panic");
    }
    let run = Run {
        code: out.status.code(),
        stdout: text(out.stdout, "stdout"),
        stderr: text(out.stderr, "stderr"),
    };
    assert_no_panic(&run);
    run
}

/// Writes `bytes`; the child may stop reading early (that is what the size limit is for).
fn write_ignoring_closed_pipe(pipe: &mut impl Write, bytes: &[u8]) {
    match pipe.write_all(bytes) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
        Err(e) => panic!("cannot write to the child's stdin: {e}"),
    }
}

/// Waits for `child` at most `limit`, killing it and failing the test past that.
fn wait_at_most(child: &mut Child, limit: Duration) -> Option<i32> {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("child can be polled") {
            return status.code();
        }
        if start.elapsed() > limit {
            child.kill().expect("child can be killed");
            child.wait().expect("killed child is reaped");
            panic!("the binary did not exit within {limit:?}");
        }
        thread::sleep(Duration::from_millis(10));
    }
}

fn read_all(stream: Option<impl Read>) -> String {
    let mut bytes = Vec::new();
    if let Some(mut s) = stream {
        s.read_to_end(&mut bytes).expect("stream is readable");
    }
    text(bytes, "output")
}

fn assert_no_panic(run: &Run) {
    for (name, out) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
        assert!(!out.contains("panicked"), "{name} shows a panic: {out}");
        assert!(
            !out.contains("RUST_BACKTRACE"),
            "{name} shows a panic: {out}"
        );
    }
}

/// Exit 2, nothing on stdout, and exactly `line` (one line) on stderr.
fn assert_one_line_error(run: &Run, line: &str) {
    assert!(!line.contains('\n'), "expected line has a newline: {line}");
    assert_eq!(run.stderr, format!("{line}\n"), "{run:?}");
    assert_eq!(run.stdout, "", "{run:?}");
    assert_eq!(run.code, Some(2), "{run:?}");
}

/// Exit 0, exactly `line` on stdout, nothing on stderr.
fn assert_ok_line(run: &Run, line: &str) {
    assert_eq!(run.stdout, format!("{line}\n"), "{run:?}");
    assert_eq!(run.stderr, "", "{run:?}");
    assert_eq!(run.code, Some(0), "{run:?}");
}

fn events_of(request: &Value) -> &Vec<Value> {
    request["events"].as_array().expect("events is an array")
}

/// Writes `name` with `bytes` into a fresh temporary directory.
fn temp_file(name: &str, bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join(name);
    fs::write(&path, bytes).expect("temporary file is writable");
    (dir, path)
}

/// The first three events of the tutor example, one JSON object per line.
fn three_event_lines() -> Vec<String> {
    let request = example_json("tutor-fractions.json");
    events_of(&request)[..3]
        .iter()
        .map(|e| serde_json::to_string(e).expect("event serialises"))
        .collect()
}

fn violations_text(path: &Path, lines: &[&str]) -> String {
    let mut out = format!(
        "error: {} breaks the input contract (VALIDATION_ERROR, {} problem{}):\n",
        path.display(),
        lines.len(),
        if lines.len() == 1 { "" } else { "s" }
    );
    for l in lines {
        out.push_str("  ");
        out.push_str(l);
        out.push('\n');
    }
    out
}

// ---------------------------------------------------------------------------
// validate: the examples

fn assert_validate_example(name: &str, ok_line: &str) {
    let file = example(name);
    let events = events_of(&example_json(name)).len();
    assert!(
        ok_line.starts_with(&format!("ok: {events} events, ")),
        "{ok_line} does not count the {events} events of {name}"
    );
    assert_ok_line(
        &run([OsStr::new("validate"), file.as_os_str()], None),
        ok_line,
    );
}

#[test]
fn validate_support_refund_example() {
    assert_validate_example(
        "support-refund-goes-wrong.json",
        "ok: 20 events, 2 conversations (11 human turns)",
    );
    // Two conversations because the file names two conversation ids.
    let request = example_json("support-refund-goes-wrong.json");
    let ids: BTreeSet<&str> = events_of(&request)
        .iter()
        .map(|e| e["conversation_id"].as_str().expect("conversation_id"))
        .collect();
    assert_eq!(ids, BTreeSet::from(["zd-48213", "zd-48230"]));
}

#[test]
fn validate_coding_assistant_example() {
    assert_validate_example(
        "coding-assistant-goes-well.json",
        "ok: 18 events, 2 conversations (11 human turns)",
    );
}

#[test]
fn validate_tutor_example() {
    assert_validate_example(
        "tutor-fractions.json",
        "ok: 15 events, 1 conversation (8 human turns)",
    );
}

#[test]
fn validate_uses_singular_words_and_notes_conversations_without_humans() {
    let body = r#"{"deployment_id":"d","events":[{"actor_id":"bot","content":"hello",
        "timestamp":"2026-01-01T00:00:00Z","conversation_id":"c1","metadata":{"role":"assistant"}}]}"#;
    let (_dir, path) = temp_file("ai-only.json", body.as_bytes());
    let out = run([OsStr::new("validate"), path.as_os_str()], None);
    assert_eq!(out.stdout, "ok: 1 event, 1 conversation (0 human turns)\n");
    assert_eq!(
        out.stderr,
        "note: conversation c1 has no human turn; it is kept but nothing in it is scored\n"
    );
    assert_eq!(out.code, Some(0));
}

// ---------------------------------------------------------------------------
// validate: contract violations

const SEVERAL_VIOLATIONS: [(&str, &str); 7] = [
    (
        "customer_tier",
        "unknown field; allowed fields are deployment_id, events, pipeline, webhook_url",
    ),
    (
        "pipeline",
        "must be one of auto, support, reviews; got \"chat\"",
    ),
    ("events[1].timestamp", "is required"),
    (
        "events[2].timestamp",
        "\"2026-11-18 09:15:00\" has no UTC offset; add Z or an offset such as +01:00, e.g. 2026-11-21T09:30:00Z",
    ),
    ("events[3].content", "must not be empty or only whitespace"),
    (
        "events[4].timestamp",
        "\"2026-02-30T10:00:00Z\" is not a real date and time",
    ),
    ("events[5].actor_id", "must not be empty"),
];

fn several_violations_stderr(path: &Path) -> String {
    let lines: Vec<String> = SEVERAL_VIOLATIONS
        .iter()
        .map(|(p, m)| format!("{p}: {m}"))
        .collect();
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    violations_text(path, &lines)
}

#[test]
fn validate_lists_every_violation() {
    let file = example("invalid-several-violations.json");
    let out = run([OsStr::new("validate"), file.as_os_str()], None);
    assert_eq!(out.stderr, several_violations_stderr(&file));
    assert_eq!(out.stdout, "");
    assert_eq!(out.code, Some(2));
}

#[test]
fn conversations_reports_violations_like_validate() {
    let file = example("invalid-several-violations.json");
    let out = run([OsStr::new("conversations"), file.as_os_str()], None);
    assert_eq!(out.stderr, several_violations_stderr(&file));
    assert_eq!(out.stdout, "");
    assert_eq!(out.code, Some(2));
}

#[test]
fn validate_json_prints_the_error_envelope() {
    let file = example("invalid-several-violations.json");
    let out = run(
        [
            OsStr::new("validate"),
            OsStr::new("--json"),
            file.as_os_str(),
        ],
        None,
    );
    assert_eq!(out.code, Some(2));
    assert_eq!(out.stderr, "");
    assert!(out.stdout.ends_with("}\n"), "{:?}", out.stdout);
    assert_eq!(out.stdout.lines().count(), 1, "{:?}", out.stdout);
    let envelope: Value = serde_json::from_str(&out.stdout).expect("stdout is JSON");
    let error = envelope["error"].as_object().expect("error object");
    assert_eq!(error.len(), 3, "{error:?}");
    assert_eq!(error["code"], "VALIDATION_ERROR");
    assert_eq!(
        error["message"],
        "7 problems in the input; first: customer_tier: unknown field; allowed fields are \
         deployment_id, events, pipeline, webhook_url (and 6 more)"
    );
    let details: Vec<(&str, &str)> = error["details"]
        .as_array()
        .expect("details array")
        .iter()
        .map(|d| {
            assert_eq!(d.as_object().map(|o| o.len()), Some(2), "{d}");
            (
                d["path"].as_str().expect("path"),
                d["message"].as_str().expect("message"),
            )
        })
        .collect();
    assert_eq!(details, SEVERAL_VIOLATIONS);
}

#[test]
fn validate_json_envelope_for_a_body_problem() {
    let (_dir, path) = temp_file("empty.json", b"");
    let out = run(
        [
            OsStr::new("validate"),
            OsStr::new("--json"),
            path.as_os_str(),
        ],
        None,
    );
    assert_eq!(
        out.stdout,
        "{\"error\":{\"code\":\"VALIDATION_ERROR\",\"message\":\"body: is empty; expected a JSON \
         object\",\"details\":[{\"path\":\"body\",\"message\":\"is empty; expected a JSON object\"}]}}\n"
    );
    assert_eq!(out.stderr, "");
    assert_eq!(out.code, Some(2));
}

// ---------------------------------------------------------------------------
// validate: unusable files

fn validate_file(name: &str, bytes: &[u8]) -> (Run, String) {
    let (_dir, path) = temp_file(name, bytes);
    let out = run([OsStr::new("validate"), path.as_os_str()], None);
    (out, path.display().to_string())
}

#[test]
fn empty_file_is_one_line_error() {
    let (out, path) = validate_file("empty.json", b"");
    assert_one_line_error(
        &out,
        &format!("error: {path} is empty; expected a JSON object"),
    );
}

#[test]
fn whitespace_only_file_is_one_line_error() {
    let (out, path) = validate_file("blank.json", b"  \n\t\r\n   \n");
    assert_one_line_error(
        &out,
        &format!("error: {path} is empty; expected a JSON object"),
    );
}

#[test]
fn non_json_file_is_one_line_error() {
    let (out, path) = validate_file("hello.json", b"hello");
    assert_one_line_error(
        &out,
        &format!("error: {path} is not valid JSON: expected value at line 1 column 1"),
    );
}

#[test]
fn trailing_garbage_is_one_line_error() {
    let (out, path) = validate_file("trail.json", b"{\"deployment_id\":\"a\",\"events\":[]} x\n");
    assert_one_line_error(
        &out,
        &format!("error: {path} is not valid JSON: trailing characters at line 1 column 35"),
    );
}

#[test]
fn json_that_is_not_an_object_is_one_line_error() {
    let (out, path) = validate_file("array.json", b"[1, 2]");
    assert_one_line_error(
        &out,
        &format!("error: {path} must be a JSON object with deployment_id and events, got array"),
    );
    let (out, path) = validate_file("null.json", b"null\n");
    assert_one_line_error(
        &out,
        &format!("error: {path} must be a JSON object with deployment_id and events, got null"),
    );
}

#[test]
fn binary_file_is_one_line_error() {
    let bytes = [0xff, 0xfe, 0x00, 0x81, 0x80, 0xc3, 0x28, 0x00, 0x9f, 0x7b];
    let (out, path) = validate_file("binary.json", &bytes);
    assert_one_line_error(
        &out,
        &format!("error: {path} is not valid UTF-8 (invalid byte at offset 0)"),
    );
}

#[test]
fn invalid_utf8_after_valid_text_names_the_offset() {
    let (out, path) = validate_file("late.json", b"{\"deployment_id\": \"\xff\"}");
    assert_one_line_error(
        &out,
        &format!("error: {path} is not valid UTF-8 (invalid byte at offset 19)"),
    );
}

#[test]
fn missing_file_is_one_line_error() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("missing.json");
    let out = run([OsStr::new("validate"), path.as_os_str()], None);
    assert_one_line_error(
        &out,
        &format!(
            "error: cannot read {}: No such file or directory (os error 2)",
            path.display()
        ),
    );
}

#[test]
fn directory_is_one_line_error() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let out = run([OsStr::new("validate"), dir.path().as_os_str()], None);
    assert_one_line_error(
        &out,
        &format!(
            "error: cannot read {}: Is a directory (os error 21)",
            dir.path().display()
        ),
    );
}

// ---------------------------------------------------------------------------
// the 16 MiB limit

#[test]
fn file_over_the_limit_is_refused() {
    let mut bytes = br#"{"deployment_id":"a","events":["#.to_vec();
    bytes.resize(LIMIT + 1, b' ');
    let (out, path) = validate_file("huge.json", &bytes);
    assert_one_line_error(
        &out,
        &format!("error: {path} is 16777217 bytes; the limit is 16777216 bytes (16 MiB)"),
    );
}

#[test]
fn file_at_the_limit_is_read() {
    // Exactly 16 MiB is allowed: the file is read, then found to be blank.
    let (out, path) = validate_file("at-limit.json", &vec![b' '; LIMIT]);
    assert_one_line_error(
        &out,
        &format!("error: {path} is empty; expected a JSON object"),
    );
}

#[test]
fn stdin_over_the_limit_is_refused() {
    let out = run(["validate", "-"], Some(vec![b' '; LIMIT + 1]));
    assert_one_line_error(
        &out,
        "error: standard input is over the limit of 16777216 bytes (16 MiB)",
    );
}

#[test]
fn stdin_far_over_the_limit_is_refused() {
    // 32 MiB: the binary stops reading after the limit; the writer sees a closed pipe.
    let out = run(["validate", "-"], Some(vec![b'x'; 2 * LIMIT]));
    assert_one_line_error(
        &out,
        "error: standard input is over the limit of 16777216 bytes (16 MiB)",
    );
}

#[test]
fn stdin_over_the_limit_is_refused_without_waiting_for_eof() {
    let mut child = undertone()
        .args(["validate", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary starts");
    let mut pipe = child.stdin.take().expect("stdin is piped");
    let (done, release) = mpsc::channel::<()>();
    let writer = thread::spawn(move || {
        write_ignoring_closed_pipe(&mut pipe, &vec![b' '; LIMIT + 1]);
        // Keep standard input open until the binary has exited.
        let _ = release.recv();
    });
    let code = wait_at_most(&mut child, Duration::from_secs(30));
    done.send(()).expect("writer is waiting");
    writer.join().expect("stdin writer does not panic");
    let out = Run {
        code,
        stdout: read_all(child.stdout.take()),
        stderr: read_all(child.stderr.take()),
    };
    assert_no_panic(&out);
    assert_one_line_error(
        &out,
        "error: standard input is over the limit of 16777216 bytes (16 MiB)",
    );
}

#[test]
fn stdin_at_the_limit_is_accepted() {
    let mut bytes = fs::read(example("tutor-fractions.json")).expect("example is readable");
    assert!(bytes.len() < LIMIT);
    bytes.resize(LIMIT, b'\n');
    let out = run(["validate", "-"], Some(bytes));
    assert_ok_line(&out, "ok: 15 events, 1 conversation (8 human turns)");
}

// ---------------------------------------------------------------------------
// standard input

#[test]
fn validate_reads_standard_input() {
    let bytes = fs::read(example("support-refund-goes-wrong.json")).expect("example");
    let out = run(["validate", "-"], Some(bytes));
    assert_ok_line(&out, "ok: 20 events, 2 conversations (11 human turns)");
}

#[test]
fn empty_standard_input_is_one_line_error() {
    let out = run(["validate", "-"], Some(Vec::new()));
    assert_one_line_error(
        &out,
        "error: standard input is empty; expected a JSON object",
    );
}

// ---------------------------------------------------------------------------
// JSON Lines

fn jsonl_file(name: &str, lines: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let mut body = lines.join("\n");
    body.push('\n');
    temp_file(name, body.as_bytes())
}

#[test]
fn json_lines_need_a_deployment_id() {
    let lines = three_event_lines();
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let (_dir, path) = jsonl_file("events.jsonl", &lines);
    let out = run([OsStr::new("validate"), path.as_os_str()], None);
    assert_one_line_error(
        &out,
        &format!(
            "error: {} is JSON Lines of events; pass --deployment-id to say which deployment \
             they come from",
            path.display()
        ),
    );
}

#[test]
fn json_lines_with_a_deployment_id_are_valid() {
    let lines = three_event_lines();
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let (_dir, path) = jsonl_file("events.jsonl", &lines);
    let out = run(
        [
            OsStr::new("validate"),
            OsStr::new("--deployment-id"),
            OsStr::new("acme"),
            path.as_os_str(),
        ],
        None,
    );
    assert_ok_line(&out, "ok: 3 events, 1 conversation (2 human turns)");

    let out = run(
        [
            OsStr::new("conversations"),
            OsStr::new("--deployment-id"),
            OsStr::new("acme"),
            path.as_os_str(),
        ],
        None,
    );
    assert_eq!(out.code, Some(0), "{out:?}");
    assert_eq!(out.stderr, "");
    let assembly: Value = serde_json::from_str(&out.stdout).expect("stdout is JSON");
    assert_eq!(assembly["deployment_id"], "acme");
    assert_eq!(assembly["event_count"], 3);
}

#[test]
fn json_lines_are_detected_without_the_extension() {
    let lines = three_event_lines();
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let (_dir, path) = jsonl_file("events.log", &lines);
    let out = run([OsStr::new("validate"), path.as_os_str()], None);
    assert_one_line_error(
        &out,
        &format!(
            "error: {} is JSON Lines of events; pass --deployment-id to say which deployment \
             they come from",
            path.display()
        ),
    );
}

#[test]
fn json_lines_from_standard_input_with_format_flag() {
    let mut body = three_event_lines().join("\n");
    body.push('\n');
    let out = run(
        [
            "validate",
            "--format",
            "jsonl",
            "--deployment-id",
            "acme",
            "-",
        ],
        Some(body.into_bytes()),
    );
    assert_ok_line(&out, "ok: 3 events, 1 conversation (2 human turns)");
}

#[test]
fn format_json_on_json_lines_is_one_line_error() {
    let lines = three_event_lines();
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let (_dir, path) = jsonl_file("events.jsonl", &lines);
    let out = run(
        [
            OsStr::new("validate"),
            OsStr::new("--format"),
            OsStr::new("json"),
            path.as_os_str(),
        ],
        None,
    );
    assert_one_line_error(
        &out,
        &format!(
            "error: {} is not valid JSON: trailing characters at line 2 column 1",
            path.display()
        ),
    );
}

#[test]
fn json_lines_bad_line_names_event_and_line() {
    let lines = three_event_lines();
    let (_dir, path) = jsonl_file("events.jsonl", &[&lines[0], "not json", &lines[2]]);
    let args = [
        OsStr::new("validate"),
        OsStr::new("--deployment-id"),
        OsStr::new("acme"),
        path.as_os_str(),
    ];
    let out = run(args, None);
    assert_eq!(
        out.stderr,
        violations_text(
            &path,
            &["events[1]: line 2 is not valid JSON: expected ident at line 1 column 2"]
        )
    );
    assert_eq!(out.stdout, "");
    assert_eq!(out.code, Some(2));

    let out = run(
        [
            OsStr::new("validate"),
            OsStr::new("--json"),
            OsStr::new("--deployment-id"),
            OsStr::new("acme"),
            path.as_os_str(),
        ],
        None,
    );
    assert_eq!(out.code, Some(2));
    assert_eq!(out.stderr, "");
    let envelope: Value = serde_json::from_str(&out.stdout).expect("stdout is JSON");
    assert_eq!(envelope["error"]["code"], "VALIDATION_ERROR");
    let details = envelope["error"]["details"].as_array().expect("details");
    assert_eq!(details.len(), 1, "{details:?}");
    assert_eq!(details[0]["path"], "events[1]");
    assert_eq!(
        details[0]["message"],
        "line 2 is not valid JSON: expected ident at line 1 column 2"
    );
}

#[test]
fn json_lines_blank_lines_count_as_lines_not_events() {
    let lines = three_event_lines();
    let (_dir, path) = jsonl_file("events.jsonl", &[&lines[0], "", "   ", "{oops", &lines[2]]);
    let out = run(
        [
            OsStr::new("validate"),
            OsStr::new("--deployment-id"),
            OsStr::new("acme"),
            path.as_os_str(),
        ],
        None,
    );
    assert_eq!(
        out.stderr,
        violations_text(
            &path,
            &["events[1]: line 4 is not valid JSON: key must be a string at line 1 column 2"]
        )
    );
    assert_eq!(out.stdout, "");
    assert_eq!(out.code, Some(2));
}

#[test]
fn json_lines_with_only_blank_lines_is_one_line_error() {
    let (_dir, path) = temp_file("blank.jsonl", b"\n  \n\t\n");
    let out = run(
        [
            OsStr::new("validate"),
            OsStr::new("--deployment-id"),
            OsStr::new("acme"),
            path.as_os_str(),
        ],
        None,
    );
    assert_one_line_error(
        &out,
        &format!(
            "error: {} is empty; expected one JSON event per line",
            path.display()
        ),
    );
}

/// Two lines that are not JSON: each must be reported once, at its own event index.
#[test]
fn json_lines_two_bad_lines_get_their_own_indices() {
    let (_dir, path) = temp_file("two.jsonl", b"nope\nnope\n");
    let out = run(
        [
            OsStr::new("validate"),
            OsStr::new("--deployment-id"),
            OsStr::new("acme"),
            path.as_os_str(),
        ],
        None,
    );
    assert_eq!(
        out.stderr,
        violations_text(
            &path,
            &[
                "events[0]: line 1 is not valid JSON: expected ident at line 1 column 2",
                "events[1]: line 2 is not valid JSON: expected ident at line 1 column 2",
            ]
        )
    );
    assert_eq!(out.code, Some(2));
}

// ---------------------------------------------------------------------------
// --deployment-id with a request file

fn request_without_deployment_id() -> (tempfile::TempDir, PathBuf) {
    let mut request = example_json("tutor-fractions.json");
    request
        .as_object_mut()
        .expect("request object")
        .remove("deployment_id")
        .expect("example has a deployment_id");
    let body = serde_json::to_vec_pretty(&request).expect("request serialises");
    temp_file("no-deployment.json", &body)
}

#[test]
fn missing_deployment_id_is_a_violation() {
    let (_dir, path) = request_without_deployment_id();
    let out = run([OsStr::new("validate"), path.as_os_str()], None);
    assert_eq!(
        out.stderr,
        violations_text(&path, &["deployment_id: is required"])
    );
    assert_eq!(out.stdout, "");
    assert_eq!(out.code, Some(2));
}

#[test]
fn deployment_id_flag_fills_a_missing_deployment_id() {
    let (_dir, path) = request_without_deployment_id();
    let out = run(
        [
            OsStr::new("validate"),
            OsStr::new("--deployment-id"),
            OsStr::new("acme"),
            path.as_os_str(),
        ],
        None,
    );
    assert_ok_line(&out, "ok: 15 events, 1 conversation (8 human turns)");

    let out = run(
        [
            OsStr::new("conversations"),
            OsStr::new("--deployment-id"),
            OsStr::new("acme"),
            path.as_os_str(),
        ],
        None,
    );
    assert_eq!(out.code, Some(0), "{out:?}");
    assert_eq!(out.stderr, "");
    let assembly: Value = serde_json::from_str(&out.stdout).expect("stdout is JSON");
    assert_eq!(assembly["deployment_id"], "acme");
}

#[test]
fn deployment_id_flag_equal_to_the_file_is_accepted() {
    let file = example("tutor-fractions.json");
    let out = run(
        [
            OsStr::new("validate"),
            OsStr::new("--deployment-id"),
            OsStr::new("mathmate-tutor"),
            file.as_os_str(),
        ],
        None,
    );
    assert_ok_line(&out, "ok: 15 events, 1 conversation (8 human turns)");
}

#[test]
fn deployment_id_flag_conflicting_with_the_file_is_refused() {
    let file = example("tutor-fractions.json");
    let out = run(
        [
            OsStr::new("validate"),
            OsStr::new("--deployment-id"),
            OsStr::new("acme"),
            file.as_os_str(),
        ],
        None,
    );
    assert_one_line_error(
        &out,
        "error: --deployment-id \"acme\" differs from the file's deployment_id \"mathmate-tutor\"",
    );
}

#[test]
fn empty_deployment_id_flag_is_a_violation() {
    let (_dir, path) = request_without_deployment_id();
    let out = run(
        [
            OsStr::new("validate"),
            OsStr::new("--deployment-id"),
            OsStr::new(""),
            path.as_os_str(),
        ],
        None,
    );
    assert_eq!(
        out.stderr,
        violations_text(&path, &["deployment_id: must not be empty"])
    );
    assert_eq!(out.stdout, "");
    assert_eq!(out.code, Some(2));
}

/// `--json` promises the envelope on stdout for every error, including this one.
#[test]
fn json_flag_covers_deployment_id_conflict() {
    let file = example("tutor-fractions.json");
    let out = run(
        [
            OsStr::new("validate"),
            OsStr::new("--json"),
            OsStr::new("--deployment-id"),
            OsStr::new("acme"),
            file.as_os_str(),
        ],
        None,
    );
    assert_eq!(out.code, Some(2));
    assert_eq!(out.stderr, "");
    let envelope: Value = serde_json::from_str(&out.stdout).expect("stdout is JSON");
    assert_eq!(envelope["error"]["code"], "VALIDATION_ERROR");
}

// ---------------------------------------------------------------------------
// conversations

/// Runs `conversations` on an example and checks what holds for every input.
fn conversations_of(name: &str) -> (Value, Value) {
    let request = example_json(name);
    let file = example(name);
    let out = run([OsStr::new("conversations"), file.as_os_str()], None);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert_eq!(out.stderr, "");
    let assembly: Value = serde_json::from_str(&out.stdout).expect("stdout is JSON");

    let events = events_of(&request);
    assert_eq!(assembly["deployment_id"], request["deployment_id"]);
    assert_eq!(assembly["event_count"], events.len());
    let conversations = assembly["conversations"].as_array().expect("conversations");
    assert_eq!(assembly["conversation_count"], conversations.len());
    assert_eq!(assembly["without_human_turns"], Value::Array(Vec::new()));

    let mut seen = vec![0_usize; events.len()];
    let mut human_total = 0;
    for c in conversations {
        let turns = c["turns"].as_array().expect("turns");
        let humans = turns.iter().filter(|t| t["role"] == "human").count();
        let ais = turns.iter().filter(|t| t["role"] == "ai").count();
        assert_eq!(c["human_turn_count"], humans, "{}", c["conversation_id"]);
        assert_eq!(c["ai_turn_count"], ais, "{}", c["conversation_id"]);
        human_total += humans;
        for t in turns {
            let i = t["event_index"].as_u64().expect("event_index") as usize;
            assert!(i < events.len(), "event_index {i} out of range");
            seen[i] += 1;
            assert_eq!(t["actor_id"], events[i]["actor_id"], "turn {i}");
            // Content is kept with surrounding whitespace trimmed.
            let content = events[i]["content"].as_str().expect("content").trim();
            assert_eq!(t["content"], content, "turn {i}");
        }
        assert_eq!(c["started_at"], turns[0]["timestamp"]);
        assert_eq!(c["ended_at"], turns[turns.len() - 1]["timestamp"]);
    }
    assert!(
        seen.iter().all(|&n| n == 1),
        "each event must be in exactly one turn: {seen:?}"
    );
    assert_eq!(assembly["human_turn_count"], human_total);

    // `validate` reports the same numbers.
    let ok = format!(
        "ok: {} events, {} conversation{} ({} human turns)",
        events.len(),
        conversations.len(),
        if conversations.len() == 1 { "" } else { "s" },
        human_total
    );
    assert_ok_line(&run([OsStr::new("validate"), file.as_os_str()], None), &ok);
    (request, assembly)
}

fn ids_and_indices(assembly: &Value) -> Vec<(String, String, Vec<u64>)> {
    assembly["conversations"]
        .as_array()
        .expect("conversations")
        .iter()
        .map(|c| {
            (
                c["conversation_id"].as_str().expect("id").to_owned(),
                c["grouping"].as_str().expect("grouping").to_owned(),
                c["turns"]
                    .as_array()
                    .expect("turns")
                    .iter()
                    .map(|t| t["event_index"].as_u64().expect("event_index"))
                    .collect(),
            )
        })
        .collect()
}

/// Seconds since midnight of a `2026-11-18THH:MM:SSZ` timestamp.
fn seconds_of_day(ts: &str) -> u32 {
    let time = ts
        .strip_prefix("2026-11-18T")
        .and_then(|t| t.strip_suffix('Z'))
        .unwrap_or_else(|| panic!("unexpected timestamp {ts}"));
    time.split(':')
        .map(|p| p.parse::<u32>().expect("number"))
        .fold(0, |acc, n| acc * 60 + n)
}

#[test]
fn conversations_split_coding_session_at_the_gap() {
    let (request, assembly) = conversations_of("coding-assistant-goes-well.json");
    assert_eq!(assembly["event_count"], 18);
    assert_eq!(assembly["conversation_count"], 2);
    assert_eq!(assembly["human_turn_count"], 11);

    // Independently: the only gap over 30 minutes is before event 13.
    let events = events_of(&request);
    let times: Vec<u32> = events
        .iter()
        .map(|e| seconds_of_day(e["timestamp"].as_str().expect("timestamp")))
        .collect();
    let gaps: Vec<usize> = (1..times.len())
        .filter(|&i| times[i] - times[i - 1] > 30 * 60)
        .collect();
    assert_eq!(gaps, [13]);

    assert_eq!(
        ids_and_indices(&assembly),
        [
            (
                "auto:dev:maria.k/repo:payments-service/2026-11-18T14:02:10Z".to_owned(),
                "actor_context_gap".to_owned(),
                (0..13).collect::<Vec<u64>>(),
            ),
            (
                "auto:dev:maria.k/repo:payments-service/2026-11-18T15:41:30Z".to_owned(),
                "actor_context_gap".to_owned(),
                (13..18).collect(),
            ),
        ]
    );
    let second = &assembly["conversations"][1];
    assert_eq!(second["started_at"], events[13]["timestamp"]);
    assert_eq!(
        assembly["conversations"][0]["ended_at"],
        events[12]["timestamp"]
    );
    assert_eq!(
        second["human_actor_ids"],
        serde_json::json!(["dev:maria.k"])
    );
}

#[test]
fn conversations_of_support_example_follow_conversation_ids() {
    let (_, assembly) = conversations_of("support-refund-goes-wrong.json");
    assert_eq!(assembly["human_turn_count"], 11);
    assert_eq!(
        ids_and_indices(&assembly),
        [
            (
                "zd-48213".to_owned(),
                "conversation_id".to_owned(),
                (0..17).collect::<Vec<u64>>(),
            ),
            (
                "zd-48230".to_owned(),
                "conversation_id".to_owned(),
                (17..20).collect(),
            ),
        ]
    );
}

#[test]
fn conversations_of_tutor_example_follow_metadata_conversation_id() {
    let (_, assembly) = conversations_of("tutor-fractions.json");
    assert_eq!(assembly["human_turn_count"], 8);
    assert_eq!(
        ids_and_indices(&assembly),
        [(
            "lesson-2291".to_owned(),
            "metadata_conversation_id".to_owned(),
            (0..15).collect::<Vec<u64>>(),
        )]
    );
}

// ---------------------------------------------------------------------------
// closed output pipe

/// Runs `subcommand -` with stdout's read end closed before any input is sent.
fn run_into_closed_pipe(subcommand: &str, input: &[u8]) -> Run {
    let mut child = undertone()
        .args([subcommand, "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary starts");
    drop(child.stdout.take());
    let mut pipe = child.stdin.take().expect("stdin is piped");
    write_ignoring_closed_pipe(&mut pipe, input);
    drop(pipe);
    let out = child.wait_with_output().expect("binary runs");
    let run = Run {
        code: out.status.code(),
        stdout: text(out.stdout, "stdout"),
        stderr: text(out.stderr, "stderr"),
    };
    assert_no_panic(&run);
    run
}

#[test]
fn conversations_into_a_closed_pipe_exits_quietly() {
    let input = fs::read(example("coding-assistant-goes-well.json")).expect("example");
    let out = run_into_closed_pipe("conversations", &input);
    assert_eq!(out.stderr, "");
    assert_eq!(out.code, Some(0), "{out:?}");
}

#[test]
fn validate_into_a_closed_pipe_exits_quietly() {
    let input = fs::read(example("tutor-fractions.json")).expect("example");
    let out = run_into_closed_pipe("validate", &input);
    assert_eq!(out.stderr, "");
    assert_eq!(out.code, Some(0), "{out:?}");
}

// ---------------------------------------------------------------------------
// command line

#[test]
fn unknown_subcommand_is_a_usage_error() {
    let out = run(["frobnicate"], None);
    assert_eq!(
        out.stderr,
        "error: unrecognized subcommand 'frobnicate'\n\nUsage: undertone <COMMAND>\n\n\
         For more information, try '--help'.\n"
    );
    assert_eq!(out.stdout, "");
    assert_eq!(out.code, Some(2));
}

#[test]
fn missing_file_argument_is_a_usage_error() {
    let out = run(["validate"], None);
    assert_eq!(
        out.stderr,
        "error: the following required arguments were not provided:\n  <FILE>\n\n\
         Usage: undertone validate <FILE>\n\nFor more information, try '--help'.\n"
    );
    assert_eq!(out.stdout, "");
    assert_eq!(out.code, Some(2));
}

#[test]
fn unknown_format_is_a_usage_error() {
    let out = run(["validate", "--format", "yaml", "x.json"], None);
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
fn version_flag_prints_the_version() {
    let out = run(["--version"], None);
    assert_ok_line(&out, &format!("undertone {}", env!("CARGO_PKG_VERSION")));
}

#[test]
fn help_lists_both_subcommands() {
    let out = run(["--help"], None);
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
            "  help           Print this message or the help of the given subcommand(s)",
        ]
    );
}
