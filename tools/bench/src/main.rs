//! `pmix-bench`, for anyone weighing the codec's speed: our codec against the installed
//! libpmix on the same workloads, side by side in one run.
//!
//! ```sh
//! cargo run --release -p pmix-bench                 # every workload, v3 and v41, nd and fd
//! cargo run --release -p pmix-bench -- -w info -c v41 -k nd --reps 50 --rounds 5
//! cargo run --release -p pmix-bench -- --markdown   # the table as Markdown
//! ```
//!
//! For each workload (`codec/benches/support/workloads.rs`), component and buffer kind it
//! builds and runs `pmix-bench-c` (`tools/bench/pmix_bench.c`, linked with libpmix), which
//! times the library's pack and unpack calls, best of `--reps`; checks that libpmix's bytes
//! equal ours and that both sides read them back completely; then times our `encode`,
//! `encode_into`, `decode` and `decode_into` the same way, the two sides taking turns
//! `--rounds` times, and prints MB/s (10^6 bytes of wire data per second) for both and the
//! ratio. See `tools/bench/README.md`.

#[path = "../../../codec/benches/support/workloads.rs"]
mod workloads;

#[path = "../../../codec/benches/support/hostile.rs"]
mod hostile;

/// Peak heap of decoding, measured with a counting allocator.
#[path = "../../../codec/benches/support/counting.rs"]
mod heap;

use clap::Parser;
use pmix_codec::{BufferKind, Codec, Component, Release};
use std::hint::black_box;
use std::path::PathBuf;
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};
use workloads::Workload;

/// The global allocator, counting live bytes while [`heap::peak_during`] measures (and
/// costing one relaxed load per allocation otherwise).
#[global_allocator]
static ALLOC: heap::Counting = heap::Counting;

/// The peak-heap target: a view (`Codec::view`, the entry point for a receiver with a
/// memory budget) of any input allocates at most this many times its size.
const HEAP_RATIO_TARGET: f64 = 16.0;

/// The worst peak heap of the hostile classes, per entry point: `(class, ratio)`.
struct HeapWorst {
    view: (&'static str, f64),
    decode: (&'static str, f64),
}

/// View and decode every hostile class (about `size` bytes each) and print the peak heap
/// of each as a multiple of the input; returns the worst of each.
fn print_heap(size: usize) -> HeapWorst {
    println!(
        "\npeak heap (counting allocator), hostile inputs of about {size} bytes: `view` keeps \
         no value (an offset per top-level value), `decode` holds every value (48-byte Values):"
    );
    let mut worst = HeapWorst {
        view: ("", 0.0),
        decode: ("", 0.0),
    };
    for h in hostile::classes(size) {
        // the input as a receiver holds it: shared memory, which the values may slice
        let input = pmix_codec::Bytes::from(h.bytes.clone());
        let calls = [(h.ty, usize::MAX)];
        let (result, decode_peak) = heap::peak_during(|| {
            h.codec
                .decode_calls(&input, &calls)
                .map(|items| items.len())
                .map_err(|(e, _)| e)
        });
        let (view, view_peak) = heap::peak_during(|| h.codec.view(&input, &calls).map(|v| v.len()));
        let per_input = |peak: usize| peak as f64 / h.bytes.len() as f64;
        let (decode_ratio, view_ratio) = (per_input(decode_peak), per_input(view_peak));
        let outcome = match (result, view) {
            (Ok(_), Ok(_)) => "decoded".to_string(),
            (Err(e), Err(_)) => format!("refused ({})", e.status),
            // codec/tests/view.rs holds them equal; say so loudly if they are not
            _ => "VIEW AND DECODE DISAGREE".to_string(),
        };
        println!(
            "  {:<36} {} {:>9} bytes  view {view_ratio:>6.2}x  decode {decode_ratio:>6.2}x  {outcome}",
            h.name,
            h.codec.component,
            h.bytes.len(),
        );
        if view_ratio > worst.view.1 {
            worst.view = (h.name, view_ratio);
        }
        if decode_ratio > worst.decode.1 {
            worst.decode = (h.name, decode_ratio);
        }
    }
    worst
}

#[derive(Parser)]
#[command(
    name = "pmix-bench",
    about = "Time pmix-codec against the installed libpmix on the same workloads",
    version
)]
struct Cli {
    /// Repetitions per measurement; the best one counts.
    #[arg(long, default_value_t = 20)]
    reps: usize,
    /// Rounds: libpmix and ours take turns this many times; the best of all runs counts.
    #[arg(long, default_value_t = 3)]
    rounds: usize,
    /// Workloads (info, proc, bytes, jobmap); default all.
    #[arg(short = 'w', long = "workload")]
    workloads: Vec<String>,
    /// Components, as libpmix 4.2.2 ships them (v12 ... v41); default v3 and v41.
    #[arg(short = 'c', long = "component")]
    components: Vec<String>,
    /// Buffer kinds (nd, fd); default both.
    #[arg(short = 'k', long = "kind")]
    kinds: Vec<String>,
    /// Print the table as Markdown.
    #[arg(long)]
    markdown: bool,
    /// Size of each hostile input of the peak-heap measurement, in bytes (0: skip it).
    #[arg(long, default_value_t = 1 << 20)]
    heap_size: usize,
    /// Use this pmix-bench-c instead of building tools/bench/pmix_bench.c.
    #[arg(long)]
    c_bench: Option<PathBuf>,
}

