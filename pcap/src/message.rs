//! A framed message's payload, decoded pack call by pack call with the connection's codec:
//! requests by their command's argument grammar, replies by the grammar of the request they
//! answer, events by the notification's. The grammars are OpenPMIx's, as data in
//! [`pmix_ptl::grammar`] (with their sources); a command without one is shown as bytes, not
//! guessed.

use pmix_codec::{Codec, DataType, ErrorDetails, Item, Status, Value};

/// `pmix_cmd_t` names (`src/include/pmix_globals.h`), by value.
pub fn command_name(c: u8) -> Option<&'static str> {
    Some(match c {
        0 => "req",
        1 => "abort",
        2 => "commit",
        3 => "fence",
        4 => "get",
        5 => "finalize",
        6 => "publish",
        7 => "lookup",
        8 => "unpublish",
        9 => "spawn",
        10 => "connect",
        11 => "disconnect",
        12 => "notify",
        13 => "register-events",
        14 => "deregister-events",
        15 => "query",
        16 => "log",
        17 => "alloc",
        18 => "job-control",
        19 => "monitor",
        20 => "get-credential",
        21 => "validate-credential",
        22 => "iof-pull",
        23 => "iof-push",
        24 => "group-construct",
        25 => "group-join",
        26 => "group-invite",
        27 => "group-leave",
        28 => "group-destruct",
        29 => "iof-deregister",
        30 => "fabric-register",
        31 => "fabric-update",
        32 => "device-distances",
        34 => "resource-block",
        35 => "session-control",
        36 => "sysinfo",
        37 => "resolve-peers",
        38 => "resolve-node",
        _ => return None,
    })
}

use pmix_ptl::grammar::{self, Step, Step::*};

/// The error for a count larger than the bytes it would need (no allocation made).
pub fn lying_count(count: u64, len: usize, offset: usize, item: usize) -> pmix_codec::Error {
    ErrorDetails {
        status: Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER,
        offset,
        item,
        ty: Some(DataType::SIZE),
        reason: format!("count {count} exceeds the {len}-byte payload: a lying count"),
        partial: Vec::new(),
        path: String::new(),
    }
    .into()
}

/// A payload decoded as far as it goes.
#[derive(Debug, Clone)]
pub struct Decoded {
    /// The pack calls read, in order (those before a failure, on failure).
    pub items: Vec<Item>,
    /// The payload offset where each item starts.
    pub offsets: Vec<usize>,
    /// Why decoding stopped early, if it did (offsets are the payload's).
    pub error: Option<pmix_codec::Error>,
    /// Whether the grammar is the message's own (false: a command this dissector has no
    /// grammar for; the payload after the command was not read).
    pub grammar: bool,
    /// The command byte (requests and events).
    pub command: Option<u8>,
    /// The status (replies and events).
    pub status: Option<i32>,
}

/// The decoded values a message may hold: this many bytes per payload byte ...
pub const HELD_PER_PAYLOAD_BYTE: usize = 16;
/// ... and at least this many bytes, whatever its size.
pub const HELD_MIN: usize = 1 << 20;

/// The most bytes of decoded values a message of `payload` bytes may hold (estimated by
/// [`held`]); a message whose values would take more is decoded up to the pack call that
/// crosses it, which fails with `PMIX_ERR_NOMEM`. A value can take 48 bytes or more for a
/// byte of wire (a UINT8, a one-byte STATUS call), so without a bound a 16 MiB frame could
/// hold gigabytes.
pub fn held_limit(payload: usize) -> usize {
    payload.saturating_mul(HELD_PER_PAYLOAD_BYTE).max(HELD_MIN)
}

/// Heap bytes counted per decoded value: a 48-byte `Value` and its share of the allocator's
/// rounding and of vector growth.
pub const VALUE_HELD: usize = 64;

/// Heap bytes counted per pack call: the `Item` and its two offsets (the decode's and the
/// message's), twice over for vector growth.
pub const ITEM_HELD: usize = 2 * (std::mem::size_of::<Item>() + 2 * std::mem::size_of::<usize>());

