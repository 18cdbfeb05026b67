//! Implementations under test ("testees") for the wire-vector suite, and the protocol an
//! external testee speaks (documented for vendors in `TESTEE.md`).
//!
//! Every implementation sits behind one trait, [`Testee`]:
//!
//! * [`BuiltinTestee`] — pmix-codec, in process (the default), each decode also checked
//!   against a decode that reuses earlier values' memory ([`crate::reuse`]) and against its
//!   own narration ([`crate::narration`]) and against an unpack call by call
//!   ([`crate::call_by_call`]);
//! * [`ProcessTestee`] — any program speaking the framed JSON protocol on its stdin/stdout:
//!   a 4-byte little-endian length, then a JSON [`Request`]; one [`Reply`] (or
//!   [`Capabilities`]) back in the same framing. A testee that crashes, hangs past the
//!   per-case timeout or writes garbage is killed, the case reported, and the next case gets
//!   a fresh process.
//!
//! [`serve`] runs the protocol loop for a testee written in Rust (`pmix-testee` uses it).

use crate::process::{read_frame, write_frame, ExchangeError, FramedProcess};
use crate::reuse::ReusePool;
use pmix_codec::json;
use pmix_codec::{BufferKind, Codec, Component, DataType, Item, Release};
use serde::{Deserialize, Serialize};
use serde_json::Value as J;
use std::io::{Read, Write};
use std::time::{Duration, Instant};

/// The protocol version this runner speaks (sent in `capabilities`).
pub const TESTEE_PROTOCOL: u32 = 1;

/// A request from the runner to a testee.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// Sent once, first, to every fresh process: what do you support?
    Capabilities {
        /// [`TESTEE_PROTOCOL`].
        protocol: u32,
    },
    /// Pack `items`, in order, into one fresh buffer.
    Encode {
        /// bfrops component (`v12` … `v61`).
        component: String,
        /// `non-described` or `fully-described`.
        buffer: String,
        /// Release profile (`4.2` or `master`).
        release: String,
        /// The pack calls, in the JSON value model of `vectors/README.md`.
        items: J,
    },
    /// Unpack `wire` with one unpack call per entry of `types` (unlimited capacity).
    Decode {
        /// bfrops component.
        component: String,
        /// Buffer kind.
        buffer: String,
        /// Release profile.
        release: String,
        /// The buffer, lowercase hex.
        wire: String,
        /// One type per unpack call (a name such as `"UINT32"` or a number).
        types: Vec<J>,
    },
}

impl Request {
    /// The request's `op`.
    pub fn op(&self) -> &'static str {
        match self {
            Request::Capabilities { .. } => "capabilities",
            Request::Encode { .. } => "encode",
            Request::Decode { .. } => "decode",
        }
    }
}

/// The answer to `capabilities`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capabilities {
    /// The implementation's name (shown in reports).
    pub name: String,
    /// Its version (free text).
    #[serde(default)]
    pub version: String,
    /// The protocol version the testee speaks (must be [`TESTEE_PROTOCOL`]).
    pub protocol: u32,
    /// Components it implements (`v12` … `v61`).
    pub components: Vec<String>,
    /// Buffer kinds it implements (`non-described`, `fully-described`).
    pub buffers: Vec<String>,
    /// Release profiles whose behaviour it reproduces (`4.2`, `master`).
    pub releases: Vec<String>,
    /// Integers beyond 2^53 travel as decimal strings, both ways (for JSON libraries that
    /// hold numbers as doubles); default `false`: bare JSON numbers.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub integers_as_strings: bool,
}

/// The keys of a `capabilities` answer (TESTEE.md); any other key is refused, so that a
/// typo (`release` for `releases`) is one clear error, not a silently empty scope.
pub const CAPABILITY_KEYS: [&str; 7] = [
    "name",
    "version",
    "protocol",
    "components",
    "buffers",
    "releases",
    "integers_as_strings",
];

