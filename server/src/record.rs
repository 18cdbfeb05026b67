//! Conversation vectors: what pmix-server saw and said on each connection, as a vector file
//! in the format of `vectors/README.md` (schema `pmix-wire-vectors/1`, `kind:
//! "conversation"`, per test `direction`, `what`, `tag`, `header`), so that any runner of
//! the golden vectors replays each framed message: `encode(items)` must give the payload as
//! it crossed the socket. The requests were packed by the client's own libpmix, so they
//! judge an encoder against the real library; the replies were packed by pmix-codec.
//!
//! Requests are split into pack calls by the order the OpenPMIx client packs each command
//! (the same order [`crate::handlers`] reads them in); a command this module does not know
//! is left out and named in the file's notes.

use std::collections::BTreeMap;

use pmix_codec::{json, Codec, DataType, Item, Unpacker};
use pmix_ptl::frame::{Header, HEADER_LEN};
use pmix_ptl::transcript::Direction;
use serde_json::{json, Value as J};

use crate::peer::cmd;
use crate::shared::Logged;

fn one(u: &mut Unpacker<'_>, ty: DataType, out: &mut Vec<Item>) -> Option<pmix_codec::Value> {
    let item = u.unpack(ty, 1).ok()?;
    let v = item.values.first().cloned();
    out.push(item);
    v
}

fn counted(u: &mut Unpacker<'_>, ty: DataType, out: &mut Vec<Item>) -> Option<()> {
    let n = match one(u, DataType::SIZE, out)? {
        pmix_codec::Value::Size(n) if n <= u.remaining() as u64 => n as usize,
        _ => return None,
    };
    if n > 0 {
        out.push(u.unpack(ty, n).ok()?);
    }
    Some(())
}

/// The command and pack calls of a request payload, if its command is known.
pub fn request_items(codec: &Codec, payload: &[u8]) -> Option<(u8, Vec<Item>)> {
    let mut u = codec.unpacker(payload);
    let mut out = Vec::new();
    let command = match one(&mut u, DataType::COMMAND, &mut out)? {
        pmix_codec::Value::Command(c) => c,
        _ => return None,
    };
    match command {
        cmd::REQ | cmd::FINALIZE => {}
        cmd::ABORT => {
            one(&mut u, DataType::STATUS, &mut out)?;
            one(&mut u, DataType::STRING, &mut out)?;
            counted(&mut u, DataType::PROC, &mut out)?;
        }
        cmd::COMMIT => {
            while u.remaining() > 0 {
                one(&mut u, DataType::SCOPE, &mut out)?;
                one(&mut u, DataType::BUFFER, &mut out)?;
            }
        }
        cmd::FENCENB => {
            counted(&mut u, DataType::PROC, &mut out)?;
            counted(&mut u, DataType::INFO, &mut out)?;
        }
        cmd::GETNB => {
            one(&mut u, DataType::STRING, &mut out)?;
            one(&mut u, DataType::PROC_RANK, &mut out)?;
            counted(&mut u, DataType::INFO, &mut out)?;
            one(&mut u, DataType::STRING, &mut out)?;
        }
        cmd::REGEVENTS => {
            counted(&mut u, DataType::STATUS, &mut out)?;
            counted(&mut u, DataType::INFO, &mut out)?;
        }
        cmd::ALLOC => {
            one(&mut u, DataType::ALLOC_DIRECTIVE, &mut out)?;
            counted(&mut u, DataType::INFO, &mut out)?;
        }
        _ => return None,
    }
    (u.remaining() == 0).then_some((command, out))
}

