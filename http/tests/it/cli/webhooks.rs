//! `undertone webhooks list|delete`: the operator sees and removes every endpoint of
//! the database, whichever key registered it, revoked or not.

use chrono::Utc;
use tempfile::TempDir;
use undertone_http::keys;
use undertone_http::store::{self, WebhookRecord};

use super::run;

/// The value after `label:` in `keys create` output.
fn field<'a>(stdout: &'a str, label: &str) -> &'a str {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix(label))
        .map(str::trim)
        .unwrap_or_else(|| panic!("no {label} in {stdout}"))
}

/// Registers an endpoint for `key_id` straight in the database, as the API would.
fn register(db: &str, key_id: &str, id: &str, url: &str) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let store = store::open(db).await.expect("database opens");
        let record = WebhookRecord {
            id: id.to_owned(),
            org_id: "default".to_owned(),
            key_id: key_id.to_owned(),
            url: url.to_owned(),
            secret: keys::generate_secret(),
            events: vec!["anomaly_detected".to_owned()],
            created_at: Utc::now(),
            last_delivery_at: None,
            failure_count: 0,
            disabled: None,
        };
        store
            .create_webhook(&record, 20)
            .await
            .expect("create_webhook");
    });
}

/// The rows of `webhooks list`, split into cells (the header dropped).
fn rows(db: &str) -> Vec<Vec<String>> {
    let listed = run(&["webhooks", "list", "--database", db], None, None);
    assert_eq!(listed.code, Some(0), "{listed:?}");
    assert!(listed.stdout.starts_with("id "), "{}", listed.stdout);
    listed
        .stdout
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().map(str::to_owned).collect())
        .collect()
}

#[test]
fn the_operator_lists_and_deletes_any_keys_webhooks() {
    let dir = TempDir::new().unwrap();
    let db = format!("sqlite://{}/hooks.db", dir.path().display());
    let created = run(
        &[
            "keys",
            "create",
            "--name",
            "ci",
            "--scope",
            "read-write",
            "--database",
            &db,
        ],
        None,
        None,
    );
    assert_eq!(created.code, Some(0), "{created:?}");
    let key_id = field(&created.stdout, "id:").to_owned();
    let hook = "wh_0123456789abcdef0123456789abcdef";
    register(&db, &key_id, hook, "https://hooks.example/in?token=s3cret");

    let listed = rows(&db);
    assert_eq!(listed.len(), 1);
    let row = &listed[0];
    assert_eq!(
        (
            row[0].as_str(),
            row[1].as_str(),
            row[2].as_str(),
            row[3].as_str(),
            row[4].as_str()
        ),
        (hook, "default", key_id.as_str(), "active", "0")
    );
    // The URL without its query string, which may hold a credential.
    assert_eq!(row[6], "https://hooks.example/in?…");

    let revoked = run(&["keys", "revoke", &key_id, "--database", &db], None, None);
    assert_eq!(revoked.code, Some(0), "{revoked:?}");
    assert_eq!(rows(&db)[0][3], "revoked");

    let deleted = run(&["webhooks", "delete", hook, "--database", &db], None, None);
    assert_eq!(deleted.code, Some(0), "{deleted:?}");
    assert_eq!(deleted.stdout, format!("deleted {hook}\n"));
    assert!(rows(&db).is_empty());
    let again = run(&["webhooks", "delete", hook, "--database", &db], None, None);
    assert_eq!(again.code, Some(2), "{again:?}");
    assert_eq!(
        again.stderr,
        format!("error: no active webhook with id {hook}\n")
    );
}