impl Capabilities {
    /// Read a `capabilities` answer, refusing an unknown key, a missing one or a value of
    /// the wrong type with a message naming the key and the valid ones.
    pub fn parse(frame: &[u8]) -> Result<Capabilities, String> {
        let valid = CAPABILITY_KEYS.join(" ");
        let j: J = serde_json::from_slice(frame)
            .map_err(|e| format!("the answer to capabilities is not JSON ({e})"))?;
        let o = j.as_object().ok_or_else(|| {
            format!("the answer to capabilities is not an object (keys: {valid})")
        })?;
        for k in o.keys() {
            if !CAPABILITY_KEYS.contains(&k.as_str()) {
                return Err(format!(
                    "the answer to capabilities has an unknown key {k:?} (valid keys: {valid})"
                ));
            }
        }
        for (k, want) in [
            ("name", "a string"),
            ("protocol", "an integer"),
            ("components", "a list of strings"),
            ("buffers", "a list of strings"),
            ("releases", "a list of strings"),
        ] {
            if !o.contains_key(k) {
                return Err(format!(
                    "the answer to capabilities lacks the key {k:?} ({want}; valid keys: {valid})"
                ));
            }
        }
        serde_json::from_value::<Capabilities>(j.clone()).map_err(|e| {
            let key = CAPABILITY_KEYS
                .iter()
                .find(|k| e.to_string().contains(&format!("`{k}`")) || wrong_type(o, k))
                .map(|k| format!(" in key {k:?}"))
                .unwrap_or_default();
            format!("the answer to capabilities has a value of the wrong type{key} ({e}; valid keys: {valid})")
        })
    }

    /// `Err(reason)` when the testee lacks the component, buffer kind or release profile.
    pub fn supports(
        &self,
        component: Component,
        kind: BufferKind,
        release: Release,
    ) -> Result<(), String> {
        let has_comp = self
            .components
            .iter()
            .any(|c| c.parse::<Component>() == Ok(component));
        if !has_comp {
            return Err(format!(
                "the testee lacks component {component} (it has {})",
                self.components.join(" ")
            ));
        }
        if !self
            .buffers
            .iter()
            .any(|b| b.parse::<BufferKind>() == Ok(kind))
        {
            return Err(format!("the testee lacks {kind} buffers"));
        }
        if !self
            .releases
            .iter()
            .any(|r| r.parse::<Release>() == Ok(release))
        {
            return Err(format!(
                "the testee does not reproduce release profile {release} (it reproduces {})",
                self.releases.join(" ")
            ));
        }
        Ok(())
    }

    /// `Err(message)` when the testee declares a component, buffer kind or release profile
    /// this runner does not know (a typo such as `"V41"` or `"non_desc"` would otherwise
    /// silently make every case unsupported). The message names the valid values, taken
    /// from `Component::ALL`, `BufferKind::ALL` and `Release::ALL`.
    pub fn validate(&self) -> Result<(), String> {
        fn check<T: std::str::FromStr>(
            field: &str,
            declared: &[String],
            valid: Vec<&'static str>,
        ) -> Result<(), String> {
            let unknown: Vec<&str> = declared
                .iter()
                .filter(|d| d.parse::<T>().is_err())
                .map(String::as_str)
                .collect();
            if unknown.is_empty() {
                return Ok(());
            }
            Err(format!(
                "the testee declares unknown {field} {:?} (valid {field}: {})",
                unknown,
                valid.join(" ")
            ))
        }
        let mut problems = Vec::new();
        let comps = Component::ALL.iter().map(|c| c.name()).collect();
        let kinds = BufferKind::ALL.iter().map(|k| k.name()).collect();
        let rels = Release::ALL.iter().map(|r| r.name()).collect();
        for r in [
            check::<Component>("components", &self.components, comps),
            check::<BufferKind>("buffers", &self.buffers, kinds),
            check::<Release>("releases", &self.releases, rels),
        ] {
            if let Err(e) = r {
                problems.push(e);
            }
        }
        for (field, list) in [
            ("components", &self.components),
            ("buffers", &self.buffers),
            ("releases", &self.releases),
        ] {
            if list.is_empty() {
                problems.push(format!("the testee declares no {field}"));
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("; "))
        }
    }

    /// A short description (`name version`).
    pub fn label(&self) -> String {
        if self.version.is_empty() {
            self.name.clone()
        } else {
            format!("{} {}", self.name, self.version)
        }
    }
}

/// The largest integer every JSON library keeps exactly (a double's 53-bit mantissa).
pub const EXACT_IN_A_DOUBLE: u64 = (1 << 53) - 1;

