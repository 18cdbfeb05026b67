//! Captured for real: unmodified libpmix clients of every release (`server/clients/client.c`:
//! init, job-info gets, put of seven value classes, commit, fence collecting data, get of
//! the other rank's values, an allocation request, finalize), two ranks launched by a plain
//! OpenPMIx server of the same release (`server/bench/openpmix-launcher.c`: the library's
//! own server with gds `hash`), with tcpdump on the loopback of a private network
//! namespace, so that the capture holds this job's traffic and nothing else.
//!
//! Neither end logs its conversation, so the capture is held to the codec's expectation
//! ([`pmix_pcap::conversation::check_reencodes`]): every framed message decodes to its end
//! by its command's grammar without a single problem, and the pack calls read encode
//! again, in the negotiated component and the sender's release, to exactly the bytes on
//! the wire. On top of that, the conversation is the one the client program makes: each
//! request of init, commit, fence, get, finalize is answered on its tag, the commit
//! carries the client's seven keys, the fence asks for the data to be collected, and the
//! statuses are those the client saw.
//!
//! Needs tcpdump, `unshare --net` (root) and the releases of `bash tools/peers.sh list`;
//! says so loudly for whatever is missing, and fails under CI.

mod support;

use pmix_codec::{Codec, DataType, Value};
use pmix_pcap::conversation::check_reencodes;
use pmix_pcap::{ConnInfo, Event, Message, Side};
use support::*;

/// The statuses of a message's first STATUS item.
fn status(m: &Message) -> Option<i32> {
    m.status
}

/// The keys of the KVALs a commit's buffers carry (decoded with the connection's codec),
/// by the scope each buffer was packed for.
fn committed_keys(codec: &Codec, commit: &Message) -> Vec<(u8, Vec<String>)> {
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

/// One release: capture the job, dissect it, check every connection. Returns the
/// number of framed messages checked.
fn capture_release(release: &str) -> usize {
    let client = build(
        release,
        "client",
        &repo().join("server/clients/client.c"),
        None,
    );
    let launcher = build(
        release,
        "launcher",
        &repo().join("server/bench/openpmix-launcher.c"),
        None,
    );
    let file = client.dir.join("capture.pcap");
    let argv = launcher.argv(&["2", &client.program, "collect"]);
    let (out, bytes) = capture_run(&file, &argv, 120).expect("the capture runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{release}: {text}");
    assert_eq!(text.matches(", 0 failures").count(), 2, "{release}: {text}");
    if let Some(keep) = std::env::var_os("PMIX_PCAP_KEEP") {
        std::fs::create_dir_all(&keep).unwrap();
        std::fs::write(
            std::path::Path::new(&keep).join(format!("openpmix-{release}-clients.pcap")),
            &bytes,
        )
        .unwrap();
    }

    let (events, conns) = dissect(&bytes);
    let infos: Vec<ConnInfo> = events
        .iter()
        .filter_map(|e| match e {
            Event::Connection(c) => Some(c.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(infos.len(), 2, "{release}: two ranks, two connections");
    assert_eq!(conns.len(), 2, "{release}");
    let problems: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            Event::Problem { problem, .. } => Some(problem.text.clone()),
            _ => None,
        })
        .collect();
    assert!(problems.is_empty(), "{release}: {problems:?}");
    let mut checked = 0;
    let mut ranks = Vec::new();
    for (info, msgs) in infos.iter().zip(&conns) {
        assert_eq!(msgs[0].conn, info.id);
        let what = format!("{release} connection {}", info.id);
        assert_eq!(
            info.kind.map(pmix_pcap::handshake::kind_name),
            Some("client"),
            "{what}"
        );
        let (nspace, rank) = info.proc.clone().expect("a client names itself");
        assert_eq!(nspace, "cjob", "{what}");
        ranks.push(rank);
        let version = info.version.clone().unwrap_or_default();
        let major_minor: String = release.split('.').take(2).collect::<Vec<_>>().join(".");
        assert!(version.starts_with(&major_minor), "{what}: {version}");
        checked += check_reencodes(info, msgs).unwrap_or_else(|e| panic!("{what}: {e}"));

        // the conversation the client program makes, each request answered on its tag
        let requests: Vec<&Message> = msgs[2..]
            .iter()
            .filter(|m| m.from == Side::Client)
            .collect();
        for r in &requests {
            let reply = msgs
                .iter()
                .find(|m| m.reply_to == Some(r.number))
                .unwrap_or_else(|| panic!("{what}: #{} {} has no reply", r.number, r.what));
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
        let reply_to = |w: &str| {
            let r = requests.iter().find(|m| m.what == w).unwrap();
            msgs.iter().find(|m| m.reply_to == Some(r.number)).unwrap()
        };
        for w in ["commit", "fence", "finalize"] {
            assert_eq!(status(reply_to(w)), Some(0), "{what}: reply to {w}");
        }
        // the job-info reply names the job
        assert!(
            matches!(reply_to("req").items[0].values.first(), Some(Value::String(Some(s))) if s.to_string() == "cjob"),
            "{what}: {:?}",
            reply_to("req").items.first()
        );
        let codec = Codec::new(info.component.unwrap(), info.buffer.unwrap());
        let commit = requests.iter().find(|m| m.what == "commit").unwrap();
        // a GLOBAL value goes out in both the LOCAL (1) and the REMOTE (2) buffer
        let global = ["t.bo", "t.bool", "t.dbl", "t.proc", "t.str"];
        let with = |k: &str| {
            let mut v: Vec<String> = global.iter().chain([&k]).map(|s| s.to_string()).collect();
            v.sort();
            v
        };
        assert_eq!(
            committed_keys(&codec, commit),
            [(1, with("t.u32")), (2, with("t.i64"))],
            "{what}"
        );
        let fence = requests.iter().find(|m| m.what == "fence").unwrap();
        assert!(
            fence.items.iter().flat_map(|i| &i.values).any(|v| matches!(
                v, Value::Info(i) if i.key.to_string() == "pmix.collect"
                    && matches!(i.value, Value::Bool(true)))),
            "{what}: {:?}",
            fence.items
        );
        // the gets for the other rank's values name the job and that rank
        let get = requests.iter().find(|m| m.what == "get").unwrap();
        assert!(
            matches!(get.items[1].values.first(), Some(Value::String(Some(s))) if s.to_string() == "cjob"),
            "{what}: {:?}",
            get.items
        );
    }
    ranks.sort();
    assert_eq!(ranks, [0, 1], "{release}");
    checked
}

#[test]
fn live_capture_of_real_clients_of_every_release_against_the_plain_openpmix_server() {
    if !Tcpdump::available() {
        return missing("tcpdump is MISSING (apt-get install tcpdump; tools/setup.sh installs it)");
    }
    if let Err(e) = Netns::create() {
        return missing(&format!(
            "no private network namespace ({e}): the capture would mix in other traffic"
        ));
    }
    let mut ran = Vec::new();
    for release in ["4.2.2", "5.0.7", "6.0.0", "6.1.0", "7.0.0rc1"] {
        if !release_available(release, "its clients were NOT captured") {
            continue;
        }
        let n = capture_release(release);
        eprintln!("{release}: {n} framed messages decoded and re-encoded byte for byte");
        ran.push((release, n));
    }
    assert!(!ran.is_empty() || std::env::var_os("CI").is_none());
}
