//! Shared by the live-capture tests: the dissection of a capture by connection, and the
//! comparison of a dissected connection with the conversation a peer logged. The servers,
//! tcpdump and the real libraries come from `pmix-testsupport`.
#![allow(dead_code)]

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
