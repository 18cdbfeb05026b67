//! The reader side: one decoder for every family over a bounded [`Reader`].

use crate::component::{BufferKind, Component, Family, FlexTail, Release};
use crate::encode::MAX_ARRAY_DEPTH;
use crate::error::{Error, Result};
use crate::float::{parse_strtod, parse_strtof};
use crate::observe::{Enc, Field, Meaning, Observer, Path, Quiet, Seg, TagRole};
use crate::quirks;
use crate::status::Status;
use crate::types::DataType;
use crate::value::*;
use crate::wire::{unzigzag, Reader};
use bytes::Bytes;

/// Decoder options beyond the release profile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DecodeOptions {
    /// Quirk D1: read modern DATA_TYPE values as plain varints (as written) instead of
    /// zigzag (as OpenPMIx reads them).
    pub datatype_as_written: bool,
    /// Decode what OpenPMIx's packer wrote where its own unpacker reads something else
    /// (quirks D1, L2, U8, U10, U11, U12, U13): useful to inspect bytes and to prove a
    /// round trip. Off by default: we decode like the C receiver does.
    pub as_written: bool,
}

pub(crate) struct Dec<'a, O: Observer = Quiet> {
    pub r: Reader<'a>,
    /// The input as shared memory, when there is one: strings and byte payloads are then
    /// slices of it (no copy); otherwise they are copied out of the borrowed input.
    src: Option<&'a Bytes>,
    fam: Family,
    comp: Component,
    rel: Release,
    desc: bool,
    depth: u32,
    opts: DecodeOptions,
    /// Inside a self-tagged integer array: the remote type its one tag announced.
    array_int: Option<DataType>,
    /// Reading the second or later value of one integer unpack call (quirk R1).
    int_tail: bool,
    /// INFO_ARRAY nesting depth.
    info_depth: u32,
    /// QUERY nesting depth (a qualifier's value can be a QUERY again).
    query_depth: u32,
    /// POINTER values this decode may still produce. One sentinel byte stands for a whole
    /// run (quirk P1), so the budget is shared by the whole decode - the input's length
    /// plus [`POINTER_SLACK`] - and many short runs cannot multiply it.
    pointer_budget: u64,
    /// Who hears what is read ([`Quiet`] on the plain API: nothing below runs for it).
    obs: O,
    /// The observer's path: the structures open around the current read.
    path: Vec<Seg>,
    /// How many steps of `path` each open structure took (a pending name opens with it).
    frames: Vec<u8>,
    /// The name of the next field, given by the structure about to read it.
    pending: Option<Seg>,
    /// Bytes of room this decode may still reserve ahead of decoding (`Dec::make_room`).
    reserve_budget: usize,
    /// Whether a VALUE of every type in [`QUICK_VALUE_TYPES`] passes `value_payload`'s
    /// checks (family, registration, release refusals): decided once, not per value.
    quick_values: bool,
    /// The release's string rules, read once (`Profile::string_forces_nul`,
    /// `Profile::negative_string_is_null`).
    string_forces_nul: bool,
    negative_string_is_null: bool,
    /// Whether the values read are kept. A view (`Codec::view`) reads every value once to
    /// check and index the input and keeps none: each container's elements are dropped as
    /// they are read, so its heap stays bounded by the nesting, not by the input.
    keep_values: bool,
}

/// The value types an INFO usually carries, read inline by `Dec::info_rest`.
const QUICK_VALUE_TYPES: [DataType; 5] = [
    DataType::BOOL,
    DataType::UINT32,
    DataType::UINT64,
    DataType::STRING,
    DataType::PROC,
];

/// How the values of one call (or DATA_ARRAY payload) are read, decided by `Dec::plan`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Plan {
    /// Each value on its own ([`Dec::one`]).
    General,
    /// A self-describing integer array: one always-tag, read once, names the remote width
    /// of every value (quirk D2).
    SelfTagged(DataType),
    /// A modern integer array: values after the first are read as a tail (quirk R1).
    ModernInt,
    /// POINTERs: one sentinel byte stands for them all, no bytes per value (quirk P1).
    Pointers,
}

/// How many POINTER values beyond the input's length one decode may produce.
const POINTER_SLACK: u64 = 4096;

/// The most values reserved ahead of decoding them once the reservation budget is spent
/// (see `Dec::make_room`).
const RESERVE_AHEAD: usize = 4096;

/// Bytes of room one decode may reserve ahead of decoding, per input byte.
const RESERVE_PER_INPUT_BYTE: usize = 8;

#[cold]
#[inline(never)]
fn err(status: Status, at: usize, reason: impl Into<String>) -> Error {
    Error::new(status, at, reason)
}

impl<'a> Dec<'a, Quiet> {
    pub fn new(
        bytes: &'a [u8],
        comp: Component,
        kind: BufferKind,
        rel: Release,
        opts: DecodeOptions,
    ) -> Self {
        Dec {
            r: Reader::new(bytes),
            src: None,
            fam: comp.family(),
            comp,
            rel,
            desc: kind == BufferKind::FullyDescribed,
            depth: 0,
            opts,
            array_int: None,
            int_tail: false,
            info_depth: 0,
            query_depth: 0,
            pointer_budget: bytes.len() as u64 + POINTER_SLACK,
            reserve_budget: bytes.len().saturating_mul(RESERVE_PER_INPUT_BYTE),
            quick_values: matches!(comp.family(), Family::Converged | Family::Modern)
                && QUICK_VALUE_TYPES.iter().all(|ty| {
                    !quirks::VALUE_REFUSED_TYPES.contains(ty)
                        && comp.registers(*ty, rel)
                        && (opts.as_written || !rel.profile().value_unpack_refuses.contains(ty))
                }),
            string_forces_nul: rel.profile().string_forces_nul,
            negative_string_is_null: rel.profile().negative_string_is_null,
            keep_values: true,
            obs: Quiet,
            path: Vec::new(),
            frames: Vec::new(),
            pending: None,
        }
    }

    /// A decoder over shared input: what it decodes shares `src`'s memory.
    pub fn shared(
        src: &'a Bytes,
        comp: Component,
        kind: BufferKind,
        rel: Release,
        opts: DecodeOptions,
    ) -> Self {
        let mut d = Dec::new(src, comp, kind, rel, opts);
        d.src = Some(src);
        d
    }
}

