//! A dissected connection set against a conversation one of its ends logged (a conversation
//! vector file, `vectors/README.md`: `pmix-peer`'s transcript of a tool, or what
//! `pmix-server --record DIR` wrote of a client): the handshake bytes, then per direction
//! every logged message in the same order with the same `what`, tag, header, payload and
//! decoded pack calls. Two independent readers of the same bytes (the end that logged
//! them, and the dissector reading them off the wire) must agree on every field. Where no
//! end logged anything, [`check_reencodes`] holds the capture to the codec's own
//! expectation instead.

use pmix_codec::{Codec, Release};
use serde_json::Value as J;

use crate::event::{ConnInfo, Event, Message, Side};

/// The PMIx connections of the events (what each connect message said), in order.
pub fn connections(events: &[Event]) -> Vec<ConnInfo> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Connection(c) => Some(c.clone()),
            _ => None,
        })
        .collect()
}

/// The messages of each PMIx connection, in order of their first message.
pub fn by_connection(events: &[Event]) -> Vec<Vec<Message>> {
    let mut conns: Vec<(u64, Vec<Message>)> = Vec::new();
    for e in events {
        if let Event::Message(m) = e {
            match conns.iter_mut().find(|(id, _)| *id == m.conn) {
                Some((_, v)) => v.push(m.clone()),
                None => conns.push((m.conn, vec![m.clone()])),
            }
        }
    }
    conns.into_iter().map(|(_, v)| v).collect()
}

fn hex(m: &Message) -> String {
    m.header
        .iter()
        .chain(&m.payload)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Compare a dissected connection with the conversation vector `vector` that the end
/// `logged_by` wrote (its `direction`s are seen from that end). The capture may hold
/// events the logging end never read after its last read (a tool's log); nothing else may
/// differ. Returns how many framed messages were compared, or the first difference.
pub fn compare(msgs: &[Message], vector: &J, logged_by: Side) -> Result<usize, String> {
    let hs = vector["conversation"]["handshake"]
        .as_array()
        .ok_or("the vector has no conversation.handshake")?;
    if msgs.len() < 2 || msgs[0].what != "connect" || msgs[1].what != "connect-reply" {
        return Err("the connection does not start with connect and connect-reply".into());
    }
    for (i, what) in ["connect", "connect-reply"].into_iter().enumerate() {
        let logged = hs
            .iter()
            .find(|h| h["what"] == what)
            .and_then(|h| h["hex"].as_str())
            .ok_or(format!("the vector logged no {what}"))?;
        if logged != hex(&msgs[i]) {
            return Err(format!(
                "{what} bytes: logged {logged}, captured {}",
                hex(&msgs[i])
            ));
        }
    }
    if let Some(n) = vector["notes"].get("not included") {
        return Err(format!(
            "the logging end could not decode some of its own messages: {n}"
        ));
    }
    let tests = vector["tests"]
        .as_array()
        .ok_or("the vector has no tests")?;
    // the logging end's "sent" is the client's when the client logged
    let client_says = match logged_by {
        Side::Client => "sent",
        Side::Server => "received",
    };
    let mut compared = 0;
    for from in [Side::Client, Side::Server] {
        let dir = if from == Side::Client {
            client_says
        } else if client_says == "sent" {
            "received"
        } else {
            "sent"
        };
        let logged: Vec<&J> = tests.iter().filter(|t| t["direction"] == dir).collect();
        let seen: Vec<J> = msgs[2..]
            .iter()
            .filter(|m| m.from == from)
            .map(Message::to_json)
            .collect();
        if seen.len() < logged.len() {
            return Err(format!(
                "from the {from:?}: {} messages logged, {} captured",
                logged.len(),
                seen.len()
            ));
        }
        for (i, (l, s)) in logged.iter().zip(&seen).enumerate() {
            for field in ["what", "tag", "header", "wire", "items"] {
                if l[field] != s[field] {
                    return Err(format!(
                        "from the {from:?}, message {i} ({}): {field} logged {}, captured {}",
                        l["what"], l[field], s[field]
                    ));
                }
            }
            compared += 1;
        }
        for extra in &seen[logged.len()..] {
            if !(from == Side::Server && extra["what"] == "event" && logged_by == Side::Client) {
                return Err(format!(
                    "from the {from:?}: a message the logging end did not log: {extra}"
                ));
            }
        }
    }
    Ok(compared)
}

/// The codec's own expectation of a dissected connection, for captures whose ends logged
/// nothing (a real libpmix client against a real OpenPMIx server): every framed message
/// decoded to the end by its argument grammar, without a problem, and the pack calls read
/// encode again, with the connection's negotiated component, buffer kind and the release
/// of the end that sent them, to exactly the payload that crossed the wire. Returns how
/// many framed messages were checked, or the first that fails.
pub fn check_reencodes(info: &ConnInfo, msgs: &[Message]) -> Result<usize, String> {
    let (Some(component), Some(kind)) = (info.component, info.buffer) else {
        return Err(format!(
            "connection {}: no component or buffer kind negotiated",
            info.id
        ));
    };
    let codec = |r: Option<Release>| {
        let c = Codec::new(component, kind);
        match r {
            Some(r) => c.with_release(r),
            None => c,
        }
    };
    let client = codec(info.release);
    let server = codec(info.server_release);
    let mut checked = 0;
    for m in msgs.iter().filter(|m| !m.what.starts_with("connect")) {
        if let Some(p) = m.problems.first() {
            return Err(format!("#{} {}: {}", m.number, m.what, p.text));
        }
        let c = if m.from == Side::Client {
            &client
        } else {
            &server
        };
        let again = c
            .encode(&m.items)
            .map_err(|e| format!("#{} {}: the items do not encode: {e}", m.number, m.what))?;
        if again != m.payload {
            return Err(format!(
                "#{} {}: the items encode to {} where the wire has {}",
                m.number,
                m.what,
                crate::hex_spaced(&again),
                crate::hex_spaced(&m.payload)
            ));
        }
        checked += 1;
    }
    Ok(checked)
}
