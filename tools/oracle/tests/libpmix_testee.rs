//! The vector suite against the real OpenPMIx: `pmix-libpmix-testee` (every pack and unpack
//! done by the installed libpmix 4.2.2 through the C oracle) replays the whole corpus through
//! the testee protocol of `conformance/TESTEE.md`.
//!
//! Acceptance: every 4.2.2 vector passes, except those flagged `UpstreamBug` (the library
//! crashes on them) or `Hardening` (the library accepts without a bound what pmix-codec
//! refuses on purpose), which are exactly the entries of
//! `conformance/expected-failures/libpmix.txt`; every master vector is unsupported (the
//! testee reproduces release 4.2 and lacks v51/v61), none crashes the run. The oracle is
//! required: if it cannot be built, the testee cannot start and this test fails.

use pmix_conformance::report::Outcome;
use pmix_conformance::testee::ProcessTestee;
use pmix_conformance::vectors::{self, case_id, load_dir, run_suite};
use pmix_conformance::xfail::ExpectedFailures;
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

#[test]
fn libpmix_passes_every_4_2_2_vector_and_master_ones_are_unsupported() {
    let sets = load_dir(&vectors::default_dir()).expect("corpus");
    let list = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../conformance/expected-failures/libpmix.txt");
    let xfail = ExpectedFailures::load(&list).expect("expected-failure list");
    let mut testee = ProcessTestee::new(
        vec![env!("CARGO_BIN_EXE_pmix-libpmix-testee").to_string()],
        Duration::from_secs(30),
    );
    let run = run_suite(&sets, None, &mut testee, Some(&xfail), false);
    let r = &run.report;
    println!("{} ({:.2} s)", r.summary_line(), run.elapsed.as_secs_f64());
    let bad: Vec<String> = r
        .cases
        .iter()
        .filter(|c| matches!(c.outcome, Outcome::Fail { .. } | Outcome::Error { .. }))
        .take(30)
        .map(|c| format!("{} {:?}: {:?}", c.id, c.detail, c.outcome))
        .collect();
    assert!(r.ok(), "{}", bad.join("\n"));
    assert!(r.target.contains("libpmix"), "{}", r.target);

    // What each case must have come to, from the vector files themselves.
    let mut not_library_behaviour = BTreeSet::new();
    let (mut v422, mut master) = (0, 0);
    for set in &sets {
        let from_422 = set.file.source.version.starts_with("4.2");
        for v in &set.file.tests {
            if !from_422 {
                master += 1;
            } else if v
                .flags
                .iter()
                .any(|f| f == "UpstreamBug" || f == "Hardening")
            {
                not_library_behaviour.insert(case_id(set, v));
            } else {
                v422 += 1;
            }
        }
    }
    assert!(v422 > 15_000 && master > 5_000, "{v422} / {master}");
    let listed: BTreeSet<String> = xfail.entries.keys().cloned().collect();
    assert_eq!(
        listed, not_library_behaviour,
        "the list is exactly the 4.2.2 vectors flagged UpstreamBug or Hardening"
    );
    let xfailed: BTreeSet<String> = r
        .cases
        .iter()
        .filter(|c| matches!(c.outcome, Outcome::ExpectedFailure { .. }))
        .map(|c| c.id.clone())
        .collect();
    assert_eq!(xfailed, not_library_behaviour);
    assert_eq!(r.totals.passed, v422, "every other 4.2.2 vector passes");
    assert_eq!(
        r.totals.unsupported, master,
        "every master vector is unsupported"
    );
    for c in &r.cases {
        if let Outcome::Unsupported { reason } = &c.outcome {
            assert!(
                reason.contains("lacks component") || reason.contains("release profile"),
                "{}: {reason}",
                c.id
            );
        }
    }
    // Each library crash restarted the oracle, not the testee.
    assert_eq!(testee.starts(), 1);
}
