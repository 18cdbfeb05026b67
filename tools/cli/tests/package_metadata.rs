//! Every crate of the workspace is adoptable as a package (issue 16, item 8): its directory
//! holds the LICENSE (the root's text, so `cargo package` ships it), and its manifest has
//! the license, readme, keywords, categories and documentation, and no placeholder
//! repository URL. A crate added later without them fails here.

use std::path::Path;

fn root() -> &'static Path {
    Box::leak(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .into_boxed_path(),
    )
}

/// The `members = [...]` of the root manifest.
fn members() -> Vec<String> {
    let text = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("members"))
        .expect("a members line");
    let list = &line[line.find('[').unwrap() + 1..line.rfind(']').unwrap()];
    list.split(',')
        .map(|m| m.trim().trim_matches('"').to_string())
        .filter(|m| !m.is_empty())
        .collect()
}

#[test]
fn every_crate_ships_the_license_and_its_metadata() {
    let license = std::fs::read_to_string(root().join("LICENSE")).unwrap();
    assert!(license.contains("Redistribution and use in source and binary forms"));
    let members = members();
    assert!(members.len() >= 4, "{members:?}");
    for m in &members {
        let dir = root().join(m);
        let copy = std::fs::read_to_string(dir.join("LICENSE"))
            .unwrap_or_else(|e| panic!("{m}/LICENSE: {e} (cargo package would not ship it)"));
        assert_eq!(copy, license, "{m}/LICENSE is not the root's text");
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        for key in [
            "license",
            "readme",
            "keywords",
            "categories",
            "documentation",
        ] {
            assert!(
                manifest.lines().any(|l| l.starts_with(key)),
                "{m}/Cargo.toml lacks {key}"
            );
        }
        assert!(
            !manifest.contains("repository"),
            "{m}: no placeholder repository URL"
        );
    }
}
