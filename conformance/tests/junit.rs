//! The JUnit report against the structure of the JUnit schema Jenkins and GitLab read
//! (issue 16). No XML crate is a dependency, so this is a structural check written in Rust
//! from that schema's rules: a `<testsuites>` root holding only `<testsuite>` elements; each
//! testsuite has `name` and `tests`, optionally `<properties>` first (the run's
//! `--status` mode), and holds `<testcase>` elements whose count, failures,
//! errors and skips match its attributes; each testcase has `name` and `classname` and at
//! most one `<failure>`, `<error>` or `<skipped>` child; attribute values are escaped.

use std::collections::BTreeMap;
use std::process::Command;

const CLI: &str = env!("CARGO_BIN_EXE_pmix-conformance");
const TESTEE: &str = env!("CARGO_BIN_EXE_pmix-testee");

#[derive(Debug, Default)]
struct Elem {
    name: String,
    attrs: BTreeMap<String, String>,
    children: Vec<Elem>,
}

/// A minimal XML reader for what the report writes: elements, attributes, text (ignored).
fn parse(xml: &str) -> Elem {
    let body = xml
        .strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        .expect("XML declaration");
    let mut stack: Vec<Elem> = vec![Elem::default()];
    let mut rest = body;
    while let Some(open) = rest.find('<') {
        let text = &rest[..open];
        assert!(!text.contains('>'), "stray '>' in text {text:?}");
        check_escaped(text);
        let close = rest[open..].find('>').expect("unterminated tag") + open;
        let tag = &rest[open + 1..close];
        rest = &rest[close + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            let done = stack.pop().expect("balanced");
            assert_eq!(done.name, name, "mismatched close tag");
            stack.last_mut().expect("a parent").children.push(done);
            continue;
        }
        let self_closing = tag.ends_with('/');
        let tag = tag.trim_end_matches('/');
        let (name, mut attrs_text) = tag.split_once(' ').unwrap_or((tag, ""));
        let mut e = Elem {
            name: name.to_string(),
            ..Default::default()
        };
        loop {
            attrs_text = attrs_text.trim_start();
            if attrs_text.is_empty() {
                break;
            }
            let (k, v) = attrs_text.split_once("=\"").expect("attribute");
            let end = v.find('"').expect("closing quote");
            let value = &v[..end];
            assert!(!value.contains('<'), "unescaped '<' in {k}");
            check_escaped(value);
            assert!(
                e.attrs.insert(k.to_string(), value.to_string()).is_none(),
                "duplicate attribute {k}"
            );
            attrs_text = &v[end + 1..];
        }
        if self_closing {
            stack.last_mut().unwrap().children.push(e);
        } else {
            stack.push(e);
        }
    }
    assert!(rest.trim().is_empty());
    assert_eq!(stack.len(), 1, "unclosed elements");
    let mut doc = stack.pop().unwrap();
    assert_eq!(doc.children.len(), 1, "one root element");
    doc.children.pop().unwrap()
}

fn check_escaped(s: &str) {
    for (i, _) in s.match_indices('&') {
        let ent = &s[i..];
        assert!(
            ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&#"]
                .iter()
                .any(|e| ent.starts_with(e)),
            "unescaped & in {s:?}"
        );
    }
}

fn num(e: &Elem, k: &str) -> usize {
    e.attrs
        .get(k)
        .unwrap_or_else(|| panic!("<{}> lacks {k}", e.name))
        .parse()
        .unwrap()
}

/// Checks the schema's structure; returns (testcases, skipped).
fn validate(root: &Elem) -> (usize, usize) {
    assert_eq!(root.name, "testsuites");
    let (mut cases, mut skipped_all) = (0, 0);
    for suite in &root.children {
        assert_eq!(suite.name, "testsuite");
        assert!(suite.attrs.contains_key("name"));
        let mut counts = BTreeMap::new();
        // The schema allows one <properties> first, of <property name= value=> elements.
        let testcases = match suite.children.first() {
            Some(p) if p.name == "properties" => {
                for prop in &p.children {
                    assert_eq!(prop.name, "property");
                    assert!(prop.attrs.contains_key("name") && prop.attrs.contains_key("value"));
                }
                &suite.children[1..]
            }
            _ => &suite.children[..],
        };
        for case in testcases {
            assert_eq!(case.name, "testcase");
            let class = &case.attrs["classname"];
            assert!(case.attrs.contains_key("name"));
            for seg in class.split('.') {
                assert!(
                    !seg.is_empty() && !seg.chars().all(|c| c.is_ascii_digit()),
                    "class name {class:?} splits a version into packages"
                );
            }
            assert!(case.children.len() <= 1, "at most one result element");
            for child in &case.children {
                assert!(
                    ["failure", "error", "skipped"].contains(&child.name.as_str()),
                    "unexpected <{}>",
                    child.name
                );
                *counts.entry(child.name.clone()).or_insert(0usize) += 1;
            }
        }
        assert_eq!(num(suite, "tests"), testcases.len());
        assert_eq!(
            num(suite, "failures"),
            counts.get("failure").copied().unwrap_or(0)
        );
        assert_eq!(
            num(suite, "errors"),
            counts.get("error").copied().unwrap_or(0)
        );
        let skipped = counts.get("skipped").copied().unwrap_or(0);
        assert_eq!(num(suite, "skipped"), skipped);
        cases += testcases.len();
        skipped_all += skipped;
    }
    assert_eq!(num(root, "tests"), cases);
    assert_eq!(num(root, "skipped"), skipped_all);
    (cases, skipped_all)
}

