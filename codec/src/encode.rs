//! The writer: one encoder for every family; the family decides integer, tag and layout details.

use crate::component::{BufferKind, Component, Family, Release};
use crate::error::{Error, Result};
use crate::float::format_percent_f;
use crate::quirks;
use crate::status::Status;
use crate::types::DataType;
use crate::value::*;
use crate::wire::{flex_into, put_flex, put_sized_run, zigzag};

/// Maximum DATA_ARRAY nesting depth (OpenPMIx master `pmix_bfrops_base_max_array_depth`).
pub const MAX_ARRAY_DEPTH: u32 = 100;

pub(crate) struct Enc {
    pub out: Vec<u8>,
    fam: Family,
    comp: Component,
    rel: Release,
    desc: bool,
    depth: u32,
}

/// A string's length prefix (`n` = its bytes and NUL) written at the start of `spare`
/// (at least 10 bytes): a zigzag flex integer in the modern family, else a big-endian
/// INT32. Returns how many bytes it took.
#[inline(always)]
fn string_prefix(fam: Family, n: usize, spare: &mut [std::mem::MaybeUninit<u8>]) -> usize {
    match fam {
        Family::Modern => flex_into(zigzag(n as i64), spare),
        _ => {
            for (slot, byte) in spare.iter_mut().zip((n as i32).to_be_bytes()) {
                slot.write(byte);
            }
            4
        }
    }
}

fn fail(status: Status, reason: impl Into<String>) -> Error {
    Error::new(status, 0, reason)
}

/// A guess at the encoded size of `items`, for the output's first allocation (growing a
/// buffer from nothing costs more than the guess). At or a little above the size for the
/// common types in every family (a short guess costs a regrowth); capped at 16 MiB.
pub(crate) fn size_hint(items: &[Item]) -> usize {
    fn value(v: &Value) -> usize {
        match v {
            Value::Proc(p) => p.nspace[..].len() + 14,
            Value::String(Some(t)) => t[..].len() + 6,
            Value::ByteObject(b) => b.len() + 12,
            Value::Info(i) => i.key[..].len() + 16 + value(&i.value),
            Value::DataArray(d) => 16 + d.values.iter().map(value).sum::<usize>(),
            _ => 10,
        }
    }
    // A long call is sampled (every `step`-th value, scaled up, an eighth more for
    // luck): walking every value cost a fifth of a PROC encode.
    let call = |i: &Item| {
        let n = i.values.len();
        let step = (n / 256).max(1);
        let sampled: usize = i.values.iter().step_by(step).map(value).sum();
        let scaled = if step == 1 {
            sampled
        } else {
            sampled * step + sampled * step / 8
        };
        16 + scaled
    };
    let n: usize = items.iter().map(call).sum();
    n.min(16 << 20)
}

/// The converged family's SIZE (a UINT64 tag and eight big-endian bytes) at the start of
/// `head`, for [`put_sized_run`].
fn converged_size_into(n: u64, head: &mut [std::mem::MaybeUninit<u8>]) -> usize {
    let [t0, t1] = DataType::UINT64.0.to_be_bytes();
    let [a, b, c, d, e, f, g, h] = n.to_be_bytes();
    for (slot, byte) in head[..10].iter_mut().zip([t0, t1, a, b, c, d, e, f, g, h]) {
        slot.write(byte);
    }
    10
}

/// The error for the first value of `item` that is not of the call's type.
fn type_mismatch(item: &Item) -> Option<Error> {
    let v = item.values.iter().find(|v| v.data_type() != item.ty)?;
    Some(fail(
        Status::ERR_BAD_PARAM,
        format!(
            "value of type {} in a pack call of {}",
            v.data_type(),
            item.ty
        ),
    ))
}

impl Enc {
    /// An encoder appending to `out`.
    pub fn new(comp: Component, kind: BufferKind, rel: Release, out: Vec<u8>) -> Self {
        Enc {
            out,
            fam: comp.family(),
            comp,
            rel,
            desc: kind == BufferKind::FullyDescribed,
            depth: 0,
        }
    }

    fn legacy(&self) -> bool {
        matches!(self.fam, Family::Legacy12 | Family::Legacy20)
    }

    // ---- primitives -------------------------------------------------------------------

