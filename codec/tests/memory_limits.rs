//! Hostile counts and nesting under hard limits (issue 16, H1 and H2).
//!
//! The dense message that a decode must refuse for memory is viewed (`Codec::view`) under
//! the same limit, and any of its values read.
//!
//! H1: a 16 MiB v61 message whose INFO count says 2^31-1 used to reserve about 1.9 GB before
//! any element was read, and aborted under an address-space limit. It is decoded here in a
//! child process under `ulimit -v 1000000` (about 1 GB), which must end with an error, not
//! an abort. H2: the nesting cap counts every container kind together, so alternating QUERY
//! and DATA_ARRAY cannot nest twice as deep; checked on a small stack.

use pmix_codec::wire::{put_flex, zigzag};
use pmix_codec::*;
use pmix_testsupport::{is_limited_child, rerun_under_ulimit};

/// About 1 GB of address space, in KiB (`ulimit -v`).
const ONE_GB_KB: u64 = 1_000_000;

/// The H1 message: one v61 non-described INFO call whose count is 2^31-1, followed by
/// 16 MiB of `filler` after one well-formed INFO.
fn h1_message(filler: u8) -> Vec<u8> {
    let mut m = Vec::with_capacity(16 << 20);
    put_flex(&mut m, zigzag(i32::MAX as i64));
    // INFO: key "k" (length 2 with its NUL), flags 0, value UINT8 7
    m.extend_from_slice(&[0x04, b'k', 0x00, 0x00, 0x0c, 0x07]);
    m.resize(16 << 20, filler);
    m
}

/// A dense, honest message: one v41 UINT8 call of 30 Mi zeros (one byte each). Its values
/// weigh 48 bytes each, about 1.5 GB in all: more than the limit.
fn dense_message() -> Vec<u8> {
    let n = 30 << 20;
    let mut m = Vec::with_capacity(n + 8);
    put_flex(&mut m, zigzag(n as i64));
    m.resize(m.len() + n, 0);
    m
}

#[test]
fn a_dense_message_too_big_for_memory_is_refused_not_aborted() {
    const TEST: &str = "a_dense_message_too_big_for_memory_is_refused_not_aborted";
    if is_limited_child(TEST) {
        let codec = Codec::new(Component::V41, BufferKind::NonDescribed);
        let message = Bytes::from(dense_message());
        let e = codec
            .decode(&message, &[DataType::UINT8])
            .expect_err("1.5 GB of values cannot fit under a 1 GB limit");
        println!("dense: {} ({})", e.status, e.reason);
        // a view keeps 4 bytes per value (120 MiB): it fits, and reads any value
        let view = codec
            .view(&message, &[(DataType::UINT8, usize::MAX)])
            .expect("a view of the same message fits");
        let call = view.call(0).unwrap();
        println!(
            "view: {} values, last {:?}",
            call.len(),
            call.get(call.len() - 1)
        );
        return;
    }
    let stdout = rerun_under_ulimit(TEST, ONE_GB_KB, "the decoder");
    assert!(
        stdout.contains("dense: PMIX_ERR_NOMEM (-32)"),
        "the refusal is PMIX_ERR_NOMEM:\n{stdout}"
    );
    assert!(
        stdout.contains(&format!("view: {} values, last Ok(Uint8(0))", 30 << 20)),
        "the view of the same message fits:\n{stdout}"
    );
}

#[test]
fn h1_lying_info_count_under_a_1gb_address_space() {
    const TEST: &str = "h1_lying_info_count_under_a_1gb_address_space";
    if is_limited_child(TEST) {
        // The child: decode under the limit and say how it ended.
        let codec = Codec::new(Component::V61, BufferKind::NonDescribed);
        for filler in [0x00, 0xff] {
            let e = codec
                .decode(&h1_message(filler), &[DataType::INFO])
                .expect_err("a lying count cannot decode");
            println!("H1 filler {filler:02x}: {} ({})", e.status, e.reason);
            let v = codec
                .view(&h1_message(filler)[..], &[(DataType::INFO, usize::MAX)])
                .expect_err("a lying count cannot be viewed");
            assert_eq!(v.status, e.status, "the view fails as the decode does");
        }
        return;
    }
    let stdout = rerun_under_ulimit(TEST, ONE_GB_KB, "the decoder");
    assert_eq!(
        stdout.matches("H1 filler").count(),
        2,
        "every message was decoded to an error:\n{stdout}"
    );
}

/// Alternating QUERY and DATA_ARRAY, `levels` containers in all, around one UINT8.
fn alternating(levels: usize) -> Item {
    let mut v = Value::Uint8(7);
    for i in 0..levels {
        v = if i % 2 == 0 {
            Value::Query(Box::new(Query {
                keys: vec![],
                qualifiers: vec![Info::new("k", v)],
            }))
        } else {
            Value::array(DataType::QUERY, vec![v])
        };
    }
    Item::one(v)
}

#[test]
fn h2_mixed_nesting_shares_one_cap() {
    // 4.2 packs without a depth cap, as libpmix 4.2.2 does: the bytes of 60 and 200 levels.
    let codec =
        Codec::new(Component::V41, BufferKind::NonDescribed).with_release(Release::OpenPmix4_2);
    let (shallow_item, deep_item) = (alternating(60), alternating(200));
    let ty = shallow_item.ty;
    assert_eq!(ty, deep_item.ty);
    let shallow = codec.encode(&[shallow_item]).unwrap();
    let deep = codec.encode(&[deep_item]).unwrap();
    // A small stack: the decoder must refuse before it gets deep, not overflow.
    let stack = if cfg!(debug_assertions) {
        4 << 20
    } else {
        512 << 10
    };
    let got = std::thread::Builder::new()
        .stack_size(stack)
        .spawn(move || {
            (
                codec.decode(&shallow, &[ty]).map(|_| ()),
                codec.decode(&deep, &[ty]).map(|_| ()),
            )
        })
        .unwrap()
        .join()
        .expect("no stack overflow");
    assert_eq!(got.0, Ok(()), "60 mixed levels decode");
    let e = got
        .1
        .expect_err("200 mixed levels exceed the cap of 100 in all");
    assert_eq!(e.status, Status::ERR_UNPACK_FAILURE, "{e}");
    assert!(e.reason.contains("deeper than 100"), "{e}");
}
