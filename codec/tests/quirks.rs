//! One test per entry of the quirk table (`codec/src/quirks.rs`), named after its id.
//! One file on purpose: `every_quirk_has_its_own_test` reads this file to find each test.
//!
//! The expected bytes and statuses are written out by hand from what OpenPMIx does (as
//! measured with libpmix 4.2.2 through the oracle, or recorded from master), not copied
//! from our encoder. `every_quirk_has_its_own_test` fails when an entry has no test here.

use pmix_codec::*;

const ND: BufferKind = BufferKind::NonDescribed;
const FD: BufferKind = BufferKind::FullyDescribed;
const R42: Release = Release::OpenPmix4_2;
const MASTER: Release = Release::Master;

fn h(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn codec(c: Component, k: BufferKind, r: Release) -> Codec {
    Codec::new(c, k).with_release(r)
}

fn as_written(c: Component, k: BufferKind, r: Release) -> Codec {
    let mut codec = codec(c, k, r);
    codec.options.as_written = true;
    codec
}

fn enc(c: Codec, items: &[Item]) -> Vec<u8> {
    c.encode(items)
        .unwrap_or_else(|e| panic!("{} {} encode: {e}", c.component, c.kind))
}

fn enc_status(c: Codec, items: &[Item]) -> i32 {
    match c.encode(items) {
        Ok(b) => panic!("{} encode succeeded: {b:02x?}", c.component),
        Err(e) => e.status.0,
    }
}

/// Decode with room for `cap` values per call; Err is (status, call index).
fn dec(
    c: Codec,
    bytes: &[u8],
    calls: &[(DataType, usize)],
) -> std::result::Result<Vec<Item>, (i32, usize)> {
    c.decode_calls(bytes, calls)
        .map_err(|(e, _)| (e.status.0, e.item))
}

fn nest(depth: usize) -> Value {
    let mut v = Value::array(DataType::UINT8, vec![Value::Uint8(7)]);
    for _ in 1..depth {
        v = Value::array(DataType::DATA_ARRAY, vec![v]);
    }
    v
}

#[test]
fn every_quirk_has_its_own_test() {
    let me = include_str!("quirks.rs");
    for q in quirks::QUIRKS {
        let f = format!("fn {}()", q.id.to_lowercase().replace('-', "_"));
        assert!(me.contains(&f), "quirk {} has no test `{f}`", q.id);
    }
    let mut ids: Vec<&str> = quirks::QUIRKS.iter().map(|q| q.id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), quirks::QUIRKS.len(), "duplicate quirk ids");
}

#[test]
fn d1_datatype_zigzag() {
    let item = Item::one(Value::DataType(DataType(14)));
    let bytes = enc(
        codec(Component::V41, ND, MASTER),
        std::slice::from_ref(&item),
    );
    assert_eq!(bytes, h("02 0e"), "written as a plain varint");
    let c = codec(Component::V41, ND, MASTER);
    let got = dec(c, &bytes, &[(DataType::DATA_TYPE, 1)]).unwrap();
    assert_eq!(
        got[0].values,
        vec![Value::DataType(DataType(7))],
        "read zigzag like C"
    );
    let mut c = c;
    c.options.datatype_as_written = true;
    assert_eq!(
        dec(c, &bytes, &[(DataType::DATA_TYPE, 1)]).unwrap(),
        vec![item]
    );
}

#[test]
fn p1_pointer_sentinel() {
    let item = Item::new(DataType::POINTER, vec![Value::Pointer; 3]);
    let c = codec(Component::V41, ND, MASTER);
    assert_eq!(
        enc(c, std::slice::from_ref(&item)),
        h("06 01"),
        "one sentinel for three pointers"
    );
    assert_eq!(
        dec(c, &h("06 01"), &[(DataType::POINTER, 3)]).unwrap(),
        vec![item]
    );
    let v12 = codec(Component::V12, ND, R42);
    let one = Item::one(Value::Pointer);
    assert_eq!(enc(v12, &[one]), h("00000001"), "v12 writes nothing");
    assert_eq!(
        dec(v12, &h("00000001"), &[(DataType::POINTER, 1)]),
        Err((-47, 0))
    );
}

#[test]
fn r1_flex_decoder_truncation() {
    let u16s = [(DataType::UINT16, 1)];
    let got = dec(codec(Component::V41, ND, R42), &h("02 ff ff"), &u16s).unwrap();
    assert_eq!(
        got[0].values,
        vec![Value::Uint16(32767)],
        "4.2.2 raw 8-bit tail"
    );
    assert_eq!(
        dec(codec(Component::V41, ND, MASTER), &h("02 ff ff"), &u16s),
        Err((-50, 0))
    );
    // An empty region where an integer unpack call starts: -50 in both.
    for r in [R42, MASTER] {
        assert_eq!(
            dec(codec(Component::V41, ND, r), &h("02"), &u16s),
            Err((-50, 0))
        );
    }
    // A COORD whose second coordinate is missing: 4.2.2 over-reads inside the call (-63).
    let coord = [(DataType::COORD, 1)];
    assert_eq!(
        dec(codec(Component::V4, ND, R42), &h("02 01 03 01"), &coord),
        Err((-63, 0))
    );
    assert_eq!(
        dec(codec(Component::V4, ND, MASTER), &h("02 01 03 01"), &coord),
        Err((-50, 0))
    );
}

#[test]
fn r2_darray_undef_size() {
    let item = Item::one(Value::array(DataType::UNDEF, vec![]));
    assert_eq!(
        enc(codec(Component::V41, ND, R42), std::slice::from_ref(&item)),
        h("02 00 00")
    );
    assert_eq!(
        enc(
            codec(Component::V41, ND, MASTER),
            std::slice::from_ref(&item)
        ),
        h("02 00")
    );
    assert_eq!(
        enc(
            codec(Component::V41, ND, Release::OpenPmix6_1),
            std::slice::from_ref(&item)
        ),
        h("02 00 00")
    );
    assert_eq!(
        enc(codec(Component::V41, ND, Release::OpenPmix7_0), &[item]),
        h("02 00")
    );
    // A typeless array before another in one call: 7.0 drops the second; we refuse.
    let two = Item::new(
        DataType::DATA_ARRAY,
        vec![
            Value::array(DataType::UNDEF, vec![]),
            Value::array(DataType::UINT8, vec![]),
        ],
    );
    assert_eq!(
        enc_status(codec(Component::V41, ND, Release::OpenPmix7_0), &[two]),
        -27
    );
}

