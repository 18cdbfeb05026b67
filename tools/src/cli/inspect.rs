//! The dissector behind `pmix-wire inspect`: an annotated, field-by-field walk of a bfrops
//! buffer.
//!
//! This is deliberately *not* the codec's decoder. It is an independent walker written from
//! the wire-format reference, using only the codec's byte primitives
//! ([`pmix_codec::wire::Reader`]: be16/be32/be64 and flexible integers), the component's
//! family rules (tag encodings, always-tags, v12/v20 nested descriptive tags) and the quirk
//! table's rules ([`pmix_codec::quirks`]: which integer packers tag once per call, which
//! negative counts fail, which DATA_ARRAY element types the receiver can allocate, v12's
//! type numbering). Each field it reads becomes one [`Field`]: its offset, its length and
//! what it means. A test (`tools/tests/cli_inspect_agreement.rs`) checks over the whole
//! corpus, every truncation and mutations of it, and random bytes, that the walk ends where
//! the codec stops and fails where the codec fails, with the same status, offset and item,
//! in every component, release profile and buffer kind.
//!
//! Like the codec, the walk reads bytes the way the C receiver does (quirks U8, U10-U13, L2,
//! D1), or, with [`pmix_codec::DecodeOptions::as_written`] set on the codec, the way the
//! packer wrote them.

use pmix_codec::attrs::{alloc_directive_string, alloc_inheritance_string};
use pmix_codec::float::{parse_strtod, parse_strtof};
use pmix_codec::wire::{unzigzag, Reader};
use pmix_codec::{
    quirks, BufferKind, Codec, DataType, Error, Family, FlexTail, Status, MAX_ARRAY_DEPTH,
};

/// One dissected field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// Offset of the first byte.
    pub offset: usize,
    /// Number of bytes (0 for structure headers, whose span is given in `text`).
    pub len: usize,
    /// Nesting depth (for indentation).
    pub depth: usize,
    /// What the bytes mean.
    pub text: String,
}

/// The result of a walk.
#[derive(Clone, Debug)]
pub struct Dissection {
    /// The fields, in buffer order.
    pub fields: Vec<Field>,
    /// Bytes consumed by the walk (up to the failing field on error).
    pub consumed: usize,
    /// Pack calls fully walked.
    pub items: usize,
    /// The failure, exactly as `Codec::decode`/`decode_described` reports it.
    pub error: Option<Error>,
    /// Set by [`dissect_checked`] when the walk's verdict was not the codec's: what the walk
    /// concluded. The verdict (`error`) is then the codec's.
    pub disagreement: Option<String>,
}

type R<T> = Result<T, Error>;

/// How deep structures may nest in a walk: a safety net that input the codec accepts, or
/// refuses by its own caps, never reaches. The codec caps DATA_ARRAY, INFO_ARRAY and QUERY
/// nesting at 100 levels each, and between two capped levels the walk opens at most three
/// structures (e.g. a DATA_ARRAY of KVAL whose VALUE holds the next DATA_ARRAY), so a walk
/// stays below 3 x 300 levels plus a few for the call and the innermost value.
pub const MAX_NESTING: usize = 1024;

/// How many POINTER values beyond the input's length one walk may produce (the codec's
/// per-decode budget, quirk P1).
pub const POINTER_SLACK: u64 = 4096;

/// The start of the reason of a [`MAX_NESTING`] refusal.
pub const NESTING_REASON: &str = "structures nested deeper than";

fn fail(status: Status, offset: usize, reason: impl Into<String>) -> Error {
    Error {
        status,
        offset,
        item: 0,
        ty: None,
        reason: reason.into(),
        partial: Vec::new(),
        path: String::new(),
    }
}

/// Walk `bytes` as `codec` would decode them: with the given call types, or (fully described
/// buffers only, `types == None`) discovering each call's type from its tags, to the end.
pub fn dissect(codec: &Codec, bytes: &[u8], types: Option<&[DataType]>) -> Dissection {
    let mut w = Walker::new(codec, bytes);
    let mut items = 0;
    let mut error = None;
    match types {
        Some(types) => {
            for (i, ty) in types.iter().enumerate() {
                if let Err(mut e) = w.call(i, Some(*ty)) {
                    e.item = i;
                    e.ty.get_or_insert(*ty);
                    error = Some(e);
                    break;
                }
                items += 1;
            }
        }
        None if codec.kind != BufferKind::FullyDescribed => {
            error = Some(fail(
                Status::ERR_BAD_PARAM,
                0,
                "type discovery needs a fully described buffer",
            ));
        }
        None => {
            while w.r.remaining() > 0 {
                if let Err(mut e) = w.call(items, None) {
                    e.item = items;
                    if let Some(t) = w.discovered {
                        e.ty.get_or_insert(t);
                    }
                    error = Some(e);
                    break;
                }
                items += 1;
            }
        }
    }
    Dissection {
        consumed: w.r.offset(),
        fields: w.fields,
        items,
        error,
        disagreement: None,
    }
}

/// [`dissect`], with the verdict checked against the codec's own decode of the same bytes:
/// what `pmix-wire inspect` shows. The walk mirrors the codec (and
/// `tools/tests/cli_inspect_agreement.rs` checks that it does), so the two agree; should a
/// codec change outrun the walker, the verdict shown is still the codec's, flagged as a
/// disagreement (see [`reconcile`]).
pub fn dissect_checked(codec: &Codec, bytes: &[u8], types: Option<&[DataType]>) -> Dissection {
    let walk = dissect(codec, bytes, types);
    let verdict = match types {
        Some(t) => codec.decode(bytes, t).map(|_| ()),
        None => codec.decode_described(bytes).map(|_| ()),
    };
    reconcile(walk, verdict)
}

/// Make the codec's verdict the walk's. When they agree (both succeed, or both fail with the
/// same status at the same byte of the same item) the walk is returned as it is. Otherwise
/// `disagreement` says what the walk concluded; if the codec failed, its error replaces the
/// walk's and only the fields that end by its failing byte are kept.
pub fn reconcile(mut walk: Dissection, codec: Result<(), Error>) -> Dissection {
    let agree = match (&walk.error, &codec) {
        (None, Ok(())) => true,
        (Some(w), Err(c)) => {
            (w.status, w.offset, w.item, w.ty) == (c.status, c.offset, c.item, c.ty)
        }
        _ => false,
    };
    if agree {
        return walk;
    }
    walk.disagreement = Some(match &walk.error {
        None => format!(
            "the walk read {} item(s), {} bytes, without error",
            walk.items, walk.consumed
        ),
        Some(e) => format!("the walk failed with {}", super::error_line(e)),
    });
    match codec {
        Ok(()) => walk.error = None,
        Err(c) => {
            walk.fields.retain(|f| f.offset + f.len <= c.offset);
            walk.consumed = walk.consumed.min(c.offset);
            walk.items = c.item;
            walk.error = Some(c);
        }
    }
    walk
}

struct Walker<'a> {
    r: Reader<'a>,
    codec: Codec,
    fam: Family,
    desc: bool,
    /// DATA_ARRAY nesting (capped like the codec).
    arrays: u32,
    /// INFO_ARRAY nesting (capped like the codec).
    info_arrays: u32,
    /// QUERY nesting (capped like the codec).
    queries: u32,
    /// POINTER values the rest of the walk may still produce: like the codec, one budget
    /// (the input's length plus [`POINTER_SLACK`]) for the whole buffer (quirk P1).
    pointer_budget: u64,
    /// Inside a self-tagged integer array: the type its one always-tag announced (quirk D2).
    array_int: Option<DataType>,
    /// Reading the second or later value of one integer unpack call (quirk R1).
    int_tail: bool,
    indent: usize,
    fields: Vec<Field>,
    /// The type found by discovery for the current call.
    discovered: Option<DataType>,
}

impl<'a> Walker<'a> {
    fn new(codec: &Codec, bytes: &'a [u8]) -> Self {
        Walker {
            r: Reader::new(bytes),
            codec: *codec,
            fam: codec.component.family(),
            desc: codec.kind == BufferKind::FullyDescribed,
            arrays: 0,
            info_arrays: 0,
            queries: 0,
            pointer_budget: bytes.len() as u64 + POINTER_SLACK,
            array_int: None,
            int_tail: false,
            indent: 0,
            fields: Vec::new(),
            discovered: None,
        }
    }

