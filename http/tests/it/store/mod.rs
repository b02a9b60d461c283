//! The store conformance suite: the same assertions against SQLite and PostgreSQL.
//!
//! Each check is an `async fn(Arc<Store>)` written once; `conformance!` runs it
//! as `store::sqlite::<check>` on a fresh SQLite file and as `store::postgres::<check>`
//! on a fresh PostgreSQL database (skipped, with the reason printed, when no server is
//! configured; see `crate::pg`). A check that passes on one backend only is a bug in
//! the other store, not in the check.
//!
//! Times are whole milliseconds (both stores keep times to the millisecond) from a
//! fixed instant, so stored values can be compared with `==`.

mod claims;
mod concurrency;
mod deliveries;
mod history;
mod keys_limits;
mod queue;
mod webhooks;

use std::sync::Arc;

use chrono::{DateTime, Utc};
use undertone_core::monitor::ConversationPoint;
use undertone_core::score::layer_z::ByDimension;
use undertone_http::keys::{self, Scope};
use undertone_http::limits::Plan;
use undertone_http::store::{
    self, KeyRecord, NewEvent, NewSession, SessionKind, Store, Targets, WebhookRecord,
};

/// 2026-11-18T11:06:40.123Z in unix milliseconds: mid-hour and mid-day, so an hour
/// later is still the same UTC day.
const T0: i64 = 1_795_000_000_123;

/// The organisation most checks work in.
const ORG: &str = "org_a";

/// `T0 + offset_ms` as a time.
fn at(offset_ms: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(T0 + offset_ms).expect("a representable time")
}

/// A key of `org` with a fresh random secret, created `offset_ms` after [`T0`].
fn key(id: &str, org: &str, plan: Plan, offset_ms: i64) -> KeyRecord {
    let new = keys::generate();
    KeyRecord {
        id: id.to_owned(),
        org_id: org.to_owned(),
        name: format!("{id} name"),
        scope: Scope::ReadWrite,
        digest: new.digest.to_vec(),
        display_prefix: new.display,
        delivery_secret: keys::generate_secret(),
        plan,
        created_at: at(offset_ms),
        revoked_at: None,
    }
}

/// Stores a key of [`ORG`] with the default plan and returns it.
async fn stored_key(store: &Store, id: &str) -> KeyRecord {
    let record = key(id, ORG, Plan::default(), 0);
    store.create_key(&record).await.expect("create_key");
    record
}

/// An ingest session of `key` for `deployment`, accepted `offset_ms` after [`T0`].
fn ingest(id: &str, key: &KeyRecord, deployment: Option<&str>, offset_ms: i64) -> NewSession {
    NewSession {
        id: id.to_owned(),
        kind: SessionKind::Ingest,
        org_id: key.org_id.clone(),
        key_id: key.id.clone(),
        deployment_id: deployment.map(str::to_owned),
        event_count: 3,
        webhook_url: None,
        labels: None,
        body: format!(r#"{{"session":"{id}","events":[1,2,3]}}"#).into_bytes(),
        created_at: at(offset_ms),
        idempotency: None,
    }
}

/// An endpoint of `key` subscribed to `events` (sorted, as stored), registered
/// `offset_ms` after [`T0`].
fn webhook(id: &str, key: &KeyRecord, events: &[&str], offset_ms: i64) -> WebhookRecord {
    let mut events: Vec<String> = events.iter().map(|&e| e.to_owned()).collect();
    events.sort();
    WebhookRecord {
        id: id.to_owned(),
        org_id: key.org_id.clone(),
        key_id: key.id.clone(),
        url: format!("https://hooks.example/{id}"),
        secret: keys::generate_secret(),
        events,
        created_at: at(offset_ms),
        last_delivery_at: None,
        failure_count: 0,
        disabled: None,
    }
}

/// An event of [`ORG`]'s `deployment` created `offset_ms` after [`T0`], with a body
/// that names it.
fn event(id: &str, kind: &str, deployment: &str, targets: Targets, offset_ms: i64) -> NewEvent {
    NewEvent {
        id: id.to_owned(),
        kind: kind.to_owned(),
        org_id: ORG.to_owned(),
        deployment_id: deployment.to_owned(),
        created_at: at(offset_ms),
        body: format!(r#"{{"id":"{id}","event_type":"{kind}"}}"#).into_bytes(),
        targets,
    }
}

/// A scored conversation that started `offset_ms` after [`T0`]; `x` sets its scores
/// (each one different, none a round binary fraction).
fn point(conversation: &str, offset_ms: i64, x: f64) -> ConversationPoint {
    ConversationPoint {
        conversation_id: conversation.to_owned(),
        started_at: at(offset_ms),
        human_turns: 4,
        resolved: x < 0.5,
        abandoned: x >= 0.5,
        release: Some(format!("v{x}")),
        scores: ByDimension {
            trust_calibration: x,
            frustration_buildup: x / 3.0,
            dependency_drift: x / 7.0,
            silent_abandonment_risk: 1.0 - x,
            escalation_friction: x * x,
            comprehension_gap: 0.1 + x / 11.0,
        },
    }
}

/// Opens a store on a fresh SQLite file and runs `check` on it.
async fn on_sqlite<F, Fut>(check: F)
where
    F: FnOnce(Arc<Store>) -> Fut,
    Fut: Future<Output = ()>,
{
    let dir = tempfile::tempdir().expect("a temporary directory");
    let url = format!("sqlite://{}/t.db", dir.path().display());
    let store = store::open(&url).await.expect("the SQLite store opens");
    check(store).await;
    // `dir` outlives the store, which `check` consumed.
    drop(dir);
}

/// Opens a store on a fresh PostgreSQL database and runs `check` on it; returns at
/// once when there is no server to test on.
async fn on_postgres<F, Fut>(check: F)
where
    F: FnOnce(Arc<Store>) -> Fut,
    Fut: Future<Output = ()>,
{
    let Some(database) = crate::pg::database() else {
        return;
    };
    let store = store::open(&database.url)
        .await
        .expect("the PostgreSQL store opens");
    check(store).await;
    // The store (and its pool) is gone before the database is dropped.
    drop(database);
}

/// Generates `sqlite::<check>` and `postgres::<check>` tests from `file::check`.
macro_rules! conformance {
    ($($file:ident::$check:ident),+ $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $check() {
                    super::on_sqlite(super::$file::$check).await;
                }
            )+
        }

        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $check() {
                    super::on_postgres(super::$file::$check).await;
                }
            )+
        }
    };
}

