//! Shared code of the pmix-codec fuzz targets: the byte header that picks a codec and a
//! call sequence, `arbitrary` value trees valid for a component, the documented
//! round-trip normalisation, a counting allocator for the O(n) memory bound, and a
//! small-stack worker that turns unbounded recursion into a crash.
//!
//! Every check here is a property the codec promises (see `codec/tests/hostile.rs`,
//! `codec/tests/alloc_bound.rs`, `codec/tests/roundtrip.rs`); a violated one panics,
//! which libFuzzer records as a crash.

use pmix_codec::quirks;
use pmix_codec::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

pub mod arb;
pub use arb::arb_items;
/// The normalisation of a round trip lives in the codec, shared with its property test.
pub use pmix_codec::lossy::{
    normalise, normalise_items, same, top_level_types as roundtrip_types, value_types,
    Context as Ctx,
};

// ---- the decode header -------------------------------------------------------------------

/// One decode case taken from a fuzz input: which codec, which unpack calls, which bytes.
#[derive(Clone, Debug)]
pub struct DecodeCase<'a> {
    /// The codec (component, kind, release, options).
    pub codec: Codec,
    /// The unpack calls: (type, capacity).
    pub calls: Vec<(DataType, usize)>,
    /// Also run type discovery (`decode_described`) when the buffer is fully described.
    pub discover: bool,
    /// The buffer.
    pub bytes: &'a [u8],
}

/// Length of the header in front of the buffer: 2 bytes + 2 per call.
pub fn header_len(ncalls: usize) -> usize {
    2 + 2 * ncalls
}

/// Parse the header (documented in `fuzz/README.md`):
///
/// - byte 0: bits 0-3 component (index into `comps`, modulo), bit 4 fully described,
///   bit 5 release 4.2 (else master), bit 6 `as_written`, bit 7 type discovery;
/// - byte 1: bits 0-2 number of unpack calls minus one (1..=8);
/// - per call: a type id (byte modulo 80: 0..=75 are PMIx types, 76..=79 unknown) and a
///   capacity byte (0 = unlimited);
/// - the rest: the buffer.
pub fn parse_case<'a>(comps: &[Component], data: &'a [u8]) -> Option<DecodeCase<'a>> {
    let (&b0, rest) = data.split_first()?;
    let (&b1, rest) = rest.split_first()?;
    let comp = comps[(b0 & 0x0f) as usize % comps.len()];
    let kind = if b0 & 0x10 != 0 {
        BufferKind::FullyDescribed
    } else {
        BufferKind::NonDescribed
    };
    // Two release profiles per component: the oldest and the newest that register it.
    let rels: Vec<Release> = Release::ALL.into_iter().filter(|r| r.ships(comp)).collect();
    let rel = if b0 & 0x20 != 0 {
        rels[0]
    } else {
        rels[rels.len() - 1]
    };
    let mut codec = Codec::new(comp, kind).with_release(rel);
    codec.options.as_written = b0 & 0x40 != 0;
    let n = (b1 & 7) as usize + 1;
    if rest.len() < 2 * n {
        return None;
    }
    let (hdr, bytes) = rest.split_at(2 * n);
    let calls = hdr
        .chunks(2)
        .map(|c| {
            (
                DataType(c[0] as u16 % 80),
                if c[1] == 0 { usize::MAX } else { c[1] as usize },
            )
        })
        .collect();
    Some(DecodeCase {
        codec,
        calls,
        discover: b0 & 0x80 != 0,
        bytes,
    })
}

