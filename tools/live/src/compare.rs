//! Predicted against observed: every operation of every observed cell next to its
//! prediction, the explanations table (`vectors/live/explanations.json`) that accounts for
//! each disagreement, and the verdict of each (client release, server) pair that
//! `vectors/LIVE.md`, `vectors/LIVE.svg` and `pmix-wire compat` all show.

use crate::observations::{ClientKind, LiveCell, Observations, OpObservation};
use crate::predict::{Prediction, Predictor, Verdict};
use pmix_codec::BufferKind;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// What an explanation says a disagreement is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ExplanationKind {
    /// The server refuses the operation for every client, its own release's too: a limit
    /// of the server, not of the pair (the pair's verdict does not count it).
    ServerLimit,
    /// A runtime effect the bytes cannot show (a new finding).
    Runtime,
    /// An effect of how this machine runs the cell, not of the pair (e.g. client and server
    /// in different roots that do not share /tmp): like a server limit, the pair's verdict
    /// does not count it.
    Deployment,
    /// The prediction is wrong or too coarse (a codec, profile or model bug to fix).
    Prediction,
    /// Observed and grouped, but not yet traced to a cause: LIVE.md lists it as open, apart
    /// from the explained ones, so that it is published, not hidden. A disagreement that no
    /// entry covers still fails the check.
    Open,
}

impl ExplanationKind {
    /// `server-limit`, `runtime`, `deployment`, `prediction` or `open`.
    pub fn as_str(self) -> &'static str {
        match self {
            ExplanationKind::ServerLimit => "server-limit",
            ExplanationKind::Runtime => "runtime",
            ExplanationKind::Deployment => "deployment",
            ExplanationKind::Prediction => "prediction",
            ExplanationKind::Open => "open",
        }
    }
}

/// One explanation: one cause, keyed by the cells and operations it accounts for. Each
/// text key is exact, `*` (anything), a prefix ending in `*` (`plain-*`), or alternatives
/// separated by `|` (`v20|v21|v3`); the optional keys narrow it further when present.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Explanation {
    /// The client release.
    pub client_release: String,
    /// `client` or `tool` (absent: both).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_kind: Option<String>,
    /// The server (`plain-5.0.7`, `slurm-24.11.5`, ...).
    pub server: String,
    /// The negotiated component (empty when nothing reached the wire).
    pub component: String,
    /// True: only cells with a forced component; false: only cells without (absent: both).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forced: Option<bool>,
    /// The buffer kind the client named on the wire (absent: any).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<String>,
    /// The gds module the client named on the wire (absent: any).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gds: Option<String>,
    /// The psec module the client used (absent: any).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub psec: Option<String>,
    /// The operation's name.
    pub op: String,
    /// The status observed (absent: any failure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<i32>,
    /// What the disagreement is.
    pub kind: ExplanationKind,
    /// Why, in a sentence or two.
    pub why: String,
    /// The evidence: the upstream source file and function (or our own) that causes it.
    pub evidence: String,
    /// What an operator can set or do instead, when something helps (e.g.
    /// `PMIX_MCA_gds=hash on the client`); `pmix-wire compat` prints it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remedy: Option<String>,
}

impl Explanation {
    /// The first sentence of [`Explanation::why`] (the cause, once, for a person).
    pub fn cause(&self) -> String {
        first_sentence(&self.why)
    }
}

/// The first sentence of `s` (up to its first `. ` followed by a capital letter, or all).
pub fn first_sentence(s: &str) -> String {
    let b = s.as_bytes();
    for i in 0..b.len().saturating_sub(2) {
        if b[i] == b'.' && b[i + 1] == b' ' && b[i + 2].is_ascii_uppercase() {
            return s[..=i].to_string();
        }
    }
    s.to_string()
}

fn matches(pattern: &str, s: &str) -> bool {
    pattern.split('|').any(|p| {
        p == "*"
            || p == s
            || p.strip_suffix('*')
                .is_some_and(|prefix| s.starts_with(prefix))
    })
}

impl Explanation {
    /// True when the explanation is about this cell and operation.
    pub fn covers(&self, cell: &LiveCell, op: &OpObservation) -> bool {
        let kind = match cell.client_kind {
            ClientKind::Client => "client",
            ClientKind::Tool => "tool",
        };
        matches(&self.client_release, &cell.client_release)
            && self.client_kind.as_deref().is_none_or(|k| matches(k, kind))
            && matches(&self.server, &cell.server)
            && matches(&self.component, &cell.component)
            && self.forced.is_none_or(|f| f == cell.component_forced)
            && self
                .buffer
                .as_deref()
                .is_none_or(|b| matches(b, &cell.buffer))
            && self.gds.as_deref().is_none_or(|g| matches(g, &cell.gds))
            && self.psec.as_deref().is_none_or(|p| matches(p, &cell.psec))
            && matches(&self.op, &op.op.as_str())
            && self.status.is_none_or(|st| st == op.status)
    }

