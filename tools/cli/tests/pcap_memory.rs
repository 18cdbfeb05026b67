//! `pmix-wire pcap` under an address-space limit (issue 44, item 6): a capture holding one
//! 16 MiB PMIx frame (the largest the default `--max-frame` accepts) is printed under
//! `ulimit -v 1000000` (about 1 GB) in every output form, never aborted (exit 134, "memory
//! allocation of N bytes failed"). A frame of one large value decodes (exit 0); one dense
//! with values (millions of one- or two-byte values) is decoded up to the pack call whose
//! values would hold more than the dissector's limit (`pmix_pcap::message::held_limit`, 16
//! bytes per payload byte) and the rest is flagged `PMIX_ERR_NOMEM` (exit 1). Before the fix
//! `--json` aborted on a single 1 MiB frame (the JSON tree of the whole message was built,
//! about 1.8 KB per pack call) and every form on a 16 MiB one (the message held every value
//! it decoded, 160 bytes and more per two-byte call).
//!
//! The captures are written here: a pcap file (link type RAW) of one loopback TCP
//! connection carrying a tool's connect message, the server's answer and one framed
//! request. `PMIX_WIRE_KEEP_PCAPS=DIR` keeps them in DIR (to measure by hand).

use std::path::PathBuf;
use std::process::Command;

use pmix_codec::{Codec, DataType, Info, Item, Value};
use pmix_ptl::{ConnectRequest, Identity};

const LIMIT_KB: u64 = 1_000_000;
/// The default `--max-frame`.
const FRAME: usize = 16 << 20;
const CLIENT: u16 = 40_000;
const SERVER: u16 = 5_000;

fn dir() -> PathBuf {
    let d = match std::env::var_os("PMIX_WIRE_KEEP_PCAPS") {
        Some(d) => PathBuf::from(d),
        None => std::env::temp_dir().join(format!("pmix-wire-pcap-memory-{}", std::process::id())),
    };
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// An IPv4/TCP packet on 127.0.0.1 (checksums left zero: the dissector does not check them).
fn ip_tcp(from: u16, to: u16, seq: u32, syn: bool, payload: &[u8]) -> Vec<u8> {
    let total = 40 + payload.len();
    assert!(total <= 65_535);
    let mut p = vec![0x45, 0];
    p.extend_from_slice(&(total as u16).to_be_bytes());
    p.extend_from_slice(&[0, 0, 0x40, 0, 64, 6, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1]);
    p.extend_from_slice(&from.to_be_bytes());
    p.extend_from_slice(&to.to_be_bytes());
    p.extend_from_slice(&seq.to_be_bytes());
    p.extend_from_slice(&1u32.to_be_bytes());
    let flags = if syn { 0x02 } else { 0x18 }; // SYN, or PSH|ACK
    p.extend_from_slice(&[0x50, flags, 0xff, 0xff, 0, 0, 0, 0]);
    p.extend_from_slice(payload);
    p
}

/// A pcap file (microsecond timestamps, link type RAW) of `packets`.
fn pcap(packets: &[Vec<u8>]) -> Vec<u8> {
    let mut f = Vec::new();
    f.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes());
    f.extend_from_slice(&2u16.to_le_bytes());
    f.extend_from_slice(&4u16.to_le_bytes());
    f.extend_from_slice(&[0; 8]);
    f.extend_from_slice(&65_535u32.to_le_bytes());
    f.extend_from_slice(&101u32.to_le_bytes());
    for (i, p) in packets.iter().enumerate() {
        f.extend_from_slice(&(i as u32).to_le_bytes());
        f.extend_from_slice(&0u32.to_le_bytes());
        f.extend_from_slice(&(p.len() as u32).to_le_bytes());
        f.extend_from_slice(&(p.len() as u32).to_le_bytes());
        f.extend_from_slice(p);
    }
    f
}

/// The tool's connect message (v61, non-described buffers) and the codec of its frames.
fn connect() -> (Vec<u8>, Codec) {
    let mut req = ConnectRequest::tool(
        Identity::ToolGivenId {
            nspace: "big".into(),
            rank: 0,
        },
        pmix_codec::Component::V61,
    );
    req.uid = 0;
    req.gid = 0;
    let codec = Codec::new(req.component, req.kind);
    (req.encode().unwrap().to_vec(), codec)
}

