//! Containers and nesting: INFO_ARRAY and DATA_ARRAY, with the nesting bound.

use super::{err, Dec};
use crate::component::Family;
use crate::encode::MAX_ARRAY_DEPTH;
use crate::error::Result;
use crate::observe::{Observer, Seg, TagRole};
use crate::quirks;
use crate::status::Status;
use crate::types::DataType;
use crate::value::*;

/// The DATA_ARRAY of DATA_ARRAY count from which pmix-codec refuses with -32 before reading:
/// the libraries allocate the element storage first (a `pmix_data_array_t`, 24 bytes, per
/// element), and every recorded library fails that allocation at 2^31 elements (48 GiB).
const DARRAY_ALLOC_LIMIT: u64 = 1 << 31;

impl<'a, O: Observer> Dec<'a, O> {
    /// Containers open around the current read, all kinds together (DATA_ARRAY, INFO_ARRAY,
    /// QUERY): the cap applies to their sum, so alternating kinds cannot nest deeper.
    #[inline]
    pub(super) fn nesting(&self) -> u32 {
        self.depth + self.info_depth + self.query_depth
    }

    #[inline(never)]
    pub(super) fn info_array(&mut self, at: usize) -> Result<Value> {
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

    pub(super) fn darray(&mut self) -> Result<DataArray> {
        let mut d = DataArray {
            ty: DataType::UNDEF,
            values: Vec::new(),
        };
        self.darray_into(&mut d)?;
        Ok(d)
    }

    /// [`Dec::darray`] into `d`, reusing the memory of its elements.
    pub(super) fn darray_into(&mut self, d: &mut DataArray) -> Result<()> {
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
        let ty = self.named("element type").tag()?;
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
        // 7.0 and master refuse a count beyond the bytes left before they allocate the
        // element storage; up to 6.1 (and v20 everywhere) the storage comes first, so an
        // element type it cannot hold is refused whatever the count (quirk R7).
        let count_first =
            self.rel.profile().darray_count_before_storage && self.fam != Family::Legacy20;
        if count_first {
            self.darray_count_guard(ty, n, nat)?;
        }
        self.darray_storage(ty, at)?;
        if !count_first {
            self.darray_count_guard(ty, n, nat)?;
        }
        Ok((ty, Some(n as usize)))
    }

    /// A DATA_ARRAY count (at `nat`) the input cannot hold: beyond the bytes left (-50). For
    /// POINTER and DATA_ARRAY elements, which may take less than a byte each, the bytes left
    /// do not bound the count, so it is not refused here the same way:
    ///
    /// * POINTER: nothing here; the payload's sentinel byte is read first and the POINTER
    ///   budget is spent after it ([`Dec::plan`]), as the libraries allocate and then read
    ///   past the end (-50) when the sentinel is missing (quirk P1);
    /// * DATA_ARRAY: -32 for a count beyond the bytes left plus 4096 only where the elements
    ///   would be made from nothing: the next inner array is typeless (7.0 and master stop
    ///   reading at an UNDEF inner array and leave the rest empty, quirk R2, so memory would
    ///   follow the count, not the input), or the count is [`DARRAY_ALLOC_LIMIT`] or more
    ///   (the libraries' element storage cannot be allocated). Otherwise the real elements are
    ///   read one by one (reserved by the bytes left), and a lying count runs out of input
    ///   (-50) as in the libraries.
    fn darray_count_guard(&self, ty: DataType, n: u64, nat: usize) -> Result<()> {
        if ty != DataType::POINTER && ty != DataType::DATA_ARRAY {
            self.count_check(n, nat, "DATA_ARRAY")?;
        } else if ty == DataType::DATA_ARRAY
            && n > self.r.remaining() as u64 + 4096
            && (n >= DARRAY_ALLOC_LIMIT || self.next_inner_typeless())
        {
            return Err(err(
                Status::ERR_NOMEM,
                nat,
                "DATA_ARRAY count beyond what the input can hold",
            ));
        }
        Ok(())
    }

    /// Whether the next inner array of a DATA_ARRAY of DATA_ARRAY starts with the UNDEF
    /// element type (read ahead without moving; v20's described tag is stepped over).
    fn next_inner_typeless(&self) -> bool {
        let mut r = self.r.clone();
        if self.desc && self.fam == Family::Legacy20 && r.be16().is_err() {
            return false;
        }
        let tag = match self.fam {
            Family::Legacy12 => r.be32().map(u64::from),
            Family::Legacy20 | Family::Converged => r.be16().map(u64::from),
            Family::Modern => r.flex(2, self.rel),
        };
        matches!(tag, Ok(t) if t == u64::from(DataType::UNDEF.0))
    }

    /// Whether the release can allocate the element storage of a DATA_ARRAY of `ty` (the
    /// array starts at `at`; quirk U8): its refusal if not.
    fn darray_storage(&self, ty: DataType, at: usize) -> Result<()> {
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
        // The packer writes a REGEX array like any other (as written, it is read back).
        if self.as_read()
            && (ty == DataType::REGEX || self.rel.profile().darray_unpack_refuses.contains(&ty))
        {
            return Err(err(
                Status::ERR_NOMEM,
                at,
                format!("cannot construct an array of {ty} (quirk U8 where registered)"),
            ));
        }
        Ok(())
    }
}
