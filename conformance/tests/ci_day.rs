//! Issue 25: a vendor's CI day with the runner. An unusable capabilities answer or a testee
//! that cannot start is one error line with rc 2 (not a per-case flood); `--max-errors` and
//! `--max-timeouts` stop a run early; `--json-omit-unsupported` keeps the JSON small;
//! `integers_as_strings` sends big integers as strings; a testee's huge reply is refused
//! unread (finding 3, under `ulimit -v`).
//!
//! The scripted testees here are `sh` scripts that print prepared frames.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const CLI: &str = env!("CARGO_BIN_EXE_pmix-conformance");
const TESTEE: &str = env!("CARGO_BIN_EXE_pmix-testee");

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pmix-ci-day-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn frame(body: &[u8]) -> Vec<u8> {
    let mut f = (body.len() as u32).to_le_bytes().to_vec();
    f.extend_from_slice(body);
    f
}

/// A testee that writes `frames` (prepared in a file) and then runs `then` (shell).
fn scripted(name: &str, frames: &[Vec<u8>], then: &str) -> Vec<String> {
    let f = tmp(&format!("{name}.frames"));
    std::fs::write(&f, frames.concat()).unwrap();
    vec![
        "sh".into(),
        "-c".into(),
        format!("cat '{}'; {then}", f.display()),
    ]
}

