//! Issue 25, finding 4: a testee or server that starts a child holding its pipes. The child
//! process runs in its own process group and is killed as a group on a timeout, when it
//! crashes and at the end; a child that exits is noticed at once even when a grandchild
//! keeps its stdout open. Before the fix the grandchildren outlived the runner (9 of 9) and
//! every such case waited out its whole timeout.
//!
//! The descendant here is `sleep 300` holding stdin and stdout; its pid is written to a file.

use pmix_conformance::process::{ExchangeError, FramedProcess};
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

const CLI: &str = env!("CARGO_BIN_EXE_pmix-conformance");

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pmix-pgroups-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// The pids in `file` (one per line), waiting up to 5 s for the first.
fn pids(file: &PathBuf) -> Vec<i32> {
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let p: Vec<i32> = text.lines().filter_map(|l| l.trim().parse().ok()).collect();
        if !p.is_empty() || Instant::now() > until {
            return p;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether `pid` is still a running process (a zombie waiting for its parent is not).
fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => false,
        Ok(s) => {
            let state = s.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z') && !state.starts_with('X')
        }
    }
}

/// Every pid in `file` is gone within 2 s (killing is asynchronous).
fn assert_all_gone(file: &PathBuf, what: &str) {
    let p = pids(file);
    assert!(
        !p.is_empty(),
        "{what}: the descendant did not write its pid"
    );
    let until = Instant::now() + Duration::from_secs(2);
    while p.iter().any(|&x| alive(x)) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    let left: Vec<i32> = p.into_iter().filter(|&x| alive(x)).collect();
    for &x in &left {
        // do not leave them behind even when the test fails
        let _ = Command::new("kill").arg("-9").arg(x.to_string()).status();
    }
    assert!(left.is_empty(), "{what}: descendants still alive: {left:?}");
}

fn sh(script: &str) -> Vec<String> {
    vec!["sh".into(), "-c".into(), script.into()]
}

#[test]
fn a_child_that_exits_leaving_a_grandchild_on_the_pipes_ends_the_wait_at_once() {
    let pidfile = tmp("exits.pid");
    let _ = std::fs::remove_file(&pidfile);
    let script = format!("sleep 300 0<&0 & echo $! > {}; exit 3", pidfile.display());
    let mut p = FramedProcess::spawn(&sh(&script)).unwrap();
    let _ = pids(&pidfile);
    let t0 = Instant::now();
    let r = p.exchange(b"{}", Instant::now() + Duration::from_secs(30));
    let waited = t0.elapsed();
    assert!(
        matches!(r, Err(ExchangeError::Ended(ref d)) if d.contains("exit status: 3")),
        "{r:?}"
    );
    assert!(waited < Duration::from_secs(3), "waited {waited:?}");
    assert_all_gone(&pidfile, "after the child ended");
}

#[test]
fn a_timeout_kills_the_whole_group() {
    let pidfile = tmp("hangs.pid");
    let _ = std::fs::remove_file(&pidfile);
    let script = format!(
        "sleep 300 0<&0 & echo $! > {}; sleep 300",
        pidfile.display()
    );
    let mut p = FramedProcess::spawn(&sh(&script)).unwrap();
    let _ = pids(&pidfile);
    let r = p.exchange(b"{}", Instant::now() + Duration::from_millis(300));
    assert_eq!(r, Err(ExchangeError::Timeout));
    assert_all_gone(&pidfile, "after the timeout");
}

#[test]
fn finishing_kills_what_the_child_left_running() {
    let pidfile = tmp("finish.pid");
    let _ = std::fs::remove_file(&pidfile);
    // reads stdin to its end, then exits; the grandchild would stay
    let script = format!(
        "sleep 300 0</dev/null & echo $! > {}; cat >/dev/null",
        pidfile.display()
    );
    let mut p = FramedProcess::spawn(&sh(&script)).unwrap();
    let _ = pids(&pidfile);
    p.finish(None, Duration::from_secs(2));
    assert_all_gone(&pidfile, "after finish");
    let pidfile = tmp("drop.pid");
    let _ = std::fs::remove_file(&pidfile);
    let script = format!("sleep 300 & echo $! > {}; sleep 300", pidfile.display());
    let p = FramedProcess::spawn(&sh(&script)).unwrap();
    let _ = pids(&pidfile);
    drop(p);
    assert_all_gone(&pidfile, "after drop");
}

/// Through the runner: a testee that answers `capabilities`, starts a grandchild holding
/// its pipes and exits. Each case is an error at once (not after `--timeout`), and no
/// grandchild outlives the run.
/// The runner's `--timeout` in [`the_runner_leaves_no_descendant_and_waits_no_timeout`]:
/// far above what the run takes on a loaded machine.
const TIMEOUT_S: u64 = 120;

#[test]
fn the_runner_leaves_no_descendant_and_waits_no_timeout() {
    let pidfile = tmp("runner.pid");
    let _ = std::fs::remove_file(&pidfile);
    let caps = r#"{"name":"forker","protocol":1,"components":["v41"],"buffers":["non-described"],"releases":["4.2"]}"#;
    let script = tmp("forker.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ns='{caps}'\nprintf \"\\\\$(printf '%03o' ${{#s}})\\000\\000\\000%s\" \"$s\"\n\
             sleep 300 0<&0 & echo $! >> {}\nexit 1\n",
            pidfile.display()
        ),
    )
    .unwrap();
    let t0 = Instant::now();
    let out = Command::new(CLI)
        .args([
            "vectors",
            "--timeout",
            &TIMEOUT_S.to_string(),
            "--filter",
            "v41.non-described.UINT32.valid.",
            "--",
            "sh",
        ])
        .arg(&script)
        .output()
        .unwrap();
    let took = t0.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("crash"),
        "the cases are crashes: {stdout}\n{stderr}"
    );
    let started = pids(&pidfile).len();
    assert!(
        started >= 2,
        "{started} testees started: {stdout}\n{stderr}"
    );
    // Before the fix each case waited out --timeout. The run's own time depends on the
    // machine's load (17 s measured on a 2-core machine at load 6, niced), so the bound is
    // half of one timeout: a run that waits out any case's timeout exceeds it whatever the
    // load, and a loaded machine does not.
    assert!(
        took < Duration::from_secs(TIMEOUT_S / 2),
        "the run took {took:?}"
    );
    assert_all_gone(&pidfile, "after the run");
}
