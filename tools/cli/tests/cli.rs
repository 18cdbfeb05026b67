//! End-to-end tests of the `pmix-wire` binary, with insta snapshots of `inspect` and `decode`
//! for representative buffers of every family and of the error output on malformed input.

use pmix_codec::{BufferKind, Codec, Component, DataType, Info, Item, Release, Value};
use pmix_oracle::corpus::{cases, samples, RANK_WILDCARD};
use std::io::Write;
use std::process::{Command, Stdio};

/// Run the binary; returns (exit code, stdout, stderr).
fn pw(args: &[&str], stdin: Option<&[u8]>) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pmix-wire"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn pmix-wire");
    {
        let mut si = child.stdin.take().unwrap();
        if let Some(b) = stdin {
            si.write_all(b).unwrap();
        }
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn quote_arg(a: &str) -> String {
    if a.chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_.,@/=".contains(c))
    {
        a.to_string()
    } else {
        format!("'{a}'")
    }
}

/// The command, its output, stderr and exit code, as one text.
fn transcript(args: &[&str], stdin: Option<&[u8]>) -> String {
    let (code, out, err) = pw(args, stdin);
    let mut t = format!(
        "$ pmix-wire {}\n{out}",
        args.iter()
            .map(|a| quote_arg(a))
            .collect::<Vec<_>>()
            .join(" ")
    );
    if !err.is_empty() {
        t.push_str(&format!("[stderr]\n{err}"));
    }
    t.push_str(&format!("[exit {code}]\n"));
    t
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn types_arg(items: &[Item]) -> String {
    items
        .iter()
        .map(|i| i.ty.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// Representative pack-call sequences for a component.
fn sets(comp: Component) -> Vec<(&'static str, Vec<Item>)> {
    let rel = Release::Master;
    let request = cases(comp, rel)
        .into_iter()
        .find(|c| c.name == "sequence.alloc-request")
        .unwrap()
        .items;
    let mut structs = vec![
        Item::one(Value::proc("ns", RANK_WILDCARD)),
        Item::one(Value::Value(Box::new(Value::Uint64(16)))),
    ];
    if comp == Component::V12 {
        // v12 has no DATA_ARRAY, and the receiver cannot read a VALUE of INFOs back (quirk
        // U11, see `quirk_u11_as_read_and_as_written`).
        structs.push(Item::one(Value::Value(Box::new(Value::ProcRank(7)))));
    } else {
        structs.push(Item::one(Value::array(
            DataType::STRING,
            vec![Value::string("a"), Value::String(None)],
        )));
        structs.push(Item::one(Value::Pdata(Box::new(pmix_codec::Pdata {
            proc: pmix_codec::Proc {
                nspace: "ns".into(),
                rank: 3,
            },
            key: "key".into(),
            value: Value::Uint32(5),
        }))));
    }
    if comp == Component::V61 {
        structs.push(Item::one(Value::AllocInherit(3)));
        structs.push(Item::one(Value::info(
            "pmix.alloc.inhrt",
            Value::AllocInherit(4),
        )));
    }
    let mut misc = vec![Item::one(samples(DataType::APP, comp, rel)[0].clone())];
    if comp != Component::V12 {
        misc.push(Item::one(samples(DataType::QUERY, comp, rel)[0].clone()));
    }
    misc.push(Item::one(Value::ByteObject(vec![1, 2, 3].into())));
    misc.push(Item::new(
        DataType::STRING,
        vec![
            Value::String(None),
            Value::string(""),
            Value::string("hello"),
        ],
    ));
    misc.push(Item::one(Value::Float(1.5)));
    misc.push(Item::new(
        DataType::INT64,
        vec![Value::Int64(-65), Value::Int64(i64::MAX)],
    ));
    vec![("request", request), ("structs", structs), ("misc", misc)]
}

fn family_snapshots(comp: Component) {
    for (set, items) in sets(comp) {
        let c = comp.name();
        let nd = hex(&Codec::new(comp, BufferKind::NonDescribed)
            .encode(&items)
            .unwrap());
        let fd = hex(&Codec::new(comp, BufferKind::FullyDescribed)
            .encode(&items)
            .unwrap());
        let types = types_arg(&items);
        insta::assert_snapshot!(
            format!("inspect_{c}_{set}_nd"),
            transcript(&["inspect", "-c", c, "-t", &types, &nd], None)
        );
        insta::assert_snapshot!(
            format!("inspect_{c}_{set}_fd"),
            transcript(&["inspect", "-c", c, "-b", "fully-described", &fd], None)
        );
        insta::assert_snapshot!(
            format!("decode_{c}_{set}_nd_json"),
            transcript(&["decode", "-c", c, "-t", &types, &nd], None)
        );
        insta::assert_snapshot!(
            format!("decode_{c}_{set}_fd_tree"),
            transcript(&["decode", "-c", c, "-b", "fd", "-o", "tree", &fd], None)
        );
    }
}

#[test]
fn family_v12() {
    family_snapshots(Component::V12);
}
#[test]
fn family_v20() {
    family_snapshots(Component::V20);
}
#[test]
fn family_converged_v3() {
    family_snapshots(Component::V3);
}
#[test]
fn family_modern_v41() {
    family_snapshots(Component::V41);
}
#[test]
fn family_modern_v61() {
    family_snapshots(Component::V61);
}

/// Malformed input: the inspector stops at the failing byte; decode prints one error line.
#[test]
fn malformed_input() {
    let bad: &[(&str, &[&str])] = &[
        (
            "string_past_end",
            &["-c", "v41", "-t", "UINT32,STRING", "02 2a 02 0a 61 62"],
        ),
        (
            "described_count_tag",
            &["-c", "v3", "-b", "fd", "0003 00000001 000e 0000002a"],
        ),
        (
            "described_type_mismatch",
            &["-c", "v41", "-b", "fd", "-t", "UINT64", "09 02 0e 2a"],
        ),
        (
            "unregistered_type",
            &["-c", "v3", "-t", "ALLOC_INHERIT", "00000001 03"],
        ),
        (
            "flex_too_wide",
            &["-c", "v61", "-t", "UINT16", "02 ff ff 07"],
        ),
        (
            "flex_truncated_master",
            &["-c", "v41", "-t", "UINT16", "02 ff ff"],
        ),
        (
            "null_info_key",
            &["-c", "v41", "-t", "INFO", "02 00 00 0f 10"],
        ),
        (
            "darray_count",
            &["-c", "v61", "-t", "DATA_ARRAY", "02 0e 7f 01"],
        ),
        (
            "v12_darray",
            &["-c", "v12", "-t", "DATA_ARRAY", "00000001 0000000e"],
        ),
        (
            "value_of_info",
            &["-c", "v61", "-t", "VALUE", "02 18 02 6b 00"],
        ),
        ("pid_bad_tag", &["-c", "v41", "-t", "PID", "02 03 08"]),
        (
            "byte_object_size",
            &[
                "-c",
                "v21",
                "-t",
                "BYTE_OBJECT",
                "00000001 000f 0000000000000009 0102",
            ],
        ),
    ];
    for (name, args) in bad {
        let mut a = vec!["inspect"];
        a.extend_from_slice(args);
        insta::assert_snapshot!(format!("error_inspect_{name}"), transcript(&a, None));
        a[0] = "decode";
        insta::assert_snapshot!(format!("error_decode_{name}"), transcript(&a, None));
    }
}

/// A v12 VALUE holding INFOs: the receiver reads each INFO as a VALUE (quirk U11) and
/// fails; `--as-written` reads what the packer wrote.
#[test]
fn quirk_u11_as_read_and_as_written() {
    let infos = vec![
        Value::info("pmix.alloc.id", Value::string("a1")),
        Value::info("k", Value::Int(-1)),
    ];
    let items = [Item::one(Value::Value(Box::new(Value::array(
        DataType::INFO,
        infos,
    ))))];
    let nd = hex(&Codec::new(Component::V12, BufferKind::NonDescribed)
        .encode(&items)
        .unwrap());
    for cmd in ["inspect", "decode"] {
        insta::assert_snapshot!(
            format!("quirk_u11_{cmd}_as_read"),
            transcript(&[cmd, "-c", "v12", "-t", "VALUE", &nd], None)
        );
        insta::assert_snapshot!(
            format!("quirk_u11_{cmd}_as_written"),
            transcript(
                &[cmd, "-c", "v12", "-t", "VALUE", "--as-written", &nd],
                None
            )
        );
    }
}

/// The same bytes under the two release profiles (quirk R1).
#[test]
fn release_profiles() {
    let t = transcript(
        &[
            "decode",
            "-c",
            "v41",
            "-r",
            "4.2",
            "-t",
            "UINT16",
            "--compact",
            "02 ff ff",
        ],
        None,
    );
    insta::assert_snapshot!("release_flex_truncated_4_2", t);
}

#[test]
fn exit_codes_and_error_lines() {
    // Usage: a non-described buffer without --types.
    let (code, out, err) = pw(&["decode", "-c", "v41", "02 2a"], None);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.starts_with("error: a non-described buffer does not say its types"),
        "{err}"
    );
    // Usage: bad hex, unknown type, unknown component.
    assert_eq!(pw(&["decode", "-t", "UINT32", "0g"], None).0, 2);
    assert_eq!(pw(&["decode", "-t", "NOPE", "02 2a"], None).0, 2);
    assert_eq!(
        pw(&["decode", "-c", "v5", "-t", "UINT32", "02 2a"], None).0,
        2
    );
    assert_eq!(pw(&["encode", "[{\"type\":\"UINT32\"}]"], None).0, 2);
    assert_eq!(pw(&["encode", "not json"], None).0, 2);
    // I/O: a missing file.
    let (code, _, err) = pw(
        &["decode", "-t", "UINT32", "--file", "/nonexistent/pmix.bin"],
        None,
    );
    assert_eq!(code, 3);
    assert!(
        err.starts_with("error: cannot read /nonexistent/pmix.bin"),
        "{err}"
    );
    // PMIx failures: exactly one line on stderr.
    let (code, out, err) = pw(
        &[
            "decode",
            "-c",
            "v41",
            "-t",
            "UINT32,STRING",
            "02 2a 02 0a 61 62",
        ],
        None,
    );
    assert_eq!((code, out.as_str()), (1, ""));
    assert_eq!(err, "error: PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER (-50) at byte 4 (item 1, STRING) in STRING[0]: need 5 bytes, 2 left\n");
    let (code, _, err) = pw(&["encode", "-c", "v61", "{\"type\":\"VALUE\",\"values\":[{\"type\":\"INFO\",\"value\":{\"key\":\"k\",\"value\":{\"type\":\"UNDEF\"}}}]}"], None);
    assert_eq!(code, 1);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: PMIX_ERR_BAD_PARAM (-27)"), "{err}");
    // Help and version go to stdout with exit 0.
    let (code, out, _) = pw(&["--help"], None);
    assert_eq!(code, 0);
    assert!(
        out.contains("Exit codes:") && out.contains("Examples:"),
        "{out}"
    );
    assert_eq!(pw(&["--version"], None).0, 0);
    assert_eq!(pw(&[], None).0, 2);
}

#[test]
fn every_subcommand_has_examples_in_help() {
    for sub in [
        "decode",
        "inspect",
        "encode",
        "types",
        "diff",
        "inherit",
        "completions",
    ] {
        let (code, out, _) = pw(&[sub, "--help"], None);
        assert_eq!(code, 0, "{sub}");
        assert!(
            out.contains("Examples:"),
            "{sub} --help has no examples:\n{out}"
        );
    }
}

#[test]
fn input_sources() {
    // stdin as hex, stdin as raw bytes, a file with hex, a raw file.
    let want = "[{\"type\":\"UINT32\",\"values\":[42]}]\n";
    assert_eq!(
        pw(
            &["decode", "-c", "v41", "-t", "UINT32", "--compact"],
            Some(b"02 2a\n")
        )
        .1,
        want
    );
    assert_eq!(
        pw(
            &[
                "decode",
                "-c",
                "v41",
                "-t",
                "UINT32",
                "--compact",
                "--input",
                "raw"
            ],
            Some(&[2, 0x2a])
        )
        .1,
        want
    );
    assert_eq!(
        pw(
            &[
                "decode",
                "-c",
                "v41",
                "-t",
                "UINT32",
                "--compact",
                "-f",
                "-"
            ],
            Some(&[2, 0x2a])
        )
        .1,
        want
    );
    let dir = std::env::temp_dir().join(format!("pmix-wire-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let raw = dir.join("msg.bin");
    std::fs::write(&raw, [0u8, 0, 0, 1, 0, 0, 0, 0x2a]).unwrap();
    assert_eq!(
        pw(
            &[
                "decode",
                "-c",
                "v3",
                "-t",
                "UINT32",
                "--compact",
                "-f",
                raw.to_str().unwrap()
            ],
            None
        )
        .1,
        want
    );
    let hexf = dir.join("msg.hex");
    std::fs::write(&hexf, "0x02 0x2a\n").unwrap();
    assert_eq!(
        pw(
            &[
                "decode",
                "-c",
                "v61",
                "-t",
                "uint32",
                "--compact",
                "-f",
                hexf.to_str().unwrap()
            ],
            None
        )
        .1,
        want
    );
    std::fs::remove_dir_all(&dir).ok();
    // Trailing bytes are reported.
    let (code, _, err) = pw(&["decode", "-c", "v41", "-t", "UINT32", "02 2a ff"], None);
    assert_eq!(code, 0);
    assert_eq!(
        err,
        "warning: 1 trailing byte(s) from byte 2 were not decoded\n"
    );
}

#[test]
fn encode_decode_round_trip_through_the_binary() {
    for comp in Component::ALL {
        for kind in ["non-described", "fully-described"] {
            let items = cases(comp, Release::Master)
                .into_iter()
                .find(|c| c.name == "sequence.alloc-request")
                .unwrap()
                .items;
            let json = pmix_codec::json::items_to_json(&items).to_string();
            let (code, hexout, err) = pw(&["encode", "-c", comp.name(), "-b", kind, &json], None);
            assert_eq!(code, 0, "{err}");
            let (code, back, err) = pw(
                &[
                    "decode",
                    "-c",
                    comp.name(),
                    "-b",
                    kind,
                    "-t",
                    &types_arg(&items),
                    "--compact",
                    hexout.trim(),
                ],
                None,
            );
            assert_eq!(code, 0, "{err}");
            let back: serde_json::Value = serde_json::from_str(&back).unwrap();
            // v12 drops INFO flags, so compare bytes: the decoded items encode to the same bytes.
            let back = pmix_codec::json::items_from_json(&back).unwrap();
            let codec = Codec::new(comp, kind.parse().unwrap());
            assert_eq!(
                hex(&codec.encode(&back).unwrap()),
                hexout.trim(),
                "{comp} {kind}"
            );
            if comp.family() != pmix_codec::Family::Legacy12 {
                assert_eq!(back, items, "{comp} {kind}");
            }
        }
    }
    let (_, raw, _) = pw(
        &[
            "encode",
            "-c",
            "v41",
            "-o",
            "raw",
            "{\"type\":\"UINT32\",\"values\":[42]}",
        ],
        None,
    );
    assert_eq!(raw.as_bytes(), [2, 0x2a]);
}

#[test]
fn tables_diff_and_lookup() {
    insta::assert_snapshot!("types_matrix_master", transcript(&["types"], None));
    insta::assert_snapshot!(
        "types_matrix_4_2",
        transcript(&["types", "-r", "4.2"], None)
    );
    insta::assert_snapshot!("types_v12", transcript(&["types", "-c", "v12"], None));
    insta::assert_snapshot!(
        "diff_pid_v41_v3",
        transcript(
            &[
                "diff",
                "--fields",
                "v41",
                "v3",
                "[{\"type\":\"PID\",\"values\":[4242]},{\"type\":\"BOOL\",\"values\":[true]}]"
            ],
            None
        )
    );
    insta::assert_snapshot!(
        "diff_darray_undef_release",
        transcript(
            &[
                "diff",
                "--fields",
                "v21@4.2",
                "v21@master",
                "{\"type\":\"DATA_ARRAY\",\"values\":[{\"type\":\"UNDEF\",\"values\":[]}]}"
            ],
            None
        )
    );
    insta::assert_snapshot!(
        "diff_unregistered",
        transcript(
            &[
                "diff",
                "v61",
                "v51",
                "[{\"type\":\"UINT8\",\"values\":[1]},{\"type\":\"ALLOC_INHERIT\",\"values\":[2]}]"
            ],
            None
        )
    );
    insta::assert_snapshot!("inherit_tables", transcript(&["inherit"], None));
    insta::assert_snapshot!("inherit_lookups", {
        let mut t = String::new();
        for q in [
            "3",
            "9",
            "CHILD_DEFAULT",
            "pmix.alloc.inhrt",
            "PMIX_SPAWN_TARGET",
            "nonsense",
        ] {
            t.push_str(&transcript(&["inherit", q], None));
        }
        t
    });
}

#[test]
fn completions() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let (code, out, err) = pw(&["completions", shell], None);
        assert_eq!(code, 0, "{shell}: {err}");
        assert!(
            out.contains("pmix-wire") && out.contains("inspect"),
            "{shell}"
        );
    }
    assert_eq!(pw(&["completions", "tcsh"], None).0, 2);
}

#[test]
fn info_sample_flags_are_shown() {
    // A library-built INFO array has ARRAY_END on its last element.
    let items = [Item::new(
        DataType::INFO,
        vec![Value::Info(Box::new(Info {
            key: "k".into(),
            flags: 0x3,
            value: Value::Bool(true),
        }))],
    )];
    let bytes = hex(&Codec::new(Component::V41, BufferKind::NonDescribed)
        .encode(&items)
        .unwrap());
    let (code, out, _) = pw(&["inspect", "-c", "v41", "-t", "INFO", &bytes], None);
    assert_eq!(code, 0);
    assert!(out.contains("flags: 0x3 = REQD|ARRAY_END"), "{out}");
}

/// Hostile nesting, 20000 deep (INFO values holding INFO_ARRAYs; QUERYs whose qualifiers
/// hold QUERYs) is refused by the codec's caps with one error line, in `decode` and
/// `inspect` alike, instead of exhausting the stack.
#[test]
fn hostile_nesting_is_refused() {
    let mut info_arrays = vec![0, 0, 0, 1];
    for _ in 0..20_000 {
        // v3 INFO: key "k", flags 0, value type INFO_ARRAY (44), bare be64 size 1 (master).
        info_arrays.extend_from_slice(&[
            0, 0, 0, 2, b'k', 0, 0, 0, 0, 0, 0, 44, 0, 0, 0, 0, 0, 0, 0, 1,
        ]);
    }
    info_arrays.extend_from_slice(&[0, 0, 0, 2, b'k', 0, 0, 0, 0, 0, 0, 1, 1]);
    let q = DataType::QUERY.0.to_be_bytes();
    let mut queries = vec![0, 0, 0, 1];
    for _ in 0..20_000 {
        // v3 QUERY: no keys, one qualifier (SIZE: UINT64 tag, be64 1); the qualifier is an
        // INFO: key "k", flags 0, value type QUERY.
        queries.extend_from_slice(&[0, 0, 0, 0, 0, 15, 0, 0, 0, 0, 0, 0, 0, 1]);
        queries.extend_from_slice(&[0, 0, 0, 2, b'k', 0, 0, 0, 0, 0, q[0], q[1]]);
    }
    let runs: [(&[u8], &str, &str); 2] = [
        (&info_arrays, "INFO", "INFO_ARRAY nested deeper than 100"),
        (&queries, "QUERY", "QUERY nested deeper than 100"),
    ];
    for (bytes, ty, reason) in runs {
        for cmd in ["decode", "inspect"] {
            let args = [cmd, "-c", "v3", "-t", ty, "--input", "raw", "--as-written"];
            let (code, _, err) = pw(&args, Some(bytes));
            assert_eq!(code, 1, "{cmd} {ty}: {err}");
            assert!(
                err.starts_with("error: PMIX_ERR_UNPACK_FAILURE (-20) at byte ")
                    && err.contains(reason)
                    && err.lines().count() == 1,
                "{cmd} {ty}: {err}"
            );
        }
    }
}

/// Issue 16: `diff -c` compares two byte strings; exit 1 when they differ, 0 when equal.
#[test]
fn diff_compares_byte_strings_under_one_or_two_codecs() {
    let (code, out, err) = pw(&["diff", "-c", "v41", "022a", "022b"], None);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("bytes differ from byte 1"), "{out}");
    let (code, out, err) = pw(&["diff", "-c", "v41", "022a", "022a"], None);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.ends_with("equal\n"), "{out}");
    // Two codecs: the values decide (v41 flex 42 and v3 fixed-width 42 are equal).
    let args = ["diff", "-c", "v41", "-c", "v3", "-t", "UINT32", "022a"];
    let (code, out, _) = pw(&[&args[..], &["000000010000002a"]].concat(), None);
    assert_eq!(code, 0, "{out}");
    let (code, out, _) = pw(&[&args[..], &["000000010000002b"]].concat(), None);
    assert_eq!(code, 1, "{out}");
    // --json: one object saying what differs.
    let (code, out, _) = pw(
        &[
            "diff", "-c", "v41", "-t", "UINT32", "--json", "022a", "022b",
        ],
        None,
    );
    assert_eq!(code, 1);
    let j: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(j["equal"], false);
    assert_eq!(j["first_differing_byte"], 1);
    assert_eq!(j["b"]["items"][0]["values"][0], 43);
    // A bad codec names the valid ones.
    let (code, _, err) = pw(&["diff", "-c", "V41", "00", "00"], None);
    assert_eq!(code, 2);
    for c in Component::ALL {
        assert!(err.contains(c.name()), "{err}");
    }
}

/// Issue 16: output into a pipe closed early (`| head`) ends quietly, without a panic.
#[test]
fn output_into_a_closed_pipe_does_not_panic() {
    for args in [
        &["types"][..],
        &["diff", "-c", "v41", "--json", "022a", "022b"][..],
        &["inspect", "-c", "v41", "-t", "UINT32", "022a"][..],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_pmix-wire"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take()); // the reader is gone before anything is written
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(out.status.code().is_some(), "{args:?}: killed by a signal");
    }
}

/// Issue 16: `pmix-wire quirks [ID]` prints the quirk table (text and --json).
#[test]
fn quirks_prints_the_table_by_id_in_text_and_json() {
    let (code, out, err) = pw(&["quirks", "D1"], None);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("D1-datatype-zigzag\n"), "{out}");
    assert!(
        out.contains("codec/tests/quirks.rs::d1_datatype_zigzag"),
        "{out}"
    );
    let (code, out, _) = pw(&["quirks", "--json"], None);
    assert_eq!(code, 0);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        j.as_array().unwrap().len(),
        pmix_codec::quirks::QUIRKS.len()
    );
    assert!(j[0]["releases"].as_array().is_some_and(|r| !r.is_empty()));
    let (code, _, err) = pw(&["quirks", "Z9"], None);
    assert_eq!(code, 2);
    assert!(err.contains("valid ids: D1-datatype-zigzag"), "{err}");
}

