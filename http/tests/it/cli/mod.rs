//! The `undertone` binary, run as a process: exit status and exact output.
//!
//! This file holds what the tests share: running the binary, temporary files,
//! the examples, and the assertions on a run's exit status and output.

mod conversations;
mod deployment_id;
mod drift;
mod import;
mod json_lines;
mod keys;
mod limits;
mod score;
mod unreadable;
mod usage;
mod validate;
mod vectors;
mod webhooks;

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::thread;

use serde_json::Value;
use tempfile::TempDir;

/// What one run of the binary produced.
#[derive(Debug)]
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    /// A run whose output shows no panic.
    fn checked(code: Option<i32>, stdout: String, stderr: String) -> Run {
        let run = Run {
            code,
            stdout,
            stderr,
        };
        assert_no_panic(&run);
        run
    }

    fn from_output(out: Output) -> Run {
        Run::checked(
            out.status.code(),
            text(out.stdout, "stdout"),
            text(out.stderr, "stderr"),
        )
    }
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

fn events_of(request: &Value) -> &Vec<Value> {
    request["events"].as_array().expect("events is an array")
}

fn text(bytes: Vec<u8>, stream: &str) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| panic!("{stream} is not UTF-8: {e}"))
}

/// Runs the binary with `args`, then `file` (if any) as the last argument,
/// feeding `stdin` (or nothing) on standard input.
fn run(args: &[&str], file: Option<&Path>, stdin: Option<Vec<u8>>) -> Run {
    let mut cmd = undertone();
    cmd.args(args);
    if let Some(file) = file {
        cmd.arg(file);
    }
    cmd.stdout(Stdio::piped())
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
    Run::from_output(out)
}

/// The binary started with `args`, its standard input, output and error piped.
fn spawn_piped(args: &[&str]) -> Child {
    undertone()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary starts")
}

/// Runs `args` with `head` and then `tail_len` zero bytes on standard input, written in
/// 64 KiB pieces until the binary stops reading; also returns how many bytes it took
/// before the pipe closed.
fn run_on_stream(args: &[&str], head: &[u8], tail_len: usize) -> (Run, usize) {
    let mut child = spawn_piped(args);
    let mut pipe = child.stdin.take().expect("stdin is piped");
    let head = head.to_vec();
    let writer = thread::spawn(move || {
        let piece = vec![0u8; 64 * 1024];
        let pieces = std::iter::once(&head[..])
            .chain(std::iter::repeat_n(&piece[..], tail_len / piece.len()));
        let mut written = 0;
        for p in pieces {
            match pipe.write_all(p) {
                Ok(()) => written += p.len(),
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => break,
                Err(e) => panic!("cannot write to the child's stdin: {e}"),
            }
        }
        written
    });
    let out = child.wait_with_output().expect("binary runs");
    let written = writer.join().expect("the writer does not panic");
    (Run::from_output(out), written)
}

/// Writes `bytes`; the child may stop reading early (that is what the size limit is for).
fn write_ignoring_closed_pipe(pipe: &mut impl Write, bytes: &[u8]) {
    match pipe.write_all(bytes) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
        Err(e) => panic!("cannot write to the child's stdin: {e}"),
    }
}

/// Writes `name` with `bytes` into a fresh temporary directory.
fn temp_file(name: &str, bytes: &[u8]) -> (TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join(name);
    fs::write(&path, bytes).expect("temporary file is writable");
    (dir, path)
}

/// Runs `validate` on a temporary file `name` holding `bytes`; also returns its path.
fn validate_file(name: &str, bytes: &[u8]) -> (Run, String) {
    let (_dir, path) = temp_file(name, bytes);
    let out = run(&["validate"], Some(&path), None);
    (out, path.display().to_string())
}

/// The stderr of `validate` for a file that breaks the contract in `lines`.
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

/// Exit 2, nothing on stdout, and the contract violations `lines` of `path` on stderr.
fn assert_violations(run: &Run, path: &Path, lines: &[&str]) {
    assert_eq!(run.stderr, violations_text(path, lines), "{run:?}");
    assert_eq!(run.stdout, "", "{run:?}");
    assert_eq!(run.code, Some(2), "{run:?}");
}

/// Exit 0, nothing on stderr, and JSON on stdout, which is returned.
fn assert_json_output(run: &Run) -> Value {
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stderr, "");
    serde_json::from_str(&run.stdout).expect("stdout is JSON")
}

/// Exit 2, nothing on stderr, and a `VALIDATION_ERROR` envelope on stdout, which is returned.
fn assert_error_envelope(run: &Run) -> Value {
    assert_eq!(run.code, Some(2));
    assert_eq!(run.stderr, "");
    let envelope: Value = serde_json::from_str(&run.stdout).expect("stdout is JSON");
    assert_eq!(envelope["error"]["code"], "VALIDATION_ERROR");
    envelope
}

/// `validate` and `conversations` with `--deployment-id acme` on `path`:
/// `validate` prints `ok_line`, and the assembly, which is returned, is for `acme`.
fn validate_and_assemble_for_acme(path: &Path, ok_line: &str) -> Value {
    let out = run(&["validate", "--deployment-id", "acme"], Some(path), None);
    assert_ok_line(&out, ok_line);

    let out = run(
        &["conversations", "--deployment-id", "acme"],
        Some(path),
        None,
    );
    let assembly = assert_json_output(&out);
    assert_eq!(assembly["deployment_id"], "acme");
    assembly
}
