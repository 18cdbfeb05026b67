//! `pmix-peer`: talk to a running PMIx server as a native tool.
//!
//! ```text
//! pmix-peer connect --uri FILE [-c v61] [--needs-id] [--json]
//! pmix-peer run     --uri FILE [-c v61] --node n3 [--json] [-- /bin/sleep 5]
//! pmix-peer matrix  --uri FILE --node n3 [--json]
//! pmix-peer live    --uri FILE [-c v61] [--nspace N]
//! ```
//! `connect` performs the handshake and prints what the server said; `run` performs the
//! issue-15 acceptance conversation (allocation with inheritance, spawn into it, proc
//! table, finalize); `matrix` runs it for every component (v12 ... v61) and prints a table;
//! `live` runs the live interop matrix's tool operations (`tools/live-matrix.sh`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use pmix_codec::Component;
use pmix_peer::scenario::{self, Plan};
use pmix_peer::{ConnectRequest, Identity, Limits, Peer, ServerUri};
use serde_json::json;

#[derive(Parser)]
#[command(
    name = "pmix-peer",
    about = "A native PMIx tool: handshake and commands against a real server"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

/// The server to talk to and the component to speak: every command but `matrix` takes them.
#[derive(Args)]
struct Server {
    /// The server's URI file (`prte --report-uri FILE`, or any file whose first line is the URI).
    #[arg(long)]
    uri: PathBuf,
    /// Client bfrops component (v12 v20 v21 v3 v4 v41 v51 v61).
    #[arg(short, long, default_value = "v61")]
    component: String,
}

impl Server {
    /// Reads the URI file and checks the component name.
    fn open(&self) -> Result<(ServerUri, Component), String> {
        let c = component(&self.component)?;
        let server = ServerUri::from_file(&self.uri).map_err(|e| e.to_string())?;
        Ok((server, c))
    }
}

