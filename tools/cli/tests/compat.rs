//! `pmix-wire compat` answers as `vectors/LIVE.md` does (moved from the live crate's tests
//! when `tools/` was split: compat is the CLI's).

use pmix_live::compare::Outcome;
use pmix_live::report::{self, parse_cell_text};
use std::path::PathBuf;

fn vectors() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors"))
}

fn read(name: &str) -> String {
    std::fs::read_to_string(vectors().join(name)).unwrap()
}

/// Run `pmix-wire compat` and return (exit code, JSON).
fn compat(args: &[&str]) -> (i32, serde_json::Value) {
    let mut all = vec!["pmix-wire", "compat"];
    all.extend(args);
    all.push("--json");
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = pmix_wire::run(all, &mut std::io::empty(), &mut out, &mut err);
    let text = String::from_utf8(out).unwrap();
    let j = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{args:?}: {e}\n{text}\n{}", String::from_utf8_lossy(&err)));
    (code, j)
}

/// Run `pmix-wire compat` without --json: (exit code, stdout, stderr).
fn compat_text(args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["pmix-wire", "compat"];
    all.extend(args);
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = pmix_wire::run(all, &mut std::io::empty(), &mut out, &mut err);
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

#[test]
fn compat_answers_every_pair_as_live_md_does() {
    let md = report::matrix_cells(&read("LIVE.md")).expect("the matrix table");
    for ((client, server), text) in &md {
        let (code, j) = compat(&[client, server]);
        let (observed, outcome) = parse_cell_text(text).unwrap();
        assert_eq!(j["verdict"], outcome.as_str(), "{client} {server}: {j}");
        assert_eq!(
            j["source"],
            if observed { "observed" } else { "predicted" },
            "{client} {server}"
        );
        assert_eq!(
            j["live_cells"][0]["text"],
            text.as_str(),
            "{client} {server}"
        );
        assert_eq!(
            code,
            match outcome {
                Outcome::Works | Outcome::Differs => 0,
                _ => 1,
            },
            "{client} {server}: {j}"
        );
        let setups = j["setups"].as_array().unwrap();
        if observed && outcome == Outcome::Differs {
            // works by default, and the setups that fail are named
            assert!(
                j["default_verdict"] == "works" || j["default_verdict"].is_null(),
                "{client} {server}: {j}"
            );
            assert!(!setups.is_empty(), "{client} {server}: {j}");
        }
        if observed && outcome == Outcome::Works {
            assert!(
                setups.iter().all(|s| s["outcome"] == "not run"),
                "{client} {server}: works, yet a setup fails: {j}"
            );
        }
        for s in setups {
            let o = s["outcome"].as_str().unwrap();
            assert!(matches!(o, "fails" | "crash" | "not run"), "{s}");
            if o != "not run" {
                assert!(!s["failing"].as_array().unwrap().is_empty(), "{s}");
            }
        }
        for f in j["failing"].as_array().unwrap() {
            let evidence =
                f["observed"].as_array().unwrap().len() + f["predicted"].as_str().map_or(0, |_| 1);
            assert!(evidence > 0, "{client} {server}: {f} without evidence");
        }
    }
}

/// `compat 5.0.7 4.2.2` for a person: the default setup's verdict first, then one line
/// per failing setup with its cause and remedy, in at most 15 lines.
#[test]
fn compat_for_a_person_fits_on_a_screen_and_names_the_remedy() {
    let (code, text, _) = compat_text(&["5.0.7", "4.2.2"]);
    assert_eq!(code, 0, "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() <= 15, "{} lines:\n{text}", lines.len());
    assert!(
        lines[0].starts_with("works by default (observed)"),
        "{text}"
    );
    let gds = lines
        .iter()
        .find(|l| l.contains("gds shmem2"))
        .unwrap_or_else(|| panic!("no gds shmem2 line:\n{text}"));
    assert!(gds.contains("Remedy: PMIX_MCA_gds=hash"), "{gds}");
    // each cause once: no sentence is printed twice
    assert_eq!(
        text.matches("4.2.2 has neither shmem2").count(),
        1,
        "{text}"
    );
    // the evidence only with --explain
    let (_, explained, _) = compat_text(&["5.0.7", "4.2.2", "--explain"]);
    assert!(explained.contains("PMIX_ERR_NOT_FOUND"), "{explained}");
    assert!(!text.contains("PMIX_ERR_NOT_FOUND"), "{text}");
}

#[test]
fn compat_shows_a_crash_as_a_crash() {
    let (_, text, _) = compat_text(&["6.1.0", "plain-6.1.0"]);
    assert!(
        text.lines()
            .any(|l| l.contains("server-fully-client-default") && l.contains("SIGSEGV")),
        "{text}"
    );
    let (_, j) = compat(&["6.1.0", "plain-6.1.0"]);
    assert!(
        j["setups"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["outcome"] == "crash"),
        "{j}"
    );
}

#[test]
fn compat_takes_a_release_by_its_line_and_refuses_unknown_modules() {
    let (code, text, _) = compat_text(&["4.2.3", "plain-5.0.7"]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("4.2.3 is not in the matrix: judged as the 4.2 line by 4.2.2"),
        "{text}"
    );
    let (_, j) = compat(&["5.0.7", "4.2.3"]);
    assert_eq!(j["server_release"], "4.2.2", "{j}");
    for bad in [["--gds", "shmem9"], ["--psec", "kerberos"]] {
        let (code, _, err) = compat_text(&["5.0.7", "4.2.2", bad[0], bad[1]]);
        assert_eq!(code, 2, "{bad:?}");
        assert!(
            err.contains("unknown module") && err.contains("known:"),
            "{err}"
        );
    }
    let (code, _, err) = compat_text(&["3.1.0", "4.2.2"]);
    assert_eq!(code, 2);
    assert!(err.contains("4.2.2 5.0.7"), "{err}");
}

#[test]
fn compat_refuses_unknown_sides_and_takes_a_release_for_the_server() {
    let (code, _) = compat(&["3.1.0", "plain-5.0.7"]);
    assert_eq!(code, 2);
    let (code, _) = compat(&["4.2.2", "slurm-1.0"]);
    assert_eq!(code, 2);
    let (_, j) = compat(&["4.2.2", "5.0.7"]);
    let servers: Vec<&str> = j["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert_eq!(servers, ["plain-5.0.7", "slurm-24.11.5"]);
    assert_eq!(j["component"], "v41");
}
