//! Writer primitives: bytes, type tags and the integers of each family.

use super::Enc;
use crate::component::Family;
use crate::error::Result;
use crate::quirks;
use crate::types::DataType;
use crate::value::*;
use crate::wire::{put_flex, zigzag};

impl Enc {
    #[inline]
    pub(super) fn u8(&mut self, v: u8) {
        self.out.push(v);
    }

    #[inline]
    pub(super) fn u16(&mut self, v: u16) {
        match self.fam {
            Family::Modern => put_flex(&mut self.out, v as u64),
            _ => self.out.extend_from_slice(&v.to_be_bytes()),
        }
    }

    #[inline]
    pub(super) fn i16(&mut self, v: i16) {
        match self.fam {
            Family::Modern => put_flex(&mut self.out, zigzag(v as i64)),
            _ => self.out.extend_from_slice(&v.to_be_bytes()),
        }
    }

    #[inline]
    pub(super) fn u32(&mut self, v: u32) {
        match self.fam {
            Family::Modern => put_flex(&mut self.out, v as u64),
            _ => self.out.extend_from_slice(&v.to_be_bytes()),
        }
    }

    #[inline]
    pub(super) fn i32(&mut self, v: i32) {
        match self.fam {
            Family::Modern => put_flex(&mut self.out, zigzag(v as i64)),
            _ => self.out.extend_from_slice(&v.to_be_bytes()),
        }
    }

    #[inline]
    pub(super) fn u64(&mut self, v: u64) {
        match self.fam {
            Family::Modern => put_flex(&mut self.out, v),
            _ => self.out.extend_from_slice(&v.to_be_bytes()),
        }
    }

    #[inline]
    pub(super) fn i64(&mut self, v: i64) {
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
    pub(super) fn legacy_desc(&mut self, ty: DataType) {
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
    pub(super) fn int_tag(&mut self, wire: DataType) {
        self.tag(wire);
        self.legacy_desc(wire);
    }

    /// INT (and UINT): an always-tag plus be32 except in the modern family.
    pub(super) fn int(&mut self, v: i32) {
        if self.fam != Family::Modern {
            self.int_tag(DataType::INT32);
        }
        self.i32(v);
    }

    /// SIZE (`size_t`).
    #[inline]
    pub(super) fn size(&mut self, v: u64) {
        if self.fam != Family::Modern {
            self.int_tag(DataType::UINT64);
        }
        self.u64(v);
    }

    /// PID: always self-tagged as UINT32.
    pub(super) fn pid(&mut self, v: i32) {
        self.int_tag(DataType::UINT32);
        self.u32(v as u32);
    }

    /// One value of a self-tagged integer type, without its tag (written once per array).
    pub(super) fn bare_int(&mut self, v: &Value) -> Result<()> {
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
}