/// The heap a decoded pack call holds, estimated: [`ITEM_HELD`], and [`VALUE_HELD`] for each
/// value, counting the values and infos nested in containers.
pub fn held(item: &Item) -> usize {
    fn info(i: &pmix_codec::Info) -> usize {
        1 + values(&i.value)
    }
    fn values(v: &Value) -> usize {
        1 + match v {
            Value::DataArray(d) => d.values.iter().map(values).sum(),
            Value::InfoArray(is) => is.iter().map(info).sum(),
            Value::Info(i) => info(i),
            Value::Value(inner) => values(inner),
            Value::Kval(k) => values(&k.value),
            Value::Pdata(p) => values(&p.value),
            Value::App(a) => a.info.iter().map(info).sum::<usize>() + a.argv.len() + a.env.len(),
            Value::Query(q) => q.qualifiers.iter().map(info).sum::<usize>() + q.keys.len(),
            _ => 0,
        }
    }
    ITEM_HELD + item.values.iter().map(values).sum::<usize>() * VALUE_HELD
}

/// The `PMIX_ERR_NOMEM` of a message whose values would hold `need` bytes, over `limit`.
fn over_limit(
    need: usize,
    limit: usize,
    payload: usize,
    at: usize,
    item: usize,
    ty: DataType,
) -> pmix_codec::Error {
    ErrorDetails {
        status: Status::ERR_NOMEM,
        offset: at,
        item,
        ty: Some(ty),
        reason: format!(
            "with this pack call the message's decoded values would hold about {} MiB, over \
             this dissector's limit of {} MiB for a {payload}-byte payload ({} bytes per \
             payload byte): not decoded from here",
            need.div_ceil(1 << 20),
            limit.div_ceil(1 << 20),
            HELD_PER_PAYLOAD_BYTE
        ),
        partial: Vec::new(),
        path: String::new(),
    }
    .into()
}

fn run(codec: &Codec, payload: &[u8], steps: &[Step], out: &mut Decoded) {
    let mut u = codec.unpacker(payload);
    let limit = held_limit(payload.len());
    let mut so_far = 0usize;
    let mut one = |u: &mut pmix_codec::Unpacker<'_>,
                   ty: DataType,
                   n: usize,
                   out: &mut Decoded|
     -> Result<(), pmix_codec::Error> {
        let at = u.offset();
        // a call of many values is counted before it is decoded (a counted call of 16
        // million one-byte values would hold a GiB), then every call as decoded
        let need = so_far.saturating_add(n.saturating_mul(VALUE_HELD));
        if n > 1 && need > limit {
            return Err(over_limit(
                need,
                limit,
                payload.len(),
                at,
                out.items.len(),
                ty,
            ));
        }
        let mut item = u.unpack(ty, n).map_err(|mut e| {
            e.item = out.items.len();
            e
        })?;
        so_far = so_far.saturating_add(held(&item));
        if so_far > limit {
            return Err(over_limit(
                so_far,
                limit,
                payload.len(),
                at,
                out.items.len(),
                ty,
            ));
        }
        if item.values.is_empty() && n > 0 {
            item.ty = ty;
        }
        match item.values.first() {
            Some(Value::Status(s)) if out.status.is_none() => out.status = Some(*s),
            Some(Value::Command(c)) if out.command.is_none() => out.command = Some(*c),
            _ => {}
        }
        out.offsets.push(at);
        out.items.push(item);
        Ok(())
    };
    let result = (|| {
        for step in steps {
            match *step {
                One(ty) => one(&mut u, ty, 1, out)?,
                Counted(ty) | CountedEach(ty) => {
                    let at = u.offset();
                    one(&mut u, DataType::SIZE, 1, out)?;
                    let n = match out.items.last().and_then(|i| i.values.first()) {
                        Some(Value::Size(n)) => *n,
                        _ => 0,
                    };
                    // every value takes at least a byte: a larger count is a lie, refused
                    // before anything is sized by it
                    if n > payload.len() as u64 {
                        return Err(lying_count(n, payload.len(), at, out.items.len() - 1));
                    }
                    if matches!(step, CountedEach(_)) {
                        for _ in 0..n {
                            one(&mut u, ty, 1, out)?;
                        }
                    } else if n > 0 {
                        one(&mut u, ty, n as usize, out)?;
                    }
                }
                RestPairs(first, second) => {
                    while u.remaining() > 0 {
                        one(&mut u, first, 1, out)?;
                        one(&mut u, second, 1, out)?;
                    }
                }
                IfMore => {
                    if u.remaining() == 0 {
                        return Ok(());
                    }
                }
                Rest(ty) => {
                    while u.remaining() > 0 {
                        one(&mut u, ty, 1, out)?;
                    }
                }
            }
        }
        if u.remaining() > 0 {
            return Err(ErrorDetails {
                status: Status::ERR_BAD_PARAM,
                offset: u.offset(),
                item: out.items.len(),
                ty: None,
                reason: format!(
                    "{} bytes left after the message's last argument",
                    u.remaining()
                ),
                partial: Vec::new(),
                path: String::new(),
            }
            .into());
        }
        Ok(())
    })();
    out.error = result.err();
}

