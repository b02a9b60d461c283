//! The listening socket: HTTP/1 and HTTP/2 connections with a deadline on the request
//! head and on a new connection's first byte (a client that sends its headers slower
//! than that, or nothing at all, is disconnected, so a slowloris cannot hold
//! connections open), connections closed once idle, and a graceful stop that lets
//! requests in flight finish.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};

/// Serves `app` on `listener` until `shutdown` completes, then waits for the requests
/// in flight. A client that takes longer than `header_read_timeout` to send a request's
/// head (line and headers), or a new connection's first byte, is disconnected.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    header_read_timeout: Duration,
    shutdown: impl Future<Output = ()>,
) {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout);
    // HTTP/2 has no request head to time once the connection is open: an idle one is
    // pinged every `header_read_timeout` and closed when a ping goes unanswered as
    // long, so a client that opened it and went silent cannot hold it.
    builder
        .http2()
        .timer(TokioTimer::new())
        .keep_alive_interval(header_read_timeout)
        .keep_alive_timeout(header_read_timeout);
    // Told to every connection when the server stops; each holds a sender of `done`,
    // so that `done` closes when the last of them has finished.
    let (stop, stopping) = watch::channel(false);
    let (finished, mut done) = mpsc::channel::<()>(1);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let stream = match accepted {
                    Ok((stream, _)) => stream,
                    Err(e) => {
                        // Out of file descriptors and the like: wait, do not spin.
                        tracing::warn!(error = %e, "accepting a connection failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let _ = stream.set_nodelay(true);
                let (builder, mut stopping, finished) =
                    (builder.clone(), stopping.clone(), finished.clone());
                let activity = Arc::new(Activity::default());
                let service = Counted {
                    inner: TowerToHyperService::new(app.clone()),
                    activity: Arc::clone(&activity),
                };
                tokio::spawn(async move {
                    let _finished = finished;
                    // Until its first byte a connection is in no protocol's hands (that
                    // byte tells HTTP/1 from HTTP/2), so no head deadline runs yet: a
                    // client that connects and sends nothing gets the same deadline
                    // for that byte, or it could hold a socket, and enough of them
                    // every file descriptor, for as long as it likes.
                    // (`peek`, not `readable`: readiness can be reported without a
                    // byte, and the byte stays for the protocol to read.)
                    let mut first = [0];
                    let peeked = tokio::time::timeout(header_read_timeout, stream.peek(&mut first));
                    if !matches!(peeked.await, Ok(Ok(1))) {
                        return;
                    }
                    let connection = builder
                        .serve_connection_with_upgrades(TokioIo::new(stream), service)
                        .into_owned();
                    let mut connection = std::pin::pin!(connection);
                    let mut idle = std::pin::pin!(activity.idle(header_read_timeout));
                    // Once asked to close (idle, or the server stopping), the connection
                    // takes no new request and ends when those in flight are answered.
                    let mut closing = false;
                    loop {
                        tokio::select! {
                            ended = connection.as_mut() => {
                                if let Err(e) = ended {
                                    tracing::debug!(error = %e, "connection ended with an error");
                                }
                                break;
                            }
                            () = &mut idle, if !closing => {
                                connection.as_mut().graceful_shutdown();
                                closing = true;
                            }
                            _ = stopping.wait_for(|stop| *stop), if !closing => {
                                connection.as_mut().graceful_shutdown();
                                closing = true;
                            }
                        }
                    }
                });
            }
            () = &mut shutdown => break,
        }
    }
    drop(listener);
    let _ = stop.send(true);
    drop(finished);
    // `None` once every connection has dropped its sender.
    let _ = done.recv().await;
}

/// What one connection's requests are doing, for closing it once idle.
#[derive(Default)]
struct Activity {
    /// Requests begun and not yet answered.
    in_flight: AtomicUsize,
    /// Requests begun and answered, counted: it moves whenever the connection is used.
    events: AtomicU64,
}

impl Activity {
    /// Completes once the connection has gone a whole `period` with no request begun
    /// or answered and none in flight: after between one and two periods of idleness.
    /// HTTP/1 closes an idle connection itself after the head deadline; an idle HTTP/2
    /// one whose client answers the pings would otherwise stay open for ever, and enough
    /// of them would take every descriptor.
    async fn idle(&self, period: Duration) {
        let mut seen = self.events.load(Ordering::Relaxed);
        loop {
            tokio::time::sleep(period).await;
            let now = self.events.load(Ordering::Relaxed);
            if now == seen && self.in_flight.load(Ordering::Relaxed) == 0 {
                return;
            }
            seen = now;
        }
    }
}

/// A connection's service, counting its requests into [`Activity`].
#[derive(Clone)]
struct Counted<S> {
    inner: S,
    activity: Arc<Activity>,
}

/// Marks a request answered (or given up) when dropped.
struct Answered(Arc<Activity>);

impl Drop for Answered {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::Relaxed);
        self.0.events.fetch_add(1, Ordering::Relaxed);
    }
}

impl<S, R> hyper::service::Service<R> for Counted<S>
where
    S: hyper::service::Service<R>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, S::Error>> + Send>>;

    fn call(&self, request: R) -> Self::Future {
        self.activity.in_flight.fetch_add(1, Ordering::Relaxed);
        self.activity.events.fetch_add(1, Ordering::Relaxed);
        let answered = Answered(Arc::clone(&self.activity));
        let response = self.inner.call(request);
        Box::pin(async move {
            let response = response.await;
            drop(answered);
            response
        })
    }
}
