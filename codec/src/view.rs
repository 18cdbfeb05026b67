//! A checked, indexed view of a message: the values stay in the input until asked for.
//!
//! [`Codec::view`] runs the one decoder over the input exactly as [`Codec::decode_calls`]
//! does, reading every value of every call (so it fails where a decode fails, with the same
//! status, offset and path), but keeps no value: each is dropped as soon as it is read,
//! containers included. What it keeps is where each top-level value starts: four bytes per
//! value. Its heap so stays within a few times the input, whatever the input holds, where a
//! decode's values weigh up to ~100 times a run of one-byte records (a [`Value`] is 48
//! bytes).
//!
//! A value is then decoded on demand from its offset ([`CallView::get`], [`CallView::iter`])
//! by the same decoder, in the state the call's loop read it in. Its size on the wire is
//! known before it is decoded ([`CallView::value_range`]), so a receiver with a memory
//! budget can refuse a value that would not fit instead of finding out by decoding it.
//!
//! ```
//! use pmix_codec::{BufferKind, Bytes, Codec, Component, DataType, Item, Value};
//! let codec = Codec::new(Component::V41, BufferKind::NonDescribed);
//! let bytes = Bytes::from(codec.encode(&[
//!     Item::new(DataType::UINT8, vec![Value::Uint8(7); 1000]),
//!     Item::one(Value::proc("ns", 3)),
//! ])?);
//! let view = codec.view(&bytes, &[(DataType::UINT8, 1000), (DataType::PROC, 1)])?;
//! assert_eq!(view.len(), 2);
//! let uint8s = view.call(0).unwrap();
//! assert_eq!((uint8s.ty(), uint8s.len()), (DataType::UINT8, 1000));
//! assert_eq!(uint8s.get(999)?, Value::Uint8(7));
//! assert_eq!(view.call(1).unwrap().get(0)?, Value::proc("ns", 3));
//! // the whole view, decoded, is what `decode` gives
//! assert_eq!(view.to_items()?, codec.decode(&bytes, &[DataType::UINT8, DataType::PROC])?);
//! # Ok::<(), pmix_codec::Error>(())
//! ```

use crate::decode::{Dec, Plan};
use crate::error::{Error, Result};
use crate::observe::{self, Observer};
use crate::status::Status;
use crate::types::DataType;
use crate::value::{Item, Value};
use crate::{Codec, Source};
use bytes::Bytes;
use std::ops::Range;

/// A message checked and indexed by [`Codec::view`]: its calls, and where each of their
/// values starts. Values are decoded when asked for.
#[derive(Clone, Debug)]
pub struct View {
    input: Bytes,
    codec: Codec,
    calls: Vec<CallIndex>,
    /// Where each value of each call starts, the calls one after the other.
    offsets: Vec<u32>,
}

/// Heap bytes a [`View`] keeps per call (its type, count, first value, plan and byte range),
/// on top of four bytes per top-level value.
pub const VIEW_BYTES_PER_CALL: usize = std::mem::size_of::<CallIndex>();

/// One call of a [`View`], as indexed.
#[derive(Clone, Copy, Debug)]
struct CallIndex {
    ty: DataType,
    /// Values read (and indexed).
    len: usize,
    /// Index of the call's first value in `View::offsets`.
    first: usize,
    /// How its values are read.
    plan: Plan,
    /// Where the call starts (its count, or its described-mode tag).
    start: usize,
    /// Where its last value ends.
    end: usize,
}

impl Codec {
    /// Check `input` against unpack calls given as (type, capacity), as
    /// [`Codec::decode_calls`] would decode them, keeping no value: a [`View`] that decodes
    /// each value on demand.
    ///
    /// It fails exactly where `decode_calls` fails (same status, offset, call and path).
    /// Its peak heap is the index (four bytes per top-level value, up to twice that while
    /// the index grows), [`VIEW_BYTES_PER_CALL`] bytes per call, and what one value of the
    /// deepest nest holds while it is read: bounded by the input and the number of calls,
    /// not by what the values would weigh decoded. The calls are the caller's choice (one
    /// per entry of `calls`, which the caller already holds at 16 bytes each), so the
    /// bound of a few times the input holds for a given list of calls; a million one-byte
    /// calls cost 40 MB however small the input (`codec/tests/heap_ratio.rs` checks both
    /// terms). A borrowed `input` is copied once into shared memory.
    ///
    /// Inputs of 4 GiB or more are refused with `PMIX_ERR_BAD_PARAM` (offsets are 32-bit).
    pub fn view<'a>(
        &self,
        input: impl Into<Source<'a>>,
        calls: &[(DataType, usize)],
    ) -> Result<View> {
        let input = input.into().to_shared();
        if u32::try_from(input.len()).is_err() {
            return Err(Error::new(
                Status::ERR_BAD_PARAM,
                0,
                format!("{} bytes: a view indexes at most 4 GiB", input.len()),
            ));
        }
        let mut dec = self.decoder(&input).discarding();
        match index_calls(&mut dec, calls) {
            Ok((calls, offsets)) => Ok(View {
                codec: *self,
                calls,
                offsets,
                input,
            }),
            Err(mut e) => {
                // the same walk again, keeping the path (only failures pay for it)
                let mut trail = self.decoder(&input).discarding().observed(observe::Trail);
                if index_calls(&mut trail, calls).is_err() {
                    e.path = observe::Path(&trail.where_now()).to_string();
                }
                Err(e)
            }
        }
    }
}

