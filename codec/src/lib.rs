//! # pmix-codec
//!
//! A native implementation of the OpenPMIx bfrops wire format: the eight components
//! `v12 v20 v21 v3 v4 v41 v51 v61` in their three families, both buffer kinds, every
//! registered data type, byte-exact with OpenPMIx (judged against the real library).
//!
//! ```
//! use pmix_codec::{Codec, Component, BufferKind, Item, Value};
//! let codec = Codec::new(Component::V41, BufferKind::NonDescribed);
//! let bytes = codec.encode(&[Item::one(Value::Uint32(42))]).unwrap();
//! assert_eq!(bytes, [0x02, 0x2a]);
//! let items = codec.decode(&bytes, &[pmix_codec::DataType::UINT32]).unwrap();
//! assert_eq!(items[0].values, [Value::Uint32(42)]);
//! ```
//!
//! The README's example: type 75 `ALLOC_INHERIT` exists only in `v61`.
//!
//! ```
//! use pmix_codec::*;
//! let codec = Codec::new(Component::V61, BufferKind::NonDescribed); // release profile: master
//! let bytes = codec.encode(&[Item::one(Value::AllocInherit(attrs::AllocInherit::Child as u8))])?;
//! assert_eq!(bytes, [0x02, 0x02]);
//! let items = codec.decode(&bytes, &[DataType::ALLOC_INHERIT])?;
//! assert_eq!(items[0].values, [Value::AllocInherit(2)]);
//! let v51 = Codec::new(Component::V51, BufferKind::NonDescribed);
//! assert_eq!(v51.decode(&bytes, &[DataType::ALLOC_INHERIT]).unwrap_err().status.0, -16);
//! # Ok::<(), pmix_codec::Error>(())
//! ```
#![warn(missing_docs)]

pub mod attrs;
pub mod component;
mod decode;
mod encode;
pub mod error;
pub mod float;
pub mod json;
pub mod lossy;
pub mod observe;
pub mod preg;
pub mod quirks;
pub mod quirks_doc;
pub mod status;
pub mod types;
pub mod value;
pub mod vectors;
pub mod view;
pub mod wire;

pub use bytes::{BufMut, Bytes};

pub use component::{BufferKind, Component, Family, FlexTail, Profile, Release};
pub use decode::{DecodeOptions, POINTER_SLACK};

/// Whether a modern component's unpacker for `ty` fails an empty record at the very end of
/// the buffer (quirk U6).
pub fn empty_record_at_end_fails(component: Component, ty: DataType) -> bool {
    component.family() == Family::Modern && quirks::modern_int_entry(ty)
}
pub use encode::MAX_ARRAY_DEPTH;
pub use error::{Error, ErrorDetails, Result};
pub use status::Status;
pub use types::DataType;
pub use value::*;
pub use view::{CallView, View, VIEW_BYTES_PER_CALL};

