//! The vector replay alone: the conformance runner replays every recorded vector against the
//! built-in codec, and every case must pass. This is the whole test target, on purpose: it is
//! the one test cargo-mutants runs to measure what a green vectors run is worth (issue 23,
//! `vectors/COVERAGE.md`), so it holds nothing but the replay (no unit tests, no process
//! testee).
//!
//! A run that tests nothing must not pass: the corpus has to load every release's files, and
//! each of them must yield cases that were really judged (passed, not skipped or unsupported).

use pmix_conformance::report::{Outcome, Report};
use pmix_conformance::testee::BuiltinTestee;
use pmix_conformance::vectors::{self, load_dir, run_suite, VectorSet};
use std::collections::BTreeMap;

/// Fewer vectors than this means the corpus did not load (it holds about 135,000).
const MIN_VECTORS: usize = 100_000;

/// Fewer vector files than this means a release's folder is missing (there are 75).
const MIN_FILES: usize = 75;

/// Failing and erroring cases, one line each, for the assertion message.
fn problems(r: &Report) -> String {
    let bad: Vec<String> = r
        .cases
        .iter()
        .filter(|c| !matches!(c.outcome, Outcome::Pass))
        .map(|c| format!("{} {:?}: {:?}", c.id, c.detail, c.outcome))
        .collect();
    format!(
        "{} cases did not pass; first ones:\n{}",
        bad.len(),
        bad.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
    )
}

#[test]
fn the_builtin_codec_passes_every_recorded_vector() {
    let sets: Vec<VectorSet> = load_dir(&vectors::default_dir()).expect("the corpus loads");
    assert!(
        sets.len() >= MIN_FILES,
        "only {} vector files were loaded from {}",
        sets.len(),
        vectors::default_dir().display()
    );
    let n: usize = sets.iter().map(|s| s.file.tests.len()).sum();
    assert!(n >= MIN_VECTORS, "the corpus has only {n} vectors");

    let run = run_suite(&sets, None, &mut BuiltinTestee, None, false);
    let r = &run.report;
    println!("{} ({:.2} s)", r.summary_line(), run.elapsed.as_secs_f64());
    assert_eq!(r.totals.total, n, "every vector is a case");
    assert!(r.ok(), "{}", problems(r));
    assert_eq!(r.totals.passed, n, "{}", problems(r));

    // Every file contributed judged cases (an empty file would pass vacuously).
    let mut per_file: BTreeMap<&str, usize> = BTreeMap::new();
    for c in &r.cases {
        let file = sets
            .iter()
            .find(|s| c.id.starts_with(&format!("{}.", s.prefix)))
            .map(|s| s.label.as_str())
            .unwrap_or("?");
        *per_file.entry(file).or_default() += 1;
    }
    for s in &sets {
        let judged = per_file.get(s.label.as_str()).copied().unwrap_or(0);
        assert!(
            judged == s.file.tests.len() && judged > 0,
            "{}: {judged} of {} vectors judged",
            s.label,
            s.file.tests.len()
        );
    }
}