    fn legacy(&self) -> bool {
        matches!(self.fam, Family::Legacy12 | Family::Legacy20)
    }
    fn modern(&self) -> bool {
        self.fam == Family::Modern
    }
    fn at(&self) -> usize {
        self.r.offset()
    }
    /// Read like the C receiver (the default), not as the packer wrote.
    fn as_read(&self) -> bool {
        !self.codec.options.as_written
    }
    /// Quirk D1: modern DATA_TYPE values read as written (plain varint).
    fn datatype_as_written(&self) -> bool {
        self.codec.options.datatype_as_written || self.codec.options.as_written
    }

    /// Record the bytes from `at` to the cursor as one field.
    fn emit(&mut self, at: usize, text: String) {
        let len = self.r.offset() - at;
        self.fields.push(Field {
            offset: at,
            len,
            depth: self.indent,
            text,
        });
    }
    /// Open a structure: a header line, then its fields one level deeper.
    fn open(&mut self, text: String) -> R<usize> {
        if self.indent >= MAX_NESTING {
            // Unreachable while the codec caps its nesting (see MAX_NESTING); a walk that
            // gets here anyway stops instead of exhausting the stack.
            return Err(fail(
                Status::ERR_UNPACK_FAILURE,
                self.at(),
                format!("{NESTING_REASON} {MAX_NESTING}"),
            ));
        }
        self.fields.push(Field {
            offset: self.at(),
            len: 0,
            depth: self.indent,
            text,
        });
        self.indent += 1;
        Ok(self.fields.len() - 1)
    }
    /// Close a structure opened at field `idx`: note its span on the header.
    fn close(&mut self, idx: usize) {
        self.indent -= 1;
        let n = self.at() - self.fields[idx].offset;
        let s = if n == 1 { "" } else { "s" };
        self.fields[idx].text.push_str(&format!("  ({n} byte{s})"));
    }

    // ---- primitives: the family's integer encodings --------------------------------------

    /// A flexible integer. An empty region fails with -50 where an integer unpack call
    /// begins, but 4.2.x over-reads (-63) for the second or later value of one call (quirk R1).
    fn flex(&mut self, width: usize) -> R<u64> {
        if self.r.remaining() == 0
            && self.int_tail
            && self.codec.release.profile().flex_tail == FlexTail::RawLastByte
        {
            return Err(fail(
                Status::ERR_FATAL,
                self.at(),
                "flex integer: no bytes left inside an integer array (4.2.2 over-reads)",
            ));
        }
        self.r.flex(width, self.codec.release)
    }

    /// An unsigned integer of `width` bytes: big-endian, or `fu` (flex) in the modern family.
    fn uint(&mut self, width: usize) -> R<(u64, String)> {
        if self.modern() {
            return Ok((self.flex(width)?, "fu".into()));
        }
        Ok(match width {
            2 => (self.r.be16()? as u64, "be16".into()),
            4 => (self.r.be32()? as u64, "be32".into()),
            _ => (self.r.be64()?, "be64".into()),
        })
    }
    /// A signed integer of `width` bytes: big-endian two's complement, or `fz` (zigzag flex).
    fn sint(&mut self, width: usize) -> R<(i64, String)> {
        if self.modern() {
            let u = self.flex(width)?;
            let v = unzigzag(u);
            let v = match width {
                2 => v as i16 as i64,
                4 => v as i32 as i64,
                _ => v,
            };
            return Ok((v, format!("fz, zigzag {u}")));
        }
        Ok(match width {
            2 => (self.r.be16()? as i16 as i64, "be16".into()),
            4 => (self.r.be32()? as i32 as i64, "be32".into()),
            _ => (self.r.be64()? as i64, "be64".into()),
        })
    }

    /// A data-type tag in the family's encoding: v12 be32 in 1.x numbering, v20/v21/v3 be16,
    /// modern `fu`.
    fn tag(&mut self, label: &str) -> R<DataType> {
        let at = self.at();
        let (ty, how) = match self.fam {
            Family::Legacy12 => {
                let v = self.r.be32()? as i32;
                if !(0..=65535).contains(&v) {
                    self.emit(at, format!("{label}: v1 type number {v}  (be32)"));
                    return Err(fail(
                        Status::ERR_UNKNOWN_DATA_TYPE,
                        at,
                        format!("v12 type number {v} out of range"),
                    ));
                }
                let ty = quirks::v12_read_type(v as u16);
                let how = if ty.0 as i32 == v {
                    "be32".to_string()
                } else {
                    format!("be32, v1 type number {v}")
                };
                (ty, how)
            }
            Family::Legacy20 | Family::Converged => (DataType(self.r.be16()?), "be16".to_string()),
            Family::Modern => (DataType(self.flex(2)? as u16), "fu".to_string()),
        };
        self.emit(at, format!("{label}: {}  ({how})", type_name(ty)));
        Ok(ty)
    }

    /// What a described buffer's tag must say for a call or (v12/v20) nested value of `ty`:
    /// v20 tags COMMAND as UINT32; v12 compares the tag it read (mapped from 1.x numbering)
    /// with what `pack_buffer` declares, so a PROC never matches (quirk L1).
    fn described_want(&self, ty: DataType) -> DataType {
        match self.fam {
            Family::Legacy12 => quirks::v12_top_level_type(ty),
            Family::Legacy20 if ty == DataType::COMMAND => DataType::UINT32,
            _ => ty,
        }
    }

    /// v12/v20 in a described buffer: the extra tag before every nested value.
    fn legacy_desc(&mut self, ty: DataType) -> R<()> {
        if self.desc && self.legacy() {
            let at = self.at();
            let got = self.tag("desc tag")?;
            let want = self.described_want(ty);
            if got != want {
                return Err(fail(
                    Status::ERR_PACK_MISMATCH,
                    at,
                    format!("got type {got} when expecting {want}"),
                ));
            }
        }
        Ok(())
    }

    /// A self-describing integer packer's always-tag naming the width that follows (plus
    /// v12/v20's described-mode tag); any integer type is accepted.
    fn int_tag(&mut self, native: DataType, label: &str, note: Option<String>) -> R<DataType> {
        let at = self.at();
        let remote = self.tag(label)?;
        if int_width(remote).is_none() {
            return Err(fail(
                Status::ERR_NOT_FOUND,
                at,
                format!("{native} sent with non-integer type tag {remote}"),
            ));
        }
        if let Some(note) = note {
            self.note(note);
        }
        // Only the fast path (the tag names the native width) reads v12/v20's described
        // tag; the size-mismatch path calls the tagged type's unpacker directly (quirk D2).
        if Some(remote) == quirks::self_tagged_int(self.fam, native) {
            self.legacy_desc(remote)?;
        }
        Ok(remote)
    }

    /// An integer whose always-tag (INT/UINT/SIZE in v12..v3, PID everywhere, and v12's
    /// STATUS, PROC_RANK, PERSIST, SCOPE, DATA_RANGE) precedes it, converted to `native`.
    /// Inside a self-tagged array the one tag of the call was read already (quirk D2); a
    /// value inside a struct is its own one-element call with its own tag.
    fn tagged_int(&mut self, native: DataType, label: &str) -> R<i128> {
        let remote = match self.array_int {
            Some(r) => r,
            None => self.int_tag(native, &format!("{label} int tag"), None)?,
        };
        self.int_of(remote, native, label)
    }

    /// One integer of the fixed-width type `remote`, announced by a tag already read (any
    /// other type is read as UINT64, as the codec does).
    fn int_of(&mut self, remote: DataType, native: DataType, label: &str) -> R<i128> {
        let width = int_width(remote).unwrap_or(8);
        let vat = self.at();
        let signed = matches!(
            remote,
            DataType::INT8 | DataType::INT16 | DataType::INT32 | DataType::INT64
        );
        let (v, how): (i128, String) = if width == 1 {
            let b = self.r.u8()?;
            (
                if signed { b as i8 as i128 } else { b as i128 },
                "byte".into(),
            )
        } else if signed {
            let (v, h) = self.sint(width)?;
            (v as i128, h)
        } else {
            let (v, h) = self.uint(width)?;
            (v as i128, h)
        };
        let conv = if remote == native_width(native) {
            String::new()
        } else {
            format!(", converted to {native}")
        };
        self.emit(vat, format!("{label}: {v}  ({remote} {how}{conv})"));
        Ok(v)
    }

