//! Generic case results and their renderings: a one-line console summary plus failures,
//! JSON, and JUnit XML.
//!
//! Nothing here knows about scenarios: any runner (spec scenarios, wire vectors) fills a
//! [`Report`] with [`CaseResult`]s, optionally adds [`Coverage`] rows, and renders it.

use crate::explain::Explanation;
use crate::status_mode::StatusMode;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

/// How one case ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// Every expectation held.
    Pass,
    /// An expectation did not hold.
    Fail {
        /// What the case expected.
        expected: String,
        /// What it observed.
        actual: String,
    },
    /// An expectation did not hold where the specification admits more than one reading:
    /// the server follows another reading than the one the expectation is tagged with.
    /// Counted as a failure, apart from the reading-free ones.
    ReadingDependent {
        /// The reading the expectation is tagged with (`SCENARIOS.md`, "Readings").
        reading: String,
        /// The sentence of the other reading, which the server follows.
        follows: String,
        /// What the case expected.
        expected: String,
        /// What it observed.
        actual: String,
    },
    /// A step before the case's subject did not go as planned: the precondition was not met,
    /// so the case says nothing about its requirement (neither pass nor deviation).
    Inconclusive {
        /// What the step expected.
        expected: String,
        /// What it observed.
        actual: String,
    },
    /// The server (or chosen wire format) cannot run this case.
    Unsupported {
        /// Why.
        reason: String,
    },
    /// The case could not be run (bad input, server crash, timeout, ...).
    Error {
        /// What went wrong.
        message: String,
    },
    /// The case failed exactly as an expected-failure list says it does (not counted as a
    /// failure).
    ExpectedFailure {
        /// The failure's signature (e.g. `encode-bytes@12`, `crash`).
        signature: String,
        /// Why it is expected (the list's comment).
        reason: String,
    },
}

impl Outcome {
    /// Short label.
    pub fn label(&self) -> &'static str {
        match self {
            Outcome::Pass => "PASS",
            Outcome::Fail { .. } => "FAIL",
            Outcome::ReadingDependent { .. } => "FAIL (reading)",
            Outcome::Inconclusive { .. } => "INCONCLUSIVE",
            Outcome::Unsupported { .. } => "UNSUPPORTED",
            Outcome::Error { .. } => "ERROR",
            Outcome::ExpectedFailure { .. } => "XFAIL",
        }
    }
}

/// The result of one case.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CaseResult {
    /// Case id.
    pub id: String,
    /// The requirement the case checks, as a sentence.
    pub requirement: String,
    /// A grouping for reports (specification section, vector file, ...).
    pub group: String,
    /// How it ended.
    #[serde(flatten)]
    pub outcome: Outcome,
    /// Where it failed or other detail (e.g. `step 4 (alloc)`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Extra lines shown under a failure's expected/actual (e.g. a marker under the first
    /// differing byte), aligned with their values.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// Wall time.
    #[serde(serialize_with = "ser_secs")]
    pub duration: Duration,
}

fn ser_secs<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

/// The result of one case before expected failures are applied.
#[derive(Clone, Debug)]
pub struct CaseRun {
    /// The report entry.
    pub result: CaseResult,
    /// How it failed (for failing and erroring cases), e.g. `encode-bytes@12`.
    pub signature: Option<String>,
    /// The case-id prefix of its file (see [`crate::vectors::id_prefix`]).
    pub prefix: String,
    /// A pass only a lenient `--status` mode allowed: what was accepted.
    pub lenient: Option<String>,
    /// Why it failed, in detail ([`crate::explain`]).
    pub explanation: Option<Explanation>,
}

/// How many clauses of one section the cases cover.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Coverage {
    /// The section.
    pub section: String,
    /// Clauses covered by at least one case.
    pub covered: usize,
    /// Clauses in the section.
    pub total: usize,
    /// Ids of clauses no case covers.
    pub uncovered: Vec<String>,
}

/// Totals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    /// Cases run.
    pub total: usize,
    /// Passed.
    pub passed: usize,
    /// Failed: reading-free plus reading-dependent failures.
    pub failed: usize,
    /// Of `failed`, those where the server follows another reading of the specification.
    pub reading_dependent: usize,
    /// Cases whose precondition was not met (a step before the subject failed).
    pub inconclusive: usize,
    /// Unsupported.
    pub unsupported: usize,
    /// Errors.
    pub errors: usize,
    /// Failures an expected-failure list accounts for.
    pub expected_failures: usize,
}

