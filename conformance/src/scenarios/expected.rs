//! Results-based verdicts for a scenario run: a run must actually run scenarios, may pin a
//! minimum number of passes, and may be judged against an expected-results file that gives
//! a server's outcome for every scenario, checked for staleness.
//!
//! The file is TOML, one `[[scenario]]` per scenario:
//!
//! ```toml
//! server = "PRRTE 5.0.0rc1 on OpenPMIx 7.0.0rc1"
//! min_pass = 40                      # optional
//!
//! [[scenario]]
//! id = "own-tool-cannot-spawn-foreign"
//! outcome = "deviation"              # pass | deviation | reading-dependent | inconclusive | unsupported
//! subject = "step 5: a tool outside the owner set spawns onto the reservation"
//! reading = "shared-allocation-id"   # the expectation's reading, if any
//! breaks = "Ownership model: 'A spawn may target a session only if ...'"   # deviations
//! observed = "PMIX_SUCCESS: ownership between tools goes by uid"
//! function = "prte_session_is_owned_by (in our words: ...)"               # optional
//! ```

use crate::report::{Outcome, Report};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// The outcome kinds an expected-results file names.
pub const OUTCOMES: &[&str] = &[
    "pass",
    "deviation",
    "reading-dependent",
    "inconclusive",
    "unsupported",
];

/// The expected-results word for an outcome.
pub fn outcome_word(o: &Outcome) -> &'static str {
    match o {
        Outcome::Pass => "pass",
        Outcome::Fail { .. } => "deviation",
        Outcome::ReadingDependent { .. } => "reading-dependent",
        Outcome::Inconclusive { .. } => "inconclusive",
        Outcome::Unsupported { .. } => "unsupported",
        Outcome::Error { .. } => "error",
        Outcome::ExpectedFailure { .. } => "expected-failure",
    }
}

/// One scenario's expected result on a server.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedScenario {
    /// The scenario id.
    pub id: String,
    /// One of [`OUTCOMES`].
    pub outcome: String,
    /// The scenario's subject: the step(s) carrying its requirement, in words.
    pub subject: String,
    /// The reading the deciding expectation takes, if any.
    #[serde(default)]
    pub reading: Option<String>,
    /// For a deviation: the specification sentence the server breaks.
    #[serde(default)]
    pub breaks: Option<String>,
    /// What the server did (for a pass, what held).
    pub observed: String,
    /// The server's function responsible for a deviation, where it can be named from its
    /// source, with what it does (in our words).
    #[serde(default)]
    pub function: Option<String>,
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
    /// Every scenario's expected result.
    #[serde(default)]
    pub scenario: Vec<ExpectedScenario>,
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
        for e in &r.scenario {
            if seen.insert(e.id.clone(), ()).is_some() {
                return Err(format!("scenario {:?} is listed twice", e.id));
            }
            if !OUTCOMES.contains(&e.outcome.as_str()) {
                return Err(format!(
                    "scenario {:?}: outcome {:?} is not one of {}",
                    e.id,
                    e.outcome,
                    OUTCOMES.join(", ")
                ));
            }
            if e.subject.trim().is_empty() || e.observed.trim().is_empty() {
                return Err(format!(
                    "scenario {:?} must name its subject and what was observed",
                    e.id
                ));
            }
            if e.outcome == "deviation" && e.breaks.as_deref().is_none_or(|b| b.trim().is_empty()) {
                return Err(format!(
                    "deviation {:?} must say which sentence it breaks",
                    e.id
                ));
            }
            if e.outcome == "reading-dependent" && e.reading.is_none() {
                return Err(format!(
                    "reading-dependent {:?} must name its reading",
                    e.id
                ));
            }
            if let Some(rd) = &e.reading {
                if super::reading(rd).is_none() {
                    return Err(format!("scenario {:?}: unknown reading {rd:?}", e.id));
                }
            }
        }
        Ok(r)
    }

    /// The entry for scenario `id`.
    pub fn get(&self, id: &str) -> Option<&ExpectedScenario> {
        self.scenario.iter().find(|e| e.id == id)
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
        // Name each one with its message: a CI log keeps only its tail, and an error that
        // does not recur on a re-run must still be traceable from that tail.
        for c in &report.cases {
            if let Outcome::Error { message } = &c.outcome {
                let at = c
                    .detail
                    .as_deref()
                    .map(|d| format!(" at {d}"))
                    .unwrap_or_default();
                why.push(format!("  {}{at}: {message}", c.id));
            }
        }
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
    match expected {
        None => {
            if t.failed > 0 {
                why.push(format!(
                    "{} scenario(s) failed ({} reading-dependent)",
                    t.failed, t.reading_dependent
                ));
            }
            if t.inconclusive > 0 {
                why.push(format!(
                    "{} scenario(s) inconclusive (a precondition did not hold)",
                    t.inconclusive
                ));
            }
        }
        Some(e) => {
            for c in &report.cases {
                let got = outcome_word(&c.outcome);
                match e.get(&c.id) {
                    None => why.push(format!(
                        "{}: {got}, but the expected-results file does not list it",
                        c.id
                    )),
                    Some(x) if x.outcome != got => why.push(format!(
                        "{}: listed as {}, but it is {got}{}",
                        c.id,
                        x.outcome,
                        c.detail
                            .as_deref()
                            .map(|d| format!(" at {d}"))
                            .unwrap_or_default()
                    )),
                    Some(x) => {
                        if let Outcome::ReadingDependent { reading, .. } = &c.outcome {
                            if x.reading.as_deref() != Some(reading.as_str()) {
                                why.push(format!(
                                    "{}: follows another reading than {reading}, but the file says {:?}",
                                    c.id, x.reading
                                ));
                            }
                        }
                    }
                }
            }
            for x in &e.scenario {
                if !report.cases.iter().any(|c| c.id == x.id) {
                    why.push(format!("stale entry {}: no such scenario ran", x.id));
                }
            }
        }
    }
    why
}

