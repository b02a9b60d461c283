//! Private addresses refused at send time, whatever the URL says.

use super::*;

/// Counts TCP connections to a port on 127.0.0.1, closing each at once.
async fn connection_counter() -> (u16, Arc<AtomicUsize>, tokio::task::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("address").port();
    let count = Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    let task = tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            seen.fetch_add(1, Ordering::SeqCst);
            drop(socket);
        }
    });
    (port, count, task)
}

#[tokio::test]
async fn private_addresses_are_refused_at_send_time() {
    let ten: IpAddr = [10, 0, 0, 1].into();
    let loopback: IpAddr = [127, 0, 0, 1].into();
    let strict = Sender::new(
        DeliveryConfig {
            schedule: FAST.parse().expect("valid schedule"),
            timeout: Duration::from_secs(2),
            concurrency: 8,
            allow_private: false,
            ..DeliveryConfig::default()
        },
        SafeResolver::new(false)
            .with_fixed("inside.example", vec![ten])
            .with_fixed("rebound.example", vec![loopback]),
    )
    .expect("client builds");
    let receiver = Receiver::start(vec![]).await;
    let (tls_port, connections, counter) = connection_counter().await;
    let rport = receiver.addr.port();

    let not_public = [
        "https://127.0.0.1/".to_owned(),
        "https://localhost/".to_owned(),
        "https://[::1]/".to_owned(),
        "https://169.254.169.254/".to_owned(),
        "https://10.0.0.1/".to_owned(),
        "https://[::ffff:127.0.0.1]/".to_owned(),
        "https://0.0.0.0/".to_owned(),
        "https://2130706433/".to_owned(),
        "https://inside.example/".to_owned(),
        // The same, aimed at live ports on 127.0.0.1.
        format!("https://127.0.0.1:{tls_port}/"),
        format!("https://localhost:{tls_port}/"),
        format!("https://[::ffff:127.0.0.1]:{tls_port}/"),
        format!("https://2130706433:{tls_port}/"),
        format!("https://rebound.example:{tls_port}/"),
        format!("https://127.0.0.1:{rport}/"),
        format!("https://localhost:{rport}/"),
    ];
    for url in &not_public {
        let sent = strict.send(&job(url), Utc::now().timestamp()).await;
        assert!(!sent.ok, "{url}: {sent:?}");
        assert_eq!(sent.status, None, "{url}: {sent:?}");
        let error = sent.error.as_deref().unwrap_or_default();
        assert!(error.contains("not a public address"), "{url}: {error}");
    }
    let plain = [
        "http://93.184.215.14/".to_owned(),
        "http://example.com/hook".to_owned(),
        format!("http://localhost:{rport}/"),
        format!("http://127.0.0.1:{rport}/"),
    ];
    for url in &plain {
        let sent = strict.send(&job(url), Utc::now().timestamp()).await;
        assert!(!sent.ok, "{url}: {sent:?}");
        assert_eq!(sent.status, None, "{url}: {sent:?}");
        let error = sent.error.as_deref().unwrap_or_default();
        assert!(error.contains("https is required"), "{url}: {error}");
    }
    assert_eq!(receiver.requests().len(), 0);
    assert_eq!(connections.load(Ordering::SeqCst), 0);

    // The same ports are reachable when private addresses are allowed, so the
    // refusals above are the check's doing.
    let relaxed = local_sender(FAST, Duration::from_secs(2));
    let sent = relaxed
        .send(&job(&format!("http://localhost:{rport}/")), 0)
        .await;
    assert!(sent.ok, "{sent:?}");
    assert_eq!(receiver.requests().len(), 1);
    let sent = relaxed
        .send(&job(&format!("https://127.0.0.1:{tls_port}/")), 0)
        .await;
    assert!(!sent.ok, "no TLS there: {sent:?}");
    assert_eq!(connections.load(Ordering::SeqCst), 1);
    counter.abort();
}
