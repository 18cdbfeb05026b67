//! Results-based verdicts for a scenario run: a run must actually run scenarios, may pin a
//! minimum number of passes, and may be judged against an expected-results file that lists
//! a server's known deviations (and unsupported scenarios), checked for staleness.
//!
//! The file is TOML:
//!
//! ```toml
//! server = "PRRTE 5.0.0rc1 on OpenPMIx 7.0.0rc1"
//! min_pass = 40                      # optional
//!
//! [[deviation]]                      # a scenario the server fails
//! id = "own-tool-cannot-spawn-foreign"
//! breaks = "Ownership model: 'A spawn may target a session only if ...'"
//! observed = "PMIX_SUCCESS: ownership between tools goes by uid"
//!
//! [[unsupported]]                    # optional; when present the list is exact
//! id = "compat-none-of-five"
//! reason = "the attributes are compiled in"
//! ```

use crate::report::{Outcome, Report};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// One known deviation: a scenario the server fails, the sentence it breaks, what it did.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deviation {
    /// The scenario id.
    pub id: String,
    /// The specification sentence the server breaks.
    pub breaks: String,
    /// What the server did instead.
    pub observed: String,
}

/// One scenario the server is known not to support.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KnownUnsupported {
    /// The scenario id.
    pub id: String,
    /// Why.
    pub reason: String,
}

/// An expected-results file.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedResults {
    /// The server the file describes.
    #[serde(default)]
    pub server: String,
    /// The least number of scenarios that must pass.
    #[serde(default)]
    pub min_pass: Option<usize>,
    /// Known deviations.
    #[serde(default)]
    pub deviation: Vec<Deviation>,
    /// Known unsupported scenarios (exact when non-empty).
    #[serde(default)]
    pub unsupported: Vec<KnownUnsupported>,
}

impl ExpectedResults {
    /// Read and check a file (no duplicate ids, every field filled).
    pub fn load(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Self::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Parse the TOML text.
    pub fn parse(text: &str) -> Result<Self, String> {
        let r: ExpectedResults = toml::from_str(text).map_err(|e| e.to_string())?;
        let mut seen = BTreeMap::new();
        for id in r
            .deviation
            .iter()
            .map(|d| &d.id)
            .chain(r.unsupported.iter().map(|u| &u.id))
        {
            if seen.insert(id.clone(), ()).is_some() {
                return Err(format!("scenario {id:?} is listed twice"));
            }
        }
        for d in &r.deviation {
            if d.breaks.trim().is_empty() || d.observed.trim().is_empty() {
                return Err(format!(
                    "deviation {:?} must say which sentence it breaks and what was observed",
                    d.id
                ));
            }
        }
        Ok(r)
    }
}

/// Judge a scenario report. Returns the reasons the run fails (empty: it passes).
///
/// * errors always fail the run;
/// * a run in which no scenario ran (passed or failed) fails: unsupported is not a pass;
/// * fewer than `min_pass` passes fail (the CLI value, else the file's);
/// * without `expected`, any failure fails; with it, every failure must be a listed
///   deviation and every listed deviation must still fail (a stale entry fails), and a
///   non-empty `unsupported` list must match the unsupported scenarios exactly.
pub fn verdict(
    report: &Report,
    min_pass: Option<usize>,
    expected: Option<&ExpectedResults>,
) -> Vec<String> {
    let mut why = Vec::new();
    let t = report.totals;
    if t.errors > 0 {
        why.push(format!("{} scenario(s) ended in an error", t.errors));
    }
    if t.passed + t.failed == 0 {
        why.push(format!(
            "no scenario ran ({} unsupported of {}): nothing was checked",
            t.unsupported, t.total
        ));
    }
    let min = min_pass.or(expected.and_then(|e| e.min_pass));
    if let Some(m) = min {
        if t.passed < m {
            why.push(format!(
                "{} scenario(s) passed, at least {m} must",
                t.passed
            ));
        }
    }
    let outcome = |id: &str| report.cases.iter().find(|c| c.id == id).map(|c| &c.outcome);
    match expected {
        None => {
            if t.failed > 0 {
                why.push(format!("{} scenario(s) failed", t.failed));
            }
        }
        Some(e) => {
            for c in &report.cases {
                if matches!(c.outcome, Outcome::Fail { .. })
                    && !e.deviation.iter().any(|d| d.id == c.id)
                {
                    why.push(format!("{}: fails but is not a listed deviation", c.id));
                }
            }
            for d in &e.deviation {
                match outcome(&d.id) {
                    Some(Outcome::Fail { .. }) => {}
                    Some(o) => why.push(format!(
                        "stale deviation {}: listed as failing, but it is {}",
                        d.id,
                        o.label()
                    )),
                    None => why.push(format!("stale deviation {}: no such scenario ran", d.id)),
                }
            }
            if !e.unsupported.is_empty() {
                for c in &report.cases {
                    if matches!(c.outcome, Outcome::Unsupported { .. })
                        && !e.unsupported.iter().any(|u| u.id == c.id)
                    {
                        why.push(format!("{}: unsupported but not listed as such", c.id));
                    }
                }
                for u in &e.unsupported {
                    match outcome(&u.id) {
                        Some(Outcome::Unsupported { .. }) => {}
                        Some(o) => why.push(format!(
                            "stale unsupported entry {}: it is {}",
                            u.id,
                            o.label()
                        )),
                        None => why.push(format!(
                            "stale unsupported entry {}: no such scenario ran",
                            u.id
                        )),
                    }
                }
            }
        }
    }
    why
}

/// Per named reading: how the scenarios that depend on it ended, as console lines
/// (`reading NAME: N scenarios, P passed, F failed, U unsupported, E errors`).
pub fn reading_lines(scenarios: &[super::Scenario], report: &Report) -> Vec<String> {
    let mut lines = Vec::new();
    for (name, _) in super::READINGS {
        let mut t = crate::report::Totals::default();
        for sc in scenarios
            .iter()
            .filter(|s| s.readings.iter().any(|r| r == name))
        {
            if let Some(c) = report.cases.iter().find(|c| c.id == sc.id) {
                t.total += 1;
                match c.outcome {
                    Outcome::Pass => t.passed += 1,
                    Outcome::Fail { .. } => t.failed += 1,
                    Outcome::Unsupported { .. } => t.unsupported += 1,
                    _ => t.errors += 1,
                }
            }
        }
        if t.total > 0 {
            lines.push(format!(
                "reading {name}: {} scenarios, {} passed, {} failed, {} unsupported, {} errors",
                t.total, t.passed, t.failed, t.unsupported, t.errors
            ));
        }
    }
    lines
}