/// Index every call: the calls, and the offset of each value.
fn index_calls<O: Observer>(
    dec: &mut Dec<'_, O>,
    calls: &[(DataType, usize)],
) -> Result<(Vec<CallIndex>, Vec<u32>)> {
    let mut out = Vec::new();
    out.try_reserve(calls.len())
        .map_err(|_| Error::new(Status::ERR_NOMEM, 0, "out of memory for the calls' index"))?;
    let mut offsets = Vec::new();
    for (i, (ty, cap)) in calls.iter().enumerate() {
        let start = dec.r.offset();
        let first = offsets.len();
        match dec.index_call(*ty, *cap, &mut offsets) {
            Ok((len, plan)) => out.push(CallIndex {
                ty: *ty,
                len,
                first,
                plan,
                start,
                end: dec.r.offset(),
            }),
            Err(mut e) => {
                e.item = i;
                e.ty.get_or_insert(*ty);
                return Err(e);
            }
        }
    }
    Ok((out, offsets))
}

impl View {
    /// The number of calls.
    pub fn len(&self) -> usize {
        self.calls.len()
    }
    /// Whether there are no calls.
    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }
    /// Call `k`, if there is one.
    pub fn call(&self, k: usize) -> Option<CallView<'_>> {
        self.calls.get(k).map(|call| CallView { view: self, call })
    }
    /// The calls in order.
    pub fn calls(&self) -> impl ExactSizeIterator<Item = CallView<'_>> + '_ {
        self.calls
            .iter()
            .map(move |call| CallView { view: self, call })
    }
    /// The input the values are read from (and share).
    pub fn input(&self) -> &Bytes {
        &self.input
    }
    /// The codec the view was made with.
    pub fn codec(&self) -> &Codec {
        &self.codec
    }
    /// Bytes read by the calls (the input after them is not part of the message).
    pub fn consumed(&self) -> usize {
        self.calls.last().map_or(0, |c| c.end)
    }
    /// Every call decoded: what [`Codec::decode_calls`] returns for the same input.
    pub fn to_items(&self) -> Result<Vec<Item>> {
        self.calls().map(|c| c.to_item()).collect()
    }
}

/// One call of a [`View`]: its type, how many values it holds, and each value on demand.
#[derive(Clone, Copy, Debug)]
pub struct CallView<'v> {
    view: &'v View,
    call: &'v CallIndex,
}

impl<'v> CallView<'v> {
    /// The call's type.
    pub fn ty(&self) -> DataType {
        self.call.ty
    }
    /// The number of values.
    pub fn len(&self) -> usize {
        self.call.len
    }
    /// Whether the call holds no values.
    pub fn is_empty(&self) -> bool {
        self.call.len == 0
    }
    /// The call's bytes in the input, from its count (or described-mode tag) to the end
    /// of its last value.
    pub fn range(&self) -> Range<usize> {
        self.call.start..self.call.end
    }
    /// The bytes of value `i` in the input, if there is such a value: what decoding it
    /// will read. POINTERs take no bytes each (one sentinel stands for the call).
    pub fn value_range(&self, i: usize) -> Option<Range<usize>> {
        if i >= self.call.len {
            return None;
        }
        if self.call.plan == Plan::Pointers {
            return Some(self.call.end..self.call.end);
        }
        let at = |k: usize| self.view.offsets[self.call.first + k] as usize;
        let end = if i + 1 < self.call.len {
            at(i + 1)
        } else {
            self.call.end
        };
        Some(at(i)..end)
    }
    /// Value `i`, decoded from the input now (its strings and byte payloads share the
    /// input). The view was checked when it was made, so this fails only for an index out
    /// of range (`PMIX_ERR_BAD_PARAM`) or when memory runs out (`PMIX_ERR_NOMEM`).
    pub fn get(&self, i: usize) -> Result<Value> {
        self.read(&mut self.view.codec.decoder(&self.view.input), i)
    }
    /// The values in order, each decoded when the iterator reaches it (by one decoder,
    /// which each value leaves where the next one starts).
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Result<Value>> + 'v {
        let call = *self;
        let mut dec = call.view.codec.decoder(&call.view.input);
        (0..call.len()).map(move |i| call.read(&mut dec, i))
    }
    /// Value `i` read by `dec`, from its offset on (`dec` must not be past it).
    fn read(&self, dec: &mut Dec<'v>, i: usize) -> Result<Value> {
        let Some(range) = self.value_range(i) else {
            return Err(Error::new(
                Status::ERR_BAD_PARAM,
                self.call.end,
                format!("value {i} of a call of {} values", self.call.len),
            ));
        };
        // POINTERs read nothing: their range is empty, at the call's end
        dec.seek(range.start)?;
        dec.element(self.call.ty, i, self.call.plan)
            .map_err(|mut e| {
                e.ty.get_or_insert(self.call.ty);
                e
            })
    }
    /// The whole call decoded: the [`Item`] `decode_calls` gives for it.
    pub fn to_item(&self) -> Result<Item> {
        let mut values = Vec::new();
        values
            .try_reserve(self.len())
            .map_err(|_| Error::new(Status::ERR_NOMEM, self.call.start, "out of memory"))?;
        for v in self.iter() {
            values.push(v?);
        }
        Ok(Item::new(self.call.ty, values))
    }
}