#[test]
fn r3_info_array_size_tag() {
    let item = Item::one(Value::InfoArray(vec![]));
    assert_eq!(
        enc(codec(Component::V21, ND, R42), std::slice::from_ref(&item)),
        h("00000001 000f 0000000000000000")
    );
    assert_eq!(
        enc(codec(Component::V21, ND, MASTER), &[item]),
        h("00000001 0000000000000000")
    );
    // v20: 6.0, 6.1 and master pack a bare SIZE (the base packer) but read a tagged one
    // (the legacy reader): a one-element array of their own is refused, not read as an
    // empty-keyed UNDEF (master: from its source, which has 6.x's code here).
    let one = Item::one(Value::InfoArray(vec![Info::new("k", Value::Uint8(1))]));
    for rel in [Release::OpenPmix6_0, Release::OpenPmix6_1, MASTER] {
        let c = codec(Component::V20, ND, rel);
        let bytes = enc(c, std::slice::from_ref(&one));
        // 6.0.0 and 6.1.0 (oracle) pack these bytes and refuse them with -46.
        assert_eq!(
            bytes,
            h("00000001 0000000000000001 00000002 6b00 0000000000 0c 01")
        );
        assert_eq!(
            dec(c, &bytes, &[(DataType::INFO_ARRAY, 1)]),
            Err((-46, 0)),
            "{rel}"
        );
    }
}

#[test]
fn r4_stats_types() {
    assert!(Component::V41.registers(DataType::PROC_STATS, R42));
    assert!(!Component::V41.registers(DataType::PROC_STATS, MASTER));
    assert!(!Component::V4.registers(DataType::DISK_STATS, R42));
    let item = Item::one(Value::DiskStats(Default::default()));
    assert_eq!(enc_status(codec(Component::V41, ND, MASTER), &[item]), -16);
}

#[test]
fn r5_string_unpack() {
    let bytes = h("00000001 ffffffff");
    let s = [(DataType::STRING, 1)];
    assert_eq!(
        dec(codec(Component::V21, ND, R42), &bytes, &s),
        Err((-29, 0))
    );
    let got = dec(codec(Component::V21, ND, MASTER), &bytes, &s).unwrap();
    assert_eq!(got[0].values, vec![Value::String(None)]);
    // "abc" without its NUL (v41): 4.2.2 ... 6.1.0 keep the last byte, 7.0.0rc1 forces it
    // to NUL (all five through the oracle).
    let abc = h("02 06 616263");
    for (rel, want) in [
        (R42, "abc"),
        (Release::OpenPmix5_0, "abc"),
        (Release::OpenPmix6_0, "abc"),
        (Release::OpenPmix6_1, "abc"),
        (Release::OpenPmix7_0, "ab"),
    ] {
        let got = dec(codec(Component::V41, ND, rel), &abc, &s).unwrap();
        assert_eq!(got[0].values, vec![Value::string(want)], "{rel}");
    }
    for rel in [Release::OpenPmix6_0, Release::OpenPmix6_1] {
        assert_eq!(
            dec(codec(Component::V41, ND, rel), &h("02 01"), &s),
            Err((-29, 0))
        );
    }
}

#[test]
fn r6_nesting_cap() {
    let deep = Item::one(nest(101));
    let m = codec(Component::V41, ND, MASTER);
    assert_eq!(
        enc_status(m, std::slice::from_ref(&deep)),
        -21,
        "master refuses to pack"
    );
    let bytes = enc(codec(Component::V41, ND, R42), &[deep]);
    let da = [(DataType::DATA_ARRAY, 1)];
    assert_eq!(
        dec(codec(Component::V41, ND, MASTER), &bytes, &da),
        Err((-20, 0)),
        "decoding stops at 100 levels"
    );
    // 4.2.x cannot even construct a DATA_ARRAY of DATA_ARRAY (quirk U8); as written, the
    // cap still holds.
    assert_eq!(
        dec(codec(Component::V41, ND, R42), &bytes, &da),
        Err((-32, 0))
    );
    assert_eq!(
        dec(as_written(Component::V41, ND, R42), &bytes, &da),
        Err((-20, 0))
    );
    let ok = Item::one(nest(100));
    let bytes = enc(m, std::slice::from_ref(&ok));
    assert_eq!(
        dec(m, &bytes, &[(DataType::DATA_ARRAY, 1)]).unwrap(),
        vec![ok]
    );
}

#[test]
fn r7_nested_count_check() {
    // DATA_ARRAY of UINT32 claiming 1000 elements, one present.
    let bytes = h("00000001 000e 000f 00000000000003e8 00000001");
    for r in [R42, MASTER] {
        assert_eq!(
            dec(
                codec(Component::V21, ND, r),
                &bytes,
                &[(DataType::DATA_ARRAY, 1)]
            ),
            Err((-50, 0))
        );
    }
    // A DATA_ARRAY of an element type the release cannot hold, claiming 1000 elements with
    // 8 bytes left (bytes recorded from 4.2.2, 6.1.0 and 7.0.0rc1): up to 6.1 the type is
    // refused first (v21 BUFFER -32, v20 VALUE -47), 7.0 and master check the count first.
    let buffers = h("00000001 001a 000f 00000000000003e8 0000000000000000");
    let darray = [(DataType::DATA_ARRAY, 1)];
    for (r, status) in [
        (R42, -32),
        (Release::OpenPmix6_1, -32),
        (Release::OpenPmix7_0, -50),
        (MASTER, -50),
    ] {
        let c = codec(Component::V21, ND, r);
        assert_eq!(dec(c, &buffers, &darray), Err((status, 0)), "{r}");
    }
    let modex = h("00000001 001d 000f 00000000000003e8 0000000000000000");
    let c = codec(Component::V21, ND, Release::OpenPmix7_0);
    assert_eq!(dec(c, &modex, &darray), Err((-50, 0)));
    let values = h("00000001 0015 000f 00000000000003e8 0000000000000000");
    for r in [R42, MASTER] {
        let c = codec(Component::V20, ND, r);
        assert_eq!(dec(c, &values, &darray), Err((-47, 0)), "{r}");
    }
}

#[test]
fn u1_value_data_buffer() {
    let item = Item::one(Value::Value(Box::new(Value::DataBuffer(vec![1, 2].into()))));
    assert_eq!(enc_status(codec(Component::V41, ND, MASTER), &[item]), -47);
}

#[test]
fn u2_v12_narrow_enums() {
    let item = Item::new(DataType::SCOPE, vec![Value::Scope(1), Value::Scope(2)]);
    let c = codec(Component::V12, ND, R42);
    assert_eq!(
        enc(c, std::slice::from_ref(&item)),
        h("00000002 00000009 00000001 00000002"),
        "one INT32 tag, each value zero-extended to 4 bytes"
    );
    assert_eq!(
        dec(
            c,
            &h("00000002 00000009 00000001 00000002"),
            &[(DataType::SCOPE, 2)]
        )
        .unwrap(),
        vec![item]
    );
}

#[test]
fn u3_v20_value_type_as_int() {
    let item = Item::one(Value::info("k", Value::Bool(true)));
    let c = codec(Component::V20, ND, R42);
    let bytes = enc(c, std::slice::from_ref(&item));
    assert_eq!(bytes, h("00000001 00000002 6b00 00000000 0009 00000001 01"));
    // Struct padding in the upper half of the type is ignored.
    let padded = h("00000001 00000002 6b00 00000000 0009 abcd0001 01");
    assert_eq!(dec(c, &padded, &[(DataType::INFO, 1)]).unwrap(), vec![item]);
}

