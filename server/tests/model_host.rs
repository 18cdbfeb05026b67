//! The reference model as pmix-server's host, through real OpenPMIx 7.0.0rc1 tools and
//! clients: the puppet tool of the PRRTE bridge (`tools/prrte/puppet.c`, built in the sid
//! root by `tools/prrte/puppet.sh`) connects, requests an allocation, queries, spawns a job
//! whose processes are real libpmix clients of this server (the puppet in client mode,
//! started by the server), watches them connect in the proc table, and kills the job.
//! A scheduler tool's timeout warning reaches the allocation's requester as an event.
//! The 7.0.0rc1 root missing is reported loudly, and fails under CI.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use pmix_server::host::model::ModelHost;
use pmix_server::{Config, Job, Server};

use pmix_testsupport::{peers, release_available, repo};

const RELEASE: &str = "7.0.0rc1";

/// A puppet process driven line by line (one answer line per command, bounded wait).
struct Puppet {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Puppet {
    fn start(puppet: &str, uri: &str, nspace: &str, ctl: &str, scheduler: bool) -> Puppet {
        let mut c = Command::new("bash");
        c.arg(repo().join("tools/peers.sh"))
            // the tool's own files (a scheduler's system-wide rendezvous file among
            // them, created exclusively) in this test's directory, not the root's shared
            // /tmp: a concurrent run's scheduler failed PMIx_tool_init there (-31)
            .args(["run", RELEASE, "--", "env"])
            .arg(format!("PMIX_SYSTEM_TMPDIR={ctl}"))
            .args([puppet, uri, nspace, ctl]);
        if scheduler {
            c.arg("scheduler");
        }
        let mut child = c
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the puppet starts");
        let stdin = child.stdin.take().unwrap();
        let out = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for l in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        let mut p = Puppet {
            child,
            stdin,
            lines,
        };
        let hello = p.answer(&format!("init of {nspace}"));
        assert_eq!(
            hello,
            vec!["0".to_string(), nspace.to_string()],
            "tool init"
        );
        p
    }

    fn answer(&mut self, what: &str) -> Vec<String> {
        let l = self
            .lines
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|e| panic!("no answer to {what}: {e}"));
        let mut w: Vec<String> = l.split(' ').map(str::to_string).collect();
        assert_eq!(w.first().map(String::as_str), Some("ok"), "{what}: {l}");
        w.remove(0);
        w
    }

    fn cmd(&mut self, line: &str) -> Vec<String> {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
        self.answer(line)
    }

    fn quit(mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn list(w: &[String], i: usize) -> Vec<String> {
    match w.get(i).map(String::as_str) {
        None | Some("-") => Vec::new(),
        Some(s) => {
            let mut v: Vec<String> = s.split(',').map(str::to_string).collect();
            v.sort();
            v
        }
    }
}

/// Poll `f` every 100 ms until it holds, at most `limit`.
fn eventually(limit: Duration, mut f: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

#[test]
fn real_tools_allocate_spawn_query_and_kill_through_the_model() {
    if !release_available(
        RELEASE,
        "the model host was NOT tested through real tools and clients",
    ) {
        return;
    }
    let out = Command::new("bash")
        .arg(repo().join("tools/prrte/puppet.sh"))
        .output()
        .unwrap();
    assert!(out.status.success(), "puppet.sh: {out:?}");
    let puppet = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let root = String::from_utf8_lossy(&peers(&["root", RELEASE]).stdout)
        .trim()
        .to_string();
    let ctl = format!("/tmp/pw-model-host-{}", std::process::id());
    let ctl_host = std::path::Path::new(&root).join(ctl.trim_start_matches('/'));
    std::fs::create_dir_all(&ctl_host).unwrap();

    let mut config = Config::new(Job::new("unused", 0));
    config.server_nspace = format!("pw-model-{}", std::process::id());
    config.spawn_wrapper = vec![
        "bash".into(),
        repo().join("tools/peers.sh").display().to_string(),
        "run".into(),
        RELEASE.into(),
        "--".into(),
    ];
    let nodes: Vec<String> = ["n1", "n2"].map(String::from).to_vec();
    let host = ModelHost::new(&nodes, &config.server_nspace).unwrap();
    let server_ns = config.server_nspace.clone();
    let server = Server::start_with_host(config, Box::new(host)).unwrap();
    let uri = server.uri();

    // tool namespaces of this test process alone (a tool names a rendezvous file for its
    // namespace), as its files are kept apart (Puppet::start)
    let tool_ns = format!("tool1-{}", std::process::id());
    let sched_ns = format!("sched-{}", std::process::id());
    let mut tool = Puppet::start(&puppet, &uri, &tool_ns, &ctl, false);
    // a reservation of the granted node n3; the requester hears PMIX_DVM_IS_READY
    let w = tool.cmd("alloc 1 - n3");
    assert_eq!(w[0], "0", "alloc: {w:?}");
    assert_eq!(
        w.get(2).map(String::as_str),
        Some("1"),
        "DVM_IS_READY: {w:?}"
    );
    let ids = list(&tool.cmd("ids"), 1);
    assert_eq!(ids.len(), 1, "one allocation: {ids:?}");
    let nodes = list(&tool.cmd(&format!("alloc_nodes {}", ids[0])), 1);
    assert_eq!(nodes, vec!["n3".to_string()]);
    // the daemons: one per DVM node, n3 included
    let daemons = list(&tool.cmd(&format!("procs {server_ns}")), 1);
    assert_eq!(daemons, vec!["n1", "n2", "n3"]);

    // a spawn into the default session: one real client per startup node
    let w = tool.cmd("spawn -");
    assert_eq!(w[0], "0", "spawn: {w:?}");
    let job = w[1].clone();
    let connected = eventually(Duration::from_secs(30), || {
        let states = list(&tool.cmd(&format!("states {job}")), 1);
        states == vec!["n1:6".to_string(), "n2:6".to_string()]
    });
    assert!(connected, "both processes of {job} connect as clients");
    assert_eq!(
        list(&tool.cmd(&format!("procs {job}")), 1),
        vec!["n1", "n2"]
    );
    let ns = list(&tool.cmd("namespaces"), 1);
    assert!(ns.contains(&job) && ns.contains(&tool_ns), "{ns:?}");

    // the job's rank 0 is a client of this server that takes commands too
    let fifo_out = ctl_host.join(format!("{job}.0.out"));
    assert!(
        eventually(Duration::from_secs(20), || fifo_out.exists()),
        "rank 0 of {job} made its control FIFO"
    );

    // the scheduler warns; the model relays to the requester (tool1) only
    let mut sched = Puppet::start(&puppet, &uri, &sched_ns, &ctl, true);
    let w = sched.cmd(&format!("warn {} 30", ids[0]));
    assert_eq!(w[0], "0", "warn: {w:?}");
    // (tool1's request carried no PMIX_ALLOC_WARN_TIMEOUT: the model issues no warning)
    let events = tool.cmd("events");
    assert!(
        !events.iter().any(|e| e.starts_with("-194:")),
        "no warning was requested: {events:?}"
    );

    // the launcher ends the job: its processes are killed and it leaves the namespaces
    let w = tool.cmd(&format!("kill {job}"));
    assert_eq!(w[0], "0", "kill: {w:?}");
    assert!(
        eventually(Duration::from_secs(20), || {
            !list(&tool.cmd("namespaces"), 1).contains(&job)
                && pmix_server::spawn::live_jobs(&server.shared).is_empty()
        }),
        "{job} ended and its processes are gone"
    );
    sched.quit();
    tool.quit();
    let _ = std::fs::remove_dir_all(&ctl_host);
}
