//! `pmix-server`: a native PMIx server for local clients and tools.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use pmix_codec::{BufferKind, Component};
use pmix_server::host::model::ModelHost;
use pmix_server::host::{Host, NoHost};
use pmix_server::{Config, Job, Launch, Psec, Server};

#[derive(Parser)]
#[command(
    name = "pmix-server",
    version,
    about = "A native PMIx server: launch unmodified libpmix clients against it, or serve clients and tools started elsewhere"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

/// The bounds a hostile or broken peer meets (the defaults of `Config::new`).
#[derive(Args, Clone, Copy)]
struct Bounds {
    /// Most clients connected at once; one more is refused (PMIX_ERR_OUT_OF_RESOURCE)
    /// [default: 1024, and at least -n for launch]
    #[arg(long)]
    max_clients: Option<usize>,
    /// Most tools connected at once, counted apart from the clients; one more is refused
    /// (PMIX_ERR_OUT_OF_RESOURCE) [default: 256]
    #[arg(long)]
    max_tools: Option<usize>,
    /// Most connections in their handshake at once; the longest waiting is closed to make
    /// room [default: 64]
    #[arg(long)]
    max_handshakes: Option<usize>,
    /// Most bytes of partial frames held across connections (beyond 128 KiB each); the
    /// connection that would go over is closed [default: 67108864]
    #[arg(long)]
    max_buffered: Option<usize>,
    /// Most processes one spawn may start; more is refused (PMIX_ERR_OUT_OF_RESOURCE)
    /// [default: 1024]
    #[arg(long)]
    max_spawn_procs: Option<u32>,
}

impl Bounds {
    fn apply(self, c: &mut Config) {
        if let Some(n) = self.max_clients {
            c.max_clients = n;
        }
        if let Some(n) = self.max_tools {
            c.max_tools = n;
        }
        if let Some(n) = self.max_handshakes {
            c.max_handshakes = n;
        }
        if let Some(n) = self.max_buffered {
            c.max_buffered = n;
        }
        if let Some(n) = self.max_spawn_procs {
            c.max_spawn_procs = n;
        }
        c.max_connections = c.max_clients + c.max_tools + c.max_handshakes;
    }
}

#[derive(Subcommand)]
enum Cmd {
    /// Start N clients of one job against this server; exit with the worst client's status
    Launch {
        /// Number of ranks
        #[arg(short = 'n', long, default_value_t = 1)]
        np: u32,
        /// Force the clients' bfrops component (only its PMIX_SERVER_URI variable is set)
        #[arg(short = 'c', long)]
        component: Option<Component>,
        /// Force the buffer kind (PMIX_BFROP_BUFFER_TYPE)
        #[arg(short = 'b', long)]
        buffer: Option<BufferKind>,
        /// The job's namespace (a name starting "pmix" would collide with reserved keys: OpenPMIx's example client stores "<nspace>-<rank>-internal")
        #[arg(long, default_value = "native-job")]
        nspace: String,
        /// Run each client under this command (whitespace-separated), passing the
        /// environment with `env`: e.g. "bash tools/peers.sh run 5.0.7 --" for a client
        /// built in a release's root
        #[arg(long)]
        wrapper: Option<String>,
        /// The psec modules offered (comma-separated: native, none). A client or tool
        /// naming another is refused as OpenPMIx refuses it: the connection is closed
        /// without a reply. Default native, as an OpenPMIx server started with defaults
        /// (none only when PMIX_MCA_psec names it)
        #[arg(long, default_value = "native")]
        psec: Psec,
        /// Kill the clients after this many seconds
        #[arg(long, default_value_t = 300)]
        timeout: u64,
        /// Print each rank's environment and serve clients started elsewhere, until all
        /// N ranks have finalized or gone (or the timeout)
        #[arg(long)]
        env_only: bool,
        /// Write the URI file a tool reads (pmix-peer --uri FILE)
        #[arg(long)]
        report_uri: Option<PathBuf>,
        /// Write the tool rendezvous files (pmix.HOST.tool.PID, pmix.HOST.tool) in DIR
        #[arg(long)]
        rendezvous: Option<PathBuf>,
        /// Write a JSON report at the end: per rank the component, buffer kind and version
        /// it spoke and whether it finalized; the aborts
        #[arg(long)]
        report: Option<PathBuf>,
        /// Record every message and write one conversation vector file per connection in
        /// DIR (conn-N.json, the format of vectors/README.md)
        #[arg(long)]
        record: Option<PathBuf>,
        #[command(flatten)]
        bounds: Bounds,
        /// The program and its arguments
        #[arg(last = true)]
        program: Vec<String>,
    },
    /// Serve tools and the jobs they spawn, with the reference model as the host; print
    /// the URI on the first line of standard output, and stop when standard input closes
    Serve {
        /// The DVM's startup nodes (comma-separated logical names; default: this host)
        #[arg(long)]
        nodes: Option<String>,
        /// The server's namespace (spawned jobs are named NSPACE.1, NSPACE.2, ...)
        #[arg(long)]
        nspace: Option<String>,
        /// Run each spawned process under this command (whitespace-separated), passing the
        /// environment with `env`: e.g. "bash tools/peers.sh run 7.0.0rc1 --"
        #[arg(long)]
        spawn_wrapper: Option<String>,
        /// The optional attributes the model's PMIx does not define (comma-separated
        /// macro names, e.g. PMIX_ALLOC_SHARE,PMIX_SPAWN_TARGET)
        #[arg(long)]
        unavailable: Option<String>,
        /// The psec modules offered (comma-separated: native, none). A client or tool
        /// naming another is refused as OpenPMIx refuses it: the connection is closed
        /// without a reply. Default native, as an OpenPMIx server started with defaults
        /// (none only when PMIX_MCA_psec names it)
        #[arg(long, default_value = "native")]
        psec: Psec,
        /// Job control is refused to a requester without a privilege the spec grants (the
        /// job itself, its launcher, an owner of its reservation, the scheduler)
        #[arg(long)]
        strict_ownership: bool,
        /// Write the URI file a tool reads (pmix-peer --uri FILE)
        #[arg(long)]
        report_uri: Option<PathBuf>,
        /// Record every message and write one conversation vector file per connection in
        /// DIR at the end (conn-N.json)
        #[arg(long)]
        record: Option<PathBuf>,
        #[command(flatten)]
        bounds: Bounds,
    },
}

