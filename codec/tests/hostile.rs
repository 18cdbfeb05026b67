//! Hostile input: the checks of OpenPMIx master's own `bfrops_malformed` review, nesting,
//! lying counts and truncation at every byte. Decoding never panics and fails with the
//! status OpenPMIx master returns.

use pmix_codec::*;

/// The thread stack the nesting tests decode on: far too small for 100 000 levels of
/// recursion, so passing shows the 100-level cap holds. 100 legitimate levels need
/// 256-384 KiB in a release build but 1.5-2 MiB unoptimised (FINDINGS.md, "Stack use").
const SMALL_STACK: usize = if cfg!(debug_assertions) {
    4 * 1024 * 1024
} else {
    256 * 1024
};

fn v61() -> Codec {
    Codec::new(Component::V61, BufferKind::NonDescribed)
}

fn status(c: &Codec, bytes: &[u8], types: &[DataType]) -> Status {
    c.decode(bytes, types).expect_err("must fail").status
}

#[test]
fn count_larger_than_payload_fails_without_over_read() {
    // count 100 (zigzag c8 01), then one value byte
    assert_eq!(
        status(&v61(), &[0xc8, 0x01, 0x05], &[DataType::INT32]),
        Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER
    );
    assert_eq!(
        status(&v61(), &[0x80, 0x01, 0xff], &[DataType::SIZE]),
        Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER
    );
}

#[test]
fn varint_with_every_continuation_bit_fails() {
    assert_eq!(
        status(&v61(), &[0x02, 0xff, 0xff, 0xff], &[DataType::UINT64]),
        Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER
    );
}

#[test]
fn empty_buffer() {
    assert_eq!(
        status(&v61(), &[], &[DataType::INT32]),
        Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER
    );
    assert_eq!(
        status(&v61(), &[], &[DataType::STRING]),
        Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER
    );
}

#[test]
fn unterminated_and_negative_strings() {
    let got = v61()
        .decode(&[0x02, 0x08, b'a', b'b', b'c', b'd'], &[DataType::STRING])
        .unwrap();
    assert_eq!(got[0].values, [Value::string("abc")]);
    let got = v61().decode(&[0x02, 0x01], &[DataType::STRING]).unwrap();
    assert_eq!(got[0].values, [Value::String(None)]);
    // 4.2.2 hands a negative length to malloc: PMIX_ERR_OUT_OF_RESOURCE.
    let c = v61().with_release(Release::OpenPmix4_2);
    let c = Codec {
        component: Component::V41,
        ..c
    };
    assert_eq!(
        status(&c, &[0x02, 0x01], &[DataType::STRING]),
        Status::ERR_OUT_OF_RESOURCE
    );
    // a length that lies (2^31-1) is refused before any allocation
    let mut b = vec![0x02];
    pmix_codec::wire::put_flex(&mut b, pmix_codec::wire::zigzag(i32::MAX as i64));
    b.extend_from_slice(b"abc");
    assert_eq!(
        status(&v61(), &b, &[DataType::STRING]),
        Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER
    );
}

#[test]
fn varint_boundaries_round_trip() {
    let c = v61();
    for u in [
        0u64,
        1,
        127,
        128,
        16383,
        16384,
        (1 << 31) - 1,
        1 << 31,
        (1 << 32) - 1,
        1 << 32,
        (1 << 63) - 1,
        1 << 63,
        u64::MAX,
    ] {
        let b = c.encode(&[Item::one(Value::Uint64(u))]).unwrap();
        assert_eq!(
            c.decode(&b, &[DataType::UINT64]).unwrap()[0].values,
            [Value::Uint64(u)]
        );
    }
    for i in [
        0i64,
        1,
        -1,
        127,
        -127,
        128,
        -128,
        16383,
        -16384,
        i32::MIN as i64,
        i32::MAX as i64,
        i64::MIN,
        i64::MAX,
    ] {
        let b = c.encode(&[Item::one(Value::Int64(i))]).unwrap();
        assert_eq!(
            c.decode(&b, &[DataType::INT64]).unwrap()[0].values,
            [Value::Int64(i)]
        );
    }
    let vals: Vec<Value> = (0..256u64)
        .map(|n| {
            Value::Uint64(if n < 64 {
                1 << n
            } else {
                n.wrapping_mul(0x9e37_79b9_7f4a_7c15)
            })
        })
        .collect();
    let b = c
        .encode(&[Item::new(DataType::UINT64, vals.clone())])
        .unwrap();
    assert_eq!(c.decode(&b, &[DataType::UINT64]).unwrap()[0].values, vals);
}