/// Build a header + buffer for `codec` (the inverse of [`parse_case`]); used for seeds.
pub fn make_case(
    comps: &[Component],
    codec: &Codec,
    calls: &[(DataType, usize)],
    discover: bool,
    bytes: &[u8],
) -> Option<Vec<u8>> {
    let idx = comps.iter().position(|c| *c == codec.component)?;
    if calls.is_empty() || calls.len() > 8 {
        return None;
    }
    let mut b0 = idx as u8;
    if codec.kind == BufferKind::FullyDescribed {
        b0 |= 0x10;
    }
    if Release::ALL.iter().find(|r| r.ships(codec.component)) == Some(&codec.release) {
        b0 |= 0x20;
    }
    if codec.options.as_written {
        b0 |= 0x40;
    }
    if discover {
        b0 |= 0x80;
    }
    let mut out = vec![b0, (calls.len() - 1) as u8];
    for (t, cap) in calls {
        if t.0 >= 80 {
            return None;
        }
        out.push(t.0 as u8);
        out.push(if *cap >= 256 { 0 } else { *cap as u8 });
    }
    out.extend_from_slice(bytes);
    Some(out)
}

/// The components of each family target.
pub const LEGACY: &[Component] = &[Component::V12, Component::V20];
/// Converged family (fixed-width integers).
pub const CONVERGED: &[Component] = &[Component::V21, Component::V3];
/// Modern family (flexible integers).
pub const MODERN: &[Component] = &[
    Component::V4,
    Component::V41,
    Component::V51,
    Component::V61,
];

/// The components of the differential target: the ones libpmix 4.2.2 ships.
pub const DIFFERENTIAL: &[Component] = Release::OpenPmix4_2.profile().components;

// ---- memory bound ------------------------------------------------------------------------

/// A global allocator that tracks live and peak bytes. Each target installs it with
/// `#[global_allocator] static A: pmix_fuzz::Counting = pmix_fuzz::Counting;`.
pub struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let now = LIVE.fetch_add(l.size(), Ordering::Relaxed) + l.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let now = LIVE.fetch_add(l.size(), Ordering::Relaxed) + l.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        if new > l.size() {
            let now = LIVE.fetch_add(new - l.size(), Ordering::Relaxed) + new - l.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        } else {
            LIVE.fetch_sub(l.size() - new, Ordering::Relaxed);
        }
        unsafe { System.realloc(p, l, new) }
    }
}

/// Peak bytes allocated while `f` ran, beyond what was live before (meaningful only
/// when [`Counting`] is the global allocator and nothing else allocates meanwhile).
pub fn peak_during<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let base = LIVE.load(Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    let r = f();
    (r, PEAK.load(Ordering::SeqCst).saturating_sub(base))
}

/// How many POINTER values more than its input's length one decode may produce in all
/// (quirk P1: one sentinel byte stands for the whole run; beyond that budget a count is
/// refused with PMIX_ERR_NOMEM rather than allocated).
pub const POINTER_SLACK: usize = 4096;

/// The memory a decode of `n` input bytes may use: one "sentinel" POINTER call may stand
/// for up to [`POINTER_SLACK`] values more than the input has bytes (quirk P1), otherwise a
/// generous constant factor for the value tree.
pub fn alloc_bound(n: usize) -> usize {
    64 * 1024 + POINTER_SLACK * std::mem::size_of::<Value>() + 1024 * n
}

/// The values nested directly in `v`: a DATA_ARRAY's elements, the payload of a VALUE, and
/// the values of the INFOs, PDATA, KVAL, APP and QUERY it holds.
pub fn children(v: &Value) -> Box<dyn Iterator<Item = &Value> + '_> {
    match v {
        Value::DataArray(d) => Box::new(d.values.iter()),
        Value::Value(x) => Box::new(std::iter::once(&**x)),
        Value::Info(i) => Box::new(std::iter::once(&i.value)),
        Value::InfoArray(is) => Box::new(is.iter().map(|i| &i.value)),
        Value::Pdata(p) => Box::new(std::iter::once(&p.value)),
        Value::Kval(k) => Box::new(std::iter::once(&k.value)),
        Value::App(a) => Box::new(a.info.iter().map(|i| &i.value)),
        Value::Query(q) => Box::new(q.qualifiers.iter().map(|i| &i.value)),
        _ => Box::new(std::iter::empty()),
    }
}