    #[inline]
    fn u8(&mut self, v: u8) {
        self.out.push(v);
    }
    #[inline]
    fn u16(&mut self, v: u16) {
        match self.fam {
            Family::Modern => put_flex(&mut self.out, v as u64),
            _ => self.out.extend_from_slice(&v.to_be_bytes()),
        }
    }
    #[inline]
    fn i16(&mut self, v: i16) {
        match self.fam {
            Family::Modern => put_flex(&mut self.out, zigzag(v as i64)),
            _ => self.out.extend_from_slice(&v.to_be_bytes()),
        }
    }
    #[inline]
    fn u32(&mut self, v: u32) {
        match self.fam {
            Family::Modern => put_flex(&mut self.out, v as u64),
            _ => self.out.extend_from_slice(&v.to_be_bytes()),
        }
    }
    #[inline]
    fn i32(&mut self, v: i32) {
        match self.fam {
            Family::Modern => put_flex(&mut self.out, zigzag(v as i64)),
            _ => self.out.extend_from_slice(&v.to_be_bytes()),
        }
    }
    #[inline]
    fn u64(&mut self, v: u64) {
        match self.fam {
            Family::Modern => put_flex(&mut self.out, v),
            _ => self.out.extend_from_slice(&v.to_be_bytes()),
        }
    }
    #[inline]
    fn i64(&mut self, v: i64) {
        match self.fam {
            Family::Modern => put_flex(&mut self.out, zigzag(v)),
            _ => self.out.extend_from_slice(&v.to_be_bytes()),
        }
    }

    /// A data-type tag in the family's encoding.
    #[inline]
    pub fn tag(&mut self, ty: DataType) {
        match self.fam {
            Family::Legacy12 => {
                let v1 = quirks::v12_wire_type(ty.0);
                self.out.extend_from_slice(&(v1 as u32).to_be_bytes());
            }
            Family::Legacy20 | Family::Converged => self.out.extend_from_slice(&ty.0.to_be_bytes()),
            Family::Modern => put_flex(&mut self.out, ty.0 as u64),
        }
    }

    /// The described-mode tag that v12/v20's `pack_buffer` writes before nested payloads.
    fn legacy_desc(&mut self, ty: DataType) {
        if self.desc && self.legacy() {
            let ty = match self.fam {
                Family::Legacy12 => quirks::v12_top_level_type(ty),
                _ if ty == DataType::COMMAND => DataType::UINT32,
                _ => ty,
            };
            self.tag(ty);
        }
    }

    /// The always-tag a self-describing integer packer writes once per call (quirk D2):
    /// the fixed-width type it packs as, plus v12/v20's described-mode tag.
    fn int_tag(&mut self, wire: DataType) {
        self.tag(wire);
        self.legacy_desc(wire);
    }
    /// INT (and UINT): an always-tag plus be32 except in the modern family.
    fn int(&mut self, v: i32) {
        if self.fam != Family::Modern {
            self.int_tag(DataType::INT32);
        }
        self.i32(v);
    }
    /// SIZE (`size_t`).
    #[inline]
    fn size(&mut self, v: u64) {
        if self.fam != Family::Modern {
            self.int_tag(DataType::UINT64);
        }
        self.u64(v);
    }
    /// PID: always self-tagged as UINT32.
    fn pid(&mut self, v: i32) {
        self.int_tag(DataType::UINT32);
        self.u32(v as u32);
    }
    /// One value of a self-tagged integer type, without its tag (written once per array).
    fn bare_int(&mut self, v: &Value) -> Result<()> {
        match v {
            Value::Int(x) | Value::Status(x) => self.i32(*x),
            Value::Uint(x) | Value::ProcRank(x) => self.i32(*x as i32),
            Value::Size(x) => self.u64(*x),
            Value::Pid(x) => self.u32(*x as u32),
            Value::Persist(x) | Value::Scope(x) | Value::DataRange(x) => self.i32(*x as i32),
            other => return self.one(other),
        }
        Ok(())
    }
    /// A nullable C string: INT32 length including the NUL (0 = NULL), then the bytes and NUL.
    #[inline]
    fn string(&mut self, s: Option<&[u8]>) -> Result<()> {
        match s {
            None => self.i32(0),
            Some(b) => {
                if b.len() >= i32::MAX as usize - 1 {
                    return Err(fail(
                        Status::ERR_BAD_PARAM,
                        "string too long for an INT32 length",
                    ));
                }
                // prefix, bytes and NUL with one capacity check, written in place
                let n = b.len() + 1;
                self.out.reserve(n + 10);
                let len = self.out.len();
                let spare = self.out.spare_capacity_mut();
                let head = string_prefix(self.fam, n, spare);
                for (slot, byte) in spare[head..].iter_mut().zip(b) {
                    slot.write(*byte);
                }
                spare[head + b.len()].write(0);
                // SAFETY: the `head + n` bytes after `len` were just written, within the
                // capacity reserved above (`n + 10`, and a prefix takes at most 10).
                unsafe { self.out.set_len(len + head + n) };
            }
        }
        Ok(())
    }
    /// A non-NULL string held in a [`Text`]: an inline one is copied as one fixed-size
    /// block (the bytes after its length are overwritten by the NUL and what follows),
    /// cheaper than a copy of exactly its length.
    #[inline(always)]
    fn text_required(&mut self, t: &Text) -> Result<()> {
        let Some(block) = t.inline_block() else {
            return self.string(Some(t.as_bytes()));
        };
        let blen = block[Text::INLINE] as usize;
        let n = blen + 1;
        self.out.reserve(10 + block.len());
        let len = self.out.len();
        let spare = self.out.spare_capacity_mut();
        let head = string_prefix(self.fam, n, spare);
        let dst = &mut spare[head..head + block.len()];
        // SAFETY: `dst` is `block.len()` bytes of the vector's spare room, which cannot
        // overlap `block` (borrowed from a value, not from the output).
        unsafe {
            std::ptr::copy_nonoverlapping(block.as_ptr(), dst.as_mut_ptr().cast::<u8>(), dst.len())
        };
        spare[head + blen].write(0);
        // SAFETY: the `head + n` bytes after `len` were just written (`n <= 24`), within
        // the capacity reserved above (a prefix takes at most 10 bytes).
        unsafe { self.out.set_len(len + head + n) };
        Ok(())
    }
    #[inline]
    fn text(&mut self, t: &NullableText) -> Result<()> {
        self.string(t.as_ref().map(|t| t.as_bytes()))
    }
    #[inline]
    fn bytes_sized(&mut self, b: &[u8]) {
        self.size(b.len() as u64);
        self.out.extend_from_slice(b);
    }
    fn float_text(&mut self, x: f64) -> Result<()> {
        let s = format_percent_f(x);
        self.string(Some(s.as_bytes()))
    }
    #[inline]
    fn proc_rank(&mut self, r: u32) {
        if self.fam == Family::Legacy12 {
            self.int(r as i32);
        } else {
            self.u32(r);
        }
    }
    #[inline]
    fn proc(&mut self, p: &Proc) -> Result<()> {
        self.text_required(&p.nspace)?;
        self.proc_rank(p.rank);
        Ok(())
    }
    fn timeval(&mut self, t: &Timeval) {
        self.i64(t.sec);
        self.i64(t.usec);
    }
    fn coord(&mut self, c: &Coord) {
        self.u8(c.view);
        self.size(c.coord.len() as u64);
        for v in &c.coord {
            self.u32(*v);
        }
    }

