//! `pmix-testee`: pmix-codec as a standalone testee speaking `TESTEE.md` on stdin/stdout,
//! so the runner's subprocess path is tested end to end:
//!
//! ```sh
//! pmix-conformance vectors -- pmix-testee
//! ```
//!
//! Hidden flags make it misbehave on purpose, to prove the runner copes:
//! `--break flip-byte` flips one byte of every encode result; `--break proc-rank-2-bytes`
//! packs every PROC rank as 2 big-endian bytes (a classic width bug: the runner must name
//! the field, `...PROC.rank`, not only a byte offset); `--break crash|hang|garbage|slow`
//! aborts, hangs, writes a frame that is not JSON, or answers after `--delay-ms`;
//! `--break status-class|status-other` refuses with another status of the same class / of
//! another class (for `--status class|reject`); `--break decode-rank` decodes every PROC
//! rank one too high; `--break refuse-encode` refuses every encode. Each on requests (all of them, or with `--break-on TYPE` only those
//! whose first pack/unpack call has that type).

use clap::{Parser, ValueEnum};
use pmix_codec::json;
use pmix_codec::observe::{Field, Observer, Seg};
use pmix_codec::Status;
use pmix_conformance::process::write_frame;
use pmix_conformance::status_mode::StatusClass;
use pmix_conformance::testee::{
    codec_capabilities, codec_for, codec_reply, serve, unhex, Reply, Request,
};
use std::io::Write;
use std::process::ExitCode;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Break {
    /// Flip the middle byte of every encode result.
    FlipByte,
    /// Pack every PROC rank as 2 big-endian bytes instead of the component's encoding.
    #[value(name = "proc-rank-2-bytes")]
    ProcRank2Bytes,
    /// Abort the process.
    Crash,
    /// Never answer.
    Hang,
    /// Answer with a frame that is not JSON.
    Garbage,
    /// Answer correctly, after `--delay-ms`.
    Slow,
    /// Refuse with another status of the same class (`--status class` accepts it).
    StatusClass,
    /// Refuse with a status of another class (only `--status reject` accepts it).
    StatusOther,
    /// Decode every PROC rank as one more than it is (a field-level decode mismatch).
    DecodeRank,
    /// Refuse every encode request (PMIX_ERR_NOT_SUPPORTED at call 0).
    RefuseEncode,
}

/// A status of the same class as `s` (itself when its class has no other member).
fn class_neighbour(s: i32) -> i32 {
    let class = StatusClass::of(Status(s));
    if class == StatusClass::Unspecified {
        // PMIX_ERROR's class is every refusal.
        return Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER.0;
    }
    class
        .members()
        .iter()
        .map(|m| m.0)
        .find(|&m| m != s)
        .unwrap_or(s)
}

/// A refusal of another class than `s`.
fn other_class(s: i32) -> i32 {
    match StatusClass::of(Status(s)) {
        StatusClass::Unreadable => Status::ERR_UNKNOWN_DATA_TYPE.0,
        _ => Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER.0,
    }
}

/// Add one to every `rank` number in decoded items (wrapping within u32).
fn bump_ranks(j: &mut serde_json::Value) {
    match j {
        serde_json::Value::Object(m) => {
            for (k, v) in m.iter_mut() {
                match (k.as_str(), v.as_u64()) {
                    ("rank", Some(r)) => *v = ((r + 1) % (1u64 << 32)).into(),
                    _ => bump_ranks(v),
                }
            }
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(bump_ranks),
        _ => {}
    }
}

#[derive(Parser)]
#[command(
    name = "pmix-testee",
    version,
    about = "pmix-codec as a testee for `pmix-conformance vectors` (protocol: TESTEE.md)"
)]
struct Cli {
    /// Misbehave on purpose (for the runner's own tests).
    #[arg(long = "break", value_enum, hide = true)]
    breakage: Option<Break>,
    /// Only misbehave on requests whose first call has this type (e.g. BOOL).
    #[arg(long, hide = true, value_name = "TYPE")]
    break_on: Option<String>,
    /// Declare these components instead of all (comma-separated, unchecked: for testing
    /// how the runner treats a testee's typos).
    #[arg(long, hide = true, value_delimiter = ',')]
    declare_components: Option<Vec<String>>,
    /// Declare these buffer kinds instead of both (comma-separated, unchecked).
    #[arg(long, hide = true, value_delimiter = ',')]
    declare_buffers: Option<Vec<String>>,
    /// Declare these release profiles instead of all (comma-separated, unchecked).
    #[arg(long, hide = true, value_delimiter = ',')]
    declare_releases: Option<Vec<String>>,
    /// The delay of `--break slow`, in milliseconds.
    #[arg(long, hide = true, default_value_t = 500)]
    delay_ms: u64,
}