/// Turn every integer of `j` beyond ±[`EXACT_IN_A_DOUBLE`] into its decimal string (what a
/// testee declaring `integers_as_strings` is sent); the JSON model reads such strings back
/// as integers wherever an integer is expected.
pub fn integers_to_strings(j: &mut J) {
    match j {
        J::Number(n) => {
            let big = n.as_u64().is_some_and(|u| u > EXACT_IN_A_DOUBLE)
                || n.as_i64()
                    .is_some_and(|i| i.unsigned_abs() > EXACT_IN_A_DOUBLE);
            if big {
                *j = J::String(n.to_string());
            }
        }
        J::Array(a) => a.iter_mut().for_each(integers_to_strings),
        J::Object(o) => o.values_mut().for_each(integers_to_strings),
        _ => {}
    }
}

/// Whether key `k` of a capabilities answer holds a value of the wrong JSON type.
fn wrong_type(o: &serde_json::Map<String, J>, k: &str) -> bool {
    match (k, o.get(k)) {
        (_, None) => false,
        ("name" | "version", Some(v)) => !v.is_string(),
        ("protocol", Some(v)) => !v.is_u64(),
        ("integers_as_strings", Some(v)) => !v.is_boolean(),
        (_, Some(v)) => !v.as_array().is_some_and(|a| a.iter().all(J::is_string)),
    }
}

/// The answer to `encode` or `decode`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum Reply {
    /// Success: `wire` for encode, `items` for decode.
    Ok {
        /// Encode: the whole buffer, lowercase hex.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        wire: Option<String>,
        /// Decode: one item per unpack call.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        items: Option<J>,
    },
    /// The implementation refused: call `item` (0-based) returned PMIx `status`.
    Error {
        /// The PMIx status (e.g. -50).
        status: i32,
        /// Index of the failing pack/unpack call.
        item: usize,
        /// The status name, informative.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        /// Encode: the bytes in the buffer when it failed (informative).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        wire: Option<String>,
    },
    /// The implementation lacks something this request needs (a type, a component ...).
    Unsupported {
        /// What it lacks.
        reason: String,
    },
    /// The testee itself failed (could not read the request, its library crashed, ...).
    RuntimeError {
        /// What happened.
        message: String,
    },
}

impl Reply {
    /// An encode success.
    pub fn wire(bytes: &[u8]) -> Reply {
        Reply::Ok {
            wire: Some(hex(bytes)),
            items: None,
        }
    }

    /// A decode success.
    pub fn items(items: J) -> Reply {
        Reply::Ok {
            wire: None,
            items: Some(items),
        }
    }

    /// A PMIx status error at call `item`.
    pub fn status(status: i32, item: usize) -> Reply {
        Reply::Error {
            status,
            item,
            name: pmix_codec::Status(status)
                .name()
                .map(|n| format!("PMIX_{n}")),
            wire: None,
        }
    }
}

/// Why a testee could not answer at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TesteeError {
    /// No answer within the per-case timeout; the process was killed.
    #[error("the testee did not answer within {0:?} (killed; the next case gets a fresh process)")]
    Timeout(Duration),
    /// The process died (exit, signal, closed stdout).
    #[error("the testee process died: {0}")]
    Crashed(String),
    /// The process wrote something that is not a frame of a valid reply; it was killed.
    #[error("the testee wrote garbage: {0}")]
    Garbage(String),
    /// The process could not be started, or failed the `capabilities` handshake.
    #[error("cannot start the testee: {0}")]
    Start(String),
}

impl TesteeError {
    /// A stable one-word signature (`timeout`, `crash`, `garbage`, `start`).
    pub fn signature(&self) -> &'static str {
        match self {
            TesteeError::Timeout(_) => "timeout",
            TesteeError::Crashed(_) => "crash",
            TesteeError::Garbage(_) => "garbage",
            TesteeError::Start(_) => "start",
        }
    }
}

/// An implementation under test.
pub trait Testee {
    /// A short description for reports (`pmix-codec (built in)`, `./my-testee`).
    fn describe(&self) -> String;
    /// What the implementation supports.
    fn capabilities(&mut self) -> Result<Capabilities, TesteeError>;
    /// A new case starts: its requests share one time budget from now on (a no-op for
    /// in-process testees).
    fn begin_case(&mut self) {}
    /// Answer one `encode` or `decode` request.
    fn call(&mut self, req: &Request) -> Result<Reply, TesteeError>;
}

fn hex(b: &[u8]) -> String {
    pmix_codec::vectors::hex(b)
}

/// Lowercase hex to bytes (`None` on odd length or a non-hex digit).
pub fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    let val = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    s.as_bytes()
        .chunks(2)
        .map(|p| Some((val(p[0])? << 4) | val(p[1])?))
        .collect()
}

