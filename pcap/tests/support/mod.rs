//! Shared by the live-capture tests: the dissection of a capture by connection, and the
//! comparison of a dissected connection with the conversation a peer logged. The servers,
//! tcpdump and the real libraries come from `pmix-testsupport`.
#![allow(dead_code)]

use pmix_codec::{Codec, DataType, Value};
use pmix_pcap::{Event, Message, Options, Severity, Side};
use serde_json::Value as J;

pub use pmix_testsupport::*;

/// Dissect a capture: the events, and the messages grouped by connection in order.
pub fn dissect(bytes: &[u8]) -> (Vec<Event>, Vec<Vec<Message>>) {
    let (events, r) = pmix_pcap::dissect_bytes(bytes, Options::default());
    r.expect("the capture reads to its end");
    let conns = pmix_pcap::conversation::by_connection(&events);
    (events, conns)
}

/// Problems of error level anywhere in the events, as text.
pub fn errors(events: &[Event]) -> Vec<String> {
    let mut out = Vec::new();
    for e in events {
        match e {
            Event::Message(m) => {
                for p in m.problems.iter().filter(|p| p.severity == Severity::Error) {
                    out.push(format!(
                        "conn {} #{} {}: {}",
                        m.conn, m.number, m.what, p.text
                    ));
                }
            }
            Event::Problem { problem, conn, .. } if problem.severity == Severity::Error => {
                out.push(format!("conn {conn:?}: {}", problem.text))
            }
            _ => {}
        }
    }
    out
}

/// Check that a dissected connection is the conversation the tool logged
/// ([`pmix_pcap::conversation::compare`]).
pub fn assert_same_conversation(msgs: &[Message], vector: &J) {
    if let Err(e) = pmix_pcap::conversation::compare(msgs, vector, Side::Client) {
        panic!("the capture differs from the peer's log: {e}");
    }
}

pub use pmix_pcap::conversation::connections;

/// The keys of the KVALs a commit's buffers carry (decoded with the connection's codec),
/// by the scope each buffer was packed for.
pub fn committed_keys(codec: &Codec, commit: &Message) -> Vec<(u8, Vec<String>)> {
    let mut out: Vec<(u8, Vec<String>)> = Vec::new();
    for v in commit.items.iter().flat_map(|i| &i.values) {
        match v {
            Value::Scope(s) => out.push((*s, Vec::new())),
            Value::Buffer(b) => {
                let keys = &mut out.last_mut().expect("a scope before its buffer").1;
                let mut u = codec.unpacker(&b.bytes[..]);
                while u.remaining() > 0 {
                    let item = u.unpack(DataType::KVAL, 1).expect("a KVAL");
                    if let Some(Value::Kval(k)) = item.values.first() {
                        keys.push(k.key.as_ref().map(|t| t.to_string()).unwrap_or_default());
                    }
                }
                keys.sort();
            }
            _ => {}
        }
    }
    out.sort();
    out
}

