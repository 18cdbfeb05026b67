//! Issue 25: a runner a C shop's CI can download. `conformance/ci/static-runner.sh` builds
//! one statically linked `pmix-conformance` (the gnu target with `crt-static`); it must run
//! in a root that holds nothing but itself and a vector file (no Rust toolchain, no libc,
//! no loader). And the CI recipes a vendor copies (`conformance/ci/github-actions.yml`,
//! `gitlab-ci.yml`): every command they contain is run here, against this checkout.
//!
//! The first build of the static runner compiles the runner and its dependencies again
//! (its own target dir, `target/static-runner`): a few minutes on a CI machine, then cached.
//! A root needs `chroot` (as root, or in a user namespace with `unshare -r`); without one
//! the test skips loudly, and fails under CI.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Build the static runner (cached); its path.
fn static_runner() -> PathBuf {
    let out = Command::new("sh")
        .arg(repo().join("conformance/ci/static-runner.sh"))
        .output()
        .expect("run static-runner.sh");
    assert!(
        out.status.success(),
        "static-runner.sh: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

#[test]
fn the_static_runner_runs_in_an_empty_root() {
    let bin = static_runner();
    let root = std::env::temp_dir().join(format!("pmix-static-root-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    std::fs::copy(&bin, root.join("pmix-conformance")).unwrap();
    std::fs::copy(
        repo().join("vectors/openpmix-4.2.2/v41-non-described.json"),
        root.join("v41.json"),
    )
    .unwrap();
    // nothing else: no /lib, no loader, no cargo
    let entries: Vec<_> = std::fs::read_dir(&root).unwrap().collect();
    assert_eq!(entries.len(), 2);
    let args = ["/pmix-conformance", "vectors", "/v41.json"];
    let as_root = Command::new("chroot").arg(&root).args(args).output();
    let out = match as_root {
        Ok(o) if o.status.code() != Some(125) && !chroot_refused(&o) => o,
        _ => match Command::new("unshare")
            .args(["-r", "chroot"])
            .arg(&root)
            .args(args)
            .output()
        {
            Ok(o) if !chroot_refused(&o) => o,
            other => {
                let _ = std::fs::remove_dir_all(&root);
                assert!(
                    std::env::var_os("CI").is_none(),
                    "CI: no way to chroot into a minimal root: {other:?}"
                );
                eprintln!("LOUD SKIP: cannot chroot (not root, no user namespaces): the static runner was built but not run in an empty root");
                return;
            }
        },
    };
    let _ = std::fs::remove_dir_all(&root);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the static runner in an empty root: {:?}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(" 0 failed, 0 unsupported, 0 errors"),
        "{stdout}"
    );
}

fn chroot_refused(o: &std::process::Output) -> bool {
    let e = String::from_utf8_lossy(&o.stderr);
    e.contains("Operation not permitted") && e.contains("chroot")
}

/// The commands of a recipe: GitHub's `run:` (one line, or a folded `>-` block) and
/// GitLab's `script:` items.
fn commands(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    let mut in_script = false;
    while i < lines.len() {
        let l = lines[i];
        let t = l.trim_start();
        if let Some(cmd) = t.strip_prefix("run: ") {
            if cmd == ">-" {
                let indent = lines[i + 1].len() - lines[i + 1].trim_start().len();
                let mut parts = Vec::new();
                while i + 1 < lines.len()
                    && lines[i + 1].len() - lines[i + 1].trim_start().len() >= indent
                    && !lines[i + 1].trim().is_empty()
                {
                    i += 1;
                    parts.push(lines[i].trim());
                }
                out.push(parts.join(" "));
            } else {
                out.push(cmd.to_string());
            }
        } else if t == "script:" {
            in_script = true;
        } else if in_script {
            match t.strip_prefix("- ") {
                Some(item) => {
                    let item = item
                        .strip_prefix('\'')
                        .and_then(|s| s.strip_suffix('\''))
                        .unwrap_or(item);
                    out.push(item.to_string());
                }
                None => in_script = false,
            }
        }
        i += 1;
    }
    out
}

#[test]
fn the_ci_recipes_commands_run() {
    for recipe in ["github-actions.yml", "gitlab-ci.yml"] {
        let text = std::fs::read_to_string(repo().join("conformance/ci").join(recipe)).unwrap();
        let cmds = commands(&text);
        assert_eq!(cmds.len(), 3, "{recipe}: {cmds:?}");
        assert!(cmds[2].contains("--max-timeouts") && cmds[2].contains("--junit"));
        let work =
            std::env::temp_dir().join(format!("pmix-ci-recipe-{}-{recipe}", std::process::id()));
        let _ = std::fs::remove_dir_all(&work);
        std::fs::create_dir_all(&work).unwrap();
        for cmd in &cmds {
            let out = Command::new("sh")
                .arg("-c")
                .arg(cmd)
                .current_dir(&work)
                .env("PMIX_WIRE", repo().canonicalize().unwrap())
                .env("RUNNER_TEMP", &work)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{recipe}: `{cmd}` failed: {:?}\n{}\n{}",
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let junit = std::fs::read_to_string(work.join("junit.xml")).unwrap();
        assert!(
            junit.contains("<testsuite") && !junit.contains("<failure"),
            "{recipe}"
        );
        let _ = std::fs::remove_dir_all(&work);
    }
}