/// The capabilities of pmix-codec: every component, both kinds, both release profiles.
pub fn codec_capabilities(name: &str) -> Capabilities {
    Capabilities {
        name: name.to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        protocol: TESTEE_PROTOCOL,
        components: Component::ALL
            .iter()
            .map(|c| c.name().to_string())
            .collect(),
        buffers: BufferKind::ALL
            .iter()
            .map(|k| k.name().to_string())
            .collect(),
        releases: Release::ALL.iter().map(|r| r.name().to_string()).collect(),
        integers_as_strings: false,
    }
}

/// The codec a request names (component, buffer kind, release), or why there is none.
pub fn codec_for(component: &str, buffer: &str, release: &str) -> Result<Codec, String> {
    let c: Component = component.parse()?;
    let k: BufferKind = buffer.parse()?;
    let r: Release = release.parse()?;
    Ok(Codec::new(c, k).with_release(r))
}

/// Answer an `encode`/`decode` request with pmix-codec (what [`BuiltinTestee`] and the
/// `pmix-testee` binary do).
pub fn codec_reply(req: &Request) -> Reply {
    match req {
        Request::Capabilities { .. } => Reply::RuntimeError {
            message: "capabilities is answered with a Capabilities object".into(),
        },
        Request::Encode {
            component,
            buffer,
            release,
            items,
        } => match encode_request(component, buffer, release, items) {
            Ok((codec, items)) => encoded_reply(&codec.encode(&items)),
            Err(reply) => reply,
        },
        Request::Decode {
            component,
            buffer,
            release,
            wire,
            types,
        } => match decode_request(component, buffer, release, wire, types) {
            Ok((codec, bytes, types)) => decoded_reply(&codec.decode(&bytes, &types)),
            Err(reply) => reply,
        },
    }
}

/// An encode request's codec and items, or the reply refusing it.
fn encode_request(
    component: &str,
    buffer: &str,
    release: &str,
    items: &J,
) -> Result<(Codec, Vec<Item>), Reply> {
    let codec =
        codec_for(component, buffer, release).map_err(|reason| Reply::Unsupported { reason })?;
    let items = json::items_from_json(items).map_err(|e| Reply::RuntimeError {
        message: format!("cannot read the items: {e}"),
    })?;
    Ok((codec, items))
}

/// The reply to an encode request whose result is `encoded` (a refusal carries the bytes
/// packed before it).
fn encoded_reply(encoded: &Result<Vec<u8>, pmix_codec::Error>) -> Reply {
    match encoded {
        Ok(bytes) => Reply::wire(bytes),
        Err(e) => match Reply::status(e.status.0, e.item) {
            Reply::Error {
                status, item, name, ..
            } => Reply::Error {
                status,
                item,
                name,
                wire: Some(hex(&e.partial)),
            },
            other => other,
        },
    }
}

/// A decode request's codec, input bytes and unpack types, or the reply refusing it.
fn decode_request(
    component: &str,
    buffer: &str,
    release: &str,
    wire: &str,
    types: &[J],
) -> Result<(Codec, Vec<u8>, Vec<DataType>), Reply> {
    let codec =
        codec_for(component, buffer, release).map_err(|reason| Reply::Unsupported { reason })?;
    let bytes = unhex(wire).ok_or_else(|| Reply::RuntimeError {
        message: "wire is not lowercase hex".into(),
    })?;
    let types: Result<Vec<DataType>, String> = types.iter().map(json::parse_type).collect();
    let types = types.map_err(|e| Reply::RuntimeError {
        message: format!("cannot read the types: {e}"),
    })?;
    Ok((codec, bytes, types))
}

/// The reply to a decode request whose result is `decoded`.
fn decoded_reply(decoded: &Result<Vec<Item>, pmix_codec::Error>) -> Reply {
    match decoded {
        Ok(items) => Reply::items(json::items_to_json(items)),
        Err(e) => Reply::status(e.status.0, e.item),
    }
}

