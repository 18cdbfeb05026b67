//! `arbitrary` value trees that are valid for a component (the same space as the proptest
//! strategies of `codec/tests/roundtrip.rs`), built from the fuzzer's bytes.

use arbitrary::{Result, Unstructured};
use pmix_codec::*;

use crate::Ctx;

fn text(u: &mut Unstructured) -> Result<Text> {
    let n = u.int_in_range(0..=12usize)?;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        v.push(u.int_in_range(1..=255u8)?);
    }
    Ok(Text::from(v))
}
fn ntext(u: &mut Unstructured) -> Result<NullableText> {
    Ok(if u.ratio(1, 5)? { None } else { Some(text(u)?) })
}
fn bytes(u: &mut Unstructured) -> Result<pmix_codec::Bytes> {
    let n = u.int_in_range(0..=12usize)?;
    Ok(pmix_codec::Bytes::copy_from_slice(u.bytes(n)?))
}
fn few<T>(
    u: &mut Unstructured,
    max: usize,
    mut f: impl FnMut(&mut Unstructured) -> Result<T>,
) -> Result<Vec<T>> {
    let n = u.int_in_range(0..=max)?;
    (0..n).map(|_| f(u)).collect()
}
fn proc(u: &mut Unstructured) -> Result<Proc> {
    Ok(Proc {
        nspace: text(u)?,
        rank: u.arbitrary()?,
    })
}
fn tv(u: &mut Unstructured) -> Result<Timeval> {
    Ok(Timeval {
        sec: u.arbitrary()?,
        usec: u.arbitrary()?,
    })
}
fn coord(u: &mut Unstructured) -> Result<Coord> {
    Ok(Coord {
        view: u.arbitrary()?,
        coord: few(u, 3, |u| u.arbitrary())?,
    })
}
fn f32v(u: &mut Unstructured) -> Result<f32> {
    Ok(if u.arbitrary()? {
        f32::from_bits(u.arbitrary()?)
    } else {
        u.int_in_range(-1_000_000i32..=1_000_000)? as f32 / 64.0
    })
}
fn f64v(u: &mut Unstructured) -> Result<f64> {
    Ok(if u.arbitrary()? {
        f64::from_bits(u.arbitrary()?)
    } else {
        u.int_in_range(-1_000_000_000i64..=1_000_000_000)? as f64 / 1024.0
    })
}

fn typed_value(u: &mut Unstructured, ctx: Ctx, depth: u32) -> Result<Value> {
    let tys = crate::value_types(ctx);
    let t = *u.choose(&tys)?;
    if t == DataType::UNDEF {
        Ok(Value::Undef)
    } else {
        arb(u, t, ctx, depth + 1)
    }
}

fn info(u: &mut Unstructured, ctx: Ctx, depth: u32) -> Result<Info> {
    Ok(Info {
        key: text(u)?,
        flags: u.arbitrary()?,
        value: typed_value(u, ctx, depth)?,
    })
}

fn infos(u: &mut Unstructured, ctx: Ctx, depth: u32) -> Result<Vec<Info>> {
    few(u, if depth > 3 { 0 } else { 2 }, |u| info(u, ctx, depth))
}

