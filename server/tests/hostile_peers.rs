//! pmix-server bounded under hostile peers (issue 41, item 5): each attack runs against a
//! `pmix-server` process under `ulimit -v 1000000` (about 1 GB) while a real libpmix 4.2.2
//! client (`server/clients/steady.c`) is served alongside. For every attack the server
//! stays up, the real client's fence is answered within 1 s, the server's peak resident
//! memory (VmHWM) stays under 256 MB, and the offending peer gets a PMIx error status or
//! its connection closed. The counts are scaled to show the bound trigger, not to send
//! gigabytes: each test takes seconds.
//!
//! `PMIX_HOSTILE_SERVER=PATH` runs the attacks against another build of `pmix-server` (an
//! earlier one, to measure what the bounds changed).
//!
//! The hostile clients are ranks of the job that speak the wire directly (a client
//! handshake, then raw frames); the hostile tools are `pmix-peer` tools.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use pmix_codec::{
    BufferKind, Codec, Component, DataType, Item, Kval, Release, Status, Unpacker, Value,
};
use pmix_peer::conn::Verdict;
use pmix_peer::frame::{Header, HEADER_LEN};
use pmix_peer::{ConnectRequest, Identity, Limits, Peer, ServerUri};
use pmix_testsupport::{build, release_available, repo, Built};

/// The address-space limit of the server (KiB), as `memory_limits.rs` uses.
const ULIMIT_KB: u64 = 1_000_000;
/// The server's peak resident memory must stay under this.
const MAX_RSS_KB: u64 = 256 * 1024;
/// The real client's fence must be answered within this.
const MAX_LATENCY: Duration = Duration::from_secs(1);

const NSPACE: &str = "hostile-job";

fn real_client() -> Option<Built> {
    if !release_available("4.2.2", "pmix-server was NOT tested under hostile peers") {
        return None;
    }
    Some(build(
        "4.2.2",
        "steady",
        &repo().join("server/clients/steady.c"),
        None,
    ))
}

/// Lines a child prints, read by a thread.
fn lines_of(r: impl Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for l in BufReader::new(r).lines().map_while(Result::ok) {
            if tx.send(l).is_err() {
                break;
            }
        }
    });
    rx
}

/// `pmix-server` under the address-space limit.
struct Srv {
    child: Child,
    uri: ServerUri,
    /// Per rank, its environment (`launch --env-only`).
    envs: Vec<Vec<(String, String)>>,
    /// The server's standard error (where a spawned process's output goes).
    err: Receiver<String>,
    _stdin: Option<ChildStdin>,
}

fn uri_file() -> PathBuf {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    std::env::temp_dir().join(format!("pw-hostile-{}-{n}", std::process::id()))
}

fn limited(args: &[String]) -> Command {
    let mut c = Command::new("bash");
    c.arg("-c")
        .arg(format!("ulimit -v {ULIMIT_KB} && exec \"$@\""))
        .arg("bash")
        .arg(
            std::env::var_os("PMIX_HOSTILE_SERVER")
                .unwrap_or(env!("CARGO_BIN_EXE_pmix-server").into()),
        )
        .args(args);
    c
}

