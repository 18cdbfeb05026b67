//! The MSRV stated in the workspace's `rust-version` is true of the lockfile: no locked
//! dependency declares a newer `rust-version` (issue 16). Only one toolchain is available
//! where CI runs, so this reads `cargo metadata` instead of building with the old compiler.

use std::process::Command;

fn version(v: &str) -> Vec<u64> {
    let mut parts: Vec<u64> = v
        .split('.')
        .map(|p| p.parse().unwrap_or_else(|_| panic!("bad version {v:?}")))
        .collect();
    parts.resize(3, 0);
    parts
}

#[test]
fn no_locked_dependency_needs_a_newer_rust_than_the_workspace_declares() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let metadata = |offline: bool| {
        let mut c = Command::new(&cargo);
        c.args(["metadata", "--format-version", "1", "--locked"]);
        if offline {
            c.arg("--offline");
        }
        c.current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("run cargo metadata")
    };
    // Offline first; a fresh machine has not downloaded the other platforms' packages
    // (e.g. Windows-only ones) that metadata lists, so then cargo may fetch them.
    let mut out = metadata(true);
    if !out.status.success() {
        out = metadata(false);
    }
    assert!(
        out.status.success(),
        "cargo metadata failed, offline and then online (it needs every locked package, \
         for every platform, downloaded or downloadable): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata JSON");
    let members: Vec<&str> = meta["workspace_members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    let packages = meta["packages"].as_array().unwrap();
    let mut declared = None;
    for p in packages
        .iter()
        .filter(|p| members.contains(&p["id"].as_str().unwrap()))
    {
        let rv = p["rust_version"]
            .as_str()
            .unwrap_or_else(|| panic!("{} declares no rust-version", p["name"]));
        match declared {
            None => declared = Some(rv.to_string()),
            Some(ref d) => assert_eq!(d, rv, "members disagree on rust-version"),
        }
    }
    let msrv = declared.expect("workspace members");
    let mut newer = Vec::new();
    let mut highest = version("1.0");
    for p in packages
        .iter()
        .filter(|p| !members.contains(&p["id"].as_str().unwrap()))
    {
        if let Some(rv) = p["rust_version"].as_str() {
            highest = highest.max(version(rv));
            if version(rv) > version(&msrv) {
                newer.push(format!("{} {} needs {rv}", p["name"], p["version"]));
            }
        }
    }
    assert!(
        newer.is_empty(),
        "the workspace claims rust-version {msrv}, but: {}",
        newer.join(", ")
    );
    // Truthful in the other direction too: the claim is what the lockfile needs, not older.
    assert_eq!(
        version(&msrv),
        highest,
        "rust-version {msrv} is lower than the lockfile needs or higher than it: the \
         newest dependency needs {highest:?}"
    );
}