/// A capture of one connection: handshake, then one request frame carrying `payload`.
fn capture(payload: &[u8]) -> Vec<u8> {
    let (c, _) = connect();
    // the tool-given-id answer: status 0, the server's nspace and rank, security
    let mut a = vec![0u8; 268];
    a[4..10].copy_from_slice(b"server");
    let mut frame = vec![0, 0, 0, 0, 0, 0, 0, 7];
    frame.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    frame.extend_from_slice(&[0; 4]);
    frame.extend_from_slice(payload);
    let mut packets = vec![
        ip_tcp(CLIENT, SERVER, 0, true, &[]),
        ip_tcp(SERVER, CLIENT, 0, true, &[]),
        ip_tcp(CLIENT, SERVER, 1, false, &c),
        ip_tcp(SERVER, CLIENT, 1, false, &a),
    ];
    let mut seq = 1 + c.len() as u32;
    for chunk in frame.chunks(65_000) {
        packets.push(ip_tcp(CLIENT, SERVER, seq, false, chunk));
        seq += chunk.len() as u32;
    }
    pcap(&packets)
}

fn enc(codec: &Codec, items: &[Item]) -> Vec<u8> {
    codec.encode(items).unwrap()
}

/// `head` then copies of `unit` up to `len` bytes (whole copies), then `tail`.
fn fill(head: &[u8], unit: &[u8], len: usize, tail: &[u8]) -> (Vec<u8>, usize) {
    let n = (len - head.len() - tail.len()) / unit.len();
    let mut b = Vec::with_capacity(len);
    b.extend_from_slice(head);
    for _ in 0..n {
        b.extend_from_slice(unit);
    }
    b.extend_from_slice(tail);
    (b, n)
}

/// Dense request payloads of about `len` bytes: `(name, command, payload)`. Each is checked
/// against the codec's own encoding of a small instance of the same shape.
fn payloads(len: usize) -> Vec<(&'static str, &'static str, Vec<u8>)> {
    let (_, codec) = connect();
    let cmd = |c: u8| Item::one(Value::Command(c));
    let size = |n: u64| Item::one(Value::Size(n));
    let status = enc(&codec, &[Item::one(Value::Status(-1))]);
    let mut out = Vec::new();

    // deregister-events: a STATUS pack call per value, to the end (one item each)
    let (p, n) = fill(&enc(&codec, &[cmd(14)]), &status, len, &[]);
    let mut small = vec![cmd(14)];
    small.extend((0..3).map(|_| Item::one(Value::Status(-1))));
    assert_eq!(
        enc(&codec, &small),
        [enc(&codec, &[cmd(14)]), status.repeat(3)].concat()
    );
    assert!(n > len / 8);
    out.push(("status-calls", "deregister-events", p));

    // A pack call is its count, then its values: `bare` is a value without the count of a
    // one-value call (the count of a call is an INT32).
    let one_head = {
        let zero = enc(&codec, &[Item::one(Value::Int32(0))]);
        zero[..zero.len() - 1].to_vec()
    };
    assert_eq!(
        enc(&codec, &[Item::one(Value::Int32(1))]).len(),
        one_head.len() + 1
    );
    let bare = |v: Value| enc(&codec, &[Item::one(v)])[one_head.len()..].to_vec();
    let call = |k: usize, unit: &[u8]| [bare(Value::Int32(k as i32)), unit.repeat(k)].concat();

    // register-events: one counted STATUS pack call of all the values, then no infos
    let unit = bare(Value::Status(-1));
    for k in [1, 5, 300] {
        let want = enc(
            &codec,
            &[Item::new(DataType::STATUS, vec![Value::Status(-1); k])],
        );
        assert_eq!(call(k, &unit), want);
    }
    let head = |n: usize| {
        [
            enc(&codec, &[cmd(13), size(n as u64)]),
            bare(Value::Int32(n as i32)),
        ]
        .concat()
    };
    let tail = enc(&codec, &[size(0)]);
    let small = enc(
        &codec,
        &[
            cmd(13),
            size(3),
            Item::new(DataType::STATUS, vec![Value::Status(-1); 3]),
            size(0),
        ],
    );
    assert_eq!(small, [head(3), unit.repeat(3), tail.clone()].concat());
    let n = (len - head(len).len() - tail.len()) / unit.len();
    out.push((
        "status-array",
        "register-events",
        [head(n), unit.repeat(n), tail].concat(),
    ));

    // alloc: one info whose value is a DATA_ARRAY of UINT8, a byte per value
    let array = |k: usize| {
        enc(
            &codec,
            &[
                cmd(17),
                Item::one(Value::AllocDirective(1)),
                size(1),
                Item::one(Value::Info(Box::new(Info::new(
                    "big.bytes",
                    Value::array(DataType::UINT8, vec![Value::Uint8(0x5a); k]),
                )))),
            ],
        )
    };
    let empty = array(0);
    let size0 = bare(Value::Size(0));
    assert!(empty.ends_with(&size0));
    let prefix = &empty[..empty.len() - size0.len()];
    let with = |k: usize| [prefix, &bare(Value::Size(k as u64)), &vec![0x5a; k][..]].concat();
    assert_eq!(with(3), array(3));
    assert_eq!(with(300), array(300));
    let k = len - prefix.len() - bare(Value::Size(len as u64)).len();
    out.push(("byte-array", "alloc", with(k)));

    // commit: one scope and one BUFFER of almost all the bytes (a value that fits)
    let commit = |k: usize| {
        let buffer = pmix_codec::Buffer {
            kind: pmix_codec::BufferKind::NonDescribed as u8,
            bytes: vec![0x5a; k].into(),
        };
        enc(
            &codec,
            &[
                cmd(2),
                Item::one(Value::Scope(1)),
                Item::one(Value::Buffer(buffer)),
            ],
        )
    };
    let fixed = commit(0).len() - bare(Value::Size(0)).len();
    let k = len - fixed - bare(Value::Size(len as u64)).len();
    out.push(("one-buffer", "commit", commit(k)));
    for (name, _, p) in &out {
        assert!(p.len() <= len && p.len() > len - 16, "{name}: {}", p.len());
    }
    out
}

