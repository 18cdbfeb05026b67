//! The dissector (`pmix-wire inspect`) must agree with the codec: on every corpus case, in
//! every component, release and buffer kind, reading like the C receiver and (`--as-written`)
//! like the packer wrote, its walk ends exactly where the codec stops, and on every truncation
//! and on byte mutations it fails where the codec fails, with the same status, offset and item.

use pmix_codec::{BufferKind, Codec, DataType, DecodeOptions, Item, Release, Value};
use pmix_wire::cli::inspect::dissect;
use pmix_wire::corpus::cases;

fn codecs() -> Vec<Codec> {
    let mut out = Vec::new();
    for rel in Release::ALL {
        for &comp in rel.components() {
            for kind in BufferKind::ALL {
                for as_written in [false, true] {
                    let mut c = Codec::new(comp, kind).with_release(rel);
                    c.options = DecodeOptions {
                        datatype_as_written: false,
                        as_written,
                    };
                    out.push(c);
                }
            }
        }
    }
    out
}

fn mode(codec: &Codec) -> &'static str {
    if codec.options.as_written {
        " as-written"
    } else {
        ""
    }
}

/// Compare the walk with the codec on `bytes` read as `types` (or discovered, when `None`).
fn agree(codec: &Codec, bytes: &[u8], types: Option<&[DataType]>, what: &str) {
    let walk = dissect(codec, bytes, types);
    let got = match types {
        Some(t) => codec.decode(bytes, t).map(|_| ()),
        None => codec.decode_described(bytes).map(|_| ()),
    };
    match (&walk.error, got) {
        (None, Ok(())) => {}
        (Some(w), Err(c)) => {
            assert_eq!(
                (w.status, w.offset, w.item, w.ty),
                (c.status, c.offset, c.item, c.ty),
                "{what}: walker error {w} vs codec error {c}"
            );
        }
        (w, c) => panic!("{what}: walker {w:?} vs codec {c:?}"),
    }
}

