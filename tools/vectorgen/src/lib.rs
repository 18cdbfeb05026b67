//! Golden vector generation (`pmix-vectors regenerate`), for the maintainers of pmix-wire:
//! it writes `vectors/` from the real libraries, and its `--check` is CI's stale check.
//!
//! One file per (source, component, buffer kind) (format: `vectors/README.md`):
//!
//! * `openpmix-<release>/` (4.2.2, 5.0.7, 6.0.0, 6.1.0, 7.0.0rc1): every expected byte and
//!   status comes from that release's libpmix through our oracle (`tools/oracle`, built by
//!   `tools/peers.sh`). Pack calls come from
//!   [`pmix_oracle::corpus`] plus a few extra families (integer boundaries, every value type inside
//!   INFO and KVAL, string lengths around varint boundaries, pairs of calls, deep nesting);
//!   hostile inputs (truncations, lying counts and lengths, unknown types, bad flex integers,
//!   tag mismatches) are built here and judged by the library.
//! * `openpmix-master-494e9d9d/`: only the recordings from OpenPMIx master
//!   (`vectors/recordings/openpmix-master-494e9d9d`) and the reference guide's verified
//!   master bytes (flagged `Reference`); every other release's files come from its library.
//!
//! Generation is deterministic: vectors come out in a fixed order, and each keeps the id it
//! has in the existing file (matched by its comment, which names the case); new vectors get
//! ids above the file's highest.

mod checked_in;
mod draft;
mod families;
mod files;
mod gaps;
mod generator;
mod hostile;
mod judge;
mod library;
mod master;
pub use pmix_oracle::matrix;
mod nesting;
mod progress;
mod recordings;

pub use checked_in::{
    canonical_json, check_corpus, counts, is_frozen, line_diff, lock_digest, lock_text,
    write_corpus,
};
pub use families::{extra_cases, nested_array, NEST_IN_JSON};
pub use files::{file_name, load_dir, Corpus, Options, FLAGS};
pub use judge::{CodecJudge, Judge, LibraryJudge, Packed, Unpacked};
pub use library::{generate_library, library_dir, library_origin, regenerate_with_library};
pub use master::generate_master;
pub use progress::Progress;
pub use recordings::{parse_recordings, Recording};

/// The directory (under `vectors/`) of the vectors regenerated from the installed library.
pub const DIR_422: &str = "openpmix-4.2.2";
/// The directory of the OpenPMIx master vectors.
pub const DIR_MASTER: &str = "openpmix-master-494e9d9d";
/// The OpenPMIx master commit the recordings come from.
pub const MASTER_COMMIT: &str = "494e9d9d03659ac99a4520492d26b8c33d67d9d4";
/// The name of the lock file in `vectors/`.
pub const LOCK_FILE: &str = "LOCK";
/// The largest share of `Computed` vectors a file may have (percent, exclusive).
pub const MAX_COMPUTED_PERCENT: f64 = 5.0;
