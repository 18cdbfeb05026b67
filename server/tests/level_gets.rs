//! A client that chose a shared-memory gds (shmem2, shmem3) against a server whose only gds
//! is hash, byte for byte. Such a client cannot store the hash job data of the REQ reply
//! with its module, so it asks the server for the job-, node- and session-level keys it
//! reads: GETs of rank WILDCARD (`pmix.job.size`) and UNDEF with node or session
//! qualifiers (`pmix.local.size`, `pmix.univ.size`). The fixtures
//! (`fixtures/level-gets/`, made by its `capture.sh`) are tcpdump captures of two ranks of
//! the live matrix's client (`tools/live/live-client.c`) told `PMIX_GDS_MODULE=shmem2`
//! (7.0.0rc1: shmem3) against the plain OpenPMIx server of the same release run with
//! `PMIX_MCA_gds=hash`. The test replays each real client's connect message, REQ and those
//! GETs to pmix-server hosting the same job, and compares every GET's answer with the real
//! server's (the REQ reply differs legitimately: the real server names its own host,
//! tmpdirs and pid; `real_server_replay.rs` says more).

use std::net::TcpStream;
use std::path::PathBuf;

use pmix_pcap::conversation::{by_connection, connections};
use pmix_pcap::Options;
use pmix_server::{Config, Job, Server};

mod support;
use support::replay::replay;

fn check_release(release: &str) -> usize {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!(
        "tests/fixtures/level-gets/openpmix-{release}-shmem-client.pcap"
    ));
    let bytes = std::fs::read(&path).expect("the fixture");
    let (events, r) = pmix_pcap::dissect_bytes(&bytes, Options::default());
    let stats = r.expect("the capture reads to its end");
    assert_eq!(stats.lost_bytes, 0, "{release}: the capture misses bytes");
    let infos = connections(&events);
    let (nspace, _) = infos[0].proc.clone().expect("a client's connect");
    let server = Server::start(Config::new(Job::new(&nspace, 2))).unwrap();
    let mut gets = 0;
    for msgs in by_connection(&events) {
        // up to the first commit: the handshake, the REQ and the level GETs
        let end = msgs
            .iter()
            .position(|m| m.what == "commit")
            .unwrap_or(msgs.len());
        let mut s = TcpStream::connect(server.addr).unwrap();
        let answers = replay(&mut s, &msgs[..end]).unwrap_or_else(|e| panic!("{release}: {e}"));
        for (what, ours, real) in answers {
            if what == "reply:req" {
                continue;
            }
            assert_eq!(
                ours, real,
                "{release} {what}: pmix-server's answer (left) differs from the real hash-only server's"
            );
            gets += usize::from(what == "reply:get");
        }
    }
    gets
}

#[test]
fn level_gets_are_answered_as_a_hash_only_openpmix_server_answers_them() {
    // two ranks, each asking for the job size, the local size and the universe size;
    // a 7.0.0rc1 rank asks for the job size a second time, without the qualifiers
    for (release, gets) in [("5.0.7", 6), ("6.0.0", 6), ("6.1.0", 6), ("7.0.0rc1", 8)] {
        let n = check_release(release);
        assert_eq!(n, gets, "{release}: {n} GET answers compared");
    }
}