/// A set of case results.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    /// Suite name (`scenarios`, `vectors`, ...).
    pub suite: String,
    /// What was tested (server, component).
    pub target: String,
    /// Totals (kept in sync by [`Report::push`]).
    pub totals: Totals,
    /// The cases are verdicts on a specification (subjects, readings): the summary line
    /// splits failures into reading-free and reading-dependent and counts inconclusive ones.
    #[serde(skip)]
    pub verdicts: bool,
    /// Cases, in run order.
    pub cases: Vec<CaseResult>,
    /// Coverage per section, if the suite tracks it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub coverage: Vec<Coverage>,
    /// Where each case's expectation comes from, by case id (vector suites).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub origins: BTreeMap<String, Origin>,
    /// How invalid vectors' statuses were judged (vector suites; `--status`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status_mode: Option<StatusMode>,
    /// Invalid-input cases that passed only because of a lenient `--status` mode (their
    /// status was not the expected one), by case id, with what was accepted.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub lenient_passes: BTreeMap<String, String>,
    /// Why failing cases failed, in detail (the first differing decoded field; an invalid
    /// vector's input and expected refusal), by case id.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub explanations: BTreeMap<String, Explanation>,
}

/// Where a case's expectation comes from.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Origin {
    /// `recorded` (bytes and statuses a real library produced) or `computed` (the
    /// expectation is pmix-codec's, e.g. where the library crashed).
    pub provenance: String,
    /// What recorded it (e.g. `openpmix 4.2.2`), for recorded expectations.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorded_from: Option<String>,
    /// The vector's flags (`Quirk`, `UpstreamBug`, `Truncated`, ...).
    pub flags: Vec<String>,
    /// The quirk (`QUIRKS.md`) that decides the expectation, if one does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quirk: Option<String>,
}

impl Origin {
    /// One line: `recorded from openpmix 4.2.2; flags Quirk; quirk D1-datatype-zigzag`.
    pub fn line(&self) -> String {
        let mut s = match &self.recorded_from {
            Some(r) => format!("{} from {r}", self.provenance),
            None => self.provenance.clone(),
        };
        if !self.flags.is_empty() {
            s.push_str(&format!("; flags {}", self.flags.join(",")));
        }
        if let Some(q) = &self.quirk {
            s.push_str(&format!("; quirk {q}"));
        }
        s
    }
}

impl Report {
    /// An empty report.
    pub fn new(suite: impl Into<String>, target: impl Into<String>) -> Self {
        Report {
            suite: suite.into(),
            target: target.into(),
            ..Default::default()
        }
    }

    /// Add a case.
    pub fn push(&mut self, case: CaseResult) {
        let t = &mut self.totals;
        t.total += 1;
        match case.outcome {
            Outcome::Pass => t.passed += 1,
            Outcome::Fail { .. } => t.failed += 1,
            Outcome::ReadingDependent { .. } => {
                t.failed += 1;
                t.reading_dependent += 1;
            }
            Outcome::Inconclusive { .. } => t.inconclusive += 1,
            Outcome::Unsupported { .. } => t.unsupported += 1,
            Outcome::Error { .. } => t.errors += 1,
            Outcome::ExpectedFailure { .. } => t.expected_failures += 1,
        }
        self.cases.push(case);
    }

    /// Append every case of `other`.
    pub fn extend(&mut self, other: Report) {
        self.origins.extend(other.origins);
        self.lenient_passes.extend(other.lenient_passes);
        self.explanations.extend(other.explanations);
        self.status_mode = self.status_mode.or(other.status_mode);
        for c in other.cases {
            self.push(c);
        }
    }

    /// True when nothing failed, errored or was inconclusive.
    pub fn ok(&self) -> bool {
        self.totals.failed == 0 && self.totals.errors == 0 && self.totals.inconclusive == 0
    }

    /// The one-line summary. When some case is inconclusive or reading-dependent (verdicts
    /// of spec scenarios) it splits the failures:
    /// `N cases, P passed, F failed (R reading-free, D reading-dependent), I inconclusive,
    /// U unsupported, E errors`, `F` staying the sum.
    pub fn summary_line(&self) -> String {
        let t = self.totals;
        if self.verdicts {
            return format!(
                "{} [{}]: {} cases, {} passed, {} failed ({} reading-free, {} reading-dependent), {} inconclusive, {} unsupported, {} errors",
                self.suite,
                self.target,
                t.total,
                t.passed,
                t.failed,
                t.failed - t.reading_dependent,
                t.reading_dependent,
                t.inconclusive,
                t.unsupported,
                t.errors
            );
        }
        let xfail = if t.expected_failures > 0 {
            format!(", {} expected failures", t.expected_failures)
        } else {
            String::new()
        };
        format!(
            "{} [{}]: {} cases, {} passed, {} failed, {} unsupported, {} errors{xfail}",
            self.suite, self.target, t.total, t.passed, t.failed, t.unsupported, t.errors
        )
    }

