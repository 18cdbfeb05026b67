//! `Codec::unpacker` gives what `Codec::decode_calls` gives: call by call with
//! `Unpacker::unpack`, and with `Unpacker::unpack_byte_objects` (payloads borrowed from
//! the input) for the BYTE_OBJECT calls, on every golden vector's bytes and prefixes of
//! them (the error paths), and on byte-object arrays at the SIZE prefix's width boundaries
//! with small capacities, in every component, buffer kind and release.

mod support;
use pmix_codec::*;
use support::decode_cases;

type Decoded = std::result::Result<Vec<Item>, (Error, Vec<Item>)>;

/// The calls through an unpacker; `borrow`: BYTE_OBJECT calls with `unpack_byte_objects`.
fn unpack_all(codec: &Codec, bytes: &[u8], calls: &[(DataType, usize)], borrow: bool) -> Decoded {
    let mut u = codec.unpacker(bytes);
    let mut items = Vec::new();
    let mut slices = vec![&[0xeeu8][..]; 3];
    for (ty, cap) in calls {
        let r = if borrow && *ty == DataType::BYTE_OBJECT {
            u.unpack_byte_objects(*cap, &mut slices).map(|()| {
                let values = slices.iter().map(|s| Value::ByteObject(s.to_vec().into()));
                Item::new(*ty, values.collect())
            })
        } else {
            u.unpack(*ty, *cap)
        };
        match r {
            Ok(item) => items.push(item),
            Err(e) => return Err((e, items)),
        }
    }
    Ok(items)
}

fn check(codec: &Codec, bytes: &[u8], calls: &[(DataType, usize)], what: &str) -> usize {
    let want = format!("{:?}", codec.decode_calls(bytes, calls));
    for borrow in [false, true] {
        let got = format!("{:?}", unpack_all(codec, bytes, calls, borrow));
        assert_eq!(got, want, "{what} (borrowing: {borrow})");
    }
    1
}

#[test]
fn unpacker_agrees_with_decode_calls_on_the_vectors() {
    let mut checked = 0;
    let mut byte_objects = 0;
    for c in decode_cases() {
        let has_bo = c.calls.iter().any(|c| c.0 == DataType::BYTE_OBJECT);
        byte_objects += has_bo as usize;
        for cut in 0..=c.wire.len() {
            if cut != c.wire.len() && !(has_bo && (c.wire.len() <= 64 || cut % 13 == 0)) {
                continue;
            }
            let what = format!("{} cut at {cut}", c.label);
            checked += check(&c.codec, &c.wire[..cut], &c.calls, &what);
        }
    }
    println!("{checked} decodes checked, {byte_objects} vectors with BYTE_OBJECT calls");
    assert!(
        byte_objects > 50,
        "only {byte_objects} vectors with BYTE_OBJECT"
    );
    assert!(checked > 10_000, "only {checked} decodes checked");
}

#[test]
fn unpacker_agrees_on_byte_object_arrays() {
    let lens = [0usize, 1, 5, 127, 128, 129, 300, 16383, 16384, 20000];
    let objects: Vec<Value> = lens
        .iter()
        .map(|&n| Value::ByteObject((0..n).map(|j| (j * 3 + n) as u8).collect()))
        .collect();
    let items = [
        Item::one(Value::proc("ns", 1)),
        Item::new(DataType::BYTE_OBJECT, objects),
        Item::one(Value::ByteObject(vec![9; 3].into())),
    ];
    for comp in Component::ALL {
        for kind in BufferKind::ALL {
            for rel in [Release::Master, Release::OpenPmix4_2] {
                let codec = Codec::new(comp, kind).with_release(rel);
                let Ok(wire) = codec.encode(&items) else {
                    continue;
                };
                for cap in [usize::MAX, 1, 3, 10] {
                    let calls = [
                        (DataType::PROC, 1),
                        (DataType::BYTE_OBJECT, cap),
                        (DataType::BYTE_OBJECT, cap),
                    ];
                    for cut in (0..=wire.len()).filter(|c| c % 61 < 3 || *c + 3 > wire.len()) {
                        let what = format!("{comp} {kind} {rel:?} capacity {cap} cut at {cut}");
                        check(&codec, &wire[..cut], &calls, &what);
                    }
                }
            }
        }
    }
}
