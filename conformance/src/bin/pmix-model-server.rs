//! `pmix-model-server`: the reference model served over the SERVER.md protocol
//! (4-byte little-endian length + JSON, on stdin/stdout).
//!
//! `pmix-model-server [--mutant NAME] [--strict-ownership] [--observables-only | --refuse-all]`
//!
//! `--strict-ownership` enforces ownership strictly for job control: a `kill` by a
//! requester that is neither the job, its launcher, an owner of a reservation it runs in nor
//! the scheduler is refused with `PMIX_ERR_NO_PERMISSIONS`, whatever its uid (without it any
//! requester may, as a server granting by uid would). Harnesses that drive real servers are
//! checked against this mode (`tests/bridge_harness.rs`). `--observables-only` drops the
//! `introspection` capability (the model then shows only what a real server shows);
//! `--refuse-all` answers `unsupported` to everything, which the suite must never report as
//! conforming.

use pmix_conformance::model::Mutant;
use pmix_conformance::protocol::{Request, Response};
use pmix_conformance::server::{read_frame, write_frame, ModelServer};
use std::io::{BufReader, BufWriter};
use std::process::ExitCode;

const HELP: &str = "\
usage: pmix-model-server [--mutant NAME] [--strict-ownership] [--observables-only | --refuse-all]
Serves the reference model over stdin/stdout (see SERVER.md).

  --mutant NAME        serve a deliberately wrong model (one spec rule broken)
  --strict-ownership   job control (kill) refuses a requester that is neither the job, its
                       launcher, an owner of a reservation it runs in nor the scheduler,
                       whatever its uid (default: any requester may, as a uid check grants)
  --observables-only   no introspection capability: show only what a real server shows
  --refuse-all         answer unsupported to everything (a test aid)
";

fn main() -> ExitCode {
    let mut mutant = None;
    let mut observables_only = false;
    let mut refuse_all = false;
    let mut strict_ownership = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--mutant" => match args.next().map(|m| m.parse::<Mutant>()) {
                Some(Ok(m)) => mutant = Some(m),
                Some(Err(e)) => {
                    eprintln!("pmix-model-server: {e}");
                    return ExitCode::from(2);
                }
                None => {
                    eprintln!("pmix-model-server: --mutant needs a name");
                    return ExitCode::from(2);
                }
            },
            "--observables-only" => observables_only = true,
            "--refuse-all" => refuse_all = true,
            "--strict-ownership" => strict_ownership = true,
            "-h" | "--help" => {
                print!("{HELP}");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("pmix-model-server: unknown argument {other:?} (valid: --mutant NAME, --strict-ownership, --observables-only, --refuse-all)");
                return ExitCode::from(2);
            }
        }
    }
    let server = if refuse_all {
        ModelServer::refusing()
    } else if observables_only {
        ModelServer::observables_only(mutant)
    } else {
        ModelServer::new(mutant)
    };
    let mut server = if strict_ownership {
        server.with_strict_ownership()
    } else {
        server
    };
    let mut input = BufReader::new(std::io::stdin().lock());
    let mut output = BufWriter::new(std::io::stdout().lock());
    loop {
        let frame = match read_frame(&mut input) {
            Ok(Some(f)) => f,
            Ok(None) => return ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("pmix-model-server: {e}");
                return ExitCode::from(1);
            }
        };
        let (resp, stop) = match serde_json::from_slice::<Request>(&frame) {
            Ok(req) => (server.handle(&req), matches!(req, Request::Shutdown)),
            Err(e) => (
                Response {
                    status: pmix_codec::Status::ERR_BAD_PARAM.0,
                    message: Some(format!("invalid request: {e}")),
                    ..Default::default()
                },
                false,
            ),
        };
        let body = match serde_json::to_vec(&resp) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("pmix-model-server: {e}");
                return ExitCode::from(1);
            }
        };
        if let Err(e) = write_frame(&mut output, &body) {
            eprintln!("pmix-model-server: {e}");
            return ExitCode::from(1);
        }
        if stop {
            return ExitCode::SUCCESS;
        }
    }
}
