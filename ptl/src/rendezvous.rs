//! Finding a server: the URI it publishes (`--report-uri FILE`) and the tool rendezvous
//! files it leaves in its temporary directory (`pmix.sys.HOST`, `pmix.HOST.tool.PID`,
//! `pmix.HOST.tool.NSPACE`, `pmix.HOST.tool`, `pmix.sched.HOST`, `pmix.sysctrlr.HOST`;
//! OpenPMIx `src/mca/ptl/base/ptl_base_connect.c`). All have the same shape: line 1 the URI
//! `NSPACE.RANK;tcp4://ADDR:PORT`, line 2 (optional) the server's version, e.g. `v7.0.0rc1`.
//!
//! Parsed with `str` splitting rather than `nom`: the format is two separators and a
//! socket address that `std` already parses, so a combinator grammar would add nothing.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use crate::error::{PtlError, Result};

/// Rendezvous files larger than this are not a server's URI file.
const MAX_FILE_LEN: u64 = 4096;

/// A server's published contact point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerUri {
    /// The server's namespace (e.g. `prte-vm-1234@0`).
    pub nspace: String,
    /// The server's rank.
    pub rank: u32,
    /// Where to connect.
    pub addr: SocketAddr,
    /// The version line, if the file has one.
    pub version: Option<String>,
    /// The URI line as written.
    pub uri: String,
}

impl ServerUri {
    /// Parse a URI file's contents.
    pub fn parse(text: &str) -> Result<ServerUri> {
        let mut lines = text.lines();
        let uri = lines
            .next()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .ok_or_else(|| PtlError::Usage("URI file is empty".into()))?;
        let version = lines
            .next()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string);
        let (id, contact) = uri.split_once(';').ok_or_else(|| {
            PtlError::Usage(format!(
                "URI '{uri}' has no ';' (expected NSPACE.RANK;tcp4://ADDR:PORT)"
            ))
        })?;
        let (nspace, rank) = id
            .rsplit_once('.')
            .ok_or_else(|| PtlError::Usage(format!("URI id '{id}' has no '.RANK'")))?;
        let rank: u32 = rank
            .parse()
            .map_err(|_| PtlError::Usage(format!("URI rank '{rank}' is not a number")))?;
        let hostport = contact
            .strip_prefix("tcp4://")
            .or_else(|| contact.strip_prefix("tcp://"))
            .ok_or_else(|| {
                PtlError::Usage(format!(
                    "URI contact '{contact}': only tcp4:// is supported (valid: tcp4://ADDR:PORT, tcp://ADDR:PORT)"
                ))
            })?;
        let addr: SocketAddr = hostport
            .parse()
            .map_err(|e| PtlError::Usage(format!("URI address '{hostport}': {e}")))?;
        if nspace.is_empty() || nspace.len() > 255 {
            return Err(PtlError::Usage(format!(
                "URI nspace '{nspace}' must be 1..=255 bytes"
            )));
        }
        Ok(ServerUri {
            nspace: nspace.to_string(),
            rank,
            addr,
            version,
            uri: uri.to_string(),
        })
    }

    /// Read and parse a URI file (at most 4 KiB).
    pub fn from_file(path: &Path) -> Result<ServerUri> {
        let meta = std::fs::metadata(path).map_err(|e| PtlError::Io {
            what: format!("URI file {}", path.display()),
            source: e,
        })?;
        if meta.len() > MAX_FILE_LEN {
            return Err(PtlError::Usage(format!(
                "{} is {} bytes; a URI file is at most {MAX_FILE_LEN}",
                path.display(),
                meta.len()
            )));
        }
        let text = std::fs::read_to_string(path).map_err(|e| PtlError::Io {
            what: format!("URI file {}", path.display()),
            source: e,
        })?;
        ServerUri::parse(&text)
    }
}

/// The tool rendezvous files in `dir` (names starting `pmix.`), each parsed; files that do
/// not parse are returned with their error so the caller can say why.
pub fn scan_rendezvous_dir(dir: &Path) -> Result<Vec<(PathBuf, Result<ServerUri>)>> {
    let entries = std::fs::read_dir(dir).map_err(|e| PtlError::Io {
        what: format!("rendezvous directory {}", dir.display()),
        source: e,
    })?;
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let is_file = entry.file_type().map(|t| t.is_file()).unwrap_or(false);
        if is_file && name.starts_with("pmix.") {
            let path = entry.path();
            let parsed = ServerUri::from_file(&path);
            out.push((path, parsed));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prrte_report_uri() {
        let u = ServerUri::parse("prte-vm-16454@0.0;tcp4://127.0.0.1:47397\nv7.0.0rc1").unwrap();
        assert_eq!(u.nspace, "prte-vm-16454@0");
        assert_eq!(u.rank, 0);
        assert_eq!(u.addr, "127.0.0.1:47397".parse().unwrap());
        assert_eq!(u.version.as_deref(), Some("v7.0.0rc1"));
    }

    #[test]
    fn bad_uris_name_the_expected_shape() {
        for bad in [
            "",
            "x",
            "ns.0;ipc://a",
            "ns;tcp4://1.2.3.4:5",
            "ns.x;tcp4://1.2.3.4:5",
        ] {
            let e = ServerUri::parse(bad).unwrap_err();
            assert!(matches!(e, PtlError::Usage(_)), "{bad}: {e}");
        }
    }
}
