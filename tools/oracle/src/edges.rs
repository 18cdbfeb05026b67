//! Edge values of every value-carrying type, crossed with every context that carries it.
//!
//! Nothing here is listed by hand per type. The edges of a type are found from its JSON
//! value model ([`pmix_codec::json`]): take a corpus sample of the type, walk its JSON to
//! every leaf (the value itself for a scalar, each field for a struct), put each candidate
//! edge of the leaf's class there, and keep what the type's own parser accepts unchanged.
//! An integer leaf thereby gets exactly the limits and flex-integer length boundaries of
//! its width and signedness, a text leaf NULL, empty and the varint length boundaries, a
//! byte leaf the same lengths, a float leaf its specials. A new type, or a new field, is
//! covered as soon as the corpus has a sample of it.
//!
//! The contexts ([`CONTEXTS`]) wrap values: the top level, a VALUE, an INFO, a KVAL, a
//! PDATA, a DATA_ARRAY, an INFO_ARRAY, an APP's and a QUERY's info list, and two nestings
//! (a DATA_ARRAY of DATA_ARRAYs, a VALUE holding a DATA_ARRAY of INFOs). A context holds a
//! type when the component registers the wrapper and the release profile packs the wrapped
//! value (the codec is the release's profile; the differential suite checks it against
//! every available library).
//!
//! One case per (type, context) packs all of the type's edges in one call, so the vector
//! count stays near (types x contexts) per file. The top level carries every edge; the
//! other contexts carry every edge of scalar types and, for struct types, each field's
//! extremes (long texts and byte strings only at the top level). A value the profile
//! refuses in a context gets a case of its own, so one refusal never hides the rest.

use crate::corpus::{self, Case};
use pmix_codec::json::{value_from_json, value_to_json};
use pmix_codec::quirks;
use pmix_codec::*;
use serde_json::Value as J;

/// A place a value can be carried in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Context {
    /// The pack call's own type.
    Top,
    /// A `pmix_value_t`.
    Value,
    /// An INFO's value.
    Info,
    /// A KVAL's value.
    Kval,
    /// A PDATA's value.
    Pdata,
    /// The elements of a DATA_ARRAY.
    DataArray,
    /// An INFO inside an INFO_ARRAY.
    InfoArray,
    /// An INFO in an APP's info list.
    AppInfo,
    /// An INFO in a QUERY's qualifiers.
    QueryQualifier,
    /// A DATA_ARRAY whose elements are DATA_ARRAYs of the type.
    NestedDataArray,
    /// A VALUE holding a DATA_ARRAY of INFOs holding the value.
    InfoInValueArray,
}

/// Every context, in case order.
pub const CONTEXTS: &[Context] = &[
    Context::Top,
    Context::Value,
    Context::Info,
    Context::Kval,
    Context::Pdata,
    Context::DataArray,
    Context::InfoArray,
    Context::AppInfo,
    Context::QueryQualifier,
    Context::NestedDataArray,
    Context::InfoInValueArray,
];

impl Context {
    /// The name used in case names (`edge.<TYPE>.<context>`).
    pub fn name(self) -> &'static str {
        match self {
            Context::Top => "top",
            Context::Value => "value",
            Context::Info => "info",
            Context::Kval => "kval",
            Context::Pdata => "pdata",
            Context::DataArray => "darray",
            Context::InfoArray => "info-array",
            Context::AppInfo => "app-info",
            Context::QueryQualifier => "query-qualifier",
            Context::NestedDataArray => "darray-of-darray",
            Context::InfoInValueArray => "value-darray-info",
        }
    }

    /// The type of the pack call that carries a value in this context.
    pub fn wrapper(self, ty: DataType) -> DataType {
        match self {
            Context::Top => ty,
            Context::Value | Context::InfoInValueArray => DataType::VALUE,
            Context::Info => DataType::INFO,
            Context::Kval => DataType::KVAL,
            Context::Pdata => DataType::PDATA,
            Context::DataArray | Context::NestedDataArray => DataType::DATA_ARRAY,
            Context::InfoArray => DataType::INFO_ARRAY,
            Context::AppInfo => DataType::APP,
            Context::QueryQualifier => DataType::QUERY,
        }
    }

    /// The core contexts carry every edge (of a struct type, each field's extremes); the
    /// others carry a fifth of a scalar type's edges each (together all of them) and a
    /// struct type's first sample: every (type, context) pair, without multiplying bytes.
    pub fn is_core(self) -> bool {
        matches!(
            self,
            Context::Top
                | Context::Value
                | Context::Info
                | Context::Kval
                | Context::DataArray
                | Context::InfoArray
        )
    }

    /// Whether the context goes through a `pmix_value_t` (VALUE, INFO, KVAL, PDATA, ...).
    pub fn is_typed_value(self) -> bool {
        !matches!(
            self,
            Context::Top | Context::DataArray | Context::NestedDataArray
        )
    }
}

