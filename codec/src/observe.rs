//! Watching the decoder read: every field's offset, length, meaning and path, where
//! structures open and close, and where decoding fails.
//!
//! The codec has one decoder. [`Codec::decode_observed`](crate::Codec::decode_observed)
//! runs it with an [`Observer`] that hears about each field as the decoder reads it; the
//! plain API runs it with [`Quiet`], whose [`Observer::ACTIVE`] is `false`, so every report
//! and all path bookkeeping compile away. A dissector (`pmix-wire inspect`) is an observer,
//! and so is the path that [`Error::path`](crate::ErrorDetails::path) carries: both come from the
//! same walk that produces the values, so they cannot disagree with it.
//!
//! Paths read like `INFO[3].value.PROC.rank`: the call's type, the element's index, then
//! the names of the fields and the types of the values on the way down.

use crate::error::Error;
use crate::types::DataType;
use std::fmt;

/// One step of a [`Path`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Seg {
    /// A value of this type (a call's type at the root, a VALUE's payload type).
    Type(DataType),
    /// The element at this index of a call or an array.
    Index(usize),
    /// A named field of a structure (`key`, `rank`, `count`, ...).
    Name(&'static str),
}

/// Where a field is: the steps from the call down to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Path<'p>(pub &'p [Seg]);

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.0.iter().enumerate() {
            match s {
                Seg::Index(n) => write!(f, "[{n}]")?,
                Seg::Type(t) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    match t.name() {
                        Some(n) => f.write_str(n)?,
                        None => write!(f, "type{}", t.0)?,
                    }
                }
                Seg::Name(n) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    f.write_str(n)?;
                }
            }
        }
        Ok(())
    }
}

/// How an integer or tag was encoded on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enc {
    /// One raw byte.
    Byte,
    /// Big-endian, 2 bytes.
    Be16,
    /// Big-endian, 4 bytes.
    Be32,
    /// Big-endian, 8 bytes.
    Be64,
    /// A flexible unsigned integer (modern family, `fu`).
    Flex,
    /// A zigzag flexible integer (modern family, `fz`); the raw unsigned value read.
    Zigzag(u64),
}

impl fmt::Display for Enc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Enc::Byte => f.write_str("byte"),
            Enc::Be16 => f.write_str("be16"),
            Enc::Be32 => f.write_str("be32"),
            Enc::Be64 => f.write_str("be64"),
            Enc::Flex => f.write_str("fu"),
            Enc::Zigzag(u) => write!(f, "fz, zigzag {u}"),
        }
    }
}

/// What a tag field is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TagRole {
    /// A described buffer's INT32 tag in front of a call's count.
    CountTag,
    /// A described buffer's type tag in front of a call's values.
    CallType,
    /// v12/v20's described-mode tag in front of a nested value.
    Described,
    /// A self-describing integer's always-tag, naming the width that follows (quirk D2).
    IntTag,
    /// A type carried as data: a VALUE's type, a DATA_ARRAY's element type.
    Type,
}

/// What the bytes of a field mean.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Meaning<'a> {
    /// An integer (a count, length, flag word, rank or an integer value), as read and
    /// converted to the local type.
    Int {
        /// The value.
        value: i128,
        /// Its encoding.
        enc: Enc,
    },
    /// A data-type tag.
    Tag {
        /// The type it names (v12's 1.x numbers already mapped).
        ty: DataType,
        /// What it is for.
        role: TagRole,
        /// Its encoding.
        enc: Enc,
    },
    /// A string's INT32 length prefix (counting the NUL; 0 is NULL).
    StringLength {
        /// The length.
        len: i32,
        /// Its encoding.
        enc: Enc,
    },
    /// A string's bytes; `text` is what a C reader sees (up to the first NUL).
    Text {
        /// The string as the receiver holds it.
        text: &'a [u8],
    },
    /// Raw bytes (a byte object's payload, a blob).
    Bytes,
    /// No bytes: a value with no payload (UNDEF), or a note about what the receiver does.
    Note(&'static str),
}

/// One field the decoder read.
#[derive(Clone, Copy, Debug)]
pub struct Field<'a> {
    /// Offset of its first byte.
    pub offset: usize,
    /// How many bytes it took (0 for notes).
    pub len: usize,
    /// Where it is.
    pub path: Path<'a>,
    /// What it means.
    pub meaning: Meaning<'a>,
}

/// Hears what the decoder reads, as it reads it. Every method has a no-op default.
///
/// Structures nest: [`Observer::open`] and [`Observer::close`] come in pairs around the
/// fields of a structure, except that on failure the decoder stops where it is: after
/// [`Observer::fail`] no `close` follows for the structures still open.
pub trait Observer {
    /// `false` compiles every report and the path bookkeeping away (see [`Quiet`]).
    const ACTIVE: bool = true;
    /// `false` keeps the path (structures and [`Observer::fail`]) but compiles the field
    /// reports away.
    const FIELDS: bool = true;
    /// A field was read.
    fn field(&mut self, _field: &Field<'_>) {}
    /// A structure starts at `offset`; `path` ends with its step.
    fn open(&mut self, _offset: usize, _path: Path<'_>) {}
    /// The structure at the end of `path` ends before `offset`.
    fn close(&mut self, _offset: usize, _path: Path<'_>) {}
    /// Decoding failed with `error` inside `path` (the field being read, if it was named).
    fn fail(&mut self, _error: &Error, _path: Path<'_>) {}
}

/// The observer of the plain API: hears nothing, costs nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Quiet;

impl Observer for Quiet {
    const ACTIVE: bool = false;
}

/// Keeps the path and nothing else: what the codec runs when an error needs its path.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Trail;

impl Observer for Trail {
    const FIELDS: bool = false;
}

impl<T: Observer + ?Sized> Observer for &mut T {
    const ACTIVE: bool = T::ACTIVE;
    const FIELDS: bool = T::FIELDS;
    #[inline]
    fn field(&mut self, field: &Field<'_>) {
        (**self).field(field)
    }
    #[inline]
    fn open(&mut self, offset: usize, path: Path<'_>) {
        (**self).open(offset, path)
    }
    #[inline]
    fn close(&mut self, offset: usize, path: Path<'_>) {
        (**self).close(offset, path)
    }
    #[inline]
    fn fail(&mut self, error: &Error, path: Path<'_>) {
        (**self).fail(error, path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_read_like_field_accesses() {
        let p = [
            Seg::Type(DataType::INFO),
            Seg::Index(3),
            Seg::Name("value"),
            Seg::Type(DataType::PROC),
            Seg::Name("rank"),
        ];
        assert_eq!(Path(&p).to_string(), "INFO[3].value.PROC.rank");
        assert_eq!(Path(&[]).to_string(), "");
    }
}
