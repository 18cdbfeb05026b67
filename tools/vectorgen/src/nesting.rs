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
    if g.comp.family() == Family::Legacy20 {
        gen_value_info_arrays(g, shape);
    }
}

/// The element counts of the v20 VALUEs of INFO_ARRAY: one element and a few.
const VALUE_ELEMENTS: [usize; 2] = [1, 3];

/// v20 only: a top-level VALUE of INFO_ARRAY (v20's packer refuses one, its unpacker reads
/// it, quirk U19) of [`VALUE_ELEMENTS`] VALUEs of UINT8, then a UINT8 call of 7, then a
/// UINT8 call past the end. The library reads the first two calls and fails on the third,
/// so the vector pins how many bytes the VALUE takes (what the first call read is not
/// part of an invalid vector; `codec/tests/quirks.rs::u19_v20_value_info_array` pins it).
fn gen_value_info_arrays(g: &mut Gen, shape: &Shape) {
    let codec = g.codec();
    let head = g.header(1, DataType::VALUE.0).len();
    let value_of = |k: u8| {
        codec
            .encode(&[Item::one(Value::Value(Box::new(Value::Uint8(k))))])
            .map(|b| b[head..].to_vec())
    };
    let Ok(seven) = codec.encode(&[Item::one(Value::Uint8(7))]) else {
        g.skip("v20 VALUE of INFO_ARRAY: the codec cannot pack UINT8");
        return;
    };
    for n in VALUE_ELEMENTS {
        let mut wire = g.header(1, DataType::VALUE.0);
        wire.extend(&shape.value_type);
        wire.extend(shape.size(n as u64));
        for k in 1..=n {
            let Ok(element) = value_of(k as u8) else {
                g.skip("v20 VALUE of INFO_ARRAY: the codec cannot pack a VALUE of UINT8");
                return;
            };
            wire.extend(element);
        }
        wire.extend(&seven);
        g.hostile(
            format!(
                "VALUE of INFO_ARRAY of {n} VALUE(s) of UINT8 (v20 reads it, its packer refuses it: \
                 quirk U19-v20-value-info-array), then UINT8 7, then a UINT8 call past the end"
            ),
            wire,
            &[DataType::VALUE, DataType::UINT8, DataType::UINT8],
            &[],
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
    /// The array's SIZE field holding `n`.
    fn size(&self, n: u64) -> Vec<u8> {
        [self.size_tags.clone(), n.to_be_bytes().to_vec()].concat()
    }

    fn wire(&self, g: &Gen, depth: usize) -> Vec<u8> {
        let size = |n: u64| self.size(n);
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
