//! The oracle's token syntax (see `tools/oracle/PROTOCOL.md`): values written as
//! space-separated prefix tokens, and read back the same way.

use crate::hex;
use pmix_codec::{
    App, Buffer, Coord, DataArray, DataType, Device, DeviceDist, DiskStats, Endpoint, Envar,
    Geometry, Info, Item, Kval, NetStats, NodePid, NodeStats, NullableText, Pdata, Proc, ProcInfo,
    ProcStats, Query, Regattr, Regex2, ResourceUnit, Text, Timeval, Value,
};

/// Append the tokens for one pack/unpack item: `TYPE count values...`.
pub fn write_item(out: &mut Vec<String>, item: &Item) {
    out.push(type_token(item.ty));
    out.push(item.values.len().to_string());
    for v in &item.values {
        write_value(out, v);
    }
}

fn type_token(t: DataType) -> String {
    t.to_string()
}

fn s(out: &mut Vec<String>, t: &NullableText) {
    out.push(match t {
        None => "~".into(),
        Some(t) => format!("s:{}", hex::encode(&t[..])),
    });
}
fn st(out: &mut Vec<String>, t: &Text) {
    out.push(format!("s:{}", hex::encode(&t[..])));
}
fn b(out: &mut Vec<String>, bytes: &[u8]) {
    out.push(format!("b:{}", hex::encode(bytes)));
}
fn n(out: &mut Vec<String>, x: impl ToString) {
    out.push(x.to_string());
}
fn f32t(out: &mut Vec<String>, x: f32) {
    out.push(format!("f:{:08x}", x.to_bits()));
}

fn proc(out: &mut Vec<String>, p: &Proc) {
    st(out, &p.nspace);
    n(out, p.rank);
}
fn info(out: &mut Vec<String>, i: &Info) {
    st(out, &i.key);
    n(out, i.flags);
    typed(out, &i.value);
}
fn typed(out: &mut Vec<String>, v: &Value) {
    out.push(type_token(v.data_type()));
    if *v != Value::Undef {
        write_value(out, v);
    }
}
fn coord(out: &mut Vec<String>, c: &Coord) {
    n(out, c.view);
    n(out, c.coord.len());
    for x in &c.coord {
        n(out, x);
    }
}
fn timeval(out: &mut Vec<String>, t: &Timeval) {
    n(out, t.sec);
    n(out, t.usec);
}

