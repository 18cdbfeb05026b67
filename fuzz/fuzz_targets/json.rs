//! The JSON value model (vectors and testee protocol, `pmix_codec::json`) and the vector file
//! reader on arbitrary text: no panic; what parses as items writes back to JSON that parses
//! to the same items; the parsed items encode/decode without panicking in every codec.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pmix_codec::json::{items_from_json, items_to_json, typed, typed_j};
use pmix_codec::vectors::{check_vector, VectorFile};
use pmix_codec::*;
use pmix_fuzz::same;

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(f) = VectorFile::from_json(s) {
        let codec = f.codec().expect("validated");
        for v in &f.tests {
            let _ = check_vector(&codec, v);
        }
        let again = VectorFile::from_json(&f.to_json()).expect("own output parses");
        assert_eq!(again.tests.len(), f.tests.len());
    }
    let Ok(j) = serde_json::from_str::<serde_json::Value>(s) else {
        return;
    };
    if let Ok(v) = typed(&j) {
        let back = typed(&typed_j(&v)).expect("own typed JSON parses");
        assert_eq!(format!("{back:?}"), format!("{v:?}"));
    }
    let Ok(items) = items_from_json(&j) else {
        return;
    };
    let j2 = items_to_json(&items);
    let back =
        items_from_json(&j2).unwrap_or_else(|e| panic!("own JSON does not parse: {e}\n  {j2}"));
    assert!(
        same(&back, &items),
        "JSON round trip differs\n  {items:?}\n  {back:?}"
    );
    assert_eq!(items_to_json(&back), j2, "JSON output is not a fixpoint");
    let types: Vec<DataType> = items.iter().map(|i| i.ty).collect();
    let pick = data
        .iter()
        .fold(0usize, |a, b| a.wrapping_mul(31).wrapping_add(*b as usize));
    for (i, comp) in Component::ALL.iter().enumerate() {
        let kind = BufferKind::ALL[(pick >> i) & 1];
        let rels: Vec<Release> = Release::ALL
            .into_iter()
            .filter(|r| r.ships(*comp))
            .collect();
        let rel = rels[(pick >> (i + 8)) % rels.len()];
        let codec = Codec::new(*comp, kind).with_release(rel);
        if let Ok(bytes) = codec.encode(&items) {
            if let Err(e) = codec.decode(&bytes, &types) {
                assert!(e.offset <= bytes.len());
            }
        }
    }
});