/// The longest run of POINTER values (a POINTER call or a DATA_ARRAY of POINTER) in `items`.
/// Whether such a run decodes depends on how many bytes follow it ([`POINTER_SLACK`]), so
/// one longer than the slack is not expected to survive a re-encoding on its own.
pub fn longest_pointer_run(items: &[Item]) -> usize {
    fn walk(v: &Value) -> usize {
        match v {
            Value::DataArray(d) if d.ty == DataType::POINTER => d.values.len(),
            _ => children(v).map(walk).max().unwrap_or(0),
        }
    }
    items
        .iter()
        .map(|i| {
            if i.ty == DataType::POINTER {
                i.values.len()
            } else {
                i.values.iter().map(walk).max().unwrap_or(0)
            }
        })
        .max()
        .unwrap_or(0)
}

/// `Debug` text cut to `max` characters (panic messages stay readable).
pub fn short(x: &impl std::fmt::Debug, max: usize) -> String {
    let s = format!("{x:?}");
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{} ... ({} chars)", &s[..i], s.len()),
        None => s,
    }
}

// ---- recursion bound -----------------------------------------------------------------------

/// Stack given to the decoder in the decode targets. Legitimate input nests at most 100
/// DATA_ARRAY levels (quirk R6); this leaves room for that in an instrumented build, so a
/// decoder whose recursion depth follows the input (and not a cap) overflows it.
pub const DECODE_STACK: usize = 1 << 20;

type Job = Box<dyn FnOnce() + Send>;

/// Run `f` on a worker thread with a [`DECODE_STACK`]-byte stack (one long-lived thread,
/// so the cost is a hand-off, not a thread spawn). A stack overflow there aborts the
/// process ("has overflowed its stack"), which libFuzzer reports as a crash; a panic there
/// aborts through libFuzzer's panic hook like one on the main thread.
pub fn on_small_stack<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    use std::sync::mpsc::{channel, Sender};
    use std::sync::{Mutex, OnceLock};
    static WORKER: OnceLock<Mutex<Sender<Job>>> = OnceLock::new();
    let tx = WORKER.get_or_init(|| {
        let (tx, rx) = channel::<Job>();
        std::thread::Builder::new()
            .name("small-stack-decoder".into())
            .stack_size(DECODE_STACK)
            .spawn(move || {
                for job in rx {
                    job();
                }
            })
            .expect("spawn the decoder thread");
        Mutex::new(tx)
    });
    let (rtx, rrx) = channel::<R>();
    let job: Job = Box::new(move || {
        let _ = rtx.send(f());
    });
    tx.lock()
        .unwrap_or_else(|p| p.into_inner())
        .send(job)
        .expect("decoder thread alive");
    rrx.recv().expect("decoder thread answered")
}

/// Whether `items` contain a record that OpenPMIx cannot read back at the end of a buffer
/// (quirk U6: an empty integer record in a modern component).
pub fn has_u6(items: &[Item], comp: Component) -> bool {
    items
        .iter()
        .any(|i| i.values.is_empty() && empty_record_at_end_fails(comp, i.ty))
}

/// The type a described buffer declares for a top-level pack call of `ty`, i.e. what type
/// discovery (`Codec::decode_described`) finds: v12 writes some types as the 4-byte integer
/// it packs them with, in PMIx 1.x numbering (quirks U2, L1); v20 declares COMMAND as UINT32.
pub fn discovered_type(comp: Component, ty: DataType) -> DataType {
    match comp.family() {
        Family::Legacy12 => {
            quirks::v12_read_type(quirks::v12_wire_type(quirks::v12_top_level_type(ty).0))
        }
        Family::Legacy20 if ty == DataType::COMMAND => DataType::UINT32,
        _ => ty,
    }
}

/// Lowercase hex.
pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

// ---- structural checks ---------------------------------------------------------------------

