//! The shared observations format (`vectors/live/observations.json`, written by
//! `bash tools/live-matrix.sh --json OUT`): what real clients of each release saw against
//! each real server, one [`LiveCell`] per (client, server, component, buffer, gds, psec).

use crate::ops::Op;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The format number this code reads and writes.
pub const FORMAT: u32 = 1;

/// The whole observations file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Observations {
    /// Always [`FORMAT`].
    pub format: u32,
    /// Where and how the observations were made.
    pub provenance: Provenance,
    /// One entry per cell run (or tried).
    pub cells: Vec<LiveCell>,
}

/// Where and how a set of observations was made.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    /// When (UTC, free text, e.g. `2026-11-26T02:10:00Z`).
    pub date: String,
    /// The machine.
    pub host: String,
    /// The command that produced the file.
    pub command: String,
    /// Each library release used, with where it came from (package version or build).
    pub releases: BTreeMap<String, String>,
}

/// Whether the client side was a PMIx client or a PMIx tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClientKind {
    /// A client launched by the server (PMIx_Init).
    Client,
    /// A tool attaching to the server (PMIx_tool_init).
    Tool,
}

/// One cell: one client against one server in one negotiated configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LiveCell {
    /// The client's library release (`4.2.2` ... `7.0.0rc1`), or `pmix-peer`.
    pub client_release: String,
    /// Client or tool.
    pub client_kind: ClientKind,
    /// The server: `plain-<release>`, `prrte-5.0.0rc1`, `slurm-24.11.5`, `slurm-22.05.8`,
    /// `pmix-server`.
    pub server: String,
    /// The libpmix release the server links (`native` for pmix-server).
    pub server_release: String,
    /// The negotiated bfrops component (`v12` ... `v61`), as seen on the wire or handshake;
    /// empty when the cell did not get that far.
    pub component: String,
    /// True when the client was told to use an older component than it would choose.
    pub component_forced: bool,
    /// The negotiated buffer kind (`non-described` or `fully-described`).
    pub buffer: String,
    /// The gds module (`hash`, `ds12`, `ds21`, `shmem2`, ...).
    pub gds: String,
    /// The psec module (`native`, `munge`, `none`).
    pub psec: String,
    /// What each operation did, in the order run.
    pub ops: Vec<OpObservation>,
    /// Why the cell could not run (or ran only in part), when it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl LiveCell {
    /// True for a `base` cell: a launched client in the configuration the server gave it (no
    /// forced component, the non-described buffer, the server's gds list). The harness
    /// marks its buffer and gds variants in the note (`the client was told
    /// PMIX_BFROP_BUFFER_TYPE=...`, `... PMIX_GDS_MODULE=...`).
    pub fn is_default(&self) -> bool {
        self.client_kind == ClientKind::Client
            && !self.component_forced
            && self.buffer != "fully-described"
            && !self.note.as_deref().is_some_and(|n| {
                n.contains("told PMIX_GDS_MODULE") || n.contains("told PMIX_BFROP_BUFFER_TYPE")
            })
    }
}

/// What one operation returned.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpObservation {
    /// The operation.
    pub op: Op,
    /// The PMIx status it returned (0 is PMIX_SUCCESS).
    pub status: i32,
    /// The status's name (`PMIX_SUCCESS`, `PMIX_ERR_NOT_SUPPORTED`, ...).
    pub status_name: String,
    /// A short text of what came back (the value read, or what went wrong).
    pub observed: String,
}

impl OpObservation {
    /// True when the operation succeeded.
    pub fn ok(&self) -> bool {
        self.status == 0
    }

    /// Parse one line a live client program prints:
    /// `OP <name> <status> <status_name> <observed...>` (the observed text may be empty or
    /// contain spaces).
    pub fn parse_line(line: &str) -> Result<OpObservation, String> {
        let bad = |why: &str| format!("bad op line `{line}`: {why}");
        let mut parts = line.trim_end().splitn(5, ' ');
        if parts.next() != Some("OP") {
            return Err(bad("it does not start with `OP `"));
        }
        let op = Op::parse(parts.next().ok_or_else(|| bad("no op name"))?).map_err(|e| bad(&e))?;
        let status = parts
            .next()
            .ok_or_else(|| bad("no status"))?
            .parse::<i32>()
            .map_err(|e| bad(&format!("status: {e}")))?;
        let status_name = parts
            .next()
            .filter(|s| !s.is_empty())
            .ok_or_else(|| bad("no status name"))?
            .to_string();
        let observed = parts.next().unwrap_or("").to_string();
        Ok(OpObservation {
            op,
            status,
            status_name,
            observed,
        })
    }

    /// The line [`OpObservation::parse_line`] reads.
    pub fn to_line(&self) -> String {
        format!(
            "OP {} {} {} {}",
            self.op, self.status, self.status_name, self.observed
        )
        .trim_end()
        .to_string()
    }
}

impl LiveCell {
    /// The first failing operation's observation, if any.
    pub fn failures(&self) -> impl Iterator<Item = &OpObservation> {
        self.ops.iter().filter(|o| !o.ok())
    }

    /// A short key naming the cell:
    /// `<client_release> <client_kind> -> <server> <component> <buffer> gds=<gds> psec=<psec>`.
    pub fn key(&self) -> String {
        format!(
            "{} {} -> {} {} {} gds={} psec={}{}",
            self.client_release,
            match self.client_kind {
                ClientKind::Client => "client",
                ClientKind::Tool => "tool",
            },
            self.server,
            if self.component.is_empty() {
                "?"
            } else {
                &self.component
            },
            self.buffer,
            self.gds,
            self.psec,
            if self.component_forced {
                " (forced)"
            } else {
                ""
            }
        )
    }
}

impl Observations {
    /// Parse the JSON text of an observations file, checking its format number.
    pub fn from_json(text: &str) -> Result<Observations, String> {
        let o: Observations =
            serde_json::from_str(text).map_err(|e| format!("observations: {e}"))?;
        if o.format != FORMAT {
            return Err(format!(
                "observations: format {} (this tool reads format {FORMAT})",
                o.format
            ));
        }
        Ok(o)
    }

    /// Read an observations file.
    pub fn load(path: &Path) -> Result<Observations, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Observations::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The JSON text (pretty, with a final newline).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("observations serialize");
        s.push('\n');
        s
    }
}
