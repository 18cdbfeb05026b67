//! A real Slurm cluster (munged, slurmctld, slurmd n1 and n2) from `tools/live/slurm.sh`
//! (the live matrix's script: a debootstrap root per Slurm version, its PMIx plugin and
//! libpmix from Debian's archive), started inside a private network namespace so that its
//! ports cannot meet another cluster's and a capture holds only its traffic. Stopped (every
//! daemon) when dropped.

use std::path::PathBuf;
use std::process::{Command, Output};

use crate::capture::Netns;
use crate::repo;

/// A running cluster.
pub struct Slurm {
    /// The namespace it runs in.
    pub netns: Netns,
    /// Its state directory (`pids`, `root`, logs).
    pub dir: PathBuf,
    /// The root it runs in (host path).
    pub root: PathBuf,
}

fn script() -> PathBuf {
    repo().join("tools/live/slurm.sh")
}

/// The Debian suite of the root a Slurm version runs in (as `tools/live/slurm.sh` makes it).
fn suite_of(version: &str) -> &'static str {
    if version.starts_with("22.") {
        "bookworm"
    } else {
        "trixie"
    }
}

/// A slurmctld already running chrooted in the `suite` root, if any.
fn running_on(suite: &str) -> Option<u32> {
    let tail = format!("/slurm/{suite}");
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|e| {
        let pid: u32 = e.file_name().to_str()?.parse().ok()?;
        let comm = std::fs::read_to_string(e.path().join("comm")).ok()?;
        let root = std::fs::read_link(e.path().join("root")).ok()?;
        (comm.trim() == "slurmctld" && root.to_string_lossy().ends_with(&tail)).then_some(pid)
    })
}

impl Slurm {
    /// Whether Slurm `version` can be started here: `Err` says what is missing, or that
    /// another cluster already runs on its root.
    pub fn available(version: &str) -> Result<(), String> {
        if !script().exists() {
            return Err("tools/live/slurm.sh is not in this tree".into());
        }
        let made = Command::new("bash")
            .arg(script())
            .args(["made", version])
            .output()
            .is_ok_and(|o| o.status.success());
        if !made {
            return Err(format!(
                "Slurm {version} is not made (bash tools/live/slurm.sh make {version})"
            ));
        }
        match running_on(suite_of(version)) {
            Some(pid) => Err(format!(
                "another Slurm cluster (slurmctld pid {pid}, e.g. tools/live-matrix.sh's) runs on \
                 the same {version} root: two clusters on one root share its spool state"
            )),
            None => Ok(()),
        }
    }

    /// Start Slurm `version` in a new private network namespace.
    pub fn start(version: &str, name: &str) -> Result<Slurm, String> {
        let netns = Netns::create()?;
        let dir = std::env::temp_dir().join(format!("pmix-slurm-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let out = netns
            .command("timeout")
            .args(["150", "bash"])
            .arg(script())
            .args(["start", "--version", version, "--timeout", "90", "--slurm"])
            .arg(&dir)
            .output()
            .map_err(|e| e.to_string())?;
        let root = std::fs::read_to_string(dir.join("root")).unwrap_or_default();
        let slurm = Slurm {
            netns,
            dir,
            root: PathBuf::from(root.trim()),
        };
        if !out.status.success() {
            return Err(format!(
                "slurm.sh start failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(slurm)
    }

    fn holder(&self) -> String {
        std::fs::read_to_string(self.dir.join("pids"))
            .unwrap_or_default()
            .lines()
            .find_map(|l| l.strip_prefix("holder ").map(str::to_string))
            .expect("the namespace holder's pid")
    }

    /// Run `sh -c SCRIPT` inside the cluster's root and namespaces (mount and network), as
    /// its users do (`srun ...`), under `timeout SECS`.
    pub fn run(&self, script: &str, secs: u32) -> Output {
        Command::new("nsenter")
            .args(["-t", &self.holder(), "-m", "-n", "-r", "-w", "--"])
            .args([
                "env",
                "-i",
                "PATH=/usr/sbin:/usr/bin:/sbin:/bin",
                "HOME=/root",
            ])
            .args(["timeout", &secs.to_string(), "sh", "-c", script])
            .output()
            .expect("nsenter runs")
    }
}

impl Drop for Slurm {
    fn drop(&mut self) {
        let _ = Command::new("timeout")
            .args(["60", "bash"])
            .arg(script())
            .args(["stop", "--timeout", "20", "--slurm"])
            .arg(&self.dir)
            .output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
