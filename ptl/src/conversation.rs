//! Conversation vectors: one recorded conversation between this peer and a real server,
//! both directions, with the negotiated component, as a vector file
//! (`vectors/README.md`, schema `pmix-wire-vectors/1`) so that every runner of the golden
//! vectors, `pmix-conformance` included, replays each framed message as a message-level
//! case: `encode(items)` must give the payload exactly as it crossed the socket, and the
//! payload must decode back to `items`. The received payloads were packed by the server's
//! own libpmix, so they judge an encoder against the real library.
//!
//! Extra fields (ignored by plain vector loaders): top level `kind: "conversation"` and
//! `conversation` (server, component, the handshake in hex); per test `direction`
//! (`sent`/`received`), `what` (`alloc`, `reply:alloc`, `event`, ...), `tag` and `header`
//! (the 16-byte header in hex).
//!
//! Regeneration is not byte-stable: the server's namespace carries its pid, the proc table
//! carries process ids, the allocation query carries the machine's topology. [`compare`]
//! therefore checks what must not move: the message sequence (direction, what, tag), each
//! message's pack-call types and info keys, the `PMIX_DVM_IS_READY` event's shape, and the
//! exact bytes of the requests whose content does not depend on the server
//! (register-events, alloc, finalize).

use pmix_codec::{json, Codec, DataType, Item, Value};
use serde_json::{json, Value as J};

use crate::error::{PtlError, Result};
use crate::frame::{Header, HEADER_LEN};
use crate::transcript::{Direction, Exchange};

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn one(u: &mut pmix_codec::Unpacker<'_>, ty: DataType, out: &mut Vec<Item>) -> Result<Value> {
    let item = u.unpack(ty, 1)?;
    let v = item
        .values
        .first()
        .cloned()
        .ok_or_else(|| PtlError::malformed("message", "empty unpack"))?;
    out.push(item);
    Ok(v)
}

fn infos(u: &mut pmix_codec::Unpacker<'_>, out: &mut Vec<Item>, payload_len: usize) -> Result<()> {
    if let Value::Size(n) = one(u, DataType::SIZE, out)? {
        if n > payload_len as u64 {
            return Err(PtlError::malformed("message", "lying info count"));
        }
        if n > 0 {
            out.push(u.unpack(DataType::INFO, n as usize)?);
        }
    }
    Ok(())
}

/// The pack calls of a received payload, by what it answers.
pub fn decode_received(codec: &Codec, what: &str, payload: &[u8]) -> Result<Vec<Item>> {
    let mut u = codec.unpacker(payload);
    let mut out = Vec::new();
    match what {
        "event" => {
            one(&mut u, DataType::COMMAND, &mut out)?;
            one(&mut u, DataType::STATUS, &mut out)?;
            one(&mut u, DataType::PROC, &mut out)?;
            infos(&mut u, &mut out, payload.len())?;
            if u.remaining() > 0 {
                one(&mut u, DataType::DATA_RANGE, &mut out)?;
            }
        }
        "reply:spawn" => {
            // status, the job's nspace, then the job's info for the tool's gds: one KVAL
            // per pack call to the end (`wait_cbfunc` in pmix_client_spawn.c,
            // `hash_store_job_info` in gds_hash.c)
            one(&mut u, DataType::STATUS, &mut out)?;
            if u.remaining() > 0 {
                one(&mut u, DataType::STRING, &mut out)?;
            }
            while u.remaining() > 0 {
                one(&mut u, DataType::KVAL, &mut out)?;
            }
        }
        _ => {
            one(&mut u, DataType::STATUS, &mut out)?;
            if u.remaining() > 0 {
                infos(&mut u, &mut out, payload.len())?;
            }
        }
    }
    if u.remaining() > 0 {
        return Err(PtlError::malformed(
            what,
            format!("{} bytes left after the known fields", u.remaining()),
        ));
    }
    Ok(out)
}