impl<'a, O: Observer> Dec<'a, O> {
    /// The same decoder at the same place, reporting to `obs` from here on (with an empty
    /// path: call it between calls).
    pub fn observed<P: Observer>(&self, obs: P) -> Dec<'a, P> {
        Dec {
            r: self.r.clone(),
            src: self.src,
            fam: self.fam,
            comp: self.comp,
            rel: self.rel,
            desc: self.desc,
            depth: self.depth,
            opts: self.opts,
            array_int: self.array_int,
            int_tail: self.int_tail,
            info_depth: self.info_depth,
            query_depth: self.query_depth,
            pointer_budget: self.pointer_budget,
            reserve_budget: self.reserve_budget,
            quick_values: self.quick_values,
            string_forces_nul: self.string_forces_nul,
            negative_string_is_null: self.negative_string_is_null,
            keep_values: self.keep_values,
            obs,
            path: Vec::new(),
            frames: Vec::new(),
            pending: None,
        }
    }

    /// A silent copy of this decoder at the same place: to look ahead, or to run a call
    /// again from here.
    pub fn snapshot(&self) -> Dec<'a, Quiet> {
        self.observed(Quiet)
    }

    // ---- the observer's view (all of it compiles away for `Quiet`) --------------------

    /// Where a field starts, for [`Dec::emit`].
    #[inline(always)]
    fn mark(&self) -> usize {
        if O::ACTIVE && O::FIELDS {
            self.r.offset()
        } else {
            0
        }
    }
    /// Report the bytes from `at` to the cursor as one field.
    #[inline(always)]
    fn emit(&mut self, at: usize, meaning: Meaning<'_>) {
        if O::ACTIVE && O::FIELDS {
            self.emit_field(at, meaning);
        } else if O::ACTIVE {
            self.forget_name(meaning);
        }
    }
    /// What [`Dec::emit_field`] does to the pending name, without the report.
    #[inline(never)]
    fn forget_name(&mut self, meaning: Meaning<'_>) {
        if !keeps_name(&meaning) {
            self.pending = None;
        }
    }
    #[inline(never)]
    fn emit_field(&mut self, at: usize, meaning: Meaning<'_>) {
        let keep = keeps_name(&meaning);
        let named = if keep {
            self.pending
        } else {
            self.pending.take()
        };
        if let Some(seg) = named {
            self.path.push(seg);
        }
        let field = Field {
            offset: at,
            len: self.r.offset() - at,
            path: Path(&self.path),
            meaning,
        };
        self.obs.field(&field);
        if named.is_some() {
            self.path.pop();
        }
    }
    /// Name the next field (or structure).
    #[inline(always)]
    fn name(&mut self, seg: Seg) {
        if O::ACTIVE {
            self.pending = Some(seg);
        }
    }
    /// Name the next field.
    #[inline(always)]
    fn named(&mut self, name: &'static str) -> &mut Self {
        self.name(Seg::Name(name));
        self
    }
    /// Read a structure-valued field `name` with `read`.
    #[inline(always)]
    fn within<T>(&mut self, name: &'static str, read: fn(&mut Self) -> Result<T>) -> Result<T> {
        self.enter(Seg::Name(name));
        let v = read(self)?;
        self.leave();
        Ok(v)
    }
    /// `r`, closing the innermost structure if it is a success (the identity for `Quiet`).
    #[inline(always)]
    fn left<T>(&mut self, r: Result<T>) -> Result<T> {
        if r.is_ok() {
            self.leave();
        }
        r
    }
    /// Report a note (a field of no bytes) at the current place.
    #[inline(always)]
    fn note(&mut self, text: &'static str) {
        self.emit(self.mark(), Meaning::Note(text));
    }
    /// Forget the pending name (its field has no bytes).
    #[inline(always)]
    fn unname(&mut self) {
        if O::ACTIVE {
            self.pending = None;
        }
    }
    /// Open a structure (after the pending name, which opens first around it).
    #[inline(always)]
    fn enter(&mut self, seg: Seg) {
        if O::ACTIVE {
            self.enter_path(seg);
        }
    }
    #[inline(never)]
    fn enter_path(&mut self, seg: Seg) {
        let at = self.r.offset();
        let mut segs = 1;
        if let Some(name) = self.pending.take() {
            self.path.push(name);
            self.obs.open(at, Path(&self.path));
            segs = 2;
        }
        self.path.push(seg);
        self.obs.open(at, Path(&self.path));
        self.frames.push(segs);
    }
    /// Close the innermost structure: only after success (on failure the path stays
    /// where decoding stopped, for the error).
    #[inline(always)]
    fn leave(&mut self) {
        if O::ACTIVE {
            self.leave_path();
        }
    }
    #[inline(never)]
    fn leave_path(&mut self) {
        self.pending = None;
        let at = self.r.offset();
        for _ in 0..self.frames.pop().unwrap_or(0) {
            self.obs.close(at, Path(&self.path));
            self.path.pop();
        }
    }
    /// Where decoding is now: the open structures and the field being read.
    pub fn where_now(&self) -> Vec<Seg> {
        let mut p = self.path.clone();
        p.extend(self.pending);
        p
    }
    /// Report a failure at the current place.
    pub fn report_failure(&mut self, e: &Error) {
        if O::ACTIVE {
            let p = self.where_now();
            self.obs.fail(e, Path(&p));
        }
    }

    /// `b` (a slice of the input) as [`Bytes`]: shared with the input when it is shared
    /// memory, else copied.
    #[inline]
    fn share(&self, b: &'a [u8]) -> Bytes {
        match self.src {
            Some(src) => src.slice_ref(b),
            None => Bytes::copy_from_slice(b),
        }
    }
    /// `b` (a slice of the input) as a [`Text`]: inline when short, else shared like
    /// [`Dec::share`].
    #[inline]
    fn text(&self, b: &'a [u8]) -> Text {
        if b.len() <= Text::INLINE {
            // one fixed-size copy from where `b` starts in the input, when the input is
            // long enough there
            let whole = self.r.whole();
            let off = (b.as_ptr() as usize).wrapping_sub(whole.as_ptr() as usize);
            if let Some(chunk) = whole.get(off..off.wrapping_add(Text::INLINE + 1)) {
                if let Ok(chunk) = <&[u8; Text::INLINE + 1]>::try_from(chunk) {
                    return Text::inline_prefix(chunk, b.len());
                }
            }
            return Text::copy_from(b);
        }
        match self.src {
            Some(src) => Text::from_shared(src.slice_ref(b)),
            None => Text::copy_from(b),
        }
    }

    /// Take `n` POINTER values from the per-decode budget, if it still has them.
    fn spend_pointers(&mut self, n: u64) -> bool {
        if n > self.pointer_budget {
            return false;
        }
        self.pointer_budget -= n;
        true
    }

    fn datatype_as_written(&self) -> bool {
        self.opts.datatype_as_written || self.opts.as_written
    }
    #[inline]
    fn as_read(&self) -> bool {
        !self.opts.as_written
    }
    #[inline]
    fn legacy(&self) -> bool {
        matches!(self.fam, Family::Legacy12 | Family::Legacy20)
    }
    #[inline]
    fn at(&self) -> usize {
        self.r.offset()
    }

    // ---- primitives -------------------------------------------------------------------

    #[inline]
    fn u8(&mut self) -> Result<u8> {
        let at = self.mark();
        let v = self.r.u8()?;
        self.emit_int(at, v as i128, Enc::Byte);
        Ok(v)
    }
    /// Report an integer field.
    #[inline(always)]
    fn emit_int(&mut self, at: usize, value: i128, enc: Enc) {
        self.emit(at, Meaning::Int { value, enc });
    }
    /// A flex integer. An empty region is -50 when an integer unpack call begins there,
    /// but 4.2.x over-reads (-63) when it is the second or later value of one call (quirk R1).
    #[inline(always)]
    fn flex(&mut self, width: usize) -> Result<u64> {
        match self.r.flex_short(width) {
            Some(v) => Ok(v),
            None => self.flex_other(width),
        }
    }
    /// [`Dec::flex`] beyond the one- and two-byte forms.
    #[inline(never)]
    fn flex_other(&mut self, width: usize) -> Result<u64> {
        if self.r.remaining() == 0
            && self.int_tail
            && self.rel.profile().flex_tail == FlexTail::RawLastByte
        {
            return Err(err(
                Status::ERR_FATAL,
                self.at(),
                "flex integer: no bytes left inside an integer array (4.2.2 over-reads)",
            ));
        }
        self.r.flex(width, self.rel)
    }
    #[inline(always)]
    fn u16(&mut self) -> Result<u16> {
        let at = self.mark();
        let (v, enc) = match self.fam {
            Family::Modern => (self.flex(2)? as u16, Enc::Flex),
            _ => (self.r.be16()?, Enc::Be16),
        };
        self.emit_int(at, v as i128, enc);
        Ok(v)
    }
    #[inline(always)]
    fn i16(&mut self) -> Result<i16> {
        let at = self.mark();
        let (v, enc) = match self.fam {
            Family::Modern => {
                let u = self.flex(2)?;
                (unzigzag(u) as i16, Enc::Zigzag(u))
            }
            _ => (self.r.be16()? as i16, Enc::Be16),
        };
        self.emit_int(at, v as i128, enc);
        Ok(v)
    }
    #[inline(always)]
    fn u32(&mut self) -> Result<u32> {
        let at = self.mark();
        let (v, enc) = match self.fam {
            Family::Modern => (self.flex(4)? as u32, Enc::Flex),
            _ => (self.r.be32()?, Enc::Be32),
        };
        self.emit_int(at, v as i128, enc);
        Ok(v)
    }
    #[inline(always)]
    fn i32(&mut self) -> Result<i32> {
        let at = self.mark();
        let (v, enc) = self.i32_enc()?;
        self.emit_int(at, v as i128, enc);
        Ok(v)
    }
    /// An INT32 and how it was encoded, not reported.
    #[inline(always)]
    fn i32_enc(&mut self) -> Result<(i32, Enc)> {
        Ok(match self.fam {
            Family::Modern => {
                let u = self.flex(4)?;
                (unzigzag(u) as i32, Enc::Zigzag(u))
            }
            _ => (self.r.be32()? as i32, Enc::Be32),
        })
    }
    #[inline(always)]
    fn u64(&mut self) -> Result<u64> {
        let at = self.mark();
        let (v, enc) = match self.fam {
            Family::Modern => (self.flex(8)?, Enc::Flex),
            _ => (self.r.be64()?, Enc::Be64),
        };
        self.emit_int(at, v as i128, enc);
        Ok(v)
    }
    #[inline(always)]
    fn i64(&mut self) -> Result<i64> {
        let at = self.mark();
        let (v, enc) = match self.fam {
            Family::Modern => {
                let u = self.flex(8)?;
                (unzigzag(u), Enc::Zigzag(u))
            }
            _ => (self.r.be64()? as i64, Enc::Be64),
        };
        self.emit_int(at, v as i128, enc);
        Ok(v)
    }
    /// A bare big-endian u16, reported.
    fn be16(&mut self) -> Result<u16> {
        let at = self.mark();
        let v = self.r.be16()?;
        self.emit_int(at, v as i128, Enc::Be16);
        Ok(v)
    }
    /// A bare big-endian u32, reported.
    fn be32(&mut self) -> Result<u32> {
        let at = self.mark();
        let v = self.r.be32()?;
        self.emit_int(at, v as i128, Enc::Be32);
        Ok(v)
    }
    /// A bare big-endian u64, reported.
    fn be64(&mut self) -> Result<u64> {
        let at = self.mark();
        let v = self.r.be64()?;
        self.emit_int(at, v as i128, Enc::Be64);
        Ok(v)
    }
    /// `n` raw bytes, reported as one field.
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let at = self.mark();
        let b = self.r.take(n)?;
        self.emit(at, Meaning::Bytes);
        Ok(b)
    }

    /// A data-type tag in the family's encoding, carried as data (a value's type).
    #[inline]
    pub fn tag(&mut self) -> Result<DataType> {
        self.tag_as(TagRole::Type)
    }

    /// A data-type tag in the family's encoding, reported as a tag for `role`.
    #[inline]
    fn tag_as(&mut self, role: TagRole) -> Result<DataType> {
        let at = self.mark();
        let (ty, enc) = self.tag_enc()?;
        self.emit(at, Meaning::Tag { ty, role, enc });
        Ok(ty)
    }

    #[inline]
    fn tag_enc(&mut self) -> Result<(DataType, Enc)> {
        Ok(match self.fam {
            Family::Legacy12 => {
                let at = self.at();
                let v = self.r.be32()? as i32;
                if !(0..=65535).contains(&v) {
                    self.emit_int(at, v as i128, Enc::Be32);
                    return Err(err(
                        Status::ERR_UNKNOWN_DATA_TYPE,
                        at,
                        format!("v12 type number {v} out of range"),
                    ));
                }
                (quirks::v12_read_type(v as u16), Enc::Be32)
            }
            Family::Legacy20 | Family::Converged => (DataType(self.r.be16()?), Enc::Be16),
            Family::Modern => (DataType(self.flex(2)? as u16), Enc::Flex),
        })
    }

    /// v12/v20's nested described-mode tag: read it and check it names `ty`.
    fn legacy_desc(&mut self, ty: DataType) -> Result<()> {
        if self.desc && self.legacy() {
            let at = self.at();
            let got = self.tag_as(TagRole::Described)?;
            let want = match self.fam {
                // v12 compares the 1.x-mapped tag it read with the type it was asked for,
                // so a PROC (written as 22, read as INFO_ARRAY) never matches (quirk L1).
                Family::Legacy12 => quirks::v12_top_level_type(ty),
                _ if ty == DataType::COMMAND => DataType::UINT32,
                _ => ty,
            };
            if got != want {
                return Err(err(
                    Status::ERR_PACK_MISMATCH,
                    at,
                    format!("got type {got} when expecting {want}"),
                ));
            }
        }
        Ok(())
    }

    /// Read a self-describing integer packer's always-tag (plus v12/v20's described-mode
    /// tag): once per call or DATA_ARRAY payload (quirk D2).
    fn int_tag(&mut self, native: DataType) -> Result<DataType> {
        let at = self.at();
        let remote = self.tag_as(TagRole::IntTag)?;
        match remote {
            DataType::INT8
            | DataType::UINT8
            | DataType::INT16
            | DataType::UINT16
            | DataType::INT32
            | DataType::UINT32
            | DataType::INT64
            | DataType::UINT64 => {
                // Only the fast path (the tag names the native width) goes through v12/v20's
                // `unpack_buffer`, which reads a described-mode tag; the size-mismatch path
                // calls the tagged type's unpacker directly (quirk D2).
                if Some(remote) == quirks::self_tagged_int(self.fam, native) {
                    self.legacy_desc(remote)?;
                }
                Ok(remote)
            }
            other => Err(err(
                Status::ERR_NOT_FOUND,
                at,
                format!("{native} sent with non-integer type tag {other}"),
            )),
        }
    }

    /// One integer of the fixed-width type `remote` (already announced by its tag).
    fn int_of(&mut self, remote: DataType) -> Result<i128> {
        Ok(match remote {
            DataType::INT8 => self.u8()? as i8 as i128,
            DataType::UINT8 => self.u8()? as i128,
            DataType::INT16 => self.i16()? as i128,
            DataType::UINT16 => self.u16()? as i128,
            DataType::INT32 => self.i32()? as i128,
            DataType::UINT32 => self.u32()? as i128,
            DataType::INT64 => self.i64()? as i128,
            _ => self.u64()? as i128,
        })
    }

    /// Read an integer of the type named by an always-tag and convert it (`UNPACK_SIZE_MISMATCH`).
    /// Inside a self-tagged array the tag was read once already (`self.array_int`).
    fn tagged_int(&mut self, native: DataType) -> Result<i128> {
        let remote = match self.array_int {
            Some(r) => r,
            None => self.int_tag(native)?,
        };
        self.int_of(remote)
    }

    #[inline]
    fn int(&mut self) -> Result<i32> {
        if self.fam == Family::Modern {
            self.i32()
        } else {
            Ok(self.tagged_int(DataType::INT)? as i32)
        }
    }
    #[inline]
    fn size(&mut self) -> Result<u64> {
        if self.fam == Family::Modern {
            self.u64()
        } else {
            Ok(self.tagged_int(DataType::SIZE)? as u64)
        }
    }
    fn pid(&mut self) -> Result<i32> {
        Ok(self.tagged_int(DataType::PID)? as i32)
    }

    /// A nullable C string, borrowed from the input: the bytes a C reader sees.
    #[inline]
    /// 6.1's v12/v20 unpackers refuse a string length, APP envc or QUERY key count above
    /// INT_MAX-2 with PMIX_ERR_BAD_PARAM before reading further (quirk R9).
    fn taint_limit(&self, n: i32, at: usize, what: &str) -> Result<()> {
        if n > i32::MAX - 2 && self.rel.profile().taint_limit_in.contains(&self.fam) {
            return Err(err(
                Status::ERR_BAD_PARAM,
                at,
                format!("{what} {n} above INT_MAX-2 (quirk R9)"),
            ));
        }
        Ok(())
    }

    fn string_slice(&mut self) -> Result<Option<&'a [u8]>> {
        let at = self.at();
        let (len, enc) = self.i32_enc()?;
        self.emit(at, Meaning::StringLength { len, enc });
        if self.fam == Family::Legacy12 {
            self.taint_limit(len, at, "string length")?;
        }
        if len == 0 || (len < 0 && self.negative_string_is_null) {
            self.unname();
            return Ok(None);
        }
        if len < 0 {
            return Err(err(
                Status::ERR_OUT_OF_RESOURCE,
                at,
                format!("negative string length {len} (4.2.2 passes it to malloc)"),
            ));
        }
        let body_at = self.mark();
        let body = self.r.take(len as usize)?;
        // Master forces the last byte to NUL; 4.2.2 keeps it. A C reader stops at the first NUL.
        let body = if self.string_forces_nul {
            &body[..body.len() - 1]
        } else {
            body
        };
        let text = &body[..first_nul(body)];
        self.emit(body_at, Meaning::Text { text });
        Ok(Some(text))
    }
    /// A nullable C string.
    fn string(&mut self) -> Result<NullableText> {
        Ok(self.string_slice()?.map(|b| self.text(b)))
    }
    /// [`Dec::string`] into `slot`.
    #[inline(never)]
    fn string_into(&mut self, slot: &mut NullableText) -> Result<()> {
        *slot = self.string()?;
        Ok(())
    }
    /// A string that must not be NULL (keys, namespaces), cut to `max` bytes: NULL is
    /// `PMIX_ERROR`.
    #[inline]
    fn required_slice(&mut self, what: &str, max: usize) -> Result<&'a [u8]> {
        let at = self.at();
        match self.string_slice()? {
            Some(b) => Ok(&b[..b.len().min(max)]),
            None => Err(err(Status::ERROR, at, format!("NULL {what}"))),
        }
    }
    #[inline(always)]
    fn required_string(&mut self, what: &str, max: usize) -> Result<Text> {
        let b = self.required_slice(what, max)?;
        Ok(self.text(b))
    }
    /// [`Dec::required_string`] into `slot`.
    fn required_string_into(&mut self, what: &str, max: usize, slot: &mut Text) -> Result<()> {
        *slot = self.required_string(what, max)?;
        Ok(())
    }
    /// SIZE-prefixed bytes, borrowed from the input.
    #[inline]
    fn sized_slice(&mut self) -> Result<&'a [u8]> {
        if let Some((h, n)) = self.short_sized_quiet() {
            let s = self.r.take(h + n)?;
            return Ok(&s[h..]);
        }
        self.sized_slice_general()
    }
    /// The common SIZE prefixes, read without consuming anything: a modern one- or
    /// two-byte flex integer (every release reads those alike), or a converged UINT64 tag
    /// and its eight bytes; `(prefix length, payload length)` when the payload lies within
    /// the input. Anything else is left to [`Dec::sized_slice_general`].
    #[inline(always)]
    fn short_sized(&self) -> Option<(usize, usize)> {
        let rest = self.r.rest();
        let (h, n) = match (self.fam, rest) {
            (Family::Modern, [b0, ..]) if *b0 < 0x80 => (1, *b0 as u64),
            (Family::Modern, [b0, b1, ..]) if *b1 < 0x80 => {
                (2, (*b0 & 0x7f) as u64 | (*b1 as u64) << 7)
            }
            (Family::Converged, [t0, t1, a, b, c, d, e, f, g, h, ..])
                if self.array_int.is_none()
                    && u16::from_be_bytes([*t0, *t1]) == DataType::UINT64.0 =>
            {
                (10, u64::from_be_bytes([*a, *b, *c, *d, *e, *f, *g, *h]))
            }
            _ => return None,
        };
        (n <= (rest.len() - h) as u64).then_some((h, n as usize))
    }
    /// [`Dec::short_sized`] where nobody observes (an observer hears the general path).
    #[inline(always)]
    fn short_sized_quiet(&self) -> Option<(usize, usize)> {
        if O::ACTIVE {
            None
        } else {
            self.short_sized()
        }
    }
    #[inline(never)]
    fn sized_slice_general(&mut self) -> Result<&'a [u8]> {
        let at = self.at();
        // The SIZE prefix and the payload are reported under the same name.
        let name = self.pending;
        let n = self.size()?;
        self.pending = name;
        if n > self.r.remaining() as u64 {
            return Err(err(
                Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER,
                at,
                format!("{n} bytes claimed, {} left", self.r.remaining()),
            ));
        }
        self.take(n as usize)
    }
    fn sized_bytes(&mut self) -> Result<Bytes> {
        let b = self.sized_slice()?;
        Ok(self.share(b))
    }
    fn float_text(&mut self) -> Result<Option<Text>> {
        self.string()
    }
    /// A vector with room for up to `n` values, as far as the input can pay for it (see
    /// [`Dec::make_room`]).
    #[inline]
    fn with_room<T>(&mut self, n: usize) -> Vec<T> {
        let mut v = Vec::new();
        if self.keep_values {
            self.make_room(&mut v, n);
        }
        v
    }
    /// Room for one more value in `v` ([`room_for_one`]), when values are kept.
    #[inline(always)]
    fn room<T>(&mut self, v: &mut Vec<T>) -> Result<()> {
        if self.keep_values {
            room_for_one(v, self.at())?;
        }
        Ok(())
    }
    /// `v.push(x)` after [`Dec::room`], or drop `x` when values are not kept.
    #[inline(always)]
    fn put<T>(&self, v: &mut Vec<T>, x: T) {
        if self.keep_values {
            v.push(x);
        }
    }
    /// Reserve room in `v` for up to `n` more values: no more than one per byte left, and
    /// only while the decode's reservation budget ([`RESERVE_PER_INPUT_BYTE`] bytes per
    /// input byte, shared by every container of the decode, so nesting cannot multiply it)
    /// lasts; beyond that, at most [`RESERVE_AHEAD`] at once. A lying count so costs no
    /// memory the input has not paid for, and an honest one gets its exact room.
    #[inline]
    fn make_room<T>(&mut self, v: &mut Vec<T>, n: usize) {
        let size = std::mem::size_of::<T>().max(1);
        let n = n.min(self.r.remaining());
        let afford = self.reserve_budget / size;
        let k = if n <= afford { n } else { n.min(RESERVE_AHEAD) };
        self.reserve_budget = self.reserve_budget.saturating_sub(k * size);
        // best effort: when memory is short, the values are refused as they grow
        let _ = v.try_reserve(k);
    }

    /// Containers open around the current read, all kinds together (DATA_ARRAY, INFO_ARRAY,
    /// QUERY): the cap applies to their sum, so alternating kinds cannot nest deeper.
    #[inline]
    fn nesting(&self) -> u32 {
        self.depth + self.info_depth + self.query_depth
    }

    fn count_check(&self, n: u64, at: usize, what: &str) -> Result<usize> {
        if n > self.r.remaining() as u64 {
            return Err(err(
                Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER,
                at,
                format!(
                    "{what} count {n} exceeds the {} bytes left",
                    self.r.remaining()
                ),
            ));
        }
        Ok(n as usize)
    }
    #[inline]
    fn proc_rank(&mut self) -> Result<u32> {
        if self.fam == Family::Legacy12 {
            Ok(self.int()? as u32)
        } else {
            self.u32()
        }
    }
    /// A PROC's rank. v12's unpacker maps the 1.x special ranks INT32_MAX (UNDEF) and
    /// INT32_MAX - 1 (WILDCARD) to today's (its packer writes ranks unchanged).
    #[inline]
    fn struct_rank(&mut self) -> Result<u32> {
        let r = self.proc_rank()?;
        Ok(match r {
            0x7fff_ffff if self.fam == Family::Legacy12 => u32::MAX,
            0x7fff_fffe if self.fam == Family::Legacy12 => u32::MAX - 1,
            r => r,
        })
    }
    #[inline(always)]
    fn proc(&mut self) -> Result<Proc> {
        self.name(Seg::Name("nspace"));
        let nspace = self.required_string("namespace", 255)?;
        self.name(Seg::Name("rank"));
        let rank = self.struct_rank()?;
        Ok(Proc { nspace, rank })
    }
    /// [`Dec::proc`] into `p`, reusing its memory.
    #[inline(never)]
    fn proc_into(&mut self, p: &mut Proc) -> Result<()> {
        self.name(Seg::Name("nspace"));
        self.required_string_into("namespace", 255, &mut p.nspace)?;
        self.name(Seg::Name("rank"));
        p.rank = self.struct_rank()?;
        Ok(())
    }
    fn timeval(&mut self) -> Result<Timeval> {
        // Both halves are one INT64 unpack call of two values (quirk R1 for the second).
        self.name(Seg::Name("sec"));
        let sec = self.i64()?;
        let was = std::mem::replace(&mut self.int_tail, true);
        self.name(Seg::Name("usec"));
        let usec = self.i64();
        self.int_tail = was;
        Ok(Timeval { sec, usec: usec? })
    }
    fn coord(&mut self) -> Result<Coord> {
        self.name(Seg::Name("view"));
        let view = self.named("view").u8()?;
        self.name(Seg::Name("dims"));
        let n = self.size()?;
        // No early count check: C allocates `dims` and fails while reading (-50 at the
        // first coordinate, -63 in 4.2.x at a later one); capacity stays bounded by the input.
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        let mut coord = self.with_room(n);
        for i in 0..n {
            self.int_tail = i > 0;
            self.name(Seg::Index(i));
            let c = self.u32();
            self.int_tail = false;
            self.room(&mut coord)?;
            self.put(&mut coord, c?);
        }
        Ok(Coord { view, coord })
    }
    fn texts(&mut self, n: usize) -> Result<Vec<NullableText>> {
        let mut v = self.with_room(n);
        for i in 0..n {
            self.name(Seg::Index(i));
            self.room(&mut v)?;
            let s = self.string()?;
            self.put(&mut v, s);
        }
        Ok(v)
    }

    /// An APP's argv or env: `n` strings, none of which may be NULL for the unpacker
    /// (quirk U17); as written, a NULL is kept.
    fn app_texts(&mut self, n: usize, what: &str) -> Result<Vec<NullableText>> {
        let mut v = self.with_room(n);
        for i in 0..n {
            let at = self.at();
            self.name(Seg::Index(i));
            let s = self.string()?;
            if s.is_none() && self.as_read() {
                self.name(Seg::Index(i));
                return Err(err(
                    Status::ERROR,
                    at,
                    format!("NULL APP {what}[{i}]: the unpacker refuses it (quirk U17)"),
                ));
            }
            self.room(&mut v)?;
            self.put(&mut v, s);
        }
        Ok(v)
    }

    // ---- unpack calls -----------------------------------------------------------------

    /// One top-level unpack call of `ty` with room for `capacity` values.
    pub fn unpack_call(&mut self, ty: DataType, capacity: usize) -> Result<Item> {
        let mut values = Vec::new();
        self.unpack_call_into(ty, capacity, &mut values)?;
        Ok(Item { ty, values })
    }

    /// [`Dec::unpack_call`] into `values`, reusing the memory of the values already there
    /// (the same values come out either way). On error `values` holds garbage.
    pub fn unpack_call_into(
        &mut self,
        ty: DataType,
        capacity: usize,
        values: &mut Vec<Value>,
    ) -> Result<()> {
        self.enter(Seg::Type(ty));
        let (n, count_at) = self.call_header(ty, capacity)?;
        self.unpack_buffer(ty, n.min(capacity), count_at, values)?;
        let r = Self::call_capacity(n, capacity, count_at);
        self.left(r)
    }

    /// One top-level unpack call of `ty` with room for `capacity` values, as
    /// [`Dec::unpack_call`] reads it, appending where each value starts to `offsets`
    /// instead of keeping the values: a view's index (see `crate::view`). Returns the
    /// number of values and how they are read.
    pub fn index_call(
        &mut self,
        ty: DataType,
        capacity: usize,
        offsets: &mut Vec<u32>,
    ) -> Result<(usize, Plan)> {
        self.enter(Seg::Type(ty));
        let (n, count_at) = self.call_header(ty, capacity)?;
        self.buffer_prologue(ty, count_at)?;
        let take = n.min(capacity);
        let plan = self.plan(ty, take)?;
        if plan != Plan::Pointers {
            self.make_room(offsets, take);
            for i in 0..take {
                // the caller keeps inputs under 4 GiB
                let start = self.r.offset() as u32;
                drop(self.element(ty, i, plan)?);
                // room after the value: a count that lies runs out of input, not of room
                room_for_one(offsets, self.at())?;
                offsets.push(start);
            }
        }
        let r = Self::call_capacity(n, capacity, count_at);
        self.left(r).map(|()| (take, plan))
    }

    /// One top-level unpack call of BYTE_OBJECT, its payloads borrowed from the input:
    /// [`Dec::unpack_call_into`] without a copy. On error `out` holds garbage.
    pub fn unpack_byte_objects(&mut self, capacity: usize, out: &mut Vec<&'a [u8]>) -> Result<()> {
        let ty = DataType::BYTE_OBJECT;
        self.enter(Seg::Type(ty));
        let (n, count_at) = self.call_header(ty, capacity)?;
        self.buffer_prologue(ty, count_at)?;
        // `values(BYTE_OBJECT, n)`: in every family one `leaf`, i.e. one SIZE-prefixed slice,
        // per value.
        let take = n.min(capacity);
        out.clear();
        self.make_room(out, take);
        for i in 0..take {
            self.name(Seg::Index(i));
            // `sized_slice`, its fast path inline
            let (s, stride) = match self.short_sized_quiet() {
                Some((h, n)) => (&self.r.take(h + n)?[h..], h + n),
                None => (self.sized_slice_general()?, 0),
            };
            room_for_one(out, self.at())?;
            out.push(s);
            touch_ahead(self.r.rest(), stride);
        }
        let r = Self::call_capacity(n, capacity, count_at);
        self.left(r)
    }

    /// A call's described-mode count tag and count: (values sent, where the count is).
    fn call_header(&mut self, ty: DataType, capacity: usize) -> Result<(usize, usize)> {
        if let Some(reason) = self.rel.refusal(self.comp) {
            // A component the release does not register unpacks nothing.
            return Err(err(Status::ERR_NOT_SUPPORTED, self.at(), reason));
        }
        if capacity == 0 {
            return Err(err(
                Status::ERR_UNPACK_INADEQUATE_SPACE,
                self.at(),
                "capacity 0",
            ));
        }
        if self.desc {
            let at = self.at();
            let t = self.tag_as(TagRole::CountTag)?;
            if t != DataType::INT32 {
                return Err(err(
                    Status::ERR_UNPACK_FAILURE,
                    at,
                    format!("described buffer: expected INT32 count tag, got {t}"),
                ));
            }
        }
        let count_at = self.at();
        self.name(Seg::Name("count"));
        let count = self.i32()?;
        if count < 0 && self.negative_count_fails(ty)? {
            return Err(err(
                Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER,
                count_at,
                format!(
                    "negative count {count}: the unpacker checks count * size bytes (quirk U5)"
                ),
            ));
        }
        Ok((if count < 0 { 0 } else { count as usize }, count_at))
    }

    /// Whether a top-level call of `ty` with a negative count fails with -50 (quirk U5).
    /// The native-size unpackers (SIZE, PID, INT, UINT; v12's enums) first read their
    /// integer tag and hand the call to the tagged type's unpacker, so the tag decides; it
    /// is read here on a copy of the cursor (the values path reads it again, quirk D2).
    fn negative_count_fails(&self, ty: DataType) -> Result<bool> {
        if !self.comp.registers(ty, self.rel) {
            // the unknown type is refused first (-16)
            return Ok(false);
        }
        let mut probe = self.snapshot();
        if quirks::self_tagged_int(self.fam, ty).is_some() {
            probe.check_buffer_tag(ty)?;
            let remote = probe.int_tag(ty)?;
            return Ok(quirks::negative_count_past_end(self.fam, remote));
        }
        if quirks::negative_count_past_end(self.fam, ty) {
            probe.check_buffer_tag(ty)?;
            return Ok(true);
        }
        Ok(false)
    }

    /// After a call's values: more values sent than there was room for fail the call.
    fn call_capacity(n: usize, capacity: usize, count_at: usize) -> Result<()> {
        if n > capacity {
            return Err(err(
                Status::ERR_UNPACK_INADEQUATE_SPACE,
                count_at,
                format!("{n} values sent, room for {capacity}"),
            ));
        }
        Ok(())
    }

    /// Read the described-mode type of the next record without consuming anything.
    pub fn peek_described_type(&self) -> Result<DataType> {
        let mut probe = self.snapshot();
        let at = probe.at();
        let t = probe.tag()?;
        if t != DataType::INT32 {
            return Err(err(
                Status::ERR_UNPACK_FAILURE,
                at,
                format!("expected INT32 count tag, got {t}"),
            ));
        }
        probe.i32()?;
        let t = probe.tag()?;
        Ok(match self.fam {
            Family::Legacy20 if t == DataType::UINT32 => t,
            _ => t,
        })
    }

    fn unpack_buffer(
        &mut self,
        ty: DataType,
        n: usize,
        count_at: usize,
        out: &mut Vec<Value>,
    ) -> Result<()> {
        self.buffer_prologue(ty, count_at)?;
        self.values_into(ty, n, out)
    }

    /// `pack_buffer`'s tag, the registration check and quirk U6, before a call's values.
    fn buffer_prologue(&mut self, ty: DataType, count_at: usize) -> Result<()> {
        self.check_buffer_tag(ty)?;
        if !self.comp.registers(ty, self.rel) {
            return Err(err(
                Status::ERR_UNKNOWN_DATA_TYPE,
                self.at(),
                format!("{} does not register {}", self.comp, ty),
            ));
        }
        // Quirk U6: the modern integer unpacker refuses an empty buffer before the loop.
        if self.fam == Family::Modern && self.r.remaining() == 0 && quirks::modern_int_entry(ty) {
            return Err(err(
                Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER,
                count_at,
                "empty buffer at an integer record",
            ));
        }
        Ok(())
    }

    /// [`Dec::values`] into `out`, reusing the memory of the values already there for the
    /// types worth it; the others are decoded afresh.
    fn values_into(&mut self, ty: DataType, n: usize, out: &mut Vec<Value>) -> Result<()> {
        let in_place = matches!(
            ty,
            DataType::INFO
                | DataType::PROC
                | DataType::STRING
                | DataType::BYTE_OBJECT
                | DataType::DATA_ARRAY
        ) && self.fam != Family::Legacy12
            && quirks::self_tagged_int(self.fam, ty).is_none()
            && !(self.fam == Family::Modern && quirks::modern_int_array(ty));
        if !in_place || !self.keep_values {
            *out = self.values(ty, n)?;
            return Ok(());
        }
        // `values`' general loop, one value at a time. This frame is on the recursion path
        // of nested arrays: what is big stays in the functions called.
        out.truncate(n);
        let reuse = out.len();
        if ty == DataType::BYTE_OBJECT {
            self.byte_objects_into(out)?;
        } else if !O::ACTIVE && ty == DataType::PROC {
            // built in registers and assigned in place (see `fill`)
            for slot in out.iter_mut() {
                match slot {
                    Value::Proc(p) => *p = self.proc()?,
                    slot => self.one_into(ty, slot)?,
                }
            }
        } else {
            for (i, slot) in out.iter_mut().enumerate() {
                self.enter(Seg::Index(i));
                self.one_into(ty, slot)?;
                self.leave();
            }
        }
        self.push_fresh(ty, n - reuse, out)
    }

    /// `one_into(BYTE_OBJECT, slot)` for every slot of `out`, the common case inline.
    #[inline(never)]
    fn byte_objects_into(&mut self, out: &mut [Value]) -> Result<()> {
        for (i, slot) in out.iter_mut().enumerate() {
            self.name(Seg::Index(i));
            match slot {
                Value::ByteObject(b) => {
                    // `sized_slice`, its fast path inline
                    let s = match self.short_sized_quiet() {
                        Some((h, n)) => &self.r.take(h + n)?[h..],
                        None => self.sized_slice_general()?,
                    };
                    *b = self.share(s);
                }
                slot => self.one_into(DataType::BYTE_OBJECT, slot)?,
            }
        }
        Ok(())
    }

    /// Decode `n` more values of `ty` onto `out`.
    #[inline(never)]
    fn push_fresh(&mut self, ty: DataType, n: usize, out: &mut Vec<Value>) -> Result<()> {
        let first = out.len();
        self.make_room(out, n);
        if !O::ACTIVE {
            // The common element types, each value built where it goes (see `fill`).
            match ty {
                DataType::PROC => return self.fill(out, n, |d| Ok(Value::Proc(d.proc()?))),
                DataType::BYTE_OBJECT => {
                    return self.fill(out, n, |d| Ok(Value::ByteObject(d.sized_bytes()?)))
                }
                DataType::INFO => return self.fill(out, n, Self::boxed_info_quiet),
                _ => {}
            }
        }
        for i in 0..n {
            self.enter(Seg::Index(first + i));
            let v = self.one_hot(ty)?;
            self.leave();
            room_for_one(out, self.at())?;
            out.push(v);
        }
        Ok(())
    }

    /// `n` values read by `read`, pushed onto `out`. The slot is found before the value is
    /// read, so the value is written straight into it: a value built on the stack and then
    /// copied is read back in wider words than its tag was written in, which stalls the
    /// CPU's store forwarding (measured: a quarter of a PROC's or an INFO's decode).
    #[inline(always)]
    fn fill(
        &mut self,
        out: &mut Vec<Value>,
        n: usize,
        mut read: impl FnMut(&mut Self) -> Result<Value>,
    ) -> Result<()> {
        for _ in 0..n {
            room_for_one(out, self.at())?;
            let len = out.len();
            // SAFETY: there is room for one more value (made above).
            let slot = unsafe { out.as_mut_ptr().add(len) };
            let v = read(self)?;
            // SAFETY: `slot` is the spare slot just past the length, written before the
            // length covers it.
            unsafe {
                slot.write(v);
                out.set_len(len + 1);
            }
        }
        Ok(())
    }

    /// [`Dec::one`] with the common element types first.
    #[inline]
    fn one_hot(&mut self, ty: DataType) -> Result<Value> {
        Ok(match ty {
            DataType::PROC => Value::Proc(self.proc()?),
            DataType::STRING => Value::String(self.string()?),
            DataType::BYTE_OBJECT => Value::ByteObject(self.sized_bytes()?),
            DataType::INFO => Value::Info(Box::new(self.info()?)),
            // the common INFO value types, as `leaf` reads them, without its frame
            DataType::BOOL => Value::Bool(self.u8()? != 0),
            DataType::UINT32 => Value::Uint32(self.u32()?),
            DataType::UINT64 => Value::Uint64(self.u64()?),
            _ => self.one(ty)?,
        })
    }

    /// [`Dec::one`] into `slot`, reusing its memory when it holds a value of the same kind.
    /// On the recursion path of nested arrays: keep its frame small.
    fn one_into(&mut self, ty: DataType, slot: &mut Value) -> Result<()> {
        match (ty, slot) {
            (DataType::PROC, Value::Proc(p)) => self.proc_into(p),
            (DataType::STRING, Value::String(s)) => self.string_into(s),
            (DataType::BYTE_OBJECT, Value::ByteObject(b)) => self.sized_into(b),
            (DataType::INFO, Value::Info(i)) => self.info_into(i),
            // `leaf` for these is one primitive read.
            (DataType::BOOL, Value::Bool(x)) => {
                *x = self.u8()? != 0;
                Ok(())
            }
            (DataType::UINT8, Value::Uint8(x)) => {
                *x = self.u8()?;
                Ok(())
            }
            (DataType::UINT16, Value::Uint16(x)) => {
                *x = self.u16()?;
                Ok(())
            }
            (DataType::UINT32, Value::Uint32(x)) => {
                *x = self.u32()?;
                Ok(())
            }
            (DataType::UINT64, Value::Uint64(x)) => {
                *x = self.u64()?;
                Ok(())
            }
            (DataType::INT32, Value::Int32(x)) => {
                *x = self.i32()?;
                Ok(())
            }
            (DataType::DATA_ARRAY, Value::DataArray(d)) => self.darray_into(d),
            (_, slot) => self.replace(ty, slot),
        }
    }

    /// `*slot = one(ty)`.
    #[inline(never)]
    fn replace(&mut self, ty: DataType, slot: &mut Value) -> Result<()> {
        *slot = self.one_hot(ty)?;
        Ok(())
    }

    /// [`Dec::sized_bytes`] into `b`.
    #[inline(never)]
    fn sized_into(&mut self, b: &mut Bytes) -> Result<()> {
        *b = self.sized_bytes()?;
        Ok(())
    }

    /// `pack_buffer`'s described-mode type tag in front of a call's values.
    fn check_buffer_tag(&mut self, ty: DataType) -> Result<()> {
        if self.desc {
            let at = self.at();
            let got = self.tag_as(TagRole::CallType)?;
            let want = match self.fam {
                Family::Legacy20 if ty == DataType::COMMAND => DataType::UINT32,
                // v12 compares the 1.x-mapped tag it read with the type it was asked for,
                // so a PROC (written as 22, read as INFO_ARRAY) never matches (quirk L1).
                Family::Legacy12 => quirks::v12_top_level_type(ty),
                _ => ty,
            };
            if got != want {
                return Err(err(
                    Status::ERR_PACK_MISMATCH,
                    at,
                    format!("got type {got} when expecting {want}"),
                ));
            }
        }
        Ok(())
    }

    #[inline(never)]
    fn values(&mut self, ty: DataType, n: usize) -> Result<Vec<Value>> {
        let plan = self.plan(ty, n)?;
        if plan == Plan::Pointers {
            // Bounded: the pointer budget was spent for them (quirk P1).
            return Ok(if self.keep_values {
                vec![Value::Pointer; n]
            } else {
                Vec::new()
            });
        }
        let mut out = self.with_room(n);
        for i in 0..n {
            let v = self.element(ty, i, plan)?;
            self.room(&mut out)?;
            self.put(&mut out, v);
        }
        Ok(out)
    }

    /// What a call (or a DATA_ARRAY payload) of `n` values of `ty` reads before its first
    /// value, and how each value is then read (see [`Dec::element`]).
    pub fn plan(&mut self, ty: DataType, n: usize) -> Result<Plan> {
        match (self.fam, ty) {
            (
                Family::Legacy12,
                DataType::POINTER | DataType::INFO_DIRECTIVES | DataType::PROC_STATE,
            ) => {
                return Err(err(
                    Status::ERR_NOT_SUPPORTED,
                    self.at(),
                    format!("v12 cannot unpack {ty}"),
                ));
            }
            (Family::Legacy12, DataType::DATA_ARRAY | DataType::PROC_INFO | DataType::QUERY) => {
                return Err(err(
                    Status::ERR_NOT_SUPPORTED,
                    self.at(),
                    format!("v12 cannot unpack {ty}"),
                ));
            }
            (_, DataType::POINTER) => {
                self.name(Seg::Name("sentinel"));
                self.u8()?;
                // Bounded: one sentinel byte stands for the whole call (quirk P1).
                if !self.spend_pointers(n as u64) {
                    return Err(err(
                        Status::ERR_NOMEM,
                        self.at(),
                        format!("{n} pointers for one sentinel byte"),
                    ));
                }
                return Ok(Plan::Pointers);
            }
            _ => {}
        }
        if quirks::self_tagged_int(self.fam, ty).is_some() {
            // One always-tag for the whole array, read even for an empty one (quirk D2).
            return Ok(Plan::SelfTagged(self.int_tag(ty)?));
        }
        if self.fam == Family::Modern && quirks::modern_int_array(ty) {
            return Ok(Plan::ModernInt);
        }
        Ok(Plan::General)
    }

    /// Value `i` of a call (or DATA_ARRAY payload) of `ty` read under `plan`: the integer
    /// state of quirks R1 and D2 is set from `i` alone, so a value can be read again from
    /// its offset (a view's element) exactly as the call's loop read it.
    #[inline]
    pub fn element(&mut self, ty: DataType, i: usize, plan: Plan) -> Result<Value> {
        self.enter(Seg::Index(i));
        let v = match plan {
            Plan::General => self.one(ty),
            Plan::SelfTagged(remote) => {
                self.array_int = Some(remote);
                self.int_tail = i > 0 && self.fam == Family::Modern;
                let v = self.leaf(ty);
                self.int_tail = false;
                self.array_int = None;
                v
            }
            Plan::ModernInt => {
                self.int_tail = i > 0;
                let v = self.leaf(ty);
                self.int_tail = false;
                v
            }
            Plan::Pointers => Ok(Value::Pointer),
        }?;
        self.leave();
        Ok(v)
    }

    /// Move forward to `offset` of the input without reading what lies between (to a view's
    /// value).
    pub fn seek(&mut self, offset: usize) -> Result<()> {
        let at = self.r.offset();
        if offset < at {
            return Err(err(Status::ERR_BAD_PARAM, at, "cannot seek backwards"));
        }
        self.r.take(offset - at).map(|_| ())
    }

    /// Keep no values: check the input and drop what is read (see `keep_values`).
    pub fn discarding(mut self) -> Self {
        self.keep_values = false;
        self
    }

    /// One value of `ty`. Types that can nest are handled here, in a small frame, so the
    /// recursion through DATA_ARRAY/VALUE/INFO stays shallow on the stack even in debug builds.
    fn one(&mut self, ty: DataType) -> Result<Value> {
        let at = self.at();
        Ok(match ty {
            DataType::VALUE => Value::Value(Box::new(self.value()?)),
            DataType::APP => Value::App(Box::new(self.app()?)),
            DataType::INFO => Value::Info(Box::new(self.info()?)),
            DataType::PDATA => self.pdata()?,
            DataType::KVAL => self.kval()?,
            DataType::DATA_ARRAY => Value::DataArray(Box::new(self.darray()?)),
            DataType::QUERY => self.query(at)?,
            DataType::INFO_ARRAY => self.info_array(at)?,
            _ => self.leaf(ty)?,
        })
    }

    #[inline(never)]
    fn kval(&mut self) -> Result<Value> {
        self.name(Seg::Name("key"));
        let key = self.string()?;
        self.enter(Seg::Name("value"));
        let value = self.value()?;
        self.leave();
        Ok(Value::Kval(Box::new(Kval { key, value })))
    }

    #[inline(never)]
    fn pdata(&mut self) -> Result<Value> {
        let proc = self.within("proc", Self::proc)?;
        self.name(Seg::Name("key"));
        let key = self.required_string("key", 511)?;
        self.enter(Seg::Name("value"));
        let vt = self.value_type()?;
        self.enter(Seg::Type(vt));
        let value = self.value_payload(vt)?;
        self.leave();
        self.leave();
        Ok(Value::Pdata(Box::new(Pdata { proc, key, value })))
    }

    #[inline(never)]
    fn query(&mut self, at: usize) -> Result<Value> {
        self.name(Seg::Name("nkeys"));
        let n = self.i32()?;
        self.taint_limit(n, at, "QUERY nkeys")?;
        let n = if n > 0 {
            self.count_check(n as u64, at, "QUERY keys")?
        } else {
            0
        };
        self.enter(Seg::Name("keys"));
        let keys = self.texts(n)?;
        self.leave();
        let qat = self.at();
        self.name(Seg::Name("nqual"));
        let nq = self.size()?;
        let nq = self.count_check(nq, qat, "QUERY qualifiers")?;
        // OpenPMIx has no cap here either (a qualifier's VALUE may be a QUERY again, and its
        // recursion overflows the stack); we share the DATA_ARRAY cap.
        if self.nesting() >= MAX_ARRAY_DEPTH {
            return Err(err(
                Status::ERR_UNPACK_FAILURE,
                at,
                "QUERY nested deeper than 100",
            ));
        }
        self.query_depth += 1;
        let r = self.query_qualifiers(keys, nq);
        self.query_depth -= 1;
        r
    }

    fn query_qualifiers(&mut self, keys: Vec<NullableText>, nq: usize) -> Result<Value> {
        let mut qualifiers = self.with_room(nq);
        self.enter(Seg::Name("qualifiers"));
        for i in 0..nq {
            self.enter(Seg::Index(i));
            self.room(&mut qualifiers)?;
            let q = self.info()?;
            self.put(&mut qualifiers, q);
            self.leave();
        }
        self.leave();
        Ok(Value::Query(Box::new(Query { keys, qualifiers })))
    }

    #[inline(never)]
    fn info_array(&mut self, at: usize) -> Result<Value> {
        let n = self.info_array_size()?;
        let n = self.count_check(n, at, "INFO_ARRAY")?;
        // OpenPMIx has no cap here (deep nesting overflows its stack); we share the
        // DATA_ARRAY cap so that a hostile peer cannot overflow ours.
        if self.nesting() >= MAX_ARRAY_DEPTH {
            return Err(err(
                Status::ERR_UNPACK_FAILURE,
                at,
                "INFO_ARRAY nested deeper than 100",
            ));
        }
        self.info_depth += 1;
        let r = self.info_array_elements(n);
        self.info_depth -= 1;
        r
    }

    /// An INFO_ARRAY's element count, in a frame of its own (off the recursion path).
    #[inline(never)]
    fn info_array_size(&mut self) -> Result<u64> {
        self.name(Seg::Name("size"));
        Ok(
            if self.fam == Family::Legacy20
                && !self.as_read()
                && self
                    .rel
                    .profile()
                    .size_tagged(DataType::INFO_ARRAY, self.fam)
            {
                // As written by the base SIZE packer: the always-tag only (quirk L2).
                let remote = self.tag_as(TagRole::IntTag)?;
                self.int_of(remote)? as u64
            } else if self.as_read()
                && self
                    .rel
                    .profile()
                    .info_array_unpack_tagged_in
                    .contains(&self.fam)
            {
                // The unpacker's own SIZE reader, whatever the packer wrote (quirk R3).
                self.size()?
            } else {
                self.modex_size(DataType::INFO_ARRAY)?
            },
        )
    }

    fn info_array_elements(&mut self, n: usize) -> Result<Value> {
        if n > 0 && self.as_read() {
            // v12 ... v3 read the elements as VALUEs into the INFO slots (quirk U11): what the
            // receiver then holds is each VALUE's struct over the key, whose C string is the
            // type's bytes (little-endian) up to the first NUL, with flags 0 and no value.
            let mut infos = self.with_room(n);
            for i in 0..n {
                self.enter(Seg::Index(i));
                self.note("an INFO read as a VALUE by the receiver (quirk U11): its key is the type's bytes, no value");
                let ty = self.value()?.data_type().0.to_le_bytes();
                self.leave();
                let key: Vec<u8> = ty.iter().take_while(|b| **b != 0).copied().collect();
                self.room(&mut infos)?;
                self.put(
                    &mut infos,
                    Info {
                        key: Text::from(key),
                        flags: 0,
                        value: Value::Undef,
                    },
                );
            }
            return Ok(Value::InfoArray(infos));
        }
        let mut infos = self.with_room(n);
        for i in 0..n {
            self.enter(Seg::Index(i));
            self.room(&mut infos)?;
            let info = if self.fam == Family::Legacy20 {
                self.base_info()?
            } else {
                self.info()?
            };
            self.put(&mut infos, info);
            self.leave();
        }
        Ok(Value::InfoArray(infos))
    }

    /// Types that do not nest.
    #[inline(never)]
    fn leaf(&mut self, ty: DataType) -> Result<Value> {
        let fam = self.fam;
        let at = self.at();
        Ok(match ty {
            DataType::BOOL => Value::Bool(self.u8()? != 0),
            DataType::BYTE => Value::Byte(self.u8()?),
            DataType::UINT8 => Value::Uint8(self.u8()?),
            DataType::INT8 => Value::Int8(self.u8()? as i8),
            DataType::STRING => Value::String(self.string()?),
            DataType::SIZE => Value::Size(self.size()?),
            DataType::PID => Value::Pid(self.pid()?),
            DataType::INT => Value::Int(self.int()?),
            DataType::UINT => Value::Uint(self.int()? as u32),
            DataType::INT16 => Value::Int16(self.i16()?),
            DataType::INT32 => Value::Int32(self.i32()?),
            DataType::INT64 => Value::Int64(self.i64()?),
            DataType::UINT16 => Value::Uint16(self.u16()?),
            DataType::UINT32 => Value::Uint32(self.u32()?),
            DataType::UINT64 => Value::Uint64(self.u64()?),
            DataType::FLOAT => Value::Float(
                self.float_text()?
                    .map(|t| parse_strtof(&t[..]))
                    .unwrap_or(0.0),
            ),
            DataType::DOUBLE => Value::Double(
                self.float_text()?
                    .map(|t| parse_strtod(&t[..]))
                    .unwrap_or(0.0),
            ),
            DataType::TIMEVAL => Value::Timeval(self.timeval()?),
            DataType::TIME => Value::Time(self.u64()?),
            DataType::STATUS => Value::Status(if fam == Family::Legacy12 {
                self.int()?
            } else {
                self.i32()?
            }),
            DataType::PROC => Value::Proc(self.proc()?),
            DataType::BUFFER => {
                let kind = if self.legacy() { 0 } else { self.u8()? };
                Value::Buffer(Buffer {
                    kind,
                    bytes: self.named("bytes").sized_bytes()?,
                })
            }
            DataType::BYTE_OBJECT => Value::ByteObject(self.sized_bytes()?),
            DataType::COMPRESSED_STRING => Value::CompressedString(self.sized_bytes()?),
            DataType::COMPRESSED_BYTE_OBJECT => Value::CompressedByteObject(self.sized_bytes()?),
            DataType::DATA_BUFFER => Value::DataBuffer(self.sized_bytes()?),
            DataType::MODEX => {
                let n = self.named("size").modex_size(DataType::MODEX)?;
                let n = self.count_check(n, at, "MODEX")?;
                let b = self.named("blob").take(n)?;
                Value::Modex(self.share(b))
            }
            DataType::PERSIST | DataType::SCOPE | DataType::DATA_RANGE => {
                let x = if fam == Family::Legacy12 {
                    self.int()? as u8
                } else {
                    self.u8()?
                };
                match ty {
                    DataType::PERSIST => Value::Persist(x),
                    DataType::SCOPE => Value::Scope(x),
                    _ => Value::DataRange(x),
                }
            }
            DataType::COMMAND => Value::Command(match fam {
                Family::Legacy12 | Family::Legacy20 => self.i32()? as u8,
                _ => self.u8()?,
            }),
            DataType::INFO_DIRECTIVES => Value::InfoDirectives(self.u32()?),
            DataType::DATA_TYPE => Value::DataType(DataType(match fam {
                Family::Legacy12 => self.be32()? as u16,
                Family::Modern if !self.datatype_as_written() => self.i16()? as u16,
                _ => self.u16()?,
            })),
            DataType::PROC_STATE => Value::ProcState(self.u8()?),
            DataType::PROC_INFO => {
                let proc = self.within("proc", Self::proc)?;
                let hostname = self.named("hostname").string()?;
                let executable = self.named("executable").string()?;
                let pid = self.named("pid").pid()?;
                let state = self.named("state").u8()?;
                Value::ProcInfo(Box::new(ProcInfo {
                    proc,
                    hostname,
                    executable,
                    pid,
                    state,
                }))
            }
            DataType::PROC_RANK => Value::ProcRank(self.proc_rank()?),
            DataType::ALLOC_DIRECTIVE => Value::AllocDirective(self.u8()?),
            DataType::IOF_CHANNEL => Value::IofChannel(self.u16()?),
            DataType::ENVAR => Value::Envar(Box::new(Envar {
                name: self.named("name").string()?,
                value: self.named("value").string()?,
                separator: self.named("separator").u8()?,
            })),
            DataType::COORD => Value::Coord(self.coord()?),
            DataType::REGATTR => {
                let name = self.named("name").string()?;
                let key = self.required_string("key", 511)?;
                self.name(Seg::Name("type"));
                let t = if self.datatype_as_written() {
                    self.u16()?
                } else {
                    self.i16()? as u16
                };
                let nat = self.at();
                let nd = self.named("ndescriptions").i32()?;
                let nd = if nd > 0 {
                    self.count_check(nd as u64, nat, "REGATTR descriptions")?
                } else {
                    0
                };
                self.enter(Seg::Name("description"));
                let description = self.texts(nd)?;
                self.leave();
                Value::Regattr(Box::new(Regattr {
                    name,
                    key,
                    ty: t,
                    description,
                }))
            }
            DataType::REGEX => Value::Regex(self.regex()?),
            DataType::JOB_STATE => Value::JobState(self.u8()?),
            DataType::LINK_STATE => Value::LinkState(self.u8()?),
            DataType::PROC_CPUSET => Value::ProcCpuset(self.string()?),
            DataType::GEOMETRY => {
                let fabric = self.named("fabric").size()?;
                let uuid = self.named("uuid").string()?;
                let osname = self.named("osname").string()?;
                let cat = self.at();
                let n = self.named("ncoords").size()?;
                let n = self.count_check(n, cat, "GEOMETRY coordinates")?;
                let mut coordinates = self.with_room(n);
                self.enter(Seg::Name("coordinates"));
                for i in 0..n {
                    self.enter(Seg::Index(i));
                    self.room(&mut coordinates)?;
                    let c = self.coord()?;
                    self.put(&mut coordinates, c);
                    self.leave();
                }
                self.leave();
                Value::Geometry(Box::new(Geometry {
                    fabric,
                    uuid,
                    osname,
                    coordinates,
                }))
            }
            DataType::DEVICE_DIST => Value::DeviceDist(Box::new(DeviceDist {
                uuid: self.named("uuid").string()?,
                osname: self.named("osname").string()?,
                devtype: self.named("devtype").u64()?,
                mindist: self.named("mindist").u16()?,
                maxdist: self.named("maxdist").u16()?,
            })),
            DataType::ENDPOINT => Value::Endpoint(Box::new(Endpoint {
                uuid: self.named("uuid").string()?,
                osname: self.named("osname").string()?,
                endpt: self.named("endpt").sized_bytes()?,
            })),
            DataType::TOPO => Value::Topo(self.string()?),
            DataType::DEVTYPE => Value::Devtype(self.u64()?),
            DataType::LOCTYPE => Value::Loctype(self.u16()?),
            // PMIX_LOAD_NSPACE zeroes the array and copies nothing for NULL (quirk U15).
            DataType::PROC_NSPACE => Value::ProcNspace(match self.string_slice()? {
                Some(b) => self.text(&b[..b.len().min(255)]),
                None => Text::default(),
            }),
            DataType::PROC_STATS => {
                let node = self.named("node").string()?;
                let proc = self.within("proc", Self::proc)?;
                let pid = self.named("pid").pid()?;
                let cmd = self.named("cmd").string()?;
                let state = self.named("state").u8()?;
                let time = self.within("time", Self::timeval)?;
                let priority = self.named("priority").i32()?;
                let num_threads = self.named("num_threads").i16()?;
                let pss = self.named("pss").f32_text()?;
                let vsize = self.named("vsize").f32_text()?;
                let rss = self.named("rss").f32_text()?;
                if self.rel.profile().proc_stats_reads_peak_vsize && self.as_read() {
                    // 4.2.x reads a peak_vsize its packer never wrote (quirk U10).
                    self.name(Seg::Name("peak_vsize (read, never written: quirk U10)"));
                    self.f32_text()?;
                }
                let processor = self.named("processor").i16()?;
                let sample_time = self.within("sample_time", Self::timeval)?;
                Value::ProcStats(Box::new(ProcStats {
                    node,
                    proc,
                    pid,
                    cmd,
                    state,
                    time,
                    priority,
                    num_threads,
                    pss,
                    vsize,
                    rss,
                    processor,
                    sample_time,
                }))
            }
            DataType::DISK_STATS => Value::DiskStats(Box::new(self.disk_stats()?)),
            DataType::NET_STATS => Value::NetStats(Box::new(self.net_stats()?)),
            DataType::NODE_STATS => {
                let node = self.named("node").string()?;
                let mut floats = [0f32; 11];
                for (i, f) in floats.iter_mut().enumerate() {
                    self.name(Seg::Name(NODE_FLOATS[i]));
                    *f = self.f32_text()?;
                }
                let sample_time = self.within("sample_time", Self::timeval)?;
                let dat = self.at();
                let nd = self.named("ndiskstats").size()?;
                let nd = self.count_check(nd, dat, "NODE_STATS disks")?;
                let mut diskstats = self.with_room(nd);
                for i in 0..nd {
                    self.enter(Seg::Index(i));
                    self.room(&mut diskstats)?;
                    let d = self.within("diskstats", Self::disk_stats)?;
                    self.put(&mut diskstats, d);
                    self.leave();
                }
                let nat = self.at();
                let nn = self.named("nnetstats").size()?;
                let nn = self.count_check(nn, nat, "NODE_STATS nets")?;
                let mut netstats = self.with_room(nn);
                for i in 0..nn {
                    self.enter(Seg::Index(i));
                    self.room(&mut netstats)?;
                    let n = self.within("netstats", Self::net_stats)?;
                    self.put(&mut netstats, n);
                    self.leave();
                }
                Value::NodeStats(Box::new(NodeStats {
                    node,
                    floats,
                    sample_time,
                    diskstats,
                    netstats,
                }))
            }
            DataType::STOR_MEDIUM => Value::StorMedium(self.u64()?),
            DataType::STOR_ACCESS => Value::StorAccess(self.u64()?),
            DataType::STOR_PERSIST => Value::StorPersist(self.u64()?),
            DataType::STOR_ACCESS_TYPE => Value::StorAccessType(self.u16()?),
            DataType::DEVICE => Value::Device(Box::new(Device {
                uuid: self.named("uuid").string()?,
                osname: self.named("osname").string()?,
                devtype: self.named("devtype").u64()?,
            })),
            DataType::RESBLOCK_DIRECTIVE => Value::ResblockDirective(self.u8()?),
            DataType::RESOURCE_UNIT => Value::ResourceUnit(ResourceUnit {
                devtype: self.named("devtype").u64()?,
                count: self.named("count").size()?,
            }),
            DataType::NODE_PID => Value::NodePid(Box::new(NodePid {
                hostname: self.named("hostname").string()?,
                nodeid: self.named("nodeid").u32()?,
                pid: self.named("pid").pid()?,
            })),
            DataType::REGEX2 => Value::Regex2(Box::new(Regex2 {
                kind: self.named("kind").string()?,
                regex: self.named("regex").sized_bytes()?,
            })),
            DataType::ALLOC_INHERIT => Value::AllocInherit(self.u8()?),
            DataType::POINTER => {
                self.u8()?;
                Value::Pointer
            }
            other => {
                return Err(err(
                    Status::ERR_UNKNOWN_DATA_TYPE,
                    at,
                    format!("no unpacker for {other}"),
                ))
            }
        })
    }

    fn f32_text(&mut self) -> Result<f32> {
        Ok(self
            .float_text()?
            .map(|t| parse_strtof(&t[..]))
            .unwrap_or(0.0))
    }
    fn disk_stats(&mut self) -> Result<DiskStats> {
        let disk = self.named("disk").string()?;
        let mut counters = [0u64; 11];
        for (i, c) in counters.iter_mut().enumerate() {
            self.name(Seg::Index(i));
            *c = self.u64()?;
        }
        Ok(DiskStats { disk, counters })
    }
    fn net_stats(&mut self) -> Result<NetStats> {
        let interface = self.named("interface").string()?;
        let mut counters = [0u64; 6];
        for (i, c) in counters.iter_mut().enumerate() {
            self.name(Seg::Index(i));
            *c = self.u64()?;
        }
        Ok(NetStats {
            interface,
            counters,
        })
    }

    /// REGEX: preg framing with no bfrops length (`raw:...\0`, `blob:\0component=..:\0size=N:\0` + N bytes,
    /// and in 4.2.x `pmix[...]\0`).
    fn regex(&mut self) -> Result<Bytes> {
        let at = self.at();
        let rest = self.r.rest();
        let cstr_len = |b: &[u8]| b.iter().position(|c| *c == 0);
        if rest.starts_with(b"blob:") {
            // three NUL-terminated header fields, the last `size=N:`
            let mut off = 0;
            let mut size_field: &[u8] = &[];
            for _ in 0..3 {
                let n = cstr_len(&rest[off..]).ok_or_else(|| {
                    err(
                        Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER,
                        at,
                        "unterminated regex blob header",
                    )
                })?;
                size_field = &rest[off..off + n];
                off += n + 1;
            }
            let digits = size_field
                .strip_prefix(b"size=")
                .and_then(|s| s.strip_suffix(b":"))
                .and_then(|s| std::str::from_utf8(s).ok())
                .and_then(|s| s.parse::<usize>().ok())
                .ok_or_else(|| err(Status::ERR_UNPACK_FAILURE, at, "bad regex blob size field"))?;
            if digits > rest.len() - off {
                return Err(err(
                    Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER,
                    at,
                    "regex blob larger than the input",
                ));
            }
            let b = self.take(off + digits)?;
            return Ok(self.share(b));
        }
        let framed = rest.starts_with(b"raw:")
            || (self.rel.profile().regex_pmix_framing && rest.starts_with(b"pmix"));
        // 7.0's preg modules only claim a regex whose NUL is inside the buffer (quirk C3);
        // an unterminated one goes to the fallback below.
        let claimed = !self.rel.profile().regex_needs_nul || cstr_len(rest).is_some();
        if framed && claimed {
            let n = cstr_len(rest).ok_or_else(|| {
                err(
                    Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER,
                    at,
                    "unterminated regex",
                )
            })?;
            let b = self.take(n + 1)?;
            return Ok(self.share(b));
        }
        // No preg module claims it: OpenPMIx falls back to a whole unpack of one STRING
        // through its own peer's module, which refuses a buffer of another kind than its
        // default (non-described): -20 for a described buffer (quirk U4).
        if self.desc {
            return Err(err(
                Status::ERR_UNPACK_FAILURE,
                at,
                "REGEX fallback: a described buffer is not the local default kind (quirk U4)",
            ));
        }
        self.unpack_call(DataType::STRING, 1)?;
        Err(err(
            Status::ERR_UNPACK_FAILURE,
            at,
            "REGEX without a known preg framing: a plain string (quirk U4)",
        ))
    }

    fn modex_size(&mut self, ty: DataType) -> Result<u64> {
        if self.rel.profile().size_tagged(ty, self.fam) {
            self.size()
        } else {
            self.be64()
        }
    }

    fn value_type(&mut self) -> Result<DataType> {
        self.name(Seg::Name("type"));
        Ok(match self.fam {
            Family::Legacy12 => quirks::v12_read_type(self.int()? as u32 as u16),
            // Quirk U3: the value type went out as an INT from a 2-byte field.
            Family::Legacy20 => DataType(self.int()? as u32 as u16),
            _ => self.tag()?,
        })
    }

    fn value(&mut self) -> Result<Value> {
        self.name(Seg::Name("type"));
        let ty = match self.fam {
            Family::Legacy12 => quirks::v12_read_type(self.int()? as u32 as u16),
            _ => self.tag()?,
        };
        self.enter(Seg::Type(ty));
        let r = self.value_payload(ty);
        if r.is_ok() {
            self.leave();
        }
        r
    }

    fn info(&mut self) -> Result<Info> {
        self.name(Seg::Name("key"));
        let key = self.required_string("key", 511)?;
        let flags = if self.fam == Family::Legacy12 {
            0
        } else {
            self.named("flags").u32()?
        };
        self.enter(Seg::Name("value"));
        let vt = self.value_type()?;
        self.enter(Seg::Type(vt));
        let value = self.value_payload(vt)?;
        self.leave();
        self.leave();
        Ok(Info { key, flags, value })
    }

    /// `Value::Info` of [`Dec::info`] where nobody observes, built in its box: the box
    /// first, its fields written into it one by one (an INFO assembled on the stack and
    /// copied as a whole is read back in wider words than it was written in).
    #[inline(always)]
    fn boxed_info_quiet(&mut self) -> Result<Value> {
        let mut slot = Box::<Info>::new_uninit();
        let p = slot.as_mut_ptr();
        let key = self.required_string("key", 511)?;
        // SAFETY: each field is written once through a raw pointer into the box's
        // uninitialised memory, so it is whole before `assume_init`; if the rest fails, the
        // key written first is dropped and the box freed without its other fields.
        unsafe { std::ptr::addr_of_mut!((*p).key).write(key) };
        match self.info_rest() {
            Ok((flags, value)) => Ok(Value::Info(unsafe {
                std::ptr::addr_of_mut!((*p).flags).write(flags);
                std::ptr::addr_of_mut!((*p).value).write(value);
                slot.assume_init()
            })),
            Err(e) => {
                unsafe { std::ptr::drop_in_place(std::ptr::addr_of_mut!((*p).key)) };
                Err(e)
            }
        }
    }

    /// [`Dec::info`] after its key, where nobody observes: the flags and the value. The
    /// common value types of the converged and modern families are read here (`quick_values`
    /// says they pass the checks `value_payload` makes), every other value goes through
    /// `value_payload`.
    #[inline(always)]
    fn info_rest(&mut self) -> Result<(u32, Value)> {
        let flags = if self.fam == Family::Legacy12 {
            0
        } else {
            self.u32()?
        };
        // `value_type`, its common families inline (nobody observes the tag here)
        let vt = match self.fam {
            Family::Converged => DataType(self.r.be16()?),
            Family::Modern => DataType(self.flex(2)? as u16),
            _ => self.value_type()?,
        };
        let value = match vt {
            DataType::BOOL if self.quick_values => Value::Bool(self.u8()? != 0),
            DataType::UINT32 if self.quick_values => Value::Uint32(self.u32()?),
            DataType::UINT64 if self.quick_values => Value::Uint64(self.u64()?),
            DataType::STRING if self.quick_values => {
                // `string`, inline: its result read back from memory stalled
                Value::String(self.string_slice()?.map(|b| self.text(b)))
            }
            DataType::PROC if self.quick_values => Value::Proc(self.proc()?),
            _ => self.value_payload(vt)?,
        };
        Ok((flags, value))
    }

    /// [`Dec::info`] into `info`, reusing its memory.
    fn info_into(&mut self, info: &mut Info) -> Result<()> {
        self.name(Seg::Name("key"));
        self.required_string_into("key", 511, &mut info.key)?;
        info.flags = if self.fam == Family::Legacy12 {
            0
        } else {
            self.named("flags").u32()?
        };
        self.enter(Seg::Name("value"));
        let vt = self.value_type()?;
        let r = self.value_payload_into(vt, &mut info.value);
        self.left(r)
    }

    fn base_info(&mut self) -> Result<Info> {
        self.name(Seg::Name("key"));
        let key = self.required_string("key", 511)?;
        let flags = self.named("flags").u32()?;
        self.enter(Seg::Name("value"));
        let vt = DataType(self.named("type").be16()?);
        self.enter(Seg::Type(vt));
        // The base pack_val wrote v20's packers' output without pack_buffer's tag (quirk L2).
        let value = if vt == DataType::UNDEF {
            self.note("no payload");
            Value::Undef
        } else {
            self.one(vt)?
        };
        self.leave();
        self.leave();
        Ok(Info { key, flags, value })
    }

    fn app(&mut self) -> Result<App> {
        let cmd = self.named("cmd").string()?;
        let at = self.at();
        let argc = self.named("argc").int()?;
        let argc = if argc > 0 {
            self.count_check(argc as u64, at, "APP argc")?
        } else {
            0
        };
        self.enter(Seg::Name("argv"));
        let argv = self.app_texts(argc, "argv")?;
        self.leave();
        let at = self.at();
        let envc = self.named("envc").i32()?;
        self.taint_limit(envc, at, "APP envc")?;
        let envc = if envc > 0 {
            self.count_check(envc as u64, at, "APP envc")?
        } else {
            0
        };
        self.enter(Seg::Name("env"));
        let env = self.app_texts(envc, "env")?;
        self.leave();
        let cwd = if self.fam == Family::Legacy12 {
            None
        } else {
            self.named("cwd").string()?
        };
        let maxprocs = self.named("maxprocs").int()?;
        let at = self.at();
        let ninfo = self.named("ninfo").size()?;
        let ninfo = self.count_check(ninfo, at, "APP ninfo")?;
        let mut info = self.with_room(ninfo);
        self.enter(Seg::Name("info"));
        for i in 0..ninfo {
            self.enter(Seg::Index(i));
            self.room(&mut info)?;
            let i = self.info()?;
            self.put(&mut info, i);
            self.leave();
        }
        self.leave();
        if self.fam == Family::Legacy12
            && self.as_read()
            && self.rel.profile().info_create_marks_end
        {
            // v12 has no flags on the wire, so the array-end marker that PMIX_INFO_CREATE
            // puts on the last element is what the receiver sees (quirk U13).
            if !info.is_empty() {
                self.note("the receiver's last info has flags 0x2 = ARRAY_END: v12 sends no flags (quirk U13)");
            }
            if let Some(last) = info.last_mut() {
                last.flags = quirks::INFO_ARRAY_END;
            }
        }
        Ok(App {
            cmd,
            argv,
            env,
            cwd,
            maxprocs,
            info,
        })
    }

    fn darray(&mut self) -> Result<DataArray> {
        let mut d = DataArray {
            ty: DataType::UNDEF,
            values: Vec::new(),
        };
        self.darray_into(&mut d)?;
        Ok(d)
    }

    /// [`Dec::darray`] into `d`, reusing the memory of its elements.
    fn darray_into(&mut self, d: &mut DataArray) -> Result<()> {
        let (ty, n) = self.darray_header()?;
        d.ty = ty;
        let Some(n) = n else {
            d.values.clear();
            return Ok(());
        };
        self.depth += 1;
        self.enter(Seg::Type(ty));
        let r = if self.fam == Family::Legacy20 {
            self.legacy_desc(ty)
                .and_then(|()| self.values_into(ty, n, &mut d.values))
        } else {
            self.values_into(ty, n, &mut d.values)
        };
        self.depth -= 1;
        self.left(r)
    }

    /// Everything of a DATA_ARRAY before its elements: the element type and count, `None`
    /// for an array that carries no elements.
    #[inline(never)]
    fn darray_header(&mut self) -> Result<(DataType, Option<usize>)> {
        let at = self.at();
        if self.nesting() >= MAX_ARRAY_DEPTH {
            return Err(err(
                Status::ERR_UNPACK_FAILURE,
                at,
                "DATA_ARRAY nested deeper than 100",
            ));
        }
        let ty = match self.fam {
            Family::Legacy20 => DataType(self.named("element type").be16()?),
            _ => self.named("element type").tag()?,
        };
        if ty == DataType::UNDEF
            && !self.rel.profile().darray_undef_has_size
            && self.fam != Family::Legacy20
        {
            return Ok((ty, None));
        }
        let nat = self.at();
        let n = self.named("size").size()?;
        if n == 0 || ty == DataType::UNDEF {
            return Ok((ty, None));
        }
        if ty != DataType::POINTER && ty != DataType::DATA_ARRAY {
            self.count_check(n, nat, "DATA_ARRAY")?;
        } else if (ty == DataType::POINTER && n > self.pointer_budget)
            || (ty == DataType::DATA_ARRAY && n > self.r.remaining() as u64 + 4096)
        {
            return Err(err(
                Status::ERR_NOMEM,
                nat,
                "DATA_ARRAY count beyond what the input can hold",
            ));
        }
        let n = n as usize;
        // Element storage is allocated from a fixed list of types before anything is read
        // (quirk U8): v20 refuses the rest, 4.2.x's constructor leaves them NULL.
        if self.as_read()
            && self.fam == Family::Legacy20
            && !quirks::V20_DARRAY_ELEMENT_TYPES.contains(&ty)
        {
            return Err(err(
                Status::ERR_NOT_SUPPORTED,
                at,
                format!("v20 cannot unpack an array of {ty}"),
            ));
        }
        if self.rel.profile().darray_construct_4_2 && self.fam != Family::Legacy20 {
            let prof = self.rel.profile();
            if self.as_read()
                && (!quirks::DARRAY_CONSTRUCT_4_2.contains(&ty)
                    || prof.darray_constructs_not.contains(&ty))
                && !prof.darray_constructs_also.contains(&ty)
            {
                return Err(err(
                    Status::ERR_NOMEM,
                    at,
                    format!("4.2.x cannot construct an array of {ty}"),
                ));
            }
            if !self.comp.registers(ty, self.rel) {
                return Err(err(
                    Status::ERR_UNKNOWN_DATA_TYPE,
                    self.at(),
                    format!("{} does not register {}", self.comp, ty),
                ));
            }
        }
        if self.rel.profile().darray_unknown_element == Status::ERR_UNKNOWN_DATA_TYPE
            && (ty.0 > 75
                || (self.as_read() && self.rel.profile().darray_unpack_refuses.contains(&ty)))
        {
            // 7.0 allocates the storage first: ids it has no type for, and the types it
            // cannot construct, are -32 before the component's registration is asked.
            return Err(err(
                Status::ERR_NOMEM,
                at,
                format!("cannot construct an array of {ty} (quirk U8)"),
            ));
        }
        if !self.comp.registers(ty, self.rel) && ty != DataType::REGEX {
            return Err(err(
                self.rel.profile().darray_unknown_element,
                at,
                format!(
                    "{} does not register {ty}: no array of it (quirk U8)",
                    self.comp
                ),
            ));
        }
        if ty == DataType::REGEX
            || (self.as_read() && self.rel.profile().darray_unpack_refuses.contains(&ty))
        {
            return Err(err(
                Status::ERR_NOMEM,
                at,
                format!("cannot construct an array of {ty} (quirk U8 where registered)"),
            ));
        }
        Ok((ty, Some(n)))
    }

    /// [`Dec::value_payload`] into `slot`, reusing its memory where [`Dec::one_into`] can.
    fn value_payload_into(&mut self, ty: DataType, slot: &mut Value) -> Result<()> {
        self.enter(Seg::Type(ty));
        // The modern and converged families' checks, all passed: `one(ty)`.
        if matches!(self.fam, Family::Converged | Family::Modern)
            && ty != DataType::UNDEF
            && !quirks::VALUE_REFUSED_TYPES.contains(&ty)
            && self.comp.registers(ty, self.rel)
            && !(self.as_read() && self.rel.profile().value_unpack_refuses.contains(&ty))
        {
            let r = self.one_into(ty, slot);
            self.left(r)
        } else {
            let r = self.replace_payload(ty, slot);
            self.left(r)
        }
    }

    /// `*slot = value_payload(ty)`.
    #[inline(never)]
    fn replace_payload(&mut self, ty: DataType, slot: &mut Value) -> Result<()> {
        *slot = self.value_payload(ty)?;
        Ok(())
    }

    /// The payload of a `pmix_value_t` whose type was just read (the caller opens the
    /// observer's step for the type: this frame is on the recursion path of nested values).
    fn value_payload(&mut self, ty: DataType) -> Result<Value> {
        let at = self.at();
        if ty == DataType::UNDEF {
            return match self.fam {
                Family::Legacy12 => Err(err(Status::ERROR, at, "v12 VALUE of UNDEF")),
                _ => {
                    self.note("no payload");
                    Ok(Value::Undef)
                }
            };
        }
        match self.fam {
            Family::Legacy12 => {
                if ty == DataType::INFO_ARRAY {
                    self.legacy_desc(DataType::INFO_ARRAY)?;
                    return match self.one(DataType::INFO_ARRAY)? {
                        Value::InfoArray(infos) => Ok(Value::array(
                            DataType::INFO,
                            infos
                                .into_iter()
                                .map(|i| Value::Info(Box::new(i)))
                                .collect(),
                        )),
                        _ => unreachable!("INFO_ARRAY decodes to InfoArray"),
                    };
                }
                if !quirks::V12_VALUE_TYPES.contains(&ty) || ty == DataType::DATA_ARRAY {
                    return Err(err(Status::ERROR, at, format!("v12 VALUE of {ty}")));
                }
                self.legacy_desc(ty)?;
                self.one(ty)
            }
            Family::Legacy20 => {
                if !quirks::V20_VALUE_TYPES.contains(&ty) {
                    return Err(err(Status::ERROR, at, format!("v20 VALUE of {ty}")));
                }
                if ty == DataType::COMPRESSED_STRING {
                    self.legacy_desc(DataType::BYTE_OBJECT)?;
                    return Ok(Value::CompressedString(self.sized_bytes()?));
                }
                if ty == DataType::PERSIST && self.as_read() {
                    // v20 unpacks a PERSIST value with the PROC unpacker (quirk U12).
                    self.legacy_desc(DataType::PROC)?;
                    self.proc()?;
                    return Err(err(
                        Status::ERR_UNPACK_FAILURE,
                        at,
                        "v20 read a PERSIST value as a PROC and got garbage (quirk U12)",
                    ));
                }
                self.legacy_desc(ty)?;
                self.one(ty)
            }
            _ => {
                if quirks::VALUE_REFUSED_TYPES.contains(&ty) {
                    return Err(err(
                        Status::ERR_BAD_PARAM,
                        at,
                        format!("a VALUE cannot carry {ty}"),
                    ));
                }
                if !self.comp.registers(ty, self.rel) {
                    return Err(err(
                        Status::ERR_UNKNOWN_DATA_TYPE,
                        at,
                        format!("{} has no VALUE of {ty}", self.comp),
                    ));
                }
                if self.as_read() && self.rel.profile().value_unpack_refuses.contains(&ty) {
                    return Err(err(
                        Status::ERR_UNPACK_FAILURE,
                        at,
                        format!(
                            "the VALUE unpacker of {} does not know {ty} (quirk R8)",
                            self.rel
                        ),
                    ));
                }
                // the common leaf types without `one`'s frame; the nesting ones through `one`,
                // keeping `one_hot`'s larger frame off the recursion path
                match ty {
                    DataType::PROC
                    | DataType::STRING
                    | DataType::BOOL
                    | DataType::UINT32
                    | DataType::UINT64
                    | DataType::BYTE_OBJECT => self.one_hot(ty),
                    _ => self.one(ty),
                }
            }
        }
    }
}

