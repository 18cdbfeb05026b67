//! The `pmix-wire` command line, for users: vendors checking bytes, operators asking
//! whether a client and a server will work together (`compat`), anyone reading a capture
//! (`pcap`). Subcommands: decode, inspect, encode, types, diff, inherit, compat, pcap,
//! completions.
//!
//! [`run`] is the whole program behind `src/bin/pmix-wire.rs`, with its streams passed in.
//! Exit codes: [`EXIT_OK`] 0, [`EXIT_PMIX`] 1 (a PMIx encode/decode failure: one line with the
//! status, offset and reason on stderr), [`EXIT_USAGE`] 2 (bad arguments, hex or JSON),
//! [`EXIT_IO`] 3 (a file or stream could not be read or written). With `--json` on the
//! command line, an error is also one JSON object on stdout ([`script::failure_json`]).

pub mod compat;
mod decode;
pub mod input;
pub mod inspect;
pub mod memory;
pub mod pcap;
pub mod script;
pub mod tables;
pub mod tree;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use input::InputFormat;
use pmix_codec::json::items_to_json;
use pmix_codec::{BufferKind, Codec, Component, DataType, DecodeOptions, Error, Release};
use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::PathBuf;

/// Success.
pub const EXIT_OK: i32 = 0;
/// The codec refused the input (decode or encode failure); the PMIx status is on stderr.
pub const EXIT_PMIX: i32 = 1;
/// Bad command line, hex or JSON.
pub const EXIT_USAGE: i32 = 2;
/// A file or stream could not be read or written.
pub const EXIT_IO: i32 = 3;

/// Why a command failed.
#[derive(Debug)]
pub enum Failure {
    /// A PMIx error from the codec.
    Pmix(Error),
    /// A PMIx status without a byte offset (a failed lookup).
    Status(pmix_codec::Status, String),
    /// Bad arguments or input text.
    Usage(String),
    /// I/O.
    Io(String),
}