/// An arbitrary value of `ty`, valid for the component.
pub fn arb(u: &mut Unstructured, ty: DataType, ctx: Ctx, depth: u32) -> Result<Value> {
    use Value as V;
    let deep = depth > 2;
    Ok(match ty {
        DataType::BOOL => V::Bool(u.arbitrary()?),
        DataType::BYTE => V::Byte(u.arbitrary()?),
        DataType::UINT8 => V::Uint8(u.arbitrary()?),
        DataType::INT8 => V::Int8(u.arbitrary()?),
        DataType::STRING => V::String(ntext(u)?),
        DataType::SIZE => V::Size(u.arbitrary()?),
        DataType::PID => V::Pid(u.arbitrary()?),
        DataType::INT => V::Int(u.arbitrary()?),
        DataType::UINT => V::Uint(u.arbitrary()?),
        DataType::INT16 => V::Int16(u.arbitrary()?),
        DataType::INT32 => V::Int32(u.arbitrary()?),
        DataType::INT64 => V::Int64(u.arbitrary()?),
        DataType::UINT16 => V::Uint16(u.arbitrary()?),
        DataType::UINT32 => V::Uint32(u.arbitrary()?),
        DataType::UINT64 => V::Uint64(u.arbitrary()?),
        DataType::FLOAT => V::Float(f32v(u)?),
        DataType::DOUBLE => V::Double(f64v(u)?),
        DataType::TIMEVAL => V::Timeval(tv(u)?),
        DataType::TIME => V::Time(u.arbitrary()?),
        DataType::STATUS => V::Status(u.arbitrary()?),
        DataType::VALUE => V::Value(Box::new(typed_value(u, ctx, depth)?)),
        DataType::PROC => V::Proc(proc(u)?),
        DataType::APP => V::App(Box::new(App {
            cmd: ntext(u)?,
            // NULL-terminated lists in C: no NULL elements (quirk U17)
            argv: few(u, 2, |u| text(u).map(Some))?,
            env: few(u, 2, |u| text(u).map(Some))?,
            cwd: ntext(u)?,
            maxprocs: u.arbitrary()?,
            info: infos(u, ctx, depth)?,
        })),
        DataType::INFO => V::Info(Box::new(info(u, ctx, depth)?)),
        DataType::PDATA => V::Pdata(Box::new(Pdata {
            proc: proc(u)?,
            key: text(u)?,
            value: typed_value(u, ctx, depth)?,
        })),
        DataType::BUFFER => V::Buffer(Buffer {
            kind: u.arbitrary()?,
            bytes: bytes(u)?,
        }),
        DataType::BYTE_OBJECT => V::ByteObject(bytes(u)?),
        DataType::KVAL => V::Kval(Box::new(Kval {
            key: ntext(u)?,
            value: typed_value(u, ctx, depth)?,
        })),
        DataType::MODEX => V::Modex(bytes(u)?),
        DataType::PERSIST => V::Persist(u.arbitrary()?),
        DataType::POINTER => V::Pointer,
        DataType::SCOPE => V::Scope(u.arbitrary()?),
        DataType::DATA_RANGE => V::DataRange(u.arbitrary()?),
        DataType::COMMAND => V::Command(u.arbitrary()?),
        DataType::INFO_DIRECTIVES => V::InfoDirectives(u.arbitrary()?),
        DataType::DATA_TYPE => V::DataType(DataType(u.arbitrary()?)),
        DataType::PROC_STATE => V::ProcState(u.arbitrary()?),
        DataType::PROC_INFO => V::ProcInfo(Box::new(ProcInfo {
            proc: proc(u)?,
            hostname: ntext(u)?,
            executable: ntext(u)?,
            pid: u.arbitrary()?,
            state: u.arbitrary()?,
        })),
        DataType::DATA_ARRAY => {
            if depth > 5 || u.ratio(1, 9)? {
                V::array(DataType::UNDEF, vec![])
            } else {
                let tys: Vec<DataType> = ctx
                    .comp
                    .registered_types(ctx.rel)
                    .into_iter()
                    .filter(|t| *t != DataType::REGEX && (!deep || *t != DataType::DATA_ARRAY))
                    .collect();
                let et = *u.choose(&tys)?;
                let vals = few(u, 2, |u| arb(u, et, ctx, depth + 1))?;
                V::array(
                    et,
                    if et == DataType::POINTER {
                        vec![]
                    } else {
                        vals
                    },
                )
            }
        }
        DataType::PROC_RANK => V::ProcRank(u.arbitrary()?),
        DataType::QUERY => V::Query(Box::new(Query {
            keys: few(u, 2, ntext)?,
            qualifiers: infos(u, ctx, depth)?,
        })),
        DataType::COMPRESSED_STRING => V::CompressedString(bytes(u)?),
        DataType::ALLOC_DIRECTIVE => V::AllocDirective(u.arbitrary()?),
        DataType::INFO_ARRAY => V::InfoArray(infos(u, ctx, depth)?),
        DataType::IOF_CHANNEL => V::IofChannel(u.arbitrary()?),
        DataType::ENVAR => V::Envar(Box::new(Envar {
            name: ntext(u)?,
            value: ntext(u)?,
            separator: u.arbitrary()?,
        })),
        DataType::COORD => V::Coord(coord(u)?),
        DataType::REGATTR => V::Regattr(Box::new(Regattr {
            name: ntext(u)?,
            key: text(u)?,
            ty: u.arbitrary()?,
            description: few(u, 2, ntext)?,
        })),
        DataType::REGEX => {
            let mut b = b"raw:".to_vec();
            b.extend_from_slice(&text(u)?);
            b.push(0);
            V::Regex(b.into())
        }
        DataType::JOB_STATE => V::JobState(u.arbitrary()?),
        DataType::LINK_STATE => V::LinkState(u.arbitrary()?),
        DataType::PROC_CPUSET => V::ProcCpuset(ntext(u)?),
        DataType::GEOMETRY => V::Geometry(Box::new(Geometry {
            fabric: u.arbitrary()?,
            uuid: ntext(u)?,
            osname: ntext(u)?,
            coordinates: few(u, 2, coord)?,
        })),
        DataType::DEVICE_DIST => V::DeviceDist(Box::new(DeviceDist {
            uuid: ntext(u)?,
            osname: ntext(u)?,
            devtype: u.arbitrary()?,
            mindist: u.arbitrary()?,
            maxdist: u.arbitrary()?,
        })),
        DataType::ENDPOINT => V::Endpoint(Box::new(Endpoint {
            uuid: ntext(u)?,
            osname: ntext(u)?,
            endpt: bytes(u)?,
        })),
        DataType::TOPO => V::Topo(ntext(u)?),
        DataType::DEVTYPE => V::Devtype(u.arbitrary()?),
        DataType::LOCTYPE => V::Loctype(u.arbitrary()?),
        DataType::COMPRESSED_BYTE_OBJECT => V::CompressedByteObject(bytes(u)?),
        DataType::PROC_NSPACE => V::ProcNspace(text(u)?),
        DataType::PROC_STATS => {
            let pss = f32v(u)?;
            V::ProcStats(Box::new(ProcStats {
                node: ntext(u)?,
                proc: proc(u)?,
                pid: u.arbitrary()?,
                cmd: ntext(u)?,
                state: u.arbitrary()?,
                time: tv(u)?,
                priority: u.arbitrary()?,
                num_threads: u.arbitrary()?,
                pss,
                vsize: f32v(u)?,
                rss: f32v(u)?,
                processor: u.arbitrary()?,
                sample_time: tv(u)?,
            }))
        }
        DataType::DISK_STATS => V::DiskStats(Box::new(DiskStats {
            disk: ntext(u)?,
            counters: u.arbitrary()?,
        })),
        DataType::NET_STATS => V::NetStats(Box::new(NetStats {
            interface: ntext(u)?,
            counters: u.arbitrary()?,
        })),
        DataType::NODE_STATS => {
            let mut floats = [0f32; 11];
            for f in floats.iter_mut() {
                *f = f32v(u)?;
            }
            V::NodeStats(Box::new(NodeStats {
                node: ntext(u)?,
                floats,
                sample_time: tv(u)?,
                diskstats: few(u, 1, |u| {
                    Ok(DiskStats {
                        disk: ntext(u)?,
                        counters: u.arbitrary()?,
                    })
                })?,
                netstats: few(u, 1, |u| {
                    Ok(NetStats {
                        interface: ntext(u)?,
                        counters: u.arbitrary()?,
                    })
                })?,
            }))
        }
        DataType::DATA_BUFFER => V::DataBuffer(bytes(u)?),
        DataType::STOR_MEDIUM => V::StorMedium(u.arbitrary()?),
        DataType::STOR_ACCESS => V::StorAccess(u.arbitrary()?),
        DataType::STOR_PERSIST => V::StorPersist(u.arbitrary()?),
        DataType::STOR_ACCESS_TYPE => V::StorAccessType(u.arbitrary()?),
        DataType::DEVICE => V::Device(Box::new(Device {
            uuid: ntext(u)?,
            osname: ntext(u)?,
            devtype: u.arbitrary()?,
        })),
        DataType::RESBLOCK_DIRECTIVE => V::ResblockDirective(u.arbitrary()?),
        DataType::RESOURCE_UNIT => V::ResourceUnit(ResourceUnit {
            devtype: u.arbitrary()?,
            count: u.arbitrary()?,
        }),
        DataType::NODE_PID => V::NodePid(Box::new(NodePid {
            hostname: ntext(u)?,
            nodeid: u.arbitrary()?,
            pid: u.arbitrary()?,
        })),
        DataType::REGEX2 => V::Regex2(Box::new(Regex2 {
            kind: ntext(u)?,
            regex: bytes(u)?,
        })),
        DataType::ALLOC_INHERIT => V::AllocInherit(u.arbitrary()?),
        _ => return Err(arbitrary::Error::IncorrectFormat),
    })
}

