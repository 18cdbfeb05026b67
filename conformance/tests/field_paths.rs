//! Issue 16, item 3: an encode mismatch names the field. A deliberately broken testee that
//! packs every PROC rank as 2 bytes (`pmix-testee --break proc-rank-2-bytes`) fails with
//! the path of the rank field (e.g. `PROC[0].rank`, `INFO[3].value.PROC.rank`) and the walk
//! of the expected bytes with that field marked, in the console, JSON and JUnit reports.

use std::process::Command;

const TESTEE: &str = env!("CARGO_BIN_EXE_pmix-testee");
const CLI: &str = env!("CARGO_BIN_EXE_pmix-conformance");

fn run(filter: &str, extra: &[&str]) -> (String, i32) {
    let o = Command::new(CLI)
        .args(["vectors", "--filter", filter, "--max-failures", "5"])
        .args(extra)
        .args(["--", TESTEE, "--break", "proc-rank-2-bytes"])
        .output()
        .expect("run pmix-conformance");
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        o.status.code().unwrap_or(-1),
    )
}

#[test]
fn a_rank_packed_as_two_bytes_is_named_by_its_field_path() {
    for (filter, path) in [
        ("v41.non-described.PROC.", "PROC[0].rank"),
        ("v3.non-described.PROC.", "PROC[0].rank"),
        ("v61.fully-described.PROC.", "PROC[0].rank"),
    ] {
        let (out, code) = run(filter, &[]);
        assert_eq!(code, 1, "{filter}: the run fails\n{out}");
        // Console: the FAIL line names the field, and the walk marks it.
        assert!(
            out.lines()
                .any(|l| l.starts_with("FAIL ") && l.contains(&format!(" in {path} "))),
            "{filter}: no FAIL line names {path}\n{out}"
        );
        assert!(
            out.contains(&format!("first differing field: {path} (bytes ")),
            "{filter}\n{out}"
        );
        let marked = out
            .lines()
            .find(|l| l.trim_start().starts_with(">>"))
            .unwrap_or_else(|| panic!("{filter}: no marked field in the walk\n{out}"));
        assert!(marked.contains(&format!("{path} = ")), "{marked}");
        assert!(marked.contains("<- "), "{marked}");
    }
}

#[test]
fn the_field_path_is_in_json_and_junit_too() {
    // A PROC inside an INFO's value: the path goes through the INFO and its value.
    let filter = "v41.non-described.INFO.";
    let (json, _) = run(filter, &["--json"]);
    let j: serde_json::Value = serde_json::from_str(&json).expect("JSON report");
    let cases = j["cases"].as_array().expect("cases");
    let failing: Vec<&serde_json::Value> = cases
        .iter()
        .filter(|c| c["detail"].as_str().is_some_and(|d| d.contains(".rank")))
        .collect();
    assert!(!failing.is_empty(), "no JSON case names a rank field");
    for c in &failing {
        let detail = c["detail"].as_str().unwrap();
        assert!(
            detail.starts_with("encode-bytes@") && detail.contains(" in INFO["),
            "{detail}"
        );
        assert!(
            detail.contains(".value.") && detail.ends_with(".rank"),
            "{detail}"
        );
        let diff = c["diff"].as_str().expect("a diff");
        assert!(diff.contains("walk of the expected bytes:"), "{diff}");
        assert!(diff.contains(">>"), "{diff}");
    }
    assert!(
        failing
            .iter()
            .any(|c| c["detail"].as_str().unwrap().ends_with("].value.PROC.rank")),
        "no INFO[i].value.PROC.rank"
    );
    // The structured explanation: kind, the field's path and where it is.
    let explanations = j["explanations"].as_object().expect("explanations");
    for c in &failing {
        let x = &explanations[c["id"].as_str().unwrap()];
        assert_eq!(x["kind"], "encode_field", "{x}");
        let path = x["field"]["path"].as_str().unwrap();
        assert!(c["detail"].as_str().unwrap().ends_with(path), "{x}");
        assert!(x["walk"].as_array().is_some_and(|w| !w.is_empty()), "{x}");
    }
    // Every failure of this run is a rank: nothing else was broken.
    let others = cases
        .iter()
        .filter(|c| c["outcome"] == "fail" && !c["detail"].as_str().unwrap_or("").contains("rank"))
        .count();
    assert_eq!(others, 0, "failures that are not a rank");

    let dir = std::env::temp_dir().join(format!("pmix-field-paths-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let xml_path = dir.join("junit.xml");
    run(filter, &["--junit", xml_path.to_str().unwrap()]);
    let xml = std::fs::read_to_string(&xml_path).expect("JUnit file");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        xml.contains("<failure message="),
        "no failure in the JUnit file"
    );
    assert!(
        xml.contains("value.PROC.rank") && xml.contains("first differing field: INFO["),
        "the JUnit failures do not name the rank field"
    );
}
