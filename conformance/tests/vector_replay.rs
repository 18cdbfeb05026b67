//! The vector replay alone: the conformance runner replays every recorded vector against the
//! built-in codec, and every case must pass. This is the whole test target, on purpose: it is
//! the one test cargo-mutants runs to measure what a green vectors run is worth (issue 23,
//! `vectors/COVERAGE.md`), so it holds nothing but the replay (no unit tests, no process
//! testee).
//!
//! A run that tests nothing must not pass: the corpus has to load every release's files, and
//! each of them must yield cases that were really judged (passed, not skipped or unsupported).
//!
//! It runs once per mutant, so it uses every core: the files are parsed in parallel, then
//! dealt into one group per core and each group replayed on its own thread (cases are
//! independent; every vector is still replayed and judged exactly once).

use pmix_conformance::parallel::{available_threads, map_in_order};
use pmix_conformance::report::{Outcome, Report};
use pmix_conformance::testee::BuiltinTestee;
use pmix_conformance::vectors::{self, load_dir_on, run_suite, SuiteRun, VectorSet};
use std::collections::BTreeMap;

/// Fewer vectors than this means the corpus did not load (it holds about 139,000).
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

/// `items` dealt into `n` groups of about the same weight (the heaviest first, each to the
/// lightest group so far); every item lands in exactly one group, and no group is empty.
fn deal<T>(mut items: Vec<T>, n: usize, weight: impl Fn(&T) -> usize) -> Vec<Vec<T>> {
    items.sort_by_key(|i| std::cmp::Reverse(weight(i)));
    let mut groups: Vec<Vec<T>> = (0..n.max(1)).map(|_| Vec::new()).collect();
    let mut sizes = vec![0usize; groups.len()];
    for item in items {
        let lightest = (0..sizes.len()).min_by_key(|&g| sizes[g]).unwrap_or(0);
        sizes[lightest] += weight(&item);
        groups[lightest].push(item);
    }
    groups.retain(|g| !g.is_empty());
    groups
}

/// Every vector of `sets` was a case of `run`, and each one passed; every file contributed
/// judged cases (an empty file would pass vacuously).
fn check_group(sets: &[VectorSet], run: &SuiteRun) {
    let n: usize = sets.iter().map(|s| s.file.tests.len()).sum();
    let r = &run.report;
    assert_eq!(r.totals.total, n, "every vector is a case");
    assert!(r.ok(), "{}", problems(r));
    assert_eq!(r.totals.passed, n, "{}", problems(r));
    let mut per_file: BTreeMap<&str, usize> = BTreeMap::new();
    for c in &r.cases {
        let file = sets
            .iter()
            .find(|s| c.id.starts_with(&format!("{}.", s.prefix)))
            .map(|s| s.label.as_str())
            .unwrap_or("?");
        *per_file.entry(file).or_default() += 1;
    }
    for s in sets {
        let judged = per_file.get(s.label.as_str()).copied().unwrap_or(0);
        assert!(
            judged == s.file.tests.len() && judged > 0,
            "{}: {judged} of {} vectors judged",
            s.label,
            s.file.tests.len()
        );
    }
}

#[test]
fn the_builtin_codec_passes_every_recorded_vector() {
    // PMIX_WIRE_REPLAY_THREADS=1 replays on one thread (to compare; the result is the same).
    let threads = std::env::var("PMIX_WIRE_REPLAY_THREADS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(available_threads);
    let sets: Vec<VectorSet> =
        load_dir_on(&vectors::default_dir(), None, threads).expect("the corpus loads");
    assert!(
        sets.len() >= MIN_FILES,
        "only {} vector files were loaded from {}",
        sets.len(),
        vectors::default_dir().display()
    );
    let files = sets.len();
    let n: usize = sets.iter().map(|s| s.file.tests.len()).sum();
    assert!(n >= MIN_VECTORS, "the corpus has only {n} vectors");

    let groups = deal(sets, threads, |s| s.file.tests.len());
    assert_eq!(
        groups.iter().map(Vec::len).sum::<usize>(),
        files,
        "every file is dealt once"
    );
    let runs = map_in_order(&groups, groups.len(), |g| {
        run_suite(g, None, &mut BuiltinTestee::default(), None, false)
    });
    let mut replayed = 0;
    for (g, run) in groups.iter().zip(&runs) {
        println!(
            "{} ({:.2} s, {} files)",
            run.report.summary_line(),
            run.elapsed.as_secs_f64(),
            g.len()
        );
        check_group(g, run);
        replayed += run.report.totals.total;
    }
    assert_eq!(replayed, n, "every vector is replayed once");
}

#[test]
fn dealing_keeps_every_item_and_balances_the_groups() {
    // File sizes like the corpus's: a few large files, many small ones.
    let sizes: Vec<usize> = (0..75).map(|i| (i * 7919) % 9000 + 10).collect();
    let largest = sizes.iter().copied().max().unwrap_or(0);
    for n in [1, 2, 3, 8] {
        let groups = deal(sizes.clone(), n, |s| *s);
        assert_eq!(groups.len(), n);
        let mut dealt: Vec<usize> = groups.iter().flatten().copied().collect();
        let mut all = sizes.clone();
        dealt.sort_unstable();
        all.sort_unstable();
        assert_eq!(dealt, all, "the same items, each once");
        let weights: Vec<usize> = groups.iter().map(|g| g.iter().sum()).collect();
        let spread = weights.iter().max().unwrap_or(&0) - weights.iter().min().unwrap_or(&0);
        assert!(spread <= largest, "{n} groups: {weights:?}");
    }
    assert_eq!(deal(vec![5, 6], 4, |s| *s).len(), 2, "no empty group");
}
