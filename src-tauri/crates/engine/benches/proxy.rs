//! Benchmark: what `alisio proxy` adds on loopback. A minimal upstream answers each POST with an
//! event stream; the same requests (a 50 kB Chat Completions body, recorded by the proxy) go to it
//! directly and through the proxy, interleaved. Prints time to first byte (p50 / p90, and the p50
//! added) and the time to receive a 1 MB streamed answer (median, and the share added) — sent by
//! the upstream as fast as loopback carries it, and in 16 kB events 1 ms apart.
//! Targets: ≤ 2 ms added to the p50 time to first byte; ≤ 5 % added on the 1 MB answer.
//! Run with `cargo bench -p alisio-engine --bench proxy` (`ALISIO_BENCH_SMOKE=1`: a few runs;
//! `BENCH_PATH=/v1/other`: a path the proxy passes on without recording, to tell the two costs apart).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use alisio_engine::proxy::{Proxy, ProxyEvent, ProxyOptions};
use alisio_engine::store::Store;
use futures_util::StreamExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const ANSWER_BYTES: usize = 1 << 20;

/// An upstream that streams `data:` events: one at once, then (for `/big`) 1 MB in 16 kB events.
/// It runs on a thread and runtime of its own, as a server in another process would.
fn upstream() -> std::io::Result<String> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    listener.set_nonblocking(true)?;
    let address = listener.local_addr()?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    std::thread::spawn(move || {
        runtime.block_on(async move {
            let Ok(listener) = TcpListener::from_std(listener) else { return };
            while let Ok((mut socket, _)) = listener.accept().await {
                tokio::spawn(async move {
                    let mut buf = Vec::new();
                    let mut chunk = [0u8; 65536];
                    let (head_end, length) = loop {
                        let Ok(n) = socket.read(&mut chunk).await else { return };
                        if n == 0 {
                            return;
                        }
                        buf.extend_from_slice(&chunk[..n]);
                        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                            let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
                            let length = head
                                .lines()
                                .find_map(|l| l.strip_prefix("content-length:").map(|v| v.trim().parse().unwrap_or(0)))
                                .unwrap_or(0usize);
                            break (end + 4, length);
                        }
                    };
                    while buf.len() < head_end + length {
                        let Ok(n) = socket.read(&mut chunk).await else { return };
                        if n == 0 {
                            return;
                        }
                        buf.extend_from_slice(&chunk[..n]);
                    }
                    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
                    let big = head.contains("x-bench: big") || head.contains("x-bench: paced");
                    let paced = head.contains("x-bench: paced");
                    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
                    let _ = socket.write_all(head.as_bytes()).await;
                    let _ = socket.write_all(b"data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n").await;
                    if big {
                        let event = format!("data: {}\n\n", "x".repeat(16 * 1024 - 8));
                        for _ in 0..ANSWER_BYTES / event.len() {
                            if socket.write_all(event.as_bytes()).await.is_err() {
                                return;
                            }
                            if paced {
                                tokio::time::sleep(Duration::from_millis(1)).await;
                            }
                        }
                    }
                    let _ = socket
                        .write_all(
                            b"data: {\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n",
                        )
                        .await;
                    let _ = socket.shutdown().await;
                });
            }
        })
    });
    Ok(format!("http://{address}"))
}

/// The answer asked of the upstream: one event; 1 MB as fast as loopback carries it; 1 MB in 16 kB
/// events 1 ms apart (16 MB/s — still far faster than a model streams).
#[derive(Clone, Copy)]
enum Answer {
    Small,
    Burst,
    Paced,
}

/// Time to the first body byte, and to the end of the answer.
async fn request(
    client: &reqwest::Client,
    base: &str,
    body: &str,
    answer: Answer,
) -> reqwest::Result<(Duration, Duration, usize)> {
    let started = Instant::now();
    let mut request = client
        .post(format!("{base}{}", std::env::var("BENCH_PATH").unwrap_or("/v1/chat/completions".into())))
        .body(body.to_string());
    match answer {
        Answer::Small => {}
        Answer::Burst => request = request.header("x-bench", "big"),
        Answer::Paced => request = request.header("x-bench", "paced"),
    }
    let answer = request.send().await?;
    let mut stream = answer.bytes_stream();
    let mut first = None;
    let mut bytes = 0;
    while let Some(piece) = stream.next().await {
        let piece = piece?;
        first.get_or_insert(started.elapsed());
        bytes += piece.len();
    }
    Ok((first.unwrap_or_default(), started.elapsed(), bytes))
}

