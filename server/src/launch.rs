//! Launching the server's own job: its local clients, each started with the environment
//! it needs ([`crate::process`]), and the exit status of the worst of them.

use std::os::unix::process::ExitStatusExt;
use std::process::{Child, ExitStatus};
use std::time::{Duration, Instant};

pub use crate::process::{
    command, environment_for, kill_group, uri_variable, Launch, SERVER_VERSION,
};
use crate::server::Server;

/// The environment of `rank` of the server's own job.
pub fn environment(server: &Server, rank: u32, launch: &Launch) -> Vec<(String, String)> {
    let config = &server.shared.config;
    environment_for(&server.uri(), &config.job, &config.psec, rank, launch)
}

/// What became of one client.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Its rank.
    pub rank: u32,
    /// How it ended (`None`: could not be waited for).
    pub status: Option<ExitStatus>,
}

impl Outcome {
    /// Its exit code as a shell reports it (128 + signal when killed; 127 when it could
    /// not be started or waited for).
    pub fn code(&self) -> i32 {
        match self.status {
            Some(s) => s.code().unwrap_or_else(|| 128 + s.signal().unwrap_or(0)),
            None => 127,
        }
    }
}

/// The worst exit code: the largest.
pub fn worst(outcomes: &[Outcome]) -> i32 {
    outcomes.iter().map(Outcome::code).max().unwrap_or(0)
}

/// Start `-n` copies of `program` with their environments, wait for all, and return
/// what became of each. A client that aborts (`PMIx_Abort`) ends the job: the others are
/// terminated, as a launcher does.
pub fn run(
    server: &Server,
    n: u32,
    program: &str,
    args: &[String],
    launch: &Launch,
) -> std::io::Result<Vec<Outcome>> {
    let mut children: Vec<(u32, Option<Child>)> = Vec::new();
    for rank in 0..n {
        let env = environment(server, rank, launch);
        match command(program, args, env, &launch.wrapper).spawn() {
            Ok(child) => children.push((rank, Some(child))),
            Err(e) => {
                for (_, c) in children.iter_mut() {
                    if let Some(c) = c {
                        kill_group(c, "-KILL");
                        let _ = c.wait();
                    }
                }
                return Err(std::io::Error::new(
                    e.kind(),
                    format!("starting {program} as rank {rank}: {e}"),
                ));
            }
        }
    }
    let deadline = launch.timeout.map(|t| Instant::now() + t);
    let mut outcomes: Vec<Option<Outcome>> = vec![None; n as usize];
    let mut killed: Option<Instant> = None;
    let mut hard = false;
    loop {
        for (rank, slot) in children.iter_mut() {
            if let Some(c) = slot {
                match c.try_wait() {
                    Ok(Some(s)) => {
                        outcomes[*rank as usize] = Some(Outcome {
                            rank: *rank,
                            status: Some(s),
                        });
                        *slot = None;
                    }
                    Ok(None) => {}
                    Err(_) => {
                        outcomes[*rank as usize] = Some(Outcome {
                            rank: *rank,
                            status: None,
                        });
                        *slot = None;
                    }
                }
            }
        }
        if children.iter().all(|(_, c)| c.is_none()) {
            break;
        }
        let aborted = !server
            .shared
            .state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .aborts
            .is_empty();
        let late = deadline.is_some_and(|d| Instant::now() > d);
        if (aborted || late) && killed.is_none() {
            killed = Some(Instant::now());
            for c in children.iter().filter_map(|(_, c)| c.as_ref()) {
                kill_group(c, "-TERM");
            }
        }
        // a client that ignores SIGTERM for 5 s is killed
        if !hard && killed.is_some_and(|t| t.elapsed() > Duration::from_secs(5)) {
            hard = true;
            for c in children.iter().filter_map(|(_, c)| c.as_ref()) {
                kill_group(c, "-KILL");
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    Ok(outcomes.into_iter().flatten().collect())
}
