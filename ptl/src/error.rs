//! What can go wrong on a PTL connection (either side).

use pmix_codec::Status;

/// A PTL-level failure: socket, bounded wait, malformed message, codec, refusal, usage.
#[derive(Debug, thiserror::Error)]
pub enum PtlError {
    /// A socket operation failed (connect refused, reset, ...).
    #[error("{what}: {source}")]
    Io {
        /// The step that failed.
        what: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// A bounded wait ran out.
    #[error("timed out after {ms} ms waiting for {what}")]
    Timeout {
        /// What was awaited.
        what: String,
        /// The bound, in milliseconds.
        ms: u128,
    },
    /// The server closed the connection.
    #[error("server closed the connection while waiting for {what}")]
    Closed {
        /// What was awaited.
        what: String,
    },
    /// A length or field the server sent cannot be trusted.
    #[error("malformed {what}: {reason}")]
    Malformed {
        /// The message or field.
        what: String,
        /// Why it was rejected.
        reason: String,
    },
    /// The codec refused to pack or unpack.
    #[error("codec: {0}")]
    Codec(#[from] pmix_codec::Error),
    /// The server answered with a non-success status.
    #[error("server answered {status} ({name})")]
    Refused {
        /// The status value.
        status: i32,
        /// Its OpenPMIx name.
        name: String,
    },
    /// Bad input from the caller (a rendezvous file, an option).
    #[error("{0}")]
    Usage(String),
}

impl PtlError {
    /// The PMIx status this failure maps to (numeric values as OpenPMIx defines them).
    pub fn status(&self) -> Status {
        match self {
            PtlError::Io { .. } | PtlError::Closed { .. } => Status::ERR_UNREACH,
            PtlError::Timeout { .. } => Status::ERR_TIMEOUT,
            PtlError::Malformed { .. } => Status::ERR_BAD_PARAM,
            PtlError::Codec(e) => e.status,
            PtlError::Refused { status, .. } => Status(*status),
            PtlError::Usage(_) => Status::ERR_BAD_PARAM,
        }
    }

    /// A refusal carrying `status`.
    pub fn refused(status: i32) -> Self {
        PtlError::Refused {
            status,
            name: Status(status).name().unwrap_or("unknown").to_string(),
        }
    }

    /// A [`PtlError::Malformed`] for `what`, saying why.
    pub fn malformed(what: &str, reason: impl Into<String>) -> Self {
        PtlError::Malformed {
            what: what.to_string(),
            reason: reason.into(),
        }
    }
}

/// Result alias.
pub type Result<T> = std::result::Result<T, PtlError>;
