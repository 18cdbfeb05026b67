//! `pmix-wire decode` and `inspect` under an address-space limit (issue 25, finding 2): on
//! 64 MiB inputs under `ulimit -v 1000000` (about 1 GB) every output mode ends with
//! `PMIX_ERR_NOMEM` and exit 1, or succeeds, never an abort (exit 134, "memory allocation
//! of N bytes failed"). Before the fix `decode -t UINT8`, `-t VALUE` and a fully described
//! file aborted: the JSON document and the dissection were built whole with infallible
//! allocations.
//!
//! Each run reads 64 MiB; the whole file takes about a minute and a half in release.

use std::path::{Path, PathBuf};
use std::process::Command;

const LIMIT_KB: u64 = 1_000_000;

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("pmix-wire-memory-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A v3 (fixed-width, big-endian) message: `count` then `count` copies of `value`.
fn message(path: &Path, count: usize, value: &[u8], head: &[u8]) {
    let mut b = Vec::with_capacity(head.len() + 4 + count * value.len());
    b.extend_from_slice(head);
    b.extend_from_slice(&(count as i32).to_be_bytes());
    for _ in 0..count {
        b.extend_from_slice(value);
    }
    std::fs::write(path, b).unwrap();
}

/// Run pmix-wire with `args` under the limit; (exit code, stderr). An abort is a test
/// failure with the command line in the message.
fn limited(args: &[&str]) -> (i32, String) {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            r#"ulimit -v {LIMIT_KB} && exec "$0" "$@" >/dev/null"#
        ))
        .arg(env!("CARGO_BIN_EXE_pmix-wire"))
        .args(args)
        .output()
        .expect("run pmix-wire under ulimit");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let code = out.status.code().unwrap_or(-1);
    assert!(
        code != 134 && out.status.code().is_some() && !err.contains("memory allocation of"),
        "pmix-wire {} aborted under ulimit -v {LIMIT_KB} ({:?}): {err}",
        args.join(" "),
        out.status
    );
    (code, err)
}

fn refused(args: &[&str]) {
    let (code, err) = limited(args);
    assert_eq!(code, 1, "pmix-wire {}: {err}", args.join(" "));
    assert!(
        err.starts_with("error: PMIX_ERR_NOMEM (-32)") && err.lines().count() == 1,
        "pmix-wire {}: one NOMEM line expected, got: {err}",
        args.join(" ")
    );
}

#[test]
fn sixty_four_mib_inputs_are_refused_with_nomem_in_every_mode() {
    let d = dir();
    let n = 64 << 20;
    let u8s = d.join("u8.bin");
    message(&u8s, n - 4, &[1], &[]);
    let values = d.join("value.bin");
    message(&values, (n - 4) / 3, &[0x00, 0x0c, 0x01], &[]);
    // fully described: the count's INT32 tag (0009), the count, then the type tag per call
    let described = d.join("described.bin");
    {
        let count = n - 8;
        let mut b = vec![0x00, 0x09];
        b.extend_from_slice(&(count as i32).to_be_bytes());
        b.extend_from_slice(&[0x00, 0x02]);
        b.resize(b.len() + count, 1);
        std::fs::write(&described, b).unwrap();
    }
    let u8s = u8s.to_str().unwrap();
    for mode in [
        &["decode", "-o", "json"][..],
        &["decode", "-o", "tree"],
        &["decode", "--json"],
        &["inspect"],
        &["inspect", "--json"],
    ] {
        let mut args = mode.to_vec();
        args.extend(["-c", "v3", "-t", "UINT8", "--file", u8s]);
        refused(&args);
    }
    // the view keeps an offset per value: 256 MiB, which fits
    let (code, err) = limited(&[
        "decode", "-o", "index", "-c", "v3", "-t", "UINT8", "--file", u8s,
    ]);
    assert_eq!(code, 0, "{err}");
    let values = values.to_str().unwrap();
    refused(&["decode", "-c", "v3", "-t", "VALUE", "--file", values]);
    refused(&["inspect", "-c", "v3", "-t", "VALUE", "--file", values]);
    let described = described.to_str().unwrap();
    for cmd in ["decode", "inspect"] {
        refused(&[
            cmd,
            "-c",
            "v3",
            "-b",
            "fully-described",
            "--file",
            described,
        ]);
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// A message whose values fit but whose dissection does not: decode streams its output and
/// succeeds; inspect is refused before it builds anything, naming what it needed.
#[test]
fn decode_streams_what_fits_and_inspect_refuses_what_does_not() {
    let d = dir().join("fits");
    std::fs::create_dir_all(&d).unwrap();
    let f = d.join("u8.bin");
    message(&f, 4 << 20, &[1], &[]);
    let f = f.to_str().unwrap();
    for mode in [&["-o", "json"][..], &["-o", "tree"], &["--json"]] {
        let mut args = vec!["decode"];
        args.extend_from_slice(mode);
        args.extend(["-c", "v3", "-t", "UINT8", "--file", f]);
        let (code, err) = limited(&args);
        assert_eq!(code, 0, "pmix-wire {}: {err}", args.join(" "));
    }
    for json in [false, true] {
        let mut args = vec!["inspect", "-c", "v3", "-t", "UINT8", "--file", f];
        if json {
            args.push("--json");
        }
        refused(&args);
        let (_, err) = limited(&args);
        assert!(err.contains("this dissection needs about"), "{err}");
    }
    let _ = std::fs::remove_dir_all(&d);
}
