//! Reader primitives: bytes, type tags and the integers of each family (fixed width,
//! flexible, self-tagged), with the quirk state they read under.

use super::{err, Dec};
use crate::component::{Family, FlexTail};
use crate::error::Result;
use crate::observe::{Enc, Meaning, Observer, TagRole};
use crate::quirks;
use crate::status::Status;
use crate::types::DataType;
use crate::wire::unzigzag;

impl<'a, O: Observer> Dec<'a, O> {
    pub(super) fn datatype_as_written(&self) -> bool {
        self.opts.datatype_as_written || self.opts.as_written
    }

    #[inline]
    pub(super) fn as_read(&self) -> bool {
        !self.opts.as_written
    }

    #[inline]
    pub(super) fn legacy(&self) -> bool {
        matches!(self.fam, Family::Legacy12 | Family::Legacy20)
    }

    #[inline]
    pub(super) fn at(&self) -> usize {
        self.r.offset()
    }

    #[inline]
    pub(super) fn u8(&mut self) -> Result<u8> {
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
    pub(super) fn flex(&mut self, width: usize) -> Result<u64> {
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
        self.r.flex_beyond_short(width, self.rel)
    }

    #[inline(always)]
    pub(super) fn u16(&mut self) -> Result<u16> {
        let at = self.mark();
        let (v, enc) = match self.fam {
            Family::Modern => (self.flex(2)? as u16, Enc::Flex),
            _ => (self.r.be16()?, Enc::Be16),
        };
        self.emit_int(at, v as i128, enc);
        Ok(v)
    }

    #[inline(always)]
    pub(super) fn i16(&mut self) -> Result<i16> {
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
    pub(super) fn u32(&mut self) -> Result<u32> {
        let at = self.mark();
        let (v, enc) = match self.fam {
            Family::Modern => (self.flex(4)? as u32, Enc::Flex),
            _ => (self.r.be32()?, Enc::Be32),
        };
        self.emit_int(at, v as i128, enc);
        Ok(v)
    }

    #[inline(always)]
    pub(super) fn i32(&mut self) -> Result<i32> {
        let at = self.mark();
        let (v, enc) = self.i32_enc()?;
        self.emit_int(at, v as i128, enc);
        Ok(v)
    }

    /// An INT32 and how it was encoded, not reported.
    #[inline(always)]
    pub(super) fn i32_enc(&mut self) -> Result<(i32, Enc)> {
        Ok(match self.fam {
            Family::Modern => {
                let u = self.flex(4)?;
                (unzigzag(u) as i32, Enc::Zigzag(u))
            }
            _ => (self.r.be32()? as i32, Enc::Be32),
        })
    }

    #[inline(always)]
    pub(super) fn u64(&mut self) -> Result<u64> {
        let at = self.mark();
        let (v, enc) = match self.fam {
            Family::Modern => (self.flex(8)?, Enc::Flex),
            _ => (self.r.be64()?, Enc::Be64),
        };
        self.emit_int(at, v as i128, enc);
        Ok(v)
    }

    #[inline(always)]
    pub(super) fn i64(&mut self) -> Result<i64> {
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
    pub(super) fn be16(&mut self) -> Result<u16> {
        let at = self.mark();
        let v = self.r.be16()?;
        self.emit_int(at, v as i128, Enc::Be16);
        Ok(v)
    }

    /// A bare big-endian u32, reported.
    pub(super) fn be32(&mut self) -> Result<u32> {
        let at = self.mark();
        let v = self.r.be32()?;
        self.emit_int(at, v as i128, Enc::Be32);
        Ok(v)
    }

    /// A bare big-endian u64, reported.
    pub(super) fn be64(&mut self) -> Result<u64> {
        let at = self.mark();
        let v = self.r.be64()?;
        self.emit_int(at, v as i128, Enc::Be64);
        Ok(v)
    }

    /// `n` raw bytes, reported as one field.
    pub(super) fn take(&mut self, n: usize) -> Result<&'a [u8]> {
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
    pub(super) fn tag_as(&mut self, role: TagRole) -> Result<DataType> {
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
    pub(super) fn legacy_desc(&mut self, ty: DataType) -> Result<()> {
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
    pub(super) fn int_tag(&mut self, native: DataType) -> Result<DataType> {
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
    pub(super) fn int_of(&mut self, remote: DataType) -> Result<i128> {
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
    pub(super) fn int(&mut self) -> Result<i32> {
        if self.fam == Family::Modern {
            self.i32()
        } else {
            Ok(self.tagged_int(DataType::INT)? as i32)
        }
    }

    #[inline]
    pub(super) fn size(&mut self) -> Result<u64> {
        if self.fam == Family::Modern {
            self.u64()
        } else {
            Ok(self.tagged_int(DataType::SIZE)? as u64)
        }
    }

    pub(super) fn pid(&mut self) -> Result<i32> {
        Ok(self.tagged_int(DataType::PID)? as i32)
    }

    /// A nullable C string, borrowed from the input: the bytes a C reader sees.
    #[inline]
    /// 6.1's v12/v20 unpackers refuse a string length, APP envc or QUERY key count above
    /// INT_MAX-2 with PMIX_ERR_BAD_PARAM before reading further (quirk R9).
    pub(super) fn taint_limit(&self, n: i32, at: usize, what: &str) -> Result<()> {
        if n > i32::MAX - 2 && self.rel.profile().taint_limit_in.contains(&self.fam) {
            return Err(err(
                Status::ERR_BAD_PARAM,
                at,
                format!("{what} {n} above INT_MAX-2 (quirk R9)"),
            ));
        }
        Ok(())
    }
}