/// One rank of `server/clients/client.c` (`collect` mode) as the capture shows it: a
/// client of `release` (its version string starts with the release's major.minor), every
/// framed message decoded without a problem and re-encoded to the captured bytes
/// ([`pmix_pcap::conversation::check_reencodes`]), every request answered on its tag, the
/// program's order (req first, commit, fence, get, finalize last), commit, fence and
/// finalize answered 0, the commit carrying its keys by scope, the fence asking for
/// the data to be collected. Returns the number of framed messages checked.
pub fn check_client_program(
    what: &str,
    release: &str,
    info: &pmix_pcap::ConnInfo,
    msgs: &[Message],
    puts_values: bool,
) -> usize {
    assert_eq!(msgs[0].conn, info.id, "{what}");
    assert_eq!(
        info.kind.map(pmix_pcap::handshake::kind_name),
        Some("client"),
        "{what}"
    );
    let version = info.version.clone().unwrap_or_default();
    let major_minor: String = release.split('.').take(2).collect::<Vec<_>>().join(".");
    assert!(version.starts_with(&major_minor), "{what}: {version}");
    let checked = pmix_pcap::conversation::check_reencodes(info, msgs)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let requests: Vec<&Message> = msgs[2..]
        .iter()
        .filter(|m| m.from == Side::Client)
        .collect();
    let reply_of = |r: &Message| -> &Message {
        msgs.iter()
            .find(|m| m.reply_to == Some(r.number))
            .unwrap_or_else(|| panic!("{what}: #{} {} has no reply", r.number, r.what))
    };
    for r in &requests {
        let reply = reply_of(r);
        assert_eq!(reply.what, format!("reply:{}", r.what), "{what}");
        assert_eq!(reply.tag, r.tag, "{what}");
    }
    let whats: Vec<&str> = requests.iter().map(|m| m.what.as_str()).collect();
    eprintln!(
        "{what}: {} {} {version}, requests {whats:?}",
        info.component.unwrap(),
        info.buffer.unwrap().name()
    );
    for w in ["req", "commit", "fence", "get", "finalize"] {
        assert!(whats.contains(&w), "{what}: no {w} in {whats:?}");
    }
    assert_eq!(whats.first(), Some(&"req"), "{what}: {whats:?}");
    assert_eq!(whats.last(), Some(&"finalize"), "{what}: {whats:?}");
    let request = |w: &str| *requests.iter().find(|m| m.what == w).unwrap();
    for w in ["commit", "fence", "finalize"] {
        assert_eq!(reply_of(request(w)).status, Some(0), "{what}: reply to {w}");
    }
    let codec = Codec::new(info.component.unwrap(), info.buffer.unwrap());
    // a GLOBAL value goes out in both the LOCAL (1) and the REMOTE (2) buffer; t.vals, the
    // data array of VALUEs server/clients/client.c puts last, only where it does (`puts_values`:
    // the checked-in fixtures were recorded before it did)
    let global: Vec<&str> = ["t.bo", "t.bool", "t.dbl", "t.proc", "t.str", "t.vals"]
        .into_iter()
        .filter(|k| puts_values || *k != "t.vals")
        .collect();
    let with = |k: &str| {
        let mut v: Vec<String> = global.iter().chain([&k]).map(|s| s.to_string()).collect();
        v.sort();
        v
    };
    assert_eq!(
        committed_keys(&codec, request("commit")),
        [(1, with("t.u32")), (2, with("t.i64"))],
        "{what}"
    );
    let fence = request("fence");
    assert!(
        fence.items.iter().flat_map(|i| &i.values).any(|v| matches!(
            v, Value::Info(i) if i.key.to_string() == "pmix.collect"
                && matches!(i.value, Value::Bool(true)))),
        "{what}: {:?}",
        fence.items
    );
    checked
}

/// A capture of two ranks of `server/clients/client.c`: two PMIx connections and no
/// capture-level problem, each connection checked by [`check_client_program`]. Returns the
/// connections, their messages and the number of framed messages checked.
pub fn check_client_program_capture(
    what: &str,
    release: &str,
    bytes: &[u8],
    puts_values: bool,
) -> (Vec<pmix_pcap::ConnInfo>, Vec<Vec<Message>>, usize) {
    let (events, conns) = dissect(bytes);
    let infos = connections(&events);
    assert_eq!(infos.len(), 2, "{what}: two ranks, two connections");
    assert_eq!(conns.len(), 2, "{what}");
    let problems: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            Event::Problem { problem, .. } => Some(problem.text.clone()),
            _ => None,
        })
        .collect();
    assert!(problems.is_empty(), "{what}: {problems:?}");
    let mut checked = 0;
    for (info, msgs) in infos.iter().zip(&conns) {
        let what = format!("{what} connection {}", info.id);
        checked += check_client_program(&what, release, info, msgs, puts_values);
    }
    (infos, conns, checked)
}