fn run_junit(extra: &[&str]) -> String {
    let path = std::env::temp_dir().join(format!(
        "pmix-junit-{}-{}.xml",
        std::process::id(),
        extra.len()
    ));
    let mut args = vec![
        "vectors",
        "--filter",
        "BOOL",
        "--junit",
        path.to_str().unwrap(),
    ];
    args.extend(extra);
    args.extend([
        "--",
        TESTEE,
        "--break",
        "flip-byte",
        "--declare-components",
        "v41,v61",
    ]);
    let o = Command::new(CLI).args(&args).output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let xml = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    xml
}

#[test]
fn the_junit_report_has_the_schema_structure_and_unsplit_class_names() {
    let xml = run_junit(&[]);
    let root = parse(&xml);
    let (cases, skipped) = validate(&root);
    assert!(cases > 0 && skipped > 0, "{cases} cases, {skipped} skipped");
    assert!(
        xml.contains("<failure "),
        "the broken testee fails somewhere"
    );
    // One suite per vector file (component and buffer kind of one release); versions kept whole.
    assert!(xml.contains("classname=\"vectors.openpmix-4_2_2.v41-non-described\""));
    assert!(!xml.contains("classname=\"vectors.openpmix-4.2"));
    let names: Vec<&String> = root.children.iter().map(|s| &s.attrs["name"]).collect();
    assert!(
        names.iter().any(|n| n.ends_with("v41-fully-described")),
        "{names:?}"
    );

    // --junit-omit-unsupported leaves the out-of-scope cases out.
    let lean = run_junit(&["--junit-omit-unsupported"]);
    let root = parse(&lean);
    let (lean_cases, lean_skipped) = validate(&root);
    assert_eq!(lean_skipped, 0);
    assert_eq!(lean_cases, cases - skipped);
}

/// Issue 16: reports say where each expectation comes from (provenance, flags, quirk) in
/// console, JSON and JUnit, with a summary per provenance.
#[test]
fn reports_show_where_each_expectation_comes_from() {
    // Console: a flip-byte testee fails a quirk-decided v12 FLOAT vector.
    let o = Command::new(CLI)
        .args([
            "vectors",
            "--filter",
            "v12.non-described.FLOAT",
            "--max-failures",
            "1000",
        ])
        .args(["--", TESTEE, "--break", "flip-byte"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains(
            "expectation: recorded from openpmix 4.2.2; flags Lossy,Quirk; quirk L1-v12-type-numbers"
        ),
        "{out}"
    );
    assert!(out.contains("by provenance: recorded: "), "{out}");
    // JSON: the origins map, by case id.
    let o = Command::new(CLI)
        .args(["vectors", "--filter", "v12.", "--json"])
        .output()
        .unwrap();
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let origins = j["origins"].as_object().expect("origins");
    assert_eq!(origins.len(), j["cases"].as_array().unwrap().len());
    assert!(origins
        .values()
        .any(|o| o["quirk"] == "L1-v12-type-numbers" && o["provenance"] == "recorded"));
    // Computed expectations (UpstreamBug) are said to be computed.
    let o = Command::new(CLI)
        .args(["vectors", "--json"])
        .output()
        .unwrap();
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let computed = j["origins"]
        .as_object()
        .unwrap()
        .values()
        .filter(|o| o["provenance"] == "computed")
        .inspect(|o| assert!(o["flags"].to_string().contains("UpstreamBug")))
        .count();
    assert!(computed > 0);
    // JUnit: the failure message carries the expectation's origin.
    let xml = run_junit(&[]);
    assert!(
        xml.contains("[expectation: recorded from openpmix"),
        "junit"
    );
}