/// What a decoder reads: shared memory, whose slices the decoded strings and byte payloads
/// become, or a borrowed slice.
///
/// The whole-buffer calls ([`Codec::decode`] and its relatives) copy a borrowed slice once
/// into shared memory and decode from that; an [`Unpacker`] over a borrowed slice copies
/// each string and payload out instead (and can lend byte objects without a copy).
///
/// ```
/// use bytes::Bytes;
/// use pmix_codec::{BufferKind, Codec, Component, DataType, Item, Value};
/// let codec = Codec::new(Component::V41, BufferKind::NonDescribed);
/// let blob = Value::ByteObject(vec![7u8; 64].into());
/// let name = Value::string("prterun-node0017.cluster.example-123456@1");
/// let wire = Bytes::from(codec.encode(&[Item::one(blob), Item::one(name)]).unwrap());
/// let items = codec.decode(&wire, &[DataType::BYTE_OBJECT, DataType::STRING]).unwrap();
/// // the payload and the long text are slices of `wire`, not copies
/// let Value::ByteObject(b) = &items[0].values[0] else { panic!() };
/// assert!(wire.as_ptr_range().contains(&b.as_ptr()));
/// let Value::String(Some(text)) = &items[1].values[0] else { panic!() };
/// assert!(text.is_shared() && wire.as_ptr_range().contains(&text.as_bytes().as_ptr()));
/// ```
#[derive(Clone, Copy, Debug)]
pub enum Source<'a> {
    /// Shared memory: decoded values are slices of it.
    Shared(&'a Bytes),
    /// A borrowed slice.
    Borrowed(&'a [u8]),
}

impl<'a> Source<'a> {
    /// The bytes.
    pub fn as_slice(&self) -> &'a [u8] {
        match *self {
            Source::Shared(b) => b,
            Source::Borrowed(b) => b,
        }
    }
    /// The bytes as shared memory: the same memory, or one copy of a borrowed slice.
    fn to_shared(self) -> Bytes {
        match self {
            Source::Shared(b) => b.clone(),
            Source::Borrowed(b) => Bytes::copy_from_slice(b),
        }
    }
}
impl<'a> From<&'a Bytes> for Source<'a> {
    fn from(b: &'a Bytes) -> Self {
        Source::Shared(b)
    }
}
impl<'a> From<&'a [u8]> for Source<'a> {
    fn from(b: &'a [u8]) -> Self {
        Source::Borrowed(b)
    }
}
impl<'a> From<&'a Vec<u8>> for Source<'a> {
    fn from(b: &'a Vec<u8>) -> Self {
        Source::Borrowed(b)
    }
}
impl<'a, const N: usize> From<&'a [u8; N]> for Source<'a> {
    fn from(b: &'a [u8; N]) -> Self {
        Source::Borrowed(b)
    }
}

/// A component + buffer kind + release profile: everything that decides the bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Codec {
    /// The bfrops component.
    pub component: Component,
    /// The buffer kind.
    pub kind: BufferKind,
    /// The release whose behaviour is reproduced (default: master).
    pub release: Release,
    /// Decoder options.
    pub options: DecodeOptions,
}

impl Codec {
    /// A codec for the master release profile.
    pub fn new(component: Component, kind: BufferKind) -> Self {
        Codec {
            component,
            kind,
            release: Release::Master,
            options: DecodeOptions::default(),
        }
    }

    /// The same codec with another release profile.
    pub fn with_release(mut self, release: Release) -> Self {
        self.release = release;
        self
    }

    /// Encode a sequence of pack calls into one buffer.
    pub fn encode(&self, items: &[Item]) -> Result<Vec<u8>> {
        let buf = Vec::with_capacity(encode::size_hint(items));
        self.encode_to(items, buf).map_err(|(mut e, partial)| {
            e.partial = partial;
            e
        })
    }

    /// [`Codec::encode`] into `out`, replacing its contents but keeping its memory: an
    /// encoder that reuses one buffer for every message allocates nothing once the buffer
    /// has grown to the largest message.
    ///
    /// On error `out` holds the bytes OpenPMIx leaves in the buffer (also in
    /// [`ErrorDetails::partial`]).
    ///
    /// ```
    /// use pmix_codec::{BufferKind, Codec, Component, Item, Value};
    /// let codec = Codec::new(Component::V41, BufferKind::NonDescribed);
    /// let mut buf = Vec::new();
    /// codec.encode_into(&[Item::one(Value::Uint32(42))], &mut buf).unwrap();
    /// assert_eq!(buf, [0x02, 0x2a]);
    /// ```
    pub fn encode_into(&self, items: &[Item], out: &mut Vec<u8>) -> Result<()> {
        let mut buf = std::mem::take(out);
        buf.clear();
        match self.encode_to(items, buf) {
            Ok(bytes) => {
                *out = bytes;
                Ok(())
            }
            Err((mut e, partial)) => {
                e.partial = partial.clone();
                *out = partial;
                Err(e)
            }
        }
    }