    // ---- pack calls -------------------------------------------------------------------

    /// One top-level pack call: [tag INT32] count [tag T] payload.
    ///
    /// A value of another type than the call's fails the call before anything is written.
    /// A component the release does not register packs nothing (PMIX_ERR_NOT_SUPPORTED).
    fn refuse_unshipped(&self) -> Result<()> {
        match self.rel.refusal(self.comp) {
            Some(reason) => Err(fail(Status::ERR_NOT_SUPPORTED, reason)),
            None => Ok(()),
        }
    }

    /// The element types that [`Enc::values`] checks as it goes are not scanned first:
    /// when the call fails, the scan runs then, and a mismatch found rolls the call back.
    pub fn pack_call(&mut self, item: &Item) -> Result<()> {
        self.refuse_unshipped()?;
        let start = self.out.len();
        if !self.checks_as_it_goes(item.ty) {
            if let Some(e) = type_mismatch(item) {
                return Err(e);
            }
        }
        let r = self.pack_call_values(item);
        if r.is_err() {
            if let Some(e) = type_mismatch(item) {
                self.out.truncate(start);
                return Err(e);
            }
        }
        r
    }

    /// Whether [`Enc::values`] checks each value's type for a call of `ty` (its fast loops).
    fn checks_as_it_goes(&self, ty: DataType) -> bool {
        matches!(self.fam, Family::Converged | Family::Modern)
            && matches!(
                ty,
                DataType::PROC | DataType::STRING | DataType::BYTE_OBJECT | DataType::INFO
            )
            && quirks::self_tagged_int(self.fam, ty).is_none()
    }

    fn pack_call_values(&mut self, item: &Item) -> Result<()> {
        self.call_count(item.values.len())?;
        self.pack_buffer(item.ty, &item.values)
    }

    /// A pack call's count of values: INT32, with its tag in a described buffer.
    fn call_count(&mut self, n: usize) -> Result<()> {
        if n > i32::MAX as usize {
            return Err(fail(
                Status::ERR_BAD_PARAM,
                "too many values for one pack call",
            ));
        }
        if self.desc {
            self.tag(DataType::INT32);
        }
        self.i32(n as i32);
        Ok(())
    }

    /// The component's `pack_buffer`: a described-mode tag, then the type's packer.
    fn pack_buffer(&mut self, ty: DataType, vals: &[Value]) -> Result<()> {
        self.buffer_prologue(ty)?;
        self.values(ty, vals)
    }

