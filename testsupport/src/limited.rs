//! Running one test again in a child process under an address-space limit (`ulimit -v`),
//! so that "memory is bounded by the work, not by what a peer claims" is checked as an
//! exit status: an allocation the limit refuses aborts the child (exit 134), which fails
//! the parent test with the child's output.

use std::process::Command;

/// The variable that tells the child which test it is.
const CHILD: &str = "PMIX_TESTSUPPORT_LIMITED_CHILD";

/// Whether this process is the child that runs `test` under the limit.
pub fn is_limited_child(test: &str) -> bool {
    std::env::var(CHILD).is_ok_and(|t| t == test)
}

/// Run this test binary's `test` again in a child under `ulimit -v kb`; the child must
/// exit normally (`what` names what must survive, for the failure message). Its output.
pub fn rerun_under_ulimit(test: &str, kb: u64, what: &str) -> String {
    let exe = std::env::current_exe().expect("the test binary");
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            r#"ulimit -v {kb} && exec "$0" --exact "$1" --nocapture --test-threads 1"#
        ))
        .arg(&exe)
        .arg(test)
        .env(CHILD, test)
        .output()
        .expect("run the child under ulimit");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{test}: {what} did not survive under ulimit -v {kb}: {:?}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}