    /// [`Codec::encode`] appending to any [`BufMut`] (a `BytesMut`, a socket's write
    /// buffer, ...). The message is encoded contiguously first and then put into `buf`, so
    /// `buf` receives either the whole message or, on error, nothing.
    ///
    /// ```
    /// use pmix_codec::{BufferKind, Codec, Component, Item, Value};
    /// let codec = Codec::new(Component::V41, BufferKind::NonDescribed);
    /// let mut buf = bytes::BytesMut::new();
    /// codec.encode_buf(&[Item::one(Value::Uint32(42))], &mut buf).unwrap();
    /// assert_eq!(&buf[..], [0x02, 0x2a]);
    /// ```
    pub fn encode_buf<B: BufMut>(&self, items: &[Item], buf: &mut B) -> Result<()> {
        let bytes = self.encode(items)?;
        if buf.remaining_mut() < bytes.len() {
            return Err(Error::new(
                Status::ERR_OUT_OF_RESOURCE,
                0,
                format!(
                    "the destination has room for {} bytes, the message needs {}",
                    buf.remaining_mut(),
                    bytes.len()
                ),
            ));
        }
        buf.put_slice(&bytes);
        Ok(())
    }

    /// Encode `items` appending to `buf`; on error also gives back what was written.
    fn encode_to(
        &self,
        items: &[Item],
        buf: Vec<u8>,
    ) -> std::result::Result<Vec<u8>, (Error, Vec<u8>)> {
        let mut enc = encode::Enc::new(self.component, self.kind, self.release, buf);
        for (i, item) in items.iter().enumerate() {
            if let Err(mut e) = enc.pack_call(item) {
                e.item = i;
                e.ty = Some(item.ty);
                e.offset = enc.out.len();
                return Err((e, enc.out));
            }
        }
        Ok(enc.out)
    }