#[test]
fn u4_regex_plain_string() {
    let plain = Item::one(Value::Regex(b"node1,node2\0".to_vec().into()));
    assert_eq!(
        enc_status(
            codec(Component::V41, ND, MASTER),
            std::slice::from_ref(&plain)
        ),
        -27
    );
    // In a described buffer every release (4.2.2 ... 7.0.0rc1, oracle) says -22 after the
    // call's tags `09 02 31`.
    for rel in [R42, Release::OpenPmix6_1, Release::OpenPmix7_0] {
        let e = codec(Component::V41, FD, rel)
            .encode(std::slice::from_ref(&plain))
            .unwrap_err();
        assert_eq!(
            (e.status.0, e.partial.clone()),
            (-22, h("09 02 31")),
            "{rel}"
        );
    }
    let framed = Item::one(Value::Regex(b"raw:node1,node2\0".to_vec().into()));
    let c = codec(Component::V41, ND, R42);
    assert_eq!(
        enc(c, std::slice::from_ref(&framed)),
        [&[0x02][..], b"raw:node1,node2\0"].concat()
    );
    let r = [(DataType::REGEX, 1)];
    // Unframed: the fallback unpacks a STRING (count 0x72, length 0x61: negative): -29.
    assert_eq!(dec(c, &h("02 7261"), &r), Err((-29, 0)));
    // In a described buffer the fallback's buffer-kind check fails first: -20.
    let fd = codec(Component::V41, FD, R42);
    assert_eq!(dec(fd, &h("09 02 31 7261"), &r), Err((-20, 0)));
}

#[test]
fn u6_empty_int_record_at_end() {
    let c = codec(Component::V41, ND, MASTER);
    assert_eq!(dec(c, &h("00"), &[(DataType::UINT32, 1)]), Err((-50, 0)));
    let got = dec(
        c,
        &h("00 02 07"),
        &[(DataType::UINT32, 1), (DataType::UINT8, 1)],
    )
    .unwrap();
    assert_eq!(got[0].values, vec![]);
    assert_eq!(got[1].values, vec![Value::Uint8(7)]);
    // Measured with libpmix 4.2.2 (v4, v41): the wrappers that hand the whole call to the
    // integer unpacker fail the same way, with a zero or a negative (zigzag 01) count;
    // PROC_STATE (byte unpacker) and STRING do not.
    for comp in [Component::V4, Component::V41] {
        for r in [R42, MASTER] {
            let c = codec(comp, ND, r);
            for ty in [
                DataType::STATUS,
                DataType::PROC_RANK,
                DataType::DATA_TYPE,
                DataType::INFO_DIRECTIVES,
                DataType::IOF_CHANNEL,
                DataType::DEVTYPE,
                DataType::LOCTYPE,
            ] {
                for count in ["00", "01"] {
                    assert_eq!(
                        dec(c, &h(count), &[(ty, 1)]),
                        Err((-50, 0)),
                        "{comp} {ty} count {count}"
                    );
                }
            }
            for ty in [DataType::PROC_STATE, DataType::STRING] {
                assert_eq!(dec(c, &h("00"), &[(ty, 1)]).unwrap()[0].values, vec![]);
            }
        }
    }
}

#[test]
fn u7_value_of_container() {
    let inner = Value::Value(Box::new(Value::Bool(true)));
    let item = Item::one(Value::Value(Box::new(inner)));
    assert_eq!(
        enc_status(
            codec(Component::V41, ND, MASTER),
            std::slice::from_ref(&item)
        ),
        -27
    );
    let bytes = enc(codec(Component::V41, ND, R42), &[item]);
    assert_eq!(bytes, h("02 15 01 01"), "4.2.x packs it: VALUE, BOOL, true");
    for r in [R42, MASTER] {
        assert_eq!(
            dec(
                codec(Component::V41, ND, r),
                &bytes,
                &[(DataType::VALUE, 1)]
            ),
            Err((-27, 0))
        );
    }
}

#[test]
fn l1_v12_type_numbers() {
    let c = codec(Component::V12, FD, R42);
    let bytes = enc(c, &[Item::one(Value::proc("ns", 3))]);
    assert_eq!(
        &bytes[8..12],
        &h("00000016")[..],
        "PROC (22) is written as 1.x type 22"
    );
    assert_eq!(
        dec(c, &bytes, &[(DataType::PROC, 1)]),
        Err((-22, 0)),
        "and read back as INFO_ARRAY"
    );
    // A VALUE holding a DATA_ARRAY of INFO goes out as a 1.x INFO_ARRAY (22); libpmix
    // unpacks type 22 (and 44, which its 1.x map passes through) into a value of type
    // INFO_ARRAY. We give back the DATA_ARRAY of INFO that was packed, for either number.
    // Bytes: count 1, value type (INT32-tagged) 22, info array size (SIZE-tagged) 0.
    let nd = codec(Component::V12, ND, R42);
    let empty = Value::Value(Box::new(Value::array(DataType::INFO, vec![])));
    let wire = h("00000001 00000009 00000016 0000000f 0000000000000000");
    assert_eq!(enc(nd, &[Item::one(empty.clone())]), wire);
    for ty in ["00000016", "0000002c"] {
        // The size may carry any integer tag (here INT32, as the fuzzer sent it).
        let bytes = h(&format!("00000001 00000009 {ty} 00000009 00000000"));
        assert_eq!(
            dec(nd, &bytes, &[(DataType::VALUE, 1)]),
            Ok(vec![Item::one(empty.clone())]),
            "VALUE of type {ty}"
        );
    }
}

#[test]
fn l4_v12_1x_ranks() {
    // Recorded from every release's v12 (`gap.v12-ranks: PROC ...`, non-described): the
    // ranks go out unchanged and come back as PMIx 1.x's WILDCARD and UNDEF read as today's.
    const RANK_WILDCARD: u32 = 0xffff_fffe;
    const RANK_UNDEF: u32 = 0xffff_ffff;
    let c = codec(Component::V12, ND, R42);
    let ranks = [0x7fff_fffe, 0x7fff_ffff];
    let sent = Item::new(
        DataType::PROC,
        ranks.iter().map(|&r| Value::proc("ns", r)).collect(),
    );
    let wire = h("00000002 00000003 6e7300 00000009 7ffffffe 00000003 6e7300 00000009 7fffffff");
    assert_eq!(enc(c, std::slice::from_ref(&sent)), wire);
    let read = Item::new(
        DataType::PROC,
        vec![
            Value::proc("ns", RANK_WILDCARD),
            Value::proc("ns", RANK_UNDEF),
        ],
    );
    assert_eq!(dec(c, &wire, &[(DataType::PROC, 2)]), Ok(vec![read]));
    // Today's WILDCARD and UNDEF are written as they are, and read back unchanged.
    let today = h("00000001 00000003 6e7300 00000009 fffffffe");
    assert_eq!(
        enc(c, &[Item::one(Value::proc("ns", RANK_WILDCARD))]),
        today
    );
    assert_eq!(
        dec(c, &today, &[(DataType::PROC, 1)]),
        Ok(vec![Item::one(Value::proc("ns", RANK_WILDCARD))])
    );
}

