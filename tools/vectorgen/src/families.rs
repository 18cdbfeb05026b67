//! Corpus families: the valid pack call lists beyond [`pmix_oracle::corpus`] (integer
//! boundaries, every value inside INFO and KVAL, string lengths, pairs, nesting).

use super::generator::Gen;
use pmix_codec::json;
use pmix_codec::*;
use pmix_oracle::corpus::{self, Case};

/// Extra valid pack call lists beyond [`corpus::cases`]: integer boundaries, every value
/// sample inside an INFO, strings around length boundaries, pairs of calls, nesting.
pub fn extra_cases(comp: Component, rel: Release) -> Vec<Case> {
    let mut out = Vec::new();
    let reg = |t: DataType| comp.registers(t, rel);
    let u64s = [
        0u64,
        1,
        127,
        128,
        255,
        256,
        16383,
        16384,
        (1 << 31) - 1,
        1 << 31,
        (1 << 32) - 1,
        1 << 32,
        (1 << 56) - 1,
        1 << 56,
        (1 << 63) - 1,
        1 << 63,
        u64::MAX,
    ];
    let i64s = [
        0i64,
        1,
        -1,
        63,
        -64,
        64,
        -65,
        127,
        -128,
        8191,
        -8192,
        8192,
        i32::MIN as i64,
        i32::MAX as i64,
        i64::MIN,
        i64::MAX,
    ];
    let mut bounds: Vec<(DataType, Vec<Value>)> = vec![
        (
            DataType::UINT16,
            u64s.iter()
                .filter(|&&u| u <= u16::MAX as u64)
                .map(|&u| Value::Uint16(u as u16))
                .collect(),
        ),
        (
            DataType::UINT32,
            u64s.iter()
                .filter(|&&u| u <= u32::MAX as u64)
                .map(|&u| Value::Uint32(u as u32))
                .collect(),
        ),
        (
            DataType::UINT64,
            u64s.iter().map(|&u| Value::Uint64(u)).collect(),
        ),
        (
            DataType::SIZE,
            u64s.iter().map(|&u| Value::Size(u)).collect(),
        ),
        (
            DataType::TIME,
            u64s.iter().map(|&u| Value::Time(u)).collect(),
        ),
        (
            DataType::INT16,
            i64s.iter()
                .filter(|&&i| i16::try_from(i).is_ok())
                .map(|&i| Value::Int16(i as i16))
                .collect(),
        ),
        (
            DataType::INT32,
            i64s.iter()
                .filter(|&&i| i32::try_from(i).is_ok())
                .map(|&i| Value::Int32(i as i32))
                .collect(),
        ),
        (
            DataType::INT64,
            i64s.iter().map(|&i| Value::Int64(i)).collect(),
        ),
        (
            DataType::INT,
            i64s.iter()
                .filter(|&&i| i32::try_from(i).is_ok())
                .map(|&i| Value::Int(i as i32))
                .collect(),
        ),
        (
            DataType::UINT,
            u64s.iter()
                .filter(|&&u| u <= u32::MAX as u64)
                .map(|&u| Value::Uint(u as u32))
                .collect(),
        ),
        (
            DataType::PROC_RANK,
            u64s.iter()
                .filter(|&&u| u <= u32::MAX as u64)
                .map(|&u| Value::ProcRank(u as u32))
                .collect(),
        ),
        (
            DataType::STATUS,
            i64s.iter()
                .filter(|&&i| i32::try_from(i).is_ok())
                .map(|&i| Value::Status(i as i32))
                .collect(),
        ),
        (
            DataType::PID,
            i64s.iter()
                .filter(|&&i| i32::try_from(i).is_ok())
                .map(|&i| Value::Pid(i as i32))
                .collect(),
        ),
    ];
    if reg(DataType::DEVTYPE) {
        bounds.push((
            DataType::DEVTYPE,
            u64s.iter().map(|&u| Value::Devtype(u)).collect(),
        ));
    }
    for (ty, vals) in bounds {
        if !reg(ty) {
            continue;
        }
        for v in vals {
            let name = format!("bound.{ty}.{}", json::value_to_json(&v));
            out.push(Case {
                name,
                items: vec![Item::one(v)],
            });
        }
    }
    // strings whose length crosses varint and byte boundaries, and non-ASCII bytes
    for n in [1usize, 62, 63, 64, 127, 128, 255, 256, 1000] {
        out.push(Case {
            name: format!("string.len{n}"),
            items: vec![Item::one(Value::string(&"s".repeat(n)))],
        });
    }
    out.push(Case {
        name: "string.utf8".into(),
        items: vec![Item::one(Value::string("grüße ✓"))],
    });
    out.push(Case {
        name: "string.latin1-bytes".into(),
        items: vec![Item::one(Value::String(Some(Text::from(vec![
            0xe9u8, 0x74, 0xe9,
        ]))))],
    });
    // every value a pmix_value_t can carry here, inside an INFO (flags 0 and ARRAY_END)
    let vs = corpus::value_samples(comp, rel);
    for (i, v) in vs.iter().enumerate() {
        let t = v.data_type();
        let flags = if comp == Component::V12 || i % 2 == 0 {
            0
        } else {
            2
        };
        let info = Info {
            key: format!("pmix.test.{}", t.to_string().to_lowercase())
                .as_str()
                .into(),
            flags,
            value: v.clone(),
        };
        out.push(Case {
            name: format!("info-of.{t}.{i}"),
            items: vec![Item::one(Value::Info(Box::new(info)))],
        });
    }
    // pairs of calls of consecutive registered types (stream alignment)
    let types = comp.registered_types(rel);
    for w in types.windows(2) {
        let a = corpus::samples(w[0], comp, rel);
        let b = corpus::samples(w[1], comp, rel);
        if let (Some(a), Some(b)) = (a.last(), b.first()) {
            out.push(Case {
                name: format!("pair.{}+{}", w[0], w[1]),
                items: vec![Item::one(a.clone()), Item::one(b.clone())],
            });
        }
    }
    out
}

