//! Differential fuzzing against the real libpmix 4.2.2 (our C oracle, `tools/oracle`):
//! the same bytes unpacked by `Codec` (release profile 4.2) and by OpenPMIx, components
//! v12 ... v41, both buffer kinds, 1-8 unpack calls with capacities (header: see
//! `pmix_fuzz::parse_case`; capacity byte 0 means 8 here).
//!
//! Property: bytes OpenPMIx unpacks successfully, we decode to the same values (as a C
//! reader sees them: `pmix_fuzz::diff::c_view`). Every disagreement is put in a "class"
//! (kind of disagreement, component, buffer kind, type, statuses) and each new class is
//! logged once to stderr, appended to `$PMIX_DIFF_LOG` and, with `PMIX_DIFF_SAVE=<dir>`,
//! its input saved there. What crashes (a finding), by `PMIX_DIFF_MODE`:
//!
//! - unset: classes where libpmix succeeds (`values`, `we-refuse`) unless listed in
//!   `pmix_fuzz::diff::KNOWN` (documented in `fuzz/FINDINGS.md`);
//! - `strict`: every class not in `KNOWN`;
//! - `explore`: nothing (survey the classes).
//!
//! A request that crashes or hangs the C library, or whose values it reads into memory it
//! does not own (`pmix_fuzz::diff::not_comparable`), is an upstream bug: logged, never a
//! finding.
//! Needs the oracle (`bash tools/setup.sh`); build with `--features tools`.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pmix_codec::*;
use pmix_fuzz::diff::{c_view_items, known, not_comparable};
use pmix_fuzz::DIFFERENTIAL;
use pmix_oracle::oracle::{Oracle, Reply};
use pmix_oracle::tokens::write_item;
use std::collections::HashSet;
use std::io::Write;
use std::sync::Mutex;

#[derive(Default)]
struct Counts {
    execs: u64,
    agree: u64,
    disagree: u64,
    upstream_crashes: u64,
    unexpressible: u64,
}

struct State {
    oracle: Oracle,
    seen: HashSet<String>,
    n: Counts,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Default,
    Strict,
    Explore,
}

fn mode() -> Mode {
    match std::env::var("PMIX_DIFF_MODE").as_deref() {
        Ok("strict") => Mode::Strict,
        Ok("explore") => Mode::Explore,
        _ => Mode::Default,
    }
}

fn toks(items: &[Item]) -> String {
    let mut t = Vec::new();
    for i in items {
        write_item(&mut t, i);
    }
    t.join(" ")
}

fn ignore_sigpipe() {
    extern "C" {
        fn signal(signum: i32, handler: usize) -> usize;
    }
    const SIGPIPE: i32 = 13;
    const SIG_IGN: usize = 1;
    // SAFETY: installing SIG_IGN for SIGPIPE has no preconditions.
    unsafe {
        signal(SIGPIPE, SIG_IGN);
    }
}

/// Log a class the first time it is seen (and save the input that shows it).
fn record(st: &mut State, class: &str, example: &str, input: &[u8]) {
    if !st.seen.insert(class.to_string()) {
        return;
    }
    let line = format!("DIFF-CLASS {class}\n  {example}\n");
    eprint!("{line}");
    if let Ok(p) = std::env::var("PMIX_DIFF_LOG") {
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
        {
            let _ = f.write_all(line.as_bytes());
        }
    }
    if let Ok(dir) = std::env::var("PMIX_DIFF_SAVE") {
        let name: String = class
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(std::path::Path::new(&dir).join(name), input);
    }
}

