//! Hostile inputs for the peak-heap measurement: the classes the fuzz dictionaries
//! (`fuzz/dict/decode.dict`) build inputs from, each made about `size` bytes long.
//!
//! Shared by `pmix-bench` (which prints the peak heap of decoding each, as a multiple of
//! the input's size) and `codec/tests/heap_ratio.rs` (which holds the bound).

#![allow(dead_code)]

use pmix_codec::wire::{put_flex, zigzag};
use pmix_codec::{BufferKind, Codec, Component, DataType, Item, Value};

/// One hostile input: a name, the codec, the bytes and the unpack call to make.
pub struct Hostile {
    /// What the input is.
    pub name: &'static str,
    /// The codec that decodes it.
    pub codec: Codec,
    /// The bytes.
    pub bytes: Vec<u8>,
    /// The unpack call's type.
    pub ty: DataType,
    /// Whether its count claims far more values than the input holds.
    pub lying: bool,
}

fn count_prefix(n: i32) -> Vec<u8> {
    let mut b = Vec::new();
    put_flex(&mut b, zigzag(n as i64));
    b
}

/// `n` values of `v`, packed as one call of `v`'s type by the v41 encoder.
fn dense(name: &'static str, v: Value, n: usize) -> Hostile {
    let codec = Codec::new(Component::V41, BufferKind::NonDescribed);
    let ty = v.data_type();
    let bytes = codec
        .encode(&[Item::new(ty, vec![v; n])])
        .expect("hostile input encodes");
    Hostile {
        name,
        codec,
        bytes,
        ty,
        lying: false,
    }
}

/// Every class, each about `size` bytes long.
pub fn classes(size: usize) -> Vec<Hostile> {
    let v41 = Codec::new(Component::V41, BufferKind::NonDescribed);
    let v3 = Codec::new(Component::V3, BufferKind::NonDescribed);
    let mut out = vec![
        // the densest records: one byte per value
        dense(
            "empty VALUEs (1 byte each)",
            Value::Value(Box::new(Value::Undef)),
            size,
        ),
        dense("UINT8 zeros (1 byte each)", Value::Uint8(0), size),
        dense("NULL STRINGs (1 byte each)", Value::String(None), size),
        dense("one-letter PROCs", Value::proc("a", 0), size / 4),
        dense("minimal INFOs", Value::info("k", Value::Undef), size / 5),
        dense(
            "empty DATA_ARRAYs",
            Value::array(DataType::BOOL, Vec::new()),
            size / 2,
        ),
    ];
    // one value holding the whole input: a view keeps one offset for it
    out.push(dense(
        "one DATA_ARRAY of UINT8 zeros",
        Value::array(DataType::UINT8, vec![Value::Uint8(0); size]),
        1,
    ));
    out.push(dense(
        "one INFO holding empty VALUEs",
        Value::info(
            "k",
            Value::array(
                DataType::VALUE,
                vec![Value::Value(Box::new(Value::Undef)); size],
            ),
        ),
        1,
    ));
    // lying counts: the count claims far more than the input holds
    for (name, ty, codec) in [
        ("INFO count 2^31-1 over zeros", DataType::INFO, v41),
        // zeros are empty VALUEs: this one decodes every byte before it runs out
        ("VALUE count 2^31-1 over empty VALUEs", DataType::VALUE, v41),
        ("PROC count 2^31-1 over zeros (v3)", DataType::PROC, v3),
    ] {
        let mut bytes = if codec.component == Component::V3 {
            i32::MAX.to_be_bytes().to_vec()
        } else {
            count_prefix(i32::MAX)
        };
        bytes.resize(size, 0);
        out.push(Hostile {
            name,
            codec,
            bytes,
            ty,
            lying: ty != DataType::VALUE,
        });
    }
    // nesting at the cap, repeated: DATA_ARRAY of DATA_ARRAY ... of BOOL
    let mut nested = Value::array(DataType::BOOL, vec![Value::Bool(true)]);
    for _ in 0..90 {
        nested = Value::array(DataType::DATA_ARRAY, vec![nested]);
    }
    let one = v41
        .encode(&[Item::one(nested.clone())])
        .expect("nested array encodes")
        .len();
    out.push(dense(
        "DATA_ARRAYs nested 90 deep",
        nested,
        (size / one).max(1),
    ));
    out
}