conformance! {
    history::purge_deletes_only_what_is_older_than_the_window,
    history::a_deployment_keeps_only_its_newest_deploy_markers,
    history::deployments_are_listed_by_id_from_a_cursor,
    keys_limits::keys_are_listed_found_and_revoked,
    keys_limits::the_first_key_is_created_once,
    keys_limits::charge_admits_the_hourly_limit_then_refuses,
    keys_limits::a_refused_charge_spends_nothing_in_any_window,
    queue::enqueue_writes_the_session_and_its_job,
    queue::a_full_queue_writes_and_counts_nothing,
    queue::a_rate_limited_enqueue_writes_and_counts_nothing,
    queue::a_key_holds_at_most_its_share_of_the_queue,
    queue::an_idempotency_key_starts_one_session_per_api_key,
    queue::a_purged_session_frees_its_idempotency_key,
    claims::claim_leases_the_oldest_job,
    claims::finish_completes_the_session_and_removes_its_job,
    claims::finish_records_a_failure,
    claims::a_stale_finish_writes_nothing,
    claims::release_gives_the_job_back_uncounted,
    claims::a_renewed_lease_keeps_the_job_claimed,
    claims::expired_leases_requeue_then_fail,
    webhooks::webhooks_are_created_listed_and_deleted,
    deliveries::emit_queues_one_delivery_per_target_once,
    webhooks::revoking_a_key_stops_its_endpoints_at_once,
    webhooks::an_endpoint_failing_long_enough_is_disabled,
    deliveries::delivery_claims_are_fair_across_endpoints,
    deliveries::a_free_slot_goes_to_the_endpoint_with_least_in_flight,
    deliveries::claimed_deliveries_are_leased,
    deliveries::finishing_a_delivery_records_the_attempt,
    deliveries::deliveries_page_newest_first,
    history::finish_writes_history_deploys_and_events,
    history::history_and_active_deployments_cover_half_open_ranges,
    history::create_deploy_keeps_the_first_record,
    history::reports_are_saved_once_and_listed_newest_first,
    concurrency::racing_first_keys_make_exactly_one,
    concurrency::concurrent_charges_admit_exactly_the_limit,
    concurrency::concurrent_enqueues_count_each_accepted_session_once,
    concurrency::concurrent_repeats_of_one_idempotency_key_start_one_session,
    concurrency::concurrent_claimers_take_each_job_once,
    concurrency::concurrent_claimers_reap_each_expired_lease_once,
    concurrency::concurrent_emits_queue_each_delivery_once,
    concurrency::concurrent_webhook_creates_stop_at_the_cap,
    concurrency::concurrent_creates_of_one_url_store_one_endpoint,
    concurrency::concurrent_delivery_claimers_take_each_once,
    concurrency::racing_reports_are_saved_once,
    concurrency::concurrent_finishes_sharing_conversations_all_commit,
    concurrency::deleting_webhooks_while_attempts_finish_never_deadlocks,
}

/// The SQLite file and the `-wal` and `-shm` files beside it are readable by their
/// owner only: they hold conversations.
#[cfg(unix)]
#[tokio::test]
async fn the_sqlite_files_are_created_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("private.db");
    let store = store::open(&format!("sqlite://{}", path.display()))
        .await
        .expect("opens");
    // A write, so that the WAL and its index exist.
    stored_key(&store, "key_p").await;
    for suffix in ["", "-wal", "-shm"] {
        let file = format!("{}{suffix}", path.display());
        let mode = std::fs::metadata(&file)
            .unwrap_or_else(|e| panic!("{file}: {e}"))
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{file}: {:o}", mode & 0o777);
    }
}
