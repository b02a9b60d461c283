//! The 16 MiB input size limit, for files and for standard input.

use std::fs;
use std::io::Read;
use std::process::Child;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use super::{
    Run, assert_ok_line, assert_one_line_error, example, run, spawn_piped, text, validate_file,
    write_ignoring_closed_pipe,
};

/// The input size limit, in bytes (16 MiB).
const LIMIT: usize = 16 * 1024 * 1024;

/// What `validate -` says when standard input is over the limit.
const STDIN_OVER_LIMIT: &str = "error: standard input is over the limit of 16777216 bytes (16 MiB)";

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
    let out = run(&["validate", "-"], None, Some(vec![b' '; LIMIT + 1]));
    assert_one_line_error(&out, STDIN_OVER_LIMIT);
}

#[test]
fn stdin_far_over_the_limit_is_refused() {
    // 32 MiB of what could be a JSON array: the binary stops reading after the limit;
    // the writer sees a closed pipe. (A first byte that cannot begin JSON stops it at
    // once: `unreadable.rs`.)
    let mut body = vec![b' '; 2 * LIMIT];
    body[0] = b'[';
    let out = run(&["validate", "-"], None, Some(body));
    assert_one_line_error(&out, STDIN_OVER_LIMIT);
}

#[test]
fn stdin_over_the_limit_is_refused_without_waiting_for_eof() {
    let mut child = spawn_piped(&["validate", "-"]);
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
    let out = Run::checked(
        code,
        read_all(child.stdout.take()),
        read_all(child.stderr.take()),
    );
    assert_one_line_error(&out, STDIN_OVER_LIMIT);
}

#[test]
fn stdin_at_the_limit_is_accepted() {
    let mut bytes = fs::read(example("tutor-fractions.json")).expect("example is readable");
    assert!(bytes.len() < LIMIT);
    bytes.resize(LIMIT, b'\n');
    let out = run(&["validate", "-"], None, Some(bytes));
    assert_ok_line(&out, "ok: 15 events, 1 conversation (8 human turns)");
}