#[test]
fn huge_array_count_is_refused_without_allocation() {
    // DATA_ARRAY of INT64 claiming 2^40 elements, no payload
    let mut b = vec![0x02, 0x0a];
    pmix_codec::wire::put_flex(&mut b, 1 << 40);
    assert_eq!(
        status(&v61(), &b, &[DataType::DATA_ARRAY]),
        Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER
    );
}

#[test]
fn value_of_container_types_is_refused() {
    for t in [
        DataType::VALUE,
        DataType::INFO,
        DataType::PDATA,
        DataType::APP,
        DataType::KVAL,
        DataType::BUFFER,
    ] {
        let mut b = vec![0x02, t.0 as u8];
        b.extend(std::iter::repeat_n(0x02, 512));
        assert_eq!(
            status(&v61(), &b, &[DataType::VALUE]),
            Status::ERR_BAD_PARAM,
            "{t}"
        );
    }
}

fn nested(depth: usize) -> Value {
    let mut v = Value::array(DataType::UINT8, vec![Value::Uint8(1)]);
    for _ in 1..depth {
        v = Value::array(DataType::DATA_ARRAY, vec![v]);
    }
    v
}

#[test]
fn nesting_is_capped_at_100() {
    let c = v61();
    let ok = c.encode(&[Item::one(nested(100))]).unwrap();
    assert!(c.decode(&ok, &[DataType::DATA_ARRAY]).is_ok());
    assert_eq!(
        c.encode(&[Item::one(nested(101))]).unwrap_err().status,
        Status::ERR_PACK_FAILURE
    );
    // hand-built 100_000 levels: decoded without recursion overflow, refused at level 101
    let mut b = vec![0x02];
    for _ in 0..100_000 {
        b.extend_from_slice(&[0x27, 0x01]);
    }
    assert_eq!(
        status(&c, &b, &[DataType::DATA_ARRAY]),
        Status::ERR_UNPACK_FAILURE
    );
}

#[test]
fn truncation_at_every_byte_never_panics() {
    for comp in Component::ALL {
        for kind in BufferKind::ALL {
            let c = Codec::new(comp, kind);
            let mut items = vec![
                Item::one(Value::string("a message")),
                Item::one(Value::Size(123456)),
                Item::one(Value::Int32(-5)),
                Item::one(Value::info("pmix.alloc.nnodes", Value::Uint64(16))),
            ];
            if comp != Component::V12 {
                items.push(Item::one(Value::array(
                    DataType::STRING,
                    vec![Value::string("x"), Value::String(None)],
                )));
            }
            let types: Vec<DataType> = items.iter().map(|i| i.ty).collect();
            let full = c.encode(&items).unwrap();
            assert_eq!(c.decode(&full, &types).unwrap(), items, "{comp} {kind}");
            for cut in 0..full.len() {
                let e = c.decode(&full[..cut], &types).expect_err("truncated");
                assert!(
                    e.offset <= cut,
                    "{comp} {kind} cut {cut}: offset {} beyond input",
                    e.offset
                );
                assert!(
                    matches!(
                        e.status,
                        Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER | Status::ERR_UNPACK_FAILURE
                    ),
                    "{comp} {kind} cut {cut}: {e}"
                );
            }
        }
    }
}

