//! pmix-server against a real OpenPMIx server, byte for byte. The fixtures
//! (`fixtures/plain-server/`, made by its `capture.sh`, provenance in its README) are
//! tcpdump captures of two ranks of `server/clients/client.c` against the plain OpenPMIx
//! server of each release (`server/bench/openpmix-launcher.c`, gds hash): the COMMIT of
//! `PMIx_Put`s and `PMIx_Commit`, the fence collecting data and its reply, the gets and
//! their replies, the allocation request, finalize. The test replays what each real
//! client sent, message for message and in the same order per connection, to a
//! pmix-server hosting the same job, and compares every answer with the one the real
//! server gave, byte for byte. One legitimately differs and is left out: the REQ reply
//! (the job's data: the real server names its own host, tmpdirs and pid, and lays the
//! job out in its release's order; pmix-server's REQ reply is judged against a real
//! Slurm 24.11 stepd's in `job.rs`).

use std::net::TcpStream;
use std::path::PathBuf;

use pmix_pcap::conversation::{by_connection, connections};
use pmix_pcap::{ConnInfo, Options};
use pmix_server::{Config, Job, Server};

mod support;
use support::replay::{replay, Answer};

fn fixture(release: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!(
        "tests/fixtures/plain-server/openpmix-{release}-client-collect.pcap"
    ))
}

fn check_release(release: &str) -> usize {
    let bytes = std::fs::read(fixture(release)).expect("the fixture");
    let (events, r) = pmix_pcap::dissect_bytes(&bytes, Options::default());
    let stats = r.expect("the capture reads to its end");
    assert_eq!(stats.lost_bytes, 0, "{release}: the capture misses bytes");
    let infos: Vec<ConnInfo> = connections(&events);
    let conns = by_connection(&events);
    assert_eq!(conns.len(), 2, "{release}: two ranks");
    let (nspace, _) = infos[0].proc.clone().expect("a client's connect");
    let server = Server::start(Config::new(Job::new(&nspace, 2))).unwrap();
    let addr = server.addr;
    // the handshakes one after the other, in the order the real server answered them:
    // the connect reply carries the client's index in the server's table, given in the
    // order clients connect (and echoed in every later header)
    let mut conns = conns;
    conns.sort_by_key(|msgs| msgs.get(1).map(|m| m.packet));
    let mut answers: Vec<Answer> = Vec::new();
    let mut threads = Vec::new();
    for msgs in conns {
        let mut s = TcpStream::connect(addr).unwrap();
        answers.extend(replay(&mut s, &msgs[..2]).unwrap_or_else(|e| panic!("{release}: {e}")));
        // the rest at the same time on every connection (the fence waits for all)
        threads.push(std::thread::spawn(move || replay(&mut s, &msgs[2..])));
    }
    for t in threads {
        answers.extend(
            t.join()
                .unwrap()
                .unwrap_or_else(|e| panic!("{release}: {e}")),
        );
    }
    let mut compared = 0;
    let mut seen = std::collections::BTreeSet::new();
    {
        for (what, ours, real) in answers {
            seen.insert(what.clone());
            if what == "reply:req" {
                continue; // the job's data: see the file's comment
            }
            assert_eq!(
                ours, real,
                "{release} {what}: pmix-server's answer (left) differs from the real server's"
            );
            compared += 1;
        }
    }
    for w in [
        "connect-reply",
        "reply:commit",
        "reply:fence",
        "reply:get",
        "reply:alloc",
        "reply:finalize",
    ] {
        assert!(seen.contains(w), "{release}: no {w} in {seen:?}");
    }
    compared
}

#[test]
fn pmix_server_answers_the_real_clients_requests_as_the_real_server_did() {
    for release in ["4.2.2", "5.0.7", "6.0.0", "6.1.0", "7.0.0rc1"] {
        let n = check_release(release);
        eprintln!("{release}: {n} answers equal the real server's");
    }
}
