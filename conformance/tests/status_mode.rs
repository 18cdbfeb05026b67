//! `pmix-conformance vectors --status exact|class|reject` (issue 16, item 4): a testee that
//! refuses invalid input with a neighbouring status passes only in the lenient modes, one
//! that refuses with a status of another class only in `reject`, and the report says which
//! mode judged it (console, JSON, JUnit).

use pmix_codec::Status;
use pmix_conformance::report::Outcome;
use pmix_conformance::status_mode::{StatusClass, StatusMode};
use pmix_conformance::testee::{
    codec_capabilities, codec_reply, Capabilities, Reply, Request, Testee, TesteeError,
};
use pmix_conformance::vectors::{self, load_dir, run_suite_with, SuiteOptions};
use std::process::Command;

const CLI: &str = env!("CARGO_BIN_EXE_pmix-conformance");
const TESTEE: &str = env!("CARGO_BIN_EXE_pmix-testee");

/// The built-in codec, with every refusal's status rewritten by `remap`.
struct Remapping(fn(i32) -> i32);

impl Testee for Remapping {
    fn describe(&self) -> String {
        "remapping".into()
    }
    fn capabilities(&mut self) -> Result<Capabilities, TesteeError> {
        Ok(codec_capabilities("remapping"))
    }
    fn call(&mut self, req: &Request) -> Result<Reply, TesteeError> {
        Ok(match codec_reply(req) {
            Reply::Error { status, item, .. } => Reply::status((self.0)(status), item),
            r => r,
        })
    }
}

/// -50 becomes -20 (same class: unreadable); everything else is kept.
fn neighbour(s: i32) -> i32 {
    if s == Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER.0 {
        Status::ERR_UNPACK_FAILURE.0
    } else {
        s
    }
}

/// -50 becomes -16 (another class: unsupported); everything else is kept.
fn stranger(s: i32) -> i32 {
    if s == Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER.0 {
        Status::ERR_UNKNOWN_DATA_TYPE.0
    } else {
        s
    }
}

/// Every refusal becomes a success status (0): never a refusal.
fn success(_: i32) -> i32 {
    0
}

#[test]
fn each_mode_accepts_what_it_documents_and_no_more() {
    let sets = load_dir(&vectors::default_dir()).unwrap();
    // OpenPMIx 4.2.2's v41 non-described vectors: many truncations (-50) among others.
    let filter = Some("v41.non-described.");
    let run = |remap, mode| {
        let options = SuiteOptions {
            filter,
            mode,
            ..SuiteOptions::default()
        };
        run_suite_with(&sets, &mut Remapping(remap), &options)
    };
    let exact = run(neighbour, StatusMode::Exact).report;
    let remapped = exact.totals.failed;
    assert!(remapped > 50, "the filter holds -50 vectors: {remapped}");
    assert!(exact.cases.iter().all(|c| match &c.outcome {
        Outcome::Fail { .. } => c
            .detail
            .as_deref()
            .is_some_and(|d| d.starts_with("status:-20@")),
        o => *o == Outcome::Pass,
    }));
    assert_eq!(exact.status_mode, Some(StatusMode::Exact));
    assert!(exact.lenient_passes.is_empty());

    // class: -20 is of -50's class.
    let class = run(neighbour, StatusMode::Class).report;
    assert!(class.ok() && class.totals.passed == exact.totals.total);
    assert_eq!(class.lenient_passes.len(), remapped);
    let (id, what) = class.lenient_passes.iter().next().unwrap();
    assert!(id.contains(".invalid."), "{id}");
    assert!(
        what.contains("PMIX_ERR_UNPACK_FAILURE (-20)")
            && what.contains("accepted for PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER (-50)"),
        "{what}"
    );

    // -16 is of another class: class fails it, reject accepts it.
    let class = run(stranger, StatusMode::Class).report;
    assert_eq!(class.totals.failed, remapped);
    let reject = run(stranger, StatusMode::Reject).report;
    assert!(reject.ok());
    assert_eq!(reject.lenient_passes.len(), remapped);

    // A "refusal" with status 0 is no refusal, in every mode.
    for mode in StatusMode::ALL {
        let r = run(success, mode).report;
        let invalid = r
            .cases
            .iter()
            .filter(|c| c.id.contains(".invalid."))
            .count();
        assert_eq!(r.totals.failed, invalid, "{mode}");
        assert!(r.lenient_passes.is_empty(), "{mode}");
    }
}

#[test]
fn the_classes_cover_every_status_the_vectors_expect() {
    // A status in no class would make `class` as strict as `exact` for its vectors.
    let sets = load_dir(&vectors::default_dir()).unwrap();
    for set in &sets {
        for v in &set.file.tests {
            if let Some(e) = &v.error {
                let class = StatusClass::of(Status(e.status));
                assert_ne!(class, StatusClass::Other, "{}: {}", set.label, e.status);
            }
        }
    }
}

fn cli(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(CLI).args(args).output().expect("run the CLI");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn the_cli_takes_status_and_every_report_names_the_mode() {
    let dir = std::env::temp_dir().join(format!("pmix-status-mode-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let junit = dir.join("class.xml");
    let filter = "v3.non-described.";
    let base = ["vectors", "--filter", filter];
    let testee = ["--", TESTEE, "--break", "status-class"];
    // Default (exact): the neighbouring statuses fail.
    let (code, out, _) = cli(&[&base[..], &testee[..]].concat());
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("status mode: exact"), "{out}");
    // class: they pass, and the console says how many passed only by leniency.
    let (code, out, err) = cli(&[
        &base[..],
        &["--status", "class", "--junit", junit.to_str().unwrap()],
        &testee[..],
    ]
    .concat());
    assert_eq!(code, 0, "{out}{err}");
    let line = out
        .lines()
        .find(|l| l.starts_with("status mode: class"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        line.contains("invalid-input cases passed with another status"),
        "{line}"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains("<property name=\"status_mode\" value=\"class\"/>"),
        "{xml}"
    );
    // JSON: the mode, and every lenient pass by case id.
    let (code, out, _) = cli(&[&base[..], &["--status", "reject", "--json"], &testee[..]].concat());
    assert_eq!(code, 0);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["status_mode"], "reject");
    let lenient = j["lenient_passes"].as_object().unwrap();
    assert!(!lenient.is_empty());
    assert!(lenient
        .keys()
        .all(|k| k.starts_with(filter) && k.contains(".invalid.")));
    // An unknown mode names the valid ones.
    let (code, _, err) = cli(&["vectors", "--status", "lenient"]);
    assert_eq!(code, 2);
    assert!(err.contains("exact, class, reject"), "{err}");
}
