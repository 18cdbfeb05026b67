//! `pmix-live-tap`: the live matrix's wire tap (see `pmix_live::tap`).
//!
//!   pmix-live-tap UPSTREAM_HOST:PORT LOG \[SECONDS\]
//!
//! Prints the local port it listens on (one line), relays every connection to the
//! upstream server and appends one JSON line per connect message to LOG; exits after
//! SECONDS (default 120).

use std::process::ExitCode;
use std::time::Duration;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 || args.len() > 3 {
        eprintln!("usage: pmix-live-tap UPSTREAM_HOST:PORT LOG [SECONDS]");
        return ExitCode::from(2);
    }
    let seconds = match args.get(2).map(|s| s.parse::<u64>()) {
        None => 120,
        Some(Ok(s)) => s,
        Some(Err(_)) => {
            eprintln!("pmix-live-tap: SECONDS must be a whole number");
            return ExitCode::from(2);
        }
    };
    let tap = match pmix_live::tap::Tap::bind(&args[0], &args[1].clone().into()) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("pmix-live-tap: {e}");
            return ExitCode::from(1);
        }
    };
    match tap.port() {
        Ok(p) => println!("{p}"),
        Err(e) => {
            eprintln!("pmix-live-tap: {e}");
            return ExitCode::from(1);
        }
    }
    use std::io::Write;
    let _ = std::io::stdout().flush();
    std::thread::spawn(move || tap.serve());
    std::thread::sleep(Duration::from_secs(seconds));
    ExitCode::SUCCESS
}