    /// INT (and UINT): modern `fz` 32-bit, else tagged.
    fn int(&mut self, label: &str) -> R<i32> {
        if self.modern() {
            let at = self.at();
            let (v, how) = self.sint(4)?;
            self.emit(at, format!("{label}: {v}  ({how})"));
            Ok(v as i32)
        } else {
            Ok(self.tagged_int(DataType::INT, label)? as i32)
        }
    }
    /// SIZE: modern `fu` 64-bit, else tagged.
    fn size(&mut self, label: &str) -> R<u64> {
        if self.modern() {
            let at = self.at();
            let (v, how) = self.uint(8)?;
            self.emit(at, format!("{label}: {v}  ({how})"));
            Ok(v)
        } else {
            Ok(self.tagged_int(DataType::SIZE, label)? as u64)
        }
    }
    /// A plain INT32 field (counts, lengths).
    fn i32f(&mut self, label: &str) -> R<i32> {
        let at = self.at();
        let (v, how) = self.sint(4)?;
        self.emit(at, format!("{label}: {v}  (INT32 {how})"));
        Ok(v as i32)
    }
    /// An unsigned field of `width` bytes shown with `show`.
    fn uintf(&mut self, width: usize, label: &str, show: impl Fn(u64) -> String) -> R<u64> {
        let at = self.at();
        let (v, how) = self.uint(width)?;
        self.emit(at, format!("{label}: {}  ({how})", show(v)));
        Ok(v)
    }
    /// A signed field of `width` bytes.
    fn sintf(&mut self, width: usize, label: &str, show: impl Fn(i64) -> String) -> R<i64> {
        let at = self.at();
        let (v, how) = self.sint(width)?;
        self.emit(at, format!("{label}: {}  ({how})", show(v)));
        Ok(v)
    }
    /// One raw byte shown with `show`.
    fn bytef(&mut self, label: &str, show: impl Fn(u8) -> String) -> R<u8> {
        let at = self.at();
        let b = self.r.u8()?;
        self.emit(at, format!("{label}: {}", show(b)));
        Ok(b)
    }

