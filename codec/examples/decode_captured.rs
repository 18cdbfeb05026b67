//! Decode a buffer captured from OpenPMIx 4.2.2 (v41, non-described): one `PMIx_Data_pack`
//! of a `pmix_value_t` holding a `pmix_proc_t`, as recorded in
//! `vectors/openpmix-4.2.2/v41-non-described.json` (vector 163).
//!
//! Run: `cargo run -p pmix-codec --example decode_captured`

use pmix_codec::{BufferKind, Codec, Component, DataType, Item, Release, Value};

/// The bytes libpmix 4.2.2 wrote.
const CAPTURED: &str = "0216066e7300feffffff0f";

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

pub fn main() {
    let bytes = unhex(CAPTURED);
    let codec =
        Codec::new(Component::V41, BufferKind::NonDescribed).with_release(Release::OpenPmix4_2);
    let items = codec
        .decode(&bytes, &[DataType::VALUE])
        .expect("the captured buffer decodes");
    let expected = Value::Value(Box::new(Value::proc("ns", 4294967294)));
    assert_eq!(items[0].values, [expected]);
    println!("decoded: {:?}", items[0].values[0]);
    // And our encoder gives back exactly what the library wrote.
    let again = codec
        .encode(&[Item::one(items[0].values[0].clone())])
        .unwrap();
    assert_eq!(again, bytes);
    println!("re-encoded byte-exact: {CAPTURED}");
}