#[test]
fn l2_v20_info_array_base_packers() {
    let item = Item::one(Value::InfoArray(vec![]));
    let c = codec(Component::V20, FD, R42);
    assert_eq!(
        enc(c, std::slice::from_ref(&item)),
        h("0009 00000001 002c 000f 0000000000000000"),
        "the size has its always-tag and no described-mode tag"
    );
    let w = as_written(Component::V20, FD, R42);
    let bytes = enc(c, std::slice::from_ref(&item));
    assert_eq!(
        dec(w, &bytes, &[(DataType::INFO_ARRAY, 1)]).unwrap(),
        vec![item]
    );
}

#[test]
fn d2_int_tag_per_call() {
    let ints = Item::new(
        DataType::INT,
        vec![Value::Int(1), Value::Int(2), Value::Int(3)],
    );
    let c = codec(Component::V21, ND, R42);
    assert_eq!(
        enc(c, std::slice::from_ref(&ints)),
        h("00000003 0009 00000001 00000002 00000003")
    );
    assert_eq!(
        enc(c, &[Item::new(DataType::INT, vec![])]),
        h("00000000 0009")
    );
    let bytes = enc(c, std::slice::from_ref(&ints));
    assert_eq!(dec(c, &bytes, &[(DataType::INT, 3)]).unwrap(), vec![ints]);
    // Measured with libpmix 4.2.2: v41 PID [0, 4242, i32::MAX].
    let pids = Item::new(
        DataType::PID,
        vec![Value::Pid(0), Value::Pid(4242), Value::Pid(i32::MAX)],
    );
    let c = codec(Component::V41, ND, R42);
    assert_eq!(
        enc(c, std::slice::from_ref(&pids)),
        h("06 0e 00 9221 ffffffff07")
    );
    assert_eq!(
        dec(c, &h("06 0e 00 9221 ffffffff07"), &[(DataType::PID, 3)]).unwrap(),
        vec![pids]
    );
    // Measured with libpmix 4.2.2, v12 fully described, two INTs: the native tag (INT32)
    // is followed by the described tag, a UINT8 tag is not (so a second tag there is read
    // as the values).
    let c = codec(Component::V12, FD, R42);
    let two = |a, b| vec![Item::new(DataType::INT, vec![Value::Int(a), Value::Int(b)])];
    for (bytes, want) in [
        (
            "00000009 00000002 00000006 00000009 00000009 00000005 00000007",
            two(5, 7),
        ),
        ("00000009 00000002 00000006 0000000c 05 07", two(5, 7)),
        (
            "00000009 00000002 00000006 0000000c 0000000c 05 07",
            two(0, 0),
        ),
    ] {
        assert_eq!(
            dec(c, &h(bytes), &[(DataType::INT, 4)]).unwrap(),
            want,
            "{bytes}"
        );
    }
}

#[test]
fn d3_v12_datatype_as_int32() {
    let item = Item::new(
        DataType::DATA_TYPE,
        vec![Value::DataType(DataType(14)), Value::DataType(DataType(3))],
    );
    let c = codec(Component::V12, ND, R42);
    assert_eq!(
        enc(c, std::slice::from_ref(&item)),
        h("00000002 0000000e 00000003")
    );
    assert_eq!(
        dec(
            c,
            &h("00000002 0000000e 00000003"),
            &[(DataType::DATA_TYPE, 2)]
        )
        .unwrap(),
        vec![item]
    );
}

#[test]
fn d4_v20_darray_command_overread() {
    let item = Item::one(Value::array(
        DataType::COMMAND,
        vec![Value::Command(0), Value::Command(17)],
    ));
    let c = codec(Component::V20, ND, R42);
    assert_eq!(
        enc(c, std::slice::from_ref(&item)),
        h("00000001 0022 000f 0000000000000002 00000000 00000011")
    );
    let bytes = enc(c, std::slice::from_ref(&item));
    // v20's unpacker has no storage for COMMAND elements (quirk U8).
    assert_eq!(dec(c, &bytes, &[(DataType::DATA_ARRAY, 1)]), Err((-47, 0)));
    let w = as_written(Component::V20, ND, R42);
    assert_eq!(
        dec(w, &bytes, &[(DataType::DATA_ARRAY, 1)]).unwrap(),
        vec![item]
    );
}

#[test]
fn d5_v20_command_overread() {
    // What a 4.2.2 client sent pmix-server in v20 (the server recorded both): the command
    // in the low byte, memory after it in the other three.
    let c = codec(Component::V20, ND, R42);
    for (command_bytes, command) in [("00000103", 3u8), ("7f240011", 17)] {
        let ours = enc(c, &[Item::one(Value::Command(command))]);
        // the pack call's framing, then the command's be32: ours has zeros above the command
        let at = ours.len() - 4;
        assert_eq!(&ours[at..], &[0, 0, 0, command]);
        let mut wire = ours[..at].to_vec();
        wire.extend_from_slice(&h(command_bytes));
        assert_eq!(
            dec(c, &wire, &[(DataType::COMMAND, 1)]).unwrap(),
            vec![Item::one(Value::Command(command))],
            "{command_bytes}"
        );
        // the recorded bytes are not reproducible by an encoder
        assert_ne!(ours, wire);
    }
}

#[test]
fn c1_topo_null_crash() {
    let item = Item::one(Value::Topo(None));
    let c = codec(Component::V41, ND, R42);
    assert_eq!(
        enc(c, std::slice::from_ref(&item)),
        h("02 00"),
        "a NULL string, no crash"
    );
    assert_eq!(
        dec(c, &h("02 00"), &[(DataType::TOPO, 1)]).unwrap(),
        vec![item]
    );
}

#[test]
fn c2_v20_value_query_crash() {
    let q = Query {
        keys: vec![Some("k1".into())],
        qualifiers: vec![],
    };
    let item = Item::one(Value::Value(Box::new(Value::Query(Box::new(q)))));
    let c = codec(Component::V20, ND, R42);
    let bytes = enc(c, std::slice::from_ref(&item));
    assert_eq!(dec(c, &bytes, &[(DataType::VALUE, 1)]).unwrap(), vec![item]);
}

