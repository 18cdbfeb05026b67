//! `pmix-libpmix-testee`: the installed OpenPMIx (Debian's libpmix 4.2.2) as a testee for
//! `pmix-conformance vectors`, so the vector suite runs against the real C library:
//!
//! ```sh
//! cargo build --release -p pmix-oracle --bin pmix-libpmix-testee
//! cargo run --release -p pmix-conformance -- vectors \
//!     --expected-failures conformance/expected-failures/libpmix.txt -- target/release/pmix-libpmix-testee
//! ```
//!
//! It speaks the testee protocol of `conformance/TESTEE.md` on stdin/stdout (implemented
//! here from that document alone: 4-byte little-endian length + JSON, both ways) and performs
//! every pack and unpack through `pmix-oracle` (`tools/oracle`, our C program linked against
//! libpmix, built on first use): the bytes, statuses and unpacked values all come from the
//! library. pmix-codec is used only for its JSON value model (JSON items ⇄ oracle tokens).
//!
//! Capabilities: components `v12 v20 v21 v3 v4 v41`, both buffer kinds, release profile `4.2`
//! (what the library ships). When the library crashes on an input (the oracle process dies)
//! the request is answered `runtime_error` and the oracle restarted; a request the oracle
//! cannot express is answered `unsupported`.

use pmix_codec::json;
use pmix_codec::{BufferKind, Component, DataType, Release, POINTER_SLACK};
use pmix_oracle::hex;
use pmix_oracle::oracle::{Oracle, Reply};
use serde_json::{json, Value as J};
use std::io::{Read, Write};
use std::process::ExitCode;

/// Largest frame accepted (64 MiB, as TESTEE.md says).
const MAX_FRAME: usize = 64 << 20;

fn read_frame(r: &mut impl Read) -> std::io::Result<Option<Vec<u8>>> {
    let mut len = [0u8; 4];
    match r.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let len = u32::from_le_bytes(len) as usize;
    if len > MAX_FRAME {
        return Err(std::io::Error::other(format!("frame of {len} bytes")));
    }
    let mut body = vec![0u8; len];
    r.read_exact(&mut body)?;
    Ok(Some(body))
}

fn write_frame(w: &mut impl Write, body: &[u8]) -> std::io::Result<()> {
    let len = u32::try_from(body.len()).map_err(std::io::Error::other)?;
    w.write_all(&len.to_le_bytes())?;
    w.write_all(body)?;
    w.flush()
}

/// Components libpmix 4.2.2 ships.
const COMPONENTS: &[Component] = Release::OpenPmix4_2.profile().components;

fn unsupported(reason: impl Into<String>) -> J {
    json!({"result": "unsupported", "reason": reason.into()})
}

fn runtime_error(message: impl Into<String>) -> J {
    json!({"result": "runtime_error", "message": message.into()})
}

fn status_error(status: i32, item: usize, wire: Option<&[u8]>) -> J {
    let mut j = json!({"result": "error", "status": status, "item": item});
    if let Some(name) = pmix_codec::Status(status).name() {
        j["name"] = J::String(format!("PMIX_{name}"));
    }
    if let Some(w) = wire {
        j["wire"] = J::String(hex::encode(w));
    }
    j
}

/// The component and buffer kind of a request, or the `unsupported` answer.
fn target(req: &J) -> Result<(Component, BufferKind), J> {
    let s = |k: &str| req.get(k).and_then(J::as_str).unwrap_or("");
    let comp: Component = s("component").parse().map_err(unsupported)?;
    if !COMPONENTS.contains(&comp) {
        return Err(unsupported(format!(
            "libpmix 4.2.2 has no bfrops component {comp}"
        )));
    }
    let kind: BufferKind = s("buffer").parse().map_err(unsupported)?;
    match s("release").parse::<Release>() {
        Ok(Release::OpenPmix4_2) => Ok((comp, kind)),
        _ => Err(unsupported(format!(
            "libpmix 4.2.2 reproduces release profile 4.2, not {:?}",
            s("release")
        ))),
    }
}

fn crashed(what: &str, detail: &str) -> J {
    runtime_error(format!(
        "libpmix crashed or hung while {what} (the oracle process died: {detail}); restarted"
    ))
}

