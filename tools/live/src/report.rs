//! `vectors/LIVE.md`: the live matrix (client release × server), the agreement between
//! predictions and observations, and every disagreement with its explanation. Built from
//! `vectors/live/MATRIX.json`, `vectors/live/observations.json` (when checked in) and
//! `vectors/live/explanations.json` by `pmix-vectors live`.

/// The cell texts live in [`crate::compare`] (the SVGs write them too); re-exported here,
/// where `vectors/LIVE.md` is written.
pub use crate::compare::{cell_text, pair_details, parse_cell_text};
use crate::compare::{
    compare, pair_verdict, unexplained, CellJudgement, Explanation, ExplanationKind, Explanations,
    Outcome, PairVerdict, Row,
};
use crate::observations::{Ending, LiveCell, Observations};
use crate::predict::{Predictor, Verdict};
use pmix_codec::BufferKind;
use pmix_oracle::matrix::{self, Cell};
use std::collections::BTreeMap;
use std::path::Path;

/// The client sides of the matrix, in row order.
pub const CLIENTS: [&str; 6] = ["4.2.2", "5.0.7", "6.0.0", "6.1.0", "7.0.0rc1", "pmix-peer"];

/// The servers of the matrix, in column order, each with the libpmix release it links
/// (`native`: pmix-server, no libpmix).
pub const SERVERS: [(&str, &str); 9] = [
    ("plain-4.2.2", "4.2.2"),
    ("plain-5.0.7", "5.0.7"),
    ("plain-6.0.0", "6.0.0"),
    ("plain-6.1.0", "6.1.0"),
    ("plain-7.0.0rc1", "7.0.0rc1"),
    ("prrte-5.0.0rc1", "7.0.0rc1"),
    ("slurm-22.05.8", "4.2.2"),
    ("slurm-24.11.5", "5.0.7"),
    ("pmix-server", "native"),
];

/// The libpmix release a server links: from the table of known servers, else from the
/// observations.
pub fn server_release(server: &str, obs: Option<&Observations>) -> Option<String> {
    SERVERS
        .iter()
        .find(|(s, _)| *s == server)
        .map(|(_, r)| r.to_string())
        .or_else(|| {
            obs?.cells
                .iter()
                .find(|c| c.server == server)
                .map(|c| c.server_release.clone())
        })
}

/// Everything the live report is made of.
pub struct Live {
    /// The byte matrix's cells.
    pub matrix: Vec<Cell>,
    /// The observations, when checked in.
    pub observations: Option<Observations>,
    /// The explanations table.
    pub explanations: Explanations,
}

/// The files under `vectors/` the report reads.
pub const MATRIX_JSON: &str = "live/MATRIX.json";
/// The observations file (under `vectors/`).
pub const OBSERVATIONS: &str = "live/observations.json";
/// True when two cells ran in the same configuration: client or tool, component, forced or
/// negotiated, buffer kind, gds and psec modules, and the variant with its setting. A
/// failure with one release on both sides excuses a pair's failure only in the same
/// configuration (a 7.0.0rc1 client cannot send type 75 in v41, to its own release too, but
/// a pair that negotiates v41 still fails the allocation), never by the operation's name.
pub fn same_configuration(a: &LiveCell, b: &LiveCell) -> bool {
    a.client_kind == b.client_kind
        && a.component == b.component
        && a.component_forced == b.component_forced
        && a.buffer == b.buffer
        && a.gds == b.gds
        && a.psec == b.psec
        && a.variant == b.variant
        && a.setting == b.setting
}

/// The explanations table (under `vectors/`).
pub const EXPLANATIONS: &str = "live/explanations.json";