    /// One BYTE_OBJECT pack call of `objects`: the bytes [`Enc::pack_call`] writes for an
    /// item of as many [`Value::ByteObject`]s, from the caller's slices.
    pub fn pack_byte_objects<B: AsRef<[u8]>>(&mut self, objects: &[B]) -> Result<()> {
        self.refuse_unshipped()?;
        self.call_count(objects.len())?;
        self.buffer_prologue(DataType::BYTE_OBJECT)?;
        self.byte_objects(objects.iter().map(|b| Some(b.as_ref())));
        Ok(())
    }

    /// The BYTE_OBJECT packer over a run of payloads (`bytes_sized` for each; in the
    /// converged and modern families as one `put_sized_run`). A `None` payload (a value of
    /// another type) stops it and gives `false`.
    fn byte_objects<'v>(&mut self, payloads: impl Iterator<Item = Option<&'v [u8]>>) -> bool {
        match self.fam {
            // the modern SIZE: a bare flex integer
            Family::Modern => put_sized_run(&mut self.out, payloads, flex_into),
            // the converged SIZE: a UINT64 tag and eight big-endian bytes
            Family::Converged => put_sized_run(&mut self.out, payloads, converged_size_into),
            Family::Legacy12 | Family::Legacy20 => {
                for payload in payloads {
                    match payload {
                        Some(b) => self.bytes_sized(b),
                        None => return false,
                    }
                }
                true
            }
        }
    }

    /// `pack_buffer` up to the type's packer: the described-mode tag, and the check that
    /// the component registers `ty`.
    fn buffer_prologue(&mut self, ty: DataType) -> Result<()> {
        let unknown = match self.fam {
            Family::Legacy12 | Family::Legacy20 => Status::ERR_PACK_FAILURE,
            _ => Status::ERR_UNKNOWN_DATA_TYPE,
        };
        if self.desc {
            let wire_ty = match (self.fam, ty) {
                (Family::Legacy20, DataType::COMMAND) => DataType::UINT32,
                (Family::Legacy12, _) => quirks::v12_top_level_type(ty),
                _ => ty,
            };
            self.tag(wire_ty);
        }
        if !self.comp.registers(ty, self.rel) {
            return Err(fail(
                unknown,
                format!("{} does not register {}", self.comp, ty),
            ));
        }
        Ok(())
    }

    /// The registered packer for `ty` over an array of values.
    fn values(&mut self, ty: DataType, vals: &[Value]) -> Result<()> {
        // Array-level oddities first.
        match (self.fam, ty) {
            (
                Family::Legacy12,
                DataType::POINTER | DataType::INFO_DIRECTIVES | DataType::PROC_STATE,
            ) => {
                return Ok(()); // v12 writes nothing for these
            }
            (Family::Legacy12, DataType::DATA_ARRAY | DataType::PROC_INFO | DataType::QUERY) => {
                return Err(fail(
                    Status::ERR_NOT_SUPPORTED,
                    format!("v12 cannot pack {ty}"),
                ));
            }
            (_, DataType::POINTER) => {
                // One sentinel byte per pack call, whatever the count (quirk P1).
                self.u8(1);
                return Ok(());
            }
            // OpenPMIx returns after a typeless array's tag and silently drops the arrays
            // after it in the same call (quirk R2): refuse rather than lose data.
            (Family::Converged | Family::Modern, DataType::DATA_ARRAY)
                if !self.rel.profile().darray_undef_has_size
                    && quirks::typeless_array_before_others(vals) =>
            {
                return Err(fail(
                    Status::ERR_BAD_PARAM,
                    "a DATA_ARRAY of UNDEF followed by more arrays in one call: OpenPMIx drops the rest (quirk R2)",
                ));
            }
            _ => {}
        }
        if let Some(wire) = quirks::self_tagged_int(self.fam, ty) {
            // One always-tag for the whole array, even an empty one (quirk D2).
            self.int_tag(wire);
            for v in vals {
                self.bare_int(v)?;
            }
            return Ok(());
        }
        if self.checks_as_it_goes(ty) {
            // The general loop below, with the type check fused in (see `pack_call`).
            let mismatch = || fail(Status::ERR_BAD_PARAM, "value of another type");
            match ty {
                DataType::PROC => {
                    for v in vals {
                        match v {
                            Value::Proc(p) => self.proc(p)?,
                            _ => return Err(mismatch()),
                        }
                    }
                }
                DataType::STRING => {
                    for v in vals {
                        match v {
                            Value::String(s) => self.text(s)?,
                            _ => return Err(mismatch()),
                        }
                    }
                }
                DataType::BYTE_OBJECT => {
                    let payloads = vals.iter().map(|v| match v {
                        Value::ByteObject(b) => Some(&b[..]),
                        _ => None,
                    });
                    if !self.byte_objects(payloads) {
                        return Err(mismatch());
                    }
                }
                _ => {
                    for v in vals {
                        match v {
                            Value::Info(i) => self.info(i)?,
                            _ => return Err(mismatch()),
                        }
                    }
                }
            }
            return Ok(());
        }
        for v in vals {
            self.one(v)?;
        }
        Ok(())
    }

    /// Encode one value with its type's packer (no tags other than the type's own). Types
    /// that nest are handled in this small frame to keep deep recursion cheap on the stack.
    fn one(&mut self, v: &Value) -> Result<()> {
        match v {
            Value::Value(inner) => self.value(inner),
            Value::App(a) => self.app(a),
            Value::Info(i) => self.info(i),
            Value::Pdata(p) => self.pdata(p),
            Value::Kval(k) => {
                self.text(&k.key)?;
                self.value(&k.value)
            }
            Value::DataArray(d) => self.darray(d),
            Value::Query(q) => self.query(q),
            Value::InfoArray(infos) => self.info_array(infos),
            _ => self.leaf(v),
        }
    }

    #[inline(never)]
    fn pdata(&mut self, p: &Pdata) -> Result<()> {
        self.proc(&p.proc)?;
        self.string(Some(&p.key[..]))?;
        self.value_type(p.value.data_type());
        self.value_payload(&p.value)
    }

    #[inline(never)]
    fn query(&mut self, q: &Query) -> Result<()> {
        self.i32(q.keys.len() as i32);
        for k in &q.keys {
            self.text(k)?;
        }
        self.size(q.qualifiers.len() as u64);
        for i in &q.qualifiers {
            self.info(i)?;
        }
        Ok(())
    }

    #[inline(never)]
    fn info_array(&mut self, infos: &[Info]) -> Result<()> {
        if self.fam == Family::Legacy20
            && self
                .rel
                .profile()
                .size_tagged(DataType::INFO_ARRAY, self.fam)
        {
            // v20's INFO_ARRAY packer uses the base SIZE packer: the always-tag but no
            // described-mode tag (quirk L2); its unpacker expects both.
            self.tag(DataType::UINT64);
            self.u64(infos.len() as u64);
        } else {
            self.modex_size(DataType::INFO_ARRAY, infos.len() as u64);
        }
        for i in infos {
            if self.fam == Family::Legacy20 {
                // v20's INFO_ARRAY packer calls the base INFO packer (quirk L2).
                self.base_info(i)?;
            } else {
                self.info(i)?;
            }
        }
        Ok(())
    }

    /// Types that do not nest.
    #[inline(never)]
    fn leaf(&mut self, v: &Value) -> Result<()> {
        let fam = self.fam;
        match v {
            Value::Undef => return Err(fail(Status::ERR_UNKNOWN_DATA_TYPE, "UNDEF has no packer")),
            Value::Bool(b) => self.u8(*b as u8),
            Value::Byte(x) | Value::Uint8(x) => self.u8(*x),
            Value::Int8(x) => self.u8(*x as u8),
            Value::String(s) => self.text(s)?,
            Value::Size(x) => self.size(*x),
            Value::Pid(x) => self.pid(*x),
            Value::Int(x) => self.int(*x),
            Value::Uint(x) => self.int(*x as i32),
            Value::Int16(x) => self.i16(*x),
            Value::Int32(x) => self.i32(*x),
            Value::Int64(x) => self.i64(*x),
            Value::Uint16(x) => self.u16(*x),
            Value::Uint32(x) => self.u32(*x),
            Value::Uint64(x) => self.u64(*x),
            Value::Float(x) => self.float_text(*x as f64)?,
            Value::Double(x) => self.float_text(*x)?,
            Value::Timeval(t) => self.timeval(t),
            Value::Time(t) => self.u64(*t),
            Value::Status(s) => {
                if fam == Family::Legacy12 {
                    self.int(*s)
                } else {
                    self.i32(*s)
                }
            }
            Value::Proc(p) => self.proc(p)?,
            Value::Buffer(b) => {
                if !self.legacy() {
                    self.u8(b.kind);
                }
                self.bytes_sized(&b.bytes);
            }
            Value::ByteObject(b) | Value::CompressedString(b) | Value::CompressedByteObject(b) => {
                self.bytes_sized(b)
            }
            Value::DataBuffer(b) => self.bytes_sized(b),
            Value::Modex(b) => {
                self.modex_size(DataType::MODEX, b.len() as u64);
                self.out.extend_from_slice(b);
            }
            Value::Persist(x) | Value::Scope(x) | Value::DataRange(x) => {
                if fam == Family::Legacy12 {
                    self.int(*x as i32)
                } else {
                    self.u8(*x)
                }
            }
            Value::Command(x) => match fam {
                Family::Legacy12 | Family::Legacy20 => self.i32(*x as i32),
                _ => self.u8(*x),
            },
            Value::Pointer => self.u8(1),
            Value::Value(_)
            | Value::App(_)
            | Value::Info(_)
            | Value::Pdata(_)
            | Value::Kval(_)
            | Value::DataArray(_)
            | Value::Query(_)
            | Value::InfoArray(_) => return self.one(v),
            Value::InfoDirectives(x) => {
                if fam != Family::Legacy12 {
                    self.u32(*x)
                }
            }
            Value::DataType(t) => match fam {
                Family::Legacy12 => self.out.extend_from_slice(&(t.0 as u32).to_be_bytes()),
                _ => self.u16(t.0),
            },
            Value::ProcState(x) => {
                if fam != Family::Legacy12 {
                    self.u8(*x)
                }
            }
            Value::ProcInfo(p) => {
                self.proc(&p.proc)?;
                self.text(&p.hostname)?;
                self.text(&p.executable)?;
                self.pid(p.pid);
                self.u8(p.state);
            }
            Value::ProcRank(r) => self.proc_rank(*r),
            Value::AllocDirective(x)
            | Value::JobState(x)
            | Value::LinkState(x)
            | Value::ResblockDirective(x)
            | Value::AllocInherit(x) => self.u8(*x),
            Value::IofChannel(x) | Value::Loctype(x) | Value::StorAccessType(x) => self.u16(*x),
            Value::Envar(e) => {
                self.text(&e.name)?;
                self.text(&e.value)?;
                self.u8(e.separator);
            }
            Value::Coord(c) => self.coord(c),
            Value::Regattr(r) => {
                self.text(&r.name)?;
                self.string(Some(&r.key[..]))?;
                self.u16(r.ty);
                // The description is a C argv: the library counts it up to its first NULL
                // (PMIx_Argv_count) and packs that many strings.
                let n = r
                    .description
                    .iter()
                    .position(|d| d.is_none())
                    .unwrap_or(r.description.len());
                self.i32(n as i32);
                for d in &r.description[..n] {
                    self.text(d)?;
                }
            }
            Value::Regex(b) => {
                // Only preg-framed regexes: OpenPMIx crashes packing anything else (quirk U4).
                let framed = b.starts_with(b"raw:")
                    || b.starts_with(b"blob:")
                    || (self.rel.profile().regex_pmix_framing && b.starts_with(b"pmix"));
                if !framed && self.desc {
                    // The fallback packs a STRING through the library's own default module,
                    // which refuses a described buffer: PACK_MISMATCH, as every release does.
                    return Err(fail(
                        Status::ERR_PACK_MISMATCH,
                        "an unframed REGEX in a described buffer: the plain-string fallback refuses it (quirk U4)",
                    ));
                }
                if !framed {
                    return Err(fail(
                        Status::ERR_BAD_PARAM,
                        "a REGEX must be preg-framed (raw:, blob:, 4.2 pmix[)",
                    ));
                }
                self.out.extend_from_slice(b)
            }
            Value::ProcCpuset(s) | Value::Topo(s) => self.text(s)?,
            Value::Geometry(g) => {
                self.size(g.fabric);
                self.text(&g.uuid)?;
                self.text(&g.osname)?;
                self.size(g.coordinates.len() as u64);
                for c in &g.coordinates {
                    self.coord(c);
                }
            }
            Value::DeviceDist(d) => {
                self.text(&d.uuid)?;
                self.text(&d.osname)?;
                self.u64(d.devtype);
                self.u16(d.mindist);
                self.u16(d.maxdist);
            }
            Value::Endpoint(e) => {
                self.text(&e.uuid)?;
                self.text(&e.osname)?;
                self.bytes_sized(&e.endpt);
            }
            Value::Devtype(x)
            | Value::StorMedium(x)
            | Value::StorAccess(x)
            | Value::StorPersist(x) => self.u64(*x),
            Value::ProcNspace(n) => self.string(Some(&n[..]))?,
            Value::ProcStats(p) => {
                self.text(&p.node)?;
                self.proc(&p.proc)?;
                self.pid(p.pid);
                self.text(&p.cmd)?;
                self.u8(p.state);
                self.timeval(&p.time);
                self.i32(p.priority);
                self.i16(p.num_threads);
                self.float_text(p.pss as f64)?;
                self.float_text(p.vsize as f64)?;
                self.float_text(p.rss as f64)?;
                self.i16(p.processor);
                self.timeval(&p.sample_time);
            }
            Value::DiskStats(d) => {
                self.text(&d.disk)?;
                for c in d.counters {
                    self.u64(c);
                }
            }
            Value::NetStats(n) => {
                self.text(&n.interface)?;
                for c in n.counters {
                    self.u64(c);
                }
            }
            Value::NodeStats(n) => {
                self.text(&n.node)?;
                for f in n.floats {
                    self.float_text(f as f64)?;
                }
                self.timeval(&n.sample_time);
                self.size(n.diskstats.len() as u64);
                for d in &n.diskstats {
                    self.one(&Value::DiskStats(Box::new(d.clone())))?;
                }
                self.size(n.netstats.len() as u64);
                for d in &n.netstats {
                    self.one(&Value::NetStats(Box::new(d.clone())))?;
                }
            }
            Value::Device(d) => {
                self.text(&d.uuid)?;
                self.text(&d.osname)?;
                self.u64(d.devtype);
            }
            Value::ResourceUnit(r) => {
                self.u64(r.devtype);
                self.size(r.count);
            }
            Value::NodePid(n) => {
                self.text(&n.hostname)?;
                self.u32(n.nodeid);
                self.pid(n.pid);
            }
            Value::Regex2(r) => {
                self.text(&r.kind)?;
                self.bytes_sized(&r.regex);
            }
        }
        Ok(())
    }

    /// MODEX and INFO_ARRAY sizes: tagged SIZE in 4.2.x, bare be64 in master (quirk R3),
    /// except v12, whose own packers always tag.
    fn modex_size(&mut self, ty: DataType, n: u64) {
        if self.rel.profile().size_tagged(ty, self.fam) {
            self.size(n);
        } else {
            self.out.extend_from_slice(&n.to_be_bytes());
        }
    }

    /// The value-type field of VALUE/INFO/PDATA.
    #[inline]
    fn value_type(&mut self, ty: DataType) {
        match self.fam {
            // v12 and v20 write it as a tagged INT (v12 in 1.x numbering).
            Family::Legacy12 => self.int(quirks::v12_wire_type(ty.0) as i32),
            Family::Legacy20 => self.int(ty.0 as i32),
            _ => self.tag(ty),
        }
    }

    /// A `pmix_value_t`: its type, then its payload.
    fn value(&mut self, v: &Value) -> Result<()> {
        let ty = v.data_type();
        match self.fam {
            Family::Legacy12 => self.int(quirks::v12_wire_type(ty.0) as i32),
            _ => self.tag(ty),
        }
        self.value_payload(v)
    }

    fn info(&mut self, i: &Info) -> Result<()> {
        self.text_required(&i.key)?;
        if self.fam != Family::Legacy12 {
            self.u32(i.flags);
        }
        if matches!(self.fam, Family::Converged | Family::Modern) {
            // `value_type` + `value_payload` for the common value types, which every
            // converged and modern component registers and a VALUE may carry.
            match &i.value {
                Value::Bool(b) => {
                    self.tag(DataType::BOOL);
                    self.u8(*b as u8);
                    return Ok(());
                }
                Value::Uint32(x) => {
                    self.tag(DataType::UINT32);
                    self.u32(*x);
                    return Ok(());
                }
                Value::Uint64(x) => {
                    self.tag(DataType::UINT64);
                    self.u64(*x);
                    return Ok(());
                }
                Value::String(s) => {
                    self.tag(DataType::STRING);
                    return self.text(s);
                }
                Value::Proc(p) => {
                    self.tag(DataType::PROC);
                    return self.proc(p);
                }
                _ => {}
            }
        }
        self.value_type(i.value.data_type());
        self.value_payload(&i.value)
    }

    /// The base-driver INFO layout, used by v20's INFO_ARRAY packer.
    fn base_info(&mut self, i: &Info) -> Result<()> {
        self.string(Some(&i.key[..]))?;
        self.u32(i.flags);
        self.tag(i.value.data_type());
        // The base pack_val calls v20's registered packers directly, not through
        // pack_buffer: no described-mode tag in front of the payload (quirk L2).
        if i.value.data_type() == DataType::UNDEF {
            return Ok(());
        }
        self.one(&i.value)
    }

    fn app(&mut self, a: &App) -> Result<()> {
        // A C argv/env is a NULL-terminated char**: a NULL element cannot be packed (the
        // list would end there), and the unpacker refuses one (quirk U17).
        for (what, list) in [("argv", &a.argv), ("env", &a.env)] {
            if let Some(i) = list.iter().position(|s| s.is_none()) {
                return Err(fail(
                    Status::ERR_BAD_PARAM,
                    format!("NULL APP {what}[{i}]: a C argv list ends at its first NULL"),
                ));
            }
        }
        self.text(&a.cmd)?;
        self.int(a.argv.len() as i32);
        for s in &a.argv {
            self.text(s)?;
        }
        self.i32(a.env.len() as i32);
        for s in &a.env {
            self.text(s)?;
        }
        if self.fam != Family::Legacy12 {
            self.text(&a.cwd)?;
        }
        self.int(a.maxprocs);
        self.size(a.info.len() as u64);
        for i in &a.info {
            self.info(i)?;
        }
        Ok(())
    }

    fn darray(&mut self, d: &DataArray) -> Result<()> {
        for v in &d.values {
            if v.data_type() != d.ty {
                return Err(fail(
                    Status::ERR_BAD_PARAM,
                    format!("{} element in a DATA_ARRAY of {}", v.data_type(), d.ty),
                ));
            }
        }
        if self.depth >= MAX_ARRAY_DEPTH
            && self.rel.profile().darray_pack_depth_cap
            && !self.legacy()
        {
            return Err(fail(
                Status::ERR_PACK_FAILURE,
                "DATA_ARRAY nested deeper than 100",
            ));
        }
        match self.fam {
            Family::Legacy20 => {
                self.out.extend_from_slice(&d.ty.0.to_be_bytes());
                self.size(d.values.len() as u64);
                if d.values.is_empty() || d.ty == DataType::UNDEF {
                    return Ok(());
                }
                self.depth += 1;
                let r = self.pack_buffer(d.ty, &d.values);
                self.depth -= 1;
                r
            }
            _ => {
                self.tag(d.ty);
                if d.ty == DataType::UNDEF && !self.rel.profile().darray_undef_has_size {
                    return Ok(()); // master: the typeless marker has no SIZE (quirk R2)
                }
                self.size(d.values.len() as u64);
                if d.values.is_empty() || d.ty == DataType::UNDEF {
                    return Ok(());
                }
                if !self.comp.registers(d.ty, self.rel) {
                    return Err(fail(
                        Status::ERR_UNKNOWN_DATA_TYPE,
                        format!("{} does not register {}", self.comp, d.ty),
                    ));
                }
                self.depth += 1;
                let r = self.values(d.ty, &d.values);
                self.depth -= 1;
                r
            }
        }
    }

    /// The payload of a `pmix_value_t` of the value's own type (`pack_val`).
    fn value_payload(&mut self, v: &Value) -> Result<()> {
        let ty = v.data_type();
        if ty == DataType::UNDEF {
            return match self.fam {
                Family::Legacy12 => Err(fail(Status::ERROR, "v12 cannot pack an UNDEF value")),
                _ => Ok(()),
            };
        }
        match self.fam {
            Family::Legacy12 => {
                if !quirks::V12_VALUE_TYPES.contains(&ty) {
                    return Err(fail(
                        Status::ERROR,
                        format!("v12 cannot pack a VALUE of {ty}"),
                    ));
                }
                match v {
                    Value::DataArray(d) => {
                        if d.ty != DataType::INFO {
                            return Err(fail(
                                Status::ERR_NOT_SUPPORTED,
                                "v12 sends only arrays of INFO",
                            ));
                        }
                        let infos: Vec<Info> = d
                            .values
                            .iter()
                            .filter_map(|v| match v {
                                Value::Info(i) => Some((**i).clone()),
                                _ => None,
                            })
                            .collect();
                        self.legacy_desc(DataType::INFO_ARRAY);
                        self.one(&Value::InfoArray(infos))
                    }
                    Value::ProcRank(r) => {
                        self.legacy_desc(DataType::INT);
                        self.int(*r as i32);
                        Ok(())
                    }
                    _ => {
                        self.legacy_desc(ty);
                        self.one(v)
                    }
                }
            }
            Family::Legacy20 => {
                if !quirks::V20_VALUE_TYPES.contains(&ty) {
                    return Err(fail(
                        Status::ERROR,
                        format!("v20 cannot pack a VALUE of {ty}"),
                    ));
                }
                let wire_ty = if ty == DataType::COMPRESSED_STRING {
                    DataType::BYTE_OBJECT
                } else {
                    ty
                };
                self.legacy_desc(wire_ty);
                self.one(v)
            }
            _ => {
                if quirks::VALUE_REFUSED_TYPES.contains(&ty)
                    && self.rel.profile().value_refuses_types
                {
                    return Err(fail(
                        Status::ERR_BAD_PARAM,
                        format!("a VALUE cannot carry {ty}"),
                    ));
                }
                if !self.comp.registers(ty, self.rel) {
                    let status = if quirks::is_pointer_value_type(ty, self.rel) {
                        Status::ERR_UNKNOWN_DATA_TYPE
                    } else {
                        Status::ERROR
                    };
                    return Err(fail(
                        status,
                        format!("{} cannot pack a VALUE of {ty}", self.comp),
                    ));
                }
                if ty == DataType::DATA_BUFFER {
                    return Err(fail(
                        Status::ERR_NOT_SUPPORTED,
                        "VALUE of DATA_BUFFER: OpenPMIx packs garbage (quirk U1)",
                    ));
                }
                self.one(v)
            }
        }
    }
}
