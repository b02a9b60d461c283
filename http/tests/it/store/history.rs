//! What webhook events are computed from: finishing a job writes its history rows,
//! deploy markers, measurements and events in one go; history and active deployments
//! cover `[from, to)`; a deploy marker is recorded once; a health report is saved
//! once, with its event, and listed newest first.

use std::collections::BTreeSet;
use std::sync::Arc;
use undertone_http::webhooks::emit::failure_effects;

use undertone_core::monitor::ConversationPoint;
use undertone_http::store::{
    AttemptRecord, DeployRecord, Effects, KeyRecord, Measured, NewDeploy, NextStep, Outcome,
    Purged, QueueLimit, ReportRecord, Store, Targets,
};

use super::{ORG, T0, at, event, ingest, key, point, stored_key, webhook};

/// An hour in milliseconds.
const HOUR: i64 = 3_600_000;
/// A day in milliseconds.
const DAY: i64 = 24 * HOUR;
/// The kind of an outcome shift.
const SHIFT: &str = "outcome_shift_detected";
/// The kind of a health report.
pub(super) const UHR: &str = "uhr_generated";

/// Enqueues a session of `key` for `deployment`, claims it and finishes it with
/// `effects` at `T0 + offset_ms`.
async fn finish_with(
    store: &Store,
    key: &KeyRecord,
    session: &str,
    deployment: &str,
    effects: &Effects,
    offset_ms: i64,
) {
    store
        .enqueue(
            &ingest(session, key, Some(deployment), offset_ms),
            QueueLimit::total(100),
            None,
        )
        .await
        .expect("enqueue");
    let (job, _) = store
        .claim(T0 + offset_ms, 30_000, 3, &failure_effects)
        .await
        .expect("claim");
    let job = job.expect("the session's job");
    assert_eq!(job.session_id, session);
    let outcome = Outcome::Complete {
        environment_type: None,
        plain_summary: "done".to_owned(),
        plain_recommendations: "[]".to_owned(),
        condensed: None,
        full_output: "{}".to_owned(),
    };
    assert!(
        store
            .finish(&job, &outcome, effects, at(offset_ms))
            .await
            .expect("finish")
    );
}

/// Finishes a session whose only effect is `points` of `deployment`.
async fn record_history(
    store: &Store,
    key: &KeyRecord,
    session: &str,
    deployment: &str,
    points: Vec<ConversationPoint>,
) {
    let effects = Effects {
        history: points,
        ..Effects::default()
    };
    finish_with(store, key, session, deployment, &effects, 0).await;
}

/// A deploy marker of [`ORG`]'s `deployment` at `T0 + at_ms`.
fn deploy(id: &str, deployment: &str, at_ms: i64, release: Option<&str>) -> NewDeploy {
    NewDeploy {
        id: id.to_owned(),
        org_id: ORG.to_owned(),
        deployment_id: deployment.to_owned(),
        release: release.map(str::to_owned),
        description: release.map(|r| format!("rolled out {r}")),
        source: if release.is_some() { "api" } else { "metadata" },
        at: at(at_ms),
        created_at: at(at_ms + 10),
    }
}

/// A deploy marker as stored before it is measured.
fn unmeasured(deploy: &NewDeploy) -> DeployRecord {
    DeployRecord {
        deploy: deploy.clone(),
        measured_at: None,
        result: None,
    }
}

