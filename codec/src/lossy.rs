//! What a value becomes after a round trip through the real library's component: floats
//! through their `"%f"` text, and the documented lossy legacy mappings (quirks L1, U2, ...).
//! Shared by the codec's round-trip property test (`codec/tests/roundtrip.rs`) and the fuzz
//! targets (`fuzz/`), which both compare a decoded value with the one that was packed.

use crate::float::{format_percent_f, parse_strtod, parse_strtof};
use crate::quirks;
use crate::*;

/// The component and release a value is packed for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Context {
    /// Component.
    pub comp: Component,
    /// Release profile.
    pub rel: Release,
}

/// What a value becomes after a round trip through `ctx`'s component: floats through their
/// `"%f"` text, and the documented lossy legacy mappings .
pub fn normalise(v: &Value, ctx: Context, in_value: bool) -> Value {
    let fam = ctx.comp.family();
    let n = |x: &Value| normalise(x, ctx, false);
    let nv = |x: &Value| normalise(x, ctx, true);
    let ni = |i: &Info| Info {
        key: Text::from(i.key.iter().copied().take(511).collect::<Vec<u8>>()),
        flags: if fam == Family::Legacy12 { 0 } else { i.flags },
        value: nv(&i.value),
    };
    let np = |p: &Proc| Proc {
        nspace: Text::from(p.nspace.iter().copied().take(255).collect::<Vec<u8>>()),
        rank: p.rank,
    };
    let f = |x: f32| parse_strtof(format_percent_f(x as f64).as_bytes());
    match v {
        Value::Float(x) => Value::Float(f(*x)),
        Value::Double(x) => Value::Double(parse_strtod(format_percent_f(*x).as_bytes())),
        Value::Value(x) => Value::Value(Box::new(nv(x))),
        Value::Proc(p) => Value::Proc(np(p)),
        Value::ProcRank(r) if in_value && fam == Family::Legacy12 => Value::Int(*r as i32),
        Value::Info(i) => Value::Info(Box::new(ni(i))),
        Value::InfoArray(is) => Value::InfoArray(
            is.iter()
                .map(|i| {
                    if fam == Family::Legacy20 {
                        Info {
                            value: nv(&i.value),
                            ..i.clone()
                        }
                    } else {
                        ni(i)
                    }
                })
                .collect(),
        ),
        Value::Pdata(p) => Value::Pdata(Box::new(Pdata {
            proc: np(&p.proc),
            key: Text::from(p.key.iter().copied().take(511).collect::<Vec<u8>>()),
            value: nv(&p.value),
        })),
        Value::Kval(k) => Value::Kval(Box::new(Kval {
            key: k.key.clone(),
            value: nv(&k.value),
        })),
        Value::App(a) => Value::App(Box::new(App {
            cwd: if fam == Family::Legacy12 {
                None
            } else {
                a.cwd.clone()
            },
            info: a.info.iter().map(ni).collect(),
            ..(**a).clone()
        })),
        Value::Buffer(b) if matches!(fam, Family::Legacy12 | Family::Legacy20) => {
            Value::Buffer(Buffer {
                kind: 0,
                bytes: b.bytes.clone(),
            })
        }
        Value::ProcInfo(p) => Value::ProcInfo(Box::new(ProcInfo {
            proc: np(&p.proc),
            ..(**p).clone()
        })),
        Value::Query(q) => Value::Query(Box::new(Query {
            keys: q.keys.clone(),
            qualifiers: q.qualifiers.iter().map(ni).collect(),
        })),
        Value::DataArray(d) => Value::array(d.ty, d.values.iter().map(n).collect()),
        // A REGATTR description is a C argv: the library packs it up to its first NULL.
        Value::Regattr(r) => Value::Regattr(Box::new(Regattr {
            description: r
                .description
                .iter()
                .take_while(|d| d.is_some())
                .cloned()
                .collect(),
            ..(**r).clone()
        })),
        Value::ProcStats(p) => Value::ProcStats(Box::new(ProcStats {
            pss: f(p.pss),
            vsize: f(p.vsize),
            rss: f(p.rss),
            proc: np(&p.proc),
            ..(**p).clone()
        })),
        Value::NodeStats(s) => {
            let mut s = (**s).clone();
            for x in s.floats.iter_mut() {
                *x = f(*x);
            }
            Value::NodeStats(Box::new(s))
        }
        other => other.clone(),
    }
}

/// Normalise whole items.
pub fn normalise_items(items: &[Item], ctx: Context) -> Vec<Item> {
    items
        .iter()
        .map(|it| {
            Item::new(
                it.ty,
                if it.ty == DataType::POINTER {
                    it.values.clone()
                } else {
                    it.values.iter().map(|v| normalise(v, ctx, false)).collect()
                },
            )
        })
        .collect()
}

/// Equality that treats NaN as equal to NaN (through Debug).
pub fn same(a: &[Item], b: &[Item]) -> bool {
    format!("{a:?}") == format!("{b:?}")
}

/// Types a component can round-trip at the top level: v12 cannot pack some types at all,
/// and reads a described PROC back as INFO_ARRAY (quirk L1).
pub fn top_level_types(comp: Component, rel: Release) -> Vec<DataType> {
    comp.registered_types(rel)
        .into_iter()
        .filter(|t| {
            !(comp == Component::V12
                && matches!(
                    *t,
                    DataType::POINTER
                        | DataType::INFO_DIRECTIVES
                        | DataType::PROC_STATE
                        | DataType::DATA_ARRAY
                        | DataType::PROC_INFO
                        | DataType::QUERY
                ))
        })
        .collect()
}

/// Types a `pmix_value_t` of the component may carry.
pub fn value_types(ctx: Context) -> Vec<DataType> {
    let mut v: Vec<DataType> = ctx
        .comp
        .registered_types(ctx.rel)
        .into_iter()
        .filter(|t| match ctx.comp.family() {
            Family::Legacy12 => quirks::V12_VALUE_TYPES.contains(t) && *t != DataType::DATA_ARRAY,
            Family::Legacy20 => quirks::V20_VALUE_TYPES.contains(t),
            _ => !quirks::VALUE_REFUSED_TYPES.contains(t) && *t != DataType::DATA_BUFFER,
        })
        .collect();
    if ctx.comp.family() != Family::Legacy12 {
        v.push(DataType::UNDEF);
    }
    v
}