    /// Decode one unpack call per entry of `types`, each with unlimited capacity.
    ///
    /// Strings, keys and byte payloads in the result are slices of `input` when it is a
    /// [`Bytes`]; a borrowed slice is copied once, as a whole, and shared the same way.
    pub fn decode<'a>(
        &self,
        input: impl Into<Source<'a>>,
        types: &[DataType],
    ) -> Result<Vec<Item>> {
        let calls: Vec<(DataType, usize)> = types.iter().map(|t| (*t, usize::MAX)).collect();
        self.decode_calls(input, &calls).map_err(|(e, _)| e)
    }

    /// A decoder over shared memory.
    fn decoder<'a>(&self, src: &'a Bytes) -> decode::Dec<'a> {
        decode::Dec::shared(src, self.component, self.kind, self.release, self.options)
    }

    /// Decode unpack calls given as (type, capacity), like `PMIx_Data_unpack` with
    /// `num_vals = capacity`. On failure also returns the items decoded before it.
    pub fn decode_calls<'a>(
        &self,
        input: impl Into<Source<'a>>,
        calls: &[(DataType, usize)],
    ) -> std::result::Result<Vec<Item>, (Error, Vec<Item>)> {
        let src = input.into().to_shared();
        let dec = self.decoder(&src);
        run_calls(dec, calls).map_err(|(mut e, items)| {
            e.path = self.error_path(&src, calls);
            (e, items)
        })
    }

    /// Where decoding `calls` from `bytes` fails: the same decode again, this time keeping
    /// the observer's path (only failures pay for it) and no value (the values decoded
    /// before the failure are still held by the caller: a second copy of them would double
    /// the decode's peak heap).
    #[cold]
    #[inline(never)]
    fn error_path(&self, bytes: &[u8], calls: &[(DataType, usize)]) -> String {
        let mut dec =
            decode::Dec::new(bytes, self.component, self.kind, self.release, self.options)
                .discarding()
                .observed(observe::Trail);
        match run_calls_on(&mut dec, calls) {
            Ok(_) => String::new(),
            Err(_) => observe::Path(&dec.where_now()).to_string(),
        }
    }

    /// [`Codec::decode`] with `observer` hearing every field as the decoder reads it, where
    /// structures open and close, and where decoding fails (see [`observe`]). `types`
    /// `None` discovers each call's type from a fully described buffer's tags, as
    /// [`Codec::decode_described`] does. The result is the plain decode's.
    ///
    /// ```
    /// use pmix_codec::observe::{Field, Meaning, Observer};
    /// use pmix_codec::{BufferKind, Codec, Component, DataType, Item, Value};
    /// struct Names(Vec<String>);
    /// impl Observer for Names {
    ///     fn field(&mut self, f: &Field<'_>) {
    ///         if let Meaning::Int { .. } = f.meaning {
    ///             self.0.push(format!("{} at {}", f.path, f.offset));
    ///         }
    ///     }
    /// }
    /// let codec = Codec::new(Component::V41, BufferKind::NonDescribed);
    /// let bytes = codec.encode(&[Item::one(Value::proc("ns", 3))]).unwrap();
    /// let mut names = Names(Vec::new());
    /// codec.decode_observed(&bytes, Some(&[DataType::PROC]), &mut names).unwrap();
    /// assert_eq!(names.0, ["PROC.count at 0", "PROC[0].rank at 5"]);
    /// ```
    pub fn decode_observed<O: observe::Observer>(
        &self,
        bytes: &[u8],
        types: Option<&[DataType]>,
        observer: &mut O,
    ) -> Result<Vec<Item>> {
        let mut dec =
            decode::Dec::new(bytes, self.component, self.kind, self.release, self.options)
                .observed(observer);
        let r = match types {
            Some(types) => {
                let calls: Vec<(DataType, usize)> =
                    types.iter().map(|t| (*t, usize::MAX)).collect();
                run_calls_on(&mut dec, &calls).map_err(|(e, _)| e)
            }
            None => self.described_on(&mut dec),
        };
        r.map_err(|mut e| {
            if e.path.is_empty() {
                e.path = observe::Path(&dec.where_now()).to_string();
            }
            dec.report_failure(&e);
            e
        })
    }

    /// [`Codec::decode`] into `out`, reusing the memory of the items already there: a
    /// decoder that is called again and again with the same `out` (a server's receive loop)
    /// allocates almost nothing once `out` has held a message of the same shape.
    ///
    /// `out` ends up holding exactly what [`Codec::decode`] returns. On error it holds the
    /// items decoded before the failing call (as [`Codec::decode_calls`] reports them).
    ///
    /// ```
    /// use pmix_codec::{BufferKind, Codec, Component, DataType, Item, Value};
    /// let codec = Codec::new(Component::V41, BufferKind::NonDescribed);
    /// let bytes = codec.encode(&[Item::one(Value::proc("ns", 3))]).unwrap();
    /// let mut out = Vec::new();
    /// for _ in 0..3 {
    ///     codec.decode_into(&bytes, &[DataType::PROC], &mut out).unwrap();
    ///     assert_eq!(out[0].values, [Value::proc("ns", 3)]);
    /// }
    /// ```
    pub fn decode_into<'a>(
        &self,
        input: impl Into<Source<'a>>,
        types: &[DataType],
        out: &mut Vec<Item>,
    ) -> Result<()> {
        let calls: Vec<(DataType, usize)> = types.iter().map(|t| (*t, usize::MAX)).collect();
        self.decode_calls_into(input, &calls, out)
    }

    /// [`Codec::decode_calls`] into `out`, reusing its memory like [`Codec::decode_into`].
    /// On error `out` holds the items decoded before the failing call.
    pub fn decode_calls_into<'a>(
        &self,
        input: impl Into<Source<'a>>,
        calls: &[(DataType, usize)],
        out: &mut Vec<Item>,
    ) -> Result<()> {
        let src = input.into().to_shared();
        let mut dec = self.decoder(&src);
        let r = Self::calls_into(&mut dec, calls, out);
        r.map_err(|mut e| {
            e.path = self.error_path(&src, calls);
            e
        })
    }

    fn calls_into(
        dec: &mut decode::Dec<'_>,
        calls: &[(DataType, usize)],
        out: &mut Vec<Item>,
    ) -> Result<()> {
        out.truncate(calls.len());
        for (i, (ty, cap)) in calls.iter().enumerate() {
            if i == out.len() {
                out.push(Item::new(*ty, Vec::new()));
            }
            let item = &mut out[i];
            item.ty = *ty;
            if let Err(mut e) = dec.unpack_call_into(*ty, *cap, &mut item.values) {
                out.truncate(i);
                e.item = i;
                e.ty.get_or_insert(*ty);
                return Err(e);
            }
        }
        Ok(())
    }

    /// A [`Packer`] appending to `out`: pack calls one at a time, like successive
    /// `PMIx_Data_pack` calls on one buffer, with a call that packs byte objects straight
    /// from the caller's slices.
    pub fn packer<'b>(&self, out: &'b mut Vec<u8>) -> Packer<'b> {
        let buf = std::mem::take(out);
        Packer {
            enc: encode::Enc::new(self.component, self.kind, self.release, buf),
            dest: out,
            calls: 0,
        }
    }

    /// An [`Unpacker`] over `input`: unpack calls one at a time, like successive
    /// `PMIx_Data_unpack` calls on one buffer, with a borrowing call for byte objects.
    /// Over a [`Bytes`] the values share its memory; over a borrowed slice each string and
    /// payload is copied out.
    pub fn unpacker<'a>(&self, input: impl Into<Source<'a>>) -> Unpacker<'a> {
        let dec = match input.into() {
            Source::Shared(b) => self.decoder(b),
            Source::Borrowed(b) => {
                decode::Dec::new(b, self.component, self.kind, self.release, self.options)
            }
        };
        Unpacker { dec, calls: 0 }
    }

    /// Decode a fully described buffer to its end, discovering each call's type from its tags.
    pub fn decode_described<'a>(&self, input: impl Into<Source<'a>>) -> Result<Vec<Item>> {
        if self.kind != BufferKind::FullyDescribed {
            return Err(Error::new(
                Status::ERR_BAD_PARAM,
                0,
                "type discovery needs a fully described buffer",
            ));
        }
        let src = input.into().to_shared();
        let mut dec = self.decoder(&src);
        self.described_on(&mut dec).map_err(|mut e| {
            // the same walk, keeping the path and no value
            let mut trail =
                decode::Dec::new(&src, self.component, self.kind, self.release, self.options)
                    .discarding()
                    .observed(observe::Trail);
            if self.described_on(&mut trail).is_err() {
                e.path = observe::Path(&trail.where_now()).to_string();
            }
            e
        })
    }

    /// [`Codec::decode_described`] on a decoder.
    fn described_on<O: observe::Observer>(
        &self,
        dec: &mut decode::Dec<'_, O>,
    ) -> Result<Vec<Item>> {
        let mut out = Vec::new();
        while dec.r.remaining() > 0 {
            let i = out.len();
            let ty = dec.peek_described_type().map_err(|mut e| {
                e.item = i;
                e
            })?;
            let item = dec.unpack_call(ty, usize::MAX).map_err(|mut e| {
                e.item = i;
                e.ty.get_or_insert(ty);
                e
            })?;
            out.push(item);
        }
        Ok(out)
    }
}