#[test]
fn u8_darray_element_storage() {
    let values = Item::one(Value::array(
        DataType::VALUE,
        vec![Value::Value(Box::new(Value::Bool(true)))],
    ));
    let v20 = codec(Component::V20, ND, R42);
    let bytes = enc(v20, std::slice::from_ref(&values));
    assert_eq!(
        dec(v20, &bytes, &[(DataType::DATA_ARRAY, 1)]),
        Err((-47, 0))
    );
    let w = as_written(Component::V20, ND, R42);
    assert_eq!(
        dec(w, &bytes, &[(DataType::DATA_ARRAY, 1)]).unwrap(),
        vec![values]
    );
    // v4 in 4.2.x: JOB_STATE elements cannot be constructed (-32); master reads them.
    let states = h("02 32 02 00 05");
    let da = [(DataType::DATA_ARRAY, 1)];
    assert_eq!(
        dec(codec(Component::V4, ND, R42), &states, &da),
        Err((-32, 0))
    );
    let got = dec(codec(Component::V4, ND, MASTER), &states, &da).unwrap();
    assert_eq!(
        got[0].values,
        vec![Value::array(
            DataType::JOB_STATE,
            vec![Value::JobState(0), Value::JobState(5)]
        )]
    );
}

#[test]
fn u5_negative_count() {
    let neg = h("ffffffff 00000001");
    let v21 = codec(Component::V21, ND, R42);
    assert_eq!(dec(v21, &neg, &[(DataType::UINT32, 1)]), Err((-50, 0)));
    let got = dec(v21, &neg, &[(DataType::STRING, 1)]).unwrap();
    assert_eq!(
        got[0].values,
        vec![],
        "a negative count of strings is an empty call"
    );
    let v41 = codec(Component::V41, ND, R42);
    assert_eq!(dec(v41, &h("01 01"), &[(DataType::BOOL, 1)]), Err((-50, 0)));
    assert_eq!(
        dec(v41, &h("01 01"), &[(DataType::UINT32, 1)]).unwrap()[0].values,
        vec![]
    );
    // Measured with libpmix 4.2.2: PROC_STATE goes through the byte unpacker in every
    // family, INFO_DIRECTIVES through the fixed UINT32 one in v20 ... v3.
    assert_eq!(
        dec(v41, &h("01 01"), &[(DataType::PROC_STATE, 1)]),
        Err((-50, 0))
    );
    for comp in [Component::V20, Component::V21, Component::V3] {
        let c = codec(comp, ND, R42);
        for ty in [DataType::PROC_STATE, DataType::INFO_DIRECTIVES] {
            assert_eq!(dec(c, &neg, &[(ty, 1)]), Err((-50, 0)), "{comp} {ty}");
        }
    }
    // The native-size unpackers read their integer tag first: UINT64 (0x000f) gets to the
    // size check (-50), a non-integer tag (UNDEF, INT) is -46.
    for comp in [Component::V20, Component::V21, Component::V3] {
        let c = codec(comp, ND, R42);
        for (tag, want) in [("000f", -50), ("0000", -46), ("0006", -46)] {
            let bytes = h(&format!("ffffffff {tag} 0000000000000000"));
            assert_eq!(
                dec(c, &bytes, &[(DataType::SIZE, 1)]),
                Err((want, 0)),
                "{comp} tag {tag}"
            );
        }
    }
    let v12 = codec(Component::V12, ND, R42);
    for (tag, want) in [("0000000f", -50), ("00000000", -46), ("00000006", -46)] {
        let bytes = h(&format!("ffffffff {tag} 0000000000000000"));
        for ty in [DataType::SIZE, DataType::STATUS, DataType::PROC_RANK] {
            assert_eq!(
                dec(v12, &bytes, &[(ty, 1)]),
                Err((want, 0)),
                "v12 {ty} {tag}"
            );
        }
    }
}

fn proc_stats() -> Value {
    Value::ProcStats(Box::new(ProcStats {
        node: Some("n1".into()),
        proc: Proc {
            nspace: "ns".into(),
            rank: 0,
        },
        pid: 42,
        cmd: Some("a.out".into()),
        state: 1,
        time: Timeval { sec: 1, usec: 2 },
        priority: 0,
        num_threads: 1,
        pss: 1.5,
        vsize: 2.5,
        rss: 3.5,
        processor: 0,
        sample_time: Timeval { sec: 3, usec: 4 },
    }))
}

#[test]
fn u10_proc_stats_peak_vsize() {
    let item = Item::one(proc_stats());
    let c = codec(Component::V41, ND, R42);
    let bytes = enc(c, std::slice::from_ref(&item));
    assert!(
        dec(c, &bytes, &[(DataType::PROC_STATS, 1)]).is_err(),
        "4.2.x reads a FLOAT its packer never wrote"
    );
    // With a FLOAT spliced in where the unpacker expects peak_vsize, the same bytes read.
    let rss = b"3.500000\0";
    let at = bytes.windows(rss.len()).position(|w| w == rss).unwrap() + rss.len();
    let mut spliced = bytes[..at].to_vec();
    spliced.extend_from_slice(&h("12")); // flex zigzag length 9
    spliced.extend_from_slice(b"4.500000\0");
    spliced.extend_from_slice(&bytes[at..]);
    assert_eq!(
        dec(c, &spliced, &[(DataType::PROC_STATS, 1)]).unwrap(),
        vec![item.clone()]
    );
    let w = as_written(Component::V41, ND, R42);
    assert_eq!(
        dec(w, &bytes, &[(DataType::PROC_STATS, 1)]).unwrap(),
        vec![item]
    );
}

#[test]
fn u11_info_array_reads_values() {
    let item = Item::one(Value::InfoArray(vec![Info::new("k", Value::Uint64(16))]));
    // What libpmix 4.2.2 (and 6.1.0, 7.0.0rc1) gives unpacking its own one-element array
    // (oracle): v12 fails (-46); v20, v21 and v3 succeed with one INFO whose key is "" (the
    // VALUE read first met the key length's leading zero bytes: type UNDEF), flags 0 and no
    // value, and leave the rest of the element unread.
    let ghost = Item::one(Value::InfoArray(vec![Info {
        key: Text::default(),
        flags: 0,
        value: Value::Undef,
    }]));
    for comp in [
        Component::V12,
        Component::V20,
        Component::V21,
        Component::V3,
    ] {
        let c = codec(comp, ND, R42);
        let bytes = enc(c, std::slice::from_ref(&item));
        let got = dec(c, &bytes, &[(DataType::INFO_ARRAY, 1)]);
        if comp == Component::V12 {
            assert_eq!(got, Err((-46, 0)), "v12");
        } else {
            assert_eq!(got, Ok(vec![ghost.clone()]), "{comp}");
            let mut u = c.unpacker(&bytes);
            u.unpack(DataType::INFO_ARRAY, 1).unwrap();
            assert_eq!(
                u.remaining(),
                18,
                "{comp}: the rest of the element stays unread"
            );
        }
        let w = as_written(comp, ND, R42);
        let got = dec(w, &bytes, &[(DataType::INFO_ARRAY, 1)]).unwrap();
        assert_eq!(got, vec![item.clone()], "{comp} as written");
    }
    // An empty array has no elements to misread.
    let empty = Item::one(Value::InfoArray(vec![]));
    let c = codec(Component::V21, ND, R42);
    let bytes = enc(c, std::slice::from_ref(&empty));
    assert_eq!(
        dec(c, &bytes, &[(DataType::INFO_ARRAY, 1)]).unwrap(),
        vec![empty]
    );
    // A VALUE of INFO_ARRAY whose one element, read as a VALUE, is UNDEF: libpmix 4.2.2
    // gives `VALUE INFO_ARRAY [{"" 0 UNDEF}]`, and so do we.
    let v3 = codec(Component::V3, ND, R42);
    let undef_element = h("00000001 002c 000f 0000000000000001 0000");
    let got = dec(v3, &undef_element, &[(DataType::VALUE, 1)]).unwrap();
    assert_eq!(
        got[0].values,
        vec![Value::Value(Box::new(ghost.values[0].clone()))]
    );
}

