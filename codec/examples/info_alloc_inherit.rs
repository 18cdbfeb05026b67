//! Build an info array carrying `PMIX_ALLOC_INHERITANCE` (type 75, `ALLOC_INHERIT`, only in
//! the v61 component) and check it against the bytes OpenPMIx master recorded
//! (`vectors/openpmix-master-494e9d9d/v61-non-described.json`, vector 9).
//!
//! Run: `cargo run -p pmix-codec --example info_alloc_inherit`

use pmix_codec::attrs::AllocInherit;
use pmix_codec::{BufferKind, Codec, Component, DataType, Info, Item, Value};

/// What OpenPMIx master packs for `INFO {"pmix.alloc.inhrt" ALLOC_INHERIT 4}`.
const RECORDED: &str = "0222706d69782e616c6c6f632e696e68727400004b04";

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

pub fn main() {
    let codec = Codec::new(Component::V61, BufferKind::NonDescribed);
    let value = AllocInherit::ChildDefault as u8; // 4, as in the recorded vector
    let info = Info::new("pmix.alloc.inhrt", Value::AllocInherit(value));
    let bytes = codec
        .encode(&[Item::one(Value::Info(Box::new(info.clone())))])
        .expect("v61 packs ALLOC_INHERIT");
    assert_eq!(hex(&bytes), RECORDED);
    println!("v61 INFO with ALLOC_INHERIT: {}", hex(&bytes));
    let back = codec.decode(&bytes, &[DataType::INFO]).unwrap();
    assert_eq!(back[0].values, [Value::Info(Box::new(info.clone()))]);
    // Older components do not register type 75: the packer refuses it.
    let v51 = Codec::new(Component::V51, BufferKind::NonDescribed);
    let err = v51
        .encode(&[Item::one(Value::Info(Box::new(info)))])
        .unwrap_err();
    println!("v51 refuses it: status {} ({err})", err.status.0);
    assert!(err.status.0 < 0);
}