impl Failure {
    /// The exit code this failure ends the program with.
    pub fn exit_code(&self) -> i32 {
        match self {
            Failure::Pmix(_) | Failure::Status(..) => EXIT_PMIX,
            Failure::Usage(_) => EXIT_USAGE,
            Failure::Io(_) => EXIT_IO,
        }
    }
    /// The one-line message (after `error: ` on stderr).
    pub fn line(&self) -> String {
        match self {
            Failure::Pmix(e) => error_line(e),
            Failure::Status(s, why) => format!("{s}: {why}"),
            Failure::Usage(s) | Failure::Io(s) => s.clone(),
        }
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Self {
        Failure::Io(format!("cannot write output: {e}"))
    }
}

/// The one-line form of a codec error:
/// `PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER (-50) at byte 7 (item 1, STRING): need 5 bytes, 3 left`.
pub fn error_line(e: &Error) -> String {
    e.to_string()
}

const ABOUT: &str = "Decode, inspect and encode OpenPMIx bfrops wire bytes (all eight components, both buffer kinds)";

const TOP_HELP: &str = "\
Examples:
  pmix-wire decode -c v41 --types UINT32,STRING 02 2a 02 0c 68 65 6c 6c 6f 00
  pmix-wire inspect -c v61 -b fully-described 09 02 4b 03
  pmix-wire encode -c v3 '[{\"type\":\"UINT32\",\"values\":[42]}]'
  pmix-wire types
  pmix-wire diff v41 v3 '[{\"type\":\"PID\",\"values\":[4242]}]'
  pmix-wire inherit pmix.alloc.inhrt
  pmix-wire compat 4.2.2 slurm-24.11.5
  pmix-wire completions bash > /etc/bash_completion.d/pmix-wire

Input bytes: hex arguments (spaces, 0x and : , _ separators allowed), or --file PATH
(`-` = stdin; hex or raw, detected unless --input says), or stdin when neither is given.

Exit codes:
  0  success
  1  the codec refused the input: one line on stderr with the PMIx status, the byte
     offset, the item and the reason
  2  usage error: bad arguments, bad hex or bad JSON
  3  I/O error: a file or stream could not be read or written

For scripts: --json (decode, encode, inspect, types, diff, inherit, quirks) prints JSON,
and any error of a command line with --json is one JSON object on stdout (unless the
command's own JSON already carries it, as inspect's does):
  {\"error\": {\"exit_code\": N, \"kind\": \"pmix|status|usage|io\", \"message\": ...,
             \"status\": S, \"name\": ..., \"offset\": ..., \"item\": ...}}";

const DECODE_HELP: &str = "\
Examples:
  # non-described: the buffer does not say its types, so name them
  pmix-wire decode -c v41 --types UINT32,STRING 02 2a 02 0c 68 65 6c 6c 6f 00
  # fully described: the types are discovered from the tags
  pmix-wire decode -c v61 -b fully-described 09 02 4b 03
  # a readable tree instead of JSON, bytes from a file
  pmix-wire decode -c v3 -t INFO --output tree --file msg.hex
  # 4.2.x behaviour for the same component name
  pmix-wire decode -c v41 -r 4.2 -t UINT16 02 ff ff   # 32767; master: error -50";

const INSPECT_HELP: &str = "\
Every field on its own line: offset, bytes, meaning (counts, type tags, lengths,
flexible-integer values, NULs). On malformed input the walk stops at the exact byte
where decoding fails, with the PMIx status and the reason (exit code 1).

Examples:
  pmix-wire inspect -c v41 -t INFO 02 24 70 6d 69 78 2e 61 6c 6c 6f 63 2e 6e 6e 6f 64 65 73 00 00 0f 10
  pmix-wire inspect -c v20 -b fully-described 0009 00000001 000e 0000002a
  pmix-wire inspect -c v41 -t UINT32,STRING 02 2a 02 0a 61 62";

const ENCODE_HELP: &str = "\
Items are the vectors' JSON value format: an array of {\"type\": T, \"values\": [...]}
(one object alone is accepted too). See vectors/README.md for every type's form.

Examples:
  pmix-wire encode -c v41 '[{\"type\":\"UINT32\",\"values\":[42]},{\"type\":\"STRING\",\"values\":[\"hello\"]}]'
  pmix-wire encode -c v61 -b fully-described '{\"type\":\"ALLOC_INHERIT\",\"values\":[3]}'
  echo '{\"type\":\"PROC\",\"values\":[{\"nspace\":\"ns\",\"rank\":4294967294}]}' | pmix-wire encode -c v3 -o raw > proc.bin";

const TYPES_HELP: &str = "\
Examples:
  pmix-wire types              # the matrix across all eight components (master)
  pmix-wire types -r 4.2       # as OpenPMIx 4.2.x registers them (v41 has the STATS types)
  pmix-wire types -c v12       # one component's list";

const DIFF_HELP: &str = "\
A side is COMPONENT[@RELEASE], e.g. v41, v41@4.2, v61@master.

Examples:
  pmix-wire diff v41 v3 '[{\"type\":\"PID\",\"values\":[4242]}]'
  pmix-wire diff --fields v21@4.2 v21@master '{\"type\":\"DATA_ARRAY\",\"values\":[{\"type\":\"UNDEF\",\"values\":[]}]}'
  pmix-wire diff -b fully-described v20 v21 '{\"type\":\"INFO\",\"values\":[{\"key\":\"k\",\"flags\":0,\"value\":{\"type\":\"UINT64\",\"value\":16}}]}'";

const INHERIT_HELP: &str = "\
Examples:
  pmix-wire inherit                     # both tables
  pmix-wire inherit 4                   # PMIx_Alloc_inheritance_string(4)
  pmix-wire inherit CHILD               # the value of a disposition
  pmix-wire inherit PMIX_SPAWN_TARGET   # an attribute by macro name or key string";

const COMPLETIONS_HELP: &str = "\
Examples:
  pmix-wire completions bash > ~/.local/share/bash-completion/completions/pmix-wire
  pmix-wire completions zsh > \"${fpath[1]}/_pmix-wire\"
  pmix-wire completions fish > ~/.config/fish/completions/pmix-wire.fish";

/// The command line.
#[derive(Parser, Debug)]
#[command(name = "pmix-wire", version, about = ABOUT, after_help = TOP_HELP)]
pub struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Decode bytes to values (JSON in the vectors' format, or a tree)
    #[command(after_help = DECODE_HELP)]
    Decode(DecodeArgs),
    /// Annotated hexdump: every field with its offset, bytes and meaning
    #[command(after_help = INSPECT_HELP)]
    Inspect(InspectArgs),
    /// Encode JSON items to bytes (hex or raw)
    #[command(after_help = ENCODE_HELP)]
    Encode(EncodeArgs),
    /// The data types each component registers
    #[command(after_help = TYPES_HELP)]
    Types(TypesArgs),
    /// Encode the same items two ways and show where the bytes differ
    #[command(after_help = DIFF_HELP)]
    Diff(DiffArgs),
    /// PMIx_Alloc_inheritance_string and the allocation/spawn attribute dictionary
    #[command(after_help = INHERIT_HELP)]
    Inherit(InheritArgs),
    /// The OpenPMIx quirks this codec reproduces or guards against (QUIRKS.md)
    Quirks(QuirksArgs),
    /// Will a client release work with a server? Predicted and observed failures, with evidence
    #[command(after_help = compat::COMPAT_HELP)]
    Compat(compat::CompatArgs),
    /// Decode the PMIx traffic of a tcpdump capture (pcap/pcapng), connection by connection
    #[command(after_help = pcap::PCAP_HELP)]
    Pcap(pcap::PcapArgs),
    /// Print a shell completion script
    #[command(after_help = COMPLETIONS_HELP)]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

/// A bfrops component, as named in the handshake.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ComponentArg {
    /// PMIx 1.2 (legacy, be32 tags in 1.x numbering)
    V12,
    /// PMIx 2.0 (legacy, be16 tags)
    V20,
    /// PMIx 2.1 (converged: fixed-width big-endian)
    V21,
    /// PMIx 3.x (converged)
    V3,
    /// PMIx 4.0 (modern: flexible integers)
    V4,
    /// PMIx 4.1 (modern; native in 4.2.x and 5.0.x)
    V41,
    /// PMIx 5.1/6.0 (modern)
    V51,
    /// PMIx 6.1 / master (modern)
    V61,
}

impl From<ComponentArg> for Component {
    fn from(c: ComponentArg) -> Self {
        Component::ALL[c as usize]
    }
}

/// The buffer kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum KindArg {
    /// PMIX_BFROP_BUFFER_NON_DESC: counts and values only
    #[value(alias = "nd")]
    NonDescribed,
    /// PMIX_BFROP_BUFFER_FULLY_DESC: type tags too
    #[value(alias = "fd", alias = "described")]
    FullyDescribed,
}