#[test]
fn u12_v20_persist_value_as_proc() {
    let item = Item::one(Value::Value(Box::new(Value::Persist(2))));
    let nd = codec(Component::V20, ND, R42);
    let bytes = enc(nd, std::slice::from_ref(&item));
    assert_eq!(dec(nd, &bytes, &[(DataType::VALUE, 1)]), Err((-50, 0)));
    let fd = codec(Component::V20, FD, R42);
    let fbytes = enc(fd, std::slice::from_ref(&item));
    assert_eq!(dec(fd, &fbytes, &[(DataType::VALUE, 1)]), Err((-22, 0)));
    let w = as_written(Component::V20, ND, R42);
    assert_eq!(dec(w, &bytes, &[(DataType::VALUE, 1)]).unwrap(), vec![item]);
}

#[test]
fn u13_v12_app_info_end_flag() {
    let app = App {
        cmd: Some("cmd".into()),
        maxprocs: 1,
        info: vec![Info::new("a", Value::Int(1)), Info::new("b", Value::Int(2))],
        ..Default::default()
    };
    let item = Item::one(Value::App(Box::new(app.clone())));
    let c = codec(Component::V12, ND, R42);
    let bytes = enc(c, std::slice::from_ref(&item));
    let got = dec(c, &bytes, &[(DataType::APP, 1)]).unwrap();
    let Value::App(got) = &got[0].values[0] else {
        panic!("not an APP")
    };
    assert_eq!(got.info[0].flags, 0);
    assert_eq!(got.info[1].flags, 2, "PMIX_INFO_ARRAY_END on the last one");
    let w = as_written(Component::V12, ND, R42);
    assert_eq!(
        dec(w, &bytes, &[(DataType::APP, 1)]).unwrap(),
        vec![item.clone()]
    );
    // From 5.0 on the receiver's last info keeps flags 0 (measured with 5.0.7, 6.0, 6.1).
    for rel in [
        Release::OpenPmix5_0,
        Release::OpenPmix6_0,
        Release::OpenPmix6_1,
    ] {
        let got = dec(
            codec(Component::V12, ND, rel),
            &bytes,
            &[(DataType::APP, 1)],
        )
        .unwrap();
        assert_eq!(got, vec![item.clone()], "{rel}");
    }
}

#[test]
fn r9_taint_int_limit() {
    // v12 STRING "hello" whose length says INT_MAX-1: 6.1.0 -27, 6.0.0 -50 (oracle vectors).
    let bytes = h("00000001 7ffffffe 68656c6c6f00");
    let call = [(DataType::STRING, 1)];
    let six1 = codec(Component::V12, ND, Release::OpenPmix6_1);
    assert_eq!(dec(six1, &bytes, &call), Err((-27, 0)));
    let six0 = codec(Component::V12, ND, Release::OpenPmix6_0);
    assert_eq!(dec(six0, &bytes, &call), Err((-50, 0)));
    // INT_MAX-2 itself is still read (and runs past the end).
    let at_limit = h("00000001 7ffffffd 68656c6c6f00");
    assert_eq!(dec(six1, &at_limit, &call), Err((-50, 0)));
}

#[test]
fn r10_pointer_valued_types() {
    // A VALUE of a type v41 does not register: -16 where it is pointer-valued, else -1.
    let v41 = |rel| codec(Component::V41, ND, rel);
    let device = Item::one(Value::Value(Box::new(Value::Device(Box::default()))));
    let stats = Item::one(Value::Value(Box::new(Value::DiskStats(Default::default()))));
    let regex2 = Item::one(Value::Value(Box::new(Value::Regex2(Box::default()))));
    assert_eq!(
        enc_status(v41(Release::OpenPmix4_2), std::slice::from_ref(&device)),
        -1
    );
    assert_eq!(
        enc_status(v41(Release::OpenPmix6_0), std::slice::from_ref(&device)),
        -16
    );
    assert_eq!(
        enc_status(v41(Release::OpenPmix6_1), std::slice::from_ref(&stats)),
        -1
    );
    assert_eq!(
        enc_status(v41(Release::OpenPmix6_1), std::slice::from_ref(&regex2)),
        -1
    );
    assert_eq!(enc_status(v41(Release::OpenPmix7_0), &[regex2]), -16);
}

#[test]
fn r11_regex_preg_modules() {
    // `pmix[a]` (oracle, v4 non-described): 4.2.2, 5.0.7, 6.0.0 and 6.1.0 pack it as it is
    // and read it back; 7.0.0rc1 has no native preg module and its fallback refuses the
    // bytes (-19, the STRING unpack of `70 6d ...`). Master has no native module either.
    let pmix = Item::one(Value::Regex(b"pmix[a]\0".to_vec().into()));
    let wire = h("02 706d69785b615d00");
    let r = [(DataType::REGEX, 1)];
    for rel in [
        R42,
        Release::OpenPmix5_0,
        Release::OpenPmix6_0,
        Release::OpenPmix6_1,
    ] {
        let c = codec(Component::V4, ND, rel);
        assert_eq!(enc(c, std::slice::from_ref(&pmix)), wire, "{rel}");
        assert_eq!(dec(c, &wire, &r).unwrap()[0], pmix, "{rel}");
    }
    for rel in [Release::OpenPmix7_0, MASTER] {
        let c = codec(Component::V4, ND, rel);
        assert_eq!(enc_status(c, std::slice::from_ref(&pmix)), -27, "{rel}");
    }
    assert_eq!(
        dec(codec(Component::V4, ND, Release::OpenPmix7_0), &wire, &r),
        Err((-19, 0))
    );
    // The native module compares four bytes only: `pmixfoo` is claimed too (6.1.0, oracle).
    let foo = h("02 706d6978666f6f00");
    let c = codec(Component::V41, ND, Release::OpenPmix6_1);
    assert_eq!(
        dec(c, &foo, &r).unwrap()[0].values,
        vec![Value::Regex(b"pmixfoo\0".to_vec().into())]
    );
}

