//! `pmix-wire compat` answers as `vectors/LIVE.md` does (moved from the live crate's tests
//! when `tools/` was split: compat is the CLI's).

use pmix_live::predict::Verdict;
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

#[test]
fn compat_answers_every_pair_as_live_md_does() {
    let md = report::matrix_cells(&read("LIVE.md")).expect("the matrix table");
    for ((client, server), text) in &md {
        let (code, j) = compat(&[client, server]);
        let (observed, verdict, failing) = parse_cell_text(text).unwrap();
        assert_eq!(j["verdict"], verdict.as_str(), "{client} {server}: {j}");
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
            if verdict == Verdict::Fails { 1 } else { 0 },
            "{client} {server}: {j}"
        );
        let named: Vec<&str> = j["failing"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["op"].as_str().unwrap())
            .collect();
        for f in &failing {
            let op = f.split(" (").next().unwrap();
            assert!(
                named.contains(&op),
                "{client} {server}: {op} not named by compat: {named:?}"
            );
        }
        for f in j["failing"].as_array().unwrap() {
            let evidence =
                f["observed"].as_array().unwrap().len() + f["predicted"].as_str().map_or(0, |_| 1);
            assert!(evidence > 0, "{client} {server}: {f} without evidence");
        }
    }
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