impl From<KindArg> for BufferKind {
    fn from(k: KindArg) -> Self {
        match k {
            KindArg::NonDescribed => BufferKind::NonDescribed,
            KindArg::FullyDescribed => BufferKind::FullyDescribed,
        }
    }
}

/// The release profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReleaseArg {
    /// OpenPMIx master (7.0.0a1, commit 494e9d9d)
    Master,
    /// OpenPMIx 4.2.x (Debian's libpmix 4.2.2)
    #[value(name = "4.2")]
    R42,
    /// OpenPMIx 5.0.x (Debian trixie's 5.0.7)
    #[value(name = "5.0")]
    R50,
    /// OpenPMIx 6.0.x (tag v6.0.0)
    #[value(name = "6.0")]
    R60,
    /// OpenPMIx 6.1.x (tag v6.1.0)
    #[value(name = "6.1")]
    R61,
    /// OpenPMIx 7.0 (Debian sid's 7.0.0rc1)
    #[value(name = "7.0")]
    R70,
}

impl From<ReleaseArg> for Release {
    fn from(r: ReleaseArg) -> Self {
        match r {
            ReleaseArg::Master => Release::Master,
            ReleaseArg::R42 => Release::OpenPmix4_2,
            ReleaseArg::R50 => Release::OpenPmix5_0,
            ReleaseArg::R60 => Release::OpenPmix6_0,
            ReleaseArg::R61 => Release::OpenPmix6_1,
            ReleaseArg::R70 => Release::OpenPmix7_0,
        }
    }
}