/// Pack calls one at a time into one buffer (see [`Codec::packer`]), like successive
/// `PMIx_Data_pack` calls: the bytes are those [`Codec::encode`] gives for the same calls,
/// appended to the buffer the packer was made with (which gets them back when the packer
/// is dropped). A call that fails leaves what [`Codec::encode_into`] leaves for it, and its
/// [`ErrorDetails::item`] counts the calls made.
///
/// [`Packer::pack_byte_objects`] packs a BYTE_OBJECT call from the caller's slices (the
/// way a C caller hands `PMIx_Data_pack` an array of `pmix_byte_object_t`), without
/// building [`Value`]s first.
///
/// ```
/// use pmix_codec::{BufferKind, Codec, Component, DataType, Item, Value};
/// let codec = Codec::new(Component::V41, BufferKind::NonDescribed);
/// let mut buf = Vec::new();
/// let mut packer = codec.packer(&mut buf);
/// packer.pack(&Item::one(Value::proc("ns", 3))).unwrap();
/// packer.pack_byte_objects(&[&[1u8, 2][..], &[3]]).unwrap();
/// drop(packer);
/// let expected = codec
///     .encode(&[
///         Item::one(Value::proc("ns", 3)),
///         Item::new(
///             DataType::BYTE_OBJECT,
///             vec![Value::ByteObject(vec![1, 2].into()), Value::ByteObject(vec![3].into())],
///         ),
///     ])
///     .unwrap();
/// assert_eq!(buf, expected);
/// ```
pub struct Packer<'b> {
    enc: encode::Enc,
    /// Where the bytes go back when the packer is dropped.
    dest: &'b mut Vec<u8>,
    /// Calls made so far (the next call's [`ErrorDetails::item`]).
    calls: usize,
}