fn first_type(req: &Request) -> Option<String> {
    let t = match req {
        Request::Encode { items, .. } => items.get(0)?.get("type")?.clone(),
        Request::Decode { types, .. } => types.first()?.clone(),
        Request::Capabilities { .. } => return None,
    };
    json::parse_type(&t).ok().map(|t| t.to_string())
}

/// Where the PROC ranks of a buffer are: (offset, length, value), found by the codec's
/// decoder narrating the correct bytes.
#[derive(Default)]
struct Ranks(Vec<(usize, usize, u32)>);

impl Observer for Ranks {
    fn field(&mut self, f: &Field<'_>) {
        if let (Some(Seg::Name("rank")), pmix_codec::observe::Meaning::Int { value, .. }) =
            (f.path.0.last(), f.meaning)
        {
            self.0.push((f.offset, f.len, value as u32));
        }
    }
}

/// `bytes` (the correct encoding of `req`) with every PROC rank packed as 2 big-endian
/// bytes; `None` when it has no rank.
fn ranks_as_two_bytes(req: &Request, bytes: &[u8]) -> Option<Vec<u8>> {
    let Request::Encode {
        component,
        buffer,
        release,
        items,
    } = req
    else {
        return None;
    };
    let codec = codec_for(component, buffer, release).ok()?;
    let types: Vec<pmix_codec::DataType> = json::items_from_json(items)
        .ok()?
        .iter()
        .map(|i| i.ty)
        .collect();
    let mut ranks = Ranks::default();
    codec
        .decode_observed(bytes, Some(&types), &mut ranks)
        .ok()?;
    if ranks.0.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    for (offset, len, rank) in ranks.0 {
        out.extend_from_slice(&bytes[at..offset]);
        out.extend_from_slice(&(rank as u16).to_be_bytes());
        at = offset + len;
    }
    out.extend_from_slice(&bytes[at..]);
    Some(out)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let mut caps = codec_capabilities("pmix-testee");
    if let Some(c) = &cli.declare_components {
        caps.components = c.clone();
    }
    if let Some(b) = &cli.declare_buffers {
        caps.buffers = b.clone();
    }
    if let Some(r) = &cli.declare_releases {
        caps.releases = r.clone();
    }
    let stdout = std::io::stdout();
    let mut input = std::io::stdin().lock();
    let mut output = stdout.lock();
    let triggered = |req: &Request| match &cli.break_on {
        None => true,
        Some(t) => first_type(req).is_some_and(|f| f.eq_ignore_ascii_case(t)),
    };
    let result = serve(&mut input, &mut output, &caps, |req| {
        let mut reply = codec_reply(req);
        match cli.breakage {
            None => {}
            Some(Break::FlipByte) => {
                if let (Request::Encode { .. }, Reply::Ok { wire: Some(w), .. }) = (req, &reply) {
                    if let Some(mut b) = unhex(w).filter(|b| !b.is_empty()) {
                        let mid = b.len() / 2;
                        b[mid] ^= 0xff;
                        reply = Reply::wire(&b);
                    }
                }
            }
            Some(Break::ProcRank2Bytes) => {
                if let (Request::Encode { .. }, Reply::Ok { wire: Some(w), .. }) = (req, &reply) {
                    if let Some(b) = unhex(w).and_then(|b| ranks_as_two_bytes(req, &b)) {
                        reply = Reply::wire(&b);
                    }
                }
            }
            Some(b) if triggered(req) => match b {
                Break::Crash => {
                    eprintln!("pmix-testee: deliberate crash on {} request", req.op());
                    std::process::abort();
                }
                Break::Hang => loop {
                    std::thread::sleep(std::time::Duration::from_secs(3600));
                },
                Break::Slow => std::thread::sleep(std::time::Duration::from_millis(cli.delay_ms)),
                Break::StatusClass | Break::StatusOther => {
                    if let Reply::Error { status, item, .. } = reply {
                        let s = if b == Break::StatusClass {
                            class_neighbour(status)
                        } else {
                            other_class(status)
                        };
                        reply = Reply::status(s, item);
                    }
                }
                Break::DecodeRank => {
                    if let (Request::Decode { .. }, Reply::Ok { items: Some(j), .. }) =
                        (req, &mut reply)
                    {
                        bump_ranks(j);
                    }
                }
                Break::RefuseEncode => {
                    if let Request::Encode { .. } = req {
                        reply = Reply::status(Status::ERR_NOT_SUPPORTED.0, 0);
                    }
                }
                Break::FlipByte | Break::ProcRank2Bytes => {}
                Break::Garbage => {
                    // A well-framed answer that is not JSON; the runner kills us anyway.
                    let mut out = std::io::stdout().lock();
                    let _ = write_frame(&mut out, b"this is not JSON");
                    let _ = out.flush();
                    eprintln!("pmix-testee: wrote garbage");
                    std::process::exit(0);
                }
            },
            Some(_) => {}
        }
        reply
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pmix-testee: {e}");
            ExitCode::from(2)
        }
    }
}