    /// The cells it covers, in words (for LIVE.md).
    pub fn pattern(&self) -> String {
        let mut p = format!(
            "{} {} -> {}",
            self.client_release,
            self.client_kind.as_deref().unwrap_or("client/tool"),
            self.server
        );
        let comp = if self.component.is_empty() {
            "no component on the wire".to_string()
        } else {
            self.component.clone()
        };
        p.push_str(&format!(", component {comp}"));
        match self.forced {
            Some(true) => p.push_str(" (forced)"),
            Some(false) => p.push_str(" (not forced)"),
            None => {}
        }
        if let Some(b) = &self.buffer {
            p.push_str(&format!(", buffer {b}"));
        }
        if let Some(g) = &self.gds {
            p.push_str(&format!(", gds {g}"));
        }
        if let Some(m) = &self.psec {
            p.push_str(&format!(", psec {m}"));
        }
        p.push_str(&format!(", {}", self.op));
        if let Some(st) = self.status {
            p.push_str(&format!(" = {st}"));
        }
        p
    }
}

/// The explanations table.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Explanations {
    /// Every explanation, first match wins.
    pub explanations: Vec<Explanation>,
}

impl Explanations {
    /// Parse the JSON text.
    pub fn from_json(text: &str) -> Result<Explanations, String> {
        serde_json::from_str(text).map_err(|e| format!("explanations: {e}"))
    }

    /// Read the file.
    pub fn load(path: &Path) -> Result<Explanations, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Explanations::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// One observed operation next to its prediction.
#[derive(Clone, Debug)]
pub struct Row<'a> {
    /// The cell.
    pub cell: &'a LiveCell,
    /// What happened.
    pub observed: &'a OpObservation,
    /// What was predicted.
    pub prediction: Prediction,
    /// The explanation that covers it, if any (looked up for every row).
    pub explanation: Option<&'a Explanation>,
}

impl Row<'_> {
    /// True when prediction and observation agree: both fail, or both work (a predicted
    /// difference works).
    pub fn agrees(&self) -> bool {
        (self.prediction.verdict == Verdict::Fails) != self.observed.ok()
    }

    /// True when the operation's failure is not the pair's fault (a server limit, or an
    /// effect of this machine's deployment).
    pub fn server_limited(&self) -> bool {
        !self.observed.ok()
            && self.explanation.is_some_and(|e| {
                matches!(
                    e.kind,
                    ExplanationKind::ServerLimit | ExplanationKind::Deployment
                )
            })
    }

    /// True when the operation failed because the host does not implement it (an
    /// explanation of kind `server-limit`).
    pub fn host_limited(&self) -> bool {
        !self.observed.ok()
            && self
                .explanation
                .is_some_and(|e| e.kind == ExplanationKind::ServerLimit)
    }

    /// True when the operation failed for this pair (not a server limit).
    pub fn pair_failure(&self) -> bool {
        !self.observed.ok() && !self.server_limited()
    }
}

/// The buffer kind a cell negotiated (non-described when it says nothing readable).
fn buffer_of(cell: &LiveCell) -> BufferKind {
    cell.buffer.parse().unwrap_or(BufferKind::NonDescribed)
}

/// Every observed operation with its prediction and explanation.
pub fn compare<'a>(
    obs: &'a Observations,
    predictor: &Predictor,
    explanations: &'a Explanations,
) -> Vec<Row<'a>> {
    let mut rows = Vec::new();
    for cell in &obs.cells {
        let component = cell.component.parse().ok();
        let predictions = predictor.predict(
            &cell.client_release,
            &cell.server_release,
            cell.client_kind == ClientKind::Tool,
            component,
            buffer_of(cell),
        );
        for o in &cell.ops {
            let prediction = predictions
                .iter()
                .find(|p| p.op == o.op)
                .cloned()
                .expect("a prediction for every op");
            rows.push(Row {
                cell,
                observed: o,
                prediction,
                explanation: explanations.explanations.iter().find(|e| e.covers(cell, o)),
            });
        }
    }
    rows
}

/// The disagreements no explanation covers, and the explanations that cover no disagreement
/// (both make the stale check fail).
pub fn unexplained<'a>(
    rows: &[Row<'a>],
    explanations: &'a Explanations,
) -> (Vec<String>, Vec<&'a Explanation>) {
    let missing = rows
        .iter()
        .filter(|r| !r.agrees() && r.explanation.is_none())
        .map(|r| {
            format!(
                "{}: {} predicted {}, observed {} {}",
                r.cell.key(),
                r.observed.op,
                r.prediction.verdict,
                r.observed.status,
                r.observed.status_name
            )
        })
        .collect();
    let unused = explanations
        .explanations
        .iter()
        .filter(|e| {
            !rows
                .iter()
                .any(|r| !r.agrees() && r.explanation.is_some_and(|x| std::ptr::eq(x, *e)))
        })
        .collect();
    (missing, unused)
}