fn percentile(times: &mut [Duration], p: f64) -> Duration {
    times.sort();
    times[((times.len() - 1) as f64 * p).round() as usize]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The proxy on a thread and runtime of its own, as `alisio proxy` runs in a process of its own;
/// `counter` counts the calls it has recorded.
#[allow(clippy::type_complexity)]
fn start_proxy(
    store: Arc<Store>,
    options: ProxyOptions,
    counter: Arc<AtomicUsize>,
) -> (
    std::thread::JoinHandle<Result<(), String>>,
    tokio::sync::oneshot::Receiver<std::net::SocketAddr>,
    tokio::sync::oneshot::Sender<()>,
) {
    let on_event = Arc::new(move |event: ProxyEvent| {
        if matches!(event, ProxyEvent::Captured { .. }) {
            counter.fetch_add(1, Ordering::SeqCst);
        }
    });
    let (started, address) = tokio::sync::oneshot::channel();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::spawn(move || -> Result<(), String> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?;
        runtime.block_on(async move {
            let proxy = Proxy::start(store, options, on_event).await.map_err(|e| e.to_string())?;
            let _ = started.send(proxy.address());
            let _ = stopped.await;
            proxy.stop().await;
            Ok(())
        })
    });
    (thread, address, stop)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let smoke = std::env::var_os("ALISIO_BENCH_SMOKE").is_some();
    let (small_runs, big_runs) = if smoke { (20, 3) } else { (500, 40) };
    let dir = tempfile::tempdir()?;
    let store = Arc::new(Store::open(&dir.path().join("sessions.db"))?);
    let direct = upstream()?;
    let options = ProxyOptions { upstream: direct.clone(), listen: "127.0.0.1:0".into(), workspace: "/tmp".into() };
    // Each recording is written after its answer has ended; the next request waits for it, as an
    // agent's next call comes seconds later — so a recording never competes with a measured answer.
    let recorded = Arc::new(AtomicUsize::new(0));
    let counter = recorded.clone();
    let (proxy_thread, address, stop) = start_proxy(store.clone(), options, counter);
    let address = address.await?;
    let settle = |expected: usize| {
        let recorded = recorded.clone();
        async move {
            while std::env::var_os("BENCH_PATH").is_none() && recorded.load(Ordering::SeqCst) < expected {
                tokio::time::sleep(Duration::from_micros(200)).await;
            }
        }
    };
    let mut sent = 0;
    let proxied = format!("http://{address}");
    let client = alisio_engine::provider::http_client_builder().build()?;
    let message = "a line of a long conversation, ".repeat(1600);
    let body = serde_json::json!({"model": "m", "stream": true, "messages": [{"role": "user", "content": message}]})
        .to_string();

    // Warm both paths (connections, the database).
    for _ in 0..5 {
        request(&client, &direct, &body, Answer::Small).await?;
        request(&client, &proxied, &body, Answer::Small).await?;
        sent += 1;
        settle(sent).await;
    }
    let (mut direct_ttfb, mut proxy_ttfb) = (Vec::new(), Vec::new());
    for _ in 0..small_runs {
        direct_ttfb.push(request(&client, &direct, &body, Answer::Small).await?.0);
        proxy_ttfb.push(request(&client, &proxied, &body, Answer::Small).await?.0);
        sent += 1;
        settle(sent).await;
    }
    let (d50, p50) = (percentile(&mut direct_ttfb, 0.5), percentile(&mut proxy_ttfb, 0.5));
    let (d90, p90) = (percentile(&mut direct_ttfb, 0.9), percentile(&mut proxy_ttfb, 0.9));
    println!(
        "time to first byte ({small_runs} requests of {} kB each way): direct p50 {:.3} ms p90 {:.3} ms; \
         through the proxy p50 {:.3} ms p90 {:.3} ms; added at p50: {:.3} ms (target ≤ 2 ms)",
        body.len() / 1000,
        ms(d50),
        ms(d90),
        ms(p50),
        ms(p90),
        ms(p50) - ms(d50)
    );

    for (answer, label) in [(Answer::Burst, "as fast as loopback carries it"), (Answer::Paced, "in events 1 ms apart")]
    {
        let (mut direct_big, mut proxy_big) = (Vec::new(), Vec::new());
        let mut received = 0;
        for _ in 0..big_runs {
            direct_big.push(request(&client, &direct, &body, answer).await?.1);
            let (_, took, bytes) = request(&client, &proxied, &body, answer).await?;
            proxy_big.push(took);
            received = bytes;
            sent += 1;
            settle(sent).await;
        }
        let (d, p) = (percentile(&mut direct_big, 0.5), percentile(&mut proxy_big, 0.5));
        println!(
            "a {:.1} MB answer streamed {label} ({big_runs} runs): direct median {:.2} ms, through the proxy \
             {:.2} ms: {:+.2} ms, {:+.1} % (target ≤ 5 %)",
            received as f64 / 1e6,
            ms(d),
            ms(p),
            ms(p) - ms(d),
            (ms(p) / ms(d) - 1.0) * 100.0
        );
    }
    let _ = stop.send(());
    proxy_thread.join().map_err(|_| "the proxy's thread panicked")??;
    let sessions = store.list_sessions()?;
    let recorded: usize = sessions.iter().map(|s| store.model_calls(&s.id).map(|c| c.len()).unwrap_or(0)).sum();
    let expected = 5 + small_runs + 2 * big_runs;
    println!("calls recorded: {recorded} of {expected}");
    if recorded != expected {
        return Err(format!("{recorded} calls recorded of {expected} sent").into());
    }
    Ok(())
}