/// Build the conversation vector file.
pub fn to_vector_file(codec: &Codec, server: &str, transcript: &[Exchange]) -> Result<J> {
    let mut tests = Vec::new();
    let mut handshake = Vec::new();
    let mut skipped = Vec::new();
    for x in transcript {
        let dir = match x.direction {
            Direction::Sent => "sent",
            Direction::Received => "received",
        };
        if x.what == "connect" || x.what == "connect-reply" {
            handshake.push(json!({"direction": dir, "what": x.what, "hex": hex(&x.bytes)}));
            continue;
        }
        if x.bytes.len() < HEADER_LEN {
            return Err(PtlError::malformed(&x.what, "shorter than a header"));
        }
        let header =
            Header::parse(&x.bytes).ok_or_else(|| PtlError::malformed(&x.what, "header"))?;
        let payload = &x.bytes[HEADER_LEN..];
        let items = match (&x.items, x.direction) {
            (Some(items), _) => items.clone(),
            (None, Direction::Received) => match decode_received(codec, &x.what, payload) {
                Ok(items) => items,
                Err(e) => {
                    skipped.push(format!("{dir} {}: {e}", x.what));
                    continue;
                }
            },
            (None, Direction::Sent) => {
                skipped.push(format!("{dir} {}: raw bytes without pack calls", x.what));
                continue;
            }
        };
        tests.push(json!({
            "id": tests.len() + 1,
            "comment": format!("conversation: {dir} {} (tag {})", x.what, header.tag),
            "items": json::items_to_json(&items),
            "wire": hex(payload),
            "result": "valid",
            "flags": ["Conversation"],
            "direction": dir,
            "what": x.what,
            "tag": header.tag,
            "header": hex(&x.bytes[..HEADER_LEN]),
        }));
    }
    let mut notes = serde_json::Map::new();
    notes.insert("Conversation".into(), json!("one framed message of a recorded conversation between pmix-peer and a real server; `direction`, `what`, `tag` and `header` say where it sits"));
    notes.insert("provenance".into(), json!(format!("recorded live over TCP by `pmix-peer` (tools/prrte/conversations.sh) against {server}; received payloads were packed by the server's libpmix, sent payloads by pmix-codec and accepted by the server")));
    if !skipped.is_empty() {
        notes.insert("not included".into(), json!(skipped.join("; ")));
    }
    Ok(json!({
        "schema": pmix_codec::vectors::SCHEMA,
        "kind": "conversation",
        "source": {
            "implementation": "prrte",
            "version": "5.0.0rc1 (OpenPMIx 7.0.0rc1)",
            "method": "pmix-peer scenario (connect as a tool, register events, alloc NEW, DVM_IS_READY, spawn with PMIX_SPAWN_TARGET, queries, job control, finalize) over loopback",
        },
        "component": codec.component.name(),
        "buffer": codec.kind.name(),
        "release": "master",
        "numberOfTests": tests.len(),
        "conversation": {"server": server, "handshake": handshake},
        "notes": notes,
        "tests": tests,
    }))
}

/// Requests whose bytes do not depend on anything the server chose.
const STABLE_REQUESTS: [&str; 3] = ["register-events", "alloc", "finalize"];

fn shape(t: &J) -> String {
    let mut s = format!(
        "{} {} tag {} types",
        t["direction"].as_str().unwrap_or("?"),
        t["what"].as_str().unwrap_or("?"),
        t["tag"]
    );
    if let Some(items) = t["items"].as_array() {
        for it in items {
            s.push(' ');
            s.push_str(it["type"].as_str().unwrap_or("?"));
            if it["type"] == "INFO" {
                let keys: Vec<&str> = it["values"]
                    .as_array()
                    .map(|v| v.iter().filter_map(|i| i["key"].as_str()).collect())
                    .unwrap_or_default();
                s.push_str(&format!("[{}]", keys.join(",")));
            }
        }
    }
    s
}

fn is_event(t: &J) -> bool {
    t["what"] == "event"
}

/// The event's status code (second pack call).
fn event_status(t: &J) -> Option<i64> {
    t["items"][1]["values"][0].as_i64()
}

/// Events the protocol guarantees within the conversation (`PMIX_DVM_IS_READY`); others,
/// such as the job-end of an earlier tool, arrive or not before finalize by timing.
const REQUIRED_EVENTS: [i64; 1] = [-195];