/// Whether a field of this meaning leaves the pending name to the field after it: a tag in
/// front of a value, or a string's length, belongs to the named field that follows.
fn keeps_name(meaning: &Meaning<'_>) -> bool {
    matches!(
        meaning,
        Meaning::Tag {
            role: TagRole::IntTag | TagRole::Described,
            ..
        } | Meaning::StringLength { .. }
    )
}

/// NODE_STATS's eleven float fields, in wire order.
const NODE_FLOATS: [&str; 11] = [
    "la",
    "la5",
    "la15",
    "total_mem",
    "free_mem",
    "buffers",
    "cached",
    "swap_cached",
    "swap_total",
    "swap_free",
    "mapped",
];

/// Make room for one more value in `v`, growing it fallibly: a decode whose values do not
/// fit in memory fails with PMIX_ERR_NOMEM (-32), as OpenPMIx does when an allocation
/// fails, instead of aborting the process.
#[inline(always)]
fn room_for_one<T>(v: &mut Vec<T>, at: usize) -> Result<()> {
    if v.len() == v.capacity() {
        return grow_for_one(v, at);
    }
    Ok(())
}

#[cold]
#[inline(never)]
fn grow_for_one<T>(v: &mut Vec<T>, at: usize) -> Result<()> {
    v.try_reserve(v.capacity().max(4)).map_err(|_| {
        err(
            Status::ERR_NOMEM,
            at,
            format!(
                "out of memory growing an array of {} values past {} bytes",
                v.len(),
                v.capacity() * std::mem::size_of::<T>()
            ),
        )
    })
}

