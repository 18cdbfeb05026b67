//! The captures kept in tests/captures (recorded here by tests/live_plain_server.rs and
//! tests/live_real_clients.rs with `PMIX_PCAP_KEEP`, see tests/captures/README.md) decode
//! without a live server: every connection found by its handshake, every message decoded, the one cross-version failure
//! named at its byte. Also the hostile forms of a real capture: cut at every length, a
//! record length that lies.

mod support;

use pmix_codec::{BufferKind, Component};
use pmix_pcap::{Event, Options, Severity, Side};

fn capture(name: &str) -> Vec<u8> {
    std::fs::read(support::repo().join("pcap/tests/captures").join(name)).unwrap()
}

#[test]
fn plain_server_capture_decodes_every_message() {
    let (events, conns) = support::dissect(&capture("plain-server-7.0.0rc1.pcap"));
    let comps: Vec<Option<Component>> = events
        .iter()
        .filter_map(|e| match e {
            Event::Connection(c) => Some(c.component),
            _ => None,
        })
        .collect();
    assert_eq!(
        comps,
        [
            Component::V61,
            Component::V51,
            Component::V41,
            Component::V51
        ]
        .map(Some)
    );
    assert_eq!(conns.len(), 4);
    for c in &conns[..3] {
        let whats: Vec<&str> = c.iter().map(|m| m.what.as_str()).collect();
        assert_eq!(
            whats,
            [
                "connect",
                "connect-reply",
                "register-events",
                "reply:register-events",
                "alloc",
                "reply:alloc",
                "query",
                "reply:query",
                "finalize",
                "reply:finalize"
            ]
        );
        for m in c {
            assert!(
                m.problems.iter().all(|p| p.severity == Severity::Note),
                "{m:?}"
            );
            if m.from == Side::Server && m.tag.is_some() {
                assert_eq!(m.reply_to, Some(m.number - 1), "paired by tag");
            }
        }
        // the alloc reply carries the allocation id the server minted
        let reply = c.iter().find(|m| m.what == "reply:alloc").unwrap();
        let json = reply.to_json().to_string();
        assert!(json.contains("pmix.alloc.id"), "{json}");
    }
    let errs = support::errors(&events);
    assert_eq!(errs.len(), 2, "{errs:?}");
    assert!(errs[0].contains("#3 alloc") && errs[0].contains("ALLOC_INHERIT"));
    assert!(errs[1].contains("#4 reply:alloc"));
}

#[test]
fn the_worked_example_names_message_field_byte_and_reason() {
    let (_, conns) = support::dissect(&capture("type75-v51.pcap"));
    let alloc = &conns[0][2];
    assert_eq!(alloc.what, "alloc");
    let p = &alloc.problems[0];
    assert_eq!(p.offset, Some(65));
    assert_eq!(p.field, "item 3 INFO[1].value.ALLOC_INHERIT");
    assert!(p.text.contains("PMIX_ERR_UNKNOWN_DATA_TYPE"), "{}", p.text);
    let why = p.explanation.as_deref().unwrap();
    assert!(why.contains("v61 in 7.0 master"), "{why}");
}

#[test]
fn a_capture_cut_anywhere_reports_and_never_panics() {
    let full = capture("type75-v51.pcap");
    let mut cut_errors = 0;
    for len in 0..full.len() {
        let (events, r) = pmix_pcap::dissect_bytes(&full[..len], Options::default());
        if r.is_err() {
            cut_errors += 1;
        }
        // whatever was complete before the cut is still reported
        let _ = events;
    }
    assert!(cut_errors > full.len() / 2, "{cut_errors}");
    // cut inside the alloc request's packet: the truncated frame is named
    let (events, _) = pmix_pcap::dissect_bytes(&full[..1200], Options::default());
    let text: Vec<String> = events.iter().map(|e| e.to_json().to_string()).collect();
    assert!(
        text.iter().any(|t| t.contains("\"event\":\"closed\"")),
        "{text:?}"
    );
}

#[test]
fn a_record_length_that_lies_is_an_error_not_an_allocation() {
    let mut bytes = capture("type75-v51.pcap");
    // the first record's incl_len (after the 24-byte file header and two timestamps)
    bytes[32..36].copy_from_slice(&0x7fff_fff0u32.to_le_bytes());
    let (_, r) = pmix_pcap::dissect_bytes(&bytes, Options::default());
    let e = r.unwrap_err();
    assert_eq!(e.packet, 1, "{e}");
}

