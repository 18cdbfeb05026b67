//! The shared observations format (`vectors/live/observations.json`, written by
//! `bash tools/live-matrix.sh --json OUT`): what real clients of each release saw against
//! each real server, one [`LiveCell`] per (client, server, component, buffer, gds, psec).

use crate::ops::Op;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The format number this code writes. Format 2 adds, per cell, the variant and its
/// setting, how each process ended ([`ProcessOutcome`]), the operations given but not
/// reported, why a cell did not run, and the plant a cell was made with.
pub const FORMAT: u32 = 2;

/// The format numbers this code reads: format 1 files are migrated on reading
/// ([`Observations::from_json`]): each process outcome is derived from the cell's note
/// where the note says it (`ended before OP (exited with N)`), else it is `unknown`.
pub const READS: [u32; 2] = [1, 2];

/// The operations a format-1 client cell was given, in order (the list of that format).
const FORMAT1_CLIENT_OPS: [&str; 15] = [
    "init",
    "get-job-info",
    "put-commit-fence-get:int",
    "put-commit-fence-get:uint",
    "put-commit-fence-get:flex-size",
    "put-commit-fence-get:float",
    "put-commit-fence-get:string",
    "put-commit-fence-get:bytes",
    "put-commit-fence-get:proc",
    "put-commit-fence-get:info-array",
    "put-commit-fence-get:data-array",
    "put-commit-fence-get:value",
    "allocation-inherit",
    "query",
    "finalize",
];
/// The operations a format-1 tool cell was given, in order.
const FORMAT1_TOOL_OPS: [&str; 4] = ["init", "query", "allocation-inherit", "finalize"];

/// How one process of a cell ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "how", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Ending {
    /// It exited with this code.
    Exited {
        /// The exit code (0 ... 255).
        code: i32,
    },
    /// It was ended by a signal (`SIGSEGV`, `SIGABRT`, ...).
    Signal {
        /// The signal's name.
        signal: String,
    },
    /// The runner's bound was reached (`timeout` ended it).
    TimedOut,
    /// It was never started.
    DidNotRun,
    /// Not recorded (a format-1 file whose note does not say).
    Unknown,
}

/// The name of signal `n` (`SIGSEGV` for 11), or `signal N`.
pub fn signal_name(n: i32) -> String {
    match n {
        1 => "SIGHUP".into(),
        2 => "SIGINT".into(),
        3 => "SIGQUIT".into(),
        4 => "SIGILL".into(),
        5 => "SIGTRAP".into(),
        6 => "SIGABRT".into(),
        7 => "SIGBUS".into(),
        8 => "SIGFPE".into(),
        9 => "SIGKILL".into(),
        11 => "SIGSEGV".into(),
        13 => "SIGPIPE".into(),
        14 => "SIGALRM".into(),
        15 => "SIGTERM".into(),
        _ => format!("signal {n}"),
    }
}

impl Ending {
    /// How a process ended, from the status the runner recorded (`timeout`'s exit
    /// status: 124 timed out, 128+N signal N, else the code).
    pub fn from_rc(rc: i32) -> Ending {
        match rc {
            124 => Ending::TimedOut,
            129..=191 => Ending::Signal {
                signal: signal_name(rc - 128),
            },
            code => Ending::Exited { code },
        }
    }

    /// True when a signal ended it.
    pub fn is_signal(&self) -> bool {
        matches!(self, Ending::Signal { .. })
    }

    /// In words: `exited with 1`, `SIGSEGV`, `timed out`, `did not run`, `unknown`.
    pub fn describe(&self) -> String {
        match self {
            Ending::Exited { code } => format!("exited with {code}"),
            Ending::Signal { signal } => signal.clone(),
            Ending::TimedOut => "timed out".into(),
            Ending::DidNotRun => "did not run".into(),
            Ending::Unknown => "unknown".into(),
        }
    }
}