/// One measured line of the table.
struct Row {
    workload: &'static str,
    comp: Component,
    kind: BufferKind,
    op: &'static str,
    /// Which of our entry points: `alloc` (`encode`/`decode`, fresh output; `decode` from a
    /// `Bytes`, whose memory the values share), `slice` (`decode` from a `&[u8]`, copied
    /// once), `dest`
    /// (`decode_into` into cleared items), `reuse` (`encode_into`/`decode_into` with the
    /// previous call's output) or, for byte objects, `borrow` (`Packer::pack_byte_objects`
    /// from the payloads' slices into the previous call's buffer;
    /// `Unpacker::unpack_byte_objects`: payloads borrowed from the input).
    api: &'static str,
    bytes: usize,
    c: Duration,
    ours: Duration,
    /// Byte objects only: the copy-only baselines.
    memcpy: Option<Copies>,
}

/// Byte objects only: the time of copying the same data with plain `copy_from_slice`, into
/// a warm destination of the wire buffer's size.
#[derive(Clone, Copy)]
struct Copies {
    /// One copy of the whole wire buffer (one contiguous source).
    whole: Duration,
    /// One copy per object payload, the payloads back to back from offset 0.
    per_object: Duration,
    /// One copy per object payload to the offset it has in the wire buffer (behind its
    /// SIZE prefix): the payload bytes a packer has to move, where it has to put them.
    at_wire: Duration,
}

impl Copies {
    /// `(time, name)` of each baseline.
    fn each(self) -> [(Duration, &'static str); 3] {
        [
            (self.whole, "memcpy"),
            (self.per_object, "memcpy/obj"),
            (self.at_wire, "memcpy/wire"),
        ]
    }
}

fn mbps(bytes: usize, d: Duration) -> f64 {
    bytes as f64 / d.as_secs_f64().max(1e-12) / 1e6
}

/// Fastest of `reps` runs of `f`; the result is dropped outside the timed region.
fn best_of<T>(reps: usize, f: impl FnMut() -> T) -> Duration {
    best_of_prepared(reps, || (), f)
}

/// Fastest of `reps` runs of `f`, each after an untimed `prepare`.
fn best_of_prepared<T>(
    reps: usize,
    mut prepare: impl FnMut(),
    mut f: impl FnMut() -> T,
) -> Duration {
    let mut best = Duration::MAX;
    for _ in 0..reps {
        prepare();
        let t = Instant::now();
        let out = black_box(f());
        let dt = t.elapsed();
        drop(out);
        best = best.min(dt);
    }
    best
}

fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .and_then(std::path::Path::parent)
        .expect("workspace root")
        .to_path_buf()
}