impl Packer<'_> {
    /// The next pack call: `item`'s values as one call of `item.ty`.
    pub fn pack(&mut self, item: &Item) -> Result<()> {
        let r = self.enc.pack_call(item);
        self.finish(item.ty, r)
    }

    /// The next pack call, of BYTE_OBJECT: one object per slice of `objects`, the same bytes
    /// as [`Packer::pack`] of an item of [`Value::ByteObject`]s with those payloads.
    pub fn pack_byte_objects<B: AsRef<[u8]>>(&mut self, objects: &[B]) -> Result<()> {
        let r = self.enc.pack_byte_objects(objects);
        self.finish(DataType::BYTE_OBJECT, r)
    }

    fn finish(&mut self, ty: DataType, r: Result<()>) -> Result<()> {
        count_call(&mut self.calls, ty, r).map_err(|mut e| {
            // as `Codec::encode_into` reports it
            e.ty = Some(ty);
            e.offset = self.enc.out.len();
            e.partial = self.enc.out.clone();
            e
        })
    }

    /// The bytes packed so far (the buffer's earlier contents included).
    pub fn bytes(&self) -> &[u8] {
        &self.enc.out
    }
}

impl Drop for Packer<'_> {
    fn drop(&mut self) {
        *self.dest = std::mem::take(&mut self.enc.out);
    }
}

/// Unpack calls one at a time from one buffer (see [`Codec::unpacker`]), like successive
/// `PMIx_Data_unpack` calls: [`Unpacker::unpack`] and [`Unpacker::unpack_into`] give what
/// [`Codec::decode_calls`] gives for the same calls, errors included (the error's
/// [`ErrorDetails::item`] counts the calls made). After an error the position is unspecified, as
/// in a C buffer; make no further calls.
///
/// [`Unpacker::unpack_byte_objects`] reads a BYTE_OBJECT call without copying: each
/// payload is a slice of the input (with a `bytes::Bytes` input, `Bytes::slice_ref` turns
/// them into shared handles). It fails exactly where a BYTE_OBJECT call of
/// [`Codec::decode_calls`] fails.
///
/// ```
/// use pmix_codec::{BufferKind, Codec, Component, DataType, Item, Value};
/// let codec = Codec::new(Component::V41, BufferKind::NonDescribed);
/// let bytes = codec
///     .encode(&[
///         Item::one(Value::proc("ns", 3)),
///         Item::new(
///             DataType::BYTE_OBJECT,
///             vec![Value::ByteObject(vec![1, 2].into()), Value::ByteObject(vec![3].into())],
///         ),
///     ])
///     .unwrap();
/// let mut unpacker = codec.unpacker(&bytes);
/// let proc = unpacker.unpack(DataType::PROC, 1).unwrap();
/// assert_eq!(proc.values, [Value::proc("ns", 3)]);
/// let mut blobs = Vec::new();
/// unpacker.unpack_byte_objects(usize::MAX, &mut blobs).unwrap();
/// assert_eq!(blobs, [&[1u8, 2][..], &[3][..]]);
/// assert_eq!(unpacker.remaining(), 0);
/// ```
pub struct Unpacker<'a> {
    dec: decode::Dec<'a>,
    /// Calls made so far (the next call's [`ErrorDetails::item`]).
    calls: usize,
}

