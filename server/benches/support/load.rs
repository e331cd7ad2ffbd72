//! A small HTTP load generator: a fixed number of workers, each with its own keep-alive
//! HTTP/1.1 connection (so the pool is exactly one connection per worker), sending `GET`s
//! for a fixed time (or while something else runs) and recording each response's latency
//! in a histogram. Back to back (a closed loop: as many as the server answers), or paced
//! at a fixed rate ([`run_paced_during`]: an open loop, each latency counted from when
//! the request was due, so a stall counts for every request it held up).

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use hdrhistogram::Histogram;
use http_body_util::{BodyExt, Empty};
use hyper::client::conn::http1::SendRequest;
use hyper::header::HOST;
use hyper::{Request, StatusCode};
use rand::SeedableRng;
use rand::rngs::SmallRng;

use super::server::{BenchResult, connect};

/// Makes the path (and query) of the next request.
pub type PathMaker = Arc<dyn Fn(&mut SmallRng) -> String + Send + Sync>;

/// One kind of request: its path (and query) and the status a right answer has.
#[derive(Clone)]
pub struct Target {
    pub path: PathMaker,
    pub expect: StatusCode,
}

/// What one run measured.
#[derive(Debug)]
pub struct Report {
    /// Responses received (of any status).
    pub requests: u64,
    /// Responses other than the expected status, and requests that got no response.
    pub errors: u64,
    pub elapsed: Duration,
    /// Latency of every response, in microseconds.
    pub latency: Histogram<u64>,
    /// The responses slower than [`SLOW`]: when each was sent (since the run's start) and
    /// its latency, in the order sent — to line a stall up with what the server was doing.
    pub slow: Vec<(Duration, Duration)>,
}

/// A response this slow is kept in [`Report::slow`].
pub const SLOW: Duration = Duration::from_millis(50);

impl Report {
    pub fn per_second(&self) -> f64 {
        self.requests as f64 / self.elapsed.as_secs_f64()
    }

    /// The latency at `quantile` (0.5, 0.99), in milliseconds.
    pub fn ms_at(&self, quantile: f64) -> f64 {
        self.latency.value_at_quantile(quantile) as f64 / 1000.0
    }

    pub fn max_ms(&self) -> f64 {
        self.latency.max() as f64 / 1000.0
    }
}

/// Runs `workers` connections against `addr` for `duration`, each sending
/// `GET <path>` with the `api-key` header, the paths made by `target`. The connections
/// are opened before the clock starts.
pub async fn run(
    addr: SocketAddr,
    key: &str,
    workers: usize,
    duration: Duration,
    target: Target,
) -> BenchResult<Report> {
    let (report, ()) = run_during(addr, key, workers, target, tokio::time::sleep(duration)).await?;
    Ok(report)
}

/// [`run`] for as long as `until` takes (an import, say); answers its output too.
pub async fn run_during<T>(
    addr: SocketAddr,
    key: &str,
    workers: usize,
    target: Target,
    until: impl Future<Output = T>,
) -> BenchResult<(Report, T)> {
    run_paced_during(addr, key, workers, target, None, until).await
}

/// [`run_during`] with the requests paced at `per_second` in all (`None`: back to
/// back): each worker sends one every `workers / per_second` seconds, the workers
/// staggered; a request is due at its slot, and its latency runs from then, so one that
/// waits for its worker's previous answer counts that wait too.
pub async fn run_paced_during<T>(
    addr: SocketAddr,
    key: &str,
    workers: usize,
    target: Target,
    per_second: Option<f64>,
    until: impl Future<Output = T>,
) -> BenchResult<(Report, T)> {
    let interval = per_second.map(|rate| Duration::from_secs_f64(workers as f64 / rate));
    let mut senders = Vec::with_capacity(workers);
    for _ in 0..workers {
        senders.push(connect::<Empty<Bytes>>(addr).await?);
    }
    let start = Instant::now();
    let stop = Arc::new(AtomicBool::new(false));
    let mut tasks = Vec::with_capacity(workers);
    for (i, sender) in senders.into_iter().enumerate() {
        let worker = Worker {
            addr,
            host: addr.to_string(),
            key: key.to_owned(),
            target: target.clone(),
            rng: SmallRng::seed_from_u64(i as u64),
            start,
            pace: interval.map(|every| (every, every.mul_f64(i as f64 / workers as f64))),
            slow: Vec::new(),
            latency: histogram()?,
            requests: 0,
            errors: 0,
        };
        tasks.push(tokio::spawn(worker.run(sender, Arc::clone(&stop))));
    }
    let output = until.await;
    stop.store(true, Ordering::Relaxed);
    let mut report = Report {
        requests: 0,
        errors: 0,
        elapsed: Duration::ZERO,
        latency: histogram()?,
        slow: Vec::new(),
    };
    for task in tasks {
        let worker = task.await??;
        report.requests += worker.requests;
        report.errors += worker.errors;
        report.latency.add(&worker.latency)?;
        report.slow.extend(worker.slow);
    }
    report.slow.sort();
    report.elapsed = start.elapsed();
    Ok((report, output))
}

/// Microseconds from 1 µs to 60 s, 3 significant digits.
fn histogram() -> BenchResult<Histogram<u64>> {
    Ok(Histogram::new_with_bounds(1, 60_000_000, 3)?)
}

struct Worker {
    addr: SocketAddr,
    host: String,
    key: String,
    target: Target,
    rng: SmallRng,
    start: Instant,
    /// Paced: a request every `.0`, the first `.1` after the start.
    pace: Option<(Duration, Duration)>,
    slow: Vec<(Duration, Duration)>,
    latency: Histogram<u64>,
    requests: u64,
    errors: u64,
}

impl Worker {
    async fn run(
        mut self,
        mut sender: SendRequest<Empty<Bytes>>,
        stop: Arc<AtomicBool>,
    ) -> BenchResult<Worker> {
        let mut due = self.pace.map(|(_, first)| self.start + first);
        while !stop.load(Ordering::Relaxed) {
            if let (Some(at), Some((every, _))) = (due, self.pace) {
                tokio::time::sleep_until(at.into()).await;
                due = Some(at + every);
                if stop.load(Ordering::Relaxed) {
                    break;
                }
            }
            let path = (self.target.path)(&mut self.rng);
            let request = Request::get(path)
                .header(HOST, &self.host)
                .header("api-key", &self.key)
                .body(Empty::new())?;
            // Paced, a request counts from when it was due (it may be late).
            let sent = match (due, self.pace) {
                (Some(next), Some((every, _))) => next - every,
                _ => Instant::now(),
            };
            match Self::send(&mut sender, request).await {
                Ok(status) => {
                    let took = sent.elapsed();
                    if took >= SLOW {
                        self.slow.push((sent - self.start, took));
                    }
                    let micros = took.as_micros().max(1) as u64;
                    self.latency.saturating_record(micros);
                    self.requests += 1;
                    if status != self.target.expect {
                        self.errors += 1;
                    }
                }
                Err(_) => {
                    // The connection broke: count it and open another.
                    self.errors += 1;
                    sender = connect(self.addr).await?;
                }
            }
        }
        Ok(self)
    }

    /// Sends one request and reads the whole response.
    async fn send(
        sender: &mut SendRequest<Empty<Bytes>>,
        request: Request<Empty<Bytes>>,
    ) -> BenchResult<StatusCode> {
        sender.ready().await?;
        let response = sender.send_request(request).await?;
        let status = response.status();
        response.into_body().collect().await?;
        Ok(status)
    }
}