fuzz_target!(|data: &[u8]| {
    let Some(case) = pmix_fuzz::parse_case(DIFFERENTIAL, data) else {
        return;
    };
    let codec =
        Codec::new(case.codec.component, case.codec.kind).with_release(Release::OpenPmix4_2);
    let calls: Vec<(DataType, usize)> = case
        .calls
        .iter()
        .map(|(t, c)| (*t, if *c == usize::MAX { 8 } else { *c }))
        .collect();
    // Types libpmix 4.2.2 has no name or packer for are not a comparison.
    if calls.iter().any(|(t, _)| t.0 > 64 || t.0 == 0) {
        return;
    }
    let bytes = case.bytes;
    let mut guard = STATE.lock().unwrap_or_else(|p| p.into_inner());
    if guard.is_none() {
        // libFuzzer's C main does not ignore SIGPIPE as a Rust main would: a write to an
        // oracle that just crashed must be an error (the oracle restarts), not our death.
        ignore_sigpipe();
        let mut oracle =
            Oracle::start().unwrap_or_else(|e| panic!("the libpmix oracle is required: {e}"));
        // libpmix 4.2.2 can spend seconds in calloc+memset for a lying count; past this it
        // counts as an upstream hang.
        oracle.timeout = std::time::Duration::from_secs(3);
        eprintln!("differential: oracle OpenPMIx {}", oracle.version);
        *guard = Some(State {
            oracle,
            seen: HashSet::new(),
            n: Counts::default(),
        });
    }
    let st = guard.as_mut().expect("state");
    st.n.execs += 1;
    if st.n.execs.is_multiple_of(100_000) {
        let n = &st.n;
        eprintln!(
            "differential: {} comparisons, {} agree, {} disagree ({} classes), {} libpmix crashes or garbage (upstream bugs), {} not expressible",
            n.execs,
            n.agree,
            n.disagree,
            st.seen.len(),
            n.upstream_crashes,
            n.unexpressible
        );
    }
    let ours = codec.decode_calls(bytes, &calls);
    let theirs = st
        .oracle
        .unpack(codec.component, codec.kind, bytes, &calls)
        .expect("oracle restarts");
    let (comp, kind) = (codec.component, codec.kind);
    let what = format!(
        "{comp} {kind} hex={} calls={calls:?}",
        pmix_fuzz::hex(bytes)
    );
    let (class, example) = match (&ours, &theirs) {
        (_, Reply::Crashed(why)) => {
            st.n.upstream_crashes += 1;
            let t = calls[0].0;
            let class = format!("upstream-crash {comp} {kind} {t}");
            record(st, &class, &format!("{what} ({why})"), data);
            return;
        }
        (_, Reply::Bad(_)) => {
            st.n.unexpressible += 1;
            return;
        }
        (Ok(a), Reply::Ok(_)) if not_comparable(comp, a).is_some() => {
            let quirk = not_comparable(comp, a).unwrap_or_default();
            st.n.upstream_crashes += 1;
            let class = format!("upstream-garbage {comp} {kind} {} [{quirk}]", calls[0].0);
            record(st, &class, &what, data);
            return;
        }
        (Ok(a), Reply::Ok(b)) if toks(&c_view_items(codec.component, a)) == toks(b) => {
            st.n.agree += 1;
            return;
        }
        (Err((e, _)), Reply::Err { status, index, .. })
            if e.status.0 == *status && e.item == *index =>
        {
            st.n.agree += 1;
            return;
        }
        (Ok(a), Reply::Ok(b)) => {
            let a = &c_view_items(codec.component, a);
            let one = |x: &Item| toks(std::slice::from_ref(x));
            let i = a
                .iter()
                .zip(b.iter())
                .position(|(x, y)| one(x) != one(y))
                .unwrap_or(0);
            (
                format!("values {comp} {kind} {}", calls[i].0),
                format!("{what}\n  ours    {}\n  libpmix {}", toks(a), toks(b)),
            )
        }
        (Err((e, _)), Reply::Ok(b)) => (
            format!(
                "we-refuse {comp} {kind} {} status={}",
                calls[e.item].0, e.status.0
            ),
            format!("{what}\n  ours    {e}\n  libpmix ok {}", toks(b)),
        ),
        (Ok(a), Reply::Err { status, index, .. }) => (
            format!("we-accept {comp} {kind} {} their={status}", calls[*index].0),
            format!(
                "{what}\n  ours    ok {}\n  libpmix err {status} at {index}",
                toks(a)
            ),
        ),
        (Err((e, _)), Reply::Err { status, index, .. }) => (
            format!(
                "status {comp} {kind} {} ours={}@{} their={status}@{index}",
                calls[e.item.min(*index)].0,
                e.status.0,
                e.item
            ),
            format!("{what}\n  ours    {e}\n  libpmix err {status} at {index}"),
        ),
    };
    st.n.disagree += 1;
    let k = known(&class, &example);
    let class = match k {
        Some(k) => format!("{class} [known: {}]", k.id),
        None => class,
    };
    record(st, &class, &example, data);
    let libpmix_ok = matches!(theirs, Reply::Ok(_));
    let crash = k.is_none()
        && match mode() {
            Mode::Default => libpmix_ok,
            Mode::Strict => true,
            Mode::Explore => false,
        };
    if crash {
        drop(guard);
        panic!("disagreement with libpmix 4.2.2: {class}\n  {example}");
    }
});