/// Append the tokens of one value (without its type).
pub fn write_value(out: &mut Vec<String>, v: &Value) {
    match v {
        Value::Undef => {}
        Value::Bool(x) => n(out, *x as u8),
        Value::Byte(x) | Value::Uint8(x) => n(out, x),
        Value::Int8(x) => n(out, x),
        Value::String(t) | Value::ProcCpuset(t) | Value::Topo(t) => s(out, t),
        Value::Size(x) | Value::Uint64(x) | Value::Time(x) | Value::Devtype(x) => n(out, x),
        Value::StorMedium(x) | Value::StorAccess(x) | Value::StorPersist(x) => n(out, x),
        Value::Pid(x) | Value::Int(x) | Value::Int32(x) | Value::Status(x) => n(out, x),
        Value::Int16(x) => n(out, x),
        Value::Int64(x) => n(out, x),
        Value::Uint(x) | Value::Uint32(x) | Value::ProcRank(x) | Value::InfoDirectives(x) => {
            n(out, x)
        }
        Value::Uint16(x) | Value::IofChannel(x) | Value::Loctype(x) | Value::StorAccessType(x) => {
            n(out, x)
        }
        Value::Float(x) => f32t(out, *x),
        Value::Double(x) => out.push(format!("d:{:016x}", x.to_bits())),
        Value::Timeval(t) => timeval(out, t),
        Value::Value(inner) => typed(out, inner),
        Value::Proc(p) => proc(out, p),
        Value::App(a) => {
            s(out, &a.cmd);
            n(out, a.argv.len());
            for x in &a.argv {
                s(out, x);
            }
            n(out, a.env.len());
            for x in &a.env {
                s(out, x);
            }
            s(out, &a.cwd);
            n(out, a.maxprocs);
            n(out, a.info.len());
            for i in &a.info {
                info(out, i);
            }
        }
        Value::Info(i) => info(out, i),
        Value::Pdata(p) => {
            proc(out, &p.proc);
            st(out, &p.key);
            typed(out, &p.value);
        }
        Value::Buffer(x) => {
            n(out, x.kind);
            b(out, &x.bytes);
        }
        Value::ByteObject(x)
        | Value::CompressedString(x)
        | Value::CompressedByteObject(x)
        | Value::DataBuffer(x)
        | Value::Modex(x) => b(out, x),
        Value::Kval(k) => {
            s(out, &k.key);
            typed(out, &k.value);
        }
        Value::Persist(x)
        | Value::Scope(x)
        | Value::DataRange(x)
        | Value::Command(x)
        | Value::ProcState(x)
        | Value::AllocDirective(x)
        | Value::JobState(x)
        | Value::LinkState(x)
        | Value::ResblockDirective(x)
        | Value::AllocInherit(x) => n(out, x),
        Value::Pointer => out.push("p".into()),
        Value::DataType(t) => n(out, t.0),
        Value::ProcInfo(p) => {
            proc(out, &p.proc);
            s(out, &p.hostname);
            s(out, &p.executable);
            n(out, p.pid);
            n(out, p.state);
        }
        Value::DataArray(d) => {
            out.push(type_token(d.ty));
            n(out, d.values.len());
            for x in &d.values {
                write_value(out, x);
            }
        }
        Value::Query(q) => {
            n(out, q.keys.len());
            for k in &q.keys {
                s(out, k);
            }
            n(out, q.qualifiers.len());
            for i in &q.qualifiers {
                info(out, i);
            }
        }
        Value::InfoArray(infos) => {
            n(out, infos.len());
            for i in infos {
                info(out, i);
            }
        }
        Value::Envar(e) => {
            s(out, &e.name);
            s(out, &e.value);
            n(out, e.separator);
        }
        Value::Coord(c) => coord(out, c),
        Value::Regattr(r) => {
            s(out, &r.name);
            st(out, &r.key);
            n(out, r.ty);
            n(out, r.description.len());
            for d in &r.description {
                s(out, d);
            }
        }
        Value::Regex(x) => {
            // The oracle takes the regex as a C string (the framed bytes up to the first
            // NUL), or whole as `r:` when NULs inside it are part of the framing (`blob:`).
            let end = x.iter().position(|c| *c == 0).unwrap_or(x.len());
            if end + 1 < x.len() {
                out.push(format!("r:{}", hex::encode(x)));
            } else {
                out.push(format!("s:{}", hex::encode(&x[..end])));
            }
        }
        Value::Geometry(g) => {
            n(out, g.fabric);
            s(out, &g.uuid);
            s(out, &g.osname);
            n(out, g.coordinates.len());
            for c in &g.coordinates {
                coord(out, c);
            }
        }
        Value::DeviceDist(d) => {
            s(out, &d.uuid);
            s(out, &d.osname);
            n(out, d.devtype);
            n(out, d.mindist);
            n(out, d.maxdist);
        }
        Value::Endpoint(e) => {
            s(out, &e.uuid);
            s(out, &e.osname);
            b(out, &e.endpt);
        }
        Value::ProcNspace(t) => st(out, t),
        Value::ProcStats(p) => {
            s(out, &p.node);
            proc(out, &p.proc);
            n(out, p.pid);
            s(out, &p.cmd);
            n(out, p.state);
            timeval(out, &p.time);
            n(out, p.priority);
            n(out, p.num_threads);
            f32t(out, p.pss);
            f32t(out, p.vsize);
            f32t(out, p.rss);
            f32t(out, 0.0); // peak_vsize: not packed
            n(out, p.processor);
            timeval(out, &p.sample_time);
        }
        Value::DiskStats(d) => {
            s(out, &d.disk);
            for c in d.counters {
                n(out, c);
            }
        }
        Value::NetStats(x) => {
            s(out, &x.interface);
            for c in x.counters {
                n(out, c);
            }
        }
        Value::NodeStats(x) => {
            s(out, &x.node);
            for f in x.floats {
                f32t(out, f);
            }
            timeval(out, &x.sample_time);
            n(out, x.diskstats.len());
            for d in &x.diskstats {
                write_value(out, &Value::DiskStats(Box::new(d.clone())));
            }
            n(out, x.netstats.len());
            for d in &x.netstats {
                write_value(out, &Value::NetStats(Box::new(d.clone())));
            }
        }
        Value::Device(d) => {
            s(out, &d.uuid);
            s(out, &d.osname);
            n(out, d.devtype);
        }
        Value::ResourceUnit(r) => {
            n(out, r.devtype);
            n(out, r.count);
        }
        Value::NodePid(x) => {
            s(out, &x.hostname);
            n(out, x.nodeid);
            n(out, x.pid);
        }
        Value::Regex2(r) => {
            s(out, &r.kind);
            b(out, &r.regex);
        }
    }
}