/// What a cell or a pair came out as, observed: the predicted [`Verdict`]s plus the two
/// outcomes only a run can have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Outcome {
    /// The harness could not run it (the server did not start, the server does not offer
    /// the forced component): no verdict.
    NotRun,
    /// Nothing failed but what is excused (see [`CellJudgement`]).
    Works,
    /// Every default cell works, a cell in another configuration fails or crashes.
    Differs,
    /// An operation failed, or the client stopped short of its operations.
    Fails,
    /// A process of a default cell was ended by a signal.
    Crash,
}

impl Outcome {
    /// `not run`, `works`, `differs`, `fails` or `crash`.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::NotRun => "not run",
            Outcome::Works => "works",
            Outcome::Differs => "differs",
            Outcome::Fails => "fails",
            Outcome::Crash => "crash",
        }
    }

    /// The outcome named `s`.
    pub fn parse(s: &str) -> Option<Outcome> {
        [
            Outcome::NotRun,
            Outcome::Works,
            Outcome::Differs,
            Outcome::Fails,
            Outcome::Crash,
        ]
        .into_iter()
        .find(|v| v.as_str() == s)
    }

    /// The predicted verdict as an outcome.
    pub fn from_verdict(v: Verdict) -> Outcome {
        match v {
            Verdict::Works => Outcome::Works,
            Verdict::Differs => Outcome::Differs,
            Verdict::Fails => Outcome::Fails,
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The judgement of one observed cell.
#[derive(Clone, Debug, PartialEq)]
pub struct CellJudgement {
    /// `NotRun`, `Works`, `Fails` or `Crash` (a cell never `Differs`).
    pub outcome: Outcome,
    /// What makes it fail: failing operations (`op`), `crash: SIGSEGV in rank0 after init`,
    /// `stopped after get-job-info (timed out)`.
    pub failing: Vec<String>,
    /// Failures excused because they happen the same way (same operation, same status, or
    /// the same stop) in the same configuration with one release on both sides, or are an
    /// effect of this machine's deployment.
    pub not_interop: Vec<String>,
    /// Operations the host does not implement (explanations of kind `server-limit`).
    pub host_limited: Vec<String>,
    /// Operations that succeeded.
    pub ok_ops: usize,
    /// Why it did not run, when it did not.
    pub not_run: Option<String>,
}

/// The verdict of one (client release, server) pair.
#[derive(Clone, Debug, PartialEq)]
pub struct PairVerdict {
    /// The client release.
    pub client: String,
    /// The server.
    pub server: String,
    /// The observed outcome: `crash` when a process of a default cell
    /// ([`LiveCell::is_default`]) was ended by a signal; `fails` when an operation failed
    /// (or the client stopped short) in a default cell; `differs` when every default cell
    /// works but a cell in another configuration (forced component, buffer, gds, psec,
    /// tool) fails or crashes; `not run` when no cell of the pair could be run; `works`
    /// otherwise. None when no cell of the pair was tried.
    pub observed: Option<Outcome>,
    /// What failed, observed (`op` for a default cell, `op (cell key)` for another
    /// configuration; crashes as `crash: ...`, early stops as `stopped ...`).
    pub observed_failing: Vec<String>,
    /// The operations observed (or, unobserved, predicted) to fail that are not the pair's
    /// fault: they fail the same way in the same configuration with one release on both
    /// sides, or are an effect of this machine's deployment.
    pub not_interop: Vec<String>,
    /// The operations the host does not implement (explanations of kind `server-limit`).
    pub host_limited: Vec<String>,
    /// The cells of the pair that could not be run, each `cell key: reason`.
    pub not_run: Vec<String>,
    /// What failed, per setup: None for the default cells, else the cell key; each with
    /// the outcome of its worst cell and what failed there.
    pub setups: Vec<(Option<String>, Outcome, Vec<String>)>,
    /// The predicted verdict (default negotiation, a launched client).
    pub predicted: Verdict,
    /// The operations predicted to fail.
    pub predicted_failing: Vec<String>,
}

impl PairVerdict {
    /// The outcome shown: the observed one, else the predicted one.
    pub fn shown(&self) -> Outcome {
        self.observed
            .unwrap_or_else(|| Outcome::from_verdict(self.predicted))
    }

    /// The failing operations shown with it.
    pub fn shown_failing(&self) -> &[String] {
        if self.observed.is_some() {
            &self.observed_failing
        } else {
            &self.predicted_failing
        }
    }
}

/// The verdict of the pair (`client`, `server`) from the judgements of its cells (already
/// filtered to the cells that count), its predictions, and the operations predicted to
/// fail with one release on both sides.
pub fn pair_verdict(
    client: &str,
    server: &str,
    cells: &[(&LiveCell, CellJudgement)],
    predictions: &[Prediction],
    predicted_baseline: &[String],
) -> PairVerdict {
    let mut failing: Vec<String> = Vec::new();
    let mut excused: Vec<String> = Vec::new();
    let mut host: Vec<String> = Vec::new();
    let mut not_run = Vec::new();
    let mut setups: Vec<(Option<String>, Outcome, Vec<String>)> = Vec::new();
    let (mut default_crash, mut default_fails, mut other_fails) = (false, false, false);
    let mut ran = false;
    let push = |v: &mut Vec<String>, s: &str| {
        if !v.iter().any(|x| x == s) {
            v.push(s.to_string());
        }
    };
    for (cell, j) in cells {
        for n in &j.not_interop {
            push(&mut excused, n);
        }
        for n in &j.host_limited {
            push(&mut host, n);
        }
        if let Some(why) = &j.not_run {
            not_run.push(format!("{}: {why}", cell.key()));
            continue;
        }
        ran = true;
        let default = cell.is_default();
        match j.outcome {
            Outcome::Crash if default => default_crash = true,
            Outcome::Fails if default => default_fails = true,
            Outcome::Crash | Outcome::Fails => other_fails = true,
            _ => {}
        }
        for f in &j.failing {
            let label = if default {
                f.clone()
            } else {
                format!("{f} ({})", cell.setup())
            };
            push(&mut failing, &label);
        }
        if !j.failing.is_empty() {
            let key = (!default).then(|| cell.setup());
            match setups.iter_mut().find(|(k, _, _)| *k == key) {
                Some((_, o, what)) => {
                    *o = (*o).max(j.outcome);
                    for f in &j.failing {
                        push(what, f);
                    }
                }
                None => setups.push((key, j.outcome, j.failing.clone())),
            }
        }
    }
    let observed = (!cells.is_empty()).then_some(if !ran {
        Outcome::NotRun
    } else if default_crash {
        Outcome::Crash
    } else if default_fails {
        Outcome::Fails
    } else if other_fails {
        Outcome::Differs
    } else {
        Outcome::Works
    });
    let interop = |p: &&Prediction| !predicted_baseline.contains(&p.op.as_str());
    let predicted = predictions
        .iter()
        .filter(interop)
        .map(|p| p.verdict)
        .max()
        .unwrap_or(Verdict::Works);
    if observed.is_none() {
        excused = predicted_baseline.to_vec();
    }
    PairVerdict {
        client: client.to_string(),
        server: server.to_string(),
        observed,
        observed_failing: failing,
        not_interop: excused,
        host_limited: host,
        not_run,
        setups,
        predicted,
        predicted_failing: predictions
            .iter()
            .filter(interop)
            .filter(|p| p.verdict == Verdict::Fails)
            .map(|p| p.op.as_str())
            .collect(),
    }
}

/// The text of one grid cell: one word, at most 12 characters: `works`, `differs`,
/// `fails`, `crash`, `not run`, or, when the pair was not run, the prediction marked with
/// `~` (`~works`, `~fails`). The details are below the grid ([`pair_details`]).
pub fn cell_text(p: &PairVerdict) -> String {
    match p.observed {
        Some(o) => o.as_str().to_string(),
        None => format!("~{}", Outcome::from_verdict(p.predicted)),
    }
}

/// Parse a grid cell back: (observed?, outcome). None when it is not one.
pub fn parse_cell_text(s: &str) -> Option<(bool, Outcome)> {
    match s.strip_prefix('~') {
        Some(r) => Some((false, Outcome::parse(r)?)),
        None => Some((true, Outcome::parse(s)?)),
    }
}

/// The details of one pair, as Markdown list lines (empty for a pair that works with
/// nothing to say).
pub fn pair_details(p: &PairVerdict) -> Vec<String> {
    let mut out = Vec::new();
    if p.observed.is_none() {
        if !p.predicted_failing.is_empty() {
            out.push(format!(
                "predicted to fail: {}",
                p.predicted_failing.join(", ")
            ));
        }
        return out;
    }
    for (key, _, what) in &p.setups {
        out.push(match key {
            None => format!("default setup: {}", what.join(", ")),
            Some(k) => format!("`{k}`: {}", what.join(", ")),
        });
    }
    if !p.host_limited.is_empty() {
        out.push(format!(
            "host limitations (not counted): {}",
            p.host_limited.join(", ")
        ));
    }
    if !p.not_interop.is_empty() {
        out.push(format!(
            "not interop (the same with one release on both sides): {}",
            p.not_interop.join(", ")
        ));
    }
    for n in &p.not_run {
        out.push(format!("not run: {n}"));
    }
    out
}