    /// A nullable C string: INT32 length counting the NUL (0 = NULL), then the bytes.
    fn string(&mut self, label: &str) -> R<Option<Vec<u8>>> {
        let at = self.at();
        let (len, how) = self.sint(4)?;
        let len = len as i32;
        let prof = self.codec.release.profile();
        if len == 0 || (len < 0 && prof.negative_string_is_null) {
            self.emit(at, format!("{label} length: {len} = NULL  (INT32 {how})"));
            return Ok(None);
        }
        if len < 0 {
            self.emit(at, format!("{label} length: {len}  (INT32 {how})"));
            return Err(fail(
                Status::ERR_OUT_OF_RESOURCE,
                at,
                format!("negative string length {len} (4.2.2 passes it to malloc)"),
            ));
        }
        let chars = match len {
            1 => "NUL only".to_string(),
            2 => "1 char + NUL".to_string(),
            n => format!("{} chars + NUL", n - 1),
        };
        self.emit(at, format!("{label} length: {len}  (INT32 {how}; {chars})"));
        let bat = self.at();
        let body = self.r.take(len as usize)?;
        let (kept, note) = match prof.string_forces_nul {
            true if body[body.len() - 1] != 0 => (
                &body[..body.len() - 1],
                format!(
                    "; last byte {:02x} is not NUL: forced to NUL",
                    body[body.len() - 1]
                ),
            ),
            true => (&body[..body.len() - 1], String::new()),
            false => (body, String::new()),
        };
        let end = kept.iter().position(|b| *b == 0).unwrap_or(kept.len());
        let cut = if end < kept.len() {
            format!("; ends at the NUL at +{end}")
        } else {
            String::new()
        };
        let s = &kept[..end];
        let term = if prof.string_forces_nul || body.last() == Some(&0) {
            " + NUL"
        } else {
            ""
        };
        self.emit(bat, format!("{label}: {}{term}{note}{cut}", quote(s)));
        Ok(Some(s.to_vec()))
    }
    /// A string the receiver requires (keys, namespaces): NULL is `PMIX_ERROR`.
    fn required_string(&mut self, label: &str, what: &str) -> R<()> {
        let at = self.at();
        match self.string(label)? {
            Some(_) => Ok(()),
            None => Err(fail(Status::ERROR, at, format!("NULL {what}"))),
        }
    }
    /// SIZE n, then n raw bytes.
    fn sized_bytes(&mut self, label: &str) -> R<()> {
        let at = self.at();
        let n = self.size(&format!("{label} size"))?;
        if n > self.r.remaining() as u64 {
            return Err(fail(
                Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER,
                at,
                format!("{n} bytes claimed, {} left", self.r.remaining()),
            ));
        }
        let bat = self.at();
        self.r.take(n as usize)?;
        if n > 0 {
            self.emit(bat, format!("{label}: {n} bytes"));
        }
        Ok(())
    }
    /// A count must not exceed the bytes left (the codec never allocates from a count).
    fn count_check(&self, n: u64, at: usize, what: &str) -> R<usize> {
        if n > self.r.remaining() as u64 {
            return Err(fail(
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
    fn rank(&mut self, label: &str) -> R<()> {
        if self.fam == Family::Legacy12 {
            let v = self.int(label)? as u32;
            if let Some(name) = rank_name(v) {
                self.note(format!(" = {name}"));
            }
            Ok(())
        } else {
            self.uintf(4, label, |v| rank_show(v as u32)).map(|_| ())
        }
    }
    fn proc(&mut self, label: &str) -> R<()> {
        let h = self.open(format!("{label} PROC"))?;
        self.required_string("nspace", "namespace")?;
        self.rank("rank")?;
        self.close(h);
        Ok(())
    }
    fn timeval(&mut self, label: &str) -> R<()> {
        let h = self.open(format!("{label} TIMEVAL"))?;
        self.sintf(8, "tv_sec", |v| v.to_string())?;
        // Both halves are one INT64 unpack call of two values (quirk R1 for the second).
        let was = std::mem::replace(&mut self.int_tail, true);
        let usec = self.sintf(8, "tv_usec", |v| v.to_string());
        self.int_tail = was;
        usec?;
        self.close(h);
        Ok(())
    }
    fn pid(&mut self, label: &str) -> R<()> {
        self.tagged_int(DataType::PID, label).map(|_| ())
    }
    fn coord(&mut self, label: &str) -> R<()> {
        let h = self.open(format!("{label} COORD"))?;
        self.bytef("view", |b| b.to_string())?;
        // No early count check: C allocates the coordinates and fails while reading them
        // (-50 at the first, 4.2.x's -63 at a later one, quirk R1).
        let n = self.size("dims")?;
        for i in 0..n {
            self.int_tail = i > 0;
            let c = self.uintf(4, &format!("coord[{i}]"), |v| v.to_string());
            self.int_tail = false;
            c?;
        }
        self.close(h);
        Ok(())
    }
    fn texts(&mut self, label: &str, n: usize) -> R<()> {
        for i in 0..n {
            self.string(&format!("{label}[{i}]"))?;
        }
        Ok(())
    }
    /// An APP's argv or env: the unpacker refuses a NULL element (quirk U17).
    fn app_texts(&mut self, label: &str, n: usize) -> R<()> {
        for i in 0..n {
            let at = self.at();
            if self.string(&format!("{label}[{i}]"))?.is_none() && self.as_read() {
                return Err(fail(
                    Status::ERROR,
                    at,
                    format!("NULL APP {label}[{i}]: the unpacker refuses it (quirk U17)"),
                ));
            }
        }
        Ok(())
    }
    fn float_text(&mut self, label: &str, double: bool) -> R<()> {
        if let Some(s) = self.string(label)? {
            let v = if double {
                parse_strtod(&s)
            } else {
                parse_strtof(&s) as f64
            };
            if let Some(f) = self.fields.last_mut() {
                f.text.push_str(&format!(" = {v}  (\"%f\" text)"));
            }
        }
        Ok(())
    }

    // ---- pack calls -----------------------------------------------------------------------

    /// One pack call: [INT32 tag] count [type tag] values.
    fn call(&mut self, index: usize, ty: Option<DataType>) -> R<()> {
        self.discovered = ty;
        let h = self.open(format!("item {index}"))?;
        if self.desc {
            let at = self.at();
            let t = self.tag("count tag")?;
            if t != DataType::INT32 {
                return Err(fail(
                    Status::ERR_UNPACK_FAILURE,
                    at,
                    format!("described buffer: expected INT32 count tag, got {t}"),
                ));
            }
        }
        let count_at = self.at();
        let (count, how) = self.sint(4)?;
        let count = count as i32;
        let note = if count < 0 {
            "; negative (quirk U5: no values, or -50 for fixed-size types)"
        } else {
            ""
        };
        self.emit(count_at, format!("count: {count}  (INT32 {how}{note})"));
        let n = count.max(0) as usize;
        let ty = match ty {
            Some(ty) => {
                if self.desc {
                    let at = self.at();
                    let got = self.tag("type tag")?;
                    let want = self.described_want(ty);
                    if got != want {
                        return Err(fail(
                            Status::ERR_PACK_MISMATCH,
                            at,
                            format!("got type {got} when expecting {want}"),
                        ));
                    }
                }
                ty
            }
            None => {
                let at = self.at();
                let ty = self.tag("type tag")?;
                self.discovered = Some(ty);
                let want = self.described_want(ty);
                if ty != want {
                    return Err(fail(
                        Status::ERR_PACK_MISMATCH,
                        at,
                        format!("got type {ty} when expecting {want}"),
                    ));
                }
                ty
            }
        };
        self.fields[h].text = format!("item {index}: {} x{n}", type_name(ty));
        // The fixed-size unpackers check `count * size` bytes (quirk U5); the native-size
        // ones read their integer tag and hand the call to that type's unpacker.
        // (A type the component does not register is refused first, below.)
        let registered = self.codec.component.registers(ty, self.codec.release);
        let mut past_end = count < 0 && registered && quirks::negative_count_past_end(self.fam, ty);
        if count < 0 && registered && quirks::self_tagged_int(self.fam, ty).is_some() {
            let (r, fields) = (self.r.clone(), self.fields.len());
            let remote = self.int_tag(ty, &format!("{ty} int tag"), None)?;
            past_end = quirks::negative_count_past_end(self.fam, remote);
            if !past_end {
                // read again with the (empty) values, quirk D2
                self.r = r;
                self.fields.truncate(fields);
            }
        }
        if past_end {
            return Err(fail(
                Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER,
                count_at,
                format!(
                    "negative count {count}: the unpacker checks count * size bytes (quirk U5)"
                ),
            ));
        }
        let comp = self.codec.component;
        if !comp.registers(ty, self.codec.release) {
            return Err(fail(
                Status::ERR_UNKNOWN_DATA_TYPE,
                self.at(),
                format!("{comp} does not register {ty}"),
            ));
        }
        if pmix_codec::empty_record_at_end_fails(comp, ty) && self.r.remaining() == 0 {
            return Err(fail(
                Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER,
                count_at,
                "empty buffer at an integer record (quirk U6)",
            ));
        }
        self.values(ty, n)?;
        self.close(h);
        Ok(())
    }

    fn values(&mut self, ty: DataType, n: usize) -> R<()> {
        if self.fam == Family::Legacy12
            && matches!(
                ty,
                DataType::POINTER
                    | DataType::INFO_DIRECTIVES
                    | DataType::PROC_STATE
                    | DataType::DATA_ARRAY
                    | DataType::PROC_INFO
                    | DataType::QUERY
            )
        {
            return Err(fail(
                Status::ERR_NOT_SUPPORTED,
                self.at(),
                format!("v12 cannot unpack {ty}"),
            ));
        }
        if ty == DataType::POINTER {
            let at = self.at();
            let b = self.r.u8()?;
            self.emit(
                at,
                format!("POINTER sentinel: {b:02x}  (one byte for all {n} pointers, quirk P1)"),
            );
            if n as u64 > self.pointer_budget {
                return Err(fail(
                    Status::ERR_NOMEM,
                    self.at(),
                    format!("{n} pointers for one sentinel byte"),
                ));
            }
            self.pointer_budget -= n as u64;
            return Ok(());
        }
        if quirks::self_tagged_int(self.fam, ty).is_some() {
            // One always-tag for the whole call or DATA_ARRAY payload, even an empty one
            // (quirk D2).
            let note = match n {
                1 => "; once per call (quirk D2)".to_string(),
                n => format!("; once for all {n} values (quirk D2)"),
            };
            let remote = self.int_tag(ty, &format!("{ty} int tag"), Some(note))?;
            self.array_int = Some(remote);
            let mut res = Ok(());
            for i in 0..n {
                self.int_tail = i > 0 && self.modern();
                res = self.leaf(ty, &format!("[{i}]"));
                self.int_tail = false;
                if res.is_err() {
                    break;
                }
            }
            self.array_int = None;
            return res;
        }
        if self.modern() && quirks::modern_int_array(ty) {
            // One integer unpack call for the whole array (quirk R1 from the second value).
            for i in 0..n {
                self.int_tail = i > 0;
                let r = self.leaf(ty, &format!("[{i}]"));
                self.int_tail = false;
                r?;
            }
            return Ok(());
        }
        for i in 0..n {
            self.one(ty, &format!("[{i}]"))?;
        }
        Ok(())
    }

    /// One value of `ty`.
    fn one(&mut self, ty: DataType, label: &str) -> R<()> {
        let start = self.at();
        match ty {
            DataType::VALUE => {
                let h = self.open(format!("{label} VALUE"))?;
                self.value()?;
                self.close(h);
            }
            DataType::INFO => self.info(label)?,
            DataType::PDATA => {
                let h = self.open(format!("{label} PDATA"))?;
                self.proc("proc")?;
                self.required_string("key", "key")?;
                let vt = self.value_type()?;
                self.value_payload(vt, "value")?;
                self.close(h);
            }
            DataType::KVAL => {
                let h = self.open(format!("{label} KVAL"))?;
                self.string("key")?;
                let v = self.open("value VALUE".into())?;
                self.value()?;
                self.close(v);
                self.close(h);
            }
            DataType::APP => self.app(label)?,
            DataType::DATA_ARRAY => self.darray(label)?,
            DataType::QUERY => {
                let h = self.open(format!("{label} QUERY"))?;
                let n = self.i32f("nkeys")?;
                let n = if n > 0 {
                    self.count_check(n as u64, start, "QUERY keys")?
                } else {
                    0
                };
                self.texts("keys", n)?;
                let qat = self.at();
                let nq = self.size("nqual")?;
                let nq = self.count_check(nq, qat, "QUERY qualifiers")?;
                if self.queries >= MAX_ARRAY_DEPTH {
                    return Err(fail(
                        Status::ERR_UNPACK_FAILURE,
                        start,
                        "QUERY nested deeper than 100",
                    ));
                }
                self.queries += 1;
                for i in 0..nq {
                    self.info(&format!("qualifiers[{i}]"))?;
                }
                self.queries -= 1;
                self.close(h);
            }
            DataType::INFO_ARRAY => self.info_array(label, start)?,
            _ => self.leaf(ty, label)?,
        }
        Ok(())
    }

    /// INFO_ARRAY: its size, then INFO records as written; v12 ... v3 read them as VALUEs
    /// (quirk U11), and v20 reads the size with its own SIZE unpacker (quirk L2).
    fn info_array(&mut self, label: &str, at: usize) -> R<()> {
        let h = self.open(format!("{label} INFO_ARRAY"))?;
        let n = if self.fam == Family::Legacy20
            && !self.as_read()
            && self
                .codec
                .release
                .profile()
                .size_tagged(DataType::INFO_ARRAY, self.fam)
        {
            // As written by the base SIZE packer: the always-tag only (quirk L2).
            let remote = self.tag("size int tag")?;
            self.int_of(remote, DataType::SIZE, "size")? as u64
        } else if self.as_read()
            && self
                .codec
                .release
                .profile()
                .info_array_unpack_tagged_in
                .contains(&self.fam)
        {
            // The unpacker's own SIZE reader, whatever the packer wrote (quirk R3).
            self.size("size")?
        } else {
            self.modex_size(DataType::INFO_ARRAY, "size")?
        };
        let n = self.count_check(n, at, "INFO_ARRAY")?;
        if self.info_arrays >= MAX_ARRAY_DEPTH {
            return Err(fail(
                Status::ERR_UNPACK_FAILURE,
                at,
                "INFO_ARRAY nested deeper than 100",
            ));
        }
        self.info_arrays += 1;
        if n > 0 && self.as_read() {
            for i in 0..n {
                let v = self.open(format!(
                    "[{i}] VALUE  (an INFO read as a VALUE by the receiver, quirk U11: its key is the type's bytes, no value)"
                ))?;
                self.value()?;
                self.close(v);
            }
            self.info_arrays -= 1;
            self.close(h);
            return Ok(());
        }
        for i in 0..n {
            if self.fam == Family::Legacy20 {
                self.base_info(&format!("[{i}]"))?;
            } else {
                self.info(&format!("[{i}]"))?;
            }
        }
        self.info_arrays -= 1;
        self.close(h);
        Ok(())
    }

    /// INFO: key, flags (not in v12), value type, value.
    fn info(&mut self, label: &str) -> R<()> {
        let h = self.open(format!("{label} INFO"))?;
        self.required_string("key", "key")?;
        if self.fam != Family::Legacy12 {
            self.uintf(4, "flags", |v| info_flags(v as u32))?;
        }
        let vt = self.value_type()?;
        self.value_payload(vt, "value")?;
        self.close(h);
        Ok(())
    }
    /// v20's INFO_ARRAY elements use the base layout: be16 value type.
    fn base_info(&mut self, label: &str) -> R<()> {
        let h = self.open(format!("{label} INFO"))?;
        self.required_string("key", "key")?;
        self.uintf(4, "flags", |v| info_flags(v as u32))?;
        let at = self.at();
        let vt = DataType(self.r.be16()?);
        self.emit(
            at,
            format!("value type: {}  (be16, base layout)", type_name(vt)),
        );
        // The base pack_val wrote v20's packers' output without pack_buffer's tag (quirk L2).
        if vt == DataType::UNDEF {
            self.fields.push(Field {
                offset: self.at(),
                len: 0,
                depth: self.indent,
                text: "value: UNDEF (no payload)".into(),
            });
        } else {
            self.one(vt, "value")?;
        }
        self.close(h);
        Ok(())
    }
    /// The value type of INFO/PDATA: a tagged INT in v12 (1.x numbering) and v20, else a tag.
    fn value_type(&mut self) -> R<DataType> {
        Ok(match self.fam {
            Family::Legacy12 => {
                let v = self.int("value type")? as u32 as u16;
                let t = quirks::v12_read_type(v);
                self.note(format!(" = {}", type_name(t)));
                t
            }
            Family::Legacy20 => {
                let t = DataType(self.int("value type")? as u32 as u16);
                self.note(format!(" = {}", type_name(t)));
                t
            }
            _ => self.tag("value type")?,
        })
    }
    fn note(&mut self, s: String) {
        if let Some(f) = self.fields.last_mut() {
            f.text.push_str(&s);
        }
    }
    /// A `pmix_value_t`: its type (a tag; v12: a tagged INT), then the payload.
    fn value(&mut self) -> R<()> {
        let ty = match self.fam {
            Family::Legacy12 => {
                let v = self.int("value type")? as u32 as u16;
                let t = quirks::v12_read_type(v);
                self.note(format!(" = {}", type_name(t)));
                t
            }
            _ => self.tag("value type")?,
        };
        self.value_payload(ty, "value")
    }
    /// The payload of a value whose type was just read, with each family's restrictions.
    fn value_payload(&mut self, ty: DataType, label: &str) -> R<()> {
        let at = self.at();
        if ty == DataType::UNDEF {
            if self.fam == Family::Legacy12 {
                return Err(fail(Status::ERROR, at, "v12 VALUE of UNDEF"));
            }
            self.fields.push(Field {
                offset: at,
                len: 0,
                depth: self.indent,
                text: format!("{label}: UNDEF (no payload)"),
            });
            return Ok(());
        }
        match self.fam {
            Family::Legacy12 => {
                if ty == DataType::INFO_ARRAY {
                    self.legacy_desc(DataType::INFO_ARRAY)?;
                    return self.one(DataType::INFO_ARRAY, label);
                }
                if !quirks::V12_VALUE_TYPES.contains(&ty) || ty == DataType::DATA_ARRAY {
                    return Err(fail(Status::ERROR, at, format!("v12 VALUE of {ty}")));
                }
                self.legacy_desc(ty)?;
                self.one(ty, label)
            }
            Family::Legacy20 => {
                if !quirks::V20_VALUE_TYPES.contains(&ty) {
                    return Err(fail(Status::ERROR, at, format!("v20 VALUE of {ty}")));
                }
                if ty == DataType::COMPRESSED_STRING {
                    self.legacy_desc(DataType::BYTE_OBJECT)?;
                    return self
                        .sized_bytes(&format!("{label} COMPRESSED_STRING (as BYTE_OBJECT)"));
                }
                if ty == DataType::PERSIST && self.as_read() {
                    // v20 unpacks a PERSIST value with the PROC unpacker (quirk U12).
                    self.legacy_desc(DataType::PROC)?;
                    self.proc(&format!("{label} (PERSIST read as a PROC, quirk U12)"))?;
                    return Err(fail(
                        Status::ERR_UNPACK_FAILURE,
                        at,
                        "v20 read a PERSIST value as a PROC and got garbage (quirk U12)",
                    ));
                }
                self.legacy_desc(ty)?;
                self.one(ty, label)
            }
            _ => {
                if quirks::VALUE_REFUSED_TYPES.contains(&ty) {
                    return Err(fail(
                        Status::ERR_BAD_PARAM,
                        at,
                        format!("a VALUE cannot carry {ty}"),
                    ));
                }
                if !self.codec.component.registers(ty, self.codec.release) {
                    return Err(fail(
                        Status::ERR_UNKNOWN_DATA_TYPE,
                        at,
                        format!("{} has no VALUE of {ty}", self.codec.component),
                    ));
                }
                let rel = self.codec.release;
                if self.as_read() && rel.profile().value_unpack_refuses.contains(&ty) {
                    return Err(fail(
                        Status::ERR_UNPACK_FAILURE,
                        at,
                        format!("the VALUE unpacker of {rel} does not know {ty} (quirk R8)"),
                    ));
                }
                self.one(ty, label)
            }
        }
    }

    fn app(&mut self, label: &str) -> R<()> {
        let h = self.open(format!("{label} APP"))?;
        self.string("cmd")?;
        let at = self.at();
        let argc = self.int("argc")?;
        let argc = if argc > 0 {
            self.count_check(argc as u64, at, "APP argc")?
        } else {
            0
        };
        self.app_texts("argv", argc)?;
        let at = self.at();
        let envc = self.i32f("envc")?;
        let envc = if envc > 0 {
            self.count_check(envc as u64, at, "APP envc")?
        } else {
            0
        };
        self.app_texts("env", envc)?;
        if self.fam != Family::Legacy12 {
            self.string("cwd")?;
        }
        self.int("maxprocs")?;
        let at = self.at();
        let ninfo = self.size("ninfo")?;
        let ninfo = self.count_check(ninfo, at, "APP ninfo")?;
        for i in 0..ninfo {
            self.info(&format!("info[{i}]"))?;
        }
        if self.fam == Family::Legacy12
            && self.as_read()
            && ninfo > 0
            && self.codec.release.profile().info_create_marks_end
        {
            self.fields.push(Field {
                offset: self.at(),
                len: 0,
                depth: self.indent,
                text: format!(
                    "(the receiver's info[{}] has flags 0x2 = ARRAY_END: v12 sends no flags, quirk U13)",
                    ninfo - 1
                ),
            });
        }
        self.close(h);
        Ok(())
    }

    /// DATA_ARRAY: element type, SIZE n, n elements (v20: be16 type, nested desc tag).
    fn darray(&mut self, label: &str) -> R<()> {
        let at = self.at();
        if self.arrays >= MAX_ARRAY_DEPTH {
            return Err(fail(
                Status::ERR_UNPACK_FAILURE,
                at,
                "DATA_ARRAY nested deeper than 100",
            ));
        }
        let h = self.open(format!("{label} DATA_ARRAY"))?;
        let ty = if self.fam == Family::Legacy20 {
            let t = DataType(self.r.be16()?);
            self.emit(at, format!("element type: {}  (be16)", type_name(t)));
            t
        } else {
            self.tag("element type")?
        };
        if ty == DataType::UNDEF
            && !self.codec.release.profile().darray_undef_has_size
            && self.fam != Family::Legacy20
        {
            self.note("; no SIZE follows (master)".into());
            self.close(h);
            return Ok(());
        }
        let nat = self.at();
        let n = self.size("size")?;
        if n == 0 || ty == DataType::UNDEF {
            self.close(h);
            return Ok(());
        }
        if ty != DataType::POINTER && ty != DataType::DATA_ARRAY {
            self.count_check(n, nat, "DATA_ARRAY")?;
        } else if (ty == DataType::POINTER && n > self.pointer_budget)
            || (ty == DataType::DATA_ARRAY && n > self.r.remaining() as u64 + 4096)
        {
            return Err(fail(
                Status::ERR_NOMEM,
                nat,
                "DATA_ARRAY count beyond what the input can hold",
            ));
        }
        // Element storage is allocated from a fixed list of types before anything is read
        // (quirk U8): v20 refuses the rest, 4.2.x's constructor leaves them NULL.
        if self.as_read()
            && self.fam == Family::Legacy20
            && !quirks::V20_DARRAY_ELEMENT_TYPES.contains(&ty)
        {
            return Err(fail(
                Status::ERR_NOT_SUPPORTED,
                at,
                format!("v20 cannot unpack an array of {ty} (quirk U8)"),
            ));
        }
        let comp = self.codec.component;
        let rel = self.codec.release;
        if rel.profile().darray_construct_4_2 && self.fam != Family::Legacy20 {
            let prof = rel.profile();
            if self.as_read()
                && (!quirks::DARRAY_CONSTRUCT_4_2.contains(&ty)
                    || prof.darray_constructs_not.contains(&ty))
                && !prof.darray_constructs_also.contains(&ty)
            {
                return Err(fail(
                    Status::ERR_NOMEM,
                    at,
                    format!("4.2.x cannot construct an array of {ty} (quirk U8)"),
                ));
            }
            if !comp.registers(ty, rel) {
                return Err(fail(
                    Status::ERR_UNKNOWN_DATA_TYPE,
                    self.at(),
                    format!("{comp} does not register {ty}"),
                ));
            }
        }
        if rel.profile().darray_unknown_element == Status::ERR_UNKNOWN_DATA_TYPE
            && (ty.0 > 75 || (self.as_read() && rel.profile().darray_unpack_refuses.contains(&ty)))
        {
            // 7.0 allocates the storage first (quirk U8).
            return Err(fail(
                Status::ERR_NOMEM,
                at,
                format!("cannot construct an array of {ty} (quirk U8)"),
            ));
        }
        if !comp.registers(ty, rel) && ty != DataType::REGEX {
            return Err(fail(
                rel.profile().darray_unknown_element,
                at,
                format!("{comp} does not register {ty}: no array of it (quirk U8)"),
            ));
        }
        if ty == DataType::REGEX
            || (self.as_read() && rel.profile().darray_unpack_refuses.contains(&ty))
        {
            return Err(fail(
                Status::ERR_NOMEM,
                at,
                format!("cannot construct an array of {ty} (quirk U8 where registered)"),
            ));
        }
        self.arrays += 1;
        if self.fam == Family::Legacy20 {
            self.legacy_desc(ty)?;
        }
        self.values(ty, n as usize)?;
        self.arrays -= 1;
        self.close(h);
        Ok(())
    }

    /// MODEX / INFO_ARRAY size: tagged SIZE in v12 and in 4.2.x, a bare be64 in master (quirk R3).
    fn modex_size(&mut self, ty: DataType, label: &str) -> R<u64> {
        if self.codec.release.profile().size_tagged(ty, self.fam) {
            self.size(label)
        } else {
            let at = self.at();
            let v = self.r.be64()?;
            self.emit(at, format!("{label}: {v}  (bare be64, master)"));
            Ok(v)
        }
    }

    /// Types that do not nest.
    fn leaf(&mut self, ty: DataType, label: &str) -> R<()> {
        let at = self.at();
        let fam = self.fam;
        let l = format!("{label} {ty}");
        let l = l.as_str();
        match ty {
            DataType::BOOL => {
                self.bytef(l, |b| {
                    if b == 0 {
                        "false".into()
                    } else if b == 1 {
                        "true".into()
                    } else {
                        format!("true (non-zero byte {b:02x})")
                    }
                })?;
            }
            DataType::BYTE | DataType::UINT8 => {
                self.bytef(l, |b| format!("{b} (0x{b:02x})"))?;
            }
            DataType::INT8 => {
                self.bytef(l, |b| (b as i8).to_string())?;
            }
            DataType::PROC_STATE
            | DataType::JOB_STATE
            | DataType::LINK_STATE
            | DataType::RESBLOCK_DIRECTIVE => {
                self.bytef(l, |b| b.to_string())?;
            }
            DataType::ALLOC_DIRECTIVE => {
                self.bytef(l, |b| format!("{b} ({})", alloc_directive_string(b)))?;
            }
            DataType::ALLOC_INHERIT => {
                self.bytef(l, |b| format!("{b} ({})", alloc_inheritance_string(b)))?;
            }
            DataType::STRING | DataType::PROC_CPUSET | DataType::TOPO => {
                self.string(l)?;
            }
            DataType::PROC_NSPACE => {
                // PMIX_LOAD_NSPACE zeroes the array and copies nothing for NULL (quirk U15).
                if self.string(l)?.is_none() {
                    self.note("; loaded as an empty namespace (quirk U15)".into());
                }
            }
            DataType::SIZE => {
                self.size(l)?;
            }
            DataType::PID => self.pid(l)?,
            DataType::INT | DataType::UINT => {
                self.int(l)?;
            }
            DataType::INT16 => {
                self.sintf(2, l, |v| v.to_string())?;
            }
            DataType::INT32 => {
                self.sintf(4, l, |v| v.to_string())?;
            }
            DataType::INT64 => {
                self.sintf(8, l, |v| v.to_string())?;
            }
            DataType::UINT16
            | DataType::IOF_CHANNEL
            | DataType::LOCTYPE
            | DataType::STOR_ACCESS_TYPE => {
                self.uintf(2, l, |v| v.to_string())?;
            }
            DataType::UINT32 => {
                self.uintf(4, l, |v| v.to_string())?;
            }
            DataType::INFO_DIRECTIVES => {
                self.uintf(4, l, |v| info_flags(v as u32))?;
            }
            DataType::UINT64
            | DataType::TIME
            | DataType::STOR_MEDIUM
            | DataType::STOR_ACCESS
            | DataType::STOR_PERSIST => {
                self.uintf(8, l, |v| v.to_string())?;
            }
            DataType::DEVTYPE => {
                self.uintf(8, l, |v| format!("0x{v:x}"))?;
            }
            DataType::FLOAT => self.float_text(l, false)?,
            DataType::DOUBLE => self.float_text(l, true)?,
            DataType::TIMEVAL => self.timeval(label)?,
            DataType::STATUS => {
                if fam == Family::Legacy12 {
                    let v = self.int(l)?;
                    self.note(format!(" = {}", Status(v)));
                } else {
                    self.sintf(4, l, |v| Status(v as i32).to_string())?;
                }
            }
            DataType::PROC => self.proc(label)?,
            DataType::PROC_RANK => self.rank(l)?,
            DataType::BUFFER => {
                let h = self.open(l.to_string())?;
                if !self.legacy() {
                    self.bytef("buffer type", |b| b.to_string())?;
                }
                self.sized_bytes("bytes")?;
                self.close(h);
            }
            DataType::BYTE_OBJECT
            | DataType::COMPRESSED_STRING
            | DataType::COMPRESSED_BYTE_OBJECT
            | DataType::DATA_BUFFER => {
                let h = self.open(l.to_string())?;
                self.sized_bytes("bytes")?;
                self.close(h);
            }
            DataType::MODEX => {
                let h = self.open(l.to_string())?;
                let n = self.modex_size(DataType::MODEX, "size")?;
                let n = self.count_check(n, at, "MODEX")?;
                let bat = self.at();
                self.r.take(n)?;
                if n > 0 {
                    self.emit(bat, format!("blob: {n} bytes"));
                }
                self.close(h);
            }
            DataType::PERSIST | DataType::SCOPE | DataType::DATA_RANGE => {
                if fam == Family::Legacy12 {
                    self.int(l)?;
                } else {
                    self.bytef(l, |b| b.to_string())?;
                }
            }
            DataType::COMMAND => {
                if self.legacy() {
                    self.sintf(4, l, |v| format!("{}", v as u8))?;
                } else {
                    self.bytef(l, |b| b.to_string())?;
                }
            }
            DataType::DATA_TYPE => {
                let (v, how) = match fam {
                    Family::Legacy12 => (self.r.be32()? as u16, "be32".to_string()),
                    Family::Modern if !self.datatype_as_written() => {
                        let (v, how) = self.sint(2)?;
                        (v as u16, format!("{how}; read as INT16, quirk D1"))
                    }
                    _ => {
                        let (v, how) = self.uint(2)?;
                        (v as u16, how)
                    }
                };
                self.emit(at, format!("{l}: {}  ({how})", type_name(DataType(v))));
            }
            DataType::PROC_INFO => {
                let h = self.open(l.to_string())?;
                self.proc("proc")?;
                self.string("hostname")?;
                self.string("executable_name")?;
                self.pid("pid")?;
                self.bytef("state", |b| b.to_string())?;
                self.close(h);
            }
            DataType::ENVAR => {
                let h = self.open(l.to_string())?;
                self.string("envar")?;
                self.string("value")?;
                self.bytef("separator", |b| format!("{:?}", b as char))?;
                self.close(h);
            }
            DataType::COORD => self.coord(label)?,
            DataType::REGATTR => {
                let h = self.open(l.to_string())?;
                self.string("name")?;
                self.required_string("string (key)", "key")?;
                if self.modern() && !self.datatype_as_written() {
                    self.sintf(2, "type", |v| {
                        format!(
                            "{} (read as INT16, quirk D1)",
                            type_name(DataType(v as u16))
                        )
                    })?;
                } else {
                    self.uintf(2, "type", |v| type_name(DataType(v as u16)))?;
                }
                let nat = self.at();
                let nd = self.i32f("ndescriptions")?;
                let nd = if nd > 0 {
                    self.count_check(nd as u64, nat, "REGATTR descriptions")?
                } else {
                    0
                };
                self.texts("description", nd)?;
                self.close(h);
            }
            DataType::GEOMETRY => {
                let h = self.open(l.to_string())?;
                self.size("fabric")?;
                self.string("uuid")?;
                self.string("osname")?;
                let cat = self.at();
                let n = self.size("ncoords")?;
                let n = self.count_check(n, cat, "GEOMETRY coordinates")?;
                for i in 0..n {
                    self.coord(&format!("coordinates[{i}]"))?;
                }
                self.close(h);
            }
            DataType::DEVICE_DIST => {
                let h = self.open(l.to_string())?;
                self.string("uuid")?;
                self.string("osname")?;
                self.uintf(8, "type", |v| format!("0x{v:x}"))?;
                self.uintf(2, "mindist", |v| v.to_string())?;
                self.uintf(2, "maxdist", |v| v.to_string())?;
                self.close(h);
            }
            DataType::ENDPOINT => {
                let h = self.open(l.to_string())?;
                self.string("uuid")?;
                self.string("osname")?;
                self.sized_bytes("endpt")?;
                self.close(h);
            }
            DataType::DEVICE => {
                let h = self.open(l.to_string())?;
                self.string("uuid")?;
                self.string("osname")?;
                self.uintf(8, "type", |v| format!("0x{v:x}"))?;
                self.close(h);
            }
            DataType::RESOURCE_UNIT => {
                let h = self.open(l.to_string())?;
                self.uintf(8, "type", |v| format!("0x{v:x}"))?;
                self.size("count")?;
                self.close(h);
            }
            DataType::NODE_PID => {
                let h = self.open(l.to_string())?;
                self.string("hostname")?;
                self.uintf(4, "nodeid", |v| v.to_string())?;
                self.pid("pid")?;
                self.close(h);
            }
            DataType::REGEX2 => {
                let h = self.open(l.to_string())?;
                self.string("type")?;
                self.sized_bytes("regex")?;
                self.close(h);
            }
            DataType::POINTER => {
                self.bytef(l, |b| format!("sentinel {b:02x}"))?;
            }
            DataType::PROC_STATS => {
                let h = self.open(l.to_string())?;
                self.string("node")?;
                self.proc("proc")?;
                self.pid("pid")?;
                self.string("cmd")?;
                self.bytef("state", |b| format!("{:?}", b as char))?;
                self.timeval("time")?;
                self.sintf(4, "priority", |v| v.to_string())?;
                self.sintf(2, "num_threads", |v| v.to_string())?;
                self.float_text("pss", false)?;
                self.float_text("vsize", false)?;
                self.float_text("rss", false)?;
                if self.codec.release.profile().proc_stats_reads_peak_vsize && self.as_read() {
                    // 4.2.x reads a peak_vsize its packer never wrote (quirk U10).
                    self.float_text("peak_vsize (read, never written: quirk U10)", false)?;
                }
                self.sintf(2, "processor", |v| v.to_string())?;
                self.timeval("sample_time")?;
                self.close(h);
            }
            DataType::DISK_STATS => self.disk_stats(l)?,
            DataType::NET_STATS => self.net_stats(l)?,
            DataType::NODE_STATS => {
                let h = self.open(l.to_string())?;
                self.string("node")?;
                for name in NODE_FLOATS {
                    self.float_text(name, false)?;
                }
                self.timeval("sample_time")?;
                let dat = self.at();
                let nd = self.size("ndiskstats")?;
                let nd = self.count_check(nd, dat, "NODE_STATS disks")?;
                for i in 0..nd {
                    self.disk_stats(&format!("diskstats[{i}] DISK_STATS"))?;
                }
                let nat = self.at();
                let nn = self.size("nnetstats")?;
                let nn = self.count_check(nn, nat, "NODE_STATS nets")?;
                for i in 0..nn {
                    self.net_stats(&format!("netstats[{i}] NET_STATS"))?;
                }
                self.close(h);
            }
            DataType::REGEX => self.regex(l)?,
            other => {
                return Err(fail(
                    Status::ERR_UNKNOWN_DATA_TYPE,
                    at,
                    format!("no unpacker for {other}"),
                ))
            }
        }
        Ok(())
    }

    fn disk_stats(&mut self, l: &str) -> R<()> {
        let h = self.open(l.to_string())?;
        self.string("disk")?;
        for i in 0..11 {
            self.uintf(8, &format!("counters[{i}]"), |v| v.to_string())?;
        }
        self.close(h);
        Ok(())
    }
    fn net_stats(&mut self, l: &str) -> R<()> {
        let h = self.open(l.to_string())?;
        self.string("net_interface")?;
        for i in 0..6 {
            self.uintf(8, &format!("counters[{i}]"), |v| v.to_string())?;
        }
        self.close(h);
        Ok(())
    }

    /// REGEX: preg framing with no bfrops length (`raw:...` + NUL; `blob:` + NUL,
    /// `component=...:` + NUL, `size=N:` + NUL, then N bytes; in 4.2.x also `pmix[...]` + NUL).
    fn regex(&mut self, label: &str) -> R<()> {
        let at = self.at();
        let rest = self.r.rest();
        let cstr_len = |b: &[u8]| b.iter().position(|c| *c == 0);
        if rest.starts_with(b"blob:") {
            let mut off = 0;
            let mut size_field: &[u8] = &[];
            for _ in 0..3 {
                let n = cstr_len(&rest[off..]).ok_or_else(|| {
                    fail(
                        Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER,
                        at,
                        "unterminated regex blob header",
                    )
                })?;
                size_field = &rest[off..off + n];
                off += n + 1;
            }
            let size = size_field
                .strip_prefix(b"size=")
                .and_then(|s| s.strip_suffix(b":"))
                .and_then(|s| std::str::from_utf8(s).ok())
                .and_then(|s| s.parse::<usize>().ok())
                .ok_or_else(|| fail(Status::ERR_UNPACK_FAILURE, at, "bad regex blob size field"))?;
            if size > rest.len() - off {
                return Err(fail(
                    Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER,
                    at,
                    "regex blob larger than the input",
                ));
            }
            let header = quote(&rest[..off - 1]).replace("\\x00", "\\0");
            self.r.take(off)?;
            self.emit(at, format!("{label} blob header: {header} + NUL  (preg)"));
            let bat = self.at();
            self.r.take(size)?;
            if size > 0 {
                self.emit(bat, format!("{label} blob: {size} bytes"));
            }
            return Ok(());
        }
        let framed = rest.starts_with(b"raw:")
            || (self.codec.release.profile().regex_pmix_framing && rest.starts_with(b"pmix"));
        let claimed = !self.codec.release.profile().regex_needs_nul || cstr_len(rest).is_some();
        if framed && claimed {
            let n = cstr_len(rest).ok_or_else(|| {
                fail(
                    Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER,
                    at,
                    "unterminated regex",
                )
            })?;
            let text = quote(&rest[..n]);
            self.r.take(n + 1)?;
            self.emit(at, format!("{label}: {text} + NUL  (preg framing)"));
            return Ok(());
        }
        // No preg module claims it: OpenPMIx falls back to a whole unpack of one STRING
        // through its own peer's module, which refuses a buffer of another kind than its
        // default (non-described): -20 for a described buffer (quirk U4).
        if self.desc {
            return Err(fail(
                Status::ERR_UNPACK_FAILURE,
                at,
                "REGEX fallback: a described buffer is not the local default kind (quirk U4)",
            ));
        }
        let h = self.open(format!(
            "{label}: no preg framing; the receiver unpacks one STRING instead (quirk U4)"
        ))?;
        let count_at = self.at();
        let (count, how) = self.sint(4)?;
        self.emit(count_at, format!("count: {count}  (INT32 {how})"));
        let n = count.max(0) as usize;
        if n > 0 {
            self.string("[0] STRING")?;
        }
        if n > 1 {
            return Err(fail(
                Status::ERR_UNPACK_INADEQUATE_SPACE,
                count_at,
                format!("{n} values sent, room for 1"),
            ));
        }
        self.close(h);
        Err(fail(
            Status::ERR_UNPACK_FAILURE,
            at,
            "REGEX without a known preg framing: a plain string (quirk U4)",
        ))
    }
}

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

/// The byte width of a fixed-width integer type, `None` for the other types.
fn int_width(t: DataType) -> Option<usize> {
    match t {
        DataType::INT8 | DataType::UINT8 => Some(1),
        DataType::INT16 | DataType::UINT16 => Some(2),
        DataType::INT32 | DataType::UINT32 => Some(4),
        DataType::INT64 | DataType::UINT64 => Some(8),
        _ => None,
    }
}

/// The C type a tagged integer field holds locally.
fn native_width(t: DataType) -> DataType {
    match t {
        DataType::SIZE => DataType::UINT64,
        DataType::PID => DataType::UINT32,
        _ => DataType::INT32,
    }
}

/// `NAME (id)`.
pub fn type_name(t: DataType) -> String {
    match t.name() {
        Some(n) => format!("{n} ({})", t.0),
        None => format!("unknown type {}", t.0),
    }
}

fn rank_name(v: u32) -> Option<&'static str> {
    match v {
        0xffff_fffe => Some("PMIX_RANK_WILDCARD"),
        0xffff_ffff => Some("PMIX_RANK_UNDEF"),
        0xffff_fffd => Some("PMIX_RANK_LOCAL_NODE"),
        0xffff_fffb => Some("PMIX_RANK_LOCAL_PEERS"),
        0xffff_fffa => Some("PMIX_RANK_INVALID"),
        _ => None,
    }
}
fn rank_show(v: u32) -> String {
    match rank_name(v) {
        Some(n) => format!("{v} = {n}"),
        None => v.to_string(),
    }
}

/// INFO flags / INFO_DIRECTIVES with their bit names.
fn info_flags(v: u32) -> String {
    const BITS: [(u32, &str); 5] = [
        (0x1, "REQD"),
        (0x2, "ARRAY_END"),
        (0x4, "REQD_PROCESSED"),
        (0x8, "QUALIFIER"),
        (0x10, "PERSISTENT"),
    ];
    if v == 0 {
        return "0x0".into();
    }
    let mut names: Vec<String> = BITS
        .iter()
        .filter(|(b, _)| v & b != 0)
        .map(|(_, n)| n.to_string())
        .collect();
    let rest = v & !0x1f;
    if rest != 0 {
        names.push(format!("0x{rest:x}"));
    }
    format!("0x{v:x} = {}", names.join("|"))
}

/// A byte string as a quoted, escaped literal.
fn quote(s: &[u8]) -> String {
    let mut out = String::from("\"");
    for &b in s {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(b as char),
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push('"');
    out
}

// ---- rendering -------------------------------------------------------------------------

/// Bytes shown per row.
const ROW: usize = 8;
/// Rows shown for one field before eliding (unless `full`).
const MAX_ROWS: usize = 4;

/// Render a dissection as text: a header, one line per field (continuation rows for long
/// fields), then the outcome.
pub fn render(d: &Dissection, bytes: &[u8], full: bool) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "{:>6}  {:<w$}  field\n",
        "offset",
        "bytes",
        w = ROW * 3 - 1
    ));
    for f in &d.fields {
        let indent = "  ".repeat(f.depth);
        let span = &bytes[f.offset..f.offset + f.len];
        let mut rows = span.chunks(ROW);
        let first = rows.next().map(hexrow).unwrap_or_default();
        out.push_str(&format!(
            "{:>6}  {:<w$}  {indent}{}\n",
            f.offset,
            first,
            f.text,
            w = ROW * 3 - 1
        ));
        let rest: Vec<&[u8]> = rows.collect();
        let shown = if full || rest.len() < MAX_ROWS {
            rest.len()
        } else {
            MAX_ROWS - 1
        };
        for (i, row) in rest.iter().take(shown).enumerate() {
            out.push_str(&format!(
                "{:>6}  {}\n",
                f.offset + (i + 1) * ROW,
                hexrow(row)
            ));
        }
        if shown < rest.len() {
            let more = f.len - (shown + 1) * ROW;
            out.push_str(&format!(
                "{:>6}  ... {more} more bytes\n",
                f.offset + (shown + 1) * ROW
            ));
        }
    }
    if let Some(walk) = &d.disagreement {
        out.push_str(&format!(
            "{:>6}  !!! the dissector disagrees with the codec here ({walk}); the verdict below is the codec's (please report this)\n",
            d.consumed
        ));
        if d.error.is_none() {
            out.push_str(&format!(
                "{:>6}  end: the codec decodes the {} bytes without error\n",
                d.consumed,
                bytes.len()
            ));
            return out;
        }
    }
    match &d.error {
        None => {
            out.push_str(&format!(
                "{:>6}  end: {} of {} bytes consumed, {} item(s)\n",
                d.consumed,
                d.consumed,
                bytes.len(),
                d.items
            ));
            if d.consumed < bytes.len() {
                out.push_str(&format!(
                    "{:>6}  {} trailing byte(s) not consumed:\n",
                    d.consumed,
                    bytes.len() - d.consumed
                ));
                for (i, row) in bytes[d.consumed..].chunks(ROW).enumerate() {
                    out.push_str(&format!("{:>6}  {}\n", d.consumed + i * ROW, hexrow(row)));
                }
            }
        }
        Some(e) => {
            let at = e.offset.min(bytes.len());
            out.push_str(&format!(
                "{:>6}  ^^^ decoding fails here: {}\n",
                e.offset,
                super::error_line(e)
            ));
            if at < bytes.len() {
                out.push_str(&format!(
                    "{:>6}  {} byte(s) from the failing field on:\n",
                    at,
                    bytes.len() - at
                ));
                let rows: Vec<&[u8]> = bytes[at..].chunks(ROW).collect();
                let shown = if full {
                    rows.len()
                } else {
                    rows.len().min(MAX_ROWS)
                };
                for (i, row) in rows.iter().take(shown).enumerate() {
                    out.push_str(&format!("{:>6}  {}\n", at + i * ROW, hexrow(row)));
                }
                if shown < rows.len() {
                    out.push_str(&format!(
                        "{:>6}  ... {} more bytes\n",
                        at + shown * ROW,
                        bytes.len() - at - shown * ROW
                    ));
                }
            }
        }
    }
    out
}

fn hexrow(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}