#[derive(Args, Debug)]
struct CodecArgs {
    /// bfrops component
    #[arg(short, long, value_enum, default_value = "v61")]
    component: ComponentArg,
    /// Buffer kind (not carried in messages: it is negotiated in the handshake)
    #[arg(short, long, value_enum, default_value = "non-described")]
    buffer: KindArg,
    /// Release whose behaviour to reproduce for the component name
    #[arg(short, long, value_enum, default_value = "master")]
    release: ReleaseArg,
    /// Read modern DATA_TYPE values as written (plain varint) instead of as OpenPMIx reads them (quirk D1)
    #[arg(long)]
    datatype_as_written: bool,
    /// Decode what OpenPMIx's packer wrote where its own unpacker reads something else
    /// (quirks D1, L2, U8, U10-U13) instead of what a C receiver sees
    #[arg(long)]
    as_written: bool,
}

impl CodecArgs {
    fn codec(&self) -> Codec {
        let mut c =
            Codec::new(self.component.into(), self.buffer.into()).with_release(self.release.into());
        c.options = DecodeOptions {
            datatype_as_written: self.datatype_as_written,
            as_written: self.as_written,
        };
        c
    }
}

#[derive(Args, Debug)]
struct InputArgs {
    /// Bytes as hex (several arguments are joined)
    #[arg(value_name = "HEX")]
    hex: Vec<String>,
    /// Read the bytes from a file (`-` = stdin)
    #[arg(short, long, value_name = "PATH")]
    file: Option<PathBuf>,
    /// How to read --file or stdin
    #[arg(long = "input", value_enum, default_value = "auto")]
    format: InputFormat,
}

fn parse_type(s: &str) -> Result<DataType, String> {
    let up = s.trim().to_ascii_uppercase();
    DataType::parse(&up).ok_or_else(|| {
        let names: Vec<&str> = (1..=75u16).filter_map(|n| DataType(n).name()).collect();
        format!(
            "unknown data type {s:?} (valid: a number, or a name with or without PMIX_: {})",
            names.join(" ")
        )
    })
}

/// How decoded values are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum DecodeOutput {
    /// The vectors' JSON value format
    Json,
    /// An indented tree
    Tree,
    /// JSON: each call's type, count, bytes and largest value, without decoding the values
    /// (a view: memory bounded by the input; needs --types)
    Index,
}

#[derive(Args, Debug)]
struct DecodeArgs {
    #[command(flatten)]
    codec: CodecArgs,
    /// The type of each unpack call, comma-separated (required for non-described buffers)
    #[arg(short, long, value_delimiter = ',', value_parser = parse_type, value_name = "TYPE,...")]
    types: Vec<DataType>,
    /// Output form
    #[arg(short, long, value_enum, default_value = "json")]
    output: DecodeOutput,
    /// One-line JSON
    #[arg(long)]
    compact: bool,
    /// For scripts: one-line JSON output, and errors as a JSON object on stdout
    #[arg(long, conflicts_with = "output")]
    json: bool,
    #[command(flatten)]
    input: InputArgs,
}

#[derive(Args, Debug)]
struct InspectArgs {
    #[command(flatten)]
    codec: CodecArgs,
    /// The type of each unpack call, comma-separated (required for non-described buffers)
    #[arg(short, long, value_delimiter = ',', value_parser = parse_type, value_name = "TYPE,...")]
    types: Vec<DataType>,
    /// Show every byte of long fields
    #[arg(long)]
    full: bool,
    /// The annotated tree as JSON (every field with its path, offset, length and meaning)
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    input: InputArgs,
}

/// How encoded bytes are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum EncodeOutput {
    /// Lowercase hex on one line
    Hex,
    /// Hex with a space between bytes
    Spaced,
    /// The raw bytes
    Raw,
}

#[derive(Args, Debug)]
struct EncodeArgs {
    #[command(flatten)]
    codec: CodecArgs,
    /// Output form
    #[arg(short, long, value_enum, default_value = "hex")]
    output: EncodeOutput,
    /// Read the JSON from a file (`-` = stdin)
    #[arg(short, long, value_name = "PATH")]
    file: Option<PathBuf>,
    /// The items as JSON (else --file or stdin)
    #[arg(value_name = "JSON")]
    json: Option<String>,
    /// For scripts: print {"codec", "buffer", "bytes", "hex"}, and errors as a JSON object on stdout
    #[arg(long = "json", conflicts_with = "output")]
    json_output: bool,
}

