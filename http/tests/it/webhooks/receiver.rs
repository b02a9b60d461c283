//! A webhook receiver on 127.0.0.1 for tests: raw HTTP/1.1 over tokio, so a test can
//! script each answer exactly — a status, a delay, a redirect, an endless or huge
//! body — and read back every request it got (headers and body bytes).

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// How the receiver answers one request.
#[derive(Debug, Clone)]
pub enum Answer {
    /// This status with a short body.
    Status(u16),
    /// This status with a `Retry-After: seconds` header.
    RetryAfter(u16, u64),
    /// Wait, then answer 200.
    Sleep(Duration),
    /// 302 to this URL.
    Redirect(String),
    /// 200 with a body that never ends (chunked, 64 KiB chunks).
    Endless,
    /// 200 with a body of this many bytes (Content-Length).
    Huge(usize),
}

/// One request as received.
#[derive(Debug, Clone)]
pub struct Received {
    /// Lower-case header names.
    pub headers: BTreeMap<String, String>,
    /// The raw body.
    pub body: Vec<u8>,
    /// When it arrived.
    pub at: Instant,
}

impl Received {
    /// A header's value, or "".
    pub fn header(&self, name: &str) -> &str {
        self.headers.get(name).map(String::as_str).unwrap_or("")
    }
}

/// A running receiver.
pub struct Receiver {
    /// Where it listens.
    pub addr: SocketAddr,
    requests: Arc<Mutex<Vec<Received>>>,
    task: JoinHandle<()>,
}

impl Receiver {
    /// Starts a receiver on a free port that answers the n-th request (0-based) with
    /// `script[n]`, and every request past the script with its last answer (200 when
    /// the script is empty).
    pub async fn start(script: Vec<Answer>) -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        Receiver::on(listener, script)
    }

    /// A receiver on `listener` (to come up on a port chosen before).
    pub fn on(listener: TcpListener, script: Vec<Answer>) -> Receiver {
        let addr = listener.local_addr().expect("local address");
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = requests.clone();
        let script = Arc::new(script);
        let task = tokio::spawn(async move {
            loop {
                let Ok((socket, _)) = listener.accept().await else {
                    return;
                };
                let (seen, script) = (seen.clone(), script.clone());
                tokio::spawn(async move {
                    let _ = serve(socket, seen, script).await;
                });
            }
        });
        Receiver {
            addr,
            requests,
            task,
        }
    }

    /// The URL of a path on this receiver.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Received> {
        self.requests.lock().expect("lock").clone()
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve(
    mut socket: TcpStream,
    seen: Arc<Mutex<Vec<Received>>>,
    script: Arc<Vec<Answer>>,
) -> std::io::Result<()> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        let n = socket.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut headers = BTreeMap::new();
    for line in head.lines().skip(1) {
        if let Some((k, v)) = line.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
        }
    }
    let length: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end..].to_vec();
    while body.len() < length {
        let n = socket.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    let index = {
        let mut seen = seen.lock().expect("lock");
        seen.push(Received {
            headers,
            body,
            at: Instant::now(),
        });
        seen.len() - 1
    };
    let answer = script
        .get(index)
        .or(script.last())
        .cloned()
        .unwrap_or(Answer::Status(200));
    let simple = |status: u16, extra: &str| {
        format!(
            "HTTP/1.1 {status} X\r\ncontent-type: text/plain\r\ncontent-length: 8\r\nconnection: close\r\n{extra}\r\nanswered"
        )
    };
    match answer {
        Answer::Status(s) => socket.write_all(simple(s, "").as_bytes()).await?,
        Answer::RetryAfter(s, secs) => {
            socket
                .write_all(simple(s, &format!("retry-after: {secs}\r\n")).as_bytes())
                .await?
        }
        Answer::Sleep(d) => {
            tokio::time::sleep(d).await;
            socket.write_all(simple(200, "").as_bytes()).await?
        }
        Answer::Redirect(to) => {
            socket
                .write_all(simple(302, &format!("location: {to}\r\n")).as_bytes())
                .await?
        }
        Answer::Endless => {
            socket
                .write_all(
                    b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n",
                )
                .await?;
            let block = vec![b'x'; 64 * 1024];
            let mut frame = format!("{:x}\r\n", block.len()).into_bytes();
            frame.extend_from_slice(&block);
            frame.extend_from_slice(b"\r\n");
            loop {
                socket.write_all(&frame).await?;
            }
        }
        Answer::Huge(n) => {
            socket
                .write_all(
                    format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {n}\r\nconnection: close\r\n\r\n"
                    )
                    .as_bytes(),
                )
                .await?;
            let block = vec![b'y'; 64 * 1024];
            let mut left = n;
            while left > 0 {
                let k = left.min(block.len());
                socket.write_all(&block[..k]).await?;
                left -= k;
            }
        }
    }
    socket.shutdown().await
}
