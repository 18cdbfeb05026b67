//! A vector before it gets its id, and what a pack call list's features say about its
//! flags and quirks.

use pmix_codec::json;
use pmix_codec::quirks;
use pmix_codec::vectors::{Outcome, Phase};
use pmix_codec::*;
use pmix_oracle::corpus;
use std::collections::BTreeSet;

/// A vector before it gets its id.
#[derive(Clone, Debug)]
pub(super) struct Draft {
    pub(super) comment: String,
    pub(super) items: Vec<Item>,
    pub(super) wire: Vec<u8>,
    pub(super) result: Outcome,
    pub(super) flags: BTreeSet<String>,
    pub(super) error: Option<(Phase, i32, usize)>,
    pub(super) decoded: Option<Vec<Item>>,
}

/// Whether a described v12 BUFFER, MODEX or INFO_ARRAY call stops inside its SIZE's
/// integer tag (a 4-byte read at byte 16 with 0-3 bytes left): where libpmix tests an
/// uninitialized type (quirk U14).
pub(super) fn cut_inside_v12_size_tag(codec: Codec, wire: &[u8], types: &[DataType]) -> bool {
    let sized = [DataType::BUFFER, DataType::MODEX, DataType::INFO_ARRAY];
    if codec.kind != BufferKind::FullyDescribed || types.len() != 1 || !sized.contains(&types[0]) {
        return false;
    }
    match codec.decode_calls(wire, &[(types[0], usize::MAX)]) {
        Err((e, _)) => {
            e.status == Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER
                && e.offset == 16
                && [
                    "need 4 bytes, 0 left",
                    "need 4 bytes, 1 left",
                    "need 4 bytes, 2 left",
                    "need 4 bytes, 3 left",
                ]
                .contains(&e.reason.as_str())
        }
        Ok(_) => false,
    }
}

/// A DATA_ARRAY call with a typeless (UNDEF) array before its last array (quirks R2, C6).
pub(super) fn typeless_darray_before_others(items: &[Item]) -> bool {
    items
        .iter()
        .any(|i| i.ty == DataType::DATA_ARRAY && quirks::typeless_array_before_others(&i.values))
}

pub(super) fn types_only(types: &[DataType]) -> Vec<Item> {
    types.iter().map(|t| Item::new(*t, vec![])).collect()
}

pub(super) fn items_key(items: &[Item]) -> String {
    json::items_to_json(items).to_string()
}

pub(super) fn same_items(a: &[Item], b: &[Item]) -> bool {
    items_key(a) == items_key(b)
}

/// Features of a pack call list that decide flags and whether master's bytes can differ.
#[derive(Default, Debug)]
pub(super) struct Features {
    pub(super) types: BTreeSet<u16>,
    pub(super) darray_undef: bool,
    pub(super) darray_of_darray: bool,
    pub(super) value_of_compressed_string: bool,
    pub(super) value_of_container: bool,
    pub(super) max_depth: usize,
}

fn scan_value(v: &Value, depth: usize, in_value: bool, f: &mut Features) {
    f.types.insert(v.data_type().0);
    if in_value {
        if v.data_type() == DataType::COMPRESSED_STRING {
            f.value_of_compressed_string = true;
        }
        if quirks::VALUE_REFUSED_TYPES.contains(&v.data_type()) {
            f.value_of_container = true;
        }
    }
    match v {
        Value::Value(inner) => scan_value(inner, depth, true, f),
        Value::Info(i) => scan_value(&i.value, depth, true, f),
        Value::Pdata(p) => scan_value(&p.value, depth, true, f),
        Value::Kval(k) => scan_value(&k.value, depth, true, f),
        Value::App(a) => a
            .info
            .iter()
            .for_each(|i| scan_value(&i.value, depth, true, f)),
        Value::Query(q) => q
            .qualifiers
            .iter()
            .for_each(|i| scan_value(&i.value, depth, true, f)),
        Value::InfoArray(is) => is.iter().for_each(|i| scan_value(&i.value, depth, true, f)),
        Value::DataArray(d) => {
            f.max_depth = f.max_depth.max(depth + 1);
            f.types.insert(d.ty.0);
            if d.ty == DataType::UNDEF {
                f.darray_undef = true;
            }
            if d.ty == DataType::DATA_ARRAY {
                f.darray_of_darray = true;
            }
            d.values
                .iter()
                .for_each(|x| scan_value(x, depth + 1, false, f));
        }
        _ => {}
    }
}

pub(super) fn features(items: &[Item]) -> Features {
    let mut f = Features::default();
    for it in items {
        f.types.insert(it.ty.0);
        for v in &it.values {
            scan_value(v, 0, false, &mut f);
        }
    }
    f
}

/// Quirks (ids from `codec/src/quirks.rs`) a valid vector shows, and whether it is only
/// `acceptable` (an implementation may reasonably do otherwise).
pub(super) fn quirks_of(
    comp: Component,
    rel: Release,
    items: &[Item],
    lossy: bool,
) -> (Vec<&'static str>, bool) {
    let f = features(items);
    let fam = comp.family();
    let has = |t: DataType| f.types.contains(&t.0);
    let mut q = Vec::new();
    let mut acceptable = false;
    if fam == Family::Modern && lossy && (has(DataType::DATA_TYPE) || has(DataType::REGATTR)) {
        q.push("D1-datatype-zigzag");
        acceptable = true;
    }
    if has(DataType::POINTER) {
        q.push("P1-pointer-sentinel");
        acceptable = true;
    }
    if f.darray_undef && matches!(fam, Family::Converged | Family::Modern) {
        q.push("R2-darray-undef-size");
    }
    if (has(DataType::INFO_ARRAY) || has(DataType::MODEX))
        && matches!(fam, Family::Legacy20 | Family::Converged)
    {
        q.push("R3-info-array-size-tag");
    }
    if (61..=64).any(|t| f.types.contains(&t)) && rel == Release::OpenPmix4_2 {
        q.push("R4-stats-types");
    }
    if fam == Family::Legacy12 && lossy {
        q.push("L1-v12-type-numbers");
    }
    if fam == Family::Legacy12 && items.iter().any(|i| corpus::single_value_only(i.ty, comp)) {
        q.push("U2-v12-narrow-enums");
    }
    (q, acceptable)
}
