//! The files `pmix-vectors live` publishes under `vectors/` (LIVE.md, its heat maps and the
//! web page) and their stale check: above [`crate::report`], [`crate::svg`] and
//! [`crate::html`], which each render one of them.

use crate::report::Live;
use std::path::Path;

/// The files `pmix-vectors live` writes under `vectors/`: `LIVE.md`, `LIVE.svg`,
/// `MATRIX.svg` and `LIVE.html` (names and texts).
pub fn files(live: &Live) -> Vec<(&'static str, String)> {
    let rows = live.rows();
    let pairs = live.pairs(&rows);
    vec![
        ("LIVE.md", crate::report::render(live)),
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