/// How one process of a cell ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProcessOutcome {
    /// Which process: `rank0`, `rank1`, `tool`, `server`.
    pub who: String,
    /// How it ended.
    pub ended: Ending,
}

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
    /// The variant of the run that made the cell: `base`, `tool`, `force`, `buffer`,
    /// `gds`, `psec`, `peer` (empty: not recorded).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub variant: String,
    /// The variant's setting: the forced component, the buffer case, the gds or psec
    /// module, pmix-peer's component (`-`: none; empty: not recorded).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub setting: String,
    /// How each process of the cell ended (the client's ranks or the tool).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub processes: Vec<ProcessOutcome>,
    /// The operations rank 0 (or the tool) was given but did not report, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unreported: Vec<Op>,
    /// Why the harness could not run the cell at all (the server did not start, the server
    /// does not offer the forced component): such a cell is *not run*, never a verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_run: Option<String>,
    /// The fault planted in the cell on purpose (`crash`: the client raises SIGSEGV after
    /// init; `init-fails`: the server refuses every client), so that the scoring can be
    /// shown to fail it. Planted cells are never part of the matrix.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plant: Option<String>,
}

impl LiveCell {
    /// True for a `base` cell: a launched client in the configuration the server gave it (no
    /// forced component, the non-described buffer, the server's gds list): its variant is
    /// `base`. A cell that does not record its variant is judged by its note: the harness
    /// marks its buffer and gds variants there (`the client was told
    /// PMIX_BFROP_BUFFER_TYPE=...`, `... PMIX_GDS_MODULE=...`).
    pub fn is_default(&self) -> bool {
        if !self.variant.is_empty() {
            return self.client_kind == ClientKind::Client && self.variant == "base";
        }
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

    /// The first process of the cell that a signal ended, if any.
    pub fn crash(&self) -> Option<&ProcessOutcome> {
        self.processes.iter().find(|p| p.ended.is_signal())
    }

    /// How rank 0 (or the tool) ended, when recorded.
    pub fn main_ending(&self) -> Option<&Ending> {
        let who = match self.client_kind {
            ClientKind::Client => "rank0",
            ClientKind::Tool => "tool",
        };
        self.processes
            .iter()
            .find(|p| p.who == who)
            .map(|p| &p.ended)
    }

    /// The last operation rank 0 (or the tool) reported, if any.
    pub fn last_reached(&self) -> Option<&OpObservation> {
        self.ops.last()
    }

    /// Where the cell's client stopped short, when it did: `after OP (how it ended)` or
    /// `before init (how it ended)`. None when every operation was reported or the cell
    /// did not run.
    pub fn stopped(&self) -> Option<String> {
        if self.not_run.is_some() || self.unreported.is_empty() {
            return None;
        }
        let how = self
            .main_ending()
            .map_or_else(|| "unknown".to_string(), Ending::describe);
        Some(match self.last_reached() {
            Some(o) => format!("stopped after {} ({how})", o.op),
            None => format!("stopped before {} ({how})", self.unreported[0]),
        })
    }

    /// The crash in words: `SIGSEGV in rank0 after init`, when a signal ended a process.
    pub fn crash_text(&self) -> Option<String> {
        let p = self.crash()?;
        let at = match self.last_reached() {
            Some(o) => format!("after {}", o.op),
            None => "before any operation".to_string(),
        };
        Some(format!("{} in {} {at}", p.ended.describe(), p.who))
    }

    /// The cell's key with its variant when that is not `base` (`... [buffer
    /// server-fully-client-default]`): a setup as `LIVE.md` and `compat` name it.
    pub fn setup(&self) -> String {
        match self.variant.as_str() {
            "" | "base" | "tool" => self.key(),
            "force" | "peer" if self.component_forced => self.key(),
            v => format!("{} [{v} {}]", self.key(), self.setting),
        }
    }

    /// The experiment a cell is: who ran against what, in which variant, with which
    /// setting and plant (not what came out). Two runs of one experiment are compared by
    /// `--baseline`.
    pub fn experiment(&self) -> String {
        format!(
            "{} {} -> {} {} {}{}",
            self.client_release,
            match self.client_kind {
                ClientKind::Client => "client",
                ClientKind::Tool => "tool",
            },
            self.server,
            if self.variant.is_empty() {
                "?"
            } else {
                &self.variant
            },
            if self.setting.is_empty() {
                "-"
            } else {
                &self.setting
            },
            self.plant
                .as_deref()
                .map_or(String::new(), |p| format!(" plant={p}"))
        )
    }

    /// Fill in what a format-1 cell did not record, from its note: the variant and its
    /// setting, how rank 0 (or the tool) ended (`ended before OP (exited with N)`; 128+N is
    /// signal N, as `timeout` reports it), and the operations it did not report.
    pub fn migrate_from_format1(&mut self) {
        let note = self.note.clone().unwrap_or_default();
        let between = |from: &str, to: &str| -> Option<String> {
            let at = note.find(from)? + from.len();
            let rest = &note[at..];
            Some(rest[..rest.find(to).unwrap_or(rest.len())].to_string())
        };
        let (variant, setting) = if self.client_release == "pmix-peer" {
            let c = between("spoke ", ",")
                .or_else(|| between("spoke ", ";"))
                .unwrap_or_else(|| note.split("spoke ").nth(1).unwrap_or("?").to_string());
            ("peer", c)
        } else if self.client_kind == ClientKind::Tool {
            ("tool", "-".to_string())
        } else if let Some(c) = between("the client was forced to ", ";") {
            ("force", c)
        } else if note.contains("told PMIX_BFROP_BUFFER_TYPE") {
            ("buffer", "client-fully".to_string())
        } else if note.contains("PMIX_BFROP_BUFFER_TYPE was removed") {
            ("buffer", "server-fully-client-default".to_string())
        } else if note.contains("the server was started fully-described") {
            ("buffer", "server-fully".to_string())
        } else if let Some(m) = between("told PMIX_GDS_MODULE=", ";") {
            ("gds", m)
        } else if let Some(m) = between("told PMIX_SECURITY_MODE=", ";") {
            let m = m.split(' ').next().unwrap_or("").to_string();
            match between("a munged runs with ", ", its socket") {
                Some(key) => ("psec", format!("{m} (munged: {key})")),
                None => ("psec", m),
            }
        } else {
            ("base", "-".to_string())
        };
        self.variant = variant.to_string();
        self.setting = setting.trim().to_string();
        let given: &[&str] = match self.client_kind {
            ClientKind::Client => &FORMAT1_CLIENT_OPS,
            ClientKind::Tool => &FORMAT1_TOOL_OPS,
        };
        // the operations after the last one reported (a client reports them in order)
        let given: Vec<Op> = given.iter().filter_map(|n| Op::parse(n).ok()).collect();
        let from = self
            .ops
            .last()
            .and_then(|l| given.iter().position(|op| *op == l.op))
            .map_or(0, |i| i + 1);
        self.unreported = given[from.min(given.len())..].to_vec();
        let ended = match between("ended before ", ")") {
            Some(s) => match s.split_once(" (").map(|(_, how)| how) {
                Some("timed out") => Ending::TimedOut,
                Some("did not run") => Ending::DidNotRun,
                Some(how) => how
                    .strip_prefix("exited with ")
                    .and_then(|c| c.parse::<i32>().ok())
                    .map_or(Ending::Unknown, Ending::from_rc),
                None => Ending::Unknown,
            },
            None => Ending::Unknown,
        };
        let who = match self.client_kind {
            ClientKind::Client => "rank0",
            ClientKind::Tool => "tool",
        };
        self.processes = vec![ProcessOutcome {
            who: who.to_string(),
            ended,
        }];
    }
}

impl LiveCell {
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
        let mut o: Observations =
            serde_json::from_str(text).map_err(|e| format!("observations: {e}"))?;
        if !READS.contains(&o.format) {
            return Err(format!(
                "observations: format {} (this tool reads formats {})",
                o.format,
                READS.map(|f| f.to_string()).join(" and ")
            ));
        }
        if o.format == 1 {
            for c in &mut o.cells {
                c.migrate_from_format1();
            }
            o.format = FORMAT;
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
        // indented by one space, as tools/live/assemble.py writes it; plain data (strings,
        // numbers, lists): serializing cannot fail
        let mut buf = Vec::new();
        let fmt = serde_json::ser::PrettyFormatter::with_indent(b" ");
        let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
        let _ = self.serialize(&mut ser);
        let mut s = String::from_utf8(buf).unwrap_or_default();
        s.push('\n');
        s
    }
}
