//! # pmix-pcap
//!
//! Dissect PMIx traffic in a tcpdump capture (pcap or pcapng): reassemble each TCP stream
//! (retransmissions, out-of-order segments, captures that start mid-stream), find the PMIx
//! connections by their connect message (not by port), take the bfrops component, buffer
//! kind and peer kind from the handshake, and decode every later frame in both directions
//! with the negotiated component and the release profile the version string names; pair
//! requests and replies by tag; flag what is wrong at the byte, with an explanation.
//!
//! Layout: [`capture`] (files and packets), [`reassembly`] (TCP), [`handshake`] (the connect
//! message and answer), [`message`] (payload grammars), [`explain`], [`conversation`] (a dissection against
//! a logged conversation), [`mod@dissect`] (the
//! connection table and state machine), [`event`] (what is reported), [`report`] (text forms).
//! `pmix-wire pcap` is the command line over it.
#![warn(missing_docs)]

pub mod capture;
pub mod conversation;
pub mod dissect;
pub mod event;
pub mod explain;
pub mod handshake;
pub mod message;
pub mod reassembly;
pub mod report;

pub use capture::CaptureError;
pub use dissect::{Dissector, Options};
pub use event::{ConnInfo, Event, Message, Problem, Severity, Side, Stats};

/// Dissect a whole capture, handing each event to `sink`. On an unreadable record the
/// events so far have been handed over, the connections still open are closed (their cut
/// frames reported) and the error is returned.
pub fn dissect<R: std::io::Read>(
    input: R,
    opts: Options,
    sink: &mut dyn FnMut(Event),
) -> Result<Stats, CaptureError> {
    let mut d = Dissector::new(opts, sink);
    let mut last = 0;
    let r = capture::for_each_packet(input, |p| {
        last = p.number;
        d.packet(&p);
    });
    let stats = d.finish(last);
    r.map(|_| stats)
}

/// Dissect a capture held in memory and collect the events (tests, small captures).
pub fn dissect_bytes(bytes: &[u8], opts: Options) -> (Vec<Event>, Result<Stats, CaptureError>) {
    let mut events = Vec::new();
    let r = dissect(bytes, opts, &mut |e| events.push(e));
    (events, r)
}

/// Bytes as spaced hex (`ff ff 00 10`).
pub fn hex_spaced(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}
