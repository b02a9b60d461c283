//! The listening socket: HTTP/1 and HTTP/2 connections with a deadline on the request
//! head and on a new connection's first byte (a client that sends its headers slower
//! than that, or nothing at all, is disconnected, so a slowloris cannot hold
//! connections open), and a graceful stop that lets requests in flight finish.

use std::future::Future;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;

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
    let graceful = GracefulShutdown::new();
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
                let (builder, watcher) = (builder.clone(), graceful.watcher());
                let service = TowerToHyperService::new(app.clone());
                tokio::spawn(async move {
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
                    if let Err(e) = watcher.watch(connection).await {
                        tracing::debug!(error = %e, "connection ended with an error");
                    }
                });
            }
            () = &mut shutdown => break,
        }
    }
    drop(listener);
    graceful.shutdown().await;
}
