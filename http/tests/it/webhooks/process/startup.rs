//! A bad retry schedule stops `serve` before it listens.

use super::*;

/// Runs `undertone serve` to its exit (at most `START_TIMEOUT`; killed otherwise);
/// returns its status, stdout and stderr.
fn run_to_exit(mut command: Command) -> (ExitStatus, String, String) {
    let mut child = command.spawn().expect("undertone serve starts");
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let mut stderr = child.stderr.take().expect("stderr is piped");
    let out = thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err = thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let deadline = Instant::now() + START_TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait().expect("the process can be polled") {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "undertone serve did not exit within {START_TIMEOUT:?}; stderr:\n{}",
                err.join().unwrap_or_default()
            );
        }
        thread::sleep(Duration::from_millis(20));
    };
    (
        status,
        out.join().unwrap_or_default(),
        err.join().unwrap_or_default(),
    )
}

/// `--webhook-retry-schedule x`, or `UNDERTONE_WEBHOOK_RETRY_SCHEDULE=x`, makes
/// `serve` exit non-zero with a message naming the schedule, before it listens or
/// prints a key; the same command with a valid schedule does listen.
#[test]
fn a_bad_retry_schedule_stops_serve_before_it_listens() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let url = database_url(dir.path());

    let mut flag = serve_command(&url, &["--webhook-retry-schedule", "x"]);
    flag.env("RUST_LOG", "off");
    let mut env = serve_command(&url, &[]);
    env.env("UNDERTONE_WEBHOOK_RETRY_SCHEDULE", "x");
    let mut empty_item = serve_command(&url, &["--webhook-retry-schedule", "0,,5"]);
    empty_item.env("RUST_LOG", "off");
    for (how, command) in [
        ("--webhook-retry-schedule x", flag),
        ("UNDERTONE_WEBHOOK_RETRY_SCHEDULE=x", env),
        ("--webhook-retry-schedule 0,,5", empty_item),
    ] {
        let (status, stdout, stderr) = run_to_exit(command);
        eprintln!("{how}: {status}; stderr: {}", stderr.trim());
        assert!(
            !status.success(),
            "{how}: exit {status}; stdout:\n{stdout}\nstderr:\n{stderr}"
        );
        assert!(
            status.code().is_some(),
            "{how}: killed by a signal: {status}"
        );
        let message = stderr.to_lowercase();
        assert!(
            message.contains("retry schedule") || message.contains("retry-schedule"),
            "{how}: the message does not name the schedule:\n{stderr}"
        );
        assert!(
            !stdout.contains("listening") && !stdout.contains("ut_live_"),
            "{how}: the server started before refusing the schedule:\n{stdout}"
        );
    }

    // The control: the same command with a valid schedule (flag and variable) starts.
    let server = start(&url, &["--webhook-retry-schedule", "0,0.5,1.5"]);
    assert!(server.key.is_some(), "the database was empty until now");
    drop(server);
    let mut env_ok = serve_command(&url, &[]);
    env_ok.env("UNDERTONE_WEBHOOK_RETRY_SCHEDULE", "0,1");
    let server = Server::spawn(env_ok);
    assert_eq!(
        server.key, None,
        "a key is printed only for an empty database"
    );
}