/// Deterministic xorshift for mutations.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn walk_ends_where_the_codec_stops_and_fails_where_it_fails() {
    let mut checked = 0usize;
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for codec in codecs() {
        for case in cases(codec.component, codec.release) {
            let Ok(bytes) = codec.encode(&case.items) else {
                continue;
            };
            let types: Vec<DataType> = case.items.iter().map(|i| i.ty).collect();
            let what = format!(
                "{} {} {}{} {}",
                codec.component,
                codec.kind,
                codec.release,
                mode(&codec),
                case.name
            );

            // Well-formed: the walk consumes every byte, and the codec consumed exactly as many
            // (a marker call right after decodes to the marker).
            agree(&codec, &bytes, Some(&types), &what);
            if codec.decode(&bytes, &types).is_err() {
                // Encodable but not decodable (v12 POINTER, quirk P1): agreement on the error is enough.
                continue;
            }
            let walk = dissect(&codec, &bytes, Some(&types));
            assert!(walk.error.is_none(), "{what}: {:?}", walk.error);
            assert_eq!(walk.consumed, bytes.len(), "{what}");
            assert_eq!(walk.items, types.len(), "{what}");
            let mut with_marker = case.items.clone();
            with_marker.push(Item::one(Value::Byte(0x5a)));
            let marked = codec.encode(&with_marker).expect("marker encodes");
            let mut mt = types.clone();
            mt.push(DataType::BYTE);
            let dec = codec
                .decode(&marked, &mt)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(dec.last().unwrap().values, [Value::Byte(0x5a)], "{what}");
            if codec.kind == BufferKind::FullyDescribed {
                agree(&codec, &bytes, None, &format!("{what} (discovered)"));
            }

            // Every truncation (every third one in unoptimized builds, plus the last few).
            let stride = if cfg!(debug_assertions) { 3 } else { 1 };
            for k in (0..bytes.len()).filter(|k| k % stride == 0 || k + 6 >= bytes.len()) {
                agree(
                    &codec,
                    &bytes[..k],
                    Some(&types),
                    &format!("{what} truncated to {k}"),
                );
                if codec.kind == BufferKind::FullyDescribed {
                    agree(
                        &codec,
                        &bytes[..k],
                        None,
                        &format!("{what} truncated to {k} (discovered)"),
                    );
                }
                checked += 1;
            }

            // A few single-byte mutations.
            for _ in 0..4 {
                if bytes.is_empty() {
                    break;
                }
                let mut m = bytes.clone();
                let i = (rng.next() as usize) % m.len();
                m[i] = match rng.next() % 4 {
                    0 => 0xff,
                    1 => 0x00,
                    2 => m[i] ^ 0x80,
                    _ => rng.next() as u8,
                };
                agree(
                    &codec,
                    &m,
                    Some(&types),
                    &format!("{what} byte {i} set to {:02x}", m[i]),
                );
                if codec.kind == BufferKind::FullyDescribed {
                    agree(
                        &codec,
                        &m,
                        None,
                        &format!("{what} byte {i} set to {:02x} (discovered)", m[i]),
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 5_000, "only {checked} checks");
}

/// Random bytes read as random types: the walk and the codec fail (or succeed) alike.
#[test]
fn random_bytes_agree() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let runs = if cfg!(debug_assertions) { 150 } else { 600 };
    for codec in codecs() {
        let registered = codec.component.registered_types(codec.release);
        for r in 0..runs {
            let len = (rng.next() % 48) as usize;
            let mut bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
            // Small counts and lengths make deeper walks likelier than uniform bytes do.
            for b in bytes.iter_mut() {
                if rng.next().is_multiple_of(3) {
                    *b %= 8;
                }
            }
            let ntypes = 1 + (rng.next() % 3) as usize;
            let types: Vec<DataType> = (0..ntypes)
                .map(|_| {
                    if rng.next().is_multiple_of(10) {
                        DataType((rng.next() % 80) as u16)
                    } else {
                        registered[(rng.next() as usize) % registered.len()]
                    }
                })
                .collect();
            let what = format!(
                "{} {} {}{} run {r}: {types:?} {bytes:02x?}",
                codec.component,
                codec.kind,
                codec.release,
                mode(&codec)
            );
            agree(&codec, &bytes, Some(&types), &what);
            if codec.kind == BufferKind::FullyDescribed {
                agree(&codec, &bytes, None, &format!("{what} (discovered)"));
            }
        }
    }
}

/// Should the walker and the codec ever disagree, `inspect` shows the codec's verdict and
/// says that they disagree; when they agree, the walk is shown as it is.
#[test]
fn a_disagreement_shows_the_codec_verdict() {
    use pmix_codec::{Component, Error, Status};
    use pmix_wire::cli::inspect::{dissect_checked, reconcile, render};
    let codec = Codec::new(Component::V41, BufferKind::NonDescribed);
    let bytes = [0x02, 0x2a, 0x02, 0x0a, 0x61, 0x62];
    let types = [DataType::UINT32, DataType::STRING];
    let walk = dissect(&codec, &bytes, Some(&types));
    let checked = dissect_checked(&codec, &bytes, Some(&types));
    assert!(checked.disagreement.is_none());
    assert_eq!(checked.fields, walk.fields);
    assert_eq!(
        checked.error.as_ref().map(|e| e.offset),
        walk.error.as_ref().map(|e| e.offset)
    );

    // A codec that failed at byte 2 (item 1) instead: fields past it go, its error is shown.
    let e = Error {
        status: Status::ERR_UNPACK_FAILURE,
        offset: 2,
        item: 1,
        ty: Some(DataType::STRING),
        reason: "made up".into(),
        partial: Vec::new(),
        path: String::new(),
    };
    let r = reconcile(walk.clone(), Err(e));
    assert!(r.disagreement.as_deref().unwrap().contains("-50"));
    assert!(r.fields.iter().all(|f| f.offset + f.len <= 2));
    assert_eq!(r.error.as_ref().unwrap().status, Status::ERR_UNPACK_FAILURE);
    let text = render(&r, &bytes, false);
    assert!(text.contains("disagrees with the codec"), "{text}");
    assert!(
        text.contains("decoding fails here: PMIX_ERR_UNPACK_FAILURE (-20) at byte 2"),
        "{text}"
    );

    // A codec that succeeded: no error, and the page says so.
    let r = reconcile(walk, Ok(()));
    assert!(r.error.is_none() && r.disagreement.is_some());
    let text = render(&r, &bytes, false);
    assert!(
        text.contains("the codec decodes the 6 bytes without error"),
        "{text}"
    );
}