/// Every decoded value has the type it was read as, recursively through DATA_ARRAY.
pub fn check_types(items: &[Item]) {
    fn arr(v: &Value) {
        match v {
            Value::DataArray(d) => {
                for e in &d.values {
                    assert_eq!(
                        e.data_type(),
                        d.ty,
                        "DATA_ARRAY of {} holds a {}",
                        d.ty,
                        e.data_type()
                    );
                    arr(e);
                }
            }
            Value::Value(inner) => arr(inner),
            Value::Info(i) => arr(&i.value),
            _ => {}
        }
    }
    for it in items {
        for v in &it.values {
            assert_eq!(
                v.data_type(),
                it.ty,
                "item of {} holds a {}",
                it.ty,
                v.data_type()
            );
            arr(v);
        }
    }
}

/// `decode_calls_into` (which reuses the memory of the items already in `out`) must give
/// exactly what `decode_calls` gave, whatever `out` held: nothing; this message's own
/// values (every in-place path); and stale values of another shape (the same calls decoded
/// from the input shifted by one byte). All derived from the input, so a failure reproduces.
/// The memory a view of `n` input bytes may use: the 16x, plus a constant for
/// what any decode allocates (an error's reason and path, the call index).
pub fn view_bound(n: usize) -> usize {
    64 * 1024 + 16 * n
}

/// `Codec::view` agrees with the decode `want` (the same success, or the same error at the
/// same place; the same values decoded on demand) and keeps within [`view_bound`].
pub fn check_view(case: &DecodeCase, want: &std::result::Result<Vec<Item>, (Error, Vec<Item>)>) {
    let (codec, calls) = (case.codec, case.calls.clone());
    let input = Bytes::copy_from_slice(case.bytes);
    let n = input.len();
    let shared = input.clone();
    let (got, peak) = peak_during(move || on_small_stack(move || codec.view(&shared, &calls)));
    assert!(
        peak <= view_bound(n),
        "a view of {n} bytes allocated {peak} bytes (bound {})",
        view_bound(n)
    );
    match (want, got) {
        (Ok(items), Ok(view)) => {
            let again = on_small_stack(move || view.to_items()).expect("a view's values decode");
            assert!(
                same(items, &again),
                "a view's values differ from the decode's"
            );
        }
        (Err((want, _)), Err(got)) => {
            let at = |e: &Error| (e.status, e.offset, e.item, e.ty, e.path.clone());
            assert_eq!(
                at(&got),
                at(want),
                "the view fails elsewhere than the decode"
            );
        }
        (want, got) => panic!(
            "decode {} but view {}",
            if want.is_ok() { "succeeds" } else { "fails" },
            if got.is_ok() { "succeeds" } else { "fails" }
        ),
    }
}

pub fn check_in_place(
    case: &DecodeCase,
    want: &std::result::Result<Vec<Item>, (Error, Vec<Item>)>,
) {
    let (codec, calls, bytes, n) = (
        case.codec,
        case.calls.clone(),
        case.bytes.to_vec(),
        case.bytes.len(),
    );
    let (got, peak) = peak_during(move || {
        on_small_stack(move || {
            let mut out = Vec::new();
            let mut got = Vec::new();
            for stale in [None, None, Some(&bytes[n.min(1)..])] {
                if let Some(b) = stale {
                    let _ = codec.decode_calls_into(b, &calls, &mut out);
                }
                let r = codec.decode_calls_into(&bytes, &calls, &mut out);
                got.push((r, out.clone()));
            }
            got
        })
    });
    // out, its clones and the stale decode can be live at once
    assert!(
        peak <= 8 * alloc_bound(n),
        "in-place decoding of {n} bytes allocated {peak} bytes"
    );
    for (pass, (r, out)) in got.iter().enumerate() {
        let what = [
            "into an empty Vec",
            "again into its own values",
            "into stale values",
        ][pass];
        match (want, r) {
            (Ok(items), Ok(())) => assert!(
                same(out, items),
                "decode_calls_into {what} differs\n  got  {}\n  want {}",
                short(out, 2000),
                short(items, 2000)
            ),
            (Err((e, partial)), Err(e2)) => {
                assert_eq!(
                    (e.status, e.item, e.offset),
                    (e2.status, e2.item, e2.offset),
                    "decode_calls_into {what}: other error {e2}, want {e}"
                );
                assert!(
                    same(out, partial),
                    "decode_calls_into {what}: after {e} holds\n  {}\n  want {}",
                    short(out, 2000),
                    short(partial, 2000)
                );
            }
            (Ok(_), Err(e2)) => {
                panic!("decode_calls_into {what} fails ({e2}) where decode_calls succeeds")
            }
            (Err((e, _)), Ok(())) => {
                panic!("decode_calls_into {what} succeeds where decode_calls fails ({e})")
            }
        }
    }
}