/// `decode -o index` runs the view: it fails as `decode` does (same message, same exit
/// code) and otherwise lists each call's type, count, bytes and largest value.
#[test]
fn decode_index_fails_as_decode_does_and_lists_the_calls() {
    let bad: &[&[&str]] = &[
        &["-c", "v41", "-t", "UINT32,STRING", "02 2a 02 0a 61 62"],
        &["-c", "v61", "-t", "DATA_ARRAY", "02 0e 7f 01"],
        &["-c", "v41", "-t", "INFO", "02 00 00 0f 10"],
        &["-c", "v41", "-t", "PID", "02 03 08"],
    ];
    for args in bad {
        let mut a = vec!["decode"];
        a.extend_from_slice(args);
        let (code, _, err) = pw(&a, None);
        a.extend_from_slice(&["-o", "index"]);
        let (icode, iout, ierr) = pw(&a, None);
        assert_eq!((icode, ierr.as_str()), (code, err.as_str()), "{a:?}");
        assert!(code != 0 && iout.is_empty(), "{a:?}: {iout}");
    }
    let codec = Codec::new(Component::V41, BufferKind::NonDescribed);
    let items = [
        Item::new(DataType::UINT8, vec![Value::Uint8(1); 300]),
        Item::new(
            DataType::STRING,
            vec![
                Value::string("a"),
                Value::string("longest"),
                Value::string("b"),
            ],
        ),
    ];
    let bytes = hex(&codec.encode(&items).unwrap());
    let (code, out, err) = pw(
        &[
            "decode",
            "-c",
            "v41",
            "-t",
            "UINT8,STRING",
            "-o",
            "index",
            "--compact",
            &bytes,
        ],
        None,
    );
    assert_eq!((code, err.as_str()), (0, ""));
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    // UINT8: count 300 (flex 2 bytes), then 300 one-byte values
    assert_eq!(j[0]["type"], "UINT8");
    assert_eq!(j[0]["count"], 300);
    assert_eq!(
        (j[0]["start"].as_u64(), j[0]["end"].as_u64()),
        (Some(0), Some(302))
    );
    assert_eq!(j[0]["largest"]["index"], 0);
    assert_eq!(j[0]["largest"]["bytes"], 1);
    assert_eq!(j[1]["count"], 3);
    assert_eq!(j[1]["largest"]["index"], 1);
    assert_eq!(j[1]["largest"]["bytes"], 9, "length byte, 7 letters, NUL");
    assert_eq!(j[1]["end"].as_u64(), Some(bytes.len() as u64 / 2));
    let (code, _, err) = pw(&["decode", "-c", "v41", "-o", "index", "02 2a"], None);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--types"), "{err}");
}

