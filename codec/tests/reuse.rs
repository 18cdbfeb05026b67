//! The reusing entry points give exactly what the allocating ones give:
//! `decode_calls_into` what `decode_calls` gives for every golden vector's bytes and every
//! prefix of them (the error paths), whatever `out` held before (nothing, the same message,
//! another message, values of other shapes); `encode_into` what `encode` gives, errors
//! included. Also: a value of the wrong type fails a pack call before it writes anything,
//! for the element types whose encoder checks types as it goes.

mod support;
use pmix_codec::*;
use support::{unhex, vector_files};

/// Values of the kinds the reusing decoder rewrites in place, in shapes unlike any vector's.
fn odd_items() -> Vec<Item> {
    let long = "x".repeat(300);
    let info = Value::info(
        &long,
        Value::array(
            DataType::STRING,
            vec![Value::string("a"), Value::String(None)],
        ),
    );
    let values = [
        info.clone(),
        Value::proc(&long, 7),
        Value::ByteObject(vec![1; 500].into()),
        Value::String(Some(long.as_str().into())),
        Value::array(DataType::INFO, vec![info.clone(), info]),
    ];
    (0..4)
        .map(|i| Item::new(DataType::UNDEF, values[i..].to_vec()))
        .collect()
}

fn show(r: &std::result::Result<Vec<Item>, (Error, Vec<Item>)>) -> String {
    format!("{r:?}")
}

#[test]
fn decode_into_agrees_with_decode_whatever_out_held() {
    let mut checked = 0usize;
    for f in vector_files() {
        let codec = f.codec().unwrap();
        let mut previous: Vec<Item> = odd_items();
        for v in &f.tests {
            let items = json::items_from_json(&v.items).unwrap();
            let calls: Vec<(DataType, usize)> = items.iter().map(|i| (i.ty, usize::MAX)).collect();
            let wire = unhex(&v.wire);
            let full = codec.decode_calls(&wire, &calls);
            for cut in 0..=wire.len() {
                // every prefix of short buffers, a few of long ones
                if wire.len() > 32 && cut != wire.len() && cut % 41 != 0 {
                    continue;
                }
                let bytes = &wire[..cut];
                let want = codec.decode_calls(bytes, &calls);
                let own = match &want {
                    Ok(items) => items.clone(),
                    Err((_, partial)) => partial.clone(),
                };
                let starts = [Vec::new(), own, previous.clone(), odd_items()];
                for start in starts {
                    let mut out = start;
                    let got = codec
                        .decode_calls_into(bytes, &calls, &mut out)
                        .map(|()| out.clone())
                        .map_err(|e| (e, out.clone()));
                    assert_eq!(
                        show(&got),
                        show(&want),
                        "{} {} vector {} cut at {cut}",
                        f.component,
                        f.buffer,
                        v.id
                    );
                    checked += 1;
                }
            }
            if let Ok(items) = full {
                previous = items;
            }
        }
    }
    println!("{checked} decodes checked");
    assert!(checked > 10_000, "only {checked} decodes checked");
}

#[test]
fn encode_into_agrees_with_encode() {
    let mut buf = vec![0xee; 1000];
    let mut checked = 0;
    for f in vector_files() {
        let codec = f.codec().unwrap();
        for v in &f.tests {
            let items = json::items_from_json(&v.items).unwrap();
            let want = codec.encode(&items);
            let got = codec.encode_into(&items, &mut buf);
            match (&want, got) {
                (Ok(bytes), Ok(())) => assert_eq!(&buf, bytes, "vector {}", v.id),
                (Err(e), Err(g)) => {
                    assert_eq!(e, &g, "vector {}", v.id);
                    assert_eq!(buf, e.partial, "vector {}", v.id);
                }
                (w, g) => panic!("vector {}: encode {w:?}, encode_into {g:?}", v.id),
            }
            checked += 1;
        }
    }
    assert!(checked > 1000, "only {checked} vectors");
}