#[derive(Subcommand)]
enum Cmd {
    /// Connect, perform the tool handshake with a chosen component, print the answer.
    Connect {
        #[command(flatten)]
        server: Server,
        /// Tool nspace (given id); ignored with --needs-id.
        #[arg(long, default_value = "pmix-peer")]
        nspace: String,
        /// Ask the server to assign the tool's id (PMIX_TOOL_NEEDS_ID).
        #[arg(long)]
        needs_id: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// The acceptance conversation: alloc (inheritance CHILD), DVM_IS_READY, spawn, proc table, finalize.
    Run {
        #[command(flatten)]
        server: Server,
        /// Node to reserve.
        #[arg(long)]
        node: String,
        /// Print JSON (with the conversation in hex).
        #[arg(long)]
        json: bool,
        /// Program to spawn (inside the server's root) and arguments.
        #[arg(last = true)]
        argv: Vec<String>,
    },
    /// Record the `run` conversation as a conversation vector file (or compare with one).
    Record {
        #[command(flatten)]
        server: Server,
        /// Node to reserve.
        #[arg(long)]
        node: String,
        /// The conversation vector file to write (or to compare with, with --check).
        #[arg(long)]
        out: PathBuf,
        /// Compare a fresh recording with `--out` instead of writing it; exit 1 on a difference.
        #[arg(long)]
        check: bool,
    },
    /// Hostile mode (loopback only): truncated and lying messages; reports answer/drop/silence/death.
    Hostile {
        #[command(flatten)]
        server: Server,
        /// At most this many cases.
        #[arg(long, default_value_t = 40)]
        max_cases: usize,
        /// Total time budget, seconds.
        #[arg(long, default_value_t = 90)]
        seconds: u64,
        /// Wait per case for an answer, milliseconds.
        #[arg(long, default_value_t = 1000)]
        per_case_ms: u64,
        /// Vector file whose invalid decode vectors are sent (default: the repository's
        /// OpenPMIx master file of the component).
        #[arg(long)]
        vectors: Option<PathBuf>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// The live matrix's tool operations (init, query, allocation with inheritance,
    /// finalize), one `OP name status status_name observed` line each.
    Live {
        #[command(flatten)]
        server: Server,
        /// Tool nspace (given id, rank 0).
        #[arg(long, default_value = "pmix-peer")]
        nspace: String,
    },
    /// `run` for every component (v12 ... v61); one line each.
    Matrix {
        /// The server's URI file (first line: the URI).
        #[arg(long)]
        uri: PathBuf,
        /// Nodes to reserve, used in turn, comma-separated (e.g. n2,n3,n4).
        #[arg(long)]
        nodes: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

fn component(name: &str) -> Result<Component, String> {
    Component::ALL
        .iter()
        .copied()
        .find(|c| c.name() == name)
        .ok_or_else(|| {
            let valid: Vec<_> = Component::ALL.iter().map(|c| c.name()).collect();
            format!("unknown component '{name}' (valid: {})", valid.join(" "))
        })
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn plan(c: Component, node: &str, argv: Vec<String>) -> Plan {
    let pid = std::process::id();
    Plan {
        component: c,
        nspace: format!("pw{}-{pid}", c.name()),
        node: node.to_string(),
        req_id: format!("rq-{}-{pid}", c.name()),
        argv: if argv.is_empty() {
            vec!["/bin/sleep".into(), "5".into()]
        } else {
            argv
        },
        limits: Limits::default(),
        ready_wait: Duration::from_secs(30),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match real_main(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("pmix-peer: error: {e}");
            ExitCode::from(2)
        }
    }
}

fn real_main(cli: Cli) -> Result<ExitCode, String> {
    match cli.cmd {
        Cmd::Live { server, nspace } => {
            let (server, c) = server.open()?;
            let lines = pmix_peer::live::tool_ops(&server, c, &nspace);
            for l in &lines {
                println!("{l}");
            }
            let ok = lines.iter().all(|l| l.status == 0);
            Ok(if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Cmd::Connect {
            server,
            nspace,
            needs_id,
            json,
        } => {
            let (server, c) = server.open()?;
            let identity = if needs_id {
                Identity::ToolNeedsId
            } else {
                Identity::ToolGivenId { nspace, rank: 0 }
            };
            let req = ConnectRequest::tool(identity, c);
            let r = Peer::connect(&server, &req, Limits::default());
            let out = match &r {
                Ok(p) => json!({
                    "uri": server.uri, "component": c.name(), "version_sent": req.version,
                    "accepted": true, "status": p.reply.status,
                    "server_nspace": p.reply.server_nspace, "server_rank": p.reply.server_rank,
                    "assigned": p.reply.assigned.as_ref().map(|(n, r)| json!({"nspace": n, "rank": r})),
                    "security": p.reply.security,
                    "connect_message": hex(&p.transcript[0].bytes),
                }),
                Err(e) => json!({
                    "uri": server.uri, "component": c.name(), "version_sent": req.version,
                    "accepted": false, "status": e.status().0, "error": e.to_string(),
                }),
            };
            if json {
                println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
            } else {
                match &r {
                    Ok(p) => println!(
                        "{} accepted a {} tool {}:{}: server {}:{}, security status {}",
                        server.uri,
                        c.name(),
                        p.me.nspace,
                        p.me.rank,
                        p.reply.server_nspace,
                        p.reply.server_rank,
                        p.reply.security
                    ),
                    Err(e) => println!("{} refused a {} tool: {e}", server.uri, c.name()),
                }
            }
            if let Ok(p) = r {
                let _ = p.finalize(Duration::from_secs(5));
                Ok(ExitCode::SUCCESS)
            } else {
                Ok(ExitCode::FAILURE)
            }
        }
        Cmd::Run {
            server,
            node,
            json,
            argv,
        } => {
            let (server, c) = server.open()?;
            let p = plan(c, &node, argv);
            let report = scenario::run(&server, &p);
            if json {
                let mut j = report.to_json();
                j["conversation"] = report
                    .transcript
                    .iter()
                    .map(|x| json!({"dir": format!("{:?}", x.direction), "what": x.what, "hex": hex(&x.bytes)}))
                    .collect();
                println!("{}", serde_json::to_string_pretty(&j).unwrap_or_default());
            } else {
                for s in &report.steps {
                    let (mark, d) = match &s.outcome {
                        Ok(d) => ("ok  ", d),
                        Err(d) => ("FAIL", d),
                    };
                    println!("{mark} {:<18} {:>6} ms  {d}", s.name, s.ms);
                }
                println!("accepted: {}", report.accepted(&p));
            }
            Ok(if report.accepted(&p) {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Cmd::Record {
            server,
            node,
            out,
            check,
        } => {
            let (server, c) = server.open()?;
            let mut p = plan(c, &node, vec!["/bin/sleep".into(), "5".into()]);
            // fixed names: the requests' bytes must not depend on this process
            p.nspace = format!("conv-{}", c.name());
            p.req_id = format!("conv-req-{}", c.name());
            let report = scenario::run(&server, &p);
            if !report.accepted(&p) {
                return Err(format!(
                    "the conversation did not complete: {}",
                    serde_json::to_string(&report.to_json()).unwrap_or_default()
                ));
            }
            let codec = pmix_codec::Codec::new(c, pmix_codec::BufferKind::NonDescribed);
            let desc = format!(
                "PRRTE 5.0.0rc1 DVM on OpenPMIx 7.0.0rc1 ({})",
                server.version.clone().unwrap_or_default()
            );
            let fresh = pmix_peer::conversation::to_vector_file(&codec, &desc, &report.transcript)
                .map_err(|e| e.to_string())?;
            if check {
                let text = std::fs::read_to_string(&out)
                    .map_err(|e| format!("cannot read {}: {e}", out.display()))?;
                let stored: serde_json::Value =
                    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", out.display()))?;
                let diffs = pmix_peer::conversation::compare(&stored, &fresh);
                if diffs.is_empty() {
                    println!(
                        "{}: unchanged ({} messages)",
                        out.display(),
                        fresh["numberOfTests"]
                    );
                    return Ok(ExitCode::SUCCESS);
                }
                for d in &diffs {
                    println!("{}: {d}", out.display());
                }
                return Ok(ExitCode::FAILURE);
            }
            let text = serde_json::to_string_pretty(&fresh).map_err(|e| e.to_string())? + "\n";
            pmix_codec::vectors::VectorFile::from_json(&text)
                .map_err(|e| format!("the recording is not a valid vector file: {e}"))?;
            if let Some(dir) = out.parent() {
                std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
            }
            std::fs::write(&out, text).map_err(|e| format!("{}: {e}", out.display()))?;
            println!("{}: {} messages", out.display(), fresh["numberOfTests"]);
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Hostile {
            server,
            max_cases,
            seconds,
            per_case_ms,
            vectors,
            json,
        } => {
            let (server, c) = server.open()?;
            let path = vectors.unwrap_or_else(|| {
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
                    "../vectors/openpmix-7.0.0rc1/{}-non-described.json",
                    c.name()
                ))
            });
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let file = pmix_codec::vectors::VectorFile::from_json(&text)?;
            let budget = pmix_peer::hostile::Budget {
                max_cases,
                total: Duration::from_secs(seconds),
                per_case: Duration::from_millis(per_case_ms),
            };
            let cases =
                pmix_peer::hostile::run(&server, c, &file, budget).map_err(|e| e.to_string())?;
            let died = cases
                .iter()
                .any(|k| matches!(k.verdict, pmix_peer::hostile::Verdict::Died(_)));
            if json {
                let j: Vec<_> = cases.iter().map(|k| k.to_json()).collect();
                println!("{}", serde_json::to_string_pretty(&j).unwrap_or_default());
            } else {
                for k in &cases {
                    let j = k.to_json();
                    println!(
                        "{:<9} {}  {}",
                        j["verdict"].as_str().unwrap_or(""),
                        k.name,
                        j["detail"].as_str().unwrap_or("")
                    );
                }
                println!(
                    "{} cases; server {}",
                    cases.len(),
                    if died {
                        "DIED (a finding: see peer/FINDINGS.md)"
                    } else {
                        "alive after every case"
                    }
                );
            }
            Ok(if died {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            })
        }
        Cmd::Matrix { uri, nodes, json } => {
            let server = ServerUri::from_file(&uri).map_err(|e| e.to_string())?;
            let nodes: Vec<&str> = nodes.split(',').collect();
            let comps = Component::ALL;
            if nodes.iter().any(|n| n.is_empty()) {
                return Err("--nodes: comma-separated node names, e.g. n2,n3,n4".into());
            }
            let mut rows = Vec::new();
            for (c, node) in comps.iter().zip(nodes.iter().cycle()) {
                let p = plan(*c, node, vec![]);
                let r = scenario::run(&server, &p);
                rows.push((p, r));
            }
            if json {
                let j: Vec<_> = rows
                    .iter()
                    .map(|(p, r)| {
                        let mut j = r.to_json();
                        j["accepted"] = json!(r.accepted(p));
                        j
                    })
                    .collect();
                println!("{}", serde_json::to_string_pretty(&j).unwrap_or_default());
            } else {
                println!("| component | connect | inheritance (type 75) | alloc | DVM_IS_READY | spawn (target) | procs on node | finalize |");
                println!("|---|---|---|---|---|---|---|---|");
                for (p, r) in &rows {
                    let step = |n: &str| {
                        r.steps
                            .iter()
                            .find(|s| s.name == n)
                            .map(|s| match &s.outcome {
                                Ok(_) => "yes".to_string(),
                                Err(e) => format!("no: {e}"),
                            })
                            .unwrap_or_else(|| "-".into())
                    };
                    println!(
                        "| {} | {} | {} | {} | {} | {} | {} | {} |",
                        r.component,
                        step("connect"),
                        if r.server.is_none() {
                            "-".to_string()
                        } else if r.inheritance_sent {
                            "sent CHILD".to_string()
                        } else {
                            format!(
                                "not expressible ({}); server, given type 75 anyway: {}",
                                r.inheritance_refusal.clone().unwrap_or_default(),
                                r.type75_probe.clone().unwrap_or_default()
                            )
                        },
                        match (&r.alloc_status, &r.alloc_id) {
                            (Some(s), id) =>
                                format!("status {s}, id {}", id.clone().unwrap_or_default()),
                            _ => step("alloc"),
                        },
                        step("dvm-is-ready"),
                        match &r.spawn {
                            Some((s, ns)) =>
                                format!("status {s} {}", ns.clone().unwrap_or_default()),
                            None => step("spawn"),
                        },
                        if r.procs.is_empty() {
                            "-".to_string()
                        } else {
                            r.procs
                                .iter()
                                .map(|(_, h)| h.as_str())
                                .collect::<Vec<_>>()
                                .join(",")
                                + if r.procs.iter().all(|(_, h)| *h == p.node) {
                                    " (reserved node)"
                                } else {
                                    " (NOT the reserved node)"
                                }
                        },
                        step("finalize"),
                    );
                }
            }
            // success when every component the server accepted ran the whole conversation
            let ok = rows
                .iter()
                .filter(|(_, r)| r.server.is_some())
                .all(|(p, r)| r.accepted(p));
            Ok(if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
    }
}