impl Live {
    /// Read the inputs from a vectors directory (the observations may be missing: then
    /// only predictions are shown, and the report says so).
    pub fn load(vectors: &Path) -> Result<Live, String> {
        let mp = vectors.join(MATRIX_JSON);
        let text = std::fs::read_to_string(&mp).map_err(|e| format!("{}: {e}", mp.display()))?;
        let op = vectors.join(OBSERVATIONS);
        let observations = if op.exists() {
            Some(Observations::load(&op)?)
        } else {
            None
        };
        let ep = vectors.join(EXPLANATIONS);
        let explanations = if ep.exists() {
            Explanations::load(&ep)?
        } else {
            Explanations::default()
        };
        Ok(Live {
            matrix: matrix::from_json(&text)?,
            observations,
            explanations,
        })
    }

    /// The observed operations with their predictions (none without observations).
    pub fn rows(&self) -> Vec<Row<'_>> {
        match &self.observations {
            Some(o) => compare(o, &Predictor::new(&self.matrix), &self.explanations),
            None => Vec::new(),
        }
    }

    /// The servers shown: the known ones, then any other the observations name.
    pub fn servers(&self) -> Vec<String> {
        let mut out: Vec<String> = SERVERS.iter().map(|(s, _)| s.to_string()).collect();
        if let Some(o) = &self.observations {
            for c in &o.cells {
                if !out.contains(&c.server) {
                    out.push(c.server.clone());
                }
            }
        }
        out
    }

    /// The clients shown: the known ones, then any other the observations name.
    pub fn clients(&self) -> Vec<String> {
        let mut out: Vec<String> = CLIENTS.iter().map(|s| s.to_string()).collect();
        if let Some(o) = &self.observations {
            for c in &o.cells {
                if !out.contains(&c.client_release) {
                    out.push(c.client_release.clone());
                }
            }
        }
        out
    }

    /// The reference cells of `cell`: cells with one release on both sides (the client's
    /// release against its own plain server, and the server's release against its own
    /// plain server) in the same configuration ([`same_configuration`]), not planted, run.
    pub fn references(&self, cell: &LiveCell) -> Vec<&LiveCell> {
        let Some(o) = &self.observations else {
            return Vec::new();
        };
        let release = server_release(&cell.server, Some(o)).unwrap_or_else(|| "native".into());
        o.cells
            .iter()
            .filter(|b| {
                b.plant.is_none()
                    && b.not_run.is_none()
                    && same_configuration(b, cell)
                    && [cell.client_release.as_str(), release.as_str()]
                        .iter()
                        .any(|r| b.client_release == *r && b.server == format!("plain-{r}"))
            })
            .collect()
    }

    /// The judgement of one cell (`rows`: every row, the cell's are picked out): a crash
    /// (a process ended by a signal), failing operations and an early stop fail it unless
    /// the same failure (same operation and status, or the same stop) happens in a
    /// reference cell ([`Live::references`]); server limits are counted apart.
    pub fn judge(&self, rows: &[Row<'_>], cell: &LiveCell) -> CellJudgement {
        let mut j = CellJudgement {
            outcome: Outcome::Works,
            failing: Vec::new(),
            not_interop: Vec::new(),
            host_limited: Vec::new(),
            ok_ops: cell.ops.iter().filter(|o| o.ok()).count(),
            not_run: cell.not_run.clone(),
        };
        if j.not_run.is_some() {
            j.outcome = Outcome::NotRun;
            return j;
        }
        let refs = self.references(cell);
        let add = |v: &mut Vec<String>, s: String| {
            if !v.contains(&s) {
                v.push(s);
            }
        };
        for r in rows.iter().filter(|r| std::ptr::eq(r.cell, cell)) {
            if r.observed.ok() {
                continue;
            }
            let name = r.observed.op.as_str();
            if r.host_limited() {
                add(&mut j.host_limited, name);
            } else if r.server_limited()
                || refs.iter().any(|b| {
                    b.ops
                        .iter()
                        .any(|o| o.op == r.observed.op && o.status == r.observed.status)
                })
            {
                add(&mut j.not_interop, name);
            } else {
                add(&mut j.failing, name);
            }
        }
        // a client that exits (with a code) right after a reported failure stops because of
        // it: that failure already counts, in its own bucket
        let after_failure = cell.last_reached().is_some_and(|o| !o.ok())
            && matches!(cell.main_ending(), Some(Ending::Exited { .. }));
        if let Some(stop) = cell
            .stopped()
            .filter(|_| !after_failure && cell.crash().is_none())
        {
            if refs
                .iter()
                .any(|b| b.stopped().as_deref() == Some(stop.as_str()))
            {
                add(&mut j.not_interop, stop);
            } else {
                add(&mut j.failing, stop);
            }
        }
        if let Some(crash) = cell.crash_text() {
            j.failing.insert(0, format!("crash: {crash}"));
            j.outcome = Outcome::Crash;
        } else if !j.failing.is_empty() {
            j.outcome = Outcome::Fails;
        }
        j
    }

    /// Every observed cell with its judgement (planted cells included).
    pub fn judge_all<'a>(&'a self, rows: &[Row<'_>]) -> Vec<(&'a LiveCell, CellJudgement)> {
        self.observations
            .iter()
            .flat_map(|o| &o.cells)
            .map(|c| (c, self.judge(rows, c)))
            .collect()
    }

    /// The verdict of one pair over the cells `keep` accepts (`pmix-wire compat` narrows
    /// them by buffer, gds and psec); planted cells never count.
    pub fn pair(
        &self,
        rows: &[Row<'_>],
        client: &str,
        server: &str,
        keep: &dyn Fn(&LiveCell) -> bool,
    ) -> PairVerdict {
        let cells: Vec<(&LiveCell, CellJudgement)> = self
            .observations
            .iter()
            .flat_map(|o| &o.cells)
            .filter(|c| {
                c.client_release == client && c.server == server && c.plant.is_none() && keep(c)
            })
            .map(|c| (c, self.judge(rows, c)))
            .collect();
        let release =
            server_release(server, self.observations.as_ref()).unwrap_or_else(|| "native".into());
        let predictor = Predictor::new(&self.matrix);
        let kind = BufferKind::NonDescribed;
        let predictions = predictor.predict(client, &release, false, None, kind);
        let mut predicted_baseline: Vec<String> = Vec::new();
        for side in [client, release.as_str()] {
            for p in predictor.predict(side, side, false, None, kind) {
                if p.verdict == Verdict::Fails && !predicted_baseline.contains(&p.op.as_str()) {
                    predicted_baseline.push(p.op.as_str());
                }
            }
        }
        pair_verdict(client, server, &cells, &predictions, &predicted_baseline)
    }

    /// Every pair of the matrix, row by row.
    pub fn pairs(&self, rows: &[Row<'_>]) -> Vec<PairVerdict> {
        let servers = self.servers();
        let mut out = Vec::new();
        for c in self.clients() {
            for s in &servers {
                out.push(self.pair(rows, &c, s, &|_| true));
            }
        }
        out
    }

    /// Problems that make the stale check fail: unexplained disagreements, and
    /// explanations that cover nothing.
    pub fn problems(&self) -> Vec<String> {
        let rows = self.rows();
        let (missing, unused) = unexplained(&rows, &self.explanations);
        let mut out: Vec<String> = missing
            .into_iter()
            .map(|m| format!("unexplained disagreement: {m}"))
            .collect();
        if self.observations.is_some() {
            out.extend(unused.into_iter().map(|e| {
                format!(
                    "explanation covers no disagreement: {} ({})",
                    e.pattern(),
                    e.why
                )
            }));
        }
        out
    }
}

fn md_escape(s: &str) -> String {
    s.replace('|', "\\|")
}

/// The matrix table of a `vectors/LIVE.md` text, as [`render`] writes it: (client, server)
/// -> cell text (unescaped; read it with [`parse_cell_text`]). `None` without the table.
pub fn matrix_cells(md: &str) -> Option<BTreeMap<(String, String), String>> {
    let mut lines = md
        .lines()
        .skip_while(|l| !l.starts_with("| client \\ server |"));
    let head: Vec<String> = lines
        .next()?
        .split(" | ")
        .skip(1)
        .map(|s| s.trim_end_matches(" |").to_string())
        .collect();
    lines.next();
    let mut out = BTreeMap::new();
    for l in lines.take_while(|l| l.starts_with('|')) {
        let cols: Vec<&str> = l.trim_matches('|').split(" | ").map(str::trim).collect();
        for (server, text) in head.iter().zip(&cols[1..]) {
            out.insert(
                (cols[0].to_string(), server.clone()),
                text.replace("\\|", "|"),
            );
        }
    }
    Some(out)
}

/// Which group of causes an explanation kind belongs to in LIVE.md: `byte` (the bytes
/// were predicted wrong), `runtime` (an effect the bytes cannot show, traced or open),
/// `deployment`, `host limitation`.
pub fn cause_group(k: ExplanationKind) -> &'static str {
    match k {
        ExplanationKind::Prediction => "byte",
        ExplanationKind::Runtime | ExplanationKind::Open => "runtime",
        ExplanationKind::Deployment => "deployment",
        ExplanationKind::ServerLimit => "host limitation",
    }
}

/// The whole of `vectors/LIVE.md`: the grid first (its first 40 lines hold the answer),
/// then each pair's details, the agreement of predictions and observations (byte causes,
/// runtime causes and host limitations apart), every disagreement with its cause, and the
/// cells with a note.
pub fn render(live: &Live) -> String {
    let rows = live.rows();
    let mut s = String::from(
        "# Live interop matrix\n\n\
         Will a client of this libpmix release (row) work with this server (column)? From real\n\
         processes (`live/observations.json`); `~` marks a prediction (the pair was not run).\n\
         `works`; `differs`: works in the default setup, fails or crashes in another (a tool, a\n\
         forced component, another buffer, gds or psec); `fails`: an operation failed or the client\n\
         stopped short in the default setup; `crash`: a process of the default setup died by a\n\
         signal; `not run`: the harness could not run it. Operations the host does not implement\n\
         (host limitations) and failures that happen the same way with one release on both sides\n\
         are not counted. Details below the grid; `pmix-wire compat CLIENT SERVER` for one pair.\n\n",
    );
    if live.observations.is_none() {
        s += "**No observations are checked in yet**: every cell is a prediction.\n\n";
    }
    let servers = live.servers();
    s += &format!("| client \\ server | {} |\n", servers.join(" | "));
    s += &format!("|---|{}\n", "---|".repeat(servers.len()));
    let pairs = live.pairs(&rows);
    for c in live.clients() {
        s += &format!("| {c} |");
        for p in pairs.iter().filter(|p| p.client == c) {
            s += &format!(" {} |", md_escape(&cell_text(p)));
        }
        s += "\n";
    }
    s += "\nGenerated by `pmix-vectors live` (checked by `pmix-vectors live --check` and by\n\
          `tools/live/tests/live_report.rs`); do not edit. Inputs: `live/MATRIX.json` (the byte matrix, the\n\
          same cells as `MATRIX.md`), `live/observations.json` (written by `bash tools/live-matrix.sh`)\n\
          and `live/explanations.json` (why each disagreement happens). Pictures: `LIVE.svg` (this\n\
          grid) and `MATRIX.svg` (the byte matrix). Predictions come from the byte matrix and the\n\
          codec's release profiles (`tools/live/src/predict.rs`).\n\n";
    if let Some(o) = &live.observations {
        s += &format!(
            "Observed on {} ({}) by `{}`.\n\n| release | from |\n|---|---|\n",
            md_escape(&o.provenance.date),
            md_escape(&o.provenance.host),
            md_escape(&o.provenance.command)
        );
        for (r, from) in &o.provenance.releases {
            s += &format!("| {} | {} |\n", md_escape(r), md_escape(from));
        }
        s += "\n";
    }
    s += "## The pairs\n\nWhat each grid cell stands for: the failures that count, per setup (a cell key is\n\
          `client release, kind -> server, component, buffer, gds, psec`), then what is not counted.\n\n";
    for p in &pairs {
        let details = pair_details(p);
        if details.is_empty() {
            continue;
        }
        s += &format!("- **{} × {}**: {}\n", p.client, p.server, cell_text(p));
        for d in details {
            s += &format!("  - {}\n", md_escape(&d));
        }
    }
    s += "\n";
    let judged = live.judge_all(&rows);
    let planted: Vec<_> = judged.iter().filter(|(c, _)| c.plant.is_some()).collect();
    if !planted.is_empty() {
        s += "## Planted cells\n\nCells with a fault planted on purpose (`live-matrix.sh --plant`), to show that the\n\
              scoring fails them; never part of the grid.\n\n| cell | plant | outcome | what failed |\n|---|---|---|---|\n";
        for (c, j) in planted {
            s += &format!(
                "| {} | {} | {} | {} |\n",
                md_escape(&c.key()),
                md_escape(c.plant.as_deref().unwrap_or("")),
                j.outcome,
                md_escape(&j.failing.join("; "))
            );
        }
        s += "\n";
    }
    let agree = rows.iter().filter(|r| r.agrees()).count();
    let host = rows.iter().filter(|r| r.host_limited()).count();
    s += &format!(
        "## Agreement\n\n{} operations observed in {} cells; predicted and observed agree on {agree}, disagree on {}.\n\
         Host limitations (operations the host does not implement, `server-limit` explanations: {host}) have\n\
         their own column, not counted among the interop failures.\n\n",
        rows.len(),
        live.observations.as_ref().map_or(0, |o| o.cells.len()),
        rows.len() - agree
    );
    s += "| predicted \\ observed | works | fails | host limitation |\n|---|---:|---:|---:|\n";
    for v in [Verdict::Works, Verdict::Differs, Verdict::Fails] {
        let n = |f: &dyn Fn(&Row<'_>) -> bool| {
            rows.iter()
                .filter(|r| r.prediction.verdict == v && f(r))
                .count()
        };
        s += &format!(
            "| {v} | {} | {} | {} |\n",
            n(&|r| r.observed.ok()),
            n(&|r| !r.observed.ok() && !r.host_limited()),
            n(&|r| r.host_limited())
        );
    }
    let dis: Vec<&Row<'_>> = rows.iter().filter(|r| !r.agrees()).collect();
    s += "\nDisagreements by the kind of their cause: `byte` (the bytes were predicted wrong),\n\
          `runtime` (an effect the bytes cannot show: traced, or still open), `deployment` (how this\n\
          machine runs the cell), `host limitation` (apart: not an interop failure).\n\n\
          | cause | predicted works, observed fails | predicted fails, observed works | causes |\n|---|---:|---:|---:|\n";
    for g in [
        "byte",
        "runtime",
        "deployment",
        "host limitation",
        "unexplained",
    ] {
        let mine: Vec<&&Row<'_>> = dis
            .iter()
            .filter(|r| r.explanation.map_or("unexplained", |e| cause_group(e.kind)) == g)
            .collect();
        let mut causes: Vec<*const Explanation> = Vec::new();
        for r in &mine {
            if let Some(e) = r.explanation {
                let p: *const Explanation = e;
                if !causes.contains(&p) {
                    causes.push(p);
                }
            }
        }
        s += &format!(
            "| {g} | {} | {} | {} |\n",
            mine.iter().filter(|r| !r.observed.ok()).count(),
            mine.iter().filter(|r| r.observed.ok()).count(),
            causes.len()
        );
    }
    s += "\n## Disagreements\n\n";
    if dis.is_empty() {
        s += "None.\n";
    } else {
        // the causes (one explanation each), numbered in table order
        let causes: Vec<&Explanation> = live
            .explanations
            .explanations
            .iter()
            .filter(|e| {
                dis.iter()
                    .any(|r| r.explanation.is_some_and(|x| std::ptr::eq(x, *e)))
            })
            .collect();
        let number = |r: &Row<'_>| {
            r.explanation.and_then(|e| {
                causes
                    .iter()
                    .position(|c| std::ptr::eq(*c, e))
                    .map(|i| i + 1)
            })
        };
        let unexplained = dis.iter().filter(|r| number(r).is_none()).count();
        let open = dis
            .iter()
            .filter(|r| {
                r.explanation
                    .is_some_and(|e| e.kind == ExplanationKind::Open)
            })
            .count();
        s += &format!(
            "{} disagreements, {} causes{}{}. A cause is a `prediction` bug (to fix), a \
             `server-limit` (the server refuses the operation for its own release's client \
             too), a `runtime` effect the bytes cannot show (a finding) or a `deployment` \
             effect of how this machine runs the cell (not counted against the pair, as a \
             server limit is not); each names its evidence. An `open` group is observed but \
             NOT yet traced to a cause: it is listed so that it is not hidden, and is not \
             counted as explained. The cells it covers: client release, kind and server, the \
             negotiated component, buffer and gds as the wire tap saw them, the operation \
             and the status observed (`live/explanations.json`).\n\n",
            dis.len(),
            causes
                .iter()
                .filter(|c| c.kind != ExplanationKind::Open)
                .count(),
            if open > 0 {
                format!(", **{open} open (not yet traced to a cause)**")
            } else {
                String::new()
            },
            if unexplained > 0 {
                format!(", **{unexplained} unexplained**")
            } else {
                String::new()
            }
        );
        s += "| # | kind | cells | operations | why | evidence |\n|---:|---|---|---:|---|---|\n";
        for (i, c) in causes.iter().enumerate() {
            let n = dis
                .iter()
                .filter(|r| r.explanation.is_some_and(|x| std::ptr::eq(x, *c)))
                .count();
            s += &format!(
                "| {} | {} | {} | {n} | {} | {} |\n",
                i + 1,
                c.kind.as_str(),
                md_escape(&c.pattern()),
                md_escape(&c.why),
                md_escape(&c.evidence)
            );
        }
        s += "\nEvery disagreement, with its cause (`predicted` is the verdict the bytes give \
              and why; `observed` the status and what the client saw):\n\n";
        s += "| cell | operation | predicted | observed | cause |\n|---|---|---|---|---:|\n";
        for r in dis {
            let cause = match number(r) {
                Some(n) => n.to_string(),
                None => "**unexplained**".to_string(),
            };
            s += &format!(
                "| {} | {} | {}: {} | {} {}: {} | {cause} |\n",
                md_escape(&r.cell.key()),
                r.observed.op,
                r.prediction.verdict,
                md_escape(&r.prediction.evidence.join("; ")),
                r.observed.status,
                r.observed.status_name,
                md_escape(&r.observed.observed),
            );
        }
    }
    let notes: Vec<&LiveCell> = live
        .observations
        .iter()
        .flat_map(|o| &o.cells)
        .filter(|c| c.note.is_some() || c.not_run.is_some() || c.crash().is_some())
        .collect();
    if !notes.is_empty() {
        s += "\n## Cells with a note\n\nHow each process ended (`rank0=exited with 1`; a signal by name) and what the\n\
              harness noted.\n\n| cell | ended | note |\n|---|---|---|\n";
        for c in notes {
            let ended = match &c.not_run {
                Some(why) => format!("not run: {why}"),
                None => c
                    .processes
                    .iter()
                    .map(|p| format!("{}={}", p.who, p.ended.describe()))
                    .collect::<Vec<_>>()
                    .join(", "),
            };
            s += &format!(
                "| {} | {} | {} |\n",
                md_escape(&c.key()),
                md_escape(&ended),
                md_escape(c.note.as_deref().unwrap_or(""))
            );
        }
    }
    s
}
