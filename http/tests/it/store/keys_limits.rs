//! Keys and rate limits: keys are listed oldest first, found by digest and revoked
//! once; the first key is created once; a charge counts against every window or
//! none, reports the most constrained window, and a new window starts from zero.
//! (Racing callers are in `concurrency.rs`.)

use std::sync::Arc;

use undertone_http::keys;
use undertone_http::limits::{Decision, Plan, Quota, windows_for};
use undertone_http::store::{KeyRecord, Store};

use super::{ORG, T0, at, key};

/// `T0` in unix seconds, the `now` of the rate-limit checks.
const NOW: i64 = T0 / 1000;

/// A plan with the given hourly and daily limits and a drift limit of one.
fn plan(per_hour: u32, per_day: u32) -> Plan {
    Plan {
        per_hour,
        per_day,
        drift_per_hour: 1,
    }
}

pub(super) async fn keys_are_listed_found_and_revoked(store: Arc<Store>) {
    let first = key("key_1", ORG, Plan::default(), 0);
    let last = key("key_2", "org_b", plan(5, 50), 2_000);
    let middle = key("key_3", ORG, plan(7, 70), 1_000);
    for k in [&first, &last, &middle] {
        store.create_key(k).await.expect("create_key");
    }

    // Oldest first, every field as written.
    assert_eq!(
        store.list_keys().await.expect("list_keys"),
        vec![first.clone(), middle.clone(), last.clone()]
    );

    let digest: [u8; 32] = last.digest.clone().try_into().expect("a 32-byte digest");
    assert_eq!(
        store.find_key(&digest).await.expect("find_key"),
        Some(last.clone())
    );
    assert_eq!(
        store
            .find_key(&keys::digest("ut_live_not_a_stored_key"))
            .await
            .expect("find_key"),
        None
    );

    let revoked_at = at(5_000);
    assert!(store.revoke_key("key_2", revoked_at).await.expect("revoke"));
    assert!(
        !store.revoke_key("key_2", at(6_000)).await.expect("revoke"),
        "a revoked key is not revoked again"
    );
    assert!(!store.revoke_key("key_9", at(6_000)).await.expect("revoke"));

    // A revoked key is still found (so it can be refused as revoked), with the first
    // revocation time.
    let revoked = KeyRecord {
        revoked_at: Some(revoked_at),
        ..last
    };
    assert_eq!(
        store.find_key(&digest).await.expect("find_key"),
        Some(revoked.clone())
    );
    assert_eq!(
        store.list_keys().await.expect("list_keys"),
        vec![first, middle, revoked]
    );
}

pub(super) async fn the_first_key_is_created_once(store: Arc<Store>) {
    let first = key("key_first", ORG, Plan::default(), 0);
    let second = key("key_second", ORG, Plan::default(), 1_000);
    assert!(store.create_first_key(&first).await.expect("first key"));
    assert!(!store.create_first_key(&second).await.expect("second key"));
    assert_eq!(store.list_keys().await.expect("list_keys"), vec![first]);
}

pub(super) async fn charge_admits_the_hourly_limit_then_refuses(store: Arc<Store>) {
    let k = key("key_limits", ORG, plan(5, 100), 0);
    store.create_key(&k).await.expect("create_key");
    let windows = windows_for(&k.plan, NOW, false);
    let hour_reset = windows[0].reset;

    for i in 0..5 {
        assert_eq!(
            store.charge(&k.id, &windows).await.expect("charge"),
            Decision::Allowed(Quota {
                limit: 5,
                remaining: 4 - i,
                reset: hour_reset
            }),
            "request {i}"
        );
    }
    let refused = Decision::Refused(Quota {
        limit: 5,
        remaining: 0,
        reset: hour_reset,
    });
    assert_eq!(
        store.charge(&k.id, &windows).await.expect("charge"),
        refused
    );
    assert_eq!(
        store.charge(&k.id, &windows).await.expect("charge"),
        refused
    );

    // Reading the counts counts nothing.
    assert_eq!(store.usage(&k.id, &windows).await.expect("usage"), [5, 5]);
    assert_eq!(store.usage(&k.id, &windows).await.expect("usage"), [5, 5]);

    // The next hour starts from zero; the day goes on counting.
    let next = windows_for(&k.plan, NOW + 3600, false);
    assert_eq!(next[1], windows[1], "an hour later is the same UTC day");
    assert_eq!(store.usage(&k.id, &next).await.expect("usage"), [0, 5]);
    assert_eq!(
        store.charge(&k.id, &next).await.expect("charge"),
        Decision::Allowed(Quota {
            limit: 5,
            remaining: 4,
            reset: next[0].reset
        })
    );
    assert_eq!(store.usage(&k.id, &next).await.expect("usage"), [1, 6]);

    // Another key's windows are its own.
    let other = key("key_other", ORG, plan(5, 100), 0);
    store.create_key(&other).await.expect("create_key");
    assert_eq!(store.usage(&other.id, &next).await.expect("usage"), [0, 0]);
}

pub(super) async fn a_refused_charge_spends_nothing_in_any_window(store: Arc<Store>) {
    // The day window is the one that fills.
    let daily = key("key_daily", ORG, plan(10, 3), 0);
    store.create_key(&daily).await.expect("create_key");
    let windows = windows_for(&daily.plan, NOW, false);
    let day_reset = windows[1].reset;
    for _ in 0..2 {
        assert!(matches!(
            store.charge(&daily.id, &windows).await.expect("charge"),
            Decision::Allowed(_)
        ));
    }
    assert_eq!(
        store.charge(&daily.id, &windows).await.expect("charge"),
        Decision::Allowed(Quota {
            limit: 3,
            remaining: 0,
            reset: day_reset
        })
    );
    assert_eq!(
        store.charge(&daily.id, &windows).await.expect("charge"),
        Decision::Refused(Quota {
            limit: 3,
            remaining: 0,
            reset: day_reset
        })
    );
    assert_eq!(
        store.usage(&daily.id, &windows).await.expect("usage"),
        [3, 3],
        "the refusal did not count against the hour"
    );

    // The drift window is the one that fills: refused drift requests leave the hour
    // and the day alone, and plain requests still go through.
    let drift = key("key_drift", ORG, plan(10, 100), 0);
    store.create_key(&drift).await.expect("create_key");
    let drift_windows = windows_for(&drift.plan, NOW, true);
    let plain_windows = windows_for(&drift.plan, NOW, false);
    assert_eq!(
        store
            .charge(&drift.id, &drift_windows)
            .await
            .expect("charge"),
        Decision::Allowed(Quota {
            limit: 1,
            remaining: 0,
            reset: drift_windows[2].reset
        })
    );
    for _ in 0..3 {
        assert_eq!(
            store
                .charge(&drift.id, &drift_windows)
                .await
                .expect("charge"),
            Decision::Refused(Quota {
                limit: 1,
                remaining: 0,
                reset: drift_windows[2].reset
            })
        );
    }
    assert_eq!(
        store.usage(&drift.id, &drift_windows).await.expect("usage"),
        [1, 1, 1]
    );
    assert_eq!(
        store
            .charge(&drift.id, &plain_windows)
            .await
            .expect("charge"),
        Decision::Allowed(Quota {
            limit: 10,
            remaining: 8,
            reset: plain_windows[0].reset
        })
    );
    assert_eq!(
        store.usage(&drift.id, &drift_windows).await.expect("usage"),
        [2, 2, 1]
    );
}
