//! `pmix-wire pcap FILE`: the PMIx messages of a tcpdump capture, decoded (the dissector is
//! the `pmix-pcap` crate; this is its command line).

use std::io::{Read, Write};
use std::path::PathBuf;

use clap::Args;
use pmix_pcap::{Event, Options, Severity};

use crate::{ComponentArg, Failure, KindArg, ReleaseArg, EXIT_OK, EXIT_PMIX};

/// Help text after the options.
pub const PCAP_HELP: &str = "\
Reads a pcap or pcapng capture (tcpdump -i lo -w FILE), reassembles every TCP stream,
finds the PMIx connections by their connect message (any port), and decodes each message
in both directions with the bfrops component, buffer kind and release the handshake names.
Requests and replies are paired by tag; problems are flagged at the byte with the reason
(a type the component does not register, a lying or truncated frame, a status that means
the server could not read the request, bytes missing from the capture).

Output: a tree per message (default), one line per message (--summary), or one JSON
object per event and line (--json: connection, message, problem, closed, stats).
Exit codes: 0 nothing wrong, 1 some message has an error-level problem, 2 usage,
3 the capture file cannot be read (what came before the bad record is still printed).

Examples:
  tcpdump -i lo -w pmix.pcap 'tcp' &   # then run the job or tool
  pmix-wire pcap pmix.pcap
  pmix-wire pcap --summary pmix.pcap
  pmix-wire pcap --json pmix.pcap | jq 'select(.event==\"message\") | .what'
  # a capture that starts after the handshake: say what was negotiated
  pmix-wire pcap --component v51 --buffer non-described late.pcap";

/// `pmix-wire pcap` arguments.
#[derive(Args, Debug)]
pub struct PcapArgs {
    /// The capture file (pcap or pcapng; `-` = stdin)
    file: PathBuf,
    /// One line per message, like tshark
    #[arg(long, conflicts_with = "json")]
    summary: bool,
    /// One JSON object per event, one per line
    #[arg(long)]
    json: bool,
    /// The component of connections joined mid-stream (their handshake is not captured)
    #[arg(long, value_enum)]
    component: Option<ComponentArg>,
    /// Their buffer kind
    #[arg(long, value_enum, default_value = "non-described")]
    buffer: KindArg,
    /// Decode the clients' messages with this release profile instead of the version
    /// string's
    #[arg(long, value_enum)]
    release: Option<ReleaseArg>,
    /// The server's release profile (the handshake does not carry it; default: the
    /// client's)
    #[arg(long, value_enum)]
    server_release: Option<ReleaseArg>,
    /// Largest frame payload believed, in bytes
    #[arg(long, default_value_t = 16 << 20)]
    max_frame: u32,
    /// Most connections followed at once
    #[arg(long, default_value_t = 65_536)]
    max_connections: usize,
    /// Most bytes held for all connections at once
    #[arg(long, default_value_t = 256 << 20)]
    max_buffered: usize,
}

/// Run `pmix-wire pcap`; `-` reads the capture from `stdin` (the one [`super::run`] was
/// given: locking the process's standard input again here would wait forever for the lock
/// the caller holds).
pub fn run(a: PcapArgs, stdin: &mut dyn Read, out: &mut dyn Write) -> Result<i32, Failure> {
    let opts = Options {
        component: a.component.map(Into::into),
        kind: a.buffer.into(),
        release: a.release.map(Into::into),
        server_release: a.server_release.map(Into::into),
        max_frame: a.max_frame,
        max_connections: a.max_connections.max(1),
        max_buffered: a.max_buffered,
        ..Options::default()
    };
    let input: Box<dyn Read + '_> = if a.file.as_os_str() == "-" {
        Box::new(std::io::BufReader::new(stdin))
    } else {
        let f = std::fs::File::open(&a.file)
            .map_err(|e| Failure::Io(format!("cannot open {}: {e}", a.file.display())))?;
        Box::new(std::io::BufReader::new(f))
    };
    let mut errors = 0usize;
    let mut write_err: Option<std::io::Error> = None;
    let mut sink = |e: Event| {
        if write_err.is_some() {
            return;
        }
        let bad = match &e {
            Event::Message(m) => m.problems.iter().any(|p| p.severity == Severity::Error),
            Event::Problem { problem, .. } => problem.severity == Severity::Error,
            _ => false,
        };
        errors += bad as usize;
        // each event is written as it is formed (a message's JSON and tree are not built
        // whole first: they were hundreds of bytes per value)
        let mut w = std::io::BufWriter::new(&mut *out);
        let r = if a.json {
            e.write_json(&mut w).and_then(|_| writeln!(w))
        } else if a.summary {
            match pmix_pcap::report::summary(&e) {
                Some(line) => writeln!(w, "{line}"),
                None => Ok(()),
            }
        } else {
            pmix_pcap::report::write_tree(&e, &mut w)
        };
        let r = r.and_then(|_| w.flush());
        if let Err(err) = r {
            write_err = Some(err);
        }
    };
    let r = pmix_pcap::dissect(input, opts, &mut sink);
    if let Some(e) = write_err {
        return Err(e.into());
    }
    r.map_err(|e| match a.file.as_os_str() == "-" {
        true => Failure::Io(format!("stdin: {e}")),
        false => Failure::Io(format!("{}: {e}", a.file.display())),
    })?;
    Ok(if errors > 0 { EXIT_PMIX } else { EXIT_OK })
}
