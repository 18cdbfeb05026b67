//! The JSON value model shared by the golden vectors, the conformance testee protocol and
//! the CLI (documented for vendors in `vectors/README.md`).
//!
//! An item (one pack call) is `{"type": "UINT32", "values": [42]}`. Values: booleans as JSON
//! booleans; integer-valued types as exact JSON integers; STRING as a string or `null`
//! (`{"hex": ...}` when not UTF-8); bytes as `{"hex": "..."}`; DATA_TYPE by name; FLOAT and
//! DOUBLE as numbers (`"nan"`, `"inf"`, `"-inf"` as strings); VALUE as `{"type", "value"}`;
//! INFO as `{"key", "flags", "value": VALUE}`; DATA_ARRAY as `{"type", "values"}`; PROC as
//! `{"nspace", "rank"}`; other structures as objects named after the C struct's fields.

use crate::types::DataType;
use crate::value::*;
use bytes::Bytes;
use serde_json::{json, Map, Value as J};

fn hexs(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
fn unhex(s: &str) -> Result<Vec<u8>, String> {
    if !s.len().is_multiple_of(2) {
        return Err(format!("odd-length hex {s:?}"));
    }
    (0..s.len())
        .step_by(2)
        .map(|i| {
            u8::from_str_radix(s.get(i..i + 2).ok_or("bad hex")?, 16)
                .map_err(|_| format!("bad hex {s:?}"))
        })
        .collect()
}

fn text_j(t: &Text) -> J {
    match t.as_str() {
        Some(s) => J::String(s.to_string()),
        None => json!({ "hex": hexs(&t[..]) }),
    }
}
fn ntext_j(t: &NullableText) -> J {
    t.as_ref().map(text_j).unwrap_or(J::Null)
}
fn bytes_j(b: &[u8]) -> J {
    json!({ "hex": hexs(b) })
}
fn float_j(x: f64) -> J {
    if x.is_nan() {
        J::String("nan".into())
    } else if x.is_infinite() {
        J::String(if x > 0.0 { "inf" } else { "-inf" }.into())
    } else {
        serde_json::Number::from_f64(x)
            .map(J::Number)
            .unwrap_or(J::Null)
    }
}
fn type_j(t: DataType) -> J {
    match t.name() {
        Some(n) => J::String(n.into()),
        None => J::from(t.0),
    }
}
fn proc_j(p: &Proc) -> J {
    json!({ "nspace": text_j(&p.nspace), "rank": p.rank })
}
fn tv_j(t: &Timeval) -> J {
    json!({ "sec": t.sec, "usec": t.usec })
}
fn coord_j(c: &Coord) -> J {
    json!({ "view": c.view, "coord": c.coord })
}
fn info_j(i: &Info) -> J {
    json!({ "key": text_j(&i.key), "flags": i.flags, "value": typed_j(&i.value) })
}
/// A `pmix_value_t` as `{"type": T, "value": v}` (UNDEF has no `value`).
pub fn typed_j(v: &Value) -> J {
    if *v == Value::Undef {
        return json!({ "type": "UNDEF" });
    }
    json!({ "type": type_j(v.data_type()), "value": value_to_json(v) })
}
fn texts_j(v: &[NullableText]) -> J {
    J::Array(v.iter().map(ntext_j).collect())
}

/// One value as JSON (its type is not included; see [`item_to_json`] and [`typed_j`]).
pub fn value_to_json(v: &Value) -> J {
    match v {
        Value::Undef => J::Null,
        Value::Bool(b) => J::Bool(*b),
        Value::Byte(x) | Value::Uint8(x) => J::from(*x),
        Value::Int8(x) => J::from(*x),
        Value::String(t) | Value::ProcCpuset(t) | Value::Topo(t) => ntext_j(t),
        Value::Size(x) | Value::Uint64(x) | Value::Time(x) | Value::Devtype(x) => J::from(*x),
        Value::StorMedium(x) | Value::StorAccess(x) | Value::StorPersist(x) => J::from(*x),
        Value::Pid(x) | Value::Int(x) | Value::Int32(x) | Value::Status(x) => J::from(*x),
        Value::Int16(x) => J::from(*x),
        Value::Int64(x) => J::from(*x),
        Value::Uint(x) | Value::Uint32(x) | Value::ProcRank(x) | Value::InfoDirectives(x) => {
            J::from(*x)
        }
        Value::Uint16(x) | Value::IofChannel(x) | Value::Loctype(x) | Value::StorAccessType(x) => {
            J::from(*x)
        }
        Value::Float(x) => float_j(*x as f64),
        Value::Double(x) => float_j(*x),
        Value::Timeval(t) => tv_j(t),
        Value::Value(inner) => typed_j(inner),
        Value::Proc(p) => proc_j(p),
        Value::App(a) => json!({
            "cmd": ntext_j(&a.cmd), "argv": texts_j(&a.argv), "env": texts_j(&a.env), "cwd": ntext_j(&a.cwd),
            "maxprocs": a.maxprocs, "info": a.info.iter().map(info_j).collect::<Vec<_>>()
        }),
        Value::Info(i) => info_j(i),
        Value::Pdata(p) => {
            json!({ "proc": proc_j(&p.proc), "key": text_j(&p.key), "value": typed_j(&p.value) })
        }
        Value::Buffer(b) => json!({ "type": b.kind, "bytes": bytes_j(&b.bytes) }),
        Value::ByteObject(b)
        | Value::CompressedString(b)
        | Value::CompressedByteObject(b)
        | Value::DataBuffer(b)
        | Value::Modex(b) => bytes_j(b),
        Value::Regex(b) => bytes_j(b),
        Value::Kval(k) => json!({ "key": ntext_j(&k.key), "value": typed_j(&k.value) }),
        Value::Persist(x)
        | Value::Scope(x)
        | Value::DataRange(x)
        | Value::Command(x)
        | Value::ProcState(x)
        | Value::AllocDirective(x)
        | Value::JobState(x)
        | Value::LinkState(x)
        | Value::ResblockDirective(x)
        | Value::AllocInherit(x) => J::from(*x),
        Value::Pointer => J::Null,
        Value::DataType(t) => type_j(*t),
        Value::ProcInfo(p) => json!({
            "proc": proc_j(&p.proc), "hostname": ntext_j(&p.hostname), "executable_name": ntext_j(&p.executable),
            "pid": p.pid, "state": p.state
        }),
        Value::DataArray(d) => {
            json!({ "type": type_j(d.ty), "values": d.values.iter().map(value_to_json).collect::<Vec<_>>() })
        }
        Value::Query(q) => {
            json!({ "keys": texts_j(&q.keys), "qualifiers": q.qualifiers.iter().map(info_j).collect::<Vec<_>>() })
        }
        Value::InfoArray(is) => J::Array(is.iter().map(info_j).collect()),
        Value::Envar(e) => {
            json!({ "envar": ntext_j(&e.name), "value": ntext_j(&e.value), "separator": e.separator })
        }
        Value::Coord(c) => coord_j(c),
        Value::Regattr(r) => {
            json!({ "name": ntext_j(&r.name), "string": text_j(&r.key), "type": r.ty, "description": texts_j(&r.description) })
        }
        Value::Geometry(g) => json!({
            "fabric": g.fabric, "uuid": ntext_j(&g.uuid), "osname": ntext_j(&g.osname),
            "coordinates": g.coordinates.iter().map(coord_j).collect::<Vec<_>>()
        }),
        Value::DeviceDist(d) => {
            json!({ "uuid": ntext_j(&d.uuid), "osname": ntext_j(&d.osname), "type": d.devtype, "mindist": d.mindist, "maxdist": d.maxdist })
        }
        Value::Endpoint(e) => {
            json!({ "uuid": ntext_j(&e.uuid), "osname": ntext_j(&e.osname), "endpt": bytes_j(&e.endpt) })
        }
        Value::ProcNspace(t) => text_j(t),
        Value::ProcStats(p) => json!({
            "node": ntext_j(&p.node), "proc": proc_j(&p.proc), "pid": p.pid, "cmd": ntext_j(&p.cmd), "state": p.state,
            "time": tv_j(&p.time), "priority": p.priority, "num_threads": p.num_threads,
            "pss": float_j(p.pss as f64), "vsize": float_j(p.vsize as f64), "rss": float_j(p.rss as f64),
            "processor": p.processor, "sample_time": tv_j(&p.sample_time)
        }),
        Value::DiskStats(d) => json!({ "disk": ntext_j(&d.disk), "counters": d.counters }),
        Value::NetStats(n) => {
            json!({ "net_interface": ntext_j(&n.interface), "counters": n.counters })
        }
        Value::NodeStats(n) => json!({
            "node": ntext_j(&n.node), "floats": n.floats.iter().map(|f| float_j(*f as f64)).collect::<Vec<_>>(),
            "sample_time": tv_j(&n.sample_time),
            "diskstats": n.diskstats.iter().map(|d| value_to_json(&Value::DiskStats(Box::new(d.clone())))).collect::<Vec<_>>(),
            "netstats": n.netstats.iter().map(|d| value_to_json(&Value::NetStats(Box::new(d.clone())))).collect::<Vec<_>>()
        }),
        Value::Device(d) => {
            json!({ "uuid": ntext_j(&d.uuid), "osname": ntext_j(&d.osname), "type": d.devtype })
        }
        Value::ResourceUnit(r) => json!({ "type": r.devtype, "count": r.count }),
        Value::NodePid(n) => {
            json!({ "hostname": ntext_j(&n.hostname), "nodeid": n.nodeid, "pid": n.pid })
        }
        Value::Regex2(r) => json!({ "type": ntext_j(&r.kind), "regex": bytes_j(&r.regex) }),
    }
}

/// A type as JSON: its name (`"STATUS"`), or its number when it has none (the `type` of
/// [`item_to_json`]).
pub fn type_to_json(t: DataType) -> J {
    type_j(t)
}

/// One pack call as `{"type": T, "values": [...]}`.
pub fn item_to_json(item: &Item) -> J {
    json!({ "type": type_j(item.ty), "values": item.values.iter().map(value_to_json).collect::<Vec<_>>() })
}

// ---- reading ---------------------------------------------------------------------------

/// A JSON model error: what was wrong and where (a JSON-pointer-like path).
pub type JsonError = String;

fn field<'a>(o: &'a J, k: &str) -> Result<&'a J, JsonError> {
    o.as_object()
        .ok_or_else(|| format!("expected an object with {k:?}, got {o}"))?
        .get(k)
        .ok_or_else(|| format!("missing field {k:?} in {o}"))
}
fn int<T: TryFrom<i128>>(j: &J) -> Result<T, JsonError> {
    let v: i128 = if let Some(u) = j.as_u64() {
        u as i128
    } else if let Some(i) = j.as_i64() {
        i as i128
    } else if let Some(v) = j.as_str().and_then(decimal) {
        // an integer given as a decimal string (testees asking `integers_as_strings`)
        v
    } else {
        return Err(format!("expected an integer, got {j}"));
    };
    T::try_from(v).map_err(|_| format!("integer {v} out of range"))
}
/// A decimal integer written as a string (`"18446744073709551615"`, `"-5"`): digits only,
/// an optional leading `-`.
fn decimal(s: &str) -> Option<i128> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    if digits.is_empty() || digits.len() > 20 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}
fn fint<T: TryFrom<i128>>(o: &J, k: &str) -> Result<T, JsonError> {
    int(field(o, k)?).map_err(|e| format!("{k}: {e}"))
}
fn text(j: &J) -> Result<Text, JsonError> {
    match j {
        J::String(s) => Ok(Text::from(s.as_str())),
        J::Object(_) => Ok(Text::from(bytes(j)?)),
        _ => Err(format!("expected a string, got {j}")),
    }
}
fn ntext(j: &J) -> Result<NullableText, JsonError> {
    if j.is_null() {
        Ok(None)
    } else {
        text(j).map(Some)
    }
}
fn ftext(o: &J, k: &str) -> Result<NullableText, JsonError> {
    ntext(field(o, k)?)
}
fn bytes(j: &J) -> Result<Bytes, JsonError> {
    Ok(unhex(field(j, "hex")?.as_str().ok_or("hex must be a string")?)?.into())
}
fn float(j: &J) -> Result<f64, JsonError> {
    match j {
        J::String(s) if s == "nan" => Ok(f64::NAN),
        J::String(s) if s == "inf" => Ok(f64::INFINITY),
        J::String(s) if s == "-inf" => Ok(f64::NEG_INFINITY),
        _ => j
            .as_f64()
            .ok_or_else(|| format!("expected a number, got {j}")),
    }
}
/// Parse a type given by name or number.
pub fn parse_type(j: &J) -> Result<DataType, JsonError> {
    match j {
        J::String(s) => DataType::parse(s).ok_or_else(|| format!("unknown data type {s:?}")),
        _ => Ok(DataType(int(j)?)),
    }
}
fn arr(j: &J) -> Result<&Vec<J>, JsonError> {
    j.as_array()
        .ok_or_else(|| format!("expected an array, got {j}"))
}
fn farr<'a>(o: &'a J, k: &str) -> Result<&'a Vec<J>, JsonError> {
    arr(field(o, k)?)
}
fn texts(o: &J, k: &str) -> Result<Vec<NullableText>, JsonError> {
    farr(o, k)?.iter().map(ntext).collect()
}
fn proc(j: &J) -> Result<Proc, JsonError> {
    Ok(Proc {
        nspace: text(field(j, "nspace")?)?,
        rank: fint(j, "rank")?,
    })
}
fn tv(j: &J) -> Result<Timeval, JsonError> {
    Ok(Timeval {
        sec: fint(j, "sec")?,
        usec: fint(j, "usec")?,
    })
}
fn coord(j: &J) -> Result<Coord, JsonError> {
    Ok(Coord {
        view: fint(j, "view")?,
        coord: farr(j, "coord")?
            .iter()
            .map(int)
            .collect::<Result<_, _>>()?,
    })
}
fn info(j: &J) -> Result<Info, JsonError> {
    Ok(Info {
        key: text(field(j, "key")?)?,
        flags: match j.get("flags") {
            Some(f) => int(f)?,
            None => 0,
        },
        value: typed(field(j, "value")?)?,
    })
}
fn infos(o: &J, k: &str) -> Result<Vec<Info>, JsonError> {
    farr(o, k)?.iter().map(info).collect()
}
/// A `pmix_value_t` from `{"type": T, "value": v}`.
pub fn typed(j: &J) -> Result<Value, JsonError> {
    let t = parse_type(field(j, "type")?)?;
    if t == DataType::UNDEF {
        return Ok(Value::Undef);
    }
    value_from_json(t, field(j, "value")?)
}
fn f32s<const N: usize>(j: &J) -> Result<[f32; N], JsonError> {
    let a = arr(j)?;
    if a.len() != N {
        return Err(format!("expected {N} numbers"));
    }
    let mut out = [0f32; N];
    for (o, x) in out.iter_mut().zip(a) {
        *o = float(x)? as f32;
    }
    Ok(out)
}
fn u64s<const N: usize>(j: &J) -> Result<[u64; N], JsonError> {
    let a = arr(j)?;
    if a.len() != N {
        return Err(format!("expected {N} integers"));
    }
    let mut out = [0u64; N];
    for (o, x) in out.iter_mut().zip(a) {
        *o = int(x)?;
    }
    Ok(out)
}