/// The full set of decode-side checks for one case (used by the three family targets).
pub fn check_decode(case: &DecodeCase) {
    let codec = case.codec;
    let bytes = case.bytes;
    let n = bytes.len();
    let ctx = Ctx {
        comp: codec.component,
        rel: codec.release,
    };

    let (owned, calls) = (bytes.to_vec(), case.calls.clone());
    let (res, peak) =
        peak_during(move || on_small_stack(move || codec.decode_calls(&owned, &calls)));
    assert!(
        peak <= alloc_bound(n),
        "{n} input bytes made the decoder allocate {peak} bytes (bound {})",
        alloc_bound(n)
    );
    check_in_place(case, &res);
    check_view(case, &res);
    let items = match res {
        Err((e, partial)) => {
            assert!(
                e.offset <= n,
                "error offset {} beyond the {n}-byte input: {e}",
                e.offset
            );
            assert!(
                e.item < case.calls.len(),
                "error item {} out of {} calls",
                e.item,
                case.calls.len()
            );
            assert_eq!(partial.len(), e.item, "items before the failing call");
            assert!(e.status.0 < 0, "error with non-error status {e}");
            check_types(&partial);
            return;
        }
        Ok(items) => items,
    };
    assert_eq!(items.len(), case.calls.len());
    check_types(&items);

    if case.discover && codec.kind == BufferKind::FullyDescribed {
        let owned = bytes.to_vec();
        let (found, peak) =
            peak_during(move || on_small_stack(move || codec.decode_described(&owned)));
        assert!(
            peak <= alloc_bound(n),
            "type discovery: {n} input bytes made the decoder allocate {peak} bytes"
        );
        if let Ok(found) = found {
            let types: Vec<DataType> = found.iter().map(|i| i.ty).collect();
            let again = codec
                .decode(bytes, &types)
                .expect("discovered types decode");
            assert!(same(&again, &found), "type discovery and decode differ");
        }
    }

    // Canonical form: what we decoded encodes (if at all) to bytes that decode to the same
    // values, and re-encoding those reproduces the bytes. By default we decode like C's
    // unpacker, which does not always read what its packer wrote (quirks D1, U8, U10 ...):
    // only with `as_written`.
    if !codec.options.as_written
        || has_u6(&items, codec.component)
        || longest_pointer_run(&items) > POINTER_SLACK
    {
        return;
    }
    let Ok(b2) = codec.encode(&items) else { return };
    let types: Vec<DataType> = items.iter().map(|i| i.ty).collect();
    let (b2c, tc) = (b2.clone(), types.clone());
    let d2 = match on_small_stack(move || codec.decode(&b2c, &tc)) {
        Ok(d) => d,
        Err(e) => panic!(
            "re-encoded values do not decode: {e}\n  input   {}\n  encoded {}\n  items   {}",
            hex(bytes),
            hex(&b2),
            short(&items, 2000)
        ),
    };
    let want = normalise_items(&items, ctx);
    assert!(
        same(&d2, &want),
        "decode(encode(decode(x))) != decode(x)\n  input {}\n  enc   {}\n  got   {}\n  want  {}",
        hex(bytes),
        hex(&b2),
        short(&d2, 2000),
        short(&want, 2000)
    );
    let b3 = codec.encode(&d2).expect("re-encode of decoded values");
    assert_eq!(hex(&b3), hex(&b2), "encoding is not a fixpoint");
    // encode_into a buffer that held other bytes gives the same bytes
    let mut reused = bytes.to_vec();
    codec
        .encode_into(&d2, &mut reused)
        .expect("encode_into of decoded values");
    assert_eq!(hex(&reused), hex(&b2), "encode_into differs from encode");
}

