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

use pmix_codec::Value;
use pmix_pcap::Side;
use support::*;

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
    clients_passed(&out, 2, release);
    keep_capture(&format!("openpmix-{release}-clients.pcap"), &bytes);

    let (infos, conns, checked) = check_client_program_capture(release, release, &bytes, true);
    let mut ranks = Vec::new();
    for (info, msgs) in infos.iter().zip(&conns) {
        let what = format!("{release} connection {}", info.id);
        let (nspace, rank) = info.proc.clone().expect("a client names itself");
        assert_eq!(nspace, "cjob", "{what}");
        ranks.push(rank);
        let request = |w: &str| {
            msgs.iter()
                .find(|m| m.from == Side::Client && m.what == w)
                .unwrap()
        };
        // the job-info reply names the job
        let req = request("req").number;
        let reply = msgs.iter().find(|m| m.reply_to == Some(req)).unwrap();
        assert!(
            matches!(reply.items[0].values.first(), Some(Value::String(Some(s))) if s.to_string() == "cjob"),
            "{what}: {:?}",
            reply.items.first()
        );
        // the gets for the other rank's values name the job
        let get = request("get");
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
    if let Some(why) = isolated_capture_unavailable() {
        return missing(&why);
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