/// Differences that matter between a stored conversation file and a fresh recording:
/// the request/reply sequence in order (events are interleaved by timing, so they are
/// compared apart), and each required event stored must come again with the same shape.
pub fn compare(stored: &J, fresh: &J) -> Vec<String> {
    let mut d = Vec::new();
    let empty = vec![];
    let all_a = stored["tests"].as_array().unwrap_or(&empty);
    let all_b = fresh["tests"].as_array().unwrap_or(&empty);
    let a: Vec<&J> = all_a.iter().filter(|t| !is_event(t)).collect();
    let b: Vec<&J> = all_b.iter().filter(|t| !is_event(t)).collect();
    if a.len() != b.len() {
        d.push(format!(
            "{} requests/replies stored, {} recorded now",
            a.len(),
            b.len()
        ));
    }
    for (x, y) in a.iter().zip(&b) {
        let (sx, sy) = (shape(x), shape(y));
        if sx != sy {
            d.push(format!("message {}: stored `{sx}`, now `{sy}`", x["id"]));
            continue;
        }
        let what = x["what"].as_str().unwrap_or("");
        if x["direction"] == "sent" && STABLE_REQUESTS.contains(&what) && x["wire"] != y["wire"] {
            d.push(format!(
                "message {} ({what}): bytes stored {}, now {}",
                x["id"], x["wire"], y["wire"]
            ));
        }
    }
    let required =
        |t: &&J| is_event(t) && event_status(t).is_some_and(|s| REQUIRED_EVENTS.contains(&s));
    for x in all_a.iter().filter(required) {
        let st = event_status(x);
        let same = all_b
            .iter()
            .filter(|y| is_event(y) && event_status(y) == st)
            .any(|y| shape(y) == shape(x));
        if !same {
            d.push(format!(
                "event {} (status {st:?}): stored `{}`, not received now with that shape",
                x["id"],
                shape(x)
            ));
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_codec::{BufferKind, Component};

    fn stored() -> J {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../vectors/conversations/prrte-5.0.0rc1/v61-non-described.json");
        serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
    }

    #[test]
    fn a_stored_conversation_equals_itself_and_each_received_payload_decodes() {
        let s = stored();
        assert!(compare(&s, &s).is_empty());
        let codec = Codec::new(Component::V61, BufferKind::NonDescribed);
        for t in s["tests"].as_array().unwrap() {
            if t["direction"] == "received" {
                let wire: Vec<u8> = (0..t["wire"].as_str().unwrap().len() / 2)
                    .map(|i| {
                        u8::from_str_radix(&t["wire"].as_str().unwrap()[2 * i..2 * i + 2], 16)
                            .unwrap()
                    })
                    .collect();
                let items = decode_received(&codec, t["what"].as_str().unwrap(), &wire).unwrap();
                assert_eq!(json::items_to_json(&items), t["items"]);
            }
        }
    }

    #[test]
    fn changed_request_bytes_a_missing_event_and_a_new_message_are_reported() {
        let s = stored();
        let mut changed = s.clone();
        let tests = changed["tests"].as_array_mut().unwrap();
        let alloc = tests.iter_mut().find(|t| t["what"] == "alloc").unwrap();
        alloc["wire"] = json!("00");
        let d = compare(&s, &changed);
        assert!(d.iter().any(|x| x.contains("(alloc): bytes")), "{d:?}");

        let mut no_events = s.clone();
        no_events["tests"]
            .as_array_mut()
            .unwrap()
            .retain(|t| t["what"] != "event");
        let d = compare(&s, &no_events);
        assert!(d.iter().any(|x| x.contains("not received now")), "{d:?}");

        let mut longer = s.clone();
        let first = longer["tests"][0].clone();
        longer["tests"].as_array_mut().unwrap().push(first);
        assert!(!compare(&s, &longer).is_empty());
    }

    #[test]
    fn a_reply_with_trailing_bytes_is_not_a_known_shape() {
        let codec = Codec::new(Component::V61, BufferKind::NonDescribed);
        // status 0, then one stray byte
        assert!(decode_received(&codec, "reply:register-events", &[0x02, 0x00, 0x07]).is_err());
        // a lying info count
        assert!(decode_received(&codec, "reply:alloc", &[0x02, 0x00, 0x02, 0x7f]).is_err());
    }
}