fn info_of(v: &Value) -> Info {
    Info::new("pmix.edge", v.clone())
}

/// One pack call carrying `vals` (all of type `ty`) in `ctx`.
pub fn wrap(ctx: Context, ty: DataType, vals: &[Value]) -> Item {
    let infos = || vals.iter().map(info_of).collect::<Vec<_>>();
    let each = |f: &dyn Fn(&Value) -> Value| vals.iter().map(f).collect::<Vec<_>>();
    match ctx {
        Context::Top => Item::new(ty, vals.to_vec()),
        Context::Value => Item::new(
            DataType::VALUE,
            each(&|v| Value::Value(Box::new(v.clone()))),
        ),
        Context::Info => Item::new(DataType::INFO, each(&|v| Value::Info(Box::new(info_of(v))))),
        Context::Kval => Item::new(
            DataType::KVAL,
            each(&|v| {
                Value::Kval(Box::new(Kval {
                    key: Some("pmix.edge".into()),
                    value: v.clone(),
                }))
            }),
        ),
        Context::Pdata => Item::new(
            DataType::PDATA,
            each(&|v| {
                Value::Pdata(Box::new(Pdata {
                    proc: Proc {
                        nspace: "ns".into(),
                        rank: 1,
                    },
                    key: "pmix.edge".into(),
                    value: v.clone(),
                }))
            }),
        ),
        Context::DataArray => Item::one(Value::array(ty, vals.to_vec())),
        Context::InfoArray => Item::one(Value::InfoArray(infos())),
        Context::AppInfo => Item::one(Value::App(Box::new(App {
            cmd: Some("cmd".into()),
            argv: vec![],
            env: vec![],
            cwd: None,
            maxprocs: 1,
            info: infos(),
        }))),
        Context::QueryQualifier => Item::one(Value::Query(Box::new(Query {
            keys: vec![Some("k".into())],
            qualifiers: infos(),
        }))),
        Context::NestedDataArray => Item::one(Value::array(
            DataType::DATA_ARRAY,
            vec![Value::array(ty, vals.to_vec())],
        )),
        Context::InfoInValueArray => Item::one(Value::Value(Box::new(Value::array(
            DataType::INFO,
            vals.iter()
                .map(|v| Value::Info(Box::new(info_of(v))))
                .collect(),
        )))),
    }
}

/// Types whose packing depends on more than the bytes given (a preg framing, a compressor,
/// a topology or cpuset library, a sentinel): their corpus samples are used as they are,
/// not mutated.
const NOT_MUTATED: &[DataType] = &[
    DataType::POINTER,
    DataType::REGEX,
    DataType::COMPRESSED_STRING,
    DataType::COMPRESSED_BYTE_OBJECT,
    DataType::TOPO,
    DataType::PROC_CPUSET,
    DataType::DATA_TYPE,
];

/// Types that are themselves containers (their contents are the contexts above) and are
/// not crossed here: their own edges come from the corpus and the nesting families.
const CONTAINERS: &[DataType] = &[
    DataType::VALUE,
    DataType::INFO,
    DataType::KVAL,
    DataType::PDATA,
    DataType::DATA_ARRAY,
    DataType::INFO_ARRAY,
    DataType::APP,
    DataType::QUERY,
    DataType::BUFFER,
];

/// The integer edges tried in an integer leaf: every width's limits (and one inside), and
/// both sides of every flex-integer length boundary, unsigned (2^7k) and zigzag (±2^(7k-1)).
pub fn integer_candidates() -> Vec<i128> {
    let mut v: Vec<i128> = vec![0, 1, -1, 2, -2];
    for bits in [8u32, 16, 32, 64] {
        let umax = (1i128 << bits) - 1;
        let smax = (1i128 << (bits - 1)) - 1;
        let smin = -(1i128 << (bits - 1));
        v.extend([umax, umax - 1, smax, smax + 1, smin, smin + 1]);
    }
    for k in 1..=9u32 {
        let b = 1i128 << (7 * k);
        v.extend([b - 1, b]);
        let z = 1i128 << (7 * k - 1);
        v.extend([z - 1, z, -z, -z - 1]);
    }
    v.retain(|&x| x >= i64::MIN as i128 && x <= u64::MAX as i128);
    v.sort();
    v.dedup();
    v
}

