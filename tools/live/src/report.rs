//! `vectors/LIVE.md`: the live matrix (client release × server), the agreement between
//! predictions and observations, and every disagreement with its explanation. Built from
//! `vectors/live/MATRIX.json`, `vectors/live/observations.json` (when checked in) and
//! `vectors/live/explanations.json` by `pmix-vectors live`.

/// The cell texts live in [`crate::compare`] (the SVGs write them too); re-exported here,
/// where `vectors/LIVE.md` is written.
pub use crate::compare::{cell_text, parse_cell_text};
use crate::compare::{
    compare, pair_verdict, unexplained, Explanation, ExplanationKind, Explanations, PairVerdict,
    Row,
};
use crate::observations::{LiveCell, Observations};
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
/// True when two cells ran in the same configuration (client or tool, component, forced or
/// negotiated, buffer kind): a failure with one release on both sides excuses a pair's
/// failure only in the same configuration (a 7.0.0rc1 client cannot send type 75 in v41,
/// to its own release too, but a pair that negotiates v41 still fails the allocation).
fn same_configuration(a: &LiveCell, b: &LiveCell) -> bool {
    a.client_kind == b.client_kind
        && a.component == b.component
        && a.component_forced == b.component_forced
        && a.buffer == b.buffer
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

    /// The verdict of one pair over the rows `keep` accepts (`pmix-wire compat` narrows
    /// them by buffer, gds and psec).
    pub fn pair(
        &self,
        rows: &[Row<'_>],
        client: &str,
        server: &str,
        keep: &dyn Fn(&Row<'_>) -> bool,
    ) -> PairVerdict {
        let mine: Vec<&Row<'_>> = rows
            .iter()
            .filter(|r| r.cell.client_release == client && r.cell.server == server && keep(r))
            .collect();
        let release =
            server_release(server, self.observations.as_ref()).unwrap_or_else(|| "native".into());
        let predictor = Predictor::new(&self.matrix);
        let kind = BufferKind::NonDescribed;
        let predictions = predictor.predict(client, &release, false, None, kind);
        // One release on both sides: the server's own, and the client's own.
        let own_plain = format!("plain-{client}");
        let baseline = |r: &Row<'_>| {
            rows.iter().any(|b| {
                b.observed.op == r.observed.op
                    && !b.observed.ok()
                    && keep(b)
                    && same_configuration(b.cell, r.cell)
                    && ((b.cell.server == server && b.cell.client_release == release)
                        || (b.cell.server == own_plain && b.cell.client_release == client))
            })
        };
        let mut predicted_baseline: Vec<String> = Vec::new();
        for side in [client, release.as_str()] {
            for p in predictor.predict(side, side, false, None, kind) {
                if p.verdict == Verdict::Fails && !predicted_baseline.contains(&p.op.as_str()) {
                    predicted_baseline.push(p.op.as_str());
                }
            }
        }
        pair_verdict(
            client,
            server,
            &mine,
            &baseline,
            &predictions,
            &predicted_baseline,
        )
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

/// The whole of `vectors/LIVE.md`.
pub fn render(live: &Live) -> String {
    let rows = live.rows();
    let mut s = String::from(
        "# Live interop matrix\n\n\
         Generated by `pmix-vectors live` (checked by `pmix-vectors live --check` and by\n\
         `tools/live/tests/live_report.rs`); do not edit. Inputs: `live/MATRIX.json` (the byte matrix, the\n\
         same cells as `MATRIX.md`), `live/observations.json` (real clients against real servers,\n\
         written by `bash tools/live-matrix.sh --json OUT`) and `live/explanations.json` (why each\n\
         disagreement happens). The pictures: `LIVE.svg` (this matrix) and `MATRIX.svg` (the byte\n\
         matrix). `pmix-wire compat CLIENT SERVER` answers for one pair from the same data.\n\n",
    );
    match &live.observations {
        Some(o) => {
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
        None => {
            s += "**No observations are checked in yet** (`vectors/live/observations.json` is missing):\n\
                  every cell below is a prediction, marked `predicted`.\n\n";
        }
    }
    s += "## The matrix\n\n\
          Client release (rows) against server (columns). A cell is the observed verdict when the\n\
          pair was run, else the prediction (`predicted ...`). `fails`: an operation failed in a\n\
          default cell (a launched client, the negotiated component, buffer and gds); `differs`: the default\n\
          cells work but a cell in another configuration (a tool, a forced component, another\n\
          buffer, gds or psec) fails, named with its cell; `works`: nothing failed but what\n\
          also fails with one release on both sides (the server's own release against it, or\n\
          the client against its own release's plain server: not an interop failure; listed\n\
          under the matrix). Predictions come from the byte matrix and the codec's release\n\
          profiles (`tools/live/src/predict.rs`).\n\n";
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
    s += "\nObserved failures that are not interop failures (they fail with one release on both\n\
          sides too); predictions leave out the same way what the profiles cannot send even to\n\
          their own release:\n\n";
    for p in &pairs {
        if p.observed.is_some() && !p.not_interop.is_empty() {
            s += &format!(
                "- {} × {}: {}\n",
                p.client,
                p.server,
                p.not_interop.join(", ")
            );
        }
    }
    s += "\n";
    let agree = rows.iter().filter(|r| r.agrees()).count();
    s += &format!(
        "## Agreement\n\n{} operations observed in {} cells; predicted and observed agree on {agree}, disagree on {}.\n\n",
        rows.len(),
        live.observations.as_ref().map_or(0, |o| o.cells.len()),
        rows.len() - agree
    );
    s += "| predicted \\ observed | works | fails |\n|---|---:|---:|\n";
    for v in [Verdict::Works, Verdict::Differs, Verdict::Fails] {
        let n = |ok: bool| {
            rows.iter()
                .filter(|r| r.prediction.verdict == v && r.observed.ok() == ok)
                .count()
        };
        s += &format!("| {v} | {} | {} |\n", n(true), n(false));
    }
    s += "\n## Disagreements\n\n";
    let dis: Vec<&Row<'_>> = rows.iter().filter(|r| !r.agrees()).collect();
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
    let notes: Vec<_> = live
        .observations
        .iter()
        .flat_map(|o| &o.cells)
        .filter_map(|c| c.note.as_ref().map(|n| (c.key(), n)))
        .collect();
    if !notes.is_empty() {
        s += "\n## Cells with a note\n\n| cell | note |\n|---|---|\n";
        for (k, n) in notes {
            s += &format!("| {} | {} |\n", md_escape(&k), md_escape(n));
        }
    }
    s
}

/// The files `pmix-vectors live` writes under `vectors/`: `LIVE.md`, `LIVE.svg` and
/// `MATRIX.svg` (names and texts).
pub fn files(live: &Live) -> Vec<(&'static str, String)> {
    let rows = live.rows();
    let pairs = live.pairs(&rows);
    vec![
        ("LIVE.md", render(live)),
        (
            "LIVE.svg",
            crate::svg::live_svg(&live.clients(), &live.servers(), &pairs),
        ),
        ("MATRIX.svg", crate::svg::matrix_svg(&live.matrix)),
        ("LIVE.html", crate::html::render(live)),
    ]
}

/// Compare the generated files with those in `vectors` and check that every disagreement
/// is explained: Err with the differences and problems when anything is off.
pub fn check(vectors: &Path) -> Result<(), String> {
    let live = Live::load(vectors)?;
    let mut out = live.problems();
    for (name, text) in files(&live) {
        let have = std::fs::read_to_string(vectors.join(name)).unwrap_or_default();
        if have != text {
            out.push(format!(
                "vectors/{name} is stale; regenerate with `pmix-vectors live`\n{}",
                pmix_oracle::diff::line_diff(name, &have, &text)
            ));
        }
    }
    if out.is_empty() {
        Ok(())
    } else {
        Err(out.join("\n"))
    }
}