fn run(args: &[&str], testee: &[String]) -> Output {
    Command::new(CLI)
        .arg("vectors")
        .args(args)
        .arg("--")
        .args(testee)
        .output()
        .unwrap()
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

const GOOD_CAPS: &str = r#"{"name":"t","protocol":1,"components":["v41"],"buffers":["non-described"],"releases":["4.2"]}"#;

/// One line on stderr, rc 2, nothing per case on stdout.
fn one_clean_error(o: &Output, wants: &[&str]) {
    let (out, err) = text(o);
    assert_eq!(o.status.code(), Some(2), "stdout: {out}\nstderr: {err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(!out.contains("ERROR"), "no per-case flood: {out}");
    for w in wants {
        assert!(err.contains(w), "{w:?} in: {err}");
    }
}

#[test]
fn an_unusable_capabilities_answer_is_one_error_naming_the_key() {
    let valid = "valid keys: name version protocol components buffers releases";
    let typo = GOOD_CAPS.replace("\"releases\"", "\"release\"");
    let o = run(&[], &scripted("typo", &[frame(typo.as_bytes())], "sleep 5"));
    one_clean_error(&o, &["unknown key \"release\"", valid]);
    let missing = r#"{"name":"t","protocol":1,"components":["v41"],"buffers":["non-described"]}"#;
    let o = run(
        &[],
        &scripted("missing", &[frame(missing.as_bytes())], "sleep 5"),
    );
    one_clean_error(&o, &["lacks the key \"releases\"", valid]);
    let wrong = GOOD_CAPS.replace(r#"["4.2"]"#, r#""4.2""#);
    let o = run(
        &[],
        &scripted("wrong", &[frame(wrong.as_bytes())], "sleep 5"),
    );
    one_clean_error(&o, &["wrong type in key \"releases\"", valid]);
    // an unknown value was already one line; it still is
    let value = GOOD_CAPS.replace(r#"["4.2"]"#, r#"["4.3"]"#);
    let o = run(
        &[],
        &scripted("value", &[frame(value.as_bytes())], "sleep 5"),
    );
    one_clean_error(&o, &["unknown releases [\"4.3\"]"]);
    // a testee that cannot start
    let o = run(&[], &["/nonexistent/testee".to_string()]);
    one_clean_error(&o, &["cannot start the testee", "/nonexistent/testee"]);
}

#[test]
fn max_timeouts_and_max_errors_stop_the_run_early() {
    // answers capabilities, then never answers again
    // The testee would sleep for an hour: the run must kill it, not wait for it.
    let hang = scripted("hang", &[frame(GOOD_CAPS.as_bytes())], "sleep 3600");
    let t0 = Instant::now();
    let o = run(
        &[
            "--timeout",
            "0.3",
            "--max-timeouts",
            "2",
            "--filter",
            "v41.non-described.UINT32.",
        ],
        &hang,
    );
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(
        err.contains("stopped early: 2 cases timed out (--max-timeouts 2); 2 of"),
        "{err}"
    );
    assert!(
        out.contains(": 2 cases,"),
        "only the cases run are reported: {out}"
    );
    // Not a speed claim: far under the testee's hour, so it was killed, however loaded the
    // machine is.
    assert!(
        t0.elapsed() < Duration::from_secs(600),
        "{:?}",
        t0.elapsed()
    );
    // dies after capabilities: every case a crash
    let dies = scripted("dies", &[frame(GOOD_CAPS.as_bytes())], "sleep 0.3; exit 1");
    let o = run(
        &["--max-errors", "3", "--filter", "v41.non-described.UINT32."],
        &dies,
    );
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(
        err.contains("stopped early: 3 cases ended in an error (--max-errors 3); 3 of"),
        "{err}"
    );
    // a run that stays under its limits is not stopped
    let o = run(
        &["--max-errors", "1", "--filter", "v41.non-described.UINT32."],
        &[TESTEE.to_string()],
    );
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(!err.contains("stopped early"), "{err}");
}

#[test]
fn json_omit_unsupported_keeps_only_the_cases_in_scope() {
    let testee = [
        TESTEE.to_string(),
        "--declare-components".into(),
        "v41".into(),
    ];
    let full = run(&["--json", "--filter", "UINT32.valid"], &testee);
    let small = run(
        &[
            "--json",
            "--json-omit-unsupported",
            "--filter",
            "UINT32.valid",
        ],
        &testee,
    );
    let parse = |o: &Output| -> serde_json::Value {
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(o).1))
    };
    let (f, s) = (parse(&full), parse(&small));
    let unsupported = f["totals"]["unsupported"].as_u64().unwrap();
    assert!(unsupported > 0, "the filter crosses components");
    assert_eq!(f["totals"], s["totals"], "totals are the whole run's");
    assert_eq!(s["omitted_unsupported"].as_u64(), Some(unsupported));
    let cases = s["cases"].as_array().unwrap();
    assert_eq!(
        cases.len() as u64,
        f["cases"].as_array().unwrap().len() as u64 - unsupported
    );
    assert!(cases.iter().all(|c| c["outcome"] != "unsupported"));
    assert_eq!(s["origins"].as_object().unwrap().len(), cases.len());
    assert!(full.stdout.len() > small.stdout.len());
    // it goes with --json only
    let o = run(&["--json-omit-unsupported"], &testee);
    assert_eq!(o.status.code(), Some(2));
}

/// Finding 3: a 63 MiB valid answer took the runner from 225 MB to 2.35 GB. Under
/// `ulimit -v 800000` it must now be refused from its length (a case error), not read;
/// before the fix the same run aborted there (exit 134, in the reply's parse).
#[test]
fn a_huge_reply_is_refused_unread_under_an_address_space_limit() {
    let mut big = br#"{"result":"ok","items":[{"type":"UINT32","values":["#.to_vec();
    while big.len() < 63 << 20 {
        big.extend_from_slice(b"4294967295,");
    }
    big.extend_from_slice(b"1]}]}");
    let testee = scripted(
        "huge",
        &[frame(GOOD_CAPS.as_bytes()), frame(&big)],
        "sleep 5",
    );
    let f = tmp("huge.cmd");
    std::fs::write(&f, testee[2].as_bytes()).unwrap();
    let o = Command::new("sh")
        .arg("-c")
        .arg(r#"ulimit -v 800000 && exec "$0" vectors --max-errors 1 --filter v41.non-described.UINT32.valid -- sh -c "$(cat "$1")""#)
        .arg(CLI)
        .arg(&f)
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "no abort: {out}\n{err}");
    assert!(
        out.contains("over the 4194304-byte limit (refused unread"),
        "{out}\n{err}"
    );
}

#[test]
fn integers_as_strings_go_both_ways() {
    use pmix_conformance::testee::integers_to_strings;
    let mut j = serde_json::json!({"values": [1, 9007199254740991u64, 9007199254740992u64,
        18446744073709551615u64, -9223372036854775808i64, 1.5e300, "x"]});
    integers_to_strings(&mut j);
    assert_eq!(
        j["values"],
        serde_json::json!([
            1,
            9007199254740991u64,
            "9007199254740992",
            "18446744073709551615",
            "-9223372036854775808",
            1.5e300,
            "x"
        ])
    );
    // the JSON model reads them back where an integer is expected
    let items = pmix_codec::json::items_from_json(&serde_json::json!(
        [{"type": "UINT64", "values": ["18446744073709551615", 7]}]
    ))
    .unwrap();
    assert_eq!(
        items[0].values,
        [
            pmix_codec::Value::Uint64(u64::MAX),
            pmix_codec::Value::Uint64(7)
        ]
    );
    // but a string value stays a string
    let s = pmix_codec::json::items_from_json(&serde_json::json!(
        [{"type": "STRING", "values": ["123"]}]
    ))
    .unwrap();
    assert_eq!(s[0].values, [pmix_codec::Value::String(Some("123".into()))]);
}