#[test]
fn described_buffer_mismatches() {
    let c = Codec::new(Component::V41, BufferKind::FullyDescribed);
    let b = c.encode(&[Item::one(Value::Uint32(42))]).unwrap();
    assert_eq!(b, [0x09, 0x02, 0x0e, 0x2a]);
    assert_eq!(
        status(&c, &b, &[DataType::UINT16]),
        Status::ERR_PACK_MISMATCH
    );
    assert_eq!(
        status(&c, &[0x0e, 0x02, 0x0e, 0x2a], &[DataType::UINT32]),
        Status::ERR_UNPACK_FAILURE
    );
    // discovering types
    let items = c.decode_described(&b).unwrap();
    assert_eq!(items, [Item::one(Value::Uint32(42))]);
}

#[test]
fn unknown_types() {
    let v51 = Codec::new(Component::V51, BufferKind::NonDescribed);
    assert_eq!(
        status(&v51, &[0x02, 0x03], &[DataType::ALLOC_INHERIT]),
        Status::ERR_UNKNOWN_DATA_TYPE
    );
    assert_eq!(
        v51.encode(&[Item::one(Value::AllocInherit(3))])
            .unwrap_err()
            .status,
        Status::ERR_UNKNOWN_DATA_TYPE
    );
    // inside a VALUE the base packer reports an inline unknown type as PMIX_ERROR
    assert_eq!(
        v51.encode(&[Item::one(Value::Value(Box::new(Value::AllocInherit(3))))])
            .unwrap_err()
            .status,
        Status::ERROR
    );
    assert_eq!(
        status(&v51, &[0x02, 0x4b, 0x03], &[DataType::VALUE]),
        Status::ERR_UNKNOWN_DATA_TYPE
    );
    let v20 = Codec::new(Component::V20, BufferKind::NonDescribed);
    assert_eq!(
        v20.encode(&[Item::one(Value::Coord(Coord::default()))])
            .unwrap_err()
            .status,
        Status::ERR_PACK_FAILURE
    );
}

/// Deterministic pseudo-random garbage through every (component, kind, type): no panics,
/// every error offset inside the input.
#[test]
fn garbage_never_panics() {
    let mut x: u64 = 0x1234_5678_9abc_def0;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for comp in Component::ALL {
        for kind in BufferKind::ALL {
            let c = Codec::new(comp, kind);
            for ty in comp.registered_types(Release::Master) {
                for _ in 0..40 {
                    let len = (next() % 60) as usize + 4;
                    let bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
                    if let Err(e) = c.decode(&bytes, &[ty, ty]) {
                        assert!(e.offset <= bytes.len());
                    }
                    if kind == BufferKind::FullyDescribed {
                        let _ = c.decode_described(&bytes);
                    }
                }
            }
        }
    }
}

/// INFO_ARRAY inside VALUE inside INFO_ARRAY ... has no cap in OpenPMIx (its stack
/// overflows); ours shares the 100-level cap, also on a small thread stack.
#[test]
fn info_array_nesting_is_capped() {
    const DEPTH: usize = 100_000;
    // As C reads it (quirk U11): VALUE(INFO_ARRAY: size 1, VALUE(INFO_ARRAY: ...)).
    let mut as_read = vec![0, 0, 0, 1];
    for _ in 0..DEPTH {
        as_read.extend_from_slice(&[0x00, 0x2c, 0x00, 0x0f, 0, 0, 0, 0, 0, 0, 0, 1]);
    }
    as_read.extend_from_slice(&[0x00, 0x00]);
    // As written: INFO_ARRAY(size 1, INFO{key "", flags 0, INFO_ARRAY(...)}).
    let mut written = vec![0, 0, 0, 1];
    for _ in 0..DEPTH {
        written.extend_from_slice(&[0x00, 0x0f, 0, 0, 0, 0, 0, 0, 0, 1]);
        written.extend_from_slice(&[0, 0, 0, 1, 0, 0, 0, 0, 0, 0x00, 0x2c]);
    }
    written.extend_from_slice(&[0x00, 0x0f, 0, 0, 0, 0, 0, 0, 0, 0]);
    let run = move || {
        let mut c =
            Codec::new(Component::V3, BufferKind::NonDescribed).with_release(Release::OpenPmix4_2);
        let a = c.decode(&as_read, &[DataType::VALUE]).unwrap_err();
        c.options.as_written = true;
        let b = c.decode(&written, &[DataType::INFO_ARRAY]).unwrap_err();
        (a.status, b.status)
    };
    let statuses = std::thread::Builder::new()
        .stack_size(SMALL_STACK)
        .spawn(run)
        .unwrap()
        .join()
        .expect("no stack overflow");
    assert_eq!(
        statuses,
        (Status::ERR_UNPACK_FAILURE, Status::ERR_UNPACK_FAILURE)
    );
}

