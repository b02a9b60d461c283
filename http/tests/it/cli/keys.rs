//! `undertone keys create|list|revoke` against a database file.

use tempfile::TempDir;

use super::run;

fn database(dir: &TempDir) -> String {
    format!("sqlite://{}/keys.db", dir.path().display())
}

/// The value after `label:` in `keys create` output.
fn field<'a>(stdout: &'a str, label: &str) -> &'a str {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix(label))
        .map(str::trim)
        .unwrap_or_else(|| panic!("no {label} in {stdout}"))
}

#[test]
fn create_list_and_revoke_a_key() {
    let dir = TempDir::new().unwrap();
    let db = database(&dir);
    let created = run(
        &[
            "keys",
            "create",
            "--name",
            "ci",
            "--scope",
            "read-only",
            "--database",
            &db,
        ],
        None,
        None,
    );
    assert_eq!(created.code, Some(0), "{created:?}");
    assert_eq!(
        created.stderr,
        "The key and the delivery secret are shown only this once.\n"
    );
    let id = field(&created.stdout, "id:");
    let key = field(&created.stdout, "key:");
    assert!(id.starts_with("key_") && id.len() == 36, "{id}");
    assert!(key.starts_with("ut_live_") && key.len() == 46, "{key}");
    assert_eq!(field(&created.stdout, "scope:"), "read-only");
    assert_eq!(field(&created.stdout, "name:"), "ci");
    assert!(field(&created.stdout, "delivery secret:").starts_with("whsec_"));

    let listed = run(&["keys", "list", "--database", &db], None, None);
    assert_eq!(listed.code, Some(0), "{listed:?}");
    let rows: Vec<&str> = listed.stdout.lines().collect();
    assert_eq!(rows.len(), 2, "{}", listed.stdout);
    let cells: Vec<&str> = rows[1].split_whitespace().collect();
    assert_eq!(cells[0], id);
    assert_eq!(cells[1], "ci");
    assert_eq!(cells[2], "read-only");
    assert_eq!(cells[3], format!("{}…", &key[..12]));
    assert_eq!(cells[5], "-", "not revoked yet");
    assert!(
        !listed.stdout.contains(key),
        "the list never shows a whole key"
    );

    let revoked = run(&["keys", "revoke", id, "--database", &db], None, None);
    assert_eq!(revoked.code, Some(0), "{revoked:?}");
    assert_eq!(revoked.stdout, format!("revoked {id}\n"));
    let listed = run(&["keys", "list", "--database", &db], None, None);
    let cells: Vec<String> = listed
        .stdout
        .lines()
        .nth(1)
        .unwrap()
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    assert!(
        cells[5].ends_with('Z') && cells[5].len() == 20,
        "revoked at: {}",
        cells[5]
    );

    // Revoking twice, or an unknown id, is an error.
    let again = run(&["keys", "revoke", id, "--database", &db], None, None);
    assert_eq!(again.code, Some(2));
    assert_eq!(again.stderr, format!("error: no active key with id {id}\n"));
}

#[test]
fn an_unsupported_database_url_is_a_clear_error() {
    let out = run(
        &["keys", "list", "--database", "mysql://localhost/u"],
        None,
        None,
    );
    assert_eq!(out.code, Some(1));
    assert_eq!(
        out.stderr,
        "error: cannot open the database mysql://localhost/u: unsupported database URL \
         `mysql://localhost/u`: expected sqlite://PATH or postgres://…\n"
    );
}

#[test]
fn an_unreachable_postgres_server_is_a_clear_error_without_the_password() {
    // Port 1 on the loopback address: nothing listens, the connection is refused.
    let url = "postgres://undertone:s3cret-pw@127.0.0.1:1/undertone";
    let out = run(&["keys", "list", "--database", url], None, None);
    assert_eq!(out.code, Some(1));
    assert!(
        out.stderr.starts_with(
            "error: cannot open the database postgres://undertone:***@127.0.0.1:1/undertone: \
             database error: "
        ),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("s3cret-pw"), "{}", out.stderr);

    // The same URL from UNDERTONE_DATABASE_URL (kept out of the process list).
    let from_env = super::undertone()
        .args(["keys", "list"])
        .env("UNDERTONE_DATABASE_URL", url)
        .output()
        .expect("binary runs");
    assert_eq!(from_env.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&from_env.stderr), out.stderr);
}

#[test]
fn a_key_needs_a_name_an_organisation_and_limits_above_zero() {
    let dir = TempDir::new().unwrap();
    let db = database(&dir);
    for (flag, value, why) in [
        ("--name", "", "must not be empty or only spaces"),
        ("--name", "  ", "must not be empty or only spaces"),
        ("--name", "a\u{7}b", "must not hold control characters"),
        ("--org", "", "must not be empty or only spaces"),
        ("--per-hour", "0", "0 is not in 1..=4294967295"),
        ("--per-day", "0", "0 is not in 1..=4294967295"),
        ("--drift-per-hour", "0", "0 is not in 1..=4294967295"),
    ] {
        let mut args = vec!["keys", "create", "--scope", "read-only", "--database", &db];
        if flag != "--name" {
            args.extend(["--name", "ci"]);
        }
        args.extend([flag, value]);
        let out = run(&args, None, None);
        assert_eq!(out.code, Some(2), "{flag} {value:?}: {out:?}");
        // (Clap leaves a control character out when it quotes the value.)
        assert!(out.stderr.contains(&format!("' for '{flag} <")), "{out:?}");
        assert!(out.stderr.contains(why), "{out:?}");
    }
    // Nothing was made.
    let listed = run(&["keys", "list", "--database", &db], None, None);
    assert_eq!(listed.stdout.lines().count(), 1, "{listed:?}");
}
