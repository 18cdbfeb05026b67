//! INFO_ARRAY nested past pmix-codec's 100-level decoding cap (quirk R6), judged by each
//! release's library.
//!
//! v12 ... v3 read an INFO_ARRAY's elements as VALUEs (quirk U11), so what nests on the
//! reading side is "INFO_ARRAY of one VALUE whose type is INFO_ARRAY, of one VALUE ...",
//! not the INFO records the packer writes. No pack call list makes those bytes: they are
//! built here from the component's own pieces (the VALUE's type field, the array's SIZE),
//! and the right pieces are found by asking the reference decoder, which must read 100
//! levels and refuse the 101st, so the vectors exercise the cap and nothing else.

use super::generator::Gen;
use pmix_codec::*;

/// The depths recorded: just past the cap, and well past it (as for DATA_ARRAY).
const DEPTHS: [usize; 2] = [101, 150];

/// Record "INFO_ARRAY nested N levels through VALUE" for every depth of [`DEPTHS`], in the
/// components that register INFO_ARRAY.
pub(super) fn gen_info_array_nesting(g: &mut Gen) {
    if !g.comp.registers(DataType::INFO_ARRAY, g.rel) {
        return;
    }
    let shapes = shapes(g);
    let codec = g.codec();
    let reads = |s: &&Shape, depth: usize| {
        codec
            .decode(&s.wire(g, depth)[..], &[DataType::INFO_ARRAY])
            .map_err(|e| e.reason.clone())
    };
    // The reader's own layout: 100 levels read, the 101st refused for its depth.
    let nesting = shapes.iter().find(|s| {
        reads(s, 100).is_ok() && reads(s, 101).is_err_and(|r| r.contains("nested deeper"))
    });
    let Some(shape) = nesting else {
        g.skip("INFO_ARRAY nesting: no VALUE/SIZE layout reads 100 levels and stops at 101");
        return;
    };
    for depth in DEPTHS {
        let wire = shape.wire(g, depth);
        g.hardening(
            format!("INFO_ARRAY nested {depth} levels through VALUE"),
            wire,
            &[DataType::INFO_ARRAY],
            "R6-nesting-cap",
        );
    }
}

/// How the unpacker reads one level: the VALUE's type field, then the SIZE of the array
/// (its tags, then the big-endian 64-bit count).
struct Shape {
    value_type: Vec<u8>,
    size_tags: Vec<u8>,
}

impl Shape {
    /// One top-level INFO_ARRAY call whose arrays nest `depth` deep, each holding one VALUE
    /// of type INFO_ARRAY, the innermost empty.
    fn wire(&self, g: &Gen, depth: usize) -> Vec<u8> {
        let size = |n: u64| [self.size_tags.clone(), n.to_be_bytes().to_vec()].concat();
        let mut w = g.header(1, DataType::INFO_ARRAY.0);
        w.extend(size(u64::from(depth > 1)));
        for level in 2..=depth {
            w.extend(&self.value_type);
            w.extend(size(u64::from(level < depth)));
        }
        w
    }
}

/// Every layout a v12 ... v3 reader might take for a VALUE of INFO_ARRAY, in this order:
/// the type field bare or behind the tags of the integer it is read as (a described-mode
/// tag and an integer's own tag), optionally followed by v12/v20's described-mode tag of
/// the payload; then the SIZE bare or behind a UINT64 tag, a SIZE and a UINT64 tag, or two
/// UINT64 tags (quirks R3, L2).
fn shapes(g: &Gen) -> Vec<Shape> {
    let t = g.tag(DataType::INFO_ARRAY.0);
    let tag = |ty: DataType| g.tag(ty.0);
    let type_prefixes = [
        vec![],
        tag(DataType::DATA_TYPE),
        tag(DataType::UINT16),
        tag(DataType::INT16),
        tag(DataType::INT32),
        [tag(DataType::INT32), tag(DataType::INT32)].concat(),
    ];
    let size_tags = [
        vec![],
        tag(DataType::UINT64),
        [tag(DataType::SIZE), tag(DataType::UINT64)].concat(),
        [tag(DataType::UINT64), tag(DataType::UINT64)].concat(),
    ];
    let mut out = vec![];
    for prefix in &type_prefixes {
        for suffix in [vec![], t.clone()] {
            for size in &size_tags {
                out.push(Shape {
                    value_type: [prefix.clone(), t.clone(), suffix.clone()].concat(),
                    size_tags: size.clone(),
                });
            }
        }
    }
    out
}