#[test]
fn a_value_of_another_type_fails_the_call_before_it_writes() {
    for comp in Component::ALL {
        for kind in BufferKind::ALL {
            let codec = Codec::new(comp, kind);
            for (ty, good) in [
                (DataType::PROC, Value::proc("ns", 1)),
                (DataType::STRING, Value::string("abc")),
                (
                    DataType::BYTE_OBJECT,
                    Value::ByteObject(vec![1, 2, 3].into()),
                ),
                (DataType::INFO, Value::info("k", Value::Uint8(1))),
                (DataType::UINT32, Value::Uint32(5)),
            ] {
                let first = Item::one(Value::Uint8(9));
                let odd = if ty == DataType::UINT32 {
                    Value::Bool(true)
                } else {
                    Value::Uint32(7)
                };
                let bad = Item::new(ty, vec![good.clone(), good.clone(), odd.clone(), good]);
                let before = codec.encode(std::slice::from_ref(&first)).unwrap();
                let e = codec.encode(&[first, bad]).unwrap_err();
                assert_eq!(e.status, Status::ERR_BAD_PARAM, "{comp} {kind} {ty}");
                assert_eq!(e.item, 1);
                assert_eq!(e.partial, before, "{comp} {kind} {ty}");
                assert_eq!(e.offset, before.len());
                assert_eq!(
                    e.reason,
                    format!("value of type {} in a pack call of {ty}", odd.data_type())
                );
            }
        }
    }
}

/// Byte-object arrays around the SIZE prefix's width boundaries, whole and cut short:
/// `decode_into` (whose byte-object loop has a fast path for short prefixes) gives what
/// `decode` gives whatever `out` held, and `encode` writes SIZE as `put_flex` does.
#[test]
fn byte_object_arrays_at_size_boundaries() {
    let lens = [0usize, 1, 5, 127, 128, 129, 300, 16383, 16384, 20000];
    let objects: Vec<Value> = lens
        .iter()
        .map(|&n| Value::ByteObject((0..n).map(|j| (j * 7 + n) as u8).collect()))
        .collect();
    let item = Item::new(DataType::BYTE_OBJECT, objects.clone());
    let starts = |n: usize| {
        vec![
            Vec::new(),
            vec![Item::new(DataType::BYTE_OBJECT, objects.clone())],
            vec![Item::new(
                DataType::BYTE_OBJECT,
                lens.iter()
                    .rev()
                    .take(n)
                    .map(|&n| Value::ByteObject(vec![0xee; n].into()))
                    .collect(),
            )],
            odd_items(),
        ]
    };
    for comp in Component::ALL {
        for kind in BufferKind::ALL {
            for rel in [Release::Master, Release::OpenPmix4_2] {
                if !rel.ships(comp) {
                    continue; // refused as a whole (NOT_SUPPORTED): see component_refusals
                }
                let codec = Codec::new(comp, kind).with_release(rel);
                let wire = codec.encode(std::slice::from_ref(&item)).unwrap();
                if comp.family() == Family::Modern && kind == BufferKind::NonDescribed {
                    let mut want = Vec::new();
                    wire::put_flex(&mut want, wire::zigzag(lens.len() as i64));
                    for v in &objects {
                        if let Value::ByteObject(b) = v {
                            wire::put_flex(&mut want, b.len() as u64);
                            want.extend_from_slice(b);
                        }
                    }
                    assert_eq!(wire, want, "{comp} {rel:?}");
                }
                let calls = [(DataType::BYTE_OBJECT, usize::MAX)];
                for cut in (0..=wire.len()).filter(|c| c % 97 < 4 || *c + 4 > wire.len()) {
                    let want = codec.decode_calls(&wire[..cut], &calls);
                    for mut out in starts(cut % lens.len()) {
                        let got = codec
                            .decode_calls_into(&wire[..cut], &calls, &mut out)
                            .map(|()| out.clone())
                            .map_err(|e| (e, out.clone()));
                        assert_eq!(
                            show(&got),
                            show(&want),
                            "{comp} {kind} {rel:?} cut at {cut}"
                        );
                    }
                }
            }
        }
    }
}