fn encode(oracle: &mut Oracle, req: &J) -> J {
    let (comp, kind) = match target(req) {
        Ok(t) => t,
        Err(j) => return j,
    };
    let items = match json::items_from_json(req.get("items").unwrap_or(&J::Null)) {
        Ok(i) => i,
        Err(e) => return runtime_error(format!("cannot read the items: {e}")),
    };
    match oracle.pack(comp, kind, &items) {
        Ok(Reply::Ok(bytes)) => json!({"result": "ok", "wire": hex::encode(&bytes)}),
        Ok(Reply::Err {
            status,
            index,
            partial,
        }) => status_error(status, index, Some(&partial)),
        Ok(Reply::Crashed(d)) => crashed("packing", &d),
        Ok(Reply::Bad(d)) => unsupported(format!("the oracle cannot express this pack: {d}")),
        Err(e) => runtime_error(format!("the oracle cannot be restarted: {e}")),
    }
}

fn decode(oracle: &mut Oracle, req: &J) -> J {
    let (comp, kind) = match target(req) {
        Ok(t) => t,
        Err(j) => return j,
    };
    let Some(bytes) = req.get("wire").and_then(J::as_str).and_then(hex::decode) else {
        return runtime_error("wire is missing or not hex");
    };
    let types: Result<Vec<DataType>, String> = req
        .get("types")
        .and_then(J::as_array)
        .map(|a| a.iter().map(json::parse_type).collect())
        .unwrap_or_else(|| Err("types is missing".into()));
    let types = match types {
        Ok(t) => t,
        Err(e) => return runtime_error(format!("cannot read the types: {e}")),
    };
    // "Unlimited" capacity: more than any count these bytes can satisfy (every value takes
    // at least one byte), so the library never stops at the capacity. POINTERs take none
    // (one sentinel byte for the whole call, quirk P1): a call of them gets the most the
    // corpus holds, pmix-codec's POINTER budget (the input's length plus `POINTER_SLACK`).
    let cap = bytes.len() + 8;
    let calls: Vec<(DataType, usize)> = types
        .iter()
        .map(|&t| match t {
            DataType::POINTER => (t, bytes.len() + POINTER_SLACK as usize),
            _ => (t, cap),
        })
        .collect();
    match oracle.unpack(comp, kind, &bytes, &calls) {
        Ok(Reply::Ok(items)) => json!({"result": "ok", "items": json::items_to_json(&items)}),
        Ok(Reply::Err { status, index, .. }) => status_error(status, index, None),
        Ok(Reply::Crashed(d)) => crashed("unpacking", &d),
        Ok(Reply::Bad(d)) => unsupported(format!("the oracle cannot express this unpack: {d}")),
        Err(e) => runtime_error(format!("the oracle cannot be restarted: {e}")),
    }
}

fn main() -> ExitCode {
    if std::env::args().len() > 1 {
        eprintln!(
            "usage: pmix-libpmix-testee (no arguments; speaks conformance/TESTEE.md on stdin/stdout)"
        );
        return ExitCode::from(2);
    }
    let mut oracle = match Oracle::start() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("pmix-libpmix-testee: cannot start the libpmix oracle: {e}");
            return ExitCode::from(2);
        }
    };
    let caps = json!({
        "name": "libpmix",
        // "OpenPMIx 4.2.2rc2 (PMIx Standard: 4.2, ...)" -> "OpenPMIx 4.2.2rc2"
        "version": oracle.version.split(" (").next().unwrap_or_default(),
        "protocol": 1,
        "components": COMPONENTS.iter().map(|c| c.name()).collect::<Vec<_>>(),
        "buffers": ["non-described", "fully-described"],
        "releases": ["4.2"],
    });
    let mut input = std::io::stdin().lock();
    let mut output = std::io::stdout().lock();
    loop {
        let frame = match read_frame(&mut input) {
            Ok(Some(f)) => f,
            Ok(None) => return ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("pmix-libpmix-testee: reading a request: {e}");
                return ExitCode::from(2);
            }
        };
        let answer = match serde_json::from_slice::<J>(&frame) {
            Err(e) => runtime_error(format!("the request is not JSON: {e}")),
            Ok(req) => match req.get("op").and_then(J::as_str) {
                Some("capabilities") => caps.clone(),
                Some("encode") => encode(&mut oracle, &req),
                Some("decode") => decode(&mut oracle, &req),
                other => runtime_error(format!("unknown op {other:?}")),
            },
        };
        let body = answer.to_string();
        if let Err(e) = write_frame(&mut output, body.as_bytes()) {
            eprintln!("pmix-libpmix-testee: writing an answer: {e}");
            return ExitCode::from(2);
        }
    }
}