/// The text lengths tried in a text or byte leaf: the varint length boundaries.
const LENGTHS: &[usize] = &[0, 1, 127, 128, 255, 256, 16383, 16384];

/// The lengths for a leaf: all of them for a text or byte type of a flex-integer
/// component, the short ones for a struct's field (the long ones are the same length
/// field, only bigger vectors) and where lengths are fixed-width integers.
fn lengths(scalar: bool) -> impl Iterator<Item = usize> {
    LENGTHS.iter().copied().filter(move |&n| scalar || n < LONG)
}
/// Text fields the C structs hold in fixed arrays, and their longest text: a longer one
/// is cut by the library when the struct is built (`pmix_nspace_t`, `pmix_key_t`), before
/// any byte is packed, so it is not a wire edge.
const BOUNDED_TEXT: &[(&str, usize)] = &[("nspace", 255), ("string", 511)];

/// Lengths carried only at the top level (they make a vector large).
const LONG: usize = 1000;

fn float_candidates() -> Vec<J> {
    let mut v: Vec<J> = ["nan", "inf", "-inf"].iter().map(|s| J::from(*s)).collect();
    for f in [
        0.0f64,
        -0.0,
        1e-7,
        -1e-7,
        0.5e-6,
        999_999.999_999_5,
        f32::MAX as f64,
        f32::MIN_POSITIVE as f64,
        -(f32::MAX as f64),
        1e300,
        f64::MIN_POSITIVE,
        5e-324,
        f64::MAX,
        f64::MIN,
    ] {
        v.push(J::from(f));
    }
    v
}

/// The candidate leaves tried where `leaf` is; each is tagged "long" when it is only for
/// the top level.
fn candidates(leaf: &J, scalar: bool) -> Vec<(J, bool)> {
    match leaf {
        J::Bool(_) => vec![(J::Bool(false), false), (J::Bool(true), false)],
        J::Number(n) if n.is_f64() => float_candidates().into_iter().map(|c| (c, false)).collect(),
        J::Number(_) => integer_candidates()
            .into_iter()
            .map(|i| {
                let j = if i < 0 {
                    J::from(i as i64)
                } else {
                    J::from(i as u64)
                };
                (j, false)
            })
            .collect(),
        J::String(_) | J::Null => {
            let mut v = vec![(J::Null, false)];
            v.extend(lengths(scalar).map(|n| (J::from("s".repeat(n)), n >= LONG)));
            v
        }
        J::Object(o) if o.len() == 1 && o.contains_key("hex") => lengths(scalar)
            .map(|n| (serde_json::json!({ "hex": "a5".repeat(n) }), n >= LONG))
            .collect(),
        _ => vec![],
    }
}

/// Paths to every leaf of `j` (object keys and array indexes), hex objects counting as one leaf.
fn leaves(j: &J, path: &mut Vec<J>, out: &mut Vec<Vec<J>>) {
    match j {
        J::Object(o) if !(o.len() == 1 && o.contains_key("hex")) => {
            for (k, v) in o {
                path.push(J::from(k.as_str()));
                leaves(v, path, out);
                path.pop();
            }
        }
        J::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                path.push(J::from(i));
                leaves(v, path, out);
                path.pop();
            }
        }
        _ => out.push(path.clone()),
    }
}

fn at<'a>(j: &'a mut J, path: &[J]) -> &'a mut J {
    path.iter().fold(j, |j, p| match p {
        J::String(k) => &mut j[k.as_str()],
        _ => &mut j[p.as_u64().unwrap_or(0) as usize],
    })
}

/// One edge value: the value, whether it is only for the top level, and whether it is an
/// extreme of its leaf (carried in every context even for struct types).
#[derive(Clone, Debug)]
pub struct Edge {
    /// The value.
    pub value: Value,
    /// Long text or bytes: carried at the top level only.
    pub long: bool,
    /// The first or last accepted candidate of its leaf, or any edge of a scalar type.
    pub extreme: bool,
}