impl<'a> Unpacker<'a> {
    /// The next unpack call: `ty` with room for `capacity` values.
    pub fn unpack(&mut self, ty: DataType, capacity: usize) -> Result<Item> {
        let mut values = Vec::new();
        self.unpack_into(ty, capacity, &mut values)?;
        Ok(Item { ty, values })
    }

    /// [`Unpacker::unpack`] into `values`, reusing the memory of the values already there
    /// like [`Codec::decode_into`]. On error `values` holds unspecified values.
    pub fn unpack_into(
        &mut self,
        ty: DataType,
        capacity: usize,
        values: &mut Vec<Value>,
    ) -> Result<()> {
        let before = self.dec.snapshot();
        let r = self.dec.unpack_call_into(ty, capacity, values);
        let r =
            r.map_err(|e| Self::with_path(e, before, |d| d.unpack_call(ty, capacity).map(drop)));
        self.finish(ty, r)
    }

    /// `e` with the path where the call that failed from `before` stops, found by running
    /// it again from there with the path kept and no value (only failures pay for it).
    #[cold]
    #[inline(never)]
    fn with_path(
        mut e: Error,
        before: decode::Dec<'a>,
        call: impl FnOnce(&mut decode::Dec<'a, observe::Trail>) -> Result<()>,
    ) -> Error {
        let mut trail = before.discarding().observed(observe::Trail);
        if call(&mut trail).is_err() {
            e.path = observe::Path(&trail.where_now()).to_string();
        }
        e
    }

    /// The next unpack call, of BYTE_OBJECT with room for `capacity` values, into `out`
    /// (replacing its contents): each payload borrowed from the input, nothing copied.
    /// On error `out` holds unspecified slices.
    pub fn unpack_byte_objects(&mut self, capacity: usize, out: &mut Vec<&'a [u8]>) -> Result<()> {
        let before = self.dec.snapshot();
        let r = self.dec.unpack_byte_objects(capacity, out);
        let r = r.map_err(|e| {
            Self::with_path(e, before, |d| {
                d.unpack_byte_objects(capacity, &mut Vec::new())
            })
        });
        self.finish(DataType::BYTE_OBJECT, r)
    }

    fn finish(&mut self, ty: DataType, r: Result<()>) -> Result<()> {
        count_call(&mut self.calls, ty, r)
    }

    /// The offset of the next unread byte.
    pub fn offset(&self) -> usize {
        self.dec.r.offset()
    }

    /// The bytes not yet read.
    pub fn remaining(&self) -> usize {
        self.dec.r.remaining()
    }
}

/// Decode `calls` in order; on failure the error (with its call's index and type) and the
/// items before it.
fn run_calls<O: observe::Observer>(
    mut dec: decode::Dec<'_, O>,
    calls: &[(DataType, usize)],
) -> std::result::Result<Vec<Item>, (Error, Vec<Item>)> {
    run_calls_on(&mut dec, calls)
}

/// [`run_calls`] on a decoder the caller keeps (to ask it where it stopped).
fn run_calls_on<O: observe::Observer>(
    dec: &mut decode::Dec<'_, O>,
    calls: &[(DataType, usize)],
) -> std::result::Result<Vec<Item>, (Error, Vec<Item>)> {
    let mut out = Vec::with_capacity(calls.len().min(dec.r.remaining() + 1));
    for (i, (ty, cap)) in calls.iter().enumerate() {
        match dec.unpack_call(*ty, *cap) {
            Ok(item) => out.push(item),
            Err(mut e) => {
                e.item = i;
                e.ty.get_or_insert(*ty);
                return Err((e, out));
            }
        }
    }
    Ok(out)
}

/// One more call of a [`Packer`] or [`Unpacker`]: its error, if any, says which call it was
/// (and its type, if the error does not say already).
fn count_call(calls: &mut usize, ty: DataType, r: Result<()>) -> Result<()> {
    let i = *calls;
    *calls += 1;
    r.map_err(|mut e| {
        e.item = i;
        e.ty.get_or_insert(ty);
        e
    })
}
