//! Typed errors that carry the PMIx status OpenPMIx returns in the same situation.

use crate::status::Status;
use crate::types::DataType;
use std::fmt;

/// What went wrong while encoding or decoding, with the matching PMIx status.
///
/// The details are boxed so that an error is one pointer wide: every `Result` of the
/// codec then fits in registers, where a 112-byte error made each one a copy through
/// memory (a third of a PROC's decode). The fields are read and written through the box
/// (`e.status`, `e.path = ...`), as [`ErrorDetails`]'s.
#[derive(Clone, PartialEq, Eq)]
pub struct Error(Box<ErrorDetails>);

/// The fields of an [`Error`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorDetails {
    /// The status OpenPMIx returns for the same input.
    pub status: Status,
    /// Byte offset in the buffer where the failing field starts (decode), or the buffer
    /// length when the failure happened (encode).
    pub offset: usize,
    /// 0-based index of the pack/unpack call that failed.
    pub item: usize,
    /// The type being handled when it failed, if known.
    pub ty: Option<DataType>,
    /// A short human-readable reason.
    pub reason: String,
    /// For encode errors: the bytes OpenPMIx leaves in the buffer before the failure
    /// (it never rolls back).
    pub partial: Vec<u8>,
    /// For decode errors: where in the call the failing field is, as the decoder's
    /// observer path names it (e.g. `INFO[3].value.PROC.rank`); empty when unknown.
    pub path: String,
}

impl Error {
    #[cold]
    pub(crate) fn new(status: Status, offset: usize, reason: impl Into<String>) -> Self {
        Error(Box::new(ErrorDetails {
            status,
            offset,
            item: 0,
            ty: None,
            reason: reason.into(),
            partial: Vec::new(),
            path: String::new(),
        }))
    }

    /// The details, owned.
    pub fn into_details(self) -> ErrorDetails {
        *self.0
    }
}

impl From<ErrorDetails> for Error {
    fn from(d: ErrorDetails) -> Self {
        Error(Box::new(d))
    }
}

impl std::ops::Deref for Error {
    type Target = ErrorDetails;
    fn deref(&self) -> &ErrorDetails {
        &self.0
    }
}

impl std::ops::DerefMut for Error {
    fn deref_mut(&mut self) -> &mut ErrorDetails {
        &mut self.0
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("status", &self.status)
            .field("offset", &self.offset)
            .field("item", &self.item)
            .field("ty", &self.ty)
            .field("reason", &self.reason)
            .field("partial", &self.partial)
            .field("path", &self.path)
            .finish()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at byte {} (item {}",
            self.status, self.offset, self.item
        )?;
        if let Some(t) = self.ty {
            write!(f, ", {t}")?;
        }
        f.write_str(")")?;
        if !self.path.is_empty() {
            write!(f, " in {}", self.path)?;
        }
        write!(f, ": {}", self.reason)
    }
}

impl std::error::Error for Error {}

/// Result alias for this crate.
pub type Result<T> = std::result::Result<T, Error>;
