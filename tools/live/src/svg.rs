//! The heat maps: `vectors/LIVE.svg` (client release × server, from the same pairs as
//! `LIVE.md`) and `vectors/MATRIX.svg` (release pair × component, from the cells of
//! `MATRIX.md`), as plain SVG text. Each cell is a `<g class="cell">` carrying its row,
//! column and verdict as `data-` attributes and its full text as `<title>`, so a test can
//! read the pictures back and hold them to the Markdown.

use crate::compare::{cell_text, Outcome, PairVerdict};
use crate::predict::Verdict;
use pmix_codec::Component;
use pmix_oracle::matrix::Cell;
use std::collections::BTreeSet;

/// One cell of a heat map.
#[derive(Clone, Debug, PartialEq)]
pub struct SvgCell {
    /// Its row label.
    pub row: String,
    /// Its column label.
    pub col: String,
    /// Its verdict; None when the cell does not exist (a component one side lacks).
    pub verdict: Option<Outcome>,
    /// False when the verdict is a prediction (drawn pale, with a dashed border).
    pub observed: bool,
    /// The full text (the `<title>`, shown on hover).
    pub title: String,
    /// The few words drawn in the cell under the verdict (failing operations or types).
    pub lines: Vec<String>,
}

const CELL_W: usize = 150;
const CELL_H: usize = 66;
const LABEL_W: usize = 130;
const HEAD_H: usize = 60;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn colour(v: Option<Outcome>) -> &'static str {
    match v {
        Some(Outcome::Works) => "#43a047",
        Some(Outcome::Differs) => "#fbc02d",
        Some(Outcome::Fails) => "#e53935",
        Some(Outcome::Crash) => "#6a1b9a",
        Some(Outcome::NotRun) => "#9e9e9e",
        None => "#e0e0e0",
    }
}

/// A short form of an op or type name that fits a cell.
fn short(s: &str) -> String {
    let s = s.replace("put-commit-fence-get:", "put/get:");
    let s = match s.split_once(" (") {
        Some((head, _)) => format!("{head} (other cell)"),
        None => s,
    };
    if s.chars().count() > 24 {
        format!("{}…", s.chars().take(23).collect::<String>())
    } else {
        s
    }
}

/// Draw a grid of cells: `rows` × `cols`, with a title and a legend.
pub fn grid(
    title: &str,
    corner: &str,
    rows: &[String],
    cols: &[String],
    cells: &[SvgCell],
) -> String {
    let w = LABEL_W + CELL_W * cols.len() + 10;
    let h = HEAD_H + CELL_H * rows.len() + 60;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" font-size=\"11\">\n\
         <rect width=\"{w}\" height=\"{h}\" fill=\"#ffffff\"/>\n\
         <text x=\"8\" y=\"20\" font-size=\"15\" font-weight=\"bold\">{}</text>\n\
         <text x=\"8\" y=\"{}\" font-style=\"italic\">{}</text>\n",
        esc(title),
        HEAD_H - 8,
        esc(corner)
    );
    for (j, c) in cols.iter().enumerate() {
        s += &format!(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-weight=\"bold\">{}</text>\n",
            LABEL_W + CELL_W * j + CELL_W / 2,
            HEAD_H - 8,
            esc(c)
        );
    }
    for (i, r) in rows.iter().enumerate() {
        let y = HEAD_H + CELL_H * i;
        s += &format!(
            "<text x=\"8\" y=\"{}\" font-weight=\"bold\">{}</text>\n",
            y + CELL_H / 2 + 4,
            esc(r)
        );
        for (j, c) in cols.iter().enumerate() {
            let Some(cell) = cells.iter().find(|x| &x.row == r && &x.col == c) else {
                continue;
            };
            let x = LABEL_W + CELL_W * j;
            let verdict = cell.verdict.map_or("none", Outcome::as_str);
            s += &format!(
                "<g class=\"cell\" data-row=\"{}\" data-col=\"{}\" data-verdict=\"{verdict}\" data-observed=\"{}\">\n<title>{}</title>\n",
                esc(r),
                esc(c),
                if cell.observed { "yes" } else { "no" },
                esc(&cell.title)
            );
            let (opacity, dash) = if cell.observed || cell.verdict.is_none() {
                ("1", "")
            } else {
                ("0.45", " stroke-dasharray=\"4 3\"")
            };
            s += &format!(
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" fill-opacity=\"{opacity}\" stroke=\"#555555\"{dash}/>\n",
                x + 1,
                y + 1,
                CELL_W - 2,
                CELL_H - 2,
                colour(cell.verdict)
            );
            let head = match (cell.verdict, cell.observed) {
                (None, _) => "—".to_string(),
                (Some(v), true) => v.as_str().to_string(),
                (Some(v), false) => format!("predicted {v}"),
            };
            s += &format!(
                "<text x=\"{}\" y=\"{}\" font-weight=\"bold\">{}</text>\n",
                x + 6,
                y + 15,
                esc(&head)
            );
            let more = cell.lines.len().saturating_sub(3);
            for (k, l) in cell.lines.iter().take(3).enumerate() {
                s += &format!(
                    "<text x=\"{}\" y=\"{}\" font-size=\"10\">{}</text>\n",
                    x + 6,
                    y + 28 + 11 * k,
                    esc(&short(l))
                );
            }
            if more > 0 {
                s += &format!(
                    "<text x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"end\">+{more} more</text>\n",
                    x + CELL_W - 6,
                    y + 15
                );
            }
            s += "</g>\n";
        }
    }
    let ly = HEAD_H + CELL_H * rows.len() + 25;
    for (k, (v, label)) in [
        (Some(Outcome::Works), "works"),
        (Some(Outcome::Differs), "differs"),
        (Some(Outcome::Fails), "fails"),
        (Some(Outcome::Crash), "crash"),
        (Some(Outcome::NotRun), "not run"),
        (None, "no such cell"),
    ]
    .into_iter()
    .enumerate()
    {
        let x = 8 + 105 * k;
        s += &format!(
            "<rect x=\"{x}\" y=\"{}\" width=\"14\" height=\"14\" fill=\"{}\" stroke=\"#555555\"/><text x=\"{}\" y=\"{}\">{label}</text>\n",
            ly - 11,
            colour(v),
            x + 20,
            ly
        );
    }
    s += &format!(
        "<text x=\"8\" y=\"{}\" font-size=\"10\">Pale, dashed: predicted, not observed. Hover a cell for its full text.</text>\n</svg>\n",
        ly + 20
    );
    s
}