/// Build `pmix-bench-c` next to cargo's outputs if it is missing or older than its source.
fn ensure_c_bench() -> Result<PathBuf, String> {
    let root = workspace_root();
    let src = root.join("tools/bench/pmix_bench.c");
    let target = std::env::var("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| root.join("target"));
    let out = target.join("pmix-bench-c");
    let stale = match (std::fs::metadata(&out), std::fs::metadata(&src)) {
        (Ok(o), Ok(s)) => o.modified().ok() < s.modified().ok(),
        _ => true,
    };
    if stale {
        let _ = std::fs::create_dir_all(&target);
        let tmp = target.join(format!("pmix-bench-c.{}.tmp", std::process::id()));
        let o = Command::new("bash")
            .arg(root.join("tools/bench/build.sh"))
            .arg(&tmp)
            .output()
            .map_err(|e| format!("cannot run tools/bench/build.sh: {e}"))?;
        if !o.status.success() {
            return Err(format!(
                "building pmix-bench-c failed (bash tools/setup.sh installs libpmix-dev):\n{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            ));
        }
        std::fs::rename(&tmp, &out).map_err(|e| format!("rename pmix-bench-c: {e}"))?;
    }
    Ok(out)
}

/// What one run of the C program measured.
struct CResult {
    bytes: Vec<u8>,
    pack: Duration,
    unpack: Duration,
}

fn run_c(
    exe: &PathBuf,
    w: Workload,
    comp: Component,
    kind: BufferKind,
    reps: usize,
) -> Result<CResult, String> {
    let dump = std::env::temp_dir().join(format!(
        "pmix-bench.{}.{}.{}.{}.bin",
        std::process::id(),
        w.name(),
        comp,
        kind_arg(kind)
    ));
    let o = Command::new(exe)
        .args([w.name(), comp.name(), kind_arg(kind), &reps.to_string()])
        .arg(&dump)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    let line = String::from_utf8_lossy(&o.stdout).trim().to_string();
    if !o.status.success() || !line.starts_with("ok ") {
        return Err(format!(
            "pmix-bench-c {} {comp} {}: {line} {}",
            w.name(),
            kind_arg(kind),
            String::from_utf8_lossy(&o.stderr).trim()
        ));
    }
    let field = |name: &str| -> Result<&str, String> {
        line.split_whitespace()
            .find_map(|t| t.strip_prefix(name).and_then(|t| t.strip_prefix('=')))
            .ok_or_else(|| format!("pmix-bench-c: no {name} in {line:?}"))
    };
    let ns = |name: &str| -> Result<Duration, String> {
        field(name)?
            .parse::<u64>()
            .map(Duration::from_nanos)
            .map_err(|e| format!("pmix-bench-c: bad {name}: {e}"))
    };
    if field("repack")? != "same" {
        return Err(format!(
            "pmix-bench-c {}: libpmix's unpacked values do not pack to the same bytes",
            w.name()
        ));
    }
    let bytes = std::fs::read(&dump).map_err(|e| format!("read {}: {e}", dump.display()))?;
    let _ = std::fs::remove_file(&dump);
    Ok(CResult {
        bytes,
        pack: ns("pack_ns")?,
        unpack: ns("unpack_ns")?,
    })
}

fn kind_arg(kind: BufferKind) -> &'static str {
    match kind {
        BufferKind::NonDescribed => "nd",
        BufferKind::FullyDescribed => "fd",
    }
}

fn parse_list<T>(
    given: &[String],
    default: Vec<T>,
    parse: impl Fn(&str) -> Option<T>,
    what: &str,
) -> Result<Vec<T>, String> {
    if given.is_empty() {
        return Ok(default);
    }
    given
        .iter()
        .flat_map(|s| s.split(','))
        .map(|s| parse(s).ok_or_else(|| format!("unknown {what} {s:?}")))
        .collect()
}

fn measure(
    exe: &PathBuf,
    w: Workload,
    comp: Component,
    kind: BufferKind,
    reps: usize,
    rounds: usize,
) -> Result<Vec<Row>, String> {
    let item = w.item();
    let items = std::slice::from_ref(&item);
    let codec = Codec::new(comp, kind).with_release(Release::OpenPmix4_2);
    let ours = codec
        .encode(items)
        .map_err(|e| format!("{} {comp}: encode: {e}", w.name()))?;
    let mut c = run_c(exe, w, comp, kind, reps)?;
    if c.bytes != ours {
        let at = c
            .bytes
            .iter()
            .zip(&ours)
            .take_while(|(a, b)| a == b)
            .count();
        return Err(format!(
            "{} {comp} {}: libpmix packed {} bytes, we packed {}; first difference at offset {at}",
            w.name(),
            kind_arg(kind),
            c.bytes.len(),
            ours.len()
        ));
    }
    let decoded = codec
        .decode(&ours, &[w.ty()])
        .map_err(|e| format!("{} {comp}: decode: {e}", w.name()))?;
    if decoded != items {
        return Err(format!(
            "{} {comp}: decode does not give back the workload",
            w.name()
        ));
    }
    drop(decoded);
    let types = [w.ty()];
    let mut buf = Vec::new();
    codec
        .encode_into(items, &mut buf)
        .map_err(|e| e.to_string())?;
    if buf != ours {
        return Err(format!(
            "{} {comp}: encode_into differs from encode",
            w.name()
        ));
    }
    let mut out = Vec::new();
    codec
        .decode_into(&ours, &types, &mut out)
        .map_err(|e| e.to_string())?;
    if out != items {
        return Err(format!(
            "{} {comp}: decode_into differs from decode",
            w.name()
        ));
    }
    // The byte objects' payloads, for the copy-only baselines.
    let objects: Vec<&[u8]> = item
        .values
        .iter()
        .filter_map(|v| match v {
            pmix_codec::Value::ByteObject(b) => Some(&b[..]),
            _ => None,
        })
        .collect();
    // Byte objects also through `Unpacker::unpack_byte_objects` (payloads borrowed from
    // the input, not copied); checked against the workload first.
    let mut borrowed: Vec<&[u8]> = Vec::new();
    if w.ty() == pmix_codec::DataType::BYTE_OBJECT {
        codec
            .unpacker(&ours)
            .unpack_byte_objects(usize::MAX, &mut borrowed)
            .map_err(|e| e.to_string())?;
        if borrowed != objects {
            return Err(format!(
                "{} {comp}: unpack_byte_objects differs from the workload",
                w.name()
            ));
        }
    }
    // Where each payload sits in the wire buffer, for the `memcpy/wire` baseline.
    let wire_at: Vec<usize> = borrowed
        .iter()
        .map(|b| b.as_ptr() as usize - ours.as_ptr() as usize)
        .collect();
    // Byte objects also through `Packer::pack_byte_objects` (from the payloads' slices);
    // checked against `encode` first.
    let mut packed = Vec::new();
    if !objects.is_empty() {
        codec
            .packer(&mut packed)
            .pack_byte_objects(&objects)
            .map_err(|e| e.to_string())?;
        if packed != ours {
            return Err(format!(
                "{} {comp}: pack_byte_objects differs from encode",
                w.name()
            ));
        }
    }
    let mut dst = vec![0u8; ours.len()];
    // `decode_into` into items whose values were cleared: the output arrays are there
    // (as libpmix's caller provides its destination array), every value is built afresh.
    let mut dest_out = out.clone();
    // The wire buffer as a receiver holds it: shared memory, which the decoded strings and
    // payloads may slice (the plain API's zero-copy input). `decode(&[u8])` copies a
    // borrowed slice once first: its own row, `slice`.
    let wire = pmix_codec::Bytes::from(ours.clone());
    let mut t = [Duration::MAX; 11];
    for round in 0..rounds {
        if round > 0 {
            // the two sides take turns, so a noisy spell hurts both alike
            let again = run_c(exe, w, comp, kind, reps)?;
            c.pack = c.pack.min(again.pack);
            c.unpack = c.unpack.min(again.unpack);
        }
        let now = [
            best_of(reps, || codec.encode(black_box(items))),
            best_of(reps, || codec.encode_into(black_box(items), &mut buf)),
            best_of(reps, || codec.decode(black_box(&wire), &types)),
            best_of(reps, || {
                codec.decode_into(black_box(&wire), &types, &mut out)
            }),
            {
                let cell = std::cell::RefCell::new(std::mem::take(&mut dest_out));
                let d = best_of_prepared(
                    reps,
                    || cell.borrow_mut().iter_mut().for_each(|i| i.values.clear()),
                    || codec.decode_into(black_box(&wire), &types, &mut cell.borrow_mut()),
                );
                dest_out = cell.into_inner();
                d
            },
            if objects.is_empty() {
                Duration::MAX
            } else {
                best_of(reps, || dst.copy_from_slice(black_box(&ours)))
            },
            if objects.is_empty() {
                Duration::MAX
            } else {
                best_of(reps, || {
                    let mut at = 0;
                    for o in black_box(&objects) {
                        dst[at..at + o.len()].copy_from_slice(o);
                        at += o.len();
                    }
                })
            },
            if objects.is_empty() {
                Duration::MAX
            } else {
                best_of(reps, || {
                    codec
                        .unpacker(black_box(&ours))
                        .unpack_byte_objects(usize::MAX, &mut borrowed)
                })
            },
            if objects.is_empty() {
                Duration::MAX
            } else {
                best_of(reps, || {
                    for (o, at) in black_box(&objects).iter().zip(&wire_at) {
                        dst[*at..*at + o.len()].copy_from_slice(o);
                    }
                })
            },
            if objects.is_empty() {
                Duration::MAX
            } else {
                best_of(reps, || {
                    packed.clear();
                    codec
                        .packer(&mut packed)
                        .pack_byte_objects(black_box(&objects))
                })
            },
            best_of(reps, || codec.decode(black_box(&ours[..]), &types)),
        ];
        for (best, now) in t.iter_mut().zip(now) {
            *best = (*best).min(now);
        }
    }
    if dest_out != items {
        return Err(format!("{} {comp}: decode_into differs", w.name()));
    }
    let [enc, enc_reuse, dec, dec_reuse, dec_dest, whole, per_object, dec_borrow, at_wire, enc_borrow, dec_slice] =
        t;
    let memcpy = (!objects.is_empty()).then_some(Copies {
        whole,
        per_object,
        at_wire,
    });
    let row = |op, api, c, ours_t| Row {
        workload: w.name(),
        comp,
        kind,
        op,
        api,
        bytes: ours.len(),
        c,
        ours: ours_t,
        memcpy,
    };
    let mut rows = vec![
        row("pack", "alloc", c.pack, enc),
        row("pack", "reuse", c.pack, enc_reuse),
        row("unpack", "alloc", c.unpack, dec),
        row("unpack", "slice", c.unpack, dec_slice),
        row("unpack", "dest", c.unpack, dec_dest),
        row("unpack", "reuse", c.unpack, dec_reuse),
    ];
    if !objects.is_empty() {
        rows.insert(2, row("pack", "borrow", c.pack, enc_borrow));
        rows.push(row("unpack", "borrow", c.unpack, dec_borrow));
    }
    Ok(rows)
}

fn print_table(rows: &[Row], markdown: bool) {
    let head = [
        "workload",
        "comp",
        "kind",
        "op",
        "api",
        "bytes",
        "libpmix MB/s",
        "ours MB/s",
        "ratio",
        "memcpy MB/s",
        "memcpy/obj MB/s",
        "memcpy/wire MB/s",
    ];
    let lines: Vec<[String; 12]> = rows
        .iter()
        .map(|r| {
            let (c, o) = (mbps(r.bytes, r.c), mbps(r.bytes, r.ours));
            let m = |f: fn(Copies) -> Duration| {
                r.memcpy
                    .map(|m| format!("{:.0}", mbps(r.bytes, f(m))))
                    .unwrap_or_default()
            };
            [
                r.workload.to_string(),
                r.comp.to_string(),
                kind_arg(r.kind).to_string(),
                r.op.to_string(),
                r.api.to_string(),
                r.bytes.to_string(),
                format!("{c:.0}"),
                format!("{o:.0}"),
                format!("{:.2}x", o / c),
                m(|m| m.whole),
                m(|m| m.per_object),
                m(|m| m.at_wire),
            ]
        })
        .collect();
    if markdown {
        println!("| {} |", head.join(" | "));
        println!("|{}", "---|".repeat(head.len()));
        for l in &lines {
            println!("| {} |", l.join(" | "));
        }
        return;
    }
    let mut width = head.map(str::len);
    for l in &lines {
        for (w, c) in width.iter_mut().zip(l) {
            *w = (*w).max(c.len());
        }
    }
    let fmt = |cells: &[String]| {
        cells
            .iter()
            .zip(width)
            .enumerate()
            .map(|(i, (c, w))| {
                if i < 5 {
                    format!("{c:<w$}")
                } else {
                    format!("{c:>w$}")
                }
            })
            .collect::<Vec<_>>()
            .join("  ")
    };
    println!("{}", fmt(&head.map(String::from)));
    for l in &lines {
        println!("{}", fmt(l));
    }
}

/// The issue's targets, judged on every component and buffer kind measured (the issue
/// names v3 and v41), and the peak-heap target.
fn print_targets(rows: &[Row], heap_worst: Option<HeapWorst>) {
    let mut lines = Vec::new();
    for r in rows {
        let ratio = r.c.as_secs_f64() / r.ours.as_secs_f64();
        let (want, what) = match (r.workload, r.op, r.api) {
            ("info" | "proc", "pack", "alloc") => (4.0, "encode >= 4x libpmix"),
            ("info" | "proc", "unpack", "alloc") => (3.0, "decode >= 3x libpmix"),
            _ => (1.0, "not slower than libpmix"),
        };
        let ok = ratio >= want;
        lines.push(format!(
            "  {:<7} {:<4} {:<3} {:<7} {:<6} {what:<26} {ratio:>6.2}x  {}",
            r.workload,
            r.comp,
            kind_arg(r.kind),
            r.op,
            r.api,
            if ok { "met" } else { "NOT MET" }
        ));
        if let Some(copies) = r.memcpy {
            for (base, what) in copies.each() {
                let rel = r.ours.as_secs_f64() / base.as_secs_f64();
                lines.push(format!(
                    "  {:<7} {:<4} {:<3} {:<7} {:<6} {:<26} {rel:>6.2}x  {}",
                    r.workload,
                    r.comp,
                    kind_arg(r.kind),
                    r.op,
                    r.api,
                    format!("time <= 1.2x {what}"),
                    if rel <= 1.2 { "met" } else { "NOT MET" }
                ));
            }
        }
    }
    if let Some(worst) = heap_worst {
        let (class, ratio) = worst.view;
        lines.push(format!(
            "  peak heap of a view <= {HEAP_RATIO_TARGET}x input (worst: {class}) {ratio:>6.2}x  {}",
            if ratio <= HEAP_RATIO_TARGET {
                "met"
            } else {
                "NOT MET"
            }
        ));
        let (class, ratio) = worst.decode;
        lines.push(format!(
            "  peak heap of a decode, no target: it holds every value (worst: {class}) {ratio:>6.2}x"
        ));
    }
    if !lines.is_empty() {
        println!("\ntargets (the plain API is `alloc`: `encode` / `decode`):");
        for l in lines {
            println!("{l}");
        }
        if rows.iter().any(|r| r.memcpy.is_some()) {
            println!(
                "  (byte objects: memcpy/wire copies each payload to its place in the wire \
                 buffer, the bytes a packer or a copying unpacker moves; memcpy is one \
                 contiguous copy, memcpy/obj the payloads back to back)"
            );
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let run = || -> Result<Vec<Row>, String> {
        let reps = cli.reps.max(1);
        let ws = parse_list(
            &cli.workloads,
            Workload::ALL.to_vec(),
            Workload::from_name,
            "workload",
        )?;
        let comps = parse_list(
            &cli.components,
            vec![Component::V3, Component::V41],
            |s| s.parse().ok(),
            "component",
        )?;
        let kinds = parse_list(
            &cli.kinds,
            vec![BufferKind::NonDescribed, BufferKind::FullyDescribed],
            |s| match s {
                "nd" => Some(BufferKind::NonDescribed),
                "fd" => Some(BufferKind::FullyDescribed),
                _ => None,
            },
            "buffer kind",
        )?;
        for c in &comps {
            if !Release::OpenPmix4_2.components().contains(c) {
                return Err(format!("libpmix 4.2.2 has no component {c}"));
            }
        }
        let exe = match &cli.c_bench {
            Some(p) => p.clone(),
            None => ensure_c_bench()?,
        };
        let mut rows = Vec::new();
        for w in &ws {
            for c in &comps {
                for k in &kinds {
                    eprintln!("pmix-bench: {} {c} {}", w.name(), kind_arg(*k));
                    rows.extend(measure(&exe, *w, *c, *k, reps, cli.rounds.max(1))?);
                }
            }
        }
        Ok(rows)
    };
    match run() {
        Ok(rows) => {
            println!(
                "pmix-bench: best of {} rounds x {} runs of one whole pack/unpack call; MB/s = 10^6 wire bytes per second",
                cli.rounds.max(1),
                cli.reps.max(1)
            );
            print_table(&rows, cli.markdown);
            let worst = (cli.heap_size > 0).then(|| print_heap(cli.heap_size));
            print_targets(&rows, worst);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("pmix-bench: {e}");
            ExitCode::FAILURE
        }
    }
}
