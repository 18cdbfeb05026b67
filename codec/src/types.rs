//! PMIx data type identifiers (`pmix_data_type_t`).

use std::fmt;

/// A PMIx data type id as it travels on the wire (`pmix_data_type_t`, a `uint16_t`).
///
/// This is a plain number rather than a closed enum because a peer may send any id;
/// whether a component knows it is decided by [`crate::Component::registers`].
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DataType(pub u16);

macro_rules! data_types {
    ($($name:ident = $id:expr),* $(,)?) => {
        impl DataType {
            $(
                #[doc = concat!("`PMIX_", stringify!($name), "` (", stringify!($id), ").")]
                pub const $name: DataType = DataType($id);
            )*

            /// Every id this crate knows a name for, in ascending order.
            pub const ALL: &'static [DataType] = &[$(DataType::$name),*];

            /// The name without the `PMIX_` prefix, e.g. `"UINT32"`; `None` for an id we have no name for.
            pub fn name(self) -> Option<&'static str> {
                match self.0 {
                    $($id => Some(stringify!($name)),)*
                    _ => None,
                }
            }

            /// Look a type up by its name, with or without the `PMIX_` prefix.
            pub fn from_name(name: &str) -> Option<DataType> {
                let name = name.strip_prefix("PMIX_").unwrap_or(name);
                match name {
                    $(stringify!($name) => Some(DataType::$name),)*
                    _ => None,
                }
            }
        }
    };
}

data_types! {
    UNDEF = 0,
    BOOL = 1,
    BYTE = 2,
    STRING = 3,
    SIZE = 4,
    PID = 5,
    INT = 6,
    INT8 = 7,
    INT16 = 8,
    INT32 = 9,
    INT64 = 10,
    UINT = 11,
    UINT8 = 12,
    UINT16 = 13,
    UINT32 = 14,
    UINT64 = 15,
    FLOAT = 16,
    DOUBLE = 17,
    TIMEVAL = 18,
    TIME = 19,
    STATUS = 20,
    VALUE = 21,
    PROC = 22,
    APP = 23,
    INFO = 24,
    PDATA = 25,
    BUFFER = 26,
    BYTE_OBJECT = 27,
    KVAL = 28,
    MODEX = 29,
    PERSIST = 30,
    POINTER = 31,
    SCOPE = 32,
    DATA_RANGE = 33,
    COMMAND = 34,
    INFO_DIRECTIVES = 35,
    DATA_TYPE = 36,
    PROC_STATE = 37,
    PROC_INFO = 38,
    DATA_ARRAY = 39,
    PROC_RANK = 40,
    QUERY = 41,
    COMPRESSED_STRING = 42,
    ALLOC_DIRECTIVE = 43,
    INFO_ARRAY = 44,
    IOF_CHANNEL = 45,
    ENVAR = 46,
    COORD = 47,
    REGATTR = 48,
    REGEX = 49,
    JOB_STATE = 50,
    LINK_STATE = 51,
    PROC_CPUSET = 52,
    GEOMETRY = 53,
    DEVICE_DIST = 54,
    ENDPOINT = 55,
    TOPO = 56,
    DEVTYPE = 57,
    LOCTYPE = 58,
    COMPRESSED_BYTE_OBJECT = 59,
    PROC_NSPACE = 60,
    PROC_STATS = 61,
    DISK_STATS = 62,
    NET_STATS = 63,
    NODE_STATS = 64,
    DATA_BUFFER = 65,
    STOR_MEDIUM = 66,
    STOR_ACCESS = 67,
    STOR_PERSIST = 68,
    STOR_ACCESS_TYPE = 69,
    DEVICE = 70,
    RESBLOCK_DIRECTIVE = 71,
    RESOURCE_UNIT = 72,
    NODE_PID = 73,
    REGEX2 = 74,
    ALLOC_INHERIT = 75,
}

impl DataType {
    /// `PMIX_DATA_TYPE_MAX`: ids above this are reserved for implementers.
    pub const MAX: u16 = 500;

    /// Parse a name (`UINT32`, `PMIX_UINT32`) or a decimal id (`75`).
    pub fn parse(s: &str) -> Option<DataType> {
        DataType::from_name(s).or_else(|| s.parse::<u16>().ok().map(DataType))
    }

    /// The id as a number.
    pub fn id(self) -> u16 {
        self.0
    }
}

impl fmt::Debug for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => write!(f, "{}", self.0),
        }
    }
}
