//! The live matrix's assembler (`tools/live/assemble.py`) on a hand-made run folder: a cell
//! whose wire tap log holds an unreadable line is a harness failure under `--check` (the
//! lost connect message that kept `--ci` out of CI: two taps interleaved their lines, and
//! the whole log was dropped), and the readable records of that log are still used.

use std::path::{Path, PathBuf};
use std::process::Command;

use pmix_live::{Observations, Op};

/// A run folder with one same-release cell of 5.0.7 whose two ranks completed every
/// operation; `tap` is its wire tap log.
fn run_folder(name: &str, tap: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pmix-live-assemble-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    let cell = d.join("cell.1");
    std::fs::create_dir_all(&cell).unwrap();
    let ops: String = Op::all()
        .iter()
        .map(|op| format!("OP {op} 0 PMIX_SUCCESS fine\n"))
        .collect();
    for r in 0..2 {
        std::fs::write(cell.join(format!("out.{r}")), &ops).unwrap();
        std::fs::write(cell.join(format!("rank{r}.rc")), "0\n").unwrap();
    }
    std::fs::write(cell.join("tap.jsonl"), tap).unwrap();
    std::fs::write(
        d.join("cells.tsv"),
        format!(
            "5.0.7\tclient\tplain-5.0.7\t5.0.7\tbase\t-\t{}\t-\n",
            cell.display()
        ),
    )
    .unwrap();
    std::fs::write(
        d.join("provenance.json"),
        r#"{"date": "d", "host": "h", "command": "c", "releases": {}}"#,
    )
    .unwrap();
    d
}

fn record(rank: u32) -> String {
    format!(
        r#"{{"bfrops":"v41","buffer":"non-described","flag":"SimpleClient","gds":"hash","nspace":"live","psec":"native","rank":{rank},"version":"5.0.7"}}"#
    )
}

/// Run the assembler with --check; (success, stderr, the observations written).
fn assemble(d: &Path) -> (bool, String, Observations) {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/assemble.py");
    let out = d.join("observations.json");
    let o = Command::new("python3")
        .arg(script)
        .arg(d.join("cells.tsv"))
        .arg(d.join("provenance.json"))
        .arg(&out)
        .arg("--check")
        .output()
        .expect("python3 runs tools/live/assemble.py");
    let text = std::fs::read_to_string(&out).expect("the assembler wrote its file");
    let obs = Observations::from_json(&text).expect("in the shared format");
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        obs,
    )
}

#[test]
fn a_clean_tap_log_passes_the_harness_check() {
    let d = run_folder("clean", &format!("{}\n{}\n", record(0), record(1)));
    let (ok, err, obs) = assemble(&d);
    assert!(ok, "{err}");
    assert_eq!(obs.cells[0].component, "v41");
    assert_eq!(obs.cells[0].note, None);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn an_unreadable_tap_line_fails_the_check_and_keeps_the_readable_records() {
    // rank 1's record cut into rank 0's, as two taps writing token by token produced
    let torn = r#"{"bfrops":"v41","buffer":"non-described","flag":"SimpleClient","gds{":""bfrops"#;
    let d = run_folder("torn", &format!("{torn}\n{}\n", record(0)));
    let (ok, err, obs) = assemble(&d);
    assert!(!ok, "a torn tap log passed the harness check");
    assert!(err.contains("1 unreadable line"), "{err}");
    // the readable record still gives the cell its component
    assert_eq!(obs.cells[0].component, "v41");
    assert!(
        obs.cells[0]
            .note
            .as_deref()
            .unwrap_or("")
            .contains("harness:"),
        "{:?}",
        obs.cells[0].note
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_wire_tap_that_did_not_start_fails_the_check() {
    let d = run_folder("notap", "");
    std::fs::write(
        d.join("cell.1/harness.err"),
        "the wire tap of rank 0 did not start: \n",
    )
    .unwrap();
    let (ok, err, obs) = assemble(&d);
    assert!(!ok);
    assert!(err.contains("did not start"), "{err}");
    assert!(obs.cells[0]
        .note
        .as_deref()
        .unwrap_or("")
        .contains("nothing on the wire tap"));
    let _ = std::fs::remove_dir_all(&d);
}