/// `pmix-wire pcap -` reads the capture from standard input (it used to wait forever: the
/// command locked stdin a second time on the thread that already held the lock) and prints
/// what `pmix-wire pcap FILE` prints for the same capture, in every output form.
#[test]
fn pcap_reads_a_capture_from_stdin_as_from_its_file() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../pcap/tests/captures");
    for name in ["openpmix-4.2.2-clients.pcap", "type75-v51.pcap"] {
        let path = dir.join(name);
        let bytes = std::fs::read(&path).unwrap();
        let path = path.to_str().unwrap();
        for mode in [&[][..], &["--summary"], &["--json"]] {
            let mut by_file = vec!["pcap"];
            by_file.extend_from_slice(mode);
            let mut by_stdin = by_file.clone();
            by_file.push(path);
            by_stdin.push("-");
            let want = pw(&by_file, None);
            let got = pw(&by_stdin, Some(&bytes));
            assert!(
                want.1.contains("conn") && want.1.lines().count() > 5,
                "{name} {mode:?}: {}",
                want.1
            );
            assert_eq!(got, want, "{name} {mode:?}");
        }
    }
    // a truncated capture on stdin: what came before the cut, then the error, named `stdin`
    let bytes = std::fs::read(dir.join("type75-v51.pcap")).unwrap();
    let (code, out, err) = pw(&["pcap", "-"], Some(&bytes[..bytes.len() - 7]));
    assert_eq!(code, 3, "{err}");
    assert!(out.contains("connection 1"), "{out}");
    assert!(err.starts_with("error: stdin: "), "{err}");
}