/// A cursor over tokens for parsing.
pub struct Tokens<'a> {
    toks: Vec<&'a str>,
    pos: usize,
}

/// A token parse error.
pub type ParseError = String;

impl<'a> Tokens<'a> {
    /// Split a line.
    pub fn new(line: &'a str) -> Self {
        Tokens {
            toks: line.split_ascii_whitespace().collect(),
            pos: 0,
        }
    }
    /// Whether all tokens are consumed.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.toks.len()
    }
    /// Next raw token.
    pub fn next_tok(&mut self) -> Result<&'a str, ParseError> {
        let t = self
            .toks
            .get(self.pos)
            .copied()
            .ok_or("unexpected end of tokens")?;
        self.pos += 1;
        Ok(t)
    }
    fn num<T: std::str::FromStr>(&mut self) -> Result<T, ParseError> {
        let t = self.next_tok()?;
        t.parse::<T>().map_err(|_| format!("bad number {t:?}"))
    }
    fn count(&mut self) -> Result<usize, ParseError> {
        let c: usize = self.num()?;
        if c > 10_000_000 {
            return Err(format!("count {c} too large"));
        }
        Ok(c)
    }
    fn text(&mut self) -> Result<NullableText, ParseError> {
        let t = self.next_tok()?;
        if t == "~" {
            return Ok(None);
        }
        let h = t
            .strip_prefix("s:")
            .ok_or_else(|| format!("expected string token, got {t:?}"))?;
        Ok(Some(Text::from(hex::decode(h).ok_or("bad hex in string")?)))
    }
    fn req_text(&mut self) -> Result<Text, ParseError> {
        self.text()?
            .ok_or_else(|| "NULL where a string is required".to_string())
    }
    fn bytes(&mut self) -> Result<Vec<u8>, ParseError> {
        let t = self.next_tok()?;
        let h = t
            .strip_prefix("b:")
            .ok_or_else(|| format!("expected bytes token, got {t:?}"))?;
        hex::decode(h).ok_or_else(|| "bad hex in bytes".to_string())
    }
    fn f32(&mut self) -> Result<f32, ParseError> {
        let t = self.next_tok()?;
        let h = t
            .strip_prefix("f:")
            .ok_or_else(|| format!("expected float token, got {t:?}"))?;
        Ok(f32::from_bits(
            u32::from_str_radix(h, 16).map_err(|_| "bad float bits")?,
        ))
    }
    fn ty(&mut self) -> Result<DataType, ParseError> {
        let t = self.next_tok()?;
        DataType::parse(t).ok_or_else(|| format!("unknown type {t:?}"))
    }
    fn proc(&mut self) -> Result<Proc, ParseError> {
        Ok(Proc {
            nspace: self.req_text()?,
            rank: self.num()?,
        })
    }
    fn info(&mut self) -> Result<Info, ParseError> {
        let key = self.req_text()?;
        let flags = self.num()?;
        let value = self.typed()?;
        Ok(Info { key, flags, value })
    }
    fn typed(&mut self) -> Result<Value, ParseError> {
        let t = self.ty()?;
        if t == DataType::UNDEF {
            return Ok(Value::Undef);
        }
        self.value(t)
    }
    fn timeval(&mut self) -> Result<Timeval, ParseError> {
        Ok(Timeval {
            sec: self.num()?,
            usec: self.num()?,
        })
    }
    fn coord(&mut self) -> Result<Coord, ParseError> {
        let view = self.num()?;
        let d = self.count()?;
        let mut coord = Vec::with_capacity(d);
        for _ in 0..d {
            coord.push(self.num()?);
        }
        Ok(Coord { view, coord })
    }
    fn texts(&mut self) -> Result<Vec<NullableText>, ParseError> {
        let c = self.count()?;
        (0..c).map(|_| self.text()).collect()
    }
    fn infos(&mut self) -> Result<Vec<Info>, ParseError> {
        let c = self.count()?;
        (0..c).map(|_| self.info()).collect()
    }
    fn disk(&mut self) -> Result<DiskStats, ParseError> {
        let disk = self.text()?;
        let mut counters = [0u64; 11];
        for c in counters.iter_mut() {
            *c = self.num()?;
        }
        Ok(DiskStats { disk, counters })
    }
    fn net(&mut self) -> Result<NetStats, ParseError> {
        let interface = self.text()?;
        let mut counters = [0u64; 6];
        for c in counters.iter_mut() {
            *c = self.num()?;
        }
        Ok(NetStats {
            interface,
            counters,
        })
    }

    /// Parse one item: `TYPE count values...`.
    pub fn item(&mut self) -> Result<Item, ParseError> {
        let ty = self.ty()?;
        let c = self.count()?;
        let mut values = Vec::with_capacity(c.min(4096));
        for _ in 0..c {
            values.push(self.value(ty)?);
        }
        Ok(Item { ty, values })
    }

    /// Parse one call of an error reply's partial results: like [`Tokens::item`], except
    /// that a negative count (a call whose count was negative, which the library's unpacker
    /// loop read no value for, quirk U5) is a call of no values.
    pub fn partial_item(&mut self) -> Result<Item, ParseError> {
        let at = self.pos;
        let ty = self.ty()?;
        if self.num::<i64>().is_ok_and(|c| c < 0) {
            return Ok(Item { ty, values: vec![] });
        }
        self.pos = at;
        self.item()
    }

    /// Parse one value of type `t`.
    pub fn value(&mut self, t: DataType) -> Result<Value, ParseError> {
        Ok(match t {
            DataType::BOOL => Value::Bool(self.num::<u8>()? != 0),
            DataType::BYTE => Value::Byte(self.num()?),
            DataType::UINT8 => Value::Uint8(self.num()?),
            DataType::INT8 => Value::Int8(self.num()?),
            DataType::STRING => Value::String(self.text()?),
            DataType::PROC_CPUSET => Value::ProcCpuset(self.text()?),
            DataType::TOPO => Value::Topo(self.text()?),
            DataType::SIZE => Value::Size(self.num()?),
            DataType::PID => Value::Pid(self.num()?),
            DataType::INT => Value::Int(self.num()?),
            DataType::INT16 => Value::Int16(self.num()?),
            DataType::INT32 => Value::Int32(self.num()?),
            DataType::INT64 => Value::Int64(self.num()?),
            DataType::UINT => Value::Uint(self.num()?),
            DataType::UINT16 => Value::Uint16(self.num()?),
            DataType::UINT32 => Value::Uint32(self.num()?),
            DataType::UINT64 => Value::Uint64(self.num()?),
            DataType::FLOAT => Value::Float(self.f32()?),
            DataType::DOUBLE => {
                let t = self.next_tok()?;
                let h = t
                    .strip_prefix("d:")
                    .ok_or_else(|| format!("expected double token, got {t:?}"))?;
                Value::Double(f64::from_bits(
                    u64::from_str_radix(h, 16).map_err(|_| "bad double bits")?,
                ))
            }
            DataType::TIMEVAL => Value::Timeval(self.timeval()?),
            DataType::TIME => Value::Time(self.num()?),
            DataType::STATUS => Value::Status(self.num()?),
            DataType::VALUE => Value::Value(Box::new(self.typed()?)),
            DataType::PROC => Value::Proc(self.proc()?),
            DataType::APP => {
                let cmd = self.text()?;
                let argv = self.texts()?;
                let env = self.texts()?;
                let cwd = self.text()?;
                let maxprocs = self.num()?;
                let info = self.infos()?;
                Value::App(Box::new(App {
                    cmd,
                    argv,
                    env,
                    cwd,
                    maxprocs,
                    info,
                }))
            }
            DataType::INFO => Value::Info(Box::new(self.info()?)),
            DataType::PDATA => {
                let proc = self.proc()?;
                let key = self.req_text()?;
                let value = self.typed()?;
                Value::Pdata(Box::new(Pdata { proc, key, value }))
            }
            DataType::BUFFER => Value::Buffer(Buffer {
                kind: self.num()?,
                bytes: self.bytes()?.into(),
            }),
            DataType::BYTE_OBJECT => Value::ByteObject(self.bytes()?.into()),
            DataType::COMPRESSED_STRING => Value::CompressedString(self.bytes()?.into()),
            DataType::COMPRESSED_BYTE_OBJECT => Value::CompressedByteObject(self.bytes()?.into()),
            DataType::DATA_BUFFER => Value::DataBuffer(self.bytes()?.into()),
            DataType::MODEX => Value::Modex(self.bytes()?.into()),
            DataType::KVAL => {
                let key = self.text()?;
                let value = self.typed()?;
                Value::Kval(Box::new(Kval { key, value }))
            }
            DataType::PERSIST => Value::Persist(self.num()?),
            DataType::POINTER => {
                let t = self.next_tok()?;
                if t != "p" {
                    return Err(format!("expected p, got {t:?}"));
                }
                Value::Pointer
            }
            DataType::SCOPE => Value::Scope(self.num()?),
            DataType::DATA_RANGE => Value::DataRange(self.num()?),
            DataType::COMMAND => Value::Command(self.num()?),
            DataType::INFO_DIRECTIVES => Value::InfoDirectives(self.num()?),
            DataType::DATA_TYPE => Value::DataType(DataType(self.num()?)),
            DataType::PROC_STATE => Value::ProcState(self.num()?),
            DataType::PROC_INFO => {
                let proc = self.proc()?;
                let hostname = self.text()?;
                let executable = self.text()?;
                let pid = self.num()?;
                let state = self.num()?;
                Value::ProcInfo(Box::new(ProcInfo {
                    proc,
                    hostname,
                    executable,
                    pid,
                    state,
                }))
            }
            DataType::DATA_ARRAY => {
                let ty = self.ty()?;
                let c = self.count()?;
                let mut values = Vec::with_capacity(c.min(4096));
                for _ in 0..c {
                    values.push(self.value(ty)?);
                }
                Value::DataArray(Box::new(DataArray { ty, values }))
            }
            DataType::PROC_RANK => Value::ProcRank(self.num()?),
            DataType::QUERY => {
                let keys = self.texts()?;
                let qualifiers = self.infos()?;
                Value::Query(Box::new(Query { keys, qualifiers }))
            }
            DataType::ALLOC_DIRECTIVE => Value::AllocDirective(self.num()?),
            DataType::INFO_ARRAY => Value::InfoArray(self.infos()?),
            DataType::IOF_CHANNEL => Value::IofChannel(self.num()?),
            DataType::ENVAR => Value::Envar(Box::new(Envar {
                name: self.text()?,
                value: self.text()?,
                separator: self.num()?,
            })),
            DataType::COORD => Value::Coord(self.coord()?),
            DataType::REGATTR => {
                let name = self.text()?;
                let key = self.req_text()?;
                let ty = self.num()?;
                let description = self.texts()?;
                Value::Regattr(Box::new(Regattr {
                    name,
                    key,
                    ty,
                    description,
                }))
            }
            DataType::REGEX => {
                // `r:` is the whole block the library unpacked (a framing holding NULs)
                if let Some(h) = self.toks.get(self.pos).and_then(|t| t.strip_prefix("r:")) {
                    self.pos += 1;
                    Value::Regex(hex::decode(h).ok_or("bad hex in regex")?.into())
                } else {
                    let mut b = self.text()?.map(|t| t[..].to_vec()).unwrap_or_default();
                    b.push(0);
                    Value::Regex(b.into())
                }
            }
            DataType::JOB_STATE => Value::JobState(self.num()?),
            DataType::LINK_STATE => Value::LinkState(self.num()?),
            DataType::GEOMETRY => {
                let fabric = self.num()?;
                let uuid = self.text()?;
                let osname = self.text()?;
                let c = self.count()?;
                let coordinates = (0..c).map(|_| self.coord()).collect::<Result<_, _>>()?;
                Value::Geometry(Box::new(Geometry {
                    fabric,
                    uuid,
                    osname,
                    coordinates,
                }))
            }
            DataType::DEVICE_DIST => Value::DeviceDist(Box::new(DeviceDist {
                uuid: self.text()?,
                osname: self.text()?,
                devtype: self.num()?,
                mindist: self.num()?,
                maxdist: self.num()?,
            })),
            DataType::ENDPOINT => Value::Endpoint(Box::new(Endpoint {
                uuid: self.text()?,
                osname: self.text()?,
                endpt: self.bytes()?.into(),
            })),
            DataType::DEVTYPE => Value::Devtype(self.num()?),
            DataType::LOCTYPE => Value::Loctype(self.num()?),
            DataType::PROC_NSPACE => Value::ProcNspace(self.req_text()?),
            // fields in token order (a struct literal evaluates its fields as written);
            // the unread `peak_vsize` token comes between `rss` and `processor`
            DataType::PROC_STATS => Value::ProcStats(Box::new(ProcStats {
                node: self.text()?,
                proc: self.proc()?,
                pid: self.num()?,
                cmd: self.text()?,
                state: self.num()?,
                time: self.timeval()?,
                priority: self.num()?,
                num_threads: self.num()?,
                pss: self.f32()?,
                vsize: self.f32()?,
                rss: self.f32()?,
                processor: {
                    let _peak_vsize = self.f32()?;
                    self.num()?
                },
                sample_time: self.timeval()?,
            })),
            DataType::DISK_STATS => Value::DiskStats(Box::new(self.disk()?)),
            DataType::NET_STATS => Value::NetStats(Box::new(self.net()?)),
            DataType::NODE_STATS => {
                let node = self.text()?;
                let mut floats = [0f32; 11];
                for f in floats.iter_mut() {
                    *f = self.f32()?;
                }
                let sample_time = self.timeval()?;
                let nd = self.count()?;
                let diskstats = (0..nd).map(|_| self.disk()).collect::<Result<_, _>>()?;
                let nn = self.count()?;
                let netstats = (0..nn).map(|_| self.net()).collect::<Result<_, _>>()?;
                Value::NodeStats(Box::new(NodeStats {
                    node,
                    floats,
                    sample_time,
                    diskstats,
                    netstats,
                }))
            }
            DataType::STOR_MEDIUM => Value::StorMedium(self.num()?),
            DataType::STOR_ACCESS => Value::StorAccess(self.num()?),
            DataType::STOR_PERSIST => Value::StorPersist(self.num()?),
            DataType::STOR_ACCESS_TYPE => Value::StorAccessType(self.num()?),
            DataType::DEVICE => Value::Device(Box::new(Device {
                uuid: self.text()?,
                osname: self.text()?,
                devtype: self.num()?,
            })),
            DataType::RESBLOCK_DIRECTIVE => Value::ResblockDirective(self.num()?),
            DataType::RESOURCE_UNIT => Value::ResourceUnit(ResourceUnit {
                devtype: self.num()?,
                count: self.num()?,
            }),
            DataType::NODE_PID => Value::NodePid(Box::new(NodePid {
                hostname: self.text()?,
                nodeid: self.num()?,
                pid: self.num()?,
            })),
            DataType::REGEX2 => Value::Regex2(Box::new(Regex2 {
                kind: self.text()?,
                regex: self.bytes()?.into(),
            })),
            DataType::ALLOC_INHERIT => Value::AllocInherit(self.num()?),
            other => return Err(format!("no token syntax for type {other}")),
        })
    }
}