/// DATA_ARRAY nested `depth` levels, innermost `UINT8 [1]`.
pub fn nested_array(depth: usize) -> Value {
    let mut v = Value::array(DataType::UINT8, vec![Value::Uint8(1)]);
    for _ in 1..depth {
        v = Value::array(DataType::DATA_ARRAY, vec![v]);
    }
    v
}

/// A value of `ty` from any component's corpus (for packing types a component lacks).
pub(super) fn any_sample(ty: DataType) -> Option<Value> {
    corpus::samples(ty, Component::V61, Release::Master)
        .into_iter()
        .next()
        .or_else(|| {
            corpus::samples(ty, Component::V41, Release::OpenPmix4_2)
                .into_iter()
                .next()
        })
        .or_else(|| {
            corpus::samples(ty, Component::V3, Release::OpenPmix4_2)
                .into_iter()
                .next()
        })
}

/// The deepest DATA_ARRAY nesting written as JSON `items` (serde_json's default recursion
/// limit of 128 allows about 60 levels); deeper arrays appear only as `wire` of decode vectors.
pub const NEST_IN_JSON: usize = 50;

/// Ids to try as unknown types: 0 ... 76 and a few beyond.
pub(super) const UNKNOWN_IDS: &[u16] =
    &[76, 77, 100, 127, 128, 255, 256, 499, 500, 501, 1000, 65535];

pub(super) fn gen_valid(g: &mut Gen, cases: &[Case]) {
    for c in cases {
        let flags: &[&str] = if c.name.starts_with("nest.") {
            &["DeepNesting"]
        } else {
            &[]
        };
        g.pack_case(&c.name, &c.items, flags);
    }
}

pub(super) fn all_cases(comp: Component, rel: Release) -> Vec<Case> {
    let mut cases = corpus::cases(comp, rel);
    cases.extend(extra_cases(comp, rel));
    if !matches!(comp.family(), Family::Legacy12) {
        for d in [2usize, 3, NEST_IN_JSON] {
            cases.push(Case {
                name: format!("nest.depth{d}"),
                items: vec![Item::one(nested_array(d))],
            });
        }
    }
    // every edge of every value-carrying type in every context that holds it
    cases.extend(pmix_oracle::edges::edge_cases(comp, rel));
    cases
}
