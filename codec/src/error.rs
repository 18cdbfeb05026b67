//! Typed errors that carry the PMIx status OpenPMIx returns in the same situation.

use crate::status::Status;
use crate::types::DataType;
use std::fmt;

/// What went wrong while encoding or decoding, with the matching PMIx status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
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
    pub(crate) fn new(status: Status, offset: usize, reason: impl Into<String>) -> Self {
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
