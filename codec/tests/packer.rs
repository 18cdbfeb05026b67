//! `Codec::packer` gives what `Codec::encode` gives: call by call with `Packer::pack`, and
//! with `Packer::pack_byte_objects` (payloads from the caller's slices) for the BYTE_OBJECT
//! calls, on every golden vector (errors included) and on byte-object arrays at the SIZE
//! prefix's width boundaries, in every component, buffer kind and release; and the
//! byte-object bytes are checked against prefixes written out by hand.

mod support;
use pmix_codec::vectors::Outcome;
use pmix_codec::*;
use support::{unhex, vector_files};

/// `items` through a packer (`borrow`: BYTE_OBJECT calls with `pack_byte_objects`),
/// into a buffer that already holds `prefix`; what `Codec::encode` would say, with the
/// prefix taken off again.
fn pack_all(codec: &Codec, items: &[Item], borrow: bool, prefix: &[u8]) -> Result<Vec<u8>> {
    let mut buf = prefix.to_vec();
    let mut p = codec.packer(&mut buf);
    for item in items {
        let r = match item.byte_object_payloads().filter(|_| borrow) {
            Some(objects) => p.pack_byte_objects(&objects),
            None => p.pack(item),
        };
        if let Err(mut e) = r {
            assert_eq!(p.bytes(), e.partial.as_slice(), "partial = the buffer");
            e.partial.drain(..prefix.len());
            e.offset -= prefix.len();
            return Err(e);
        }
    }
    drop(p);
    assert_eq!(&buf[..prefix.len()], prefix, "the earlier bytes stay");
    Ok(buf.split_off(prefix.len()))
}

fn check(codec: &Codec, items: &[Item], what: &str) -> Result<Vec<u8>> {
    let want = codec.encode(items);
    for borrow in [false, true] {
        for prefix in [&[][..], &[0xab, 0xcd, 0xef][..]] {
            let got = pack_all(codec, items, borrow, prefix);
            assert_eq!(
                format!("{got:?}"),
                format!("{want:?}"),
                "{what} (borrowing: {borrow}, {} bytes before)",
                prefix.len()
            );
        }
    }
    want
}

#[test]
fn packer_agrees_with_encode_on_the_vectors() {
    let (mut checked, mut byte_objects, mut recorded) = (0, 0, 0);
    for f in vector_files() {
        let codec = f.codec().unwrap();
        for v in &f.tests {
            // Vectors whose items do not parse (decode-only garbage) have no pack calls.
            let Ok(items) = json::items_from_json(&v.items) else {
                continue;
            };
            let what = format!("{} {} vector {}", f.component, f.buffer, v.id);
            let packed = check(&codec, &items, &what);
            checked += 1;
            if items.iter().any(|i| i.byte_object_payloads().is_some()) {
                byte_objects += 1;
                if v.result == Outcome::Valid {
                    // the bytes libpmix recorded, through the borrowing call
                    assert_eq!(packed.as_deref().ok(), Some(&unhex(&v.wire)[..]), "{what}");
                    recorded += 1;
                }
            }
        }
    }
    println!("{checked} vectors packed, {byte_objects} with BYTE_OBJECT calls ({recorded} valid)");
    assert!(
        recorded > 50,
        "only {recorded} valid vectors with BYTE_OBJECT"
    );
    assert!(checked > 10_000, "only {checked} vectors packed");
}

/// Byte objects of these lengths: both sides of the one/two/three-byte flex boundaries.
const LENS: [usize; 11] = [0, 1, 5, 127, 128, 129, 300, 16383, 16384, 20000, 2_097_152];

fn blob(n: usize) -> Vec<u8> {
    (0..n).map(|j| (j * 3 + n) as u8).collect()
}

#[test]
fn packer_agrees_on_byte_object_arrays() {
    let blobs: Vec<Vec<u8>> = LENS.iter().map(|&n| blob(n)).collect();
    let objects: Vec<Value> = blobs
        .iter()
        .map(|b| Value::ByteObject(b.clone().into()))
        .collect();
    let items = [
        Item::one(Value::proc("ns", 1)),
        Item::new(DataType::BYTE_OBJECT, objects),
        Item::new(DataType::BYTE_OBJECT, vec![]),
        Item::one(Value::ByteObject(vec![9; 3].into())),
        // a value of another type: the call fails, in both ways of packing it
        Item::new(
            DataType::BYTE_OBJECT,
            vec![Value::ByteObject(vec![1].into()), Value::Uint8(2)],
        ),
    ];
    let mut packed = 0;
    for comp in Component::ALL {
        for kind in BufferKind::ALL {
            for rel in [Release::Master, Release::OpenPmix4_2] {
                if !rel.ships(comp) {
                    continue; // refused as a whole (NOT_SUPPORTED): see component_refusals
                }
                let codec = Codec::new(comp, kind).with_release(rel);
                let what = format!("{comp} {kind} {rel:?}");
                let e = check(&codec, &items, &what).expect_err("the last call fails");
                assert_eq!(e.item, 4, "{what}");
                check(&codec, &items[..4], &what).expect("packs");
                packed += 1;
            }
        }
    }
    // Every component in both kinds, under each of the two profiles that registers it.
    let shipped = Component::ALL
        .iter()
        .map(|c| {
            [Release::Master, Release::OpenPmix4_2]
                .iter()
                .filter(|r| r.ships(*c))
                .count()
        })
        .sum::<usize>();
    assert_eq!(packed, shipped * 2);
}

/// The flex encoding written out by hand: 7-bit groups, low first, high bit = more.
fn flex(mut u: u64) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let b = (u & 0x7f) as u8;
        u >>= 7;
        if u == 0 {
            out.push(b);
            return out;
        }
        out.push(b | 0x80);
    }
}

#[test]
fn pack_byte_objects_writes_the_documented_prefixes() {
    let blobs: Vec<Vec<u8>> = LENS.iter().map(|&n| blob(n)).collect();
    // v41 (modern): count as a zigzag flex INT32, each SIZE a bare flex integer.
    let mut want = flex(2 * blobs.len() as u64);
    for b in &blobs {
        want.extend(flex(b.len() as u64));
        want.extend(b);
    }
    let mut got = Vec::new();
    Codec::new(Component::V41, BufferKind::NonDescribed)
        .packer(&mut got)
        .pack_byte_objects(&blobs)
        .unwrap();
    assert_eq!(got.len(), want.len());
    assert!(
        got == want,
        "v41: bytes differ from the hand-written prefixes"
    );
    // v3 (converged): count as a big-endian INT32, each SIZE a UINT64 tag (15) + 8 bytes.
    let mut want = (blobs.len() as u32).to_be_bytes().to_vec();
    for b in &blobs {
        want.extend([0, 15]);
        want.extend((b.len() as u64).to_be_bytes());
        want.extend(b);
    }
    got.clear();
    Codec::new(Component::V3, BufferKind::NonDescribed)
        .packer(&mut got)
        .pack_byte_objects(&blobs)
        .unwrap();
    assert!(
        got == want,
        "v3: bytes differ from the hand-written prefixes"
    );
}