#[test]
fn r8_value_compressed_string_unpack() {
    // 7.0.0rc1 packs this VALUE to these bytes (oracle) and then cannot unpack them.
    let item = Item::one(Value::Value(Box::new(Value::CompressedString(
        h("05000000789c").into(),
    ))));
    let seven = codec(Component::V41, ND, Release::OpenPmix7_0);
    let bytes = enc(seven, std::slice::from_ref(&item));
    assert_eq!(bytes, h("02 2a 06 05000000789c"));
    assert_eq!(dec(seven, &bytes, &[(DataType::VALUE, 1)]), Err((-20, 0)));
    // 6.1 reads what it wrote; so does the as-written reading of 7.0's bytes.
    let six = codec(Component::V41, ND, Release::OpenPmix6_1);
    assert_eq!(
        dec(six, &bytes, &[(DataType::VALUE, 1)]).unwrap(),
        vec![item.clone()]
    );
    let w = as_written(Component::V41, ND, Release::OpenPmix7_0);
    assert_eq!(dec(w, &bytes, &[(DataType::VALUE, 1)]).unwrap(), vec![item]);
    // In v3 (converged) the same: type 0x002a, then a tagged SIZE.
    let seven3 = codec(Component::V3, ND, Release::OpenPmix7_0);
    let b3 = h("00000001 002a 000f0000000000000000");
    assert_eq!(dec(seven3, &b3, &[(DataType::VALUE, 1)]), Err((-20, 0)));
}

#[test]
fn c6_darray_after_undef() {
    // Three arrays in one call: UINT32 (empty), UNDEF, BOOL [true]. 6.1 packs them in full
    // (TAG+SIZE for the typeless one), as 6.0 does; we read what was written.
    let item = Item::new(
        DataType::DATA_ARRAY,
        vec![
            Value::array(DataType::UINT32, vec![]),
            Value::array(DataType::UNDEF, vec![]),
            Value::array(DataType::BOOL, vec![Value::Bool(true)]),
        ],
    );
    for rel in [Release::OpenPmix6_0, Release::OpenPmix6_1] {
        let c = codec(Component::V41, ND, rel);
        let bytes = enc(c, std::slice::from_ref(&item));
        // (6.1.0 through the oracle: 060e000000010101; the count is a zigzag INT32.)
        assert_eq!(bytes, h("06 0e 00 00 00 01 01 01"), "{rel}");
        assert_eq!(
            dec(c, &bytes, &[(DataType::DATA_ARRAY, 3)]).unwrap(),
            vec![item.clone()]
        );
    }
    // 7.0 would drop the BOOL array (quirk R2): refused.
    assert_eq!(
        enc_status(codec(Component::V41, ND, Release::OpenPmix7_0), &[item]),
        -27
    );
}

#[test]
fn u14_v12_uninitialized_type() {
    // A described buffer cut inside the first type tag.
    let c = codec(Component::V12, FD, R42);
    assert_eq!(dec(c, &h("000000"), &[(DataType::UINT8, 1)]), Err((-50, 0)));
}

#[test]
fn u15_proc_nspace_null() {
    for comp in Component::ALL {
        assert_eq!(
            comp.registers(DataType::PROC_NSPACE, MASTER),
            matches!(comp, Component::V41 | Component::V51 | Component::V61),
            "{comp}"
        );
    }
    let r = [(DataType::PROC_NSPACE, 1)];
    for rel in [R42, MASTER] {
        // count 1 (zigzag 02), then a NULL string (length 0)
        let got = dec(codec(Component::V41, ND, rel), &h("02 00"), &r).unwrap();
        assert_eq!(got[0].values, vec![Value::ProcNspace("".into())]);
    }
    // A PROC's namespace still refuses NULL (PMIX_ERROR, -1).
    assert_eq!(
        dec(
            codec(Component::V41, ND, MASTER),
            &h("02 00 00"),
            &[(DataType::PROC, 1)]
        ),
        Err((-1, 0))
    );
}

#[test]
fn u16_cpuset_text_reparsed() {
    // Not hwloc's canonical list: kept verbatim, both ways.
    let item = Item::one(Value::ProcCpuset(Some("3,1-2".into())));
    for comp in [Component::V4, Component::V41, Component::V61] {
        let c = codec(comp, ND, MASTER);
        let bytes = enc(c, std::slice::from_ref(&item));
        assert_eq!(bytes, [&[0x02, 0x0c][..], b"3,1-2\0"].concat());
        let got = dec(c, &bytes, &[(DataType::PROC_CPUSET, 1)]).unwrap();
        assert_eq!(got[0], item);
    }
}

#[test]
fn l3_v12_negative_type() {
    // v12, described: the count's INT32 tag is -3 (ff ff ff fd): refused, not read as type 65533.
    let c = codec(Component::V12, FD, R42);
    assert_eq!(
        dec(c, &h("ff ff ff fd 00 00 00 01"), &[(DataType::INT32, 1)]),
        Err((-16, 0))
    );
    // 65536 is refused by libpmix too.
    assert_eq!(
        dec(c, &h("00 01 00 00 00 00 00 01"), &[(DataType::INT32, 1)]),
        Err((-16, 0))
    );
}

#[test]
fn c3_regex_unterminated_overread() {
    let r = [(DataType::REGEX, 1)];
    let c = codec(Component::V41, ND, R42);
    // a framed regex and its NUL: fine; the NUL missing: -50, never a read past the input
    let ok = [&[0x02][..], b"pmix[a]\0"].concat();
    assert!(dec(c, &ok, &r).is_ok());
    assert_eq!(dec(c, &ok[..ok.len() - 1], &r), Err((-50, 0)));
    let raw = [&[0x02][..], b"raw:n1,n2"].concat();
    assert_eq!(dec(c, &raw, &r), Err((-50, 0)));
}

#[test]
fn c4_v20_size_as_int32() {
    let c = codec(Component::V20, ND, R42);
    let item = Item::one(Value::ByteObject(vec![0xab].into()));
    let bytes = enc(c, std::slice::from_ref(&item));
    let one = 1u64.to_be_bytes();
    let at = bytes
        .windows(8)
        .position(|w| w == one)
        .expect("the 64-bit size");
    // size 2^32 + 1: libpmix mallocs 4 GiB and reads 1 byte; we refuse
    let mut lie = bytes.clone();
    lie[at..at + 8].copy_from_slice(&((1u64 << 32) + 1).to_be_bytes());
    assert_eq!(dec(c, &lie, &[(DataType::BYTE_OBJECT, 1)]), Err((-50, 0)));
    assert!(dec(c, &bytes, &[(DataType::BYTE_OBJECT, 1)]).is_ok());
    // The input the differential fuzz target found: v3, two BUFFERs, the first claiming
    // 2^34 + 4 bytes; libpmix 4.2.2 reads 4 of them and succeeds.
    let v3 = codec(Component::V3, ND, R42);
    let found = h("00000002 01 000f 0000000400000004 00000001 02 000f 0000000000000000");
    assert_eq!(dec(v3, &found, &[(DataType::BUFFER, 2)]), Err((-50, 0)));
}