#[test]
fn a_mid_stream_join_decodes_with_component() {
    // drop the handshake's packets: the capture starts after the connect reply
    let full = capture("plain-server-7.0.0rc1.pcap");
    let mut packets = Vec::new();
    let mut reader = pcap_file::pcap::PcapReader::new(&full[..]).unwrap();
    let header = reader.header();
    while let Some(p) = reader.next_packet() {
        packets.push(p.unwrap().into_owned());
    }
    let mut out = Vec::new();
    {
        let mut w = pcap_file::pcap::PcapWriter::with_header(&mut out, header).unwrap();
        // conn 1 (v61) is packets 1..=23 or so: start after its 12th packet
        for p in &packets[12..] {
            w.write_packet(p).unwrap();
        }
    }
    let (_, r) = pmix_pcap::dissect_bytes(&out, Options::default());
    let stats = r.unwrap();
    assert_eq!(stats.mid_stream_skipped, 1, "{stats:?}");
    let opts = Options {
        component: Some(Component::V61),
        kind: BufferKind::NonDescribed,
        ..Options::default()
    };
    let (events, r) = pmix_pcap::dissect_bytes(&out, opts);
    r.unwrap();
    let mid: Vec<&pmix_pcap::Message> = events
        .iter()
        .filter_map(|e| match e {
            Event::Message(m) if m.conn == 1 => Some(m),
            _ => None,
        })
        .collect();
    assert!(
        mid.iter().any(|m| m.what == "alloc"),
        "{:?}",
        mid.iter().map(|m| &m.what).collect::<Vec<_>>()
    );
    assert!(mid
        .iter()
        .all(|m| m.problems.iter().all(|p| p.severity != Severity::Error)));
}

/// Real libpmix clients (4.2.2 and 7.0.0rc1) against the plain OpenPMIx server of their
/// release: every message decodes by its command's grammar without a problem and its pack
/// calls re-encode to the captured bytes, and each rank's conversation is the client
/// program's (`support::check_client_program`).
#[test]
fn real_client_captures_decode_and_reencode_every_message() {
    for (name, release, component) in [
        ("openpmix-4.2.2-clients.pcap", "4.2.2", Component::V41),
        ("openpmix-7.0.0rc1-clients.pcap", "7.0.0rc1", Component::V61),
    ] {
        let (infos, _, checked) =
            support::check_client_program_capture(name, release, &capture(name), false);
        assert_eq!(checked, 36, "{name}: per rank nine requests, nine replies");
        for info in infos {
            assert_eq!(info.component, Some(component), "{name}");
            assert_eq!(info.buffer, Some(BufferKind::NonDescribed), "{name}");
        }
    }
}

/// The streamed forms (`Event::write_json`, `report::write_tree`, which `pmix-wire pcap`
/// prints) are the built ones, byte for byte, on every kept capture; and a pack call of
/// many values shows the first 400 bytes of their text and the length of the whole.
#[test]
fn streamed_output_is_the_built_output() {
    let mut messages = 0;
    for name in [
        "plain-server-7.0.0rc1.pcap",
        "openpmix-4.2.2-clients.pcap",
        "openpmix-7.0.0rc1-clients.pcap",
        "type75-v51.pcap",
    ] {
        let (events, _) = support::dissect(&capture(name));
        for e in &events {
            let mut json = Vec::new();
            e.write_json(&mut json).unwrap();
            assert_eq!(
                String::from_utf8(json).unwrap(),
                e.to_json().to_string(),
                "{name}"
            );
            let mut tree = Vec::new();
            pmix_pcap::report::write_tree(e, &mut tree).unwrap();
            assert_eq!(String::from_utf8(tree).unwrap(), pmix_pcap::report::tree(e));
            messages += matches!(e, Event::Message(_)) as usize;
        }
    }
    assert!(messages > 100, "{messages}");
    // a call of 1000 UINT32s: "0, 1, 2, ..." is 4888 bytes, cut at 400
    let (mut events, _) = support::dissect(&capture("type75-v51.pcap"));
    let mut m = events
        .drain(..)
        .find_map(|e| match e {
            Event::Message(m) if !m.items.is_empty() => Some(m),
            _ => None,
        })
        .unwrap();
    let values: Vec<pmix_codec::Value> = (0..1000).map(pmix_codec::Value::Uint32).collect();
    m.items = vec![pmix_codec::Item::new(pmix_codec::DataType::UINT32, values)];
    m.offsets = vec![16];
    let tree = pmix_pcap::report::tree(&Event::Message(m.clone()));
    let whole: Vec<String> = (0..1000).map(|i: u32| i.to_string()).collect();
    let whole = whole.join(", ");
    let line = tree.lines().find(|l| l.contains("UINT32 x1000")).unwrap();
    assert_eq!(
        line,
        format!("    16    UINT32 x1000: {}... (4888 chars)", &whole[..400])
    );
    assert_eq!(whole.len(), 4888);
    let mut json = Vec::new();
    Event::Message(m.clone()).write_json(&mut json).unwrap();
    assert_eq!(
        String::from_utf8(json).unwrap(),
        Event::Message(m).to_json().to_string()
    );
}