/// A weekly health report of [`ORG`]'s `deployment`, generated at `T0 + offset_ms`.
pub(super) fn report(id: &str, deployment: &str, offset_ms: i64) -> ReportRecord {
    ReportRecord {
        id: id.to_owned(),
        org_id: ORG.to_owned(),
        deployment_id: deployment.to_owned(),
        period_start: at(-7 * DAY),
        period_end: at(0),
        trigger: if offset_ms == 0 {
            "schedule"
        } else {
            "request"
        }
        .to_owned(),
        created_at: at(offset_ms),
        report: format!(r#"{{"report":"{id}"}}"#),
    }
}

pub(super) async fn finish_writes_history_deploys_and_events(store: Arc<Store>) {
    let k = stored_key(&store, "key_a").await;
    store
        .create_webhook(&webhook("wh_1", &k, &["intelligence.ready", SHIFT], 0), 20)
        .await
        .expect("create_webhook");
    let marker = deploy("dep_1a", "dep_1", -DAY, Some("v1"));
    let (a, b) = (point("conv_a", 0, 0.2), point("conv_b", HOUR, 0.7));
    let first = Effects {
        history: vec![a.clone(), b.clone()],
        events: vec![event(
            "ev_ready",
            "intelligence.ready",
            "dep_1",
            Targets::Subscribers(None),
            100,
        )],
        deploys: vec![marker.clone()],
        measured: Vec::new(),
    };
    finish_with(&store, &k, "s_1", "dep_1", &first, 100).await;
    assert_eq!(
        store
            .history(ORG, "dep_1", 0, i64::MAX)
            .await
            .expect("history"),
        [a, b.clone()]
    );
    assert_eq!(
        store.deploys(ORG, "dep_1").await.expect("deploys"),
        [unmeasured(&marker)]
    );

    // conv_a again, later and scored differently: its row is replaced.
    let a_again = point("conv_a", 2 * HOUR, 0.9);
    let c = point("conv_c", -HOUR, 0.4);
    let result = r#"{"p_value":0.01}"#;
    let second = Effects {
        history: vec![a_again.clone(), c.clone()],
        events: vec![event(
            "ev_shift",
            SHIFT,
            "dep_1",
            Targets::Subscribers(None),
            200,
        )],
        // Seen again in metadata, with other details: the first record stays.
        deploys: vec![NewDeploy {
            description: Some("seen again".to_owned()),
            ..marker.clone()
        }],
        measured: vec![Measured {
            deploy_id: marker.id.clone(),
            result: result.to_owned(),
        }],
    };
    finish_with(&store, &k, "s_2", "dep_1", &second, 200).await;
    assert_eq!(
        store
            .history(ORG, "dep_1", 0, i64::MAX)
            .await
            .expect("history"),
        [c, b, a_again]
    );
    let measured = DeployRecord {
        deploy: marker.clone(),
        measured_at: Some(at(200)),
        result: Some(result.to_owned()),
    };
    assert_eq!(
        store.deploys(ORG, "dep_1").await.expect("deploys"),
        std::slice::from_ref(&measured)
    );

    // A deploy is measured once.
    let third = Effects {
        measured: vec![Measured {
            deploy_id: marker.id.clone(),
            result: r#"{"p_value":0.5}"#.to_owned(),
        }],
        ..Effects::default()
    };
    finish_with(&store, &k, "s_3", "dep_1", &third, 300).await;
    assert_eq!(
        store.deploys(ORG, "dep_1").await.expect("deploys"),
        [measured]
    );

    // Each finish queued its event, as of the finish.
    let deliveries = store
        .deliveries("wh_1", None, 10)
        .await
        .expect("deliveries");
    assert_eq!(
        deliveries
            .iter()
            .map(|d| (d.event_id.as_str(), d.event_type.as_str(), d.created_at))
            .collect::<Vec<_>>(),
        [
            ("ev_shift", SHIFT, at(200)),
            ("ev_ready", "intelligence.ready", at(100))
        ]
    );
}

pub(super) async fn history_and_active_deployments_cover_half_open_ranges(store: Arc<Store>) {
    let k = stored_key(&store, "key_a").await;
    let stranger = key("key_b", "org_b", k.plan, 0);
    store.create_key(&stranger).await.expect("create_key");
    let (p0, p1, p2) = (
        point("conv_0", 0, 0.1),
        point("conv_1", 1_000, 0.2),
        point("conv_2", 2_000, 0.3),
    );
    // Two conversations that started at the same instant: ordered by id.
    let (y, x) = (point("conv_y", 1_500, 0.6), point("conv_x", 1_500, 0.7));
    record_history(
        &store,
        &k,
        "s_1",
        "dep_1",
        vec![p2.clone(), y.clone(), p0.clone(), x.clone(), p1.clone()],
    )
    .await;
    let other_deployment = point("conv_0", 1_000, 0.8);
    record_history(&store, &k, "s_2", "dep_2", vec![other_deployment.clone()]).await;
    let other_org = point("conv_0", 500, 0.9);
    record_history(&store, &stranger, "s_3", "dep_1", vec![other_org.clone()]).await;

    let range = async |org: &str, deployment: &str, from: i64, to: i64| {
        store
            .history(org, deployment, T0 + from, T0 + to)
            .await
            .expect("history")
    };
    assert_eq!(
        range(ORG, "dep_1", 0, 2_001).await,
        [p0.clone(), p1.clone(), x.clone(), y.clone(), p2.clone()]
    );
    assert_eq!(
        range(ORG, "dep_1", 0, 2_000).await,
        [p0.clone(), p1.clone(), x.clone(), y.clone()],
        "`to` is excluded"
    );
    assert_eq!(
        range(ORG, "dep_1", 1_000, 1_500).await,
        [p1],
        "`from` is included"
    );
    assert_eq!(range(ORG, "dep_1", 2_001, 9_000).await, []);
    assert_eq!(range(ORG, "dep_2", 0, 9_000).await, [other_deployment]);
    assert_eq!(range("org_b", "dep_1", 0, 9_000).await, [other_org]);
    assert_eq!(range(ORG, "dep_9", 0, 9_000).await, []);

    let active = async |from: i64, to: i64| {
        store
            .active_deployments(T0 + from, T0 + to)
            .await
            .expect("active_deployments")
    };
    let pair = |org: &str, deployment: &str| (org.to_owned(), deployment.to_owned());
    assert_eq!(
        active(0, 9_000).await,
        [
            pair(ORG, "dep_1"),
            pair(ORG, "dep_2"),
            pair("org_b", "dep_1")
        ]
    );
    assert_eq!(active(0, 500).await, [pair(ORG, "dep_1")]);
    assert_eq!(
        active(500, 1_000).await,
        [pair("org_b", "dep_1")],
        "half-open on both ends"
    );
    assert_eq!(
        active(1_000, 1_001).await,
        [pair(ORG, "dep_1"), pair(ORG, "dep_2")]
    );
    assert_eq!(active(2_001, 9_000).await, []);
}

pub(super) async fn deployments_are_listed_by_id_from_a_cursor(store: Arc<Store>) {
    let k = stored_key(&store, "key_a").await;
    let stranger = key("key_b", "org_b", k.plan, 0);
    store.create_key(&stranger).await.expect("create_key");
    // Ids whose byte order is not their case-blind order.
    for (i, deployment) in ["dep_b", "Dep_A", "dep_a", "dep_c"].into_iter().enumerate() {
        let points = (0..=i as i64)
            .map(|c| point(&format!("conv_{c}"), 1_000 * c, 0.1))
            .collect();
        record_history(&store, &k, &format!("s_{i}"), deployment, points).await;
    }
    record_history(&store, &stranger, "s_x", "dep_0", vec![point("c", 0, 0.2)]).await;
    let list = async |after: Option<&str>, limit: u32| {
        store
            .deployments(ORG, after, limit)
            .await
            .expect("deployments")
    };
    assert_eq!(
        list(None, 10).await,
        [
            ("Dep_A".to_owned(), 2, T0 + 1_000),
            ("dep_a".to_owned(), 3, T0 + 2_000),
            ("dep_b".to_owned(), 1, T0),
            ("dep_c".to_owned(), 4, T0 + 3_000),
        ]
    );
    let ids = |rows: Vec<(String, u64, i64)>| rows.into_iter().map(|r| r.0).collect::<Vec<_>>();
    assert_eq!(ids(list(None, 2).await), ["Dep_A", "dep_a"]);
    assert_eq!(ids(list(Some("dep_a"), 2).await), ["dep_b", "dep_c"]);
    assert_eq!(ids(list(Some("dep_c"), 2).await), Vec::<String>::new());
    // A cursor that names no deployment still lists those after it.
    assert_eq!(ids(list(Some("dep_bb"), 5).await), ["dep_c"]);
}

pub(super) async fn create_deploy_keeps_the_first_record(store: Arc<Store>) {
    let kept = deploy("dep_m", "dep_1", 0, Some("v1"));
    store.create_deploy(&kept).await.expect("create_deploy");
    store
        .create_deploy(&NewDeploy {
            release: Some("v9".to_owned()),
            description: Some("replacement".to_owned()),
            at: at(5_000),
            ..kept.clone()
        })
        .await
        .expect("create_deploy");
    let earlier = deploy("dep_z", "dep_1", -HOUR, None);
    let later = deploy("dep_a", "dep_1", HOUR, Some("v2"));
    // At the same instant as `kept`: ordered by id.
    let beside = deploy("dep_c", "dep_1", 0, None);
    let elsewhere = deploy("dep_q", "dep_2", 0, Some("v1"));
    for d in [&later, &elsewhere, &beside, &earlier] {
        store.create_deploy(d).await.expect("create_deploy");
    }
    assert_eq!(
        store.deploys(ORG, "dep_1").await.expect("deploys"),
        [
            unmeasured(&earlier),
            unmeasured(&beside),
            unmeasured(&kept),
            unmeasured(&later)
        ]
    );
    assert_eq!(
        store.deploys(ORG, "dep_2").await.expect("deploys"),
        [unmeasured(&elsewhere)]
    );
    assert_eq!(store.deploys("org_b", "dep_1").await.expect("deploys"), []);
}

pub(super) async fn reports_are_saved_once_and_listed_newest_first(store: Arc<Store>) {
    let k = stored_key(&store, "key_a").await;
    store
        .create_webhook(&webhook("wh_1", &k, &[UHR], 0), 20)
        .await
        .expect("create_webhook");
    let uhr_event =
        |id: &str, deployment: &str| event(id, UHR, deployment, Targets::Subscribers(None), 0);
    let delivered = async || {
        store
            .deliveries("wh_1", None, 100)
            .await
            .expect("deliveries")
            .into_iter()
            .map(|d| d.event_id)
            .collect::<Vec<_>>()
    };

    let first = report("uhr_1", "dep_1", 0);
    assert!(
        store
            .save_report(&first, &uhr_event("ev_1", "dep_1"), at(0))
            .await
            .expect("save_report")
    );
    assert_eq!(delivered().await, ["ev_1"]);

    // The same id again, with another body and another event: nothing is written.
    let duplicate = ReportRecord {
        report: r#"{"report":"changed"}"#.to_owned(),
        ..first.clone()
    };
    assert!(
        !store
            .save_report(&duplicate, &uhr_event("ev_1b", "dep_1"), at(10))
            .await
            .expect("save_report")
    );
    assert!(
        !store
            .save_report(&first, &uhr_event("ev_1", "dep_1"), at(20))
            .await
            .expect("save_report")
    );
    assert_eq!(delivered().await, ["ev_1"], "the event is emitted once");
    assert_eq!(
        store.report(ORG, "dep_1", "uhr_1").await.expect("report"),
        Some(first.clone())
    );

    let newest = report("uhr_2", "dep_1", 5_000);
    // Generated at the same instant as `newest`: ordered by id, larger first.
    let beside = report("uhr_0", "dep_1", 5_000);
    let elsewhere = report("uhr_3", "dep_2", 6_000);
    for (r, e) in [(&newest, "ev_2"), (&beside, "ev_0"), (&elsewhere, "ev_3")] {
        assert!(
            store
                .save_report(r, &uhr_event(e, &r.deployment_id), r.created_at)
                .await
                .expect("save_report")
        );
    }
    assert_eq!(
        store.reports(ORG, "dep_1").await.expect("reports"),
        [newest.clone(), beside, first]
    );
    assert_eq!(
        store.reports(ORG, "dep_2").await.expect("reports"),
        [elsewhere]
    );
    assert_eq!(store.reports("org_b", "dep_1").await.expect("reports"), []);
    assert_eq!(
        store.report(ORG, "dep_1", "uhr_2").await.expect("report"),
        Some(newest)
    );
    assert_eq!(
        store
            .report("org_b", "dep_1", "uhr_2")
            .await
            .expect("report"),
        None
    );
    assert_eq!(
        store.report(ORG, "dep_2", "uhr_2").await.expect("report"),
        None
    );
    assert_eq!(
        store.report(ORG, "dep_1", "uhr_9").await.expect("report"),
        None
    );
    let mut events = delivered().await;
    events.sort();
    assert_eq!(events, ["ev_0", "ev_1", "ev_2", "ev_3"]);
}

pub(super) async fn purge_deletes_only_what_is_older_than_the_window(store: Arc<Store>) {
    let k = stored_key(&store, "key_a").await;
    store
        .create_webhook(&webhook("wh_1", &k, &[UHR], 0), 20)
        .await
        .expect("create_webhook");
    // Old: a finished session with a history row, a report whose event was delivered,
    // and one whose delivery is still pending.
    let old_point = Effects {
        history: vec![point("conv_old", 0, 0.2)],
        ..Effects::default()
    };
    finish_with(&store, &k, "s_old", "dep_1", &old_point, 0).await;
    let delivered = event("ev_done", UHR, "dep_1", Targets::Subscribers(None), 2);
    let waiting = event("ev_wait", UHR, "dep_1", Targets::Subscribers(None), 3);
    for (r, e) in [("uhr_done", &delivered), ("uhr_wait", &waiting)] {
        assert!(
            store
                .save_report(&report(r, "dep_1", 2), e, at(2))
                .await
                .expect("save_report")
        );
    }
    let jobs = store
        .claim_deliveries(T0 + 10, 10_000, 10, 100, 5)
        .await
        .expect("claim");
    let done = jobs
        .iter()
        .find(|j| j.body == delivered.body)
        .expect("claimed");
    let ok = AttemptRecord {
        attempt: 1,
        started_at: at(10),
        duration_ms: Some(5),
        response_status: Some(200),
        error: None,
        response_body: None,
    };
    assert!(
        store
            .finish_delivery(done, &ok, NextStep::Succeeded)
            .await
            .expect("finish")
    );
    // New: a finished session with its history row, two days later.
    let new_point = Effects {
        history: vec![point("conv_new", 2 * DAY, 0.3)],
        ..Effects::default()
    };
    finish_with(&store, &k, "s_new", "dep_1", &new_point, 2 * DAY).await;
    // Old but never finished (enqueued last, so the claims above did not take it).
    store
        .enqueue(
            &ingest("s_waiting", &k, Some("dep_1"), 1),
            QueueLimit::total(100),
            None,
        )
        .await
        .expect("enqueue");

    let purged = store.purge(at(DAY), at(DAY)).await.expect("purge");
    assert_eq!(
        purged,
        Purged {
            sessions: 1,
            events: 1,
            history: 1,
            reports: 2,
        }
    );
    let session = async |id: &str| store.session(id, ORG).await.expect("session").is_some();
    assert!(!session("s_old").await, "a finished old session is gone");
    assert!(session("s_waiting").await, "unfinished work stays");
    assert!(session("s_new").await);
    let rows = store
        .history(ORG, "dep_1", 0, i64::MAX)
        .await
        .expect("history");
    assert_eq!(
        rows.iter()
            .map(|p| p.conversation_id.as_str())
            .collect::<Vec<_>>(),
        ["conv_new"]
    );
    assert!(
        store
            .reports(ORG, "dep_1")
            .await
            .expect("reports")
            .is_empty()
    );
    // The pending delivery (and so its event) stays until it is done.
    let log = store.deliveries("wh_1", None, 10).await.expect("log");
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].event_id, "ev_wait");
    // A second sweep finds nothing more.
    assert_eq!(
        store.purge(at(DAY), at(DAY)).await.expect("purge"),
        Purged::default()
    );
    // History has a cutoff of its own.
    let later = store.purge(at(DAY), at(3 * DAY)).await.expect("purge");
    assert_eq!(later.history, 1);
}

pub(super) async fn a_deployment_keeps_only_its_newest_deploy_markers(store: Arc<Store>) {
    let cap = undertone_http::store::MAX_DEPLOYS_PER_DEPLOYMENT;
    let total = i64::from(cap) + 5;
    for i in 0..total {
        store
            .create_deploy(&deploy(&format!("d_{i:04}"), "dep_1", i * HOUR, Some("v")))
            .await
            .expect("create_deploy");
    }
    // Another deployment's markers are not touched by dep_1's.
    store
        .create_deploy(&deploy("other", "dep_2", 0, None))
        .await
        .expect("create_deploy");
    let kept = store.deploys(ORG, "dep_1").await.expect("deploys");
    assert_eq!(kept.len(), cap as usize);
    let ids: BTreeSet<&str> = kept.iter().map(|d| d.deploy.id.as_str()).collect();
    for dropped in 0..5 {
        assert!(
            !ids.contains(format!("d_{dropped:04}").as_str()),
            "d_{dropped:04} kept"
        );
    }
    assert!(ids.contains(format!("d_{:04}", total - 1).as_str()));
    assert_eq!(store.deploys(ORG, "dep_2").await.expect("deploys").len(), 1);
}
