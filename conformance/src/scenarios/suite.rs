//! Running the whole suite: every scenario against a fresh server, clause coverage from the
//! results, and every model mutant against the suite.

use super::run::run_scenario;
use super::Scenario;
use crate::model::Mutant;
use crate::report::{CaseResult, Coverage, Outcome, Report};
use crate::server::ServerSpec;
use crate::wireinfo::WireFormat;
use std::collections::BTreeSet;
use std::time::Instant;

/// Per-section clause coverage: a clause is covered when a scenario naming it ran against
/// this server and passed (`passed` holds those scenario ids).
pub fn coverage(scenarios: &[Scenario], passed: &BTreeSet<String>) -> Vec<Coverage> {
    let covered: BTreeSet<&str> = scenarios
        .iter()
        .filter(|s| passed.contains(&s.id))
        .flat_map(|s| s.clauses.iter().map(String::as_str))
        .collect();
    crate::spec::SECTIONS
        .iter()
        .map(|sec| {
            let in_sec: Vec<&crate::spec::Clause> = crate::spec::CLAUSES
                .iter()
                .filter(|c| c.section == *sec)
                .collect();
            let uncovered: Vec<String> = in_sec
                .iter()
                .filter(|c| !covered.contains(c.id))
                .map(|c| c.id.to_string())
                .collect();
            Coverage {
                section: sec.to_string(),
                covered: in_sec.len() - uncovered.len(),
                total: in_sec.len(),
                uncovered,
            }
        })
        .collect()
}

/// Run every scenario, each against a fresh server from `spec`.
pub fn run_all(scenarios: &[Scenario], spec: &ServerSpec, format: WireFormat) -> Report {
    let mut report = Report::new(
        "scenarios",
        format!(
            "{}, {}/{}",
            spec.describe(),
            format.component.name(),
            format.kind.name()
        ),
    );
    report.verdicts = true;
    let mut named = false;
    for sc in scenarios {
        let result = match spec.create() {
            Ok(mut server) => {
                // Name the run after the server's own `hello` name when it gives one.
                if let (false, Some(n)) = (named, server.name()) {
                    report.target =
                        format!("{n}, {}/{}", format.component.name(), format.kind.name());
                    named = true;
                }
                run_scenario(sc, server.as_mut(), format)
            }
            Err(e) => CaseResult {
                id: sc.id.clone(),
                requirement: sc.requirement.clone(),
                group: sc.section().to_string(),
                outcome: Outcome::Error {
                    message: e.to_string(),
                },
                detail: None,
                diff: None,
                duration: Default::default(),
            },
        };
        report.push(result);
    }
    let passed: BTreeSet<String> = report
        .cases
        .iter()
        .filter(|c| c.outcome == Outcome::Pass)
        .map(|c| c.id.clone())
        .collect();
    report.coverage = coverage(scenarios, &passed);
    report
}

/// What the suite did to one mutant.
#[derive(Clone, Debug)]
pub struct MutantResult {
    /// The mutant.
    pub mutant: Mutant,
    /// Scenarios that failed against it (it is killed when this is non-empty).
    pub killed_by: Vec<String>,
}

/// Run the suite against every mutant; each must be killed by at least one scenario.
pub fn run_mutants(scenarios: &[Scenario], format: WireFormat) -> (Vec<MutantResult>, Report) {
    let mut report = Report::new(
        "mutants",
        format!("reference model mutants, {}", format.component.name()),
    );
    let mut results = Vec::new();
    for m in Mutant::ALL {
        let t0 = Instant::now();
        let r = run_all(scenarios, &ServerSpec::Model(Some(m)), format);
        let killed_by: Vec<String> = r
            .cases
            .iter()
            .filter(|c| {
                matches!(
                    c.outcome,
                    Outcome::Fail { .. }
                        | Outcome::ReadingDependent { .. }
                        | Outcome::Inconclusive { .. }
                        | Outcome::Error { .. }
                )
            })
            .map(|c| c.id.clone())
            .collect();
        let outcome = if killed_by.is_empty() {
            Outcome::Fail {
                expected: "at least one scenario fails".into(),
                actual: "every scenario passed: the mutant survived".into(),
            }
        } else {
            Outcome::Pass
        };
        report.push(CaseResult {
            id: format!("mutant:{m}"),
            requirement: format!("the suite detects a model where {}", m.description()),
            group: "mutants".into(),
            outcome,
            detail: (!killed_by.is_empty()).then(|| format!("killed by {}", killed_by.join(", "))),
            diff: None,
            duration: t0.elapsed(),
        });
        results.push(MutantResult {
            mutant: m,
            killed_by,
        });
    }
    (results, report)
}