/// The differential target's view of libpmix: how a C reader sees decoded values, and the
/// disagreement classes that are understood and documented (`fuzz/FINDINGS.md`).
pub mod diff {
    use pmix_codec::*;

    /// What a C reader of `comp`'s decoded `pmix_*_t` sees. Applied to our side before
    /// comparing:
    ///
    /// - the `char **` lists QUERY keys and REGATTR description are NULL-terminated argv
    ///   arrays, so a NULL element ends the list (class `argv-null`, FINDINGS.md; an APP's
    ///   argv/env with a NULL element fails to decode, quirk U17);
    /// - v12 sends a `pmix_value_t` holding a DATA_ARRAY of INFO as a v1 INFO_ARRAY (type
    ///   22) and unpacks that into a value whose type is INFO_ARRAY (44). We decode it back
    ///   to the DATA_ARRAY of INFO that was packed (the round trip a v2+ peer expects); a C
    ///   reader of libpmix's value sees `INFO_ARRAY` (class `v12-value-info-array`).
    pub fn c_view(comp: Component, v: &Value) -> Value {
        View {
            legacy12: comp.family() == Family::Legacy12,
        }
        .any(v)
    }

    struct View {
        legacy12: bool,
    }

    impl View {
        fn argv(a: &[NullableText]) -> Vec<NullableText> {
            a.iter().take_while(|s| s.is_some()).cloned().collect()
        }

        /// The payload of a `pmix_value_t` (a VALUE, an INFO's, PDATA's or KVAL's value).
        fn slot(&self, v: &Value) -> Value {
            match v {
                Value::DataArray(d) if self.legacy12 && d.ty == DataType::INFO => Value::InfoArray(
                    d.values
                        .iter()
                        .filter_map(|x| match self.any(x) {
                            Value::Info(i) => Some(*i),
                            _ => None,
                        })
                        .collect(),
                ),
                _ => self.any(v),
            }
        }

        fn info(&self, i: &Info) -> Info {
            Info {
                value: self.slot(&i.value),
                ..i.clone()
            }
        }

        fn any(&self, v: &Value) -> Value {
            match v {
                Value::App(a) => Value::App(Box::new(App {
                    info: a.info.iter().map(|i| self.info(i)).collect(),
                    ..(**a).clone()
                })),
                Value::Query(q) => Value::Query(Box::new(Query {
                    keys: Self::argv(&q.keys),
                    qualifiers: q.qualifiers.iter().map(|i| self.info(i)).collect(),
                })),
                Value::Regattr(r) => Value::Regattr(Box::new(Regattr {
                    description: Self::argv(&r.description),
                    ..(**r).clone()
                })),
                Value::Value(x) => Value::Value(Box::new(self.slot(x))),
                Value::Info(i) => Value::Info(Box::new(self.info(i))),
                Value::InfoArray(is) => Value::InfoArray(is.iter().map(|i| self.info(i)).collect()),
                Value::Pdata(p) => Value::Pdata(Box::new(Pdata {
                    value: self.slot(&p.value),
                    ..(**p).clone()
                })),
                Value::Kval(k) => Value::Kval(Box::new(Kval {
                    value: self.slot(&k.value),
                    ..(**k).clone()
                })),
                Value::DataArray(d) => {
                    Value::array(d.ty, d.values.iter().map(|x| self.any(x)).collect())
                }
                other => other.clone(),
            }
        }
    }