/// A codec and 1..=4 pack calls of values valid for it.
pub fn arb_items(u: &mut Unstructured) -> Result<(Codec, Vec<Item>)> {
    let comp = *u.choose(&Component::ALL)?;
    // Any release profile that registers the component.
    let rels: Vec<Release> = Release::ALL.into_iter().filter(|r| r.ships(comp)).collect();
    let rel = *u.choose(&rels)?;
    let kind = if u.arbitrary()? {
        BufferKind::FullyDescribed
    } else {
        BufferKind::NonDescribed
    };
    let mut codec = Codec::new(comp, kind).with_release(rel);
    // Quirk D1 (DATA_TYPE read back zigzag) is not a round trip; tested separately.
    codec.options.as_written = true;
    let ctx = Ctx { comp, rel };
    let tys = crate::roundtrip_types(comp, rel);
    let n = u.int_in_range(1..=4usize)?;
    let mut items = Vec::with_capacity(n);
    for _ in 0..n {
        let t = *u.choose(&tys)?;
        if comp == Component::V12 && kind == BufferKind::FullyDescribed && t == DataType::PROC {
            continue; // quirk L1: a described v12 PROC reads back as INFO_ARRAY
        }
        let vals = few(u, 3, |u| arb(u, t, ctx, 0))?;
        items.push(Item::new(t, vals));
    }
    if items.is_empty() {
        return Err(arbitrary::Error::IncorrectFormat);
    }
    Ok((codec, items))
}