/// The edges of `ty` for `comp` in `rel`, derived from its corpus samples (see the module doc).
pub fn edges(ty: DataType, comp: Component, rel: Release) -> Vec<Edge> {
    let samples = corpus::samples(ty, comp, rel);
    let mut out: Vec<Edge> = vec![];
    let mut seen = std::collections::HashSet::new();
    let mut push = |out: &mut Vec<Edge>, value: Value, long: bool, extreme: bool| {
        if seen.insert(value_to_json(&value).to_string()) {
            out.push(Edge {
                value,
                long,
                extreme,
            });
        }
    };
    if NOT_MUTATED.contains(&ty) {
        for s in samples {
            push(&mut out, s, false, true);
        }
        return out;
    }
    let Some(base) = samples.first() else {
        return out;
    };
    let base_j = value_to_json(base);
    let mut paths = vec![];
    leaves(&base_j, &mut vec![], &mut paths);
    let scalar = paths.len() == 1 && paths[0].is_empty();
    for path in paths {
        let mut leaf = base_j.clone();
        let leaf = at(&mut leaf, &path);
        let float_leaf = matches!(leaf, J::Number(n) if n.is_f64());
        let mut cands = candidates(leaf, scalar && comp.family() == Family::Modern);
        let bound = BOUNDED_TEXT
            .iter()
            .find(|(name, _)| {
                path.last().and_then(J::as_str) == Some(*name)
                    || (ty == DataType::PROC_NSPACE && *name == "nspace")
            })
            .map(|b| b.1);
        if let Some(max) = bound {
            cands.retain(|(c, _)| c.as_str().is_none_or(|s| s.len() <= max));
        }
        let mut accepted = vec![];
        for (c, long) in cands {
            let mut j = base_j.clone();
            *at(&mut j, &path) = c.clone();
            let Ok(v) = value_from_json(ty, &j) else {
                continue;
            };
            // Only exact edges: the parser must not have narrowed an integer or a text
            // (floats are judged by their own rounding).
            let exact = float_leaf || *at(&mut value_to_json(&v), &path) == c;
            if exact {
                accepted.push((v, long));
            }
        }
        let n = accepted.len();
        for (i, (v, long)) in accepted.into_iter().enumerate() {
            let extreme = scalar || i == 0 || i + 1 == n || long;
            push(&mut out, v, long, extreme);
        }
    }
    out
}

/// (type, context) pairs of the v20/v21/v3 components packed one value per call: with more
/// values in one call, what the library packs or reads back depends on memory next to the
/// value, not on the value (found by these families against 4.2.2; see CHANGELOG):
///
/// * an INFO_ARRAY of BOOL or COMPRESSED_STRING infos: the receiver reads the elements as
///   VALUEs (quirk U11), and from the second element on the library's answer and the
///   profile's model of it differ (open).
fn one_per_call(ctx: Context, ty: DataType, comp: Component) -> bool {
    let legacy = matches!(comp.family(), Family::Legacy20 | Family::Converged);
    legacy
        && ctx == Context::InfoArray
        && matches!(ty, DataType::BOOL | DataType::COMPRESSED_STRING)
}

/// Whether the profile of `comp` in `rel` may put `ty` in `ctx` at all (registration and
/// the value tables; whether it packs each value is asked of the codec).
pub fn holds(ctx: Context, ty: DataType, comp: Component, rel: Release) -> bool {
    let reg = |t: DataType| comp.registers(t, rel);
    if !reg(ctx.wrapper(ty)) || !reg(ty) {
        return false;
    }
    if ctx.is_typed_value() {
        let allowed = match comp.family() {
            Family::Legacy12 => quirks::V12_VALUE_TYPES.contains(&ty),
            Family::Legacy20 => quirks::V20_VALUE_TYPES.contains(&ty),
            _ => !quirks::VALUE_REFUSED_TYPES.contains(&ty) && ty != DataType::DATA_BUFFER,
        };
        // v21/v3 treat a value's MODEX as a `pmix_modex_data_t`, larger than the value's
        // union: what they pack and read back depends on the memory after the value, one
        // value per call included (found here against every release; see CHANGELOG).
        let modex_overread = ty == DataType::MODEX && comp.family() == Family::Converged;
        // v20 reads a PERSIST value with the PROC unpacker through the value's pointer
        // (quirk U12); in a KVAL or PDATA that pointer is not initialised, and whether the
        // library crashes changes from run to run.
        let persist_via_pointer = ty == DataType::PERSIST
            && comp.family() == Family::Legacy20
            && matches!(ctx, Context::Kval | Context::Pdata);
        if !allowed || modex_overread || persist_via_pointer {
            return false;
        }
    }
    match ctx {
        Context::InfoInValueArray | Context::NestedDataArray => {
            reg(DataType::DATA_ARRAY) && comp.family() != Family::Legacy12
        }
        Context::DataArray => comp.family() != Family::Legacy12 || ty == DataType::INFO,
        _ => true,
    }
}