    /// Passed and failed (failures and errors) per provenance, e.g.
    /// `recorded: 28990 passed / 2 failed; computed: 77 passed / 0 failed`; empty when the
    /// report has no origins.
    pub fn provenance_summary(&self) -> String {
        let mut per: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        for c in &self.cases {
            let Some(o) = self.origins.get(&c.id) else {
                continue;
            };
            let e = per.entry(o.provenance.as_str()).or_default();
            match c.outcome {
                Outcome::Pass => e.0 += 1,
                Outcome::Fail { .. } | Outcome::Error { .. } => e.1 += 1,
                _ => {}
            }
        }
        per.iter()
            .map(|(p, (ok, bad))| format!("{p}: {ok} passed / {bad} failed"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// `status mode: class (…)`: how invalid vectors' statuses were judged and how many
    /// passed only by leniency; `None` when the suite has no status mode.
    pub fn status_mode_line(&self) -> Option<String> {
        let mode = self.status_mode?;
        let what = match mode {
            StatusMode::Exact => "the expected status, exactly",
            StatusMode::Class => "any status of the expected status's class",
            StatusMode::Reject => "any refusal",
        };
        let lenient = match mode {
            StatusMode::Exact => String::new(),
            _ => format!(
                "; {} invalid-input cases passed with another status than the expected one",
                self.lenient_passes.len()
            ),
        };
        Some(format!(
            "status mode: {mode} ({what}, at the expected call){lenient}"
        ))
    }

    /// Console text: coverage (if any), failures and errors, then the summary line.
    pub fn console(&self, verbose: bool) -> String {
        self.console_limited(verbose, usize::MAX)
    }

    /// Like [`Report::console`], but list at most `max_listed` failing or erroring cases
    /// (a line then says how many more there are). In reports of more than 200 cases,
    /// unsupported cases are listed only when `verbose` (their count is in the summary);
    /// expected failures only ever when `verbose`.
    pub fn console_limited(&self, verbose: bool, max_listed: usize) -> String {
        let mut s = String::new();
        let mut listed = 0usize;
        let mut unlisted = 0usize;
        if !self.coverage.is_empty() {
            let _ = writeln!(s, "coverage (clauses covered / clauses in section):");
            for c in &self.coverage {
                let _ = writeln!(s, "  {:>3}/{:<3} {}", c.covered, c.total, c.section);
                for u in &c.uncovered {
                    let _ = writeln!(s, "          uncovered: {u}");
                }
            }
        }
        for c in &self.cases {
            let bad = matches!(
                c.outcome,
                Outcome::Fail { .. }
                    | Outcome::Error { .. }
                    | Outcome::ReadingDependent { .. }
                    | Outcome::Inconclusive { .. }
            );
            let show = verbose || bad || (self.cases.len() <= 200 && !c.outcome_is_quiet());
            if !show {
                continue;
            }
            if bad {
                if listed >= max_listed {
                    unlisted += 1;
                    continue;
                }
                listed += 1;
            }
            let at = c
                .detail
                .as_deref()
                .map(|d| format!(" at {d}"))
                .unwrap_or_default();
            let _ = writeln!(
                s,
                "{} {}{} — {}",
                c.outcome.label(),
                c.id,
                at,
                c.requirement
            );
            match &c.outcome {
                Outcome::Fail { expected, actual } => {
                    let _ = writeln!(s, "    expected: {expected}\n    actual:   {actual}");
                }
                Outcome::ReadingDependent {
                    reading,
                    follows,
                    expected,
                    actual,
                } => {
                    let _ = writeln!(
                        s,
                        "    expected: {expected} [reading {reading}]\n    actual:   {actual}\n    follows the other reading of {reading}: {follows}"
                    );
                }
                Outcome::Inconclusive { expected, actual } => {
                    let _ = writeln!(
                        s,
                        "    precondition not met (before the subject): expected {expected}\n    actual:   {actual}"
                    );
                }
                Outcome::Unsupported { reason } => {
                    let _ = writeln!(s, "    reason: {reason}");
                }
                Outcome::Error { message } => {
                    let _ = writeln!(s, "    error: {message}");
                }
                Outcome::ExpectedFailure { signature, reason } => {
                    let _ = writeln!(s, "    expected failure: {signature} ({reason})");
                }
                Outcome::Pass => {}
            }
            if let Some(d) = &c.diff {
                if !matches!(c.outcome, Outcome::Pass) {
                    for line in d.lines() {
                        let _ = writeln!(s, "              {line}");
                    }
                }
            }
            if let Some(o) = self.origins.get(&c.id) {
                let _ = writeln!(s, "    expectation: {}", o.line());
            }
        }
        if unlisted > 0 {
            let _ = writeln!(
                s,
                "... and {unlisted} more failing cases (all of them are in --json and --junit)"
            );
        }
        if let Some(line) = self.status_mode_line() {
            let _ = writeln!(s, "{line}");
        }
        let by_origin = self.provenance_summary();
        if !by_origin.is_empty() {
            let _ = writeln!(s, "by provenance: {by_origin}");
        }
        let _ = writeln!(s, "{}", self.summary_line());
        s
    }

    /// JSON text.
    pub fn json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }

    /// The JSON report; with `omit_unsupported`, the cases outside the testee's declared
    /// scope and their origins are left out (a CI artifact stays small: a run against a
    /// one-release testee is mostly unsupported cases). Their number stays in `totals`, and
    /// `omitted_unsupported` says how many were left out.
    pub fn json_with(&self, omit_unsupported: bool) -> String {
        if !omit_unsupported {
            return self.json();
        }
        let mut small = self.clone();
        small
            .cases
            .retain(|c| !matches!(c.outcome, Outcome::Unsupported { .. }));
        let kept: std::collections::BTreeSet<&str> =
            small.cases.iter().map(|c| c.id.as_str()).collect();
        let origins = std::mem::take(&mut small.origins);
        small.origins = origins
            .into_iter()
            .filter(|(id, _)| kept.contains(id.as_str()))
            .collect();
        let omitted = self.cases.len() - small.cases.len();
        let mut j = serde_json::to_value(&small).unwrap_or_default();
        if let Some(o) = j.as_object_mut() {
            o.insert("omitted_unsupported".into(), omitted.into());
        }
        serde_json::to_string_pretty(&j).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }

    /// JUnit XML text: one `<testsuite>` per group.
    pub fn junit(&self) -> String {
        self.junit_with(false)
    }

    /// Class name of a case in `group`: the suite, then the group's `/`-separated parts,
    /// joined by dots; dots inside a part become `_` so CI tools (which split class names
    /// at dots into packages) keep `openpmix-4.2.2` as one segment (`openpmix-4_2_2`).
    pub fn junit_classname(&self, group: &str) -> String {
        std::iter::once(self.suite.as_str())
            .chain(group.split('/'))
            .map(|seg| seg.replace('.', "_"))
            .collect::<Vec<_>>()
            .join(".")
    }

    /// JUnit XML (one `<testsuite>` per group: per vector file, i.e. per component and
    /// buffer kind of one release). With `omit_unsupported`, cases outside the testee's
    /// declared scope are left out (they would bury the real failures); their number is
    /// still in the console summary and the JSON report.
    pub fn junit_with(&self, omit_unsupported: bool) -> String {
        if omit_unsupported {
            let mut kept = Report {
                cases: Vec::new(),
                totals: Totals::default(),
                ..self.clone()
            };
            for c in &self.cases {
                if !matches!(c.outcome, Outcome::Unsupported { .. }) {
                    kept.push(c.clone());
                }
            }
            return kept.junit_with(false);
        }
        let mut groups: Vec<&str> = Vec::new();
        for c in &self.cases {
            if !groups.contains(&c.group.as_str()) {
                groups.push(&c.group);
            }
        }
        let t = self.totals;
        let total: f64 = self.cases.iter().map(|c| c.duration.as_secs_f64()).sum();
        let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let _ = writeln!(
            s,
            "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.6}\">",
            xml(&format!("{} [{}]", self.suite, self.target)),
            t.total,
            t.failed,
            t.errors,
            t.unsupported + t.expected_failures + t.inconclusive,
            total
        );
        for g in groups {
            let cases: Vec<&CaseResult> = self.cases.iter().filter(|c| c.group == g).collect();
            let count = |f: fn(&Outcome) -> bool| cases.iter().filter(|c| f(&c.outcome)).count();
            let _ = writeln!(
                s,
                "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">",
                xml(g),
                cases.len(),
                count(|o| matches!(
                    o,
                    Outcome::Fail { .. } | Outcome::ReadingDependent { .. }
                )),
                count(|o| matches!(o, Outcome::Error { .. })),
                count(|o| matches!(
                    o,
                    Outcome::Unsupported { .. }
                        | Outcome::ExpectedFailure { .. }
                        | Outcome::Inconclusive { .. }
                )),
            );
            if let Some(mode) = self.status_mode {
                // The JUnit schema's place for run settings: the suite's properties.
                let _ = writeln!(
                    s,
                    "    <properties>\n      <property name=\"status_mode\" value=\"{mode}\"/>\n    </properties>"
                );
            }
            for c in cases {
                let _ = write!(
                    s,
                    "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.6}\"",
                    xml(&self.junit_classname(g)),
                    xml(&c.id),
                    c.duration.as_secs_f64()
                );
                let mut at = c
                    .detail
                    .as_deref()
                    .map(|d| format!(" at {d}"))
                    .unwrap_or_default();
                if let Some(o) = self.origins.get(&c.id) {
                    at.push_str(&format!(" [expectation: {}]", o.line()));
                }
                match &c.outcome {
                    Outcome::Pass => s.push_str("/>\n"),
                    Outcome::Fail { expected, actual } => {
                        let diff = c
                            .diff
                            .as_deref()
                            .map(|d| format!("\n{d}"))
                            .unwrap_or_default();
                        let _ = writeln!(
                            s,
                            ">\n      <failure message=\"{}\">expected: {}\nactual:   {}{}</failure>\n    </testcase>",
                            xml(&format!("{}{at}", c.requirement)),
                            xml(expected),
                            xml(actual),
                            xml(&diff.replace('\n', "\n          "))
                        );
                    }
                    Outcome::ReadingDependent {
                        reading,
                        follows,
                        expected,
                        actual,
                    } => {
                        let _ = writeln!(
                            s,
                            ">\n      <failure message=\"{}\">expected: {} [reading {}]\nactual:   {}\nfollows the other reading: {}</failure>\n    </testcase>",
                            xml(&format!("{}{at}", c.requirement)),
                            xml(expected),
                            xml(reading),
                            xml(actual),
                            xml(follows)
                        );
                    }
                    Outcome::Inconclusive { expected, actual } => {
                        let _ = writeln!(
                            s,
                            ">\n      <skipped message=\"{}\"/>\n    </testcase>",
                            xml(&format!(
                                "inconclusive{at}: precondition not met: expected {expected}, actual {actual}"
                            ))
                        );
                    }
                    Outcome::ExpectedFailure { signature, reason } => {
                        let _ = writeln!(
                            s,
                            ">\n      <skipped message=\"{}\"/>\n    </testcase>",
                            xml(&format!("expected failure {signature}: {reason}"))
                        );
                    }
                    Outcome::Unsupported { reason } => {
                        let _ = writeln!(
                            s,
                            ">\n      <skipped message=\"{}\"/>\n    </testcase>",
                            xml(reason)
                        );
                    }
                    Outcome::Error { message } => {
                        let _ = writeln!(
                            s,
                            ">\n      <error message=\"{}\">{}</error>\n    </testcase>",
                            xml(&format!("{message}{at}")),
                            xml(message)
                        );
                    }
                }
            }
            s.push_str("  </testsuite>\n");
        }
        s.push_str("</testsuites>\n");
        s
    }
}

impl CaseResult {
    fn outcome_is_quiet(&self) -> bool {
        matches!(
            self.outcome,
            Outcome::Pass | Outcome::ExpectedFailure { .. }
        )
    }
}

/// Escape text for XML attributes and content (control characters are dropped).
pub fn xml(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            '\n' => o.push_str("&#10;"),
            '\t' | '\r' => o.push(' '),
            c if (c as u32) < 0x20 => {}
            c => o.push(c),
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(id: &str, outcome: Outcome) -> CaseResult {
        CaseResult {
            id: id.into(),
            requirement: "r <&>".into(),
            group: "g".into(),
            outcome,
            detail: None,
            diff: None,
            duration: Duration::ZERO,
        }
    }

    #[test]
    fn totals_and_renderings() {
        let mut r = Report::new("scenarios", "model");
        r.push(case("a", Outcome::Pass));
        r.push(case(
            "b",
            Outcome::Fail {
                expected: "1".into(),
                actual: "2".into(),
            },
        ));
        r.push(case(
            "c",
            Outcome::Unsupported {
                reason: "no".into(),
            },
        ));
        assert!(!r.ok());
        assert_eq!(r.totals.failed, 1);
        assert!(r
            .summary_line()
            .contains("3 cases, 1 passed, 1 failed, 1 unsupported, 0 errors"));
        let x = r.junit();
        assert!(
            x.contains("failures=\"1\"") && x.contains("<skipped") && x.contains("r &lt;&amp;&gt;")
        );
        let j: serde_json::Value = serde_json::from_str(&r.json()).unwrap();
        assert_eq!(j["cases"][1]["outcome"], "fail");
        assert!(!r.console(false).contains("PASS a"));
    }
}