fn empty(grammar: bool) -> Decoded {
    Decoded {
        items: Vec::new(),
        offsets: Vec::new(),
        error: None,
        grammar,
        command: None,
        status: None,
    }
}

/// Decode a request: the command, then its arguments.
pub fn decode_request(codec: &Codec, payload: &[u8]) -> Decoded {
    let mut out = empty(true);
    let first = match codec.unpacker(payload).unpack(DataType::COMMAND, 1) {
        Ok(item) => item,
        Err(e) => {
            out.error = Some(e);
            return out;
        }
    };
    let Some(Value::Command(c)) = first.values.first().cloned() else {
        return out;
    };
    let Some(steps) = grammar::request(c) else {
        out.grammar = false;
        out.command = Some(c);
        out.items.push(first);
        out.offsets.push(0);
        return out;
    };
    let mut all = vec![One(DataType::COMMAND)];
    all.extend_from_slice(steps);
    run(codec, payload, &all, &mut out);
    out
}

/// Decode a reply to a request with command `request` (`None`: no request seen).
pub fn decode_reply(codec: &Codec, payload: &[u8], request: Option<u8>) -> Decoded {
    let mut out = empty(request.is_some());
    run(codec, payload, grammar::reply(request), &mut out);
    out
}

/// Decode an event notification (tag 0).
pub fn decode_event(codec: &Codec, payload: &[u8]) -> Decoded {
    let mut out = empty(true);
    run(codec, payload, grammar::EVENT, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_codec::{BufferKind, Component, Info};
    use pmix_ptl::{AllocDirective, Request};

    #[test]
    fn requests_decode_to_the_pack_calls_that_made_them() {
        for kind in BufferKind::ALL {
            for c in [Component::V41, Component::V51, Component::V61] {
                let codec = Codec::new(c, kind);
                for req in [
                    Request::Alloc {
                        directive: AllocDirective::New,
                        infos: vec![Info::new("pmix.alloc.nlist", Value::string("n2"))],
                    },
                    Request::RegisterEvents {
                        codes: vec![-195, 7],
                        infos: vec![],
                    },
                    Request::Finalize,
                ] {
                    let b = req.encode(&codec).unwrap();
                    let d = decode_request(&codec, &b);
                    assert!(d.error.is_none(), "{c} {kind:?} {:?}", d.error);
                    assert_eq!(d.items, req.items(), "{c} {kind:?}");
                    assert_eq!(d.offsets[0], 0);
                }
            }
        }
    }

    /// The client commands' pack calls, as an OpenPMIx client makes them, decode back to
    /// the same calls in every component and both buffer kinds; one step too many or too
    /// few in a grammar would leave bytes or run out.
    #[test]
    fn client_commands_decode_to_their_pack_calls() {
        use pmix_codec::{Buffer, Kval};
        let info = |k: &str, v: Value| Value::Info(Box::new(Info::new(k, v)));
        let size = |n: u64| Item::one(Value::Size(n));
        let cmd = |c: u8| Item::one(Value::Command(c));
        for kind in BufferKind::ALL {
            for c in [
                Component::V21,
                Component::V41,
                Component::V51,
                Component::V61,
            ] {
                let codec = Codec::new(c, kind);
                let kv = codec
                    .encode(&[Item::one(Value::Kval(Box::new(Kval {
                        key: Some("t.str".into()),
                        value: Value::string("hello"),
                    })))])
                    .unwrap();
                let buffer = Value::Buffer(Buffer {
                    kind: kind as u8,
                    bytes: kv.into(),
                });
                let messages: Vec<(&str, Vec<Item>)> = vec![
                    ("req", vec![cmd(0)]),
                    (
                        "abort",
                        vec![
                            cmd(1),
                            Item::one(Value::Status(3)),
                            Item::one(Value::string("bye")),
                            size(1),
                            Item::one(Value::proc("job", 0)),
                        ],
                    ),
                    (
                        "commit",
                        vec![
                            cmd(2),
                            Item::one(Value::Scope(1)),
                            Item::one(buffer.clone()),
                            Item::one(Value::Scope(2)),
                            Item::one(buffer),
                        ],
                    ),
                    (
                        "fence",
                        vec![
                            cmd(3),
                            size(1),
                            Item::one(Value::proc("job", u32::MAX - 1)),
                            size(1),
                            Item::new(
                                DataType::INFO,
                                vec![info("pmix.collect", Value::Bool(true))],
                            ),
                        ],
                    ),
                    (
                        "get",
                        vec![
                            cmd(4),
                            Item::one(Value::string("job")),
                            Item::one(Value::ProcRank(1)),
                            size(0),
                            Item::one(Value::string("t.str")),
                        ],
                    ),
                    (
                        "lookup",
                        vec![
                            cmd(7),
                            Item::one(Value::Uint32(0)),
                            size(2),
                            Item::one(Value::string("a")),
                            Item::one(Value::string("b")),
                            size(0),
                        ],
                    ),
                    (
                        "deregister-events",
                        vec![cmd(14), Item::one(Value::Status(-195))],
                    ),
                    (
                        "log",
                        vec![
                            cmd(16),
                            Item::one(Value::Time(0)),
                            size(1),
                            Item::new(
                                DataType::INFO,
                                vec![info("pmix.log.stderr", Value::string("x"))],
                            ),
                            size(0),
                        ],
                    ),
                ];
                for (what, items) in messages {
                    let b = codec.encode(&items).unwrap();
                    let d = decode_request(&codec, &b);
                    assert!(d.grammar, "{what}");
                    assert!(d.error.is_none(), "{what} {c} {kind:?}: {:?}", d.error);
                    assert_eq!(d.items, items, "{what} {c} {kind:?}");
                    assert_eq!(command_name(d.command.unwrap()), Some(what));
                }
                // replies: req's job data, get's blobs
                let req = [
                    Item::one(Value::string("job")),
                    Item::one(Value::Kval(Box::new(Kval {
                        key: Some("pmix.jobid".into()),
                        value: Value::string("job"),
                    }))),
                ];
                let get = [
                    Item::one(Value::Status(0)),
                    Item::one(Value::ByteObject(vec![1u8, 2, 3].into())),
                ];
                for (c, items) in [(0u8, &req[..]), (4, &get[..])] {
                    let b = codec.encode(items).unwrap();
                    let d = decode_reply(&codec, &b, Some(c));
                    assert!(d.error.is_none(), "reply to {c}: {:?}", d.error);
                    assert_eq!(d.items, items, "reply to {c}");
                }
            }
        }
    }

    #[test]
    fn a_type_the_component_lacks_fails_at_its_byte() {
        let v61 = Codec::new(Component::V61, BufferKind::NonDescribed);
        let v51 = Codec::new(Component::V51, BufferKind::NonDescribed);
        let req = Request::Alloc {
            directive: AllocDirective::New,
            infos: vec![Info::new("pmix.alloc.inhrt", Value::AllocInherit(2))],
        };
        let b = req.encode(&v61).unwrap();
        let d = decode_request(&v51, &b);
        let e = d.error.expect("v51 cannot read type 75");
        assert_eq!(e.status, Status::ERR_UNKNOWN_DATA_TYPE, "{e}");
        // the type field follows the key "pmix.alloc.inhrt\0"
        let key_end = b
            .windows(17)
            .position(|w| w == b"pmix.alloc.inhrt\0")
            .unwrap()
            + 17;
        assert_eq!(&b[key_end..key_end + 2], &[0x00, 0x4b]);
        // the codec names the value it could not read, just after the type field
        assert_eq!(e.offset, key_end + 2, "{e}");
        assert_eq!(
            crate::explain::unregistered_type(&e),
            Some(DataType::ALLOC_INHERIT)
        );
    }

    #[test]
    fn values_over_the_held_limit_are_refused_with_nomem_at_their_call() {
        let codec = Codec::new(Component::V61, BufferKind::NonDescribed);
        let n = 200_000;
        let items = |n: usize| {
            [
                Item::one(Value::Command(13)),
                Item::one(Value::Size(n as u64)),
                Item::new(DataType::STATUS, vec![Value::Status(-1); n]),
                Item::one(Value::Size(0)),
            ]
        };
        // 200k one-byte statuses would hold 12.8 MB, over 16 x 200 KB: refused before
        // they are decoded, at the call's offset
        let b = codec.encode(&items(n)).unwrap();
        assert!(b.len() < 2 * n && held_limit(b.len()) < n * VALUE_HELD);
        let d = decode_request(&codec, &b);
        let e = d.error.expect("over the limit");
        assert_eq!(e.status, Status::ERR_NOMEM, "{e}");
        assert_eq!((e.item, d.items.len()), (2, 2));
        assert_eq!(e.offset, codec.encode(&items(n)[..2]).unwrap().len());
        // a thousand fit
        let b = codec.encode(&items(1000)).unwrap();
        let d = decode_request(&codec, &b);
        assert!(d.error.is_none(), "{:?}", d.error);
        assert_eq!(d.items, items(1000));
        // one call per status: decoded up to the call that crosses the limit
        let mut calls = vec![Item::one(Value::Command(14))];
        calls.extend((0..n).map(|_| Item::one(Value::Status(-1))));
        let b = codec.encode(&calls).unwrap();
        let d = decode_request(&codec, &b);
        let e = d.error.expect("over the limit");
        assert_eq!(e.status, Status::ERR_NOMEM, "{e}");
        let kept: usize = d.items.iter().map(held).sum();
        assert!(kept <= held_limit(b.len()) && kept + 2 * held(&calls[1]) > held_limit(b.len()));
        assert_eq!(d.items[..], calls[..d.items.len()]);
    }

    #[test]
    fn lying_counts_and_trailing_bytes_are_errors() {
        let codec = Codec::new(Component::V61, BufferKind::NonDescribed);
        let d = decode_reply(&codec, &[0x02, 0x00, 0x02, 0x7f], Some(17));
        assert!(d.error.is_some());
        let d = decode_reply(&codec, &[0x02, 0x00, 0x07], Some(13));
        assert!(d.error.is_some());
        let mut fin = Request::Finalize.encode(&codec).unwrap();
        fin.push(0);
        let d = decode_request(&codec, &fin);
        assert!(d.error.unwrap().reason.contains("1 bytes left after"));
        let d = decode_request(
            &codec,
            &codec.encode(&[Item::one(Value::Command(24))]).unwrap(),
        );
        assert!(!d.grammar && d.error.is_none());
    }
}
