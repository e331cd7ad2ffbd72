//! Real local endpoints notifications are delivered to in the tests: a webhook receiver
//! (HTTP/1.1) that records each request and answers the statuses it is told, and an SMTP
//! sink that accepts and records every message. Both listen on free local ports and stop
//! when dropped.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// One request the receiver got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Received {
    pub method: String,
    pub path: String,
    /// Header names lowercased.
    pub headers: BTreeMap<String, String>,
    pub body: Vec<u8>,
}

impl Received {
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map_or("", String::as_str)
    }
}

/// A webhook receiver.
#[derive(Debug)]
pub struct WebhookReceiver {
    /// `http://127.0.0.1:<port>/hook`.
    pub url: String,
    pub port: u16,
    received: Arc<Mutex<Vec<Received>>>,
    task: JoinHandle<()>,
}

impl Drop for WebhookReceiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl WebhookReceiver {
    /// Starts on a free port; the first requests are answered with `statuses` in turn,
    /// the rest with 200.
    pub async fn start(statuses: Vec<u16>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("binding the webhook receiver");
        Self::serve(listener, statuses)
    }

    /// Starts on the given port (a restarted receiver).
    pub async fn start_on(port: u16, statuses: Vec<u16>) -> Self {
        let listener = TcpListener::bind(("127.0.0.1", port))
            .await
            .expect("binding the webhook receiver on its port");
        Self::serve(listener, statuses)
    }

    fn serve(listener: TcpListener, statuses: Vec<u16>) -> Self {
        let port = listener.local_addr().expect("an address").port();
        let received = Arc::new(Mutex::new(Vec::new()));
        let statuses = Arc::new(Mutex::new(VecDeque::from(statuses)));
        let log = Arc::clone(&received);
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let log = Arc::clone(&log);
                let statuses = Arc::clone(&statuses);
                tokio::spawn(async move {
                    let _ = answer(stream, &log, &statuses).await;
                });
            }
        });
        Self {
            url: format!("http://127.0.0.1:{port}/hook"),
            port,
            received,
            task,
        }
    }

    /// Every request so far.
    pub fn received(&self) -> Vec<Received> {
        self.received.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// Waits until `count` requests have come (panics after `within`).
    pub async fn wait_for(&self, count: usize, within: Duration) -> Vec<Received> {
        let deadline = Instant::now() + within;
        loop {
            let received = self.received();
            if received.len() >= count {
                return received;
            }
            assert!(
                Instant::now() < deadline,
                "the webhook receiver got {} of {count} requests within {within:?}: {received:?}",
                received.len()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// Reads one request and answers it, closing the connection.
async fn answer(
    stream: TcpStream,
    log: &Mutex<Vec<Received>>,
    statuses: &Mutex<VecDeque<u16>>,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).await?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_owned();
    let path = parts.next().unwrap_or_default().to_owned();
    let mut headers = BTreeMap::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).await? == 0 || header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_owned());
        }
    }
    let length: usize = headers
        .get("content-length")
        .and_then(|l| l.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).await?;
    let status = statuses
        .lock()
        .ok()
        .and_then(|mut s| s.pop_front())
        .unwrap_or(200);
    if let Ok(mut log) = log.lock() {
        log.push(Received {
            method,
            path,
            headers,
            body,
        });
    }
    let mut stream = reader.into_inner();
    stream
        .write_all(
            format!("HTTP/1.1 {status} Status\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        )
        .await?;
    stream.shutdown().await
}

/// One message the SMTP sink accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mail {
    pub from: String,
    pub to: Vec<String>,
    /// The message as sent (headers and body), dot-stuffing undone.
    pub data: String,
}

/// An SMTP sink: speaks enough SMTP (EHLO, MAIL, RCPT, DATA, RSET, NOOP, QUIT) for a
/// client without TLS, and keeps every message.
#[derive(Debug)]
pub struct SmtpSink {
    pub port: u16,
    mails: Arc<Mutex<Vec<Mail>>>,
    task: JoinHandle<()>,
}

impl Drop for SmtpSink {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl SmtpSink {
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("binding the SMTP sink");
        let port = listener.local_addr().expect("an address").port();
        let mails = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&mails);
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let log = Arc::clone(&log);
                tokio::spawn(async move {
                    let _ = session(stream, &log).await;
                });
            }
        });
        Self { port, mails, task }
    }

    pub fn mails(&self) -> Vec<Mail> {
        self.mails.lock().map(|m| m.clone()).unwrap_or_default()
    }

    /// Waits until `count` messages have come (panics after `within`).
    pub async fn wait_for(&self, count: usize, within: Duration) -> Vec<Mail> {
        let deadline = Instant::now() + within;
        loop {
            let mails = self.mails();
            if mails.len() >= count {
                return mails;
            }
            assert!(
                Instant::now() < deadline,
                "the SMTP sink got {} of {count} messages within {within:?}",
                mails.len()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// One SMTP session.
async fn session(stream: TcpStream, log: &Mutex<Vec<Mail>>) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream);
    reader
        .get_mut()
        .write_all(b"220 sink ESMTP ready\r\n")
        .await?;
    let mut from = String::new();
    let mut to = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).await? == 0 {
            return Ok(());
        }
        let command = line.trim_end().to_owned();
        let verb = command
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_ascii_uppercase();
        let address = || {
            command
                .split_once(':')
                .map(|(_, a)| {
                    a.trim()
                        .trim_start_matches('<')
                        .trim_end_matches('>')
                        .to_owned()
                })
                .unwrap_or_default()
        };
        let reply: &[u8] = match verb.as_str() {
            "EHLO" => b"250-sink\r\n250 8BITMIME\r\n",
            "HELO" => b"250 sink\r\n",
            "MAIL" => {
                from = address();
                to.clear();
                b"250 OK\r\n"
            }
            "RCPT" => {
                to.push(address());
                b"250 OK\r\n"
            }
            "DATA" => {
                reader.get_mut().write_all(b"354 End with .\r\n").await?;
                let mut data = String::new();
                loop {
                    let mut text = String::new();
                    if reader.read_line(&mut text).await? == 0 {
                        return Ok(());
                    }
                    if text == ".\r\n" || text == ".\n" {
                        break;
                    }
                    data.push_str(text.strip_prefix('.').unwrap_or(&text));
                }
                if let Ok(mut log) = log.lock() {
                    log.push(Mail {
                        from: from.clone(),
                        to: to.clone(),
                        data,
                    });
                }
                b"250 queued\r\n"
            }
            "QUIT" => {
                reader.get_mut().write_all(b"221 bye\r\n").await?;
                return Ok(());
            }
            "RSET" | "NOOP" => b"250 OK\r\n",
            _ => b"502 not implemented\r\n",
        };
        reader.get_mut().write_all(reply).await?;
    }
}