#[derive(Args, Debug)]
struct TypesArgs {
    /// List one component's types instead of the matrix
    #[arg(short, long, value_enum)]
    component: Option<ComponentArg>,
    /// Release profile
    #[arg(short, long, value_enum, default_value = "master")]
    release: ReleaseArg,
    /// Print JSON (and errors as a JSON object on stdout)
    #[arg(long)]
    json: bool,
}

/// One side of a diff.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Side {
    /// The component.
    pub component: Component,
    /// The release profile.
    pub release: Release,
}

fn parse_side(s: &str) -> Result<Side, String> {
    let (c, r) = match s.split_once('@') {
        Some((c, r)) => (c, Some(r)),
        None => (s, None),
    };
    Ok(Side {
        component: c.parse()?,
        release: r.map(str::parse).transpose()?.unwrap_or_default(),
    })
}

#[derive(Args, Debug)]
struct DiffArgs {
    /// Buffer kind for both sides
    #[arg(short, long, value_enum, default_value = "non-described")]
    buffer: KindArg,
    /// Also show the fields of each differing item, side by side
    #[arg(long)]
    fields: bool,
    /// Read the JSON from a file (`-` = stdin)
    #[arg(short, long, value_name = "PATH")]
    file: Option<PathBuf>,
    /// Compare two byte strings instead: A and B are hex, read under this codec
    /// (COMPONENT[@RELEASE]); give -c twice to read B under a second codec. Exit 1 when
    /// they differ (the bytes under one codec, the decoded values under two), 0 when equal.
    #[arg(short = 'c', long = "codec", value_parser = parse_side, value_name = "COMPONENT[@RELEASE]")]
    codecs: Vec<Side>,
    /// With -c: the type of each unpack call (decodes both sides and compares the values)
    #[arg(short, long, value_delimiter = ',', value_parser = parse_type, value_name = "TYPE,...")]
    types: Vec<DataType>,
    /// Print the result as one JSON object (and errors as a JSON object on stdout)
    #[arg(long)]
    json: bool,
    /// Side A: COMPONENT[@RELEASE] (with -c: hex bytes)
    #[arg(value_name = "A")]
    a: String,
    /// Side B: COMPONENT[@RELEASE] (with -c: hex bytes)
    #[arg(value_name = "B")]
    b: String,
    /// The items as JSON (else --file or stdin)
    #[arg(value_name = "JSON")]
    items: Option<String>,
}

#[derive(Args, Debug)]
struct QuirksArgs {
    /// One quirk by id or id prefix (e.g. D1); default: all of them
    id: Option<String>,
    /// Print JSON instead of text (and errors as a JSON object on stdout)
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct InheritArgs {
    /// A value (0-255), a disposition name (CHILD), or an attribute's macro name or key string
    query: Option<String>,
    /// Print JSON (and errors as a JSON object on stdout)
    #[arg(long)]
    json: bool,
}

/// Run the program with `args` (including the program name); returns the exit code.
pub fn run<I, T>(
    args: I,
    stdin: &mut dyn Read,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    // `--json` anywhere before `--` asks for errors as JSON too, even those clap reports
    // before any subcommand runs (an unknown value, a missing argument).
    let json = args
        .iter()
        .skip(1)
        .take_while(|a| *a != "--")
        .any(|a| a == "--json");
    let cli = match Cli::try_parse_from(&args) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_USAGE } else { EXIT_OK };
            let text = e.render().to_string();
            let _ = if e.use_stderr() {
                if json {
                    let _ = writeln!(stdout, "{}", script::usage_json(&text));
                }
                stderr.write_all(text.as_bytes())
            } else {
                stdout.write_all(text.as_bytes())
            };
            return code;
        }
    };
    let mut counted = Counting {
        inner: stdout,
        written: 0,
    };
    match dispatch(cli, stdin, &mut counted, stderr) {
        Ok(code) => code,
        // The reader went away (`| head`): nothing left to say to it.
        Err(Failure::Io(ref s)) if s.contains("Broken pipe") => EXIT_OK,
        Err(f) => {
            // stdout stays one JSON document: a command that already printed its own (e.g.
            // `inspect --json`, which carries the error in it) gets no second one.
            if json && counted.written == 0 {
                let _ = writeln!(counted.inner, "{}", script::failure_json(&f));
            }
            let _ = writeln!(stderr, "error: {}", f.line());
            f.exit_code()
        }
    }
}

