//! Stopping the background loops (job workers, webhook deliverer, report scheduler)
//! when the database does not answer.
//!
//! Each loop checks its stop switch between rounds, so a round that waits on the
//! database delays the stop. A healthy database answers in milliseconds. A database
//! that is gone makes every call wait for the connection pool's acquire timeout, and
//! `undertone serve` then took 20 s or more to exit after SIGTERM. So the calls a loop
//! makes while it looks for work run through [`unless_stopped`]: once the switch
//! flips, such a call gets [`GRACE`] to finish, and is then abandoned.
//!
//! Abandoning is safe for those calls. A claim that was abandoned after its
//! transaction committed leaves its job or delivery leased. The lease then runs out
//! and another claim picks the work up, as after a crash. Work a loop already holds
//! (a job being scored, a webhook attempt in flight) is never abandoned this way.

use std::future::Future;
use std::time::Duration;

use tokio::sync::watch;

/// How long a database call that was under way when the stop came may still take.
pub const GRACE: Duration = Duration::from_secs(2);

/// `work`'s output, or `None` when the switch `stopped` turned true (or its sender is
/// gone) and `grace` then passed before `work` finished.
pub async fn unless_stopped<T>(
    work: impl Future<Output = T>,
    stopped: &watch::Receiver<bool>,
    grace: Duration,
) -> Option<T> {
    let mut stopped = stopped.clone();
    let abandon = async move {
        // An error means the switch's sender is gone: nothing will stop this loop
        // more gracefully.
        let _ = stopped.wait_for(|s| *s).await;
        tokio::time::sleep(grace).await;
    };
    tokio::select! {
        out = work => Some(out),
        () = abandon => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("a runtime")
    }

    #[test]
    fn work_that_finishes_is_returned_stopped_or_not() {
        runtime().block_on(async {
            let (stop, stopped) = watch::channel(false);
            assert_eq!(unless_stopped(async { 7 }, &stopped, GRACE).await, Some(7));
            stop.send(true).expect("the receiver is alive");
            // Work that finishes within the grace after the stop still counts.
            let slow = async {
                tokio::time::sleep(Duration::from_millis(20)).await;
                8
            };
            assert_eq!(
                unless_stopped(slow, &stopped, Duration::from_secs(5)).await,
                Some(8)
            );
        });
    }

    #[test]
    fn work_that_hangs_is_abandoned_one_grace_after_the_stop() {
        runtime().block_on(async {
            let (stop, stopped) = watch::channel(false);
            let grace = Duration::from_millis(50);
            let started = Instant::now();
            let flip = async {
                tokio::time::sleep(Duration::from_millis(100)).await;
                stop.send(true).expect("the receiver is alive");
            };
            let (out, ()) = tokio::join!(
                unless_stopped(std::future::pending::<u8>(), &stopped, grace),
                flip
            );
            assert_eq!(out, None);
            // Not before the stop plus the grace.
            assert!(started.elapsed() >= Duration::from_millis(150));
        });
    }

    #[test]
    fn a_dropped_switch_counts_as_a_stop() {
        runtime().block_on(async {
            let (stop, stopped) = watch::channel(false);
            drop(stop);
            let out = unless_stopped(
                std::future::pending::<u8>(),
                &stopped,
                Duration::from_millis(10),
            )
            .await;
            assert_eq!(out, None);
        });
    }
}
