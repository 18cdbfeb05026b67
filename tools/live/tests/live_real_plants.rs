//! The real plants (issue 38 item 1): `bash tools/live-matrix.sh --ci --plant
//! crash,init-fails` against the plain 4.2.2 server with a 4.2.2 client: the live client
//! really raises SIGSEGV after init (`PMIX_LIVE_PLANT=segv-after-init`), the plain server
//! really refuses every client (`PMIX_PLAIN_PLANT=refuse-clients`), both cells come out
//! failing, and the CI gate exits non-zero naming them. Needs root and the made libraries
//! (`bash tools/peers.sh list`), and runs real processes for about a minute: ignored by
//! default, run with
//! `cargo test --release -p pmix-live --test live_real_plants -- --ignored`.

use std::path::Path;
use std::process::Command;

use pmix_live::{Ending, Observations};

#[test]
#[ignore = "needs root and the made libraries; runs real servers and clients"]
fn planted_crash_and_init_failure_fail_the_ci_gate() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    // the caller's shared folder when set (live-matrix.sh's PMIX_LIVE_SHARED), else our own
    let own = std::env::var_os("PMIX_LIVE_SHARED").is_none();
    let shared = std::env::var("PMIX_LIVE_SHARED")
        .unwrap_or_else(|_| format!("/tmp/pmix-live-plant-test-{}", std::process::id()));
    let out = std::env::temp_dir().join(format!("pmix-live-plants-{}.json", std::process::id()));
    let run = Command::new("bash")
        .arg(repo.join("tools/live-matrix.sh"))
        .args([
            "--ci",
            "--servers",
            "plain-4.2.2",
            "--clients",
            "4.2.2",
            "--plant",
            "crash,init-fails",
            "--json",
        ])
        .arg(&out)
        .env("PMIX_LIVE_SHARED", &shared)
        .output()
        .expect("bash runs tools/live-matrix.sh");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stdout}\n{stderr}");
    let worse: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("worse: "))
        .collect();
    assert_eq!(worse.len(), 2, "{stdout}\n{stderr}");
    assert!(
        worse
            .iter()
            .any(|l| l.contains("plant=crash") && l.contains("SIGSEGV in rank0 after init")),
        "{stdout}"
    );
    assert!(
        worse
            .iter()
            .any(|l| l.contains("plant=init-fails") && l.ends_with(": init")),
        "{stdout}"
    );
    let obs = Observations::load(&out).expect("the run's observations");
    let crash = obs
        .cells
        .iter()
        .find(|c| c.plant.as_deref() == Some("crash"))
        .expect("the crash cell");
    assert!(crash.processes.iter().all(|p| p.who == "server"
        || p.ended
            == Ending::Signal {
                signal: "SIGSEGV".into()
            }));
    let refused = obs
        .cells
        .iter()
        .find(|c| c.plant.as_deref() == Some("init-fails"))
        .expect("the init-fails cell");
    assert!(refused.ops[0].status != 0, "{refused:?}");
    // the real base cell still works: the plants did not leak into it
    let base = obs
        .cells
        .iter()
        .find(|c| c.plant.is_none())
        .expect("the base cell");
    assert!(base
        .ops
        .iter()
        .any(|o| o.op.as_str() == "finalize" && o.ok()));
    let _ = std::fs::remove_file(&out);
    if own {
        let _ = std::fs::remove_dir_all(&shared);
    }
}