/// pmix-codec in process. It answers a decode request with [`Codec::decode`], and also
/// decodes it with [`Codec::decode_into`] over the values of earlier requests, the way a
/// receive loop reusing its memory would ([`ReusePool`]), and narrated to an observer, the way
/// a failure's walk reads bytes ([`crate::narration`]), and unpacked call by call with
/// [`pmix_codec::Unpacker`], BYTE_OBJECT calls borrowed ([`crate::call_by_call`]), and as
/// OpenPMIx's packer wrote the bytes, packed back ([`crate::as_written`]; bytes it packed
/// for the encode request just before must read back that way): if they disagree, or the
/// narration does not account for the bytes field by field, the reply is a runtime error
/// saying how, so the case fails.
#[derive(Debug, Default)]
pub struct BuiltinTestee {
    reuse: ReusePool,
    /// The last encode request it packed: component, buffer, release and the wire it gave.
    /// A decode request for those bytes asks it to read back what it packed itself.
    last_packed: Option<[String; 4]>,
}

impl Testee for BuiltinTestee {
    fn describe(&self) -> String {
        "pmix-codec (built in)".into()
    }
    fn capabilities(&mut self) -> Result<Capabilities, TesteeError> {
        Ok(codec_capabilities("pmix-codec"))
    }
    fn call(&mut self, req: &Request) -> Result<Reply, TesteeError> {
        let Request::Decode {
            component,
            buffer,
            release,
            wire,
            types,
        } = req
        else {
            let reply = match req {
                Request::Encode {
                    component,
                    buffer,
                    release,
                    items,
                } => match encode_request(component, buffer, release, items) {
                    Ok((codec, items)) => {
                        let whole = codec.encode(&items);
                        // packed a second time, call by call: the same answer
                        match crate::packer_calls::check(&codec, &items, &whole) {
                            Ok(()) => encoded_reply(&whole),
                            Err(message) => Reply::RuntimeError { message },
                        }
                    }
                    Err(reply) => reply,
                },
                _ => codec_reply(req),
            };
            self.last_packed = match (req, &reply) {
                (
                    Request::Encode {
                        component,
                        buffer,
                        release,
                        ..
                    },
                    Reply::Ok { wire: Some(w), .. },
                ) => Some([component, buffer, release, w].map(String::clone)),
                _ => None,
            };
            return Ok(reply);
        };
        let packed_here = self
            .last_packed
            .take()
            .is_some_and(|[c, b, r, w]| (&c, &b, &r, &w) == (component, buffer, release, wire));
        Ok(
            match decode_request(component, buffer, release, wire, types) {
                Ok((codec, bytes, types)) => {
                    let fresh = codec.decode(&bytes, &types);
                    let checked = self
                        .reuse
                        .check(&codec, &bytes, &types, &fresh)
                        .and_then(|()| {
                            let d = crate::reuse::Decoded {
                                codec: &codec,
                                bytes: &bytes,
                                types: &types,
                                fresh: &fresh,
                            };
                            crate::narration::check(d)
                                .and_then(|()| crate::call_by_call::check(d))
                                .and_then(|()| crate::as_written::check(d, packed_here))
                        });
                    match checked {
                        Ok(()) => decoded_reply(&fresh),
                        Err(message) => Reply::RuntimeError { message },
                    }
                }
                Err(reply) => reply,
            },
        )
    }
}

/// After this many failed starts in a row a [`ProcessTestee`] stops trying.
pub const MAX_FAILED_STARTS: usize = 3;

/// An external program speaking the testee protocol on its stdin/stdout.
pub struct ProcessTestee {
    argv: Vec<String>,
    timeout: Duration,
    startup_timeout: Duration,
    proc: Option<FramedProcess>,
    caps: Option<Capabilities>,
    failed_starts: usize,
    last_start_error: String,
    starts: usize,
    deadline: Option<Instant>,
}

impl ProcessTestee {
    /// A testee started from `argv` (lazily, at the first request), with a per-case
    /// `timeout`. The `capabilities` handshake of a fresh process may take up to
    /// `max(timeout, 60 s)` (a testee may build or load something first).
    pub fn new(argv: Vec<String>, timeout: Duration) -> Self {
        ProcessTestee {
            argv,
            timeout,
            startup_timeout: timeout.max(Duration::from_secs(60)),
            proc: None,
            caps: None,
            failed_starts: 0,
            last_start_error: String::new(),
            starts: 0,
            deadline: None,
        }
    }

    /// The per-case timeout.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// How many processes have been started so far (1 + restarts).
    pub fn starts(&self) -> usize {
        self.starts
    }