/// `vectors/LIVE.svg` from the pairs of `LIVE.md`.
pub fn live_svg(clients: &[String], servers: &[String], pairs: &[PairVerdict]) -> String {
    let cells: Vec<SvgCell> = pairs
        .iter()
        .map(|p| SvgCell {
            row: p.client.clone(),
            col: p.server.clone(),
            verdict: Some(p.shown()),
            observed: p.observed.is_some(),
            // the grid word first (as LIVE.md shows it), then the details
            title: std::iter::once(cell_text(p))
                .chain(crate::compare::pair_details(p))
                .collect::<Vec<_>>()
                .join("\n"),
            lines: p.shown_failing().to_vec(),
        })
        .collect();
    grid(
        "Live interop matrix (vectors/LIVE.md)",
        "client \\ server",
        clients,
        servers,
        &cells,
    )
}

/// The verdict and text of one byte-matrix cell: fails when one side cannot read the
/// other's bytes of some type (the types named), differs when only the bytes differ,
/// works otherwise.
pub fn matrix_cell_verdict(c: &Cell) -> (Verdict, Vec<String>) {
    let unread: BTreeSet<String> = c
        .b_cannot_read_a
        .union(&c.a_cannot_read_b)
        .cloned()
        .collect();
    if !unread.is_empty() {
        (Verdict::Fails, unread.into_iter().collect())
    } else if !c.pack_differs.is_empty() {
        (Verdict::Differs, c.pack_differs.iter().cloned().collect())
    } else {
        (Verdict::Works, vec![])
    }
}

/// The `<title>` of a byte-matrix cell: `works`, `differs: T, T` or `fails: T, T`.
pub fn matrix_cell_title(v: Verdict, types: &[String]) -> String {
    if types.is_empty() {
        v.as_str().to_string()
    } else {
        format!("{v}: {}", types.join(", "))
    }
}

/// `vectors/MATRIX.svg` from the cells of `MATRIX.md`.
pub fn matrix_svg(cells: &[Cell]) -> String {
    let mut rows: Vec<String> = Vec::new();
    for c in cells {
        let r = c.pair_heading();
        if !rows.contains(&r) {
            rows.push(r);
        }
    }
    let cols: Vec<String> = Component::ALL
        .iter()
        .map(|c| c.name().to_string())
        .collect();
    let mut out = Vec::new();
    for r in &rows {
        for comp in Component::ALL {
            let cell = cells
                .iter()
                .find(|c| &c.pair_heading() == r && c.component == comp);
            out.push(match cell {
                Some(c) => {
                    let (v, types) = matrix_cell_verdict(c);
                    SvgCell {
                        row: r.clone(),
                        col: comp.name().into(),
                        verdict: Some(Outcome::from_verdict(v)),
                        observed: true,
                        title: matrix_cell_title(v, &types),
                        lines: types,
                    }
                }
                None => SvgCell {
                    row: r.clone(),
                    col: comp.name().into(),
                    verdict: None,
                    observed: true,
                    title: "no such cell: one release does not register this component".into(),
                    lines: vec![],
                },
            });
        }
    }
    grid(
        "Cross-release byte matrix (vectors/MATRIX.md)",
        "release pair \\ component",
        &rows,
        &cols,
        &out,
    )
}
