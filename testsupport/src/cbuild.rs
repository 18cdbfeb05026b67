//! A C program built against one release's libpmix, and how to run it: inside the root
//! for root releases, with the source build's library path for 6.0.0/6.1.0, directly on
//! the host for 4.2.2.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::peers::{is_root_release, peers};
use crate::repo;

/// A program built by [`build`]; its directory is removed when dropped.
pub struct Built {
    /// The path the program has where it runs (inside the root for root releases).
    pub program: String,
    /// The command it runs under (`bash tools/peers.sh run R --`), if any.
    pub wrapper: Option<String>,
    /// The release it was built against.
    pub release: String,
    /// Host directory to remove afterwards.
    pub dir: PathBuf,
}

impl Built {
    /// The command line that runs the program with `args` (through the wrapper, if any).
    pub fn argv(&self, args: &[&str]) -> Vec<String> {
        let mut v: Vec<String> = self
            .wrapper
            .iter()
            .flat_map(|w| w.split_whitespace().map(str::to_string))
            .collect();
        v.push(self.program.clone());
        v.extend(args.iter().map(|a| a.to_string()));
        v
    }
}

impl Drop for Built {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Build `source` (with the files of the `include` directory beside it) against
/// `release`'s libpmix; panics with the compiler's output if it does not build.
pub fn build(release: &str, name: &str, source: &Path, include: Option<&Path>) -> Built {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let tag = format!("pw-build-{}-{n}-{name}-{release}", std::process::id());
    let (dir, inner) = if is_root_release(release) {
        let root = String::from_utf8_lossy(&peers(&["root", release]).stdout)
            .trim()
            .to_string();
        let inner = format!("/tmp/{tag}");
        (Path::new(&root).join(inner.trim_start_matches('/')), inner)
    } else {
        let d = std::env::temp_dir().join(&tag);
        let s = d.display().to_string();
        (d, s)
    };
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(source, dir.join("prog.c")).unwrap();
    let mut inc = String::new();
    if let Some(i) = include {
        std::fs::create_dir_all(dir.join("inc")).unwrap();
        for e in std::fs::read_dir(i).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), dir.join("inc").join(e.file_name())).unwrap();
        }
        inc = format!("-I{inner}/inc");
    }
    let gcc = format!(
        "gcc -Wall -o {inner}/prog {inc} {inner}/prog.c $(pkg-config --cflags --libs pmix) -lpthread \
         -Wl,-rpath,$(pkg-config --variable=libdir pmix)"
    );
    let out = if release == "4.2.2" {
        Command::new("sh").args(["-c", &gcc]).output().unwrap()
    } else {
        Command::new("timeout")
            .args(["180", "bash"])
            .arg(repo().join("tools/peers.sh"))
            .args(["run", release, "--", "sh", "-c", &gcc])
            .output()
            .unwrap()
    };
    assert!(
        out.status.success(),
        "building {name} against {release}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Built {
        program: format!("{inner}/prog"),
        wrapper: (release != "4.2.2").then(|| {
            format!(
                "bash {} run {release} --",
                repo().join("tools/peers.sh").display()
            )
        }),
        release: release.to_string(),
        dir,
    }
}