    fn start(&mut self) -> Result<(), TesteeError> {
        if self.proc.as_ref().is_some_and(|p| !p.is_dead()) {
            return Ok(());
        }
        self.proc = None;
        if self.failed_starts >= MAX_FAILED_STARTS {
            return Err(TesteeError::Start(format!(
                "gave up after {MAX_FAILED_STARTS} failed starts in a row; last: {}",
                self.last_start_error
            )));
        }
        match self.try_start() {
            Ok(()) => {
                self.failed_starts = 0;
                Ok(())
            }
            Err(e) => {
                self.failed_starts += 1;
                self.last_start_error = e.clone();
                self.proc = None;
                Err(TesteeError::Start(e))
            }
        }
    }

    fn try_start(&mut self) -> Result<(), String> {
        self.starts += 1;
        let mut p = FramedProcess::spawn(&self.argv)?;
        let body = serde_json::to_vec(&Request::Capabilities {
            protocol: TESTEE_PROTOCOL,
        })
        .map_err(|e| e.to_string())?;
        let frame = p
            .exchange(&body, Instant::now() + self.startup_timeout)
            .map_err(|e| match e {
                ExchangeError::Timeout => format!(
                    "no answer to capabilities within {:?}",
                    self.startup_timeout
                ),
                ExchangeError::Ended(d) => format!("it ended during capabilities: {d}"),
                ExchangeError::BadFrame(d) => format!("bad frame in answer to capabilities: {d}"),
            })?;
        let caps = Capabilities::parse(&frame).map_err(|e| {
            p.kill();
            format!("{e}: {}", snippet(&frame))
        })?;
        if caps.protocol != TESTEE_PROTOCOL {
            p.kill();
            return Err(format!(
                "it speaks protocol {}, this runner speaks {TESTEE_PROTOCOL}",
                caps.protocol
            ));
        }
        self.caps = Some(caps);
        self.proc = Some(p);
        Ok(())
    }
}

/// The deepest JSON nesting a reply may have. serde_json's default (128) is too shallow for
/// legitimate replies: a QUERY nested 101 levels (what libpmix decodes, vectors flagged
/// `Hardening`) is about 500 JSON levels deep.
pub const MAX_REPLY_DEPTH: usize = 2048;

