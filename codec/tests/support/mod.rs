//! Helpers shared by the integration tests that walk the golden vectors.

use pmix_codec::vectors::VectorFile;
use pmix_codec::{json, Codec, DataType, Item};
use std::path::PathBuf;

/// Every golden vector file under `vectors/`, in path order.
pub fn vector_files() -> Vec<VectorFile> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../vectors");
    let paths = pmix_codec::vectors::vector_paths(&dir).unwrap();
    paths
        .iter()
        .map(|p| VectorFile::from_json(&std::fs::read_to_string(p).unwrap()).unwrap())
        .collect()
}

/// Bytes from hex text (the vectors' `wire`).
pub fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

/// One golden vector as the decode tests replay it.
#[allow(dead_code)] // not every test binary that includes this module replays decodes
pub struct DecodeCase {
    /// The vector file's codec.
    pub codec: Codec,
    /// `component buffer vector id`, for messages.
    pub label: String,
    /// The pack calls.
    pub items: Vec<Item>,
    /// One unpack call per pack call, each with unlimited capacity.
    pub calls: Vec<(DataType, usize)>,
    /// The bytes.
    pub wire: Vec<u8>,
}

/// Every golden vector as a [`DecodeCase`], in [`vector_files`] order.
#[allow(dead_code)]
pub fn decode_cases() -> Vec<DecodeCase> {
    let mut out = Vec::new();
    for f in vector_files() {
        let codec = f.codec().unwrap();
        for v in &f.tests {
            let items = json::items_from_json(&v.items).unwrap();
            out.push(DecodeCase {
                codec,
                label: format!("{} {} vector {}", f.component, f.buffer, v.id),
                calls: items.iter().map(|i| (i.ty, usize::MAX)).collect(),
                items,
                wire: unhex(&v.wire),
            });
        }
    }
    out
}