impl Srv {
    /// `launch -n N --env-only`: clients of a job of `n` ranks are served as they come.
    fn launch(n: u32, extra: &[&str]) -> Srv {
        let file = uri_file();
        let mut args: Vec<String> = ["launch", "-n", &n.to_string(), "--nspace", NSPACE]
            .iter()
            .map(|s| s.to_string())
            .collect();
        args.extend(["--env-only", "--timeout", "120", "--report-uri"].map(String::from));
        args.push(file.display().to_string());
        args.extend(extra.iter().map(|s| s.to_string()));
        let mut child = limited(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let out = lines_of(child.stdout.take().unwrap());
        let err = lines_of(child.stderr.take().unwrap());
        let mut envs: Vec<Vec<(String, String)>> = Vec::new();
        while envs.len() < n as usize || envs[n as usize - 1].len() < 4 || {
            let last = &envs[n as usize - 1];
            last.last().is_none_or(|(k, _)| k != "PMIX_SYSTEM_TMPDIR")
        } {
            let line = out
                .recv_timeout(Duration::from_secs(20))
                .expect("the ranks' environment");
            if line.starts_with("# rank") {
                envs.push(Vec::new());
            } else if let Some((k, v)) = line.split_once('=') {
                envs.last_mut().unwrap().push((k.into(), v.into()));
            }
        }
        let uri = ServerUri::from_file(&file).unwrap();
        let _ = std::fs::remove_file(&file);
        Srv {
            child,
            uri,
            envs,
            err,
            _stdin: None,
        }
    }

    /// `serve`: tools and the jobs they spawn, the reference model as host.
    fn serve(extra: &[&str]) -> Srv {
        let file = uri_file();
        let mut args = vec![
            "serve".to_string(),
            "--report-uri".into(),
            file.display().to_string(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        let mut child = limited(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let out = lines_of(child.stdout.take().unwrap());
        let err = lines_of(child.stderr.take().unwrap());
        out.recv_timeout(Duration::from_secs(20))
            .expect("the server's URI");
        let uri = ServerUri::from_file(&file).unwrap();
        let _ = std::fs::remove_file(&file);
        Srv {
            _stdin: child.stdin.take(),
            child,
            uri,
            envs: Vec::new(),
            err,
        }
    }

    fn addr(&self) -> SocketAddr {
        self.uri.addr
    }

    /// The server is still running.
    fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// A field of the server's `/proc/PID/status`, in KiB.
    fn status_kb(&self, field: &str) -> u64 {
        let s = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        s.lines()
            .find(|l| l.starts_with(field))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no {field} in {s}"))
    }

    /// The server is up and its peak resident memory stayed under the bound; the peak.
    fn check_bounded(&mut self, what: &str) -> u64 {
        assert!(self.alive(), "{what}: the server died");
        let hwm = self.status_kb("VmHWM:");
        assert!(
            hwm < MAX_RSS_KB,
            "{what}: the server's peak resident memory is {hwm} KiB"
        );
        hwm
    }
}

impl Drop for Srv {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The real libpmix client, one fence per request.
struct Steady {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Steady {
    fn start(b: &Built, env: &[(String, String)]) -> Steady {
        let mut child = Command::new(&b.program)
            .arg("stdin")
            .env_clear()
            .envs(env.iter().cloned())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let lines = lines_of(child.stdout.take().unwrap());
        let hello = lines
            .recv_timeout(Duration::from_secs(10))
            .expect("the real client's init");
        assert!(hello.starts_with("steady ready"), "{hello}");
        Steady {
            stdin: child.stdin.take().unwrap(),
            child,
            lines,
        }
    }

    /// One fence, answered 0; how long it took, as the test saw it.
    fn fence(&mut self) -> Duration {
        let t = Instant::now();
        writeln!(self.stdin, "fence").unwrap();
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(20))
            .expect("the real client's fence is answered");
        let took = t.elapsed();
        assert!(line.starts_with("fence 0 "), "the real client: {line}");
        took
    }

    /// A fence answered within the bound; its latency.
    fn fence_in_time(&mut self, what: &str) -> Duration {
        let took = self.fence();
        assert!(
            took < MAX_LATENCY,
            "{what}: the real client waited {took:?}"
        );
        took
    }

    fn finish(mut self) {
        writeln!(self.stdin, "quit").unwrap();
        let status = self.child.wait().unwrap();
        assert!(status.success(), "the real client failed: {status}");
    }
}

/// The codec a 4.2.2 client speaking v41 is answered in.
fn codec() -> Codec {
    Codec::new(Component::V41, BufferKind::NonDescribed).with_release(Release::OpenPmix4_2)
}

/// A rank of the job that speaks the wire itself.
struct RawClient {
    s: TcpStream,
    codec: Codec,
    tag: u32,
}

impl RawClient {
    fn connect(addr: SocketAddr, rank: u32) -> RawClient {
        let mut body = Vec::new();
        body.extend_from_slice(b"native\0");
        body.extend_from_slice(&8u32.to_be_bytes());
        body.extend_from_slice(&[0u8; 8]);
        body.push(0); // a simple client
        body.extend_from_slice(NSPACE.as_bytes());
        body.push(0);
        body.extend_from_slice(&rank.to_be_bytes());
        body.extend_from_slice(b"4.2.2\0v41\0\x01hash\0");
        let mut wire = bytes::BytesMut::new();
        Header {
            pindex: -1,
            tag: u32::MAX,
            nbytes: body.len() as u32,
        }
        .encode_connect(&mut wire);
        wire.extend_from_slice(&body);
        let mut s = TcpStream::connect(addr).unwrap();
        s.write_all(&wire).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut reply = [0u8; 8];
        s.read_exact(&mut reply).unwrap();
        assert_eq!(&reply[..4], &[0, 0, 0, 0], "rank {rank} refused");
        RawClient {
            s,
            codec: codec(),
            tag: 100,
        }
    }

    /// Send one request of `items`; its tag.
    fn send(&mut self, items: &[Item]) -> u32 {
        let payload = self.codec.encode(items).unwrap();
        self.tag += 1;
        let mut wire = bytes::BytesMut::new();
        Header {
            pindex: 0,
            tag: self.tag,
            nbytes: payload.len() as u32,
        }
        .encode(&mut wire);
        wire.extend_from_slice(&payload);
        self.s.write_all(&wire).unwrap();
        self.tag
    }

    /// The next reply within `bound`: its tag and status; `None` when none came.
    fn reply(&mut self, bound: Duration) -> Option<(u32, i32)> {
        read_reply(&mut self.s, &self.codec, bound)
    }
}

fn read_reply(s: &mut TcpStream, codec: &Codec, bound: Duration) -> Option<(u32, i32)> {
    s.set_read_timeout(Some(bound)).unwrap();
    let mut hdr = [0u8; HEADER_LEN];
    s.read_exact(&mut hdr).ok()?;
    let h = Header::parse(&hdr)?;
    let mut p = vec![0u8; h.nbytes as usize];
    s.read_exact(&mut p).ok()?;
    let mut u: Unpacker<'_> = codec.unpacker(&p[..]);
    match u.unpack(DataType::STATUS, 1).ok()?.values.pop()? {
        Value::Status(st) => Some((h.tag, st)),
        _ => None,
    }
}

fn getnb(target: u32, key: &str) -> Vec<Item> {
    vec![
        Item::one(Value::Command(4)),
        Item::one(Value::string(NSPACE)),
        Item::one(Value::ProcRank(target)),
        Item::one(Value::Size(0)),
        Item::one(Value::string(key)),
    ]
}

fn tool_limits() -> Limits {
    Limits {
        connect: Duration::from_secs(5),
        handshake: Duration::from_secs(5),
        reply: Duration::from_millis(300),
        ..Limits::default()
    }
}

fn tool(uri: &ServerUri) -> pmix_peer::Result<Peer> {
    let req = ConnectRequest::tool(Identity::ToolNeedsId, Component::V61);
    Peer::connect(uri, &req, tool_limits())
}

/// A steady-state header claiming `nbytes`, then `sent` bytes of its payload.
fn claim(nbytes: u32, sent: usize) -> Vec<u8> {
    let mut b = bytes::BytesMut::with_capacity(HEADER_LEN + sent);
    Header {
        pindex: 0,
        tag: 4242,
        nbytes,
    }
    .encode(&mut b);
    b.resize(HEADER_LEN + sent, 0x5a);
    b.to_vec()
}

/// Connections that each send a 16 MiB header and the payload less one byte: the server
/// holds four of them (`--max-buffered`, 64 MiB by default) and closes every one that would
/// go over; before, 40 reached 660 MB and the 59th aborted it under 2 GB.
#[test]
fn partial_frames_are_capped_across_connections() {
    let Some(b) = real_client() else { return };
    let mut srv = Srv::launch(1, &[]);
    let mut steady = Steady::start(&b, &srv.envs[0]);
    let mut held = Vec::new();
    let mut closed = 0;
    let mut worst = Duration::ZERO;
    for n in 0..12 {
        let mut t = tool(&srv.uri).expect("a tool connects");
        let big = (16u32 << 20) - 1;
        match t.send_header_and_bytes(&claim(big, big as usize - 1)) {
            Ok(Verdict::Silent) => held.push(t),
            Ok(Verdict::Dropped) | Err(_) => closed += 1,
            Ok(v) => panic!("connection {n}: {v:?}"),
        }
        worst = worst.max(steady.fence_in_time(&format!("after connection {n}")));
    }
    assert_eq!(held.len(), 4, "16 MiB partial frames held under 64 MiB");
    assert_eq!(closed, 8);
    let hwm = srv.check_bounded("partial frames");
    // the connections it holds still complete their frames and are answered
    steady.fence_in_time("at the end");
    println!(
        "partial frames: {} held, {closed} closed; peak RSS {hwm} KiB; client's worst fence {worst:?}",
        held.len()
    );
    drop(held);
    steady.finish();
}

/// GETNB for a rank that never commits: keys longer than `PMIX_MAX_KEYLEN` are refused at
/// once (`PMIX_ERR_BAD_PARAM`), and a connection has at most 1024 gets waiting; the next
/// are answered `PMIX_ERR_OUT_OF_RESOURCE`. Before, 600 gets with 1 MiB keys reached
/// 615 MB, and about 1,000 aborted the server under 1.5 GB.
#[test]
fn pending_gets_are_capped_per_peer() {
    let Some(b) = real_client() else { return };
    // rank 0 the real client, rank 1 hostile, rank 2 never connects
    let mut srv = Srv::launch(3, &[]);
    let mut steady = Steady::start(&b, &srv.envs[0]);
    let mut h = RawClient::connect(srv.addr(), 1);
    let huge = "k".repeat(1 << 20);
    for _ in 0..32 {
        let tag = h.send(&getnb(2, &huge));
        assert_eq!(
            h.reply(Duration::from_secs(5)),
            Some((tag, Status::ERR_BAD_PARAM.0)),
            "a 1 MiB key"
        );
    }
    let key = |i: usize| format!("{i:0>500}");
    let sent = 1100;
    let t = Instant::now();
    for i in 0..sent {
        h.send(&getnb(2, &key(i)));
    }
    let mut refused = 0;
    while let Some((_, st)) = h.reply(Duration::from_millis(500)) {
        assert_eq!(st, Status::ERR_OUT_OF_RESOURCE.0);
        refused += 1;
    }
    let took = t.elapsed();
    assert_eq!(refused, sent - pmix_server::state::MAX_PENDING_GETS);
    let worst = steady.fence_in_time("with 1024 gets waiting");
    let hwm = srv.check_bounded("pending gets");
    println!("pending gets: {refused} of {sent} refused in {took:?}; peak RSS {hwm} KiB; client's fence {worst:?}");
    steady.finish();
}

/// One COMMIT of 100,000 distinct keys is stored in time linear in its size: the committer
/// is answered, and the real client's fence sent right after it, within 1 s. Before, it
/// held the event loop for 43 s.
#[test]
fn a_commit_of_100000_keys_holds_no_one_up() {
    let Some(b) = real_client() else { return };
    let mut srv = Srv::launch(2, &[]);
    let mut steady = Steady::start(&b, &srv.envs[0]);
    let mut h = RawClient::connect(srv.addr(), 1);
    let n = 100_000u32;
    // one pack call per KVAL, as PMIx_Put's values are packed
    let kvs: Vec<Item> = (0..n)
        .map(|i| {
            Item::one(Value::Kval(Box::new(Kval {
                key: Some(format!("key-{i}").as_str().into()),
                value: Value::Uint32(i),
            })))
        })
        .collect();
    let inner = h.codec.encode(&kvs).unwrap();
    let commit = [
        Item::one(Value::Command(2)),
        Item::one(Value::Scope(3)), // PMIX_GLOBAL
        Item::one(Value::Buffer(pmix_codec::Buffer {
            kind: 1,
            bytes: inner.into(),
        })),
    ];
    let t = Instant::now();
    let tag = h.send(&commit);
    let fence = steady.fence_in_time("right after a 100,000-key commit");
    let answered = h.reply(Duration::from_secs(60));
    let took = t.elapsed();
    assert_eq!(answered, Some((tag, 0)), "the commit");
    assert!(took < MAX_LATENCY, "the commit took {took:?}");
    // the last key is served
    let tag = h.send(&getnb(1, &format!("key-{}", n - 1)));
    assert_eq!(h.reply(Duration::from_secs(5)), Some((tag, 0)));
    let hwm = srv.check_bounded("a large commit");
    println!(
        "commit of {n} keys: answered in {took:?}; peak RSS {hwm} KiB; client's fence {fence:?}"
    );
    steady.finish();
}

/// FENCENB repeated by one rank (over itself and a rank that never comes): it is in at
/// most 64 fences; every further one is answered `PMIX_ERR_OUT_OF_RESOURCE` at once, and
/// the real client's fences go through meanwhile. Before, 60,000 left it waiting 9 to 12 s.
#[test]
fn pending_fences_are_capped_per_rank() {
    let Some(b) = real_client() else { return };
    let mut srv = Srv::launch(3, &[]);
    let mut steady = Steady::start(&b, &srv.envs[0]);
    let mut h = RawClient::connect(srv.addr(), 1);
    let fence = [
        Item::one(Value::Command(3)),
        Item::one(Value::Size(2)),
        Item::new(
            DataType::PROC,
            vec![Value::proc(NSPACE, 1), Value::proc(NSPACE, 2)],
        ),
        Item::one(Value::Size(0)),
    ];
    let sent = 60_000usize;
    // the answers are read as they come (a peer that does not read is paused)
    let mut rs = h.s.try_clone().unwrap();
    let c = h.codec;
    let reader = std::thread::spawn(move || {
        let mut refused = 0usize;
        while let Some((_, st)) = read_reply(&mut rs, &c, Duration::from_secs(2)) {
            assert_eq!(st, Status::ERR_OUT_OF_RESOURCE.0);
            refused += 1;
        }
        refused
    });
    let t = Instant::now();
    let writer = std::thread::spawn(move || {
        for _ in 0..sent {
            h.send(&fence);
        }
        h
    });
    let mut worst = Duration::ZERO;
    while !writer.is_finished() {
        worst = worst.max(steady.fence_in_time("during the fences"));
    }
    let _h = writer.join().unwrap();
    let written = t.elapsed();
    let refused = reader.join().unwrap();
    assert_eq!(refused, sent - pmix_server::state::MAX_PENDING_FENCES);
    worst = worst.max(steady.fence_in_time("after the fences"));
    let hwm = srv.check_bounded("pending fences");
    println!("pending fences: {refused} of {sent} refused, written in {written:?}; peak RSS {hwm} KiB; client's worst fence {worst:?}");
    steady.finish();
}

/// Idle tools fill their own limit (`--max-tools`, 256 by default; one more is refused
/// `PMIX_ERR_OUT_OF_RESOURCE`), never the clients': a real client connects and is served
/// with 300 tools idle and 300 sockets that never finish their handshake (only the 64
/// that came last wait; the oldest are closed). Before, 1,024 idle tools locked clients
/// out (-25).
#[test]
fn idle_tools_and_silent_sockets_cannot_lock_clients_out() {
    let Some(b) = real_client() else { return };
    let mut srv = Srv::launch(1, &[]);
    let mut tools = Vec::new();
    let mut refused = 0;
    for _ in 0..300 {
        match tool(&srv.uri) {
            Ok(t) => tools.push(t),
            Err(e) => {
                assert_eq!(e.status(), Status::ERR_OUT_OF_RESOURCE, "{e}");
                refused += 1;
            }
        }
    }
    assert_eq!((tools.len(), refused), (256, 44));
    let silent: Vec<TcpStream> = (0..300)
        .map(|_| TcpStream::connect(srv.addr()).unwrap())
        .collect();
    // the first silent socket is closed long before the 10 s handshake bound
    silent[0]
        .set_read_timeout(Some(Duration::from_secs(3)))
        .unwrap();
    let mut buf = [0u8; 1];
    let first = (&silent[0]).read(&mut buf);
    assert!(
        match &first {
            Ok(n) => *n == 0,
            Err(e) => !matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ),
        },
        "the oldest silent socket is still waiting: {first:?}"
    );
    let t = Instant::now();
    let mut steady = Steady::start(&b, &srv.envs[0]);
    let init = t.elapsed();
    assert!(
        init < MAX_LATENCY * 2,
        "the real client's init took {init:?}"
    );
    let fence = steady.fence_in_time("with 256 tools idle");
    let hwm = srv.check_bounded("idle tools");
    println!("idle tools: {} connected, {refused} refused; real client's init {init:?}, fence {fence:?}; peak RSS {hwm} KiB", tools.len());
    steady.finish();
    drop(silent);
}

/// A spawn asking for 2^31-1 processes (or more than `--max-spawn-procs` in all) is
/// answered `PMIX_ERR_OUT_OF_RESOURCE` before anything is sized by it, while a real client
/// the server spawned keeps its fences answered. Before, one such spawn aborted `serve`
/// under 3 GB.
#[test]
fn a_spawn_of_two_billion_processes_is_refused_up_front() {
    let Some(b) = real_client() else { return };
    let mut srv = Srv::serve(&[]);
    let app = |argv: &[&str], maxprocs: i32| pmix_codec::App {
        cmd: Some(b.program.as_str().into()),
        argv: argv.iter().map(|a| Some((*a).into())).collect(),
        maxprocs,
        ..Default::default()
    };
    let mut a = tool(&srv.uri).unwrap();
    let steady = a
        .spawn(vec![], vec![app(&[&b.program, "loop", "30"], 1)])
        .unwrap();
    assert_eq!(steady.status, 0, "the real client's spawn");
    let mut h = tool(&srv.uri).unwrap();
    for (what, apps) in [
        ("2^31-1", vec![app(&["x"], i32::MAX)]),
        ("1025", vec![app(&["x"], 1025)]),
        ("2 x 600", vec![app(&["x"], 600), app(&["x"], 600)]),
    ] {
        let t = Instant::now();
        let r = h.spawn(vec![], apps).unwrap();
        assert_eq!(r.status, Status::ERR_OUT_OF_RESOURCE.0, "{what}");
        assert!(t.elapsed() < MAX_LATENCY, "{what}: {:?}", t.elapsed());
    }
    // the real client's own report: 30 fences 100 ms apart, through the attack
    let deadline = Instant::now() + Duration::from_secs(30);
    let report = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = srv
            .err
            .recv_timeout(left)
            .expect("the real client's report");
        if line.starts_with("steady: ") {
            break line;
        }
    };
    let max_ms: f64 = report
        .split("max ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{report}"));
    assert!(report.ends_with("failed 0"), "{report}");
    assert!(max_ms < 1000.0, "{report}");
    let hwm = srv.check_bounded("spawn");
    println!("spawn: refused; real client {report}; peak RSS {hwm} KiB");
}
