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

/// The verdict of one (client release, server) pair.
#[derive(Clone, Debug, PartialEq)]
pub struct PairVerdict {
    /// The client release.
    pub client: String,
    /// The server.
    pub server: String,
    /// The observed verdict: fails when an operation failed in a base cell
    /// ([`LiveCell::is_default`]: no forced component, the server's buffer and gds);
    /// differs when every base cell works but a cell in another
    /// configuration (forced component, buffer, gds, psec, tool) fails; works otherwise.
    /// None when no cell of the pair was observed.
    pub observed: Option<Verdict>,
    /// The failing operations observed (`op` or `op (cell key)` for other configurations).
    pub observed_failing: Vec<String>,
    /// The operations observed (or, unobserved, predicted) to fail that are not the pair's
    /// fault: they fail with one release on both sides too (the server's own release against
    /// it, or the client against its own release's plain server), or an explanation calls
    /// them a server limit.
    pub not_interop: Vec<String>,
    /// The predicted verdict (default negotiation, a launched client).
    pub predicted: Verdict,
    /// The operations predicted to fail.
    pub predicted_failing: Vec<String>,
}

impl PairVerdict {
    /// The verdict shown: the observed one, else the predicted one.
    pub fn shown(&self) -> Verdict {
        self.observed.unwrap_or(self.predicted)
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

/// The verdict of the pair (`client`, `server`) from its rows (already filtered to the
/// cells that count) and its predictions. `baseline(row)`: the row's failure also happens
/// with one release on both sides. `predicted_baseline`: the operations predicted to fail
/// with one release on both sides.
pub fn pair_verdict(
    client: &str,
    server: &str,
    rows: &[&Row<'_>],
    baseline: &dyn Fn(&Row<'_>) -> bool,
    predictions: &[Prediction],
    predicted_baseline: &[String],
) -> PairVerdict {
    let mut failing = Vec::new();
    let mut limited = Vec::new();
    let mut default_fails = false;
    let mut other_fails = false;
    let mut seen = false;
    for r in rows {
        seen = true;
        let name = r.observed.op.as_str();
        if r.server_limited() || (!r.observed.ok() && baseline(r)) {
            if !limited.contains(&name) {
                limited.push(name);
            }
            continue;
        }
        if !r.pair_failure() {
            continue;
        }
        let default = r.cell.is_default();
        let label = if default {
            default_fails = true;
            name
        } else {
            other_fails = true;
            format!("{name} ({})", r.cell.key())
        };
        if !failing.contains(&label) {
            failing.push(label);
        }
    }
    let observed = seen.then_some(if default_fails {
        Verdict::Fails
    } else if other_fails {
        Verdict::Differs
    } else {
        Verdict::Works
    });
    let interop = |p: &&Prediction| !predicted_baseline.contains(&p.op.as_str());
    let predicted = predictions
        .iter()
        .filter(interop)
        .map(|p| p.verdict)
        .max()
        .unwrap_or(Verdict::Works);
    if observed.is_none() {
        limited = predicted_baseline.to_vec();
    }
    PairVerdict {
        client: client.to_string(),
        server: server.to_string(),
        observed,
        observed_failing: failing,
        not_interop: limited,
        predicted,
        predicted_failing: predictions
            .iter()
            .filter(interop)
            .filter(|p| p.verdict == Verdict::Fails)
            .map(|p| p.op.as_str())
            .collect(),
    }
}

/// The text of one matrix cell: `works`, `fails: op, op`, `differs: op (cell), ...`, or,
/// when nothing was observed, `predicted works` / `predicted fails: op, ...`.
pub fn cell_text(p: &PairVerdict) -> String {
    let prefix = if p.observed.is_some() {
        ""
    } else {
        "predicted "
    };
    let failing = p.shown_failing();
    if failing.is_empty() || p.shown() == Verdict::Works {
        format!("{prefix}{}", p.shown())
    } else {
        format!("{prefix}{}: {}", p.shown(), failing.join(", "))
    }
}

/// Parse a cell text back: (observed?, verdict, failing ops). None when it is not one.
pub fn parse_cell_text(s: &str) -> Option<(bool, Verdict, Vec<String>)> {
    let (observed, rest) = match s.strip_prefix("predicted ") {
        Some(r) => (false, r),
        None => (true, s),
    };
    let (v, ops) = match rest.split_once(": ") {
        Some((v, ops)) => (v, ops.split(", ").map(str::to_string).collect()),
        None => (rest, vec![]),
    };
    Some((observed, Verdict::parse(v)?, ops))
}