/// Run `pmix-wire pcap ARGS` under the limit; (exit code, stdout, stderr). An abort or a
/// signal is a test failure naming the command line.
fn limited(args: &[&str]) -> (i32, String, String) {
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!(r#"ulimit -v {LIMIT_KB}; exec "$0" "$@""#))
        .arg(env!("CARGO_BIN_EXE_pmix-wire"))
        .args(args)
        .output()
        .expect("run pmix-wire under ulimit");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let code = out.status.code();
    assert!(
        code.is_some() && code != Some(134) && !err.contains("memory allocation of"),
        "pmix-wire {} aborted under ulimit -v {LIMIT_KB} ({:?}): {err}",
        args.join(" "),
        out.status
    );
    (
        code.unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        err,
    )
}

/// The one message line of the tree output of a frame of `what`, and the end.
fn check_tree(name: &str, what: &str, out: &str) {
    assert!(
        out.starts_with("connection 1: 127.0.0.1:40000 -> 127.0.0.1:5000"),
        "{name}: {}",
        &out[..out.len().min(500)]
    );
    let line = out
        .lines()
        .find(|l| l.contains(&format!("client -> server {what} tag 7")))
        .unwrap_or_else(|| {
            panic!(
                "{name}: no {what} message in {}",
                &out[..out.len().min(2000)]
            )
        });
    assert!(line.contains("bytes]"), "{name}: {line}");
    assert!(
        out.lines().last().unwrap().starts_with("capture: "),
        "{name}: no stats line"
    );
}

/// Every line one JSON object; the message's `what`, its payload as hex, and the stats last.
fn check_json(name: &str, what: &str, payload: &[u8], out: &str) {
    let events: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{name}: {e}")))
        .collect();
    let m = events
        .iter()
        .find(|e| e["event"] == "message" && e["what"] == what)
        .unwrap_or_else(|| panic!("{name}: no {what} message"));
    let wire = m["wire"].as_str().unwrap();
    assert_eq!(wire.len(), 2 * payload.len(), "{name}");
    assert!(wire.starts_with(&format!("{:02x}", payload[0])), "{name}");
    let items = m["items"].as_array().unwrap();
    let problems = m["problems"].as_array().unwrap();
    assert!(!items.is_empty() || !problems.is_empty(), "{name}");
    assert_eq!(events.last().unwrap()["event"], "stats", "{name}");
}

#[test]
fn a_sixteen_mib_frame_prints_in_every_form_within_a_gigabyte() {
    let d = dir();
    for (name, what, payload) in payloads(FRAME) {
        let f = d.join(format!("{name}.pcap"));
        std::fs::write(&f, capture(&payload)).unwrap();
        let f = f.to_str().unwrap();
        for mode in ["tree", "--summary", "--json"] {
            let mut args = vec!["pcap", f];
            if mode != "tree" {
                args.insert(1, mode);
            }
            let (code, out, err) = limited(&args);
            // a buffer is one value and fits; the others are millions of values, and their
            // message is decoded up to the call that would hold too much: a problem of error
            // level (exit 1) named PMIX_ERR_NOMEM, the message still printed
            if name == "one-buffer" {
                assert_eq!(code, 0, "{name} {mode}: {err}");
            } else {
                assert_eq!(code, 1, "{name} {mode}: {err}");
                assert!(out.contains("PMIX_ERR_NOMEM"), "{name} {mode}");
            }
            match mode {
                "tree" => check_tree(name, what, &out),
                "--json" => check_json(name, what, &payload, &out),
                _ => assert!(
                    out.lines().any(|l| l.contains(&format!("{what} tag 7"))),
                    "{name}: {out}"
                ),
            }
            eprintln!("{name} {mode}: exit {code}, {} bytes out", out.len());
        }
    }
    if std::env::var_os("PMIX_WIRE_KEEP_PCAPS").is_none() {
        let _ = std::fs::remove_dir_all(&d);
    }
}