/// Every edge case of `comp` in `rel`: one per (type, context) the profile packs, plus one
/// per value it refuses there. Names are `edge.<TYPE>.<context>` (`.<n>` for refused values).
pub fn edge_cases(comp: Component, rel: Release) -> Vec<Case> {
    let codec = Codec::new(comp, BufferKind::NonDescribed).with_release(rel);
    let packs = |item: &Item| codec.encode(std::slice::from_ref(item)).is_ok();
    let mut out = vec![];
    for ty in comp.registered_types(rel) {
        if CONTAINERS.contains(&ty) {
            continue;
        }
        let all = edges(ty, comp, rel);
        if all.is_empty() {
            continue;
        }
        for &ctx in CONTEXTS {
            if !holds(ctx, ty, comp, rel) {
                continue;
            }
            let scalar = all.iter().all(|e| e.extreme);
            let short: Vec<&Edge> = all.iter().filter(|e| !e.long).collect();
            let vals: Vec<&Edge> = match ctx {
                Context::Top => all.iter().collect(),
                c if c.is_core() => short.into_iter().filter(|e| e.extreme).collect(),
                // beyond the core: a struct type's first sample; a scalar type's first and
                // last edges and a fifth of the others, in turn, so that the extended
                // contexts together carry every edge
                _ if !scalar => short.into_iter().take(1).collect(),
                c => {
                    let turn = CONTEXTS.iter().position(|&x| x == c).unwrap_or(0);
                    let last = short.len().saturating_sub(1);
                    short
                        .into_iter()
                        .enumerate()
                        .filter(|(i, _)| *i == 0 || *i == last || i % 5 == turn % 5)
                        .map(|(_, e)| e)
                        .collect()
                }
            };
            let (good, refused): (Vec<&Edge>, Vec<&Edge>) = vals
                .into_iter()
                .partition(|e| packs(&wrap(ctx, ty, std::slice::from_ref(&e.value))));
            let name = format!("edge.{ty}.{}", ctx.name());
            let single = (ctx == Context::Top && corpus::single_value_only(ty, comp))
                || one_per_call(ctx, ty, comp);
            if single {
                for (i, e) in good.iter().enumerate() {
                    out.push(Case {
                        name: format!("{name}.{i}"),
                        items: vec![wrap(ctx, ty, std::slice::from_ref(&e.value))],
                    });
                }
            } else if !good.is_empty() {
                let values: Vec<Value> = good.iter().map(|e| e.value.clone()).collect();
                out.push(Case {
                    name,
                    items: vec![wrap(ctx, ty, &values)],
                });
            }
            for (i, e) in refused.iter().enumerate() {
                out.push(Case {
                    name: format!("edge.{ty}.{}.refused{i}", ctx.name()),
                    items: vec![wrap(ctx, ty, std::slice::from_ref(&e.value))],
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_edges_follow_the_width() {
        let e = edges(DataType::UINT16, Component::V41, Release::OpenPmix4_2);
        let vals: Vec<u16> = e
            .iter()
            .map(|e| match e.value {
                Value::Uint16(x) => x,
                _ => panic!("not a UINT16"),
            })
            .collect();
        for x in [0, 1, 127, 128, 16383, 16384, 65535] {
            assert!(vals.contains(&x), "{x} missing from {vals:?}");
        }
        let e = edges(DataType::INT64, Component::V61, Release::OpenPmix6_1);
        let has = |x: i64| e.iter().any(|e| e.value == Value::Int64(x));
        for x in [
            i64::MIN,
            i64::MAX,
            -64,
            -65,
            63,
            64,
            1 << 55,
            -(1 << 55) - 1,
        ] {
            assert!(has(x), "{x} missing");
        }
    }

    #[test]
    fn struct_fields_get_their_edges() {
        let e = edges(DataType::PROC, Component::V41, Release::OpenPmix4_2);
        assert!(e.iter().any(|e| e.value == Value::proc("ns", u32::MAX)));
        assert!(e.iter().any(|e| e.value == Value::proc("ns", 1 << 28)));
        assert!(e
            .iter()
            .any(|e| e.value == Value::proc(&"s".repeat(128), RANK)));
    }
    const RANK: u32 = corpus::RANK_WILDCARD;

    #[test]
    fn every_type_and_context_pair_appears() {
        for rel in [Release::OpenPmix4_2, Release::OpenPmix6_1] {
            for comp in rel.components() {
                let cases = edge_cases(*comp, rel);
                for ty in comp.registered_types(rel) {
                    if CONTAINERS.contains(&ty) || edges(ty, *comp, rel).is_empty() {
                        continue;
                    }
                    for &ctx in CONTEXTS {
                        if !holds(ctx, ty, *comp, rel) {
                            continue;
                        }
                        let name = format!("edge.{ty}.{}", ctx.name());
                        assert!(
                            cases.iter().any(|c| c.name.starts_with(&name)),
                            "{comp} {rel}: no case {name}"
                        );
                    }
                }
            }
        }
    }
}