/// A QUERY's qualifier can hold a QUERY again (QUERY → INFO → VALUE of QUERY → ...).
/// OpenPMIx recurses without a cap; ours shares the 100-level cap, on a small thread stack,
/// in every component that registers QUERY, both buffer kinds.
#[test]
fn query_nesting_is_capped() {
    const DEPTH: usize = 100_000;
    fn nested(depth: usize) -> Value {
        let mut v = Value::Query(Box::new(Query {
            keys: vec![],
            qualifiers: vec![],
        }));
        for _ in 0..depth {
            v = Value::Query(Box::new(Query {
                keys: vec![],
                qualifiers: vec![Info {
                    key: "q".into(),
                    flags: 0,
                    value: v,
                }],
            }));
        }
        v
    }
    let mut cases = Vec::new();
    for comp in Component::ALL {
        // v12 registers QUERY but can neither pack nor unpack it (-47)
        if !comp.registers(DataType::QUERY, Release::Master) || comp == Component::V12 {
            continue;
        }
        for kind in BufferKind::ALL {
            let c = Codec::new(comp, kind);
            // The bytes of one level: what depth 1 adds to depth 0.
            let enc = |d| c.encode(&[Item::one(nested(d))]).unwrap();
            let (e0, e1, e2) = (enc(0), enc(1), enc(2));
            let step = e1.len() - e0.len();
            assert_eq!(
                e2.len(),
                e1.len() + step,
                "{comp} {kind}: one level, one step"
            );
            // 100 levels (depth 99 below the outer QUERY) is the deepest legitimate nesting
            let ok = enc(99);
            assert!(c.decode(&ok, &[DataType::QUERY]).is_ok(), "{comp} {kind}");
            let prefix_len = e1
                .iter()
                .zip(&e0)
                .take_while(|(a, b)| a == b)
                .count()
                .min(e0.len());
            // e1 = e0[..p] + level + e0[p..] where the level starts at the first difference,
            // possibly shifted by a common byte; find p so that the splice reproduces e2.
            let mut found = None;
            for p in (0..=prefix_len).rev() {
                let level = &e1[p..p + step];
                let mut two = e0[..p].to_vec();
                two.extend_from_slice(level);
                two.extend_from_slice(level);
                two.extend_from_slice(&e0[p..]);
                if two == e2 {
                    found = Some((p, level.to_vec()));
                    break;
                }
            }
            let (p, level) = found.unwrap_or_else(|| panic!("{comp} {kind}: no repeating level"));
            let mut deep = e0[..p].to_vec();
            for _ in 0..DEPTH {
                deep.extend_from_slice(&level);
            }
            deep.extend_from_slice(&e0[p..]);
            cases.push((c, deep));
        }
    }
    assert!(cases.len() >= 12, "v20 … v61, two kinds each");
    let worker = std::thread::Builder::new()
        .stack_size(SMALL_STACK)
        .spawn(move || {
            cases
                .into_iter()
                .map(|(c, deep)| {
                    let e = c.decode(&deep, &[DataType::QUERY]).unwrap_err();
                    (c.component, c.kind, e.status)
                })
                .collect::<Vec<_>>()
        })
        .unwrap();
    for (comp, kind, st) in worker.join().expect("no stack overflow") {
        assert_eq!(st, Status::ERR_UNPACK_FAILURE, "{comp} {kind}");
    }
}

/// The data model stays small: the common variants inline, the rare large ones boxed
/// (issue 17: `Value` was 112 bytes with every variant inline).
#[test]
fn value_is_small() {
    assert_eq!(std::mem::size_of::<Value>(), 48);
    assert_eq!(std::mem::size_of::<Text>(), 32);
    assert_eq!(std::mem::size_of::<NullableText>(), 40);
    assert_eq!(std::mem::size_of::<Proc>(), 40);
}