/// `pmix-server serve`.
#[allow(clippy::too_many_arguments)]
fn serve(
    nodes: Option<String>,
    unavailable: Option<String>,
    nspace: Option<String>,
    spawn_wrapper: Option<String>,
    strict: bool,
    psec: Psec,
    report_uri: Option<PathBuf>,
    record: Option<PathBuf>,
    bounds: Bounds,
) -> ExitCode {
    let mut config = Config::new(Job::new("pmix-server-none", 0));
    config.psec = psec;
    bounds.apply(&mut config);
    if let Some(ns) = nspace {
        if ns.is_empty() || ns.len() > 200 {
            eprintln!("pmix-server: --nspace must be 1..=200 bytes");
            return ExitCode::from(2);
        }
        config.server_nspace = ns;
    }
    config.record = record.is_some();
    config.spawn_wrapper = words(spawn_wrapper);
    let nodes: Vec<String> = match nodes {
        Some(n) => n.split(',').map(|s| s.trim().to_string()).collect(),
        None => vec![config.job.hostname.clone()],
    };
    let unavailable: Vec<String> = unavailable
        .map(|u| u.split(',').map(|s| s.trim().to_string()).collect())
        .unwrap_or_default();
    let mut host = match ModelHost::with_unavailable(&nodes, &unavailable, &config.server_nspace) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("pmix-server: --nodes or --unavailable: {e}");
            return ExitCode::from(2);
        }
    };
    host.set_strict_ownership(strict);
    let mut server = match listen(config, Box::new(host), report_uri.as_deref(), None) {
        Ok(s) => s,
        Err(code) => return code,
    };
    {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        if writeln!(out, "{}", server.uri())
            .and_then(|_| out.flush())
            .is_err()
        {
            return ExitCode::from(1);
        }
    }
    // serve until standard input closes
    let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
    server.stop();
    write_conversations(&server, record.as_deref());
    ExitCode::SUCCESS
}

/// Listen on loopback with `host`, then write the URI file (`--report-uri`) and the tool
/// rendezvous files (`--rendezvous DIR`) when asked; on failure the message is printed
/// and the exit code returned.
fn listen(
    config: Config,
    host: Box<dyn Host>,
    report_uri: Option<&Path>,
    rendezvous: Option<&Path>,
) -> Result<Server, ExitCode> {
    let server = Server::start_with_host(config, host).map_err(|e| {
        eprintln!("pmix-server: cannot listen on loopback: {e}");
        ExitCode::from(1)
    })?;
    if let Some(p) = report_uri {
        server.write_uri_file(p).map_err(|e| {
            eprintln!("pmix-server: writing {}: {e}", p.display());
            ExitCode::from(1)
        })?;
    }
    if let Some(d) = rendezvous {
        server.write_rendezvous(d).map_err(|e| {
            eprintln!(
                "pmix-server: writing rendezvous files in {}: {e}",
                d.display()
            );
            ExitCode::from(1)
        })?;
    }
    Ok(server)
}