#[test]
fn u17_app_argv_null() {
    // Measured with libpmix 4.2.2 in every component: a NULL argv or env element on the
    // wire fails the APP call with PMIX_ERROR.
    let app = |argv: Vec<Option<&str>>, env: Vec<Option<&str>>| {
        let t = |v: Vec<Option<&str>>| {
            v.into_iter()
                .map(|s| s.map(|s| Text::from(s.as_bytes().to_vec())))
                .collect::<Vec<NullableText>>()
        };
        Value::App(Box::new(App {
            cmd: Some(Text::from(b"c".to_vec())),
            argv: t(argv),
            env: t(env),
            cwd: None,
            maxprocs: 1,
            info: vec![],
        }))
    };
    for comp in Release::OpenPmix4_2.components() {
        let c = codec(*comp, ND, R42);
        let good = enc(c, &[Item::one(app(vec![Some("a")], vec![Some("e")]))]);
        assert!(dec(c, &good, &[(DataType::APP, 1)]).is_ok());
        for bad in [
            app(vec![Some("a"), None], vec![]),
            app(vec![Some("a")], vec![Some("e"), None]),
        ] {
            assert_eq!(enc_status(c, &[Item::one(bad.clone())]), -27, "{comp}");
        }
        // The bytes by hand: `good` with its argv string replaced by a NULL one.
        let a_string: &[u8] = match comp.family() {
            Family::Modern => &[0x04, b'a', 0],
            _ => &[0, 0, 0, 2, b'a', 0],
        };
        let null_string: &[u8] = match comp.family() {
            Family::Modern => &[0x00],
            _ => &[0, 0, 0, 0],
        };
        let at = good
            .windows(a_string.len())
            .position(|w| w == a_string)
            .expect("argv[0] on the wire");
        let mut bad = good[..at].to_vec();
        bad.extend_from_slice(null_string);
        bad.extend_from_slice(&good[at + a_string.len()..]);
        assert_eq!(dec(c, &bad, &[(DataType::APP, 1)]), Err((-1, 0)), "{comp}");
        let written = dec(as_written(*comp, ND, R42), &bad, &[(DataType::APP, 1)]).unwrap();
        assert_eq!(written[0].values, vec![app(vec![None], vec![Some("e")])]);
    }
}

#[test]
fn c5_node_stats_nested_arrays() {
    // libpmix cannot produce these bytes (it packs the pointer field's own memory), so the
    // expectation is the layout of every other nested array: after the sample time, the
    // SIZE count then the DISK_STATS records, then the NET_STATS count and records.
    let t = |s: &str| Some(Text::from(s.as_bytes().to_vec()));
    let disk = DiskStats {
        disk: t("sda"),
        counters: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
    };
    let node = |diskstats: Vec<DiskStats>| {
        Value::NodeStats(Box::new(NodeStats {
            node: t("n"),
            floats: [0.5; 11],
            sample_time: Timeval { sec: 7, usec: 8 },
            diskstats,
            netstats: vec![],
        }))
    };
    {
        let comp = Component::V41;
        let c = codec(comp, ND, R42);
        let empty = enc(c, &[Item::one(node(vec![]))]);
        let one = enc(c, &[Item::one(node(vec![disk.clone()]))]);
        // a top-level DISK_STATS call: count 1 (zigzag 02), then the record
        let record = &enc(c, &[Item::one(Value::DiskStats(Box::new(disk.clone())))])[1..];
        // `empty` ends with ndiskstats 0, nnetstats 0 (one flex byte each)
        assert_eq!(&empty[empty.len() - 2..], &[0, 0]);
        let mut want = empty[..empty.len() - 2].to_vec();
        want.push(1);
        want.extend_from_slice(record);
        want.push(0);
        assert_eq!(one, want, "{comp}");
        assert_eq!(
            dec(c, &one, &[(DataType::NODE_STATS, 1)]).unwrap(),
            vec![Item::one(node(vec![disk.clone()]))]
        );
    }
}

#[test]
fn u18_topo_xml_parsed() {
    // libpmix 4.2.2 answers -1 for this input (the differential fuzz target's example:
    // v4, one VALUE of TOPO whose XML is the text "8"); we give back the text.
    for comp in [Component::V4, Component::V41] {
        let c = codec(comp, ND, R42);
        let got = dec(c, &h("02 38 02 38 00"), &[(DataType::VALUE, 1)]).unwrap();
        assert_eq!(
            got[0].values,
            vec![Value::Value(Box::new(Value::Topo(Some(Text::from(
                b"8".to_vec()
            )))))],
            "{comp}"
        );
    }
}

#[test]
fn u19_v20_value_info_array() {
    // Bytes recorded as vectors (v20, non-described, 4.2.2 ... 6.1.0): a VALUE of INFO_ARRAY
    // of one and of three VALUEs of UINT8, then a UINT8 call of 7. What libpmix 4.2.2 and
    // 6.1.0 read there (oracle): the INFO_ARRAY, whose INFOs are keyed by the bytes of the
    // VALUE types read over them (quirk U11), then the 7.
    let one = h("00000001 002c 000f 0000000000000001 000c 01 00000001 07");
    let three = h("00000001 002c 000f 0000000000000003 000c 01 000c 02 000c 03 00000001 07");
    let ghost = |key: &[u8]| Info {
        key: Text::from(key.to_vec()),
        flags: 0,
        value: Value::Undef,
    };
    let read = |infos: Vec<Info>| {
        vec![
            Item::one(Value::Value(Box::new(Value::InfoArray(infos)))),
            Item::one(Value::Uint8(7)),
        ]
    };
    let calls = [(DataType::VALUE, 1), (DataType::UINT8, 1)];
    for rel in [
        R42,
        Release::OpenPmix5_0,
        Release::OpenPmix6_0,
        Release::OpenPmix6_1,
        MASTER,
    ] {
        let c = codec(Component::V20, ND, rel);
        assert_eq!(
            dec(c, &one, &calls),
            Ok(read(vec![ghost(&[0x0c])])),
            "{rel}"
        );
        // Three elements take the same bytes as the library's read (the 7 follows), and
        // the first INFO is the library's. The later ones are not pinned: the unpacker
        // writes every VALUE over the first INFO's key and never writes the later INFOs,
        // so the library hands over whatever its allocation held (4.2.2 and 6.1.0 showed
        // "" there on a fresh heap; pmix-codec keys them by their own VALUE types, U11).
        let got = dec(c, &three, &calls).expect("three elements");
        let Value::Value(v) = &got[0].values[0] else {
            panic!("{rel}: not a VALUE")
        };
        let Value::InfoArray(infos) = &**v else {
            panic!("{rel}: not an INFO_ARRAY")
        };
        assert_eq!((infos.len(), &infos[0]), (3, &ghost(&[0x0c])), "{rel}");
        assert_eq!(got[1], Item::one(Value::Uint8(7)), "{rel}");
    }
    // The packer refuses such a VALUE, and so does a decoder reading as written.
    let item = Item::one(Value::Value(Box::new(Value::InfoArray(vec![]))));
    assert_eq!(enc_status(codec(Component::V20, ND, R42), &[item]), -1);
    let w = as_written(Component::V20, ND, R42);
    assert_eq!(dec(w, &one, &calls), Err((-1, 0)));
}