/// Prefetch the byte where the prefix of the record `AHEAD` records on would be if records
/// kept their current `stride`. Walking a run of records by their length prefixes alone is
/// a chain of dependent loads, one cache miss after the other; the prefetch starts the
/// misses early.
#[inline(always)]
fn touch_ahead(rest: &[u8], stride: usize) {
    const AHEAD: usize = 16;
    if let Some(b) = rest.get(stride.saturating_mul(AHEAD - 1)) {
        crate::wire::prefetch(b);
    }
}

/// The index of the first NUL in `b`, or its length: where a C reader's string ends.
#[inline]
fn first_nul(b: &[u8]) -> usize {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let mut chunks = b.chunks_exact(8);
    let mut at = 0;
    for c in &mut chunks {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        // The lowest flagged byte is always a real zero (borrows only run upwards).
        let z = w.wrapping_sub(LO) & !w & HI;
        if z != 0 {
            return at + (z.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    let rest = chunks.remainder();
    if rest.is_empty() {
        return at;
    }
    if b.len() >= 8 {
        // The last eight bytes, overlapping the words already read: those had no zero, so
        // the lowest flagged byte of this word is still the first zero after them.
        let w = u64::from_le_bytes(b[b.len() - 8..].try_into().expect("eight bytes"));
        let z = w.wrapping_sub(LO) & !w & HI;
        return if z != 0 {
            b.len() - 8 + (z.trailing_zeros() / 8) as usize
        } else {
            b.len()
        };
    }
    rest.iter().position(|c| *c == 0).unwrap_or(rest.len())
}

#[cfg(test)]
mod tests {
    use super::first_nul;

    #[test]
    fn first_nul_is_the_first_zero_byte() {
        for len in 0..40 {
            for zero_at in 0..=len {
                for fill in [0x01u8, 0x80, 0xff, 0x7f] {
                    let mut b = vec![fill; len];
                    if zero_at < len {
                        b[zero_at] = 0;
                        // more zeros and 0x01 bytes after the first zero must not matter
                        for (i, x) in b.iter_mut().enumerate().skip(zero_at + 1) {
                            *x = if i % 2 == 0 { 0 } else { 1 };
                        }
                    }
                    assert_eq!(first_nul(&b), zero_at, "{b:02x?}");
                }
            }
        }
    }
}