/// How deeply the arrays and objects of JSON text nest (strings skipped).
fn json_depth(text: &[u8]) -> usize {
    let (mut depth, mut max, mut in_str, mut esc) = (0usize, 0usize, false, false);
    for &b in text {
        if in_str {
            match b {
                _ if esc => esc = false,
                b'\\' => esc = true,
                b'"' => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// Parse a testee's reply: nesting up to [`MAX_REPLY_DEPTH`], parsed on a thread with a
/// stack large enough for it when it is deeper than serde_json's default allows.
pub fn parse_reply(frame: &[u8]) -> Result<Reply, String> {
    let depth = json_depth(frame);
    if depth > MAX_REPLY_DEPTH {
        return Err(format!(
            "nested {depth} levels deep, more than {MAX_REPLY_DEPTH}"
        ));
    }
    if depth <= 100 {
        return serde_json::from_slice(frame).map_err(|e| e.to_string());
    }
    let frame = frame.to_vec();
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || {
            let mut de = serde_json::Deserializer::from_slice(&frame);
            de.disable_recursion_limit();
            let r = Reply::deserialize(&mut de).and_then(|r| de.end().map(|_| r));
            r.map_err(|e| e.to_string())
        })
        .map_err(|e| format!("cannot start a parser thread: {e}"))?
        .join()
        .map_err(|_| "the parser thread panicked".to_string())?
}

fn snippet(frame: &[u8]) -> String {
    let s = String::from_utf8_lossy(&frame[..frame.len().min(200)]).into_owned();
    if frame.len() > 200 {
        format!("{s}…")
    } else {
        s
    }
}

impl Testee for ProcessTestee {
    fn describe(&self) -> String {
        let cmd = self.argv.join(" ");
        match &self.caps {
            Some(c) => format!("{} ({cmd})", c.label()),
            None => cmd,
        }
    }

    fn capabilities(&mut self) -> Result<Capabilities, TesteeError> {
        self.start()?;
        self.caps
            .clone()
            .ok_or_else(|| TesteeError::Start("no capabilities".into()))
    }

    fn begin_case(&mut self) {
        self.deadline = Some(Instant::now() + self.timeout);
    }

    fn call(&mut self, req: &Request) -> Result<Reply, TesteeError> {
        let before = self.starts;
        self.start()?;
        if self.starts != before {
            // A fresh process: starting it does not count against the case.
            self.deadline = Some(Instant::now() + self.timeout);
        }
        let strings = self.caps.as_ref().is_some_and(|c| c.integers_as_strings);
        let body = if strings {
            let mut j = serde_json::to_value(req)
                .map_err(|e| TesteeError::Start(format!("cannot encode the request: {e}")))?;
            integers_to_strings(&mut j);
            serde_json::to_vec(&j)
        } else {
            serde_json::to_vec(req)
        }
        .map_err(|e| TesteeError::Start(format!("cannot encode the request: {e}")))?;
        let timeout = self.timeout;
        // The case's budget (set by begin_case).
        let deadline = self
            .deadline
            .unwrap_or_else(|| Instant::now() + timeout)
            .max(Instant::now() + Duration::from_millis(1));
        let Some(p) = self.proc.as_mut() else {
            return Err(TesteeError::Start("no process".into()));
        };
        let frame = p.exchange(&body, deadline).map_err(|e| match e {
            ExchangeError::Timeout => TesteeError::Timeout(timeout),
            ExchangeError::Ended(d) => TesteeError::Crashed(d),
            ExchangeError::BadFrame(d) => TesteeError::Garbage(d),
        })?;
        match parse_reply(&frame) {
            Ok(r) => Ok(r),
            Err(e) => {
                p.kill();
                Err(TesteeError::Garbage(format!(
                    "not a valid reply to {} ({e}): {}",
                    req.op(),
                    snippet(&frame)
                )))
            }
        }
    }
}

impl Drop for ProcessTestee {
    fn drop(&mut self) {
        if let Some(p) = self.proc.as_mut() {
            p.finish(None, Duration::from_millis(500));
        }
    }
}

/// Run the testee protocol on `input`/`output` until end of input: answer `capabilities`
/// with `caps` and every other request with `answer`. Returns an error only when the
/// streams fail; requests that cannot be read are answered with `runtime_error`.
pub fn serve(
    input: &mut impl Read,
    output: &mut impl Write,
    caps: &Capabilities,
    mut answer: impl FnMut(&Request) -> Reply,
) -> std::io::Result<()> {
    while let Some(frame) = read_frame(input)? {
        let body = match serde_json::from_slice::<Request>(&frame) {
            Ok(Request::Capabilities { .. }) => serde_json::to_vec(caps),
            Ok(req) => serde_json::to_vec(&answer(&req)),
            Err(e) => serde_json::to_vec(&Reply::RuntimeError {
                message: format!("cannot read the request: {e}"),
            }),
        }
        .map_err(std::io::Error::other)?;
        write_frame(output, &body)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Replies nest deeper than serde_json's default limit (a 101-level QUERY that libpmix
    /// decodes); up to MAX_REPLY_DEPTH they parse, beyond it they are refused, never a
    /// stack overflow. Strings full of brackets do not count.
    #[test]
    fn deep_replies_parse_up_to_the_bound() {
        let reply = |n: usize| {
            format!(
                "{{\"result\":\"ok\",\"items\":{}\"[[[{{{{\"{}}}",
                "[".repeat(n),
                "]".repeat(n)
            )
        };
        match parse_reply(reply(600).as_bytes()) {
            Ok(Reply::Ok { items: Some(_), .. }) => {}
            other => panic!("600 levels: {other:?}"),
        }
        assert!(parse_reply(reply(10).as_bytes()).is_ok());
        let e = parse_reply(reply(MAX_REPLY_DEPTH + 5).as_bytes()).unwrap_err();
        assert!(e.contains("more than 2048"), "{e}");
        assert_eq!(json_depth(br#"{"a":"[[[{{"}"#), 1);
    }

    #[test]
    fn messages_have_the_documented_shape() {
        let r = Request::Decode {
            component: "v41".into(),
            buffer: "non-described".into(),
            release: "4.2".into(),
            wire: "022a".into(),
            types: vec![json!("UINT32")],
        };
        let j = serde_json::to_value(&r).unwrap();
        assert_eq!(j["op"], "decode");
        assert_eq!(j["types"][0], "UINT32");
        let ok: Reply = serde_json::from_value(json!({"result": "ok", "wire": "00"})).unwrap();
        assert_eq!(ok, Reply::wire(&[0]));
        let err: Reply =
            serde_json::from_value(json!({"result": "error", "status": -50, "item": 1})).unwrap();
        assert!(matches!(
            err,
            Reply::Error {
                status: -50,
                item: 1,
                ..
            }
        ));
        let un: Reply =
            serde_json::from_value(json!({"result": "unsupported", "reason": "no"})).unwrap();
        assert!(matches!(un, Reply::Unsupported { .. }));
        assert!(serde_json::from_value::<Reply>(json!({"result": "maybe"})).is_err());
    }

    #[test]
    fn the_codec_answers_and_serve_frames_it() {
        let req = Request::Encode {
            component: "v41".into(),
            buffer: "non-described".into(),
            release: "master".into(),
            items: json!([{"type": "UINT32", "values": [42]}]),
        };
        assert_eq!(codec_reply(&req), Reply::wire(&[0x02, 0x2a]));
        let bad = Request::Encode {
            component: "v99".into(),
            buffer: "non-described".into(),
            release: "master".into(),
            items: json!([]),
        };
        assert!(matches!(codec_reply(&bad), Reply::Unsupported { .. }));
        let mut input = Vec::new();
        write_frame(&mut input, b"{\"op\":\"capabilities\",\"protocol\":1}").unwrap();
        write_frame(&mut input, &serde_json::to_vec(&req).unwrap()).unwrap();
        write_frame(&mut input, b"{\"op\":\"dance\"}").unwrap();
        let mut out = Vec::new();
        let caps = codec_capabilities("t");
        serve(&mut &input[..], &mut out, &caps, codec_reply).unwrap();
        let mut r = &out[..];
        let c: Capabilities =
            serde_json::from_slice(&read_frame(&mut r).unwrap().unwrap()).unwrap();
        assert_eq!(c.components.len(), 8);
        assert!(c
            .supports(Component::V61, BufferKind::FullyDescribed, Release::Master)
            .is_ok());
        let e: Reply = serde_json::from_slice(&read_frame(&mut r).unwrap().unwrap()).unwrap();
        assert_eq!(e, Reply::wire(&[0x02, 0x2a]));
        let g: Reply = serde_json::from_slice(&read_frame(&mut r).unwrap().unwrap()).unwrap();
        assert!(matches!(g, Reply::RuntimeError { .. }));
        assert!(read_frame(&mut r).unwrap().is_none());
    }

    #[test]
    fn unknown_declared_values_are_refused_naming_the_valid_ones() {
        let mut caps = codec_capabilities("t");
        assert_eq!(caps.validate(), Ok(()));
        caps.releases = vec!["bogus".into()];
        let e = caps.validate().unwrap_err();
        assert!(e.contains("\"bogus\""), "{e}");
        for r in Release::ALL {
            assert!(e.contains(r.name()), "{e}");
        }
        let mut caps = codec_capabilities("t");
        caps.buffers = vec!["non_desc".into()];
        caps.components = vec!["V41".into(), "v41".into()];
        let e = caps.validate().unwrap_err();
        assert!(e.contains("\"non_desc\"") && e.contains("\"V41\""), "{e}");
        assert!(!e.contains("\"v41\""), "{e}");
        assert!(e.contains("non-described fully-described"), "{e}");
        assert!(e.contains("v12 v20 v21 v3 v4 v41 v51 v61"), "{e}");
        caps.components.clear();
        assert!(caps.validate().unwrap_err().contains("no components"));
    }

    #[test]
    fn capabilities_say_what_is_missing() {
        let c = Capabilities {
            name: "x".into(),
            version: String::new(),
            protocol: 1,
            components: vec!["v41".into()],
            buffers: vec!["non-described".into()],
            releases: vec!["4.2".into()],
            integers_as_strings: false,
        };
        assert!(c
            .supports(
                Component::V41,
                BufferKind::NonDescribed,
                Release::OpenPmix4_2
            )
            .is_ok());
        let e = c
            .supports(Component::V61, BufferKind::NonDescribed, Release::Master)
            .unwrap_err();
        assert!(e.contains("v61"), "{e}");
        let e = c
            .supports(Component::V41, BufferKind::NonDescribed, Release::Master)
            .unwrap_err();
        assert!(e.contains("master"), "{e}");
        let e = c
            .supports(
                Component::V41,
                BufferKind::FullyDescribed,
                Release::OpenPmix4_2,
            )
            .unwrap_err();
        assert!(e.contains("fully-described"), "{e}");
    }
}
