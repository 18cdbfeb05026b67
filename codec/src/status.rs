//! PMIx status codes, with the numeric values OpenPMIx defines.

use std::fmt;

/// A `pmix_status_t` value.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Status(pub i32);

macro_rules! statuses {
    ($($name:ident = $v:expr),* $(,)?) => {
        impl Status {
            $(
                #[doc = concat!("`PMIX_", stringify!($name), "` (", stringify!($v), ").")]
                pub const $name: Status = Status($v);
            )*

            /// The name without the `PMIX_` prefix, if this is a code we know.
            pub fn name(self) -> Option<&'static str> {
                match self.0 {
                    $($v => Some(stringify!($name)),)*
                    _ => None,
                }
            }

            /// Look a status up by name, with or without the `PMIX_` prefix.
            pub fn from_name(name: &str) -> Option<Status> {
                let name = name.strip_prefix("PMIX_").unwrap_or(name);
                match name {
                    $(stringify!($name) => Some(Status::$name),)*
                    _ => None,
                }
            }
        }
    };
}

statuses! {
    SUCCESS = 0,
    ERROR = -1,
    ERR_SILENT = -2,
    ERR_INVALID_CRED = -12,
    ERR_HANDSHAKE_FAILED = -13,
    ERR_READY_FOR_HANDSHAKE = -14,
    ERR_WOULD_BLOCK = -15,
    ERR_UNKNOWN_DATA_TYPE = -16,
    ERR_TYPE_MISMATCH = -18,
    ERR_UNPACK_INADEQUATE_SPACE = -19,
    ERR_UNPACK_FAILURE = -20,
    ERR_PACK_FAILURE = -21,
    ERR_PACK_MISMATCH = -22,
    ERR_NO_PERMISSIONS = -23,
    ERR_TIMEOUT = -24,
    ERR_UNREACH = -25,
    ERR_BAD_PARAM = -27,
    ERR_RESOURCE_BUSY = -28,
    ERR_OUT_OF_RESOURCE = -29,
    ERR_INIT = -31,
    ERR_NOMEM = -32,
    ERR_NOT_FOUND = -46,
    ERR_NOT_SUPPORTED = -47,
    ERR_PARAM_VALUE_NOT_SUPPORTED = -59,
    ERR_COMM_FAILURE = -49,
    ERR_UNPACK_READ_PAST_END_OF_BUFFER = -50,
    ERR_CONFLICTING_CLEANUP_DIRECTIVES = -51,
    ERR_PARTIAL_SUCCESS = -52,
    ERR_DUPLICATE_KEY = -53,
    ERR_EMPTY = -60,
    ERR_LOST_CONNECTION = -61,
    ERR_EXISTS = -62,
    ERR_FATAL = -63,
    OPERATION_IN_PROGRESS = -156,
    OPERATION_SUCCEEDED = -157,
    ERR_JOB_ALLOC_FAILED = -188,
    EVENT_SESSION_START = -192,
    EVENT_SESSION_END = -193,
    ALLOC_TIMEOUT_WARNING = -194,
    DVM_IS_READY = -195,
    ERR_DVM_MOD = -196,
    ERR_TAKE_NEXT_OPTION = -1366,
}

impl Status {
    /// True for `PMIX_SUCCESS`.
    pub fn is_success(self) -> bool {
        self.0 == 0
    }
}

impl fmt::Debug for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "PMIX_{n} ({})", self.0),
            None => write!(f, "status {}", self.0),
        }
    }
}