/// A decode that fails after an INFO's key (or a PROC's namespace) was sliced from the
/// input keeps no slice of it: every shared key of the values built so far, and of the
/// INFO the failure cut short, is released (`Bytes::is_unique` again).
#[test]
fn a_failed_decode_releases_every_slice_of_the_input() {
    let key = "pmix.a.key.long.enough.to.be.shared.not.inline";
    for comp in [Component::V41, Component::V3, Component::V61] {
        let codec = Codec::new(comp, BufferKind::NonDescribed);
        let info = Value::info(key, Value::Uint32(7));
        let whole = codec
            .encode(&[Item::new(DataType::INFO, vec![info.clone(), info])])
            .expect("two INFOs encode");
        // cut inside the second INFO: after its key, before its value ends
        let one = codec.encode(&[Item::one(Value::info(key, Value::Uint32(7)))]);
        let one = one.expect("one INFO encodes").len();
        for cut in [whole.len() - 1, whole.len() - 3, one + key.len() + 3] {
            let input = Bytes::from(whole[..cut].to_vec());
            let r = codec.decode(&input, &[DataType::INFO]);
            assert!(r.is_err(), "{comp}: cut at {cut} decodes");
            drop(r);
            assert!(
                input.is_unique(),
                "{comp}: a slice of the input outlives the failed decode (cut at {cut})"
            );
        }
    }
}

/// One v61 DATA_ARRAY call: the element type `ty`, the count `n`, then `rest`.
fn darray_call(ty: DataType, n: u64, rest: &[u8]) -> Vec<u8> {
    let mut b = vec![0x02];
    pmix_codec::wire::put_flex(&mut b, u64::from(ty.0));
    pmix_codec::wire::put_flex(&mut b, n);
    b.extend_from_slice(rest);
    b
}

#[test]
fn tiny_element_counts_fail_where_the_library_does() {
    // Recorded from every library (`gap.lying-tiny` vectors): a DATA_ARRAY of POINTER whose
    // sentinel byte is missing reads past the end (-50), whatever its count; with the
    // sentinel, a count beyond the POINTER budget is refused (-32, quirk P1).
    let da = [DataType::DATA_ARRAY];
    for n in [5_000, 1 << 31] {
        assert_eq!(
            status(&v61(), &darray_call(DataType::POINTER, n, &[]), &da),
            Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER,
            "{n} POINTERs, no sentinel"
        );
        assert_eq!(
            status(&v61(), &darray_call(DataType::POINTER, n, &[1]), &da),
            Status::ERR_NOMEM,
            "{n} POINTERs, one sentinel"
        );
    }
    // A DATA_ARRAY of DATA_ARRAY whose count lies: its real inner arrays are read, then it
    // runs out (-50), as 7.0 and master do; -32 where the next inner array is typeless
    // (the library makes the rest from nothing) or the count is 2^31 (the library's
    // storage allocation fails).
    let mut real = vec![];
    pmix_codec::wire::put_flex(&mut real, u64::from(DataType::UINT8.0));
    real.extend_from_slice(&[1, 7]);
    assert_eq!(
        status(
            &v61(),
            &darray_call(DataType::DATA_ARRAY, 5_000, &real),
            &da
        ),
        Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER
    );
    assert_eq!(
        status(
            &v61(),
            &darray_call(DataType::DATA_ARRAY, 5_000, &[0; 8]),
            &da
        ),
        Status::ERR_NOMEM
    );
    assert_eq!(
        status(
            &v61(),
            &darray_call(DataType::DATA_ARRAY, 1 << 31, &real),
            &da
        ),
        Status::ERR_NOMEM
    );
    // Below the bytes left plus 4096, a typeless inner array is read like any other.
    assert_eq!(
        status(
            &v61(),
            &darray_call(DataType::DATA_ARRAY, 4_000, &[0; 8]),
            &da
        ),
        Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER
    );
}