/// One value of type `ty` from JSON.
pub fn value_from_json(ty: DataType, j: &J) -> Result<Value, JsonError> {
    use Value as V;
    let r = match ty {
        DataType::BOOL => V::Bool(
            j.as_bool()
                .ok_or_else(|| format!("expected a boolean, got {j}"))?,
        ),
        DataType::BYTE => V::Byte(int(j)?),
        DataType::UINT8 => V::Uint8(int(j)?),
        DataType::INT8 => V::Int8(int(j)?),
        DataType::STRING => V::String(ntext(j)?),
        DataType::PROC_CPUSET => V::ProcCpuset(ntext(j)?),
        DataType::TOPO => V::Topo(ntext(j)?),
        DataType::SIZE => V::Size(int(j)?),
        DataType::PID => V::Pid(int(j)?),
        DataType::INT => V::Int(int(j)?),
        DataType::INT16 => V::Int16(int(j)?),
        DataType::INT32 => V::Int32(int(j)?),
        DataType::INT64 => V::Int64(int(j)?),
        DataType::UINT => V::Uint(int(j)?),
        DataType::UINT16 => V::Uint16(int(j)?),
        DataType::UINT32 => V::Uint32(int(j)?),
        DataType::UINT64 => V::Uint64(int(j)?),
        DataType::FLOAT => V::Float(float(j)? as f32),
        DataType::DOUBLE => V::Double(float(j)?),
        DataType::TIMEVAL => V::Timeval(tv(j)?),
        DataType::TIME => V::Time(int(j)?),
        DataType::STATUS => V::Status(int(j)?),
        DataType::VALUE => V::Value(Box::new(typed(j)?)),
        DataType::PROC => V::Proc(proc(j)?),
        DataType::APP => V::App(Box::new(App {
            cmd: ftext(j, "cmd")?,
            argv: texts(j, "argv")?,
            env: texts(j, "env")?,
            cwd: ftext(j, "cwd")?,
            maxprocs: fint(j, "maxprocs")?,
            info: infos(j, "info")?,
        })),
        DataType::INFO => V::Info(Box::new(info(j)?)),
        DataType::PDATA => V::Pdata(Box::new(Pdata {
            proc: proc(field(j, "proc")?)?,
            key: text(field(j, "key")?)?,
            value: typed(field(j, "value")?)?,
        })),
        DataType::BUFFER => V::Buffer(Buffer {
            kind: fint(j, "type")?,
            bytes: bytes(field(j, "bytes")?)?,
        }),
        DataType::BYTE_OBJECT => V::ByteObject(bytes(j)?),
        DataType::COMPRESSED_STRING => V::CompressedString(bytes(j)?),
        DataType::COMPRESSED_BYTE_OBJECT => V::CompressedByteObject(bytes(j)?),
        DataType::DATA_BUFFER => V::DataBuffer(bytes(j)?),
        DataType::MODEX => V::Modex(bytes(j)?),
        DataType::REGEX => V::Regex(bytes(j)?),
        DataType::KVAL => V::Kval(Box::new(Kval {
            key: ftext(j, "key")?,
            value: typed(field(j, "value")?)?,
        })),
        DataType::PERSIST => V::Persist(int(j)?),
        DataType::POINTER => V::Pointer,
        DataType::SCOPE => V::Scope(int(j)?),
        DataType::DATA_RANGE => V::DataRange(int(j)?),
        DataType::COMMAND => V::Command(int(j)?),
        DataType::INFO_DIRECTIVES => V::InfoDirectives(int(j)?),
        DataType::DATA_TYPE => V::DataType(parse_type(j)?),
        DataType::PROC_STATE => V::ProcState(int(j)?),
        DataType::PROC_INFO => V::ProcInfo(Box::new(ProcInfo {
            proc: proc(field(j, "proc")?)?,
            hostname: ftext(j, "hostname")?,
            executable: ftext(j, "executable_name")?,
            pid: fint(j, "pid")?,
            state: fint(j, "state")?,
        })),
        DataType::DATA_ARRAY => {
            let et = parse_type(field(j, "type")?)?;
            let vals = farr(j, "values")?
                .iter()
                .map(|v| value_from_json(et, v))
                .collect::<Result<_, _>>()?;
            V::array(et, vals)
        }
        DataType::PROC_RANK => V::ProcRank(int(j)?),
        DataType::QUERY => V::Query(Box::new(Query {
            keys: texts(j, "keys")?,
            qualifiers: infos(j, "qualifiers")?,
        })),
        DataType::ALLOC_DIRECTIVE => V::AllocDirective(int(j)?),
        DataType::INFO_ARRAY => V::InfoArray(arr(j)?.iter().map(info).collect::<Result<_, _>>()?),
        DataType::IOF_CHANNEL => V::IofChannel(int(j)?),
        DataType::ENVAR => V::Envar(Box::new(Envar {
            name: ftext(j, "envar")?,
            value: ftext(j, "value")?,
            separator: fint(j, "separator")?,
        })),
        DataType::COORD => V::Coord(coord(j)?),
        DataType::REGATTR => V::Regattr(Box::new(Regattr {
            name: ftext(j, "name")?,
            key: text(field(j, "string")?)?,
            ty: fint(j, "type")?,
            description: texts(j, "description")?,
        })),
        DataType::JOB_STATE => V::JobState(int(j)?),
        DataType::LINK_STATE => V::LinkState(int(j)?),
        DataType::GEOMETRY => V::Geometry(Box::new(Geometry {
            fabric: fint(j, "fabric")?,
            uuid: ftext(j, "uuid")?,
            osname: ftext(j, "osname")?,
            coordinates: farr(j, "coordinates")?
                .iter()
                .map(coord)
                .collect::<Result<_, _>>()?,
        })),
        DataType::DEVICE_DIST => V::DeviceDist(Box::new(DeviceDist {
            uuid: ftext(j, "uuid")?,
            osname: ftext(j, "osname")?,
            devtype: fint(j, "type")?,
            mindist: fint(j, "mindist")?,
            maxdist: fint(j, "maxdist")?,
        })),
        DataType::ENDPOINT => V::Endpoint(Box::new(Endpoint {
            uuid: ftext(j, "uuid")?,
            osname: ftext(j, "osname")?,
            endpt: bytes(field(j, "endpt")?)?,
        })),
        DataType::DEVTYPE => V::Devtype(int(j)?),
        DataType::LOCTYPE => V::Loctype(int(j)?),
        DataType::PROC_NSPACE => V::ProcNspace(text(j)?),
        DataType::PROC_STATS => V::ProcStats(Box::new(ProcStats {
            node: ftext(j, "node")?,
            proc: proc(field(j, "proc")?)?,
            pid: fint(j, "pid")?,
            cmd: ftext(j, "cmd")?,
            state: fint(j, "state")?,
            time: tv(field(j, "time")?)?,
            priority: fint(j, "priority")?,
            num_threads: fint(j, "num_threads")?,
            pss: float(field(j, "pss")?)? as f32,
            vsize: float(field(j, "vsize")?)? as f32,
            rss: float(field(j, "rss")?)? as f32,
            processor: fint(j, "processor")?,
            sample_time: tv(field(j, "sample_time")?)?,
        })),
        DataType::DISK_STATS => V::DiskStats(Box::new(DiskStats {
            disk: ftext(j, "disk")?,
            counters: u64s(field(j, "counters")?)?,
        })),
        DataType::NET_STATS => V::NetStats(Box::new(NetStats {
            interface: ftext(j, "net_interface")?,
            counters: u64s(field(j, "counters")?)?,
        })),
        DataType::NODE_STATS => V::NodeStats(Box::new(NodeStats {
            node: ftext(j, "node")?,
            floats: f32s(field(j, "floats")?)?,
            sample_time: tv(field(j, "sample_time")?)?,
            diskstats: farr(j, "diskstats")?
                .iter()
                .map(|d| match value_from_json(DataType::DISK_STATS, d)? {
                    V::DiskStats(d) => Ok(*d),
                    _ => Err("disk".to_string()),
                })
                .collect::<Result<_, _>>()?,
            netstats: farr(j, "netstats")?
                .iter()
                .map(|d| match value_from_json(DataType::NET_STATS, d)? {
                    V::NetStats(d) => Ok(*d),
                    _ => Err("net".to_string()),
                })
                .collect::<Result<_, _>>()?,
        })),
        DataType::STOR_MEDIUM => V::StorMedium(int(j)?),
        DataType::STOR_ACCESS => V::StorAccess(int(j)?),
        DataType::STOR_PERSIST => V::StorPersist(int(j)?),
        DataType::STOR_ACCESS_TYPE => V::StorAccessType(int(j)?),
        DataType::DEVICE => V::Device(Box::new(Device {
            uuid: ftext(j, "uuid")?,
            osname: ftext(j, "osname")?,
            devtype: fint(j, "type")?,
        })),
        DataType::RESBLOCK_DIRECTIVE => V::ResblockDirective(int(j)?),
        DataType::RESOURCE_UNIT => V::ResourceUnit(ResourceUnit {
            devtype: fint(j, "type")?,
            count: fint(j, "count")?,
        }),
        DataType::NODE_PID => V::NodePid(Box::new(NodePid {
            hostname: ftext(j, "hostname")?,
            nodeid: fint(j, "nodeid")?,
            pid: fint(j, "pid")?,
        })),
        DataType::REGEX2 => V::Regex2(Box::new(Regex2 {
            kind: ftext(j, "type")?,
            regex: bytes(field(j, "regex")?)?,
        })),
        DataType::ALLOC_INHERIT => V::AllocInherit(int(j)?),
        other => return Err(format!("no JSON form for data type {other}")),
    };
    Ok(r)
}

/// One pack call from `{"type": T, "values": [...]}`.
pub fn item_from_json(j: &J) -> Result<Item, JsonError> {
    let ty = parse_type(field(j, "type")?)?;
    let values = farr(j, "values")?
        .iter()
        .enumerate()
        .map(|(i, v)| value_from_json(ty, v).map_err(|e| format!("values[{i}]: {e}")))
        .collect::<Result<_, _>>()?;
    Ok(Item { ty, values })
}

/// A list of pack calls.
pub fn items_from_json(j: &J) -> Result<Vec<Item>, JsonError> {
    arr(j)?
        .iter()
        .enumerate()
        .map(|(i, x)| item_from_json(x).map_err(|e| format!("items[{i}]: {e}")))
        .collect()
}

/// A list of pack calls as JSON.
pub fn items_to_json(items: &[Item]) -> J {
    J::Array(items.iter().map(item_to_json).collect())
}

/// Keep `Map` in the public surface for callers building objects by hand.
pub type Object = Map<String, J>;
