//! `ARCHITECTURE.md` stays honest: every path it names (a backticked name with a `/` or a
//! file extension) exists, and every workspace member appears in its table of floors. A
//! renamed or removed file or folder fails here until the map is updated.

mod support;

use support::{root, tree};

/// The backticked names of `text` that look like paths.
fn named_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, span) in text.split('`').enumerate() {
        let looks_like_path = span.contains('/')
            || [".rs", ".md", ".sh", ".toml", ".c"]
                .iter()
                .any(|ext| span.ends_with(ext));
        if i % 2 == 1 && looks_like_path && !span.contains([' ', '<', ':']) {
            out.push(span.to_string());
        }
    }
    out
}

#[test]
fn every_path_it_names_exists() {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let tree = tree();
    let names = named_paths(&text);
    assert!(names.len() >= 40, "only {} paths found", names.len());
    let mut missing = Vec::new();
    for name in &names {
        let bare = name.trim_end_matches('/');
        // From the root, or (in a crate's section, `decode/calls.rs`) below some folder.
        let found =
            root().join(bare).exists() || tree.iter().any(|p| p.ends_with(&format!("/{bare}")));
        if !found {
            missing.push(name.clone());
        }
    }
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names paths that do not exist: {missing:?}"
    );
}

#[test]
fn every_workspace_member_is_on_a_floor() {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let floors = &text[text.find("## The floors").expect("a floors section")..];
    let floors = &floors[..floors[3..].find("\n## ").map_or(floors.len(), |e| e + 3)];
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let line = manifest
        .lines()
        .find(|l| l.trim_start().starts_with("members"))
        .expect("a members line");
    let list = &line[line.find('[').unwrap() + 1..line.rfind(']').unwrap()];
    let members: Vec<&str> = list
        .split(',')
        .map(|m| m.trim().trim_matches('"'))
        .filter(|m| !m.is_empty())
        .collect();
    assert!(members.len() >= 2);
    for m in members.iter().chain(&["fuzz"]) {
        assert!(
            floors.contains(&format!("`{m}/`")),
            "ARCHITECTURE.md's floors do not name the crate `{m}/`"
        );
    }
}
