//! Top-level unpack calls: the count, the described buffer's tags, the capacity check.

use super::room::{room_for_one, touch_ahead};
use super::{err, Dec, Plan};
use crate::component::Family;
use crate::error::Result;
use crate::observe::{Observer, Seg, TagRole};
use crate::quirks;
use crate::status::Status;
use crate::types::DataType;
use crate::value::*;

impl<'a, O: Observer> Dec<'a, O> {
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
        self.buffer_prologue(ty, n, count_at)?;
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
        self.buffer_prologue(ty, n, count_at)?;
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
        self.buffer_prologue(ty, n, count_at)?;
        self.values_into(ty, n, out)
    }

    /// `pack_buffer`'s tag, the registration check and quirk U6, before a call's `n` values.
    fn buffer_prologue(&mut self, ty: DataType, n: usize, count_at: usize) -> Result<()> {
        self.check_buffer_tag(ty)?;
        if !self.comp.registers(ty, self.rel) {
            return Err(err(
                Status::ERR_UNKNOWN_DATA_TYPE,
                self.at(),
                format!("{} does not register {}", self.comp, ty),
            ));
        }
        // Quirk U6: the modern integer unpacker refuses an empty buffer before the loop. With
        // values to read that is plain truncation; only an empty record is the quirk.
        if self.fam == Family::Modern && self.r.remaining() == 0 && quirks::modern_int_entry(ty) {
            return Err(err(
                Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER,
                count_at,
                if n == 0 {
                    "empty integer record at the end of the buffer (quirk U6)"
                } else {
                    "the buffer ends before the integer record's values"
                },
            ));
        }
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
}