    /// Decoded values libpmix cannot be compared on: it reads them into memory it does not
    /// own (an upstream bug in the quirk table). The quirk id, if any.
    pub fn not_comparable(comp: Component, items: &[Item]) -> Option<&'static str> {
        // v12 unpacks n DATA_TYPEs as n int32s into an array of n 16-bit types.
        if comp == Component::V12
            && items
                .iter()
                .any(|i| i.ty == DataType::DATA_TYPE && i.values.len() > 1)
        {
            return Some("D3-v12-datatype-as-int32");
        }
        fn bad(v: &Value) -> bool {
            match v {
                Value::NodeStats(n) => !n.diskstats.is_empty() || !n.netstats.is_empty(),
                _ => crate::children(v).any(bad),
            }
        }
        items
            .iter()
            .flat_map(|i| &i.values)
            .any(bad)
            .then_some("C5-node-stats-nested-arrays")
    }

    /// [`c_view`] of whole items.
    pub fn c_view_items(comp: Component, items: &[Item]) -> Vec<Item> {
        items
            .iter()
            .map(|i| Item::new(i.ty, i.values.iter().map(|v| c_view(comp, v)).collect()))
            .collect()
    }

    /// A documented disagreement with libpmix 4.2.2 (an entry of `fuzz/FINDINGS.md`).
    #[derive(Clone, Copy, Debug)]
    pub struct Known {
        /// The FINDINGS.md entry (a quirk id where the quirk table has one).
        pub id: &'static str,
        /// The class names it covers: words separated by spaces, `*` for any one word
        /// (`values v12 * DATA_RANGE`); the class may have more words after these.
        pub class: &'static str,
        /// Text the disagreement's example contains (our error's reason, a type name).
        pub detail: &'static str,
    }

    const fn k(id: &'static str, class: &'static str, detail: &'static str) -> Known {
        Known { id, class, detail }
    }

    /// Disagreements where libpmix succeeds and we do not give the same values, that are
    /// understood and documented in `fuzz/FINDINGS.md`: logged, never a crash (status-only
    /// disagreements are logged and crash only with `PMIX_DIFF_MODE=strict`).
    pub const KNOWN: &[Known] = &[
        k("U7-value-of-container", "we-refuse", "a VALUE cannot carry"),
        k(
            "U11-info-array-reads-values",
            "we-refuse",
            "INFO_ARRAY elements read as VALUEs gave garbage",
        ),
        k(
            "U4-regex-plain-string",
            "we-refuse",
            "REGEX without a known preg framing",
        ),
        k(
            "C3-regex-unterminated-overread",
            "we-refuse",
            "read the regex past the end of the input (quirk C3)",
        ),
        k("U16-cpuset-text-reparsed", "values", "PROC_CPUSET"),
        k("U2-v12-narrow-enums", "values v12 * DATA_RANGE", ""),
        k("U2-v12-narrow-enums", "values v12 * SCOPE", ""),
        k("U2-v12-narrow-enums", "values v12 * PERSIST", ""),
        k("U2-v12-narrow-enums", "values v12 * COMMAND", ""),
        k("U2-v12-narrow-enums", "values v20 * COMMAND", ""),
        k("L3-v12-negative-type", "we-refuse v12", "out of range"),
        k("C4-v20-size-as-int32", "we-refuse", "bytes claimed"),
    ];

    /// Whether the words of `class` start with `pattern`'s (`*` matches any word).
    fn matches(pattern: &str, class: &str) -> bool {
        let mut words = class.split(' ');
        pattern
            .split(' ')
            .all(|p| words.next().is_some_and(|w| p == "*" || p == w))
    }

    /// The documented entry a disagreement belongs to, if any.
    pub fn known(class: &str, example: &str) -> Option<&'static Known> {
        KNOWN
            .iter()
            .find(|k| matches(k.class, class) && example.contains(k.detail))
    }
}