/// Per named reading: how the scenarios that depend on it ended, as console lines
/// (`reading NAME: N scenarios, P passed, F failed, I inconclusive, U unsupported, E errors`).
pub fn reading_lines(scenarios: &[super::Scenario], report: &Report) -> Vec<String> {
    let mut lines = Vec::new();
    for r in super::READINGS {
        let name = r.id;
        let mut t = crate::report::Totals::default();
        for sc in scenarios
            .iter()
            .filter(|s| s.all_readings().iter().any(|r| r == name))
        {
            if let Some(c) = report.cases.iter().find(|c| c.id == sc.id) {
                t.total += 1;
                match c.outcome {
                    Outcome::Pass => t.passed += 1,
                    Outcome::Fail { .. } | Outcome::ReadingDependent { .. } => t.failed += 1,
                    Outcome::Inconclusive { .. } => t.inconclusive += 1,
                    Outcome::Unsupported { .. } => t.unsupported += 1,
                    _ => t.errors += 1,
                }
            }
        }
        if t.total > 0 {
            lines.push(format!(
                "reading {name}: {} scenarios, {} passed, {} failed, {} inconclusive, {} unsupported, {} errors",
                t.total, t.passed, t.failed, t.inconclusive, t.unsupported, t.errors
            ));
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::CaseResult;
    use std::time::Duration;

    #[test]
    fn an_errored_scenario_is_named_with_its_message() {
        let mut r = Report::new("scenarios", "test");
        r.push(CaseResult {
            id: "sess-target-one".into(),
            requirement: "r".into(),
            group: "g".into(),
            outcome: Outcome::Error {
                message: "timed out after 120 s".into(),
            },
            detail: Some("step 3 (spawn)".into()),
            diff: None,
            duration: Duration::ZERO,
        });
        let why = verdict(&r, None, None);
        assert!(
            why.contains(&"1 scenario(s) ended in an error".to_string()),
            "{why:?}"
        );
        assert!(
            why.contains(&"  sess-target-one at step 3 (spawn): timed out after 120 s".to_string()),
            "{why:?}"
        );
    }
}
