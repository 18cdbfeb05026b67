//! `QUIRKS.md` (repository root) is generated from `codec/src/quirks.rs`; this fails when it
//! is stale, so CI catches an entry added or changed without regenerating it.
//! Regenerate: `PMIX_WIRE_BLESS=1 cargo test --release -p pmix-codec --test quirks_md`.

use pmix_codec::quirks::QUIRKS;
use pmix_codec::quirks_doc;

#[test]
fn quirks_md_is_generated_from_the_quirk_table_and_not_stale() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../QUIRKS.md");
    let want = quirks_doc::markdown();
    if std::env::var_os("PMIX_WIRE_BLESS").is_some() {
        std::fs::write(path, &want).unwrap();
    }
    let have = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        have == want,
        "QUIRKS.md is stale: regenerate it with PMIX_WIRE_BLESS=1 cargo test --release -p pmix-codec --test quirks_md"
    );
    // Every entry is there with its releases and the test that covers it.
    for q in QUIRKS {
        assert!(have.contains(&format!("\n## {}\n", q.id)), "{}", q.id);
        assert!(have.contains(&quirks_doc::covering_test(q)), "{}", q.id);
        assert!(!q.releases.is_empty(), "{} names no release", q.id);
    }
    // The named tests exist.
    let tests = include_str!("quirks.rs");
    for q in QUIRKS {
        let t = quirks_doc::covering_test(q);
        let f = t.rsplit("::").next().unwrap();
        assert!(tests.contains(&format!("fn {f}()")), "{t} does not exist");
    }
}