/// The pack calls of a reply to `command`.
pub fn reply_items(codec: &Codec, command: u8, payload: &[u8]) -> Option<Vec<Item>> {
    let mut u = codec.unpacker(payload);
    let mut out = Vec::new();
    if command == cmd::REQ {
        one(&mut u, DataType::STRING, &mut out)?;
        while u.remaining() > 0 {
            one(&mut u, DataType::KVAL, &mut out)?;
        }
        return Some(out);
    }
    one(&mut u, DataType::STATUS, &mut out)?;
    if command == cmd::GETNB && u.remaining() > 0 {
        one(&mut u, DataType::BYTE_OBJECT, &mut out)?;
    }
    let infos_follow = matches!(command, cmd::QUERY | cmd::ALLOC | cmd::JOB_CONTROL);
    if infos_follow && u.remaining() > 0 {
        counted(&mut u, DataType::INFO, &mut out)?;
    }
    if command == cmd::SPAWN && u.remaining() > 0 {
        one(&mut u, DataType::STRING, &mut out)?;
    }
    (u.remaining() == 0).then_some(out)
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn command_name(c: u8) -> String {
    match c {
        cmd::REQ => "req".into(),
        cmd::ABORT => "abort".into(),
        cmd::COMMIT => "commit".into(),
        cmd::FENCENB => "fence".into(),
        cmd::GETNB => "get".into(),
        cmd::FINALIZE => "finalize".into(),
        cmd::REGEVENTS => "register-events".into(),
        cmd::ALLOC => "alloc".into(),
        c => format!("command-{c}"),
    }
}

/// One vector file per connection that completed a handshake: `(connection, file)`.
pub fn conversation_files(log: &[Logged], client_version: &str) -> Vec<(u32, J)> {
    let mut by_conn: BTreeMap<u32, Vec<&Logged>> = BTreeMap::new();
    for l in log {
        by_conn.entry(l.conn).or_default().push(l);
    }
    let mut files = Vec::new();
    for (conn, msgs) in by_conn {
        let Some(codec) = msgs.iter().find_map(|m| m.codec) else {
            continue;
        };
        let mut tests = Vec::new();
        let mut handshake = Vec::new();
        let mut skipped = Vec::new();
        let mut pending: BTreeMap<u32, u8> = BTreeMap::new();
        for m in msgs {
            let x = &m.exchange;
            let dir = match x.direction {
                Direction::Received => "received",
                Direction::Sent => "sent",
            };
            if x.what.starts_with("connect") {
                handshake.push(json!({"direction": dir, "what": x.what, "hex": hex(&x.bytes)}));
                continue;
            }
            let Some(h) = Header::parse(&x.bytes) else {
                continue;
            };
            let payload = &x.bytes[HEADER_LEN.min(x.bytes.len())..];
            let (what, items) = match x.direction {
                Direction::Received => match request_items(&codec, payload) {
                    Some((c, items)) => {
                        pending.insert(h.tag, c);
                        (command_name(c), items)
                    }
                    None => {
                        skipped.push(format!("request on tag {}", h.tag));
                        continue;
                    }
                },
                Direction::Sent => {
                    let Some(c) = pending.remove(&h.tag) else {
                        skipped.push(format!("reply on tag {} to an unrecorded request", h.tag));
                        continue;
                    };
                    match reply_items(&codec, c, payload) {
                        Some(items) => (format!("reply:{}", command_name(c)), items),
                        None => {
                            skipped.push(format!("reply on tag {}", h.tag));
                            continue;
                        }
                    }
                }
            };
            tests.push(json!({
                "id": tests.len() + 1,
                "comment": format!("conversation: {dir} {what} (tag {})", h.tag),
                "items": json::items_to_json(&items),
                "wire": hex(payload),
                "result": "valid",
                "flags": ["Conversation"],
                "direction": dir,
                "what": what,
                "tag": h.tag,
                "header": hex(&x.bytes[..HEADER_LEN]),
            }));
        }
        let mut notes = serde_json::Map::new();
        notes.insert("Conversation".into(), json!("one framed message of a conversation between a libpmix client and pmix-server; `direction` (seen from the server), `what`, `tag` and `header` say where it sits"));
        notes.insert("provenance".into(), json!(format!("recorded by pmix-server --record over loopback; received payloads were packed by the client's libpmix ({client_version}), sent payloads by pmix-codec and accepted by that client")));
        if !skipped.is_empty() {
            notes.insert("not included".into(), json!(skipped.join("; ")));
        }
        files.push((
            conn,
            json!({
                "schema": pmix_codec::vectors::SCHEMA,
                "kind": "conversation",
                "source": {"implementation": "openpmix", "version": client_version,
                           "method": "libpmix client against pmix-server"},
                "component": codec.component.name(),
                "buffer": codec.kind.name(),
                "release": codec.release.name(),
                "numberOfTests": tests.len(),
                "conversation": {"server": "pmix-server", "handshake": handshake},
                "notes": notes,
                "tests": tests,
            }),
        ));
    }
    files
}