/// A writer that counts the bytes written through it.
struct Counting<'a> {
    inner: &'a mut dyn Write,
    written: usize,
}

impl Write for Counting<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written += n;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

fn dispatch(
    cli: Cli,
    stdin: &mut dyn Read,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<i32, Failure> {
    match cli.cmd {
        Cmd::Decode(a) => decode::decode(a, stdin, out, err),
        Cmd::Inspect(a) => inspect(a, stdin, out),
        Cmd::Encode(a) => encode(a, stdin, out),
        Cmd::Types(a) if a.json => {
            let j = match a.component {
                Some(c) => script::types_list_json(c.into(), a.release.into()),
                None => script::types_json(a.release.into()),
            };
            writeln!(out, "{j}")?;
            Ok(EXIT_OK)
        }
        Cmd::Types(a) => {
            let text = match a.component {
                Some(c) => tables::types_list(c.into(), a.release.into()),
                None => tables::types_matrix(a.release.into()),
            };
            out.write_all(text.as_bytes())?;
            Ok(EXIT_OK)
        }
        Cmd::Diff(a) if !a.codecs.is_empty() => diff_bytes(a, out),
        Cmd::Diff(a) => {
            let side = |s: &str| parse_side(s).map_err(Failure::Usage);
            let (sa, sb) = (side(&a.a)?, side(&a.b)?);
            let items = input::items(&input::json_text(a.items.as_ref(), a.file.as_ref(), stdin)?)?;
            let ok = if a.json {
                let (j, ok) = script::diff_json(sa, sb, a.buffer.into(), &items);
                writeln!(out, "{j}")?;
                ok
            } else {
                let (text, ok) = tables::diff(sa, sb, a.buffer.into(), &items, a.fields);
                out.write_all(text.as_bytes())?;
                ok
            };
            Ok(if ok { EXIT_OK } else { EXIT_PMIX })
        }
        Cmd::Inherit(a) if a.json => {
            let j = match &a.query {
                None => script::inherit_json(),
                Some(q) => script::inherit_lookup_json(q)?,
            };
            writeln!(out, "{j}")?;
            Ok(EXIT_OK)
        }
        Cmd::Inherit(a) => {
            let text = match a.query {
                None => tables::inherit_tables(),
                Some(q) => {
                    tables::inherit_lookup(&q).map_err(|(s, why)| Failure::Status(s, why))?
                }
            };
            out.write_all(text.as_bytes())?;
            Ok(EXIT_OK)
        }
        Cmd::Quirks(a) => {
            use pmix_codec::quirks_doc;
            let list: Vec<&pmix_codec::quirks::Quirk> = match &a.id {
                Some(id) => vec![quirks_doc::find(id).map_err(Failure::Usage)?],
                None => pmix_codec::quirks::QUIRKS.iter().collect(),
            };
            if a.json {
                let j: Vec<serde_json::Value> = list.iter().map(|q| quirks_doc::json(q)).collect();
                let j = if a.id.is_some() {
                    j.into_iter().next().unwrap_or_default()
                } else {
                    serde_json::Value::Array(j)
                };
                write_pretty_json(out, &j)?;
            } else {
                for (n, q) in list.iter().enumerate() {
                    if n > 0 {
                        writeln!(out)?;
                    }
                    out.write_all(quirks_doc::text(q).as_bytes())?;
                }
            }
            Ok(EXIT_OK)
        }
        Cmd::Pcap(a) => pcap::run(a, stdin, out),
        Cmd::Compat(a) => compat::run(a, out),
        Cmd::Completions { shell } => {
            let mut cmd = Cli::command();
            let mut buf = Vec::new();
            clap_complete::generate(shell, &mut cmd, "pmix-wire", &mut buf);
            out.write_all(&buf)?;
            Ok(EXIT_OK)
        }
    }
}

/// `diff -c …`: compare two byte strings under one or two codecs.
fn diff_bytes(a: DiffArgs, out: &mut dyn Write) -> Result<i32, Failure> {
    if a.codecs.len() > 2 {
        return Err(Failure::Usage(format!(
            "diff takes -c once (both sides under one codec) or twice (A's codec, B's codec), not {} times",
            a.codecs.len()
        )));
    }
    let codec_of = |s: Side| Codec::new(s.component, a.buffer.into()).with_release(s.release);
    let ca = codec_of(a.codecs[0]);
    let cb = codec_of(*a.codecs.last().unwrap());
    let two = a.codecs.len() == 2;
    let bytes_a = input::bytes(
        std::slice::from_ref(&a.a),
        None,
        InputFormat::Auto,
        &mut std::io::empty(),
    )?;
    let bytes_b = input::bytes(
        std::slice::from_ref(&a.b),
        None,
        InputFormat::Auto,
        &mut std::io::empty(),
    )?;
    if two && a.types.is_empty() && ca.kind == BufferKind::NonDescribed {
        return Err(Failure::Usage(
            "under two codecs the values are compared: pass --types (e.g. --types UINT32,STRING), or -b fully-described".into(),
        ));
    }
    let decode = |c: &Codec, b: &[u8]| -> Option<Result<Vec<pmix_codec::Item>, Error>> {
        if a.types.is_empty() {
            (c.kind == BufferKind::FullyDescribed).then(|| c.decode_described(b))
        } else {
            Some(c.decode(b, &a.types))
        }
    };
    let (da, db) = (decode(&ca, &bytes_a), decode(&cb, &bytes_b));
    let first_byte = bytes_a
        .iter()
        .zip(&bytes_b)
        .position(|(x, y)| x != y)
        .or((bytes_a.len() != bytes_b.len()).then(|| bytes_a.len().min(bytes_b.len())));
    let values_equal = match (&da, &db) {
        (Some(Ok(x)), Some(Ok(y))) => Some(x == y),
        _ => None,
    };
    // One codec: the bytes decide. Two codecs: the values decide (the bytes of two
    // components legitimately differ); a side that fails to decode differs.
    let equal = if two {
        values_equal == Some(true)
    } else {
        first_byte.is_none()
    };
    let side_name = |c: &Codec| format!("{}@{}", c.component, c.release);
    if a.json {
        let side_json = |c: &Codec, b: &[u8], d: &Option<Result<Vec<pmix_codec::Item>, Error>>| {
            let mut j =
                serde_json::json!({"codec": side_name(c), "hex": pmix_oracle::hex::encode(b)});
            match d {
                Some(Ok(items)) => j["items"] = items_to_json(items),
                Some(Err(e)) => j["error"] = error_json(e),
                None => {}
            }
            j
        };
        let j = serde_json::json!({
            "equal": equal,
            "buffer": BufferKind::from(a.buffer).name(),
            "first_differing_byte": first_byte,
            "values_equal": values_equal,
            "a": side_json(&ca, &bytes_a, &da),
            "b": side_json(&cb, &bytes_b, &db),
        });
        writeln!(out, "{j}")?;
    } else {
        writeln!(
            out,
            "A ({}): {} bytes  {}",
            side_name(&ca),
            bytes_a.len(),
            pmix_oracle::hex::encode(&bytes_a)
        )?;
        writeln!(
            out,
            "B ({}): {} bytes  {}",
            side_name(&cb),
            bytes_b.len(),
            pmix_oracle::hex::encode(&bytes_b)
        )?;
        match first_byte {
            Some(o) => writeln!(out, "bytes differ from byte {o}")?,
            None => writeln!(out, "bytes equal")?,
        }
        for (name, d) in [("A", &da), ("B", &db)] {
            match d {
                Some(Ok(items)) => writeln!(out, "{name} decodes to {}", items_to_json(items))?,
                Some(Err(e)) => writeln!(out, "{name} does not decode: {}", error_line(e))?,
                None => {}
            }
        }
        if let Some(v) = values_equal {
            writeln!(out, "values {}", if v { "equal" } else { "differ" })?;
        }
        writeln!(out, "{}", if equal { "equal" } else { "differ" })?;
    }
    Ok(if equal { EXIT_OK } else { EXIT_PMIX })
}

/// A PMIx error as JSON (status number and name, call, offset, reason).
pub fn error_json(e: &Error) -> serde_json::Value {
    serde_json::json!({
        "status": e.status.0,
        "name": e.status.name().map(|n| format!("PMIX_{n}")),
        "item": e.item,
        "offset": e.offset,
        "message": error_line(e),
    })
}

fn need_types(codec: &Codec, types: &[DataType]) -> Result<(), Failure> {
    if types.is_empty() && codec.kind == BufferKind::NonDescribed {
        return Err(Failure::Usage(
            "a non-described buffer does not say its types: pass --types (e.g. --types UINT32,STRING), or -b fully-described if it is one".into(),
        ));
    }
    Ok(())
}

fn inspect(a: InspectArgs, stdin: &mut dyn Read, out: &mut dyn Write) -> Result<i32, Failure> {
    let codec = a.codec.codec();
    need_types(&codec, &a.types)?;
    let bytes = input::bytes(&a.input.hex, a.input.file.as_ref(), a.input.format, stdin)?;
    let types = (!a.types.is_empty()).then_some(a.types.as_slice());
    // Refuse what does not fit before building it (`memory`): a first pass keeps counts.
    let mut tally = memory::Tally::default();
    if let Err(e) = codec.decode_observed(&bytes, types, &mut tally) {
        if e.status == pmix_codec::Status(-32) {
            return Err(Failure::Pmix(e));
        }
    }
    let need = memory::dissection_need(&tally, bytes.len(), a.json);
    memory::reserve_or_nomem(need, "this dissection")?;
    let d = inspect::dissect(&codec, &bytes, types);
    if a.json {
        let mut j = inspect::to_json(&d, &bytes);
        j["component"] = serde_json::json!(codec.component.to_string());
        j["kind"] = serde_json::json!(codec.kind.to_string());
        j["release"] = serde_json::json!(codec.release.to_string());
        write_pretty_json(out, &j)?;
        return match d.error {
            Some(e) => Err(Failure::Pmix(e)),
            None => Ok(EXIT_OK),
        };
    }
    let what = match types {
        Some(t) => t
            .iter()
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
            .join(","),
        None => "discovered from tags".into(),
    };
    let mode = if codec.options.as_written {
        ", read as written"
    } else if codec.options.datatype_as_written {
        ", DATA_TYPE read as written"
    } else {
        ""
    };
    writeln!(
        out,
        "# {} {} ({}{mode}), {} bytes, types: {what}",
        codec.component,
        codec.kind,
        codec.release,
        bytes.len()
    )?;
    out.write_all(inspect::render(&d, &bytes, a.full).as_bytes())?;
    match d.error {
        Some(e) => Err(Failure::Pmix(e)),
        None => Ok(EXIT_OK),
    }
}

fn encode(a: EncodeArgs, stdin: &mut dyn Read, out: &mut dyn Write) -> Result<i32, Failure> {
    let codec = a.codec.codec();
    let items = input::items(&input::json_text(a.json.as_ref(), a.file.as_ref(), stdin)?)?;
    let bytes = codec.encode(&items).map_err(Failure::Pmix)?;
    if a.json_output {
        writeln!(out, "{}", script::encode_json(&codec, &bytes))?;
        return Ok(EXIT_OK);
    }
    match a.output {
        EncodeOutput::Hex => writeln!(out, "{}", pmix_oracle::hex::encode(&bytes))?,
        EncodeOutput::Spaced => writeln!(out, "{}", spaced(&bytes))?,
        EncodeOutput::Raw => out.write_all(&bytes)?,
    }
    Ok(EXIT_OK)
}

/// Hex with a space between bytes.
pub fn spaced(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// One JSON document, indented, and a newline: what every `--json` answer prints.
pub(crate) fn write_pretty_json(out: &mut dyn Write, j: &serde_json::Value) -> std::io::Result<()> {
    writeln!(
        out,
        "{}",
        serde_json::to_string_pretty(j).unwrap_or_default()
    )
}