fn words(s: Option<String>) -> Vec<String> {
    s.map(|w| w.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Cmd::Serve {
            nodes,
            unavailable,
            nspace,
            spawn_wrapper,
            strict_ownership,
            psec,
            report_uri,
            record,
            bounds,
        } => serve(
            nodes,
            unavailable,
            nspace,
            spawn_wrapper,
            strict_ownership,
            psec,
            report_uri,
            record,
            bounds,
        ),
        Cmd::Launch {
            np,
            component,
            buffer,
            nspace,
            wrapper,
            psec,
            timeout,
            env_only,
            report_uri,
            rendezvous,
            report,
            record,
            bounds,
            program,
        } => {
            if np == 0 {
                eprintln!("pmix-server: -n must be at least 1");
                return ExitCode::from(2);
            }
            if nspace.is_empty() || nspace.len() > 255 {
                eprintln!("pmix-server: --nspace must be 1..=255 bytes");
                return ExitCode::from(2);
            }
            if !env_only && program.is_empty() {
                eprintln!("pmix-server: launch needs a program after `--` (or --env-only)");
                return ExitCode::from(2);
            }
            let mut config = Config::new(Job::new(&nspace, np));
            config.record = record.is_some();
            config.psec = psec;
            config.max_clients = config.max_clients.max(np as usize);
            let mut bounds = bounds;
            if bounds.max_clients.is_none() {
                bounds.max_clients = Some(config.max_clients);
            }
            bounds.apply(&mut config);
            let server = match listen(
                config,
                Box::new(NoHost),
                report_uri.as_deref(),
                rendezvous.as_deref(),
            ) {
                Ok(s) => s,
                Err(code) => return code,
            };
            let launch = Launch {
                component,
                kind: buffer,
                wrapper: words(wrapper),
                timeout: Some(Duration::from_secs(timeout)),
            };
            if env_only {
                for rank in 0..np {
                    println!("# rank {rank}");
                    for (k, v) in pmix_server::launch::environment(&server, rank, &launch) {
                        println!("{k}={v}");
                    }
                }
                use std::io::Write;
                let _ = std::io::stdout().flush();
                let done = server.wait_all_done(Duration::from_secs(timeout));
                write_report(&server, report.as_deref());
                write_conversations(&server, record.as_deref());
                if !done {
                    eprintln!("pmix-server: not every rank finalized within {timeout} s");
                    return ExitCode::from(1);
                }
                return ExitCode::SUCCESS;
            }
            match pmix_server::launch::run(&server, np, &program[0], &program[1..], &launch) {
                Ok(outcomes) => {
                    // the last messages (finalize) may still be in flight: a short bounded wait
                    server.wait_all_done(Duration::from_secs(2));
                    write_report(&server, report.as_deref());
                    write_conversations(&server, record.as_deref());
                    let st = server
                        .shared
                        .state
                        .lock()
                        .unwrap_or_else(|e| e.into_inner());
                    for a in &st.aborts {
                        eprintln!(
                            "pmix-server: rank {} called PMIx_Abort({}, \"{}\")",
                            a.rank, a.status, a.message
                        );
                    }
                    let worst = pmix_server::launch::worst(&outcomes);
                    ExitCode::from(worst.clamp(0, 255) as u8)
                }
                Err(e) => {
                    eprintln!("pmix-server: {e}");
                    ExitCode::from(127)
                }
            }
        }
    }
}

fn write_report(server: &Server, path: Option<&std::path::Path>) {
    let Some(path) = path else { return };
    let mut report = server
        .shared
        .state
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .report();
    // the server's peak resident memory, for the benchmark's memory per client
    let hwm = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| {
                l.split_whitespace()
                    .nth(1)
                    .and_then(|v| v.parse::<u64>().ok())
            })
        });
    report["vm_hwm_kb"] = serde_json::json!(hwm);
    let text = serde_json::to_string_pretty(&report).unwrap_or_default();
    if let Err(e) = std::fs::write(path, text + "\n") {
        eprintln!("pmix-server: writing the report {}: {e}", path.display());
    }
}

fn write_conversations(server: &Server, dir: Option<&std::path::Path>) {
    let Some(dir) = dir else { return };
    let version = server
        .shared
        .state
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .first_version
        .clone()
        .unwrap_or_default();
    if let Err(e) = std::fs::create_dir_all(dir) {
        eprintln!("pmix-server: creating {}: {e}", dir.display());
        return;
    }
    for (conn, file) in pmix_server::record::conversation_files(&server.transcript(), &version) {
        let path = dir.join(format!("conn-{conn}.json"));
        let text = serde_json::to_string_pretty(&file).unwrap_or_default();
        if let Err(e) = std::fs::write(&path, text + "\n") {
            eprintln!("pmix-server: writing {}: {e}", path.display());
        }
    }
}
